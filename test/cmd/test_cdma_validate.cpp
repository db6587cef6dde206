// validate_stream(Engine::cdma, ...): one test per check (each stream passes without the defect
// and fails with it, naming the command, offset and field), ownership of each side by the
// stream's chip or its peer, the fakes behind cmodel_compat, the stream limit and the
// transfer counts. Core test: runs on the host and on QEMU.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/validate.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
constexpr uint64_t kOwnDdr = 0x100'0000'0000ull;  // tag 1
constexpr uint64_t kPeerDdr = 0x200'0000'0000ull;  // tag 2
constexpr uint64_t kLmem = uint64_t{31} << 40;
constexpr uint64_t kL2 = (uint64_t{30} << 40) | 0x69'8000'0000ull;

// The own chip backs 4 KiB of tag 1, the peer 4 KiB of tag 2.
constexpr DdrRegion kOwnMap[1] = {{1, 0x100'0000'0000ull, 4096}};
constexpr DdrRegion kPeerMap[1] = {{2, 0x200'0000'0000ull, 4096}};

ValidateOptions maps() {
  ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const DdrRegion>(kOwnMap, 1);
  o.cdma.chip = 3;
  o.cdma.peer = 5;
  o.cdma.peer_use_memory_map = true;
  o.cdma.peer_ddr_regions = Span<const DdrRegion>(kPeerMap, 1);
  return o;
}

CdmaTensor tensor(uint64_t addr, uint32_t format = kCdmaFormatFp32) {
  CdmaTensor t;
  t.addr = addr;
  t.format = format;
  t.c = 2;
  t.h = 2;
  t.w = 4;
  t.cstride = 8;
  t.hstride = 4;
  return t;
}

// One command (built by the caller into `b`) followed by chain_end.
struct Stream {
  uint8_t buf[384] = {};
  CommandBuilder b{Engine::cdma, ByteSpan(buf, sizeof buf)};
  ValidationReport check(const ValidateOptions& o = ValidateOptions{}) {
    if (!ended) {
      ended = true;
      if (b.end() != Status::ok) return ValidationReport{Status::buffer_too_small};
    }
    return validate_stream(Engine::cdma, b.bytes(), o);
  }
  bool ended = false;
};

bool fails(const ValidationReport& r, Status s, const char* field, uint32_t id = 1, size_t offset = 0) {
  return r.status == s && std::strcmp(r.field, field) == 0 && r.command_id == id && r.offset == offset &&
         r.engine == Engine::cdma && r.message != nullptr && r.message[0] != '\0';
}
}  // namespace

TEST(CmdCdmaValidate, ValidStreamAndCounts) {
  Stream s;
  ASSERT_EQ(cdma_msg(s.b, CdmaSysOp::rx_wait, 10, 1), Status::ok);
  ASSERT_EQ(cdma_send(s.b, tensor(kLmem), false), Status::ok);
  ASSERT_EQ(cdma_recv(s.b, tensor(kOwnDdr + 64), kCdmaReduceAdd), Status::ok);
  ASSERT_EQ(cdma_recv(s.b, tensor(kL2), kCdmaReduceNone), Status::ok);
  ASSERT_EQ(cdma_write(s.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  ASSERT_EQ(cdma_read(s.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  ASSERT_EQ(cdma_general(s.b, kOwnDdr, kPeerDdr, kCdmaFormatInt8, 4096, false), Status::ok);
  ASSERT_EQ(cdma_msg(s.b, CdmaSysOp::tx_send, 511, 127), Status::ok);
  ASSERT_EQ(cdma_sys_tr_wr(s.b, kCdmaRegDstMacId, 5), Status::ok);
  ASSERT_EQ(cdma_nop(s.b), Status::ok);
  const ValidationReport r = s.check(maps());
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.commands, 11u);
  EXPECT_EQ(r.cdma_sends, 1u);
  EXPECT_EQ(r.cdma_recvs, 2u);
  EXPECT_EQ(s.check().status, Status::ok);  // without memory maps too
}

TEST(CmdCdmaValidate, Structure) {
  Stream s;
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), false), Status::ok);
  ASSERT_EQ(s.check().status, Status::ok);
  const size_t n = s.b.size();
  EXPECT_TRUE(fails(validate_stream(Engine::cdma, ConstByteSpan(s.buf, 40)), Status::cmd_truncated, "", 2, 32));
  EXPECT_TRUE(fails(validate_stream(Engine::cdma, ConstByteSpan(s.buf, 32)), Status::cmd_missing_end, "", 2, 32));
  s.buf[n + 3] = 1;
  EXPECT_TRUE(fails(validate_stream(Engine::cdma, ConstByteSpan(s.buf, n + 16)), Status::cmd_data_after_end, "",
                    3, n + 3));
  s.buf[n + 3] = 0;
  s.buf[0] = 0xC2;  // cmd_type 12
  EXPECT_TRUE(fails(validate_stream(Engine::cdma, ConstByteSpan(s.buf, n)), Status::cmd_unknown_class, ""));
  s.buf[0] = 0x02;
  s.buf[1] |= 0x01;  // sp_func 1 on a send
  EXPECT_EQ(validate_stream(Engine::cdma, ConstByteSpan(s.buf, n)).status, Status::cmd_unknown_class);
}

