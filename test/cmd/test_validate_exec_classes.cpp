// Operand validation of CMP, RQ&DQ and SGL with the footprints their operations are defined
// with (docs/sg2260-commands.md section 15): for each operand a command whose operand ends
// exactly at the end of its LMEM lane passes, the same one byte further is refused naming the
// field. The expected sizes are worked out here from the stated layouts.
// Core test: runs on the host and on QEMU.
#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
namespace sg = chip::sg2260;

// One command after one SYS nop (command id 2, byte offset 16), then the end.
struct One {
  uint8_t buf[256] = {};
  CommandBuilder b;
  uint8_t* cmd = nullptr;
  One(CmdClass cls, uint32_t eu) : b(Engine::tiu, ByteSpan(buf, sizeof buf)) {
    EXPECT_EQ(b.send_msg(1, 1), Status::ok);
    cmd = b.append(cls, eu).value();
  }
  ValidationReport validate() {
    CommandBuilder copy = b;
    EXPECT_EQ(copy.end(), Status::ok);
    return validate_stream(Engine::tiu, copy.bytes(), ValidateOptions{});
  }
};

#define EXPECT_REJECTED(one, field_name)                                 \
  do {                                                                   \
    const ValidationReport r_ = (one).validate();                        \
    EXPECT_EQ(r_.status, Status::cmd_footprint_out_of_range);            \
    EXPECT_EQ(r_.command_id, 2u);                                        \
    EXPECT_EQ(r_.offset, size_t{16});                                    \
    EXPECT_STREQ(r_.field, field_name);                                  \
  } while (0)
#define EXPECT_ACCEPTED(one) EXPECT_EQ((one).validate().status, Status::ok)

// The local address `bytes` before the end of `lane`.
constexpr uint32_t tail(uint32_t lane, uint32_t bytes) { return (lane << 18) + sg::kLaneBytes - bytes; }
constexpr uint32_t kFar = 0x100;  // every other operand: lane 0, well inside

// Precision codes: 0 INT8, 2 FP32, 3 INT16, 4 INT32.
template <class R>
void cmp_shape(R v, uint32_t ab_prec, uint32_t cd_prec) {
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(16);
  v.set_opt_opd0_prec(ab_prec); v.set_opt_opd2_prec(cd_prec);
  v.set_res0_addr(kFar); v.set_res1_addr(kFar); v.set_opd0_addr(kFar);
  v.set_opd1_addr(kFar); v.set_opd2_addr(kFar); v.set_opd3_addr(kFar);
}
}  // namespace

// ---- CMP -------------------------------------------------------------------------------------

// gt_and_sel: res0 = max(A, B) in A's precision (FP32: 16 x 4 = 64 bytes), res1 = the pick of
// C and D in C's (INT16: 32 bytes); the short form names neither result's precision.
TEST(CmdExecClasses, SCmpTwoResultsFootprints) {
  struct Case {
    uint32_t bytes;
    void (*place)(SCmpRef, uint32_t);
    const char* field;
  } cases[] = {
      {64, [](SCmpRef v, uint32_t a) { v.set_res0_addr(a); }, "res0_addr"},
      {32, [](SCmpRef v, uint32_t a) { v.set_res1_addr(a); }, "res1_addr"},
      {64, [](SCmpRef v, uint32_t a) { v.set_opd0_addr(a); }, "opd0_addr"},
      {64, [](SCmpRef v, uint32_t a) { v.set_opd1_addr(a); }, "opd1_addr"},
      {32, [](SCmpRef v, uint32_t a) { v.set_opd2_addr(a); }, "opd2_addr"},
      {32, [](SCmpRef v, uint32_t a) { v.set_opd3_addr(a); }, "opd3_addr"},
  };
  for (const Case& k : cases) {
    One fits(CmdClass::sCMP, 22);
    cmp_shape(SCmpRef(fits.cmd), 2, 3);
    k.place(SCmpRef(fits.cmd), tail(5, k.bytes));
    EXPECT_ACCEPTED(fits);
    One past(CmdClass::sCMP, 22);
    cmp_shape(SCmpRef(past.cmd), 2, 3);
    k.place(SCmpRef(past.cmd), tail(5, k.bytes - 1));
    EXPECT_REJECTED(past, k.field);
  }
}

