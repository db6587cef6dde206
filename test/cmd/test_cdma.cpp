// CDMA in the cmd layer: layout tables against hand-encoded bytes (docs/sg2260-commands.md
// section 13.2 bit positions), classes and lengths, the walker on built streams and on
// truncated or garbage bytes, the typed builders and their round trips, and op names.
// Core test: runs on the host and on QEMU.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
bool same_bytes(ConstByteSpan got, const uint8_t* want, size_t n) {
  return got.size() == n && std::memcmp(got.data(), want, n) == 0;
}

// A stream of one command of every executable CDMA kind, ended by chain_end.
size_t build_mixed(uint8_t* buf, size_t size) {
  CommandBuilder b(Engine::cdma, ByteSpan(buf, size));
  CdmaTensor t;
  t.addr = 0x1'0000'0000ull;
  t.format = kCdmaFormatFp32;
  t.n = 1;
  t.c = 2;
  t.h = 3;
  t.w = 4;
  t.nstride = 24;
  t.cstride = 12;
  t.hstride = 4;
  CdmaTensor peer = t;
  peer.addr = 0x2'0000'0000ull;
  bool ok = cdma_send(b, t, false) == Status::ok && cdma_recv(b, t, kCdmaReduceAdd) == Status::ok &&
            cdma_read(b, peer, t) == Status::ok && cdma_write(b, t, peer) == Status::ok &&
            cdma_general(b, t.addr, peer.addr, kCdmaFormatInt8, 100, false) == Status::ok &&
            cdma_msg(b, CdmaSysOp::tx_send, 7, 1) == Status::ok && cdma_nop(b) == Status::ok &&
            cdma_sys_tr_wr(b, kCdmaRegSrcMacId, 0x1234) == Status::ok && b.end() == Status::ok;
  return ok ? b.size() : 0;
}
}  // namespace

TEST(CmdCdma, ClassesTypesAndLengths) {
  EXPECT_EQ(static_cast<uint32_t>(Engine::cdma), 4u);
  EXPECT_STREQ(engine_name(Engine::cdma), "cdma");
  EXPECT_FALSE(is_core_engine(Engine::cdma));
  EXPECT_TRUE(is_core_engine(Engine::hau));
  EXPECT_FALSE(is_dma(Engine::cdma));
  const char* const names[12] = {"send", "read", "write", "general", "recv", "lossy_compress", "lossy_decompress",
                                 "sys", "tcp_send", "tcp_recv", "fake_all_reduce", "fake_p2p"};
  const uint32_t lengths[12] = {32, 64, 64, 32, 32, 32, 32, 16, 16, 16, 32, 32};
  for (uint32_t t = 0; t < 12; ++t) {
    const CmdClass c = cdma_class(t, 0);
    EXPECT_TRUE(is_cdma_class(c));
    EXPECT_FALSE(is_dma_class(c));
    EXPECT_FALSE(is_tiu_class(c));
    EXPECT_EQ(class_type(c), t);
    EXPECT_STREQ(class_name(c), names[t]);
    EXPECT_EQ(class_length(c), lengths[t]);
    uint8_t h[16] = {};
    h[0] = static_cast<uint8_t>(t << 4);
    EXPECT_EQ(cdma_length(h), lengths[t]);
  }
  EXPECT_EQ(cdma_class(0, 0), CmdClass::cdma_send);
  EXPECT_EQ(cdma_class(4, 0), CmdClass::cdma_recv);
  for (uint32_t t = 12; t < 16; ++t) {
    EXPECT_EQ(cdma_class(t, 0), CmdClass::none);
    uint8_t h[16] = {};
    h[0] = static_cast<uint8_t>(t << 4);
    EXPECT_EQ(cdma_length(h), 0u);
  }
  // sp_func: 0 except on sys (0..6); tcp has buffer_length there.
  EXPECT_EQ(cdma_class(0, 1), CmdClass::none);
  EXPECT_EQ(cdma_class(2, 3), CmdClass::none);
  EXPECT_EQ(cdma_class(10, 2), CmdClass::none);
  EXPECT_EQ(cdma_class(7, 6), CmdClass::cdma_sys);
  EXPECT_EQ(cdma_class(7, 7), CmdClass::none);
  EXPECT_EQ(cdma_class(8, 5), CmdClass::cdma_tcp_send);
  EXPECT_FALSE(is_dma_class(CmdClass::none));
  EXPECT_FALSE(is_cdma_class(CmdClass::none));
  EXPECT_TRUE(is_dma_class(CmdClass::dma_transfer));
  EXPECT_EQ(cdma_format_bytes(kCdmaFormatInt8), 1u);
  EXPECT_EQ(cdma_format_bytes(kCdmaFormatBf16), 2u);
  EXPECT_EQ(cdma_format_bytes(kCdmaFormatInt32), 4u);
  EXPECT_EQ(cdma_format_bytes(kCdmaFormatFp20), 0u);
  EXPECT_EQ(cdma_format_bytes(7), 0u);
  EXPECT_TRUE(cdma_reduce_valid(kCdmaFormatInt32, kCdmaReduceAdd));
  EXPECT_FALSE(cdma_reduce_valid(kCdmaFormatInt32, kCdmaReduceMul));
  EXPECT_FALSE(cdma_reduce_valid(kCdmaFormatInt16, kCdmaReduceMax));
  EXPECT_TRUE(cdma_reduce_valid(kCdmaFormatInt8, kCdmaReduceNone));
  EXPECT_TRUE(cdma_reduce_valid(kCdmaFormatFp20, kCdmaReduceMul));
  EXPECT_EQ(kCdmaMaxCredits, 2u);
  EXPECT_EQ(kCdmaPorts, 10u);
}