TEST(CmdCdmaValidate, FakesOnlyInCmodelCompatMode) {
  Stream s;
  const Result<CdmaFakeRef> f = s.b.append_as<CdmaFakeRef>(CmdClass::cdma_fake_p2p, 0);
  ASSERT_TRUE(f.ok());
  const CdmaFakeRef v = f.value();
  v.set_src_data_format(kCdmaFormatFp16);
  v.set_src_nsize(1);
  v.set_src_csize(1);
  v.set_src_hsize(1);
  v.set_src_wsize(64);
  v.set_src_start_addr_h13(0x100);
  EXPECT_TRUE(fails(s.check(), Status::cmd_unknown_class, "cmd_type"));
  ValidateOptions o = maps();
  o.cdma.cmodel_compat = true;
  EXPECT_EQ(s.check(o).status, Status::ok);
  EXPECT_EQ(s.check(o).cdma_sends, 0u);  // not a send: pairing never counts the fakes
  v.set_dst_chip_id_b1(1);               // chip 2, the peer is 5
  EXPECT_TRUE(fails(s.check(o), Status::cmd_bad_field, "dst_chip_id"));
  v.set_dst_chip_id_b0(1);
  v.set_dst_chip_id_b1(0);
  v.set_dst_chip_id_b32(1);  // chip 5
  EXPECT_EQ(s.check(o).status, Status::ok);
}

TEST(CmdCdmaValidate, StreamTooLong) {
  Stream s;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(cdma_nop(s.b), Status::ok);
  ValidateOptions o;
  o.cdma.max_commands = 4;
  EXPECT_EQ(s.check(o).status, Status::ok);
  o.cdma.max_commands = 3;
  EXPECT_TRUE(fails(s.check(o), Status::cmd_stream_too_long, "", 4, 48));
  EXPECT_EQ(ValidateOptions{}.cdma.max_commands, (1u << 24) - 1);
}

TEST(CmdCdmaValidate, DataFormatAbove6) {
  Stream s, r, w, g;
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), false), Status::ok);
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr), 0), Status::ok);
  ASSERT_EQ(cdma_write(w.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  ASSERT_EQ(cdma_general(g.b, kOwnDdr, kPeerDdr, kCdmaFormatFp32, 8, false), Status::ok);
  CdmaSendRef(s.buf).set_src_data_format(7);
  CdmaRecvRef(r.buf).set_data_format(7);
  CdmaReadWriteRef(w.buf).set_src_data_format(15);
  CdmaGeneralRef(g.buf).set_src_data_format(8);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_field, "src_data_format"));
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "data_format"));
  EXPECT_TRUE(fails(w.check(), Status::cmd_bad_field, "src_data_format"));
  EXPECT_TRUE(fails(g.check(), Status::cmd_bad_field, "src_data_format"));
}