// sel_eq writes `A == B ? C : D` to res0 in C's precision (INT8: 16 bytes); res1 is not written.
TEST(CmdExecClasses, SCmpOneResultTakesCsPrecision) {
  One fits(CmdClass::sCMP, 24);
  cmp_shape(SCmpRef(fits.cmd), 2, 0);
  SCmpRef(fits.cmd).set_res0_addr(tail(63, 16));
  SCmpRef(fits.cmd).set_res1_addr(tail(63, 1));  // not an operand of sel_eq: start check only
  EXPECT_ACCEPTED(fits);
  One past(CmdClass::sCMP, 24);
  cmp_shape(SCmpRef(past.cmd), 2, 0);
  SCmpRef(past.cmd).set_res0_addr(tail(63, 15));
  EXPECT_REJECTED(past, "res0_addr");
}

// A constant C or D is a value, not an address.
TEST(CmdExecClasses, SCmpConstantOperandIsNotChecked) {
  One k(CmdClass::sCMP, 25);
  cmp_shape(SCmpRef(k.cmd), 2, 3);
  SCmpRef(k.cmd).set_opt_opd3_const(1);
  SCmpRef(k.cmd).set_opd3_addr(tail(0, 1));
  EXPECT_ACCEPTED(k);
}

// Long form, B with explicit strides (mode 3): w stride 2 over 16 FP32 elements spans
// (15 x 2 + 1) x 4 = 124 bytes; C and D align-EU in C's precision.
TEST(CmdExecClasses, LongCmpExplicitStridesAndCd) {
  auto build = [](One& o, uint32_t b_bytes, uint32_t d_bytes) {
    TiuLongRef v(o.cmd);
    cmp_shape(v, 2, 4);
    v.set_short_opd1_str(3);
    v.set_opd1_n_str(0); v.set_opd1_c_str(32); v.set_opd1_h_str(32); v.set_opd1_w_str(2);
    v.set_opd1_addr(tail(1, b_bytes));
    v.set_opd3_addr(tail(2, d_bytes));  // INT32: 64 bytes
  };
  One fits(CmdClass::CMP, 26);
  build(fits, 124, 64);
  EXPECT_ACCEPTED(fits);
  One b_past(CmdClass::CMP, 26);
  build(b_past, 123, 64);
  EXPECT_REJECTED(b_past, "opd1_addr");
  One d_past(CmdClass::CMP, 26);
  build(d_past, 124, 63);
  EXPECT_REJECTED(d_past, "opd3_addr");
}

// ---- RQ&DQ -----------------------------------------------------------------------------------

// The per-channel INT32 parameter tensor (1, c, 1, k): rq1 and dq1 k = 3 (12 bytes for one
// channel), rq0 k = 2 (8 bytes). From lane 63 with c = 2 the second channel lies in lane 0
// one channel group on: 16 elements (one align-EU channel) further, 3 + 16 = 19 elements.
TEST(CmdExecClasses, RqDqParameterTensor) {
  struct Case {
    uint32_t eu, c, lane, bytes;
  } cases[] = {{1, 1, 7, 12}, {4, 1, 7, 12}, {0, 1, 7, 8}, {1, 2, 63, 76}};
  for (const Case& k : cases) {
    for (uint32_t extra : {0u, 1u}) {
      One o(CmdClass::sRQ_sDQ, k.eu);
      SRqDqRef v(o.cmd);
      v.set_res0_n(1); v.set_res0_c(k.c); v.set_res0_h(1); v.set_res0_w(8);
      v.set_opt_opd0_prec(0); v.set_opt_res0_prec(0);
      v.set_res0_addr(kFar); v.set_opd0_addr(kFar); v.set_opd2_addr(kFar);
      v.set_opd1_addr(tail(k.lane, k.bytes - extra));
      if (extra == 0) EXPECT_ACCEPTED(o);
      else EXPECT_REJECTED(o, "opd1_addr");
    }
  }
}