TEST(CmdCdma, SendBytes) {
  uint8_t buf[32];
  CommandBuilder b(Engine::cdma, ByteSpan(buf, sizeof buf));
  CdmaTensor t;
  t.addr = 0x1'2345'6780ull;
  t.format = kCdmaFormatFp16;
  t.n = 2;
  t.c = 3;
  t.h = 4;
  t.w = 5;
  t.nstride = 0x1000;
  t.cstride = 0x100;
  t.hstride = 0x10;
  ASSERT_EQ(cdma_send(b, t, true), Status::ok);
  // stride_enable@1, cmd_type 0, src_data_format 1 @12, h13 1 @16, psum_op 1 @29, strides @32/64/96,
  // sizes @128/144/160/192, l32 @224.
  const uint8_t want[32] = {0x02, 0x10, 0x01, 0x20, 0x00, 0x10, 0, 0, 0x00, 0x01, 0, 0, 0x10, 0, 0, 0,
                            0x02, 0,    0x03, 0,    0x04, 0,    0, 0, 0x05, 0,    0, 0, 0x80, 0x67, 0x45, 0x23};
  EXPECT_TRUE(same_bytes(b.bytes(), want, 32));
  const CdmaSendView v(buf);
  EXPECT_EQ(v.src_start_addr(), 0x1'2345'6780ull);
  EXPECT_EQ(v.psum_op(), 1u);
  EXPECT_EQ(v.src_hsize(), 4u);
}