TEST(CmdCdmaValidate, ReduceAndPsumOps) {
  Stream r;
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr, kCdmaFormatInt32), kCdmaReduceAdd), Status::ok);
  EXPECT_EQ(r.check().status, Status::ok);
  const CdmaRecvRef v(r.buf);
  v.set_reduce_op(5);
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "reduce_op"));
  v.set_reduce_op(kCdmaReduceMul);  // INT32 has no mul
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "reduce_op"));
  v.set_reduce_op(kCdmaReduceMax);
  v.set_data_format(kCdmaFormatInt8);  // INT8 has no reduce
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "reduce_op"));
  v.set_data_format(kCdmaFormatFp20);
  v.set_dst_start_addr_l32(0);
  EXPECT_EQ(r.check().status, Status::ok);
  Stream s;
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), true), Status::ok);
  EXPECT_EQ(s.check().status, Status::ok);
  CdmaSendRef(s.buf).set_psum_op(2);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_field, "psum_op"));
}

TEST(CmdCdmaValidate, RecvSendTypeAbove2) {
  Stream r;
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr), 0), Status::ok);
  CdmaRecvRef(r.buf).set_send_type(kCdmaPairLossyDecompress);
  EXPECT_EQ(r.check().status, Status::ok);
  CdmaRecvRef(r.buf).set_send_type(3);
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "send_type"));
}

TEST(CmdCdmaValidate, SizesAtLeastOne) {
  Stream s, r, w, g;
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), false), Status::ok);
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr), 0), Status::ok);
  ASSERT_EQ(cdma_read(w.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  ASSERT_EQ(cdma_general(g.b, kOwnDdr, kPeerDdr, kCdmaFormatFp32, 8, false), Status::ok);
  CdmaSendRef(s.buf).set_src_csize(0);
  CdmaRecvRef(r.buf).set_dst_wsize(0);
  CdmaReadWriteRef(w.buf).set_dst_nsize(0);
  CdmaGeneralRef(g.buf).set_cmd_length(0);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_field, "src_csize"));
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "dst_wsize"));
  EXPECT_TRUE(fails(w.check(), Status::cmd_bad_field, "dst_nsize"));
  EXPECT_TRUE(fails(g.check(), Status::cmd_bad_field, "cmd_length"));
  // nchw_copy: the dst sizes are not used.
  CdmaReadWriteRef(w.buf).set_nchw_copy(1);
  EXPECT_EQ(w.check().status, Status::ok);
}

TEST(CmdCdmaValidate, ReadWriteElementCounts) {
  Stream w;
  ASSERT_EQ(cdma_write(w.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  EXPECT_EQ(w.check().status, Status::ok);
  const CdmaReadWriteRef v(w.buf);
  v.set_dst_csize(4);  // 32 elements, the source has 16
  EXPECT_TRUE(fails(w.check(), Status::cmd_bad_field, "dst_nsize"));
  v.set_dst_hsize(1);  // 4 x 4 = 16 again: other shape, same count
  EXPECT_EQ(w.check().status, Status::ok);
  v.set_dst_hsize(2);
  v.set_nchw_copy(1);
  EXPECT_EQ(w.check().status, Status::ok);
}

TEST(CmdCdmaValidate, LossyFormats) {
  Stream c, d;
  const Result<CdmaSendRef> a = c.b.append_as<CdmaSendRef>(CmdClass::cdma_lossy_compress, 0);
  const Result<CdmaSendRef> b = d.b.append_as<CdmaSendRef>(CmdClass::cdma_lossy_decompress, 0);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  for (const CdmaSendRef& v : {a.value(), b.value()}) {
    v.set_src_nsize(1);
    v.set_src_csize(1);
    v.set_src_hsize(1);
    v.set_src_wsize(64);
    v.set_src_start_addr_h13(0x100);
  }
  a.value().set_src_data_format(kCdmaFormatFp32);
  b.value().set_src_data_format(kCdmaFormatFp20);
  const ValidationReport rc = c.check();
  EXPECT_EQ(rc.status, Status::ok);
  EXPECT_EQ(rc.cdma_sends, 1u);
  EXPECT_EQ(d.check().status, Status::ok);
  a.value().set_src_data_format(kCdmaFormatFp16);
  b.value().set_src_data_format(kCdmaFormatFp32);
  EXPECT_TRUE(fails(c.check(), Status::cmd_bad_field, "src_data_format"));
  EXPECT_TRUE(fails(d.check(), Status::cmd_bad_field, "src_data_format"));
}

TEST(CmdCdmaValidate, FillOnlyOnWriteAndGeneral) {
  Stream w, g, s, r;
  ASSERT_EQ(cdma_write_fill(w.b, 0x3F800000u, tensor(kPeerDdr)), Status::ok);
  ASSERT_EQ(cdma_general(g.b, 0x12345678u, kPeerDdr, kCdmaFormatFp32, 8, true), Status::ok);
  EXPECT_EQ(w.check(maps()).status, Status::ok);
  EXPECT_EQ(g.check(maps()).status, Status::ok);
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), false), Status::ok);
  CdmaSendRef(s.buf).set_fill_constant_en(1);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_field, "fill_constant_en"));
  ASSERT_EQ(cdma_read(r.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  CdmaReadWriteRef(r.buf).set_fill_constant_en(1);
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_field, "fill_constant_en"));
}