// Constants: opd1 and opd2 hold the parameters' bits (rq0: FP32 scale and zp), no address.
TEST(CmdExecClasses, RqDqConstantsAreNotAddresses) {
  One o(CmdClass::RQ_DQ, 0);
  TiuLongRef v(o.cmd);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(8);
  v.set_opt_opd1_const(1);
  v.set_opd1_addr(0x3F800000u);  // 1.0f
  v.set_opd2_addr(0xBF800000u);  // -1.0f
  EXPECT_ACCEPTED(o);
}

// Long form: A and R align-EU in res0's shape (the opd0 shape fields are not read): INT16
// A of 40 elements = 80 bytes, INT8 R = 40 bytes.
TEST(CmdExecClasses, LongRqDqResultAndInput) {
  auto build = [](One& o, uint32_t a_bytes, uint32_t r_bytes) {
    TiuLongRef v(o.cmd);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(40);
    v.set_opt_opd0_prec(3); v.set_opt_res0_prec(0); v.set_opt_opd1_const(1);
    v.set_opd0_addr(tail(3, a_bytes)); v.set_res0_addr(tail(4, r_bytes));
  };
  One fits(CmdClass::RQ_DQ, 4);
  build(fits, 80, 40);
  EXPECT_ACCEPTED(fits);
  One a_past(CmdClass::RQ_DQ, 4);
  build(a_past, 79, 40);
  EXPECT_REJECTED(a_past, "opd0_addr");
  One r_past(CmdClass::RQ_DQ, 4);
  build(r_past, 80, 39);
  EXPECT_REJECTED(r_past, "res0_addr");
}

// ---- SGL -------------------------------------------------------------------------------------

// INT8 rows of w = 10 padded to 64 bytes. gather: R (1, 1, 2, 10) = 64 + 10 = 74 bytes (the
// align-EU layout would give 20), table A (1, 1, 3, 10) = 138 bytes, INT16 indices (1, 1, 2, 1)
// = 4 bytes; scatter: indices one per table row, 3 x 2 = 6 bytes.
struct SglSizes {
  uint32_t eu, mode, r, a, b;
};
void sgl(One& o, const SglSizes& s, int which, uint32_t minus) {
  SSglRef v(o.cmd);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(2); v.set_res0_w(10); v.set_opd0_h(3);
  v.set_opt_res0_prec(0); v.set_opt_opd1_prec(3); v.set_short_opd0_str(s.mode);
  v.set_res0_addr(tail(9, s.r - (which == 0 ? minus : 0)));
  v.set_opd0_addr(tail(10, s.a - (which == 1 ? minus : 0)));
  v.set_opd1_addr(tail(11, s.b - (which == 2 ? minus : 0)));
}

TEST(CmdExecClasses, SglPaddedRowsTableAndIndices) {
  const SglSizes sizes[] = {{17, 3, 74, 138, 4}, {18, 3, 74, 138, 6}, {17, 4, 74, 138, 4}};
  const char* const fields[] = {"res0_addr", "opd0_addr", "opd1_addr"};
  for (const SglSizes& s : sizes) {
    One fits(CmdClass::sSGL, s.eu);
    sgl(fits, s, 0, 0);
    EXPECT_ACCEPTED(fits);
    for (int which = 0; which < 3; ++which) {
      One past(CmdClass::sSGL, s.eu);
      sgl(past, s, which, 1);
      EXPECT_REJECTED(past, fields[which]);
    }
  }
}