TEST(CmdCdma, RecvBytes) {
  uint8_t buf[32];
  CommandBuilder b(Engine::cdma, ByteSpan(buf, sizeof buf));
  CdmaTensor t;
  t.addr = (uint64_t{31} << 40) | 0x400;  // LMEM
  t.format = kCdmaFormatFp32;
  t.n = 1;
  t.c = 2;
  t.h = 1;
  t.w = 8;
  t.nstride = 16;
  t.cstride = 8;
  t.hstride = 8;
  ASSERT_EQ(cdma_recv(b, t, kCdmaReduceAdd), Status::ok);
  // cmd_type 4, data_format 2 @11:3, send_type 0 @14, h13 0x1F00 @16, reduce_op 4 @29.
  const uint8_t want[32] = {0x42, 0x10, 0x00, 0x9F, 0x10, 0, 0, 0, 0x08, 0, 0, 0, 0x08, 0, 0, 0,
                            0x01, 0,    0x02, 0,    0x01, 0, 0, 0, 0x08, 0, 0, 0, 0x00, 0x04, 0, 0};
  EXPECT_TRUE(same_bytes(b.bytes(), want, 32));
  const CdmaRecvView v(buf);
  EXPECT_EQ(v.data_format(), kCdmaFormatFp32);
  EXPECT_EQ(v.reduce_op(), kCdmaReduceAdd);
  EXPECT_EQ(v.dst_start_addr(), t.addr);
  uint8_t st[32] = {};
  CdmaRecvRef(st).set_send_type(kCdmaPairLossyDecompress);
  EXPECT_EQ(st[1], 0x80);  // @14:2
}

TEST(CmdCdma, ReadBytes) {
  uint8_t buf[64];
  CommandBuilder b(Engine::cdma, ByteSpan(buf, sizeof buf));
  CdmaTensor src, dst;
  src.addr = 0x2'0000'1000ull;
  src.format = dst.format = kCdmaFormatInt8;
  src.h = dst.h = 2;
  src.w = dst.w = 64;
  src.hstride = 64;
  dst.hstride = 128;
  dst.addr = 0x1'0000'2000ull;
  ASSERT_EQ(cdma_read(b, src, dst), Status::ok);
  const uint8_t want[64] = {0x12, 0, 0x02, 0, 0x01, 0, 0, 0,                  // header, h13s @16/@32
                            0, 0, 0, 0, 0, 0, 0, 0,                           // src n/c strides
                            0x40, 0, 0, 0, 0, 0, 0, 0,                        // src h stride, dst n stride
                            0, 0, 0, 0, 0x80, 0, 0, 0,                        // dst c/h strides
                            0x01, 0, 0x01, 0, 0x02, 0, 0, 0,                  // src n, c, h
                            0x40, 0, 0, 0, 0x01, 0, 0x01, 0,                  // src w, dst n, c
                            0x02, 0, 0, 0, 0x40, 0, 0, 0,                     // dst h, w
                            0x00, 0x10, 0, 0, 0x00, 0x20, 0, 0};              // l32s @448/@480
  EXPECT_TRUE(same_bytes(b.bytes(), want, 64));
  const CdmaReadWriteView v(buf);
  EXPECT_EQ(v.src_start_addr(), src.addr);
  EXPECT_EQ(v.dst_start_addr(), dst.addr);
  uint8_t ids[64] = {};
  const CdmaReadWriteRef r(ids);
  r.set_src_chip_id(5);
  r.set_dst_chip_id(9);
  r.set_dst_start_addr_h13(0x1FFF);
  EXPECT_EQ(ids[4], 0xFF);                // dst h13 bits 32..39
  EXPECT_EQ(ids[5], 0x1F | (5 << 5));     // dst h13 bits 40..44, src chip id bits 0..2 @45
  EXPECT_EQ(ids[6], (9 << 1));            // src chip id bit 3 @48 = 0, dst chip id @49
  EXPECT_EQ(CdmaReadWriteView(ids).src_chip_id(), 5u);
}

