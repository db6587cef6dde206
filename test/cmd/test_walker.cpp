// Views and walker on the real sg2260-mm0 buffers: counts, the golden core-0 TIU table of
// docs/sg2260-commands.md section 11, GDMA/SDMA decoding, and the malformed-buffer errors.
#include <cstring>

#include "cmd/mm0_data.hpp"
#include "tftest.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
uint32_t count_commands(Engine e, const uint8_t* p, size_t n, Status* st = nullptr) {
  Walker w(e, ConstByteSpan(p, n));
  Command c;
  while (w.next(c)) {
  }
  if (st != nullptr) *st = w.status();
  return w.count();
}

struct Golden {
  uint32_t offset, length;
  CmdClass cls;
  uint32_t eu, dep;
};
// Spec section 5, extended with the dep of rows 10-13 and 15-16 read from the buffer.
constexpr Golden kTiu0[17] = {
    {0, 16, CmdClass::SYS, 8, 0x1},          {16, 16, CmdClass::SYS, 9, 0x2},
    {32, 64, CmdClass::sAR, 14, 0x100003},   {96, 16, CmdClass::SYS, 8, 0x5},
    {112, 16, CmdClass::SYS, 9, 0x6},        {128, 16, CmdClass::SYS, 8, 0x7},
    {144, 16, CmdClass::SYS, 9, 0x8},        {160, 16, CmdClass::SYS_TR_ACC, 0, 0},
    {176, 32, CmdClass::sMM2, 4, 0x10000a},  {208, 16, CmdClass::SYS, 8, 0xc},
    {224, 16, CmdClass::SYS, 9, 0xd},        {240, 16, CmdClass::SYS, 8, 0xe},
    {256, 16, CmdClass::SYS, 9, 0xf},        {272, 64, CmdClass::sAR, 14, 0x100010},
    {336, 16, CmdClass::SYS, 8, 0x12},       {352, 16, CmdClass::SYS, 9, 0x13},
    {368, 16, CmdClass::SYS, 31, 0},
};
}  // namespace

TEST(CmdWalker, EveryCoreCounts) {
  for (int core = 0; core < 8; ++core) {
    Status s = Status::invalid_argument;
    EXPECT_EQ(count_commands(Engine::tiu, mm0::kBd[core], mm0::kBdBytes, &s), 17u);
    EXPECT_EQ(s, Status::ok);
    EXPECT_EQ(count_commands(Engine::gdma, mm0::kGdma[core], mm0::kGdmaBytes, &s), 20u);
    EXPECT_EQ(s, Status::ok);
    EXPECT_EQ(count_commands(Engine::sdma, mm0::kSdma[core], mm0::kSdmaBytes, &s), 13u);
    EXPECT_EQ(s, Status::ok);
  }
}

TEST(CmdWalker, GoldenTiuCore0) {
  Walker w(Engine::tiu, ConstByteSpan(mm0::kBd[0], mm0::kBdBytes));
  Command c;
  uint32_t i = 0;
  while (w.next(c)) {
    ASSERT_LT(i, 17u);
    EXPECT_EQ(c.id, i + 1);
    EXPECT_EQ(c.offset, size_t{kTiu0[i].offset});
    EXPECT_EQ(c.length, kTiu0[i].length);
    EXPECT_EQ(c.cls, kTiu0[i].cls);
    EXPECT_EQ(c.eu, kTiu0[i].eu);
    EXPECT_EQ(c.dep, kTiu0[i].dep);
    ++i;
  }
  EXPECT_EQ(i, 17u);
  EXPECT_EQ(w.status(), Status::ok);
  EXPECT_TRUE(w.finished());
  EXPECT_EQ(w.offset(), size_t{384});
}