TEST(CmdCdmaValidate, SysFields) {
  Stream t;
  ASSERT_EQ(cdma_sys_tr_wr(t.b, kCdmaRegDstMacId, 1), Status::ok);
  EXPECT_EQ(t.check().status, Status::ok);
  CdmaSysRef(t.buf).set_reg_sel(3);
  EXPECT_TRUE(fails(t.check(), Status::cmd_bad_field, "reg_sel"));
  Stream m;
  ASSERT_EQ(cdma_msg(m.b, CdmaSysOp::rx_send, 511, 127), Status::ok);
  EXPECT_EQ(m.check().status, Status::ok);
  const CdmaSysRef v(m.buf);
  v.set_constant_value_l32((1u << 16) | 512);  // msg_id 512
  EXPECT_TRUE(fails(m.check(), Status::cmd_bad_field, "msg_id"));
  v.set_constant_value_l32(128u << 16);  // cnt 128
  EXPECT_TRUE(fails(m.check(), Status::cmd_bad_field, "cnt"));
  v.set_constant_value_l32(5);  // cnt 0
  EXPECT_TRUE(fails(m.check(), Status::cmd_bad_field, "cnt"));
  // nop and chain_end carry no message.
  Stream n;
  ASSERT_EQ(cdma_nop(n.b), Status::ok);
  CdmaSysRef(n.buf).set_constant_value_l32(0xFFFFFFFFu);
  EXPECT_EQ(n.check().status, Status::ok);
}

TEST(CmdCdmaValidate, CmodelChipIds) {
  const ValidateOptions o = maps();  // chip 3, peer 5
  Stream w, r, g;
  ASSERT_EQ(cdma_write(w.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  ASSERT_EQ(cdma_read(r.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  ASSERT_EQ(cdma_general(g.b, kOwnDdr, kPeerDdr, kCdmaFormatFp32, 8, false), Status::ok);
  CdmaReadWriteRef(w.buf).set_src_chip_id(3);
  CdmaReadWriteRef(w.buf).set_dst_chip_id(5);
  CdmaReadWriteRef(r.buf).set_src_chip_id(5);
  CdmaReadWriteRef(r.buf).set_dst_chip_id(3);
  CdmaGeneralRef(g.buf).set_src_chip_id(3);
  CdmaGeneralRef(g.buf).set_dst_chip_id(5);
  EXPECT_EQ(w.check(o).status, Status::ok);
  EXPECT_EQ(r.check(o).status, Status::ok);
  EXPECT_EQ(g.check(o).status, Status::ok);
  CdmaReadWriteRef(w.buf).set_dst_chip_id(3);  // a write's destination is the peer
  CdmaReadWriteRef(r.buf).set_src_chip_id(3);  // a read's source is the peer
  CdmaGeneralRef(g.buf).set_src_chip_id(5);
  EXPECT_TRUE(fails(w.check(o), Status::cmd_bad_field, "dst_chip_id"));
  EXPECT_TRUE(fails(r.check(o), Status::cmd_bad_field, "src_chip_id"));
  EXPECT_TRUE(fails(g.check(o), Status::cmd_bad_field, "src_chip_id"));
}

TEST(CmdCdmaValidate, TagZeroAndSmem) {
  Stream s, r;
  ASSERT_EQ(cdma_send(s.b, tensor(0x1000), false), Status::ok);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_address_tag, "src_start_addr"));
  ASSERT_EQ(cdma_recv(r.b, tensor(kLmem | (uint64_t{1} << 26)), 0), Status::ok);
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_address_tag, "dst_start_addr"));
  CdmaRecvRef(r.buf).set_dst_start_addr_l32(0);
  EXPECT_EQ(r.check().status, Status::ok);  // LMEM: allowed on a recv's destination
}