TEST(CmdCdma, GeneralBytes) {
  uint8_t buf[32];
  CommandBuilder b(Engine::cdma, ByteSpan(buf, sizeof buf));
  ASSERT_EQ(cdma_general(b, 0x1'0000'0100ull, 0x3'0000'0200ull, kCdmaFormatBf16, 300, false), Status::ok);
  const uint8_t want[32] = {0x30, 0x50, 0x01, 0, 0x03, 0, 0, 0, 0x2C, 0x01, 0, 0, 0x00, 0x01, 0, 0,
                            0x00, 0x02, 0,    0, 0,    0, 0, 0, 0,    0,    0, 0, 0,    0,    0, 0};
  EXPECT_TRUE(same_bytes(b.bytes(), want, 32));
  const CdmaGeneralView v(buf);
  EXPECT_EQ(v.cmd_length(), 300u);
  EXPECT_EQ(v.src_start_addr(), 0x1'0000'0100ull);
  EXPECT_EQ(v.dst_start_addr(), 0x3'0000'0200ull);
  uint8_t ids[32] = {};
  CdmaGeneralRef(ids).set_dst_chip_id(15);
  EXPECT_EQ(ids[6], 15 << 1);  // @49:4
  // fill: the constant is the source address's low word.
  uint8_t f[32];
  CommandBuilder bf(Engine::cdma, ByteSpan(f, sizeof f));
  ASSERT_EQ(cdma_general(bf, 0xDEADBEEF, 0x3'0000'0200ull, kCdmaFormatFp32, 8, true), Status::ok);
  EXPECT_EQ(CdmaGeneralView(f).fill_constant_en(), 1u);
  EXPECT_EQ(CdmaGeneralView(f).src_start_addr_l32(), 0xDEADBEEFu);
}