TEST(CmdWalker, FirstSysBytes) {
  const uint8_t b[16] = {0x00, 0x00, 0x02, 0x00, 0x00, 0x1e, 0x01, 0x00,
                         0x18, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(std::memcmp(b, mm0::kBd[0], 16), 0);
  const SysView v(b);
  EXPECT_EQ(v.tsk_typ(), 15u);
  EXPECT_EQ(v.tsk_eu_typ(), 8u);
  EXPECT_EQ(v.cmd_id_dep(), 1u);
  EXPECT_EQ(v.imm(), uint64_t{0x180018});
  EXPECT_EQ(v.msg_id(), 24u);
  EXPECT_EQ(v.msg_cnt(), 24u);
  EXPECT_STREQ(class_name(CmdClass::SYS), "SYS");
}

TEST(CmdWalker, TypedTiuViews) {
  const uint8_t* p = mm0::kBd[0];
  const SArView cast(p + 32);
  EXPECT_EQ(cast.cmd_short(), 1u);
  EXPECT_EQ(cast.tsk_eu_typ(), 14u);
  EXPECT_EQ(cast.cmd_id_dep(), 0x100003u);
  EXPECT_EQ(cast.opt_res0_prec(), 1u);  // f16
  EXPECT_EQ(cast.opt_opd0_prec(), 2u);  // f32
  EXPECT_EQ(cast.opd2_n_str(), 1u);     // round half away from zero
  EXPECT_EQ(cast.res0_n(), 1u);
  EXPECT_EQ(cast.res0_c(), 34u);
  EXPECT_EQ(cast.res0_h(), 1u);
  EXPECT_EQ(cast.res0_w(), 2u);
  EXPECT_EQ(cast.res0_addr(), 0x20000u);
  EXPECT_EQ(cast.opd0_addr(), 0u);
  const SMm2View mm(p + 176);
  EXPECT_EQ(mm.res0_c(), 4u);   // M
  EXPECT_EQ(mm.res0_w(), 34u);  // N
  EXPECT_EQ(mm.opd1_c(), 16u);  // K
  EXPECT_EQ(mm.opd1_w(), 34u);
  EXPECT_EQ(mm.res0_addr(), 0xc0u);
  EXPECT_EQ(mm.opd0_addr(), 0u);
  EXPECT_EQ(mm.opd1_addr(), 0x40u);
  EXPECT_EQ(mm.opt_opd2_const(), 1u);
  EXPECT_EQ(mm.opt_res0_prec(), 1u);
  EXPECT_EQ(mm.opt_opd0_prec(), 1u);
  EXPECT_EQ(mm.opt_opd1_prec(), 1u);
  const SysTrAccView tr(p + 160);
  EXPECT_EQ(tr.tsk_typ(), 12u);
  EXPECT_EQ(tr.reg_idx0(), 6u);
  EXPECT_EQ(tr.reg_idx1(), 127u);
  EXPECT_EQ(tr.reg_idx2(), 127u);
  const SArView cast2(p + 272);
  EXPECT_EQ(cast2.res0_c(), 46u);
  EXPECT_EQ(cast2.res0_w(), 3u);
  EXPECT_EQ(cast2.opt_res0_prec(), 2u);
  EXPECT_EQ(cast2.opt_opd0_prec(), 1u);
}

TEST(CmdWalker, GdmaCore0) {
  Walker w(Engine::gdma, ConstByteSpan(mm0::kGdma[0], mm0::kGdmaBytes));
  Command c[20];
  uint32_t n = 0;
  while (n < 20 && w.next(c[n])) ++n;
  ASSERT_EQ(n, 20u);
  const CmdClass kind[20] = {
      CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_matrix, CmdClass::dma_matrix,
      CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_sys,
      CmdClass::dma_tensor, CmdClass::dma_tensor, CmdClass::dma_tensor, CmdClass::dma_sys,
      CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_matrix,
      CmdClass::dma_matrix, CmdClass::dma_sys, CmdClass::dma_sys, CmdClass::dma_sys};
  for (uint32_t i = 0; i < 20; ++i) {
    EXPECT_EQ(c[i].cls, kind[i]);
    EXPECT_EQ(c[i].id, i + 1);
  }
  EXPECT_EQ(c[2].dep, 0x100002u);
  EXPECT_EQ(c[3].dep, 0x100003u);
  EXPECT_EQ(c[10].dep, 0x100009u);
  EXPECT_TRUE(c[19].is_end());
  EXPECT_EQ(c[19].offset, size_t{864});
  EXPECT_FALSE(w.next(c[0]));
  EXPECT_EQ(w.status(), Status::ok);

  const DmaSysView send = c[0].as<DmaSysView>();
  EXPECT_EQ(send.cmd_special_function(), 3u);
  EXPECT_EQ(send.msg_id(), 24u);
  EXPECT_EQ(send.msg_cnt(), 24u);
  const DmaCommonView load = c[2].as<DmaMatrixView>();
  EXPECT_EQ(load.src_start_addr(), uint64_t{0x20000000000});
  EXPECT_EQ(chip::sg2260::dma_tag(load.src_start_addr()), 2u);
  EXPECT_EQ(chip::sg2260::dma_tag(load.dst_start_addr()), 31u);
  EXPECT_EQ(load.src_data_format(), 2u);
  EXPECT_EQ(load.src_wsize(), 68u);
  EXPECT_EQ(load.src_hstride(), 68u);
  EXPECT_EQ(load.dst_csize(), 34u);
  EXPECT_EQ(load.dst_wsize(), 2u);
  EXPECT_EQ(load.localmem_mask(), ~uint64_t{0});
  const DmaCommonView store = c[3].as<DmaCommonView>();
  EXPECT_EQ(chip::sg2260::dma_tag(store.dst_start_addr()), 30u);
  EXPECT_EQ(chip::sg2260::dma_offset(store.dst_start_addr()), uint64_t{0x6980001000});
  const DmaTensorView w9 = c[8].as<DmaTensorView>();
  EXPECT_EQ(w9.nchw_copy(), 1u);
  EXPECT_EQ(w9.src_data_format(), 1u);
  EXPECT_EQ(chip::sg2260::dma_tag(w9.src_start_addr()), 1u);
  EXPECT_EQ(w9.src_csize(), 4u);
  EXPECT_EQ(w9.src_wsize(), 16u);
}

TEST(CmdWalker, SdmaAllSys) {
  Walker w(Engine::sdma, ConstByteSpan(mm0::kSdma[3], mm0::kSdmaBytes));
  Command c;
  uint32_t sends = 0, waits = 0;
  while (w.next(c)) {
    EXPECT_EQ(c.cls, CmdClass::dma_sys);
    EXPECT_EQ(c.length, 16u);
    if (c.eu == 3) ++sends;
    if (c.eu == 4) ++waits;
  }
  EXPECT_EQ(w.status(), Status::ok);
  EXPECT_EQ(sends, 6u);
  EXPECT_EQ(waits, 6u);
  EXPECT_EQ(w.count(), 13u);
  EXPECT_EQ(w.offset(), size_t{208});
}

TEST(CmdWalker, LengthRule) {
  uint8_t h[16] = {};
  // tsk_typ 7/12/15 are 16 B whatever bit 0 says.
  for (uint32_t t : {7u, 12u, 15u}) {
    std::memset(h, 0, sizeof h);
    write_field(h, 41, 4, t);
    write_field(h, 0, 1, 1);
    EXPECT_EQ(tiu_length(h), 16u);
  }
  std::memset(h, 0, sizeof h);
  write_field(h, 41, 4, 3);
  EXPECT_EQ(tiu_length(h), 128u);  // long AR
  write_field(h, 0, 1, 1);
  EXPECT_EQ(tiu_length(h), 64u);  // sAR
  write_field(h, 41, 4, 2);
  write_field(h, 45, 5, 1);
  EXPECT_EQ(tiu_length(h), 48u);  // sMM
  write_field(h, 45, 5, 6);
  EXPECT_EQ(tiu_length(h), 32u);  // sMM2 tt
  write_field(h, 41, 4, 6);
  write_field(h, 45, 5, 17);
  EXPECT_EQ(tiu_length(h), 48u);  // sSGL
  EXPECT_EQ(tiu_class(6, 17, true), CmdClass::sSGL);
  EXPECT_EQ(tiu_class(3, 17, false), CmdClass::none);
  EXPECT_EQ(tiu_class(3, 29, false), CmdClass::none);
  EXPECT_EQ(tiu_class(11, 0, false), CmdClass::none);
  EXPECT_EQ(tiu_class(8, 0, true), CmdClass::none);
  EXPECT_EQ(tiu_class(0, 4, false), CmdClass::CONV_BW);
  EXPECT_EQ(dma_class(0, 5), CmdClass::none);
  EXPECT_EQ(dma_class(14, 0), CmdClass::none);
  EXPECT_EQ(dma_class(16, 0), CmdClass::dma_transfer);
  EXPECT_STREQ(class_name(CmdClass::RQ_DQ), "RQ&DQ");
  EXPECT_STREQ(class_name(CmdClass::sCW_sBC), "sCW&sBC");
  EXPECT_STREQ(class_name(CmdClass::dma_lossy_decompress), "lossy_decompress");
}

TEST(CmdWalker, TruncatedCommand) {
  // Cut the first sAR (offset 32, 64 B) after 40 bytes.
  Status s = Status::ok;
  Walker w(Engine::tiu, ConstByteSpan(mm0::kBd[0], 72));
  Command c;
  while (w.next(c)) {
  }
  s = w.status();
  EXPECT_EQ(s, Status::cmd_truncated);
  EXPECT_EQ(w.error_offset(), size_t{32});
  EXPECT_EQ(w.error_id(), 3u);
  // A tail shorter than any command.
  Walker w2(Engine::gdma, ConstByteSpan(mm0::kGdma[0], 40));
  while (w2.next(c)) {
  }
  EXPECT_EQ(w2.status(), Status::cmd_truncated);
  EXPECT_EQ(w2.error_offset(), size_t{32});
  EXPECT_EQ(w2.error_id(), 3u);
}

TEST(CmdWalker, UnknownClass) {
  uint8_t b[384];
  std::memcpy(b, mm0::kBd[0], sizeof b);
  write_field(b + 32, 45, 5, 17);  // AR eu 17 is not defined
  Walker w(Engine::tiu, ConstByteSpan(b, sizeof b));
  Command c;
  while (w.next(c)) {
  }
  EXPECT_EQ(w.status(), Status::cmd_unknown_class);
  EXPECT_EQ(w.error_offset(), size_t{32});
  EXPECT_EQ(w.error_id(), 3u);
  uint8_t g[896];
  std::memcpy(g, mm0::kGdma[0], sizeof g);
  write_field(g + 32, 32, 5, 14);  // cmd_type 14 is not defined
  Walker wg(Engine::gdma, ConstByteSpan(g, sizeof g));
  while (wg.next(c)) {
  }
  EXPECT_EQ(wg.status(), Status::cmd_unknown_class);
  EXPECT_EQ(wg.error_offset(), size_t{32});
  EXPECT_EQ(wg.error_id(), 3u);
}

// An end command turned into a nop (or a stream cut before its end) leaves zero padding where
// the end should be: that is a missing end at the padding, not a zero "command" truncated there.
TEST(CmdWalker, ZeroPaddingWhereTheEndShouldBeIsAMissingEnd) {
  Command c;
  uint8_t g[mm0::kGdmaBytes + 40] = {};
  std::memcpy(g, mm0::kGdma[0], mm0::kGdmaBytes);
  size_t end_offset = 0;
  uint32_t end_id = 0;
  Walker w0(Engine::gdma, ConstByteSpan(g, sizeof g));
  while (w0.next(c)) {
    end_offset = c.offset;
    end_id = c.id;
  }
  ASSERT_EQ(w0.status(), Status::ok);
  write_field(g + end_offset, 37, 3, 1);  // sys sp_func 0 (chain_end) -> 1 (nop)
  Walker wg(Engine::gdma, ConstByteSpan(g, sizeof g));
  while (wg.next(c)) {
  }
  EXPECT_EQ(wg.status(), Status::cmd_missing_end);
  EXPECT_EQ(wg.error_offset(), end_offset + 16);
  EXPECT_EQ(wg.error_id(), end_id + 1);
  // TIU: the SYS end (eu 31) turned into a nop (eu 30), 200 bytes of padding after it
  uint8_t t[384 + 200] = {};
  std::memcpy(t, mm0::kBd[0], 384);
  write_field(t + 368, 45, 5, 30);
  Walker wt(Engine::tiu, ConstByteSpan(t, sizeof t));
  while (wt.next(c)) {
  }
  EXPECT_EQ(wt.status(), Status::cmd_missing_end);
  EXPECT_EQ(wt.error_offset(), size_t{384});
  EXPECT_EQ(wt.error_id(), 18u);
  // An empty stream misses its end at command 1, offset 0.
  Walker we(Engine::tiu, ConstByteSpan());
  EXPECT_FALSE(we.next(c));
  EXPECT_EQ(we.status(), Status::cmd_missing_end);
  EXPECT_EQ(we.error_id(), 1u);
  EXPECT_EQ(we.error_offset(), size_t{0});
}

TEST(CmdWalker, MissingEndAndDataAfterEnd) {
  Command c;
  // TIU without its last 16 bytes (the SYS end).
  Walker w(Engine::tiu, ConstByteSpan(mm0::kBd[0], 368));
  while (w.next(c)) {
  }
  EXPECT_EQ(w.status(), Status::cmd_missing_end);
  EXPECT_EQ(w.error_offset(), size_t{368});
  EXPECT_EQ(w.error_id(), 17u);
  uint8_t s[256];
  std::memcpy(s, mm0::kSdma[0], sizeof s);
  s[250] = 1;
  Walker ws(Engine::sdma, ConstByteSpan(s, sizeof s));
  while (ws.next(c)) {
  }
  EXPECT_EQ(ws.status(), Status::cmd_data_after_end);
  EXPECT_EQ(ws.error_offset(), size_t{250});
  EXPECT_EQ(ws.error_id(), 14u);
  EXPECT_EQ(ws.count(), 13u);
}