TEST(CmdCdmaValidate, LmemOnlyForSendSourceAndRecvDestination) {
  Stream w, r, g, gd;
  ASSERT_EQ(cdma_write(w.b, tensor(kOwnDdr), tensor(kLmem)), Status::ok);
  ASSERT_EQ(cdma_read(r.b, tensor(kLmem), tensor(kOwnDdr)), Status::ok);
  ASSERT_EQ(cdma_general(g.b, kLmem, kPeerDdr, kCdmaFormatFp32, 8, false), Status::ok);
  ASSERT_EQ(cdma_general(gd.b, kOwnDdr, kLmem, kCdmaFormatFp32, 8, false), Status::ok);
  EXPECT_TRUE(fails(w.check(), Status::cmd_bad_address_tag, "dst_start_addr"));
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_address_tag, "src_start_addr"));
  EXPECT_TRUE(fails(g.check(), Status::cmd_bad_address_tag, "src_start_addr"));
  EXPECT_TRUE(fails(gd.check(), Status::cmd_bad_address_tag, "dst_start_addr"));
  Stream s;
  ASSERT_EQ(cdma_send(s.b, tensor(kLmem), false), Status::ok);
  EXPECT_EQ(s.check().status, Status::ok);
}

TEST(CmdCdmaValidate, Fp20NeverInLmemAndAligned) {
  Stream s, r;
  ASSERT_EQ(cdma_send(s.b, tensor(kLmem, kCdmaFormatFp20), false), Status::ok);
  EXPECT_TRUE(fails(s.check(), Status::cmd_bad_address_tag, "src_start_addr"));
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr + 128, kCdmaFormatFp20), kCdmaReduceAdd), Status::ok);
  EXPECT_EQ(r.check().status, Status::ok);
  CdmaRecvRef(r.buf).set_dst_start_addr_l32(64);
  EXPECT_TRUE(fails(r.check(), Status::cmd_bad_address_tag, "dst_start_addr"));
  Stream g;
  ASSERT_EQ(cdma_general(g.b, kOwnDdr, kPeerDdr + 32, kCdmaFormatFp20, 8, false), Status::ok);
  EXPECT_TRUE(fails(g.check(), Status::cmd_bad_address_tag, "dst_start_addr"));
}