TEST(CmdCdma, SysBytes) {
  uint8_t buf[48];
  CommandBuilder b(Engine::cdma, ByteSpan(buf, sizeof buf));
  ASSERT_EQ(cdma_msg(b, CdmaSysOp::rx_wait, 300, 3), Status::ok);
  ASSERT_EQ(cdma_sys_tr_wr(b, kCdmaRegDstMacId, 0x0000'0005'0000'0007ull), Status::ok);
  ASSERT_EQ(b.end(), Status::ok);
  const uint8_t want[48] = {0x70, 0x06, 0, 0, 0x2C, 0x01, 0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
                            0x70, 0x02, 0, 0, 0x07, 0,    0,    0,    0x05, 0, 0, 0, 0x02, 0, 0, 0,
                            0x71, 0x00, 0, 0, 0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(same_bytes(b.bytes(), want, 48));
  const CdmaSysView v(buf);
  EXPECT_EQ(v.msg_id(), 300u);
  EXPECT_EQ(v.msg_cnt(), 3u);
  EXPECT_EQ(CdmaSysView(buf + 16).constant_value(), 0x0000'0005'0000'0007ull);
  EXPECT_EQ(CdmaSysView(buf + 16).reg_sel(), 2u);
}

TEST(CmdCdma, FakeAndTcpFields) {
  uint8_t f[32] = {};
  const CdmaFakeRef v(f);
  v.set_dst_chip_id_b0(1);
  v.set_dst_chip_id_b1(1);
  v.set_dst_chip_id_b32(2);
  EXPECT_EQ(f[0], 0x08);       // @3
  EXPECT_EQ(f[1], 0x80);       // @15
  EXPECT_EQ(f[3], 0x80);       // @30:2 = 2
  EXPECT_EQ(CdmaFakeView(f).dst_chip_id(), 11u);
  uint8_t t[16] = {};
  const CdmaTcpRef r(t);
  r.set_buffer_length(0x5DC);
  r.set_cmd_id(0xABCDEF);
  r.set_buffer_addr_h8(0x12);
  EXPECT_EQ(t[1], 0xDC);
  EXPECT_EQ(t[2], 0x05);
  EXPECT_EQ(t[12], 0x12);
  EXPECT_EQ(t[13], 0xEF);
  EXPECT_EQ(t[15], 0xAB);
}

TEST(CmdCdma, WalkerOnABuiltStream) {
  static uint8_t buf[512];
  std::memset(buf, 0, sizeof buf);
  const size_t n = build_mixed(buf, sizeof buf);
  ASSERT_EQ(n, size_t{32 + 32 + 64 + 64 + 32 + 16 * 4});
  const CmdClass want[9] = {CmdClass::cdma_send, CmdClass::cdma_recv, CmdClass::cdma_read,
                            CmdClass::cdma_write, CmdClass::cdma_general, CmdClass::cdma_sys,
                            CmdClass::cdma_sys, CmdClass::cdma_sys, CmdClass::cdma_sys};
  const uint32_t eus[9] = {0, 0, 0, 0, 0, 3, 1, 2, 0};
  // Zero padding after the end is not a command.
  Walker w(Engine::cdma, ConstByteSpan(buf, n + 48));
  Command c;
  uint32_t i = 0;
  size_t offset = 0;
  while (w.next(c)) {
    ASSERT_LT(i, 9u);
    EXPECT_EQ(c.id, i + 1);
    EXPECT_EQ(c.offset, offset);
    EXPECT_EQ(c.cls, want[i]);
    EXPECT_EQ(c.eu, eus[i]);
    EXPECT_EQ(c.type, class_type(want[i]));
    EXPECT_EQ(c.dep, 0u);
    EXPECT_EQ(c.engine, Engine::cdma);
    EXPECT_EQ(c.is_end(), i == 8);
    offset += c.length;
    ++i;
  }
  EXPECT_EQ(w.status(), Status::ok);
  EXPECT_EQ(i, 9u);
  const CdmaTransferCounts k = count_cdma_transfers(ConstByteSpan(buf, n));
  EXPECT_EQ(k.sends, 1u);
  EXPECT_EQ(k.recvs, 1u);
}

TEST(CmdCdma, WalkerErrors) {
  static uint8_t buf[512];
  std::memset(buf, 0, sizeof buf);
  const size_t n = build_mixed(buf, sizeof buf);
  ASSERT_GT(n, size_t{0});
  Walker cut(Engine::cdma, ConstByteSpan(buf, 100));  // inside the read (bytes 64..127)
  Command c;
  while (cut.next(c)) {
  }
  EXPECT_EQ(cut.status(), Status::cmd_truncated);
  EXPECT_EQ(cut.error_offset(), size_t{64});
  EXPECT_EQ(cut.error_id(), 3u);
  Walker no_end(Engine::cdma, ConstByteSpan(buf, n - 16));
  while (no_end.next(c)) {
  }
  EXPECT_EQ(no_end.status(), Status::cmd_missing_end);
  uint8_t after[64];
  std::memcpy(after, buf + n - 16, 16);  // chain_end
  std::memset(after + 16, 0, 48);
  after[40] = 1;
  Walker data(Engine::cdma, ConstByteSpan(after, sizeof after));
  while (data.next(c)) {
  }
  EXPECT_EQ(data.status(), Status::cmd_data_after_end);
  EXPECT_EQ(data.error_offset(), size_t{40});
  // cmd_type 12..15, sys sp_func 7, a send with sp_func 1.
  const uint8_t unknown[4][2] = {{0xC0, 0}, {0xF2, 0}, {0x70, 0x07}, {0x02, 0x01}};
  for (const auto& u : unknown) {
    uint8_t g[48] = {};
    g[0] = u[0];
    g[1] = u[1];
    Walker wg(Engine::cdma, ConstByteSpan(g, sizeof g));
    EXPECT_FALSE(wg.next(c));
    EXPECT_EQ(wg.status(), Status::cmd_unknown_class);
    EXPECT_EQ(wg.error_id(), 1u);
  }
  uint8_t short_buf[8] = {0x71};
  Walker ws(Engine::cdma, ConstByteSpan(short_buf, sizeof short_buf));
  EXPECT_FALSE(ws.next(c));
  EXPECT_EQ(ws.status(), Status::cmd_truncated);
  // Pseudo-random garbage never reads past the buffer and always stops.
  uint64_t s = 0x2260'0cd0'0000'0001ull;
  for (int round = 0; round < 200; ++round) {
    uint8_t g[96];
    for (uint8_t& x : g) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      x = static_cast<uint8_t>(s);
    }
    Walker wg(Engine::cdma, ConstByteSpan(g, 1 + (s % sizeof g)));
    uint32_t steps = 0;
    while (wg.next(c)) {
      EXPECT_LE(c.offset + c.length, sizeof g);
      ++steps;
    }
    EXPECT_LE(steps, 6u);
  }
}

TEST(CmdCdma, BuilderRoundTrips) {
  static uint8_t buf[512], copy[512], fields[512];
  std::memset(buf, 0, sizeof buf);
  const size_t n = build_mixed(buf, sizeof buf);
  ASSERT_GT(n, size_t{0});
  CommandBuilder bc(Engine::cdma, ByteSpan(copy, sizeof copy));
  CommandBuilder bf(Engine::cdma, ByteSpan(fields, sizeof fields));
  Walker w(Engine::cdma, ConstByteSpan(buf, n));
  Command c;
  while (w.next(c)) {
    EXPECT_EQ(bc.append_copy(c.bytes()), Status::ok);
    uint64_t v[64];
    ASSERT_EQ(decode_fields(c.cls, c.bytes(), Span<uint64_t>(v, 64)), Status::ok);
    EXPECT_EQ(bf.append_fields(c.cls, Span<const uint64_t>(v, fields_of(c.cls).size())), Status::ok);
  }
  ASSERT_EQ(bc.size(), n);
  ASSERT_EQ(bf.size(), n);
  EXPECT_EQ(std::memcmp(copy, buf, n), 0);
  EXPECT_EQ(std::memcmp(fields, buf, n), 0);
  // append on every class of the engine and only there.
  uint8_t one[64];
  for (uint32_t t = 0; t < 12; ++t) {
    CommandBuilder b(Engine::cdma, ByteSpan(one, sizeof one));
    const CmdClass cls = cdma_class(t, 0);
    const Result<uint8_t*> r = b.append(cls, 0);
    ASSERT_TRUE(r.ok());
    Command d;
    ASSERT_EQ(decode_command(Engine::cdma, b.bytes(), 0, d), Status::ok);
    EXPECT_EQ(d.cls, cls);
    EXPECT_EQ(b.append(cls, 1).status(), cls == CmdClass::cdma_sys ? Status::ok : Status::invalid_argument);
    CommandBuilder g(Engine::gdma, ByteSpan(one, sizeof one));
    EXPECT_EQ(g.append(cls, 0).status(), Status::invalid_argument);
  }
}

TEST(CmdCdma, TypedBuildersRefuseBadArguments) {
  uint8_t one[64];
  CommandBuilder b(Engine::cdma, ByteSpan(one, sizeof one));
  EXPECT_EQ(b.append(CmdClass::dma_tensor, 0).status(), Status::invalid_argument);
  EXPECT_EQ(b.append(CmdClass::cdma_sys, 7).status(), Status::invalid_argument);
  EXPECT_EQ(b.send_msg(1, 1), Status::invalid_argument);
  EXPECT_EQ(b.wait_msg(1, 1), Status::invalid_argument);
  CdmaTensor t;
  t.addr = 0x1'0000'0000ull;
  CdmaTensor bad = t;
  bad.format = 7;
  EXPECT_EQ(cdma_send(b, bad, false), Status::invalid_argument);
  bad = t;
  bad.c = 0;
  EXPECT_EQ(cdma_send(b, bad, false), Status::invalid_argument);
  bad = t;
  bad.addr = uint64_t{1} << 45;
  EXPECT_EQ(cdma_recv(b, bad, kCdmaReduceNone), Status::invalid_argument);
  bad = t;
  bad.format = kCdmaFormatInt8;
  EXPECT_EQ(cdma_recv(b, bad, kCdmaReduceAdd), Status::invalid_argument);
  EXPECT_EQ(cdma_recv(b, t, 5), Status::invalid_argument);
  bad = t;
  bad.format = kCdmaFormatFp16;
  EXPECT_EQ(cdma_write(b, t, bad), Status::invalid_argument);
  EXPECT_EQ(cdma_general(b, t.addr, t.addr, kCdmaFormatFp32, 0, false), Status::invalid_argument);
  EXPECT_EQ(cdma_msg(b, CdmaSysOp::nop, 1, 1), Status::invalid_argument);
  EXPECT_EQ(cdma_msg(b, CdmaSysOp::tx_wait, 512, 1), Status::invalid_argument);
  EXPECT_EQ(cdma_msg(b, CdmaSysOp::tx_wait, 1, 0), Status::invalid_argument);
  EXPECT_EQ(cdma_msg(b, CdmaSysOp::tx_wait, 1, 128), Status::invalid_argument);
  EXPECT_EQ(cdma_sys_tr_wr(b, 3, 0), Status::invalid_argument);
  EXPECT_EQ(b.size(), size_t{0});  // nothing written by a refusal
  CommandBuilder g(Engine::gdma, ByteSpan(one, sizeof one));
  EXPECT_EQ(cdma_send(g, t, false), Status::invalid_argument);
  EXPECT_EQ(cdma_nop(g), Status::invalid_argument);
  // The recv carries the format, psum follows the caller, stride_enable is set.
  ASSERT_EQ(cdma_recv(b, t, kCdmaReduceMax), Status::ok);
  EXPECT_EQ(CdmaRecvView(one).data_format(), t.format);
  EXPECT_EQ(CdmaRecvView(one).stride_enable(), 1u);
  // A filled write copies the destination's shape to the source.
  CdmaTensor d = t;
  d.addr = 0x2'0000'0000ull;
  d.c = 7;
  CommandBuilder bw(Engine::cdma, ByteSpan(one, sizeof one));
  ASSERT_EQ(cdma_write_fill(bw, 0x3F800000u, d), Status::ok);
  const CdmaReadWriteView wv(one);
  EXPECT_EQ(wv.fill_constant_en(), 1u);
  EXPECT_EQ(wv.src_nstride(), 0x3F800000u);
  EXPECT_EQ(wv.src_csize(), 7u);
}

TEST(CmdCdma, OpNames) {
  EXPECT_STREQ(op_name(CmdClass::cdma_send, 0), "CDMA_send");
  EXPECT_STREQ(op_name(CmdClass::cdma_read, 0), "CDMA_read");
  EXPECT_STREQ(op_name(CmdClass::cdma_write, 0), "CDMA_write");
  EXPECT_STREQ(op_name(CmdClass::cdma_general, 0), "CDMA_general");
  EXPECT_STREQ(op_name(CmdClass::cdma_recv, 0), "CDMA_receive");
  EXPECT_STREQ(op_name(CmdClass::cdma_lossy_compress, 0), "CDMA_lossy_compress");
  EXPECT_STREQ(op_name(CmdClass::cdma_sys, 0), "sCDMA_sys.chain_end");
  EXPECT_STREQ(op_name(CmdClass::cdma_sys, 4), "sCDMA_sys.tx_wait_msg");
  EXPECT_STREQ(op_name(CmdClass::cdma_sys, 6), "sCDMA_sys.rx_wait_msg");
  EXPECT_STREQ(op_name(CmdClass::cdma_sys, 7), "unknown");
  EXPECT_STREQ(op_name(CmdClass::cdma_send, 1), "unknown");
  EXPECT_STREQ(op_name(CmdClass::cdma_fake_p2p, 0), "CDMA_fake_p2p");
  for (uint32_t t = 0; t < 16; ++t) {
    for (uint32_t sp = 0; sp < 8; ++sp) {
      const CmdClass c = cdma_class(t, sp);
      if (c != CmdClass::none) {
        EXPECT_NE(std::strcmp(op_name(c, sp), "unknown"), 0);
      }
    }
  }
}