// Long form across lanes: R (2, 2, 2, 10) INT8 from lane 63 reaches lane 0 one channel group
// on: channel stride 2 x 64 = 128, n stride ceil((63 + 2) / 64) x 128 = 256, so the last
// element ends 74 + 128 + 256 = 458 bytes after the start.
TEST(CmdExecClasses, LongSglResultAcrossLanes) {
  for (uint32_t extra : {0u, 1u}) {
    One o(CmdClass::SGL, 17);
    TiuLongRef v(o.cmd);
    v.set_res0_n(2); v.set_res0_c(2); v.set_res0_h(2); v.set_res0_w(10); v.set_opd0_h(1);
    v.set_opt_res0_prec(0); v.set_opt_opd1_prec(0); v.set_short_opd0_str(3);
    v.set_opd0_addr(kFar); v.set_opd1_addr(kFar);
    v.set_res0_addr(tail(63, 458 - extra));
    if (extra == 0) EXPECT_ACCEPTED(o);
    else EXPECT_REJECTED(o, "res0_addr");
  }
}

// ---- requantising CONV -----------------------------------------------------------------------

// SYS_TR_ACC (command 1, 16 bytes) writes TGCR 5 = kzp, TGCR 6 = params; then a 1x1 sCONV
// eu 0 with opt_rq over oc = 66 channels from lane 63 (command 2): channel 65 lies on lane
// 0 with wrap index (63 + 65) / 64 = 2. INT8: two int32 per channel, so it ends 2 x 8 + 8 =
// 24 bytes after the parameters' start, and its int16 zero point 2 x 2 + 2 = 6 bytes after
// the kzp start; FP8: one FP32 scale, 2 x 4 + 4 = 12 bytes.
struct RqConv {
  uint8_t buf[256] = {};
  CommandBuilder b;
  RqConv(bool fp8, uint32_t kzp, uint32_t params) : b(Engine::tiu, ByteSpan(buf, sizeof buf)) {
    SysTrAccRef t(b.append(CmdClass::SYS_TR_ACC, 0).value());
    t.set_reg_idx0(5); t.set_imm0(kzp); t.set_reg_idx1(6); t.set_reg_idx2(127);
    t.set_imm1(uint64_t{params} << 32);
    SConvRef v(b.append(CmdClass::sCONV, 0).value());
    v.set_res0_n(1); v.set_res0_c(66); v.set_res0_h(1); v.set_res0_w(1);
    v.set_opd0_c(1); v.set_opd0_h(1); v.set_opd0_w(1); v.set_opd1_h(1); v.set_opd1_w(1);
    v.set_res_op_x_str(1); v.set_res_op_y_str(1);
    v.set_opt_opd0_prec(fp8 ? 7 : 0); v.set_opt_opd1_prec(fp8 ? 7 : 0); v.set_opt_res0_prec(fp8 ? 7 : 0);
    v.set_opt_opd1_const(1); v.set_opt_opd2_const(1); v.set_opt_opd3_const(1); v.set_opt_rq(1);
    v.set_res0_addr(kFar); v.set_opd0_addr(kFar);
  }
  ValidationReport validate() {
    CommandBuilder copy = b;
    EXPECT_EQ(copy.end(), Status::ok);
    return validate_stream(Engine::tiu, copy.bytes(), ValidateOptions{});
  }
};

TEST(CmdExecClasses, RequantisingConvParameterFootprints) {
  EXPECT_ACCEPTED(RqConv(false, tail(63, 6), tail(63, 24)));
  RqConv params_past(false, tail(63, 6), tail(63, 23));
  EXPECT_REJECTED(params_past, "TGCR 6 (requant parameters)");
  RqConv kzp_past(false, tail(63, 5), tail(63, 24));
  EXPECT_REJECTED(kzp_past, "TGCR 5 (kernel zero point)");
  EXPECT_ACCEPTED(RqConv(true, tail(63, 1), tail(63, 12)));  // FP8 reads no zero point
  RqConv fp8_past(true, kFar, tail(63, 11));
  EXPECT_REJECTED(fp8_past, "TGCR 6 (requant parameters)");
}