TEST(CmdCdmaValidate, FootprintsOnTheOwningChip) {
  const ValidateOptions o = maps();
  // recv: 2 x 2 x 4 FP32 elements span (1*8 + 1*4 + 3 + 1) = 16 elements = 64 bytes.
  Stream r;
  ASSERT_EQ(cdma_recv(r.b, tensor(kOwnDdr + 4096 - 64), 0), Status::ok);
  EXPECT_EQ(r.check(o).status, Status::ok);
  CdmaRecvRef(r.buf).set_dst_start_addr_l32(4096 - 60);
  EXPECT_TRUE(fails(r.check(o), Status::cmd_footprint_out_of_range, "dst_start_addr"));
  CdmaRecvRef(r.buf).set_dst_start_addr_h13(0x200);  // the peer's region: not this chip's
  CdmaRecvRef(r.buf).set_dst_start_addr_l32(0);
  EXPECT_TRUE(fails(r.check(o), Status::cmd_bad_address_tag, "dst_start_addr"));
  // general: cmd_length elements on each side, the destination in the peer's map.
  Stream g;
  ASSERT_EQ(cdma_general(g.b, kOwnDdr, kPeerDdr, kCdmaFormatInt16, 2048, false), Status::ok);
  EXPECT_EQ(g.check(o).status, Status::ok);
  CdmaGeneralRef(g.buf).set_cmd_length(2049);
  EXPECT_TRUE(fails(g.check(o), Status::cmd_footprint_out_of_range, "src_start_addr"));
  // LMEM is flat: a send source may run over lanes but not past 16 MiB.
  Stream s;
  CdmaTensor big = tensor(kLmem + (uint64_t{1} << 24) - 64);
  ASSERT_EQ(cdma_send(s.b, big, false), Status::ok);
  EXPECT_EQ(s.check(o).status, Status::ok);
  CdmaSendRef(s.buf).set_src_start_addr_l32((1u << 24) - 60);
  EXPECT_TRUE(fails(s.check(o), Status::cmd_footprint_out_of_range, "src_start_addr"));
  // L2.
  Stream l;
  ASSERT_EQ(cdma_recv(l.b, tensor(kL2 + 128 * 1024 * 1024 - 64), 0), Status::ok);
  EXPECT_EQ(l.check(o).status, Status::ok);
  CdmaRecvRef(l.buf).set_dst_hstride(5);
  EXPECT_TRUE(fails(l.check(o), Status::cmd_footprint_out_of_range, "dst_start_addr"));
}

TEST(CmdCdmaValidate, WriteAndReadSidesBelongToTheirChips) {
  const ValidateOptions o = maps();
  Stream w, r;
  ASSERT_EQ(cdma_write(w.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  ASSERT_EQ(cdma_read(r.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  EXPECT_EQ(w.check(o).status, Status::ok);
  EXPECT_EQ(r.check(o).status, Status::ok);
  // The same addresses the other way round name memory the owning chip does not back.
  Stream w2, r2;
  ASSERT_EQ(cdma_write(w2.b, tensor(kPeerDdr), tensor(kOwnDdr)), Status::ok);
  ASSERT_EQ(cdma_read(r2.b, tensor(kOwnDdr), tensor(kPeerDdr)), Status::ok);
  EXPECT_TRUE(fails(w2.check(o), Status::cmd_bad_address_tag, "src_start_addr"));
  EXPECT_TRUE(fails(r2.check(o), Status::cmd_bad_address_tag, "src_start_addr"));
  // The peer's region ends at 4 KiB: a write's destination footprint is checked there.
  CdmaReadWriteRef(w.buf).set_dst_start_addr_l32(4096 - 32);
  EXPECT_TRUE(fails(w.check(o), Status::cmd_footprint_out_of_range, "dst_start_addr"));
  // A filled write has no source to check.
  Stream f;
  ASSERT_EQ(cdma_write_fill(f.b, 7, tensor(kPeerDdr)), Status::ok);
  CdmaReadWriteRef(f.buf).set_src_start_addr_h13(0);
  EXPECT_EQ(f.check(o).status, Status::ok);
}

TEST(CmdCdmaValidate, FailureIsReportedAtItsCommand) {
  Stream s;
  ASSERT_EQ(cdma_nop(s.b), Status::ok);
  ASSERT_EQ(cdma_send(s.b, tensor(kOwnDdr), false), Status::ok);
  ASSERT_EQ(cdma_recv(s.b, tensor(kOwnDdr), 0), Status::ok);
  CdmaRecvRef(s.buf + 48).set_reduce_op(7);
  const ValidationReport r = s.check();
  EXPECT_TRUE(fails(r, Status::cmd_bad_field, "reduce_op", 3, 48));
  EXPECT_EQ(r.cdma_recvs, 0u);
  const CdmaTransferCounts k = count_cdma_transfers(s.b.bytes());
  EXPECT_EQ(k.sends, 1u);
  EXPECT_EQ(k.recvs, 1u);
}
