// Validation and execution agree on the footprints of CMP, RQ&DQ, SGL, LIN, VC and the requantising
// CONV's parameter tensors (found through the TGCRs a SYS_TR_ACC before it writes): random shapes,
// precisions, forms and operand places near the end of an LMEM lane; every command validation
// accepts runs in the simulator without a fault, and (CMP, RQ&DQ, which touch every element of
// every operand) every command validation refuses for a footprint faults on one when it runs.
// SGL touches only the rows its indices name, so there only the first direction holds.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fixture.hpp"
#include "tilefw/cmd/validate.hpp"

namespace {

using namespace simtest;

struct Rng {
  uint64_t s;
  uint32_t next(uint32_t m) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((s >> 33) % m);
  }
};

// A local address: half the time up to 1 KiB before the end of a random lane, else near its start.
uint32_t place(Rng& r) {
  const uint32_t lane = r.next(64);
  const uint32_t off = r.next(2) == 0 ? sg::kLaneBytes - 1 - r.next(1024) : r.next(4096);
  return (lane << 18) | off;
}

struct Shape {
  uint32_t n, c, h, w;
};
Shape shape(Rng& r) { return {1 + r.next(3), 1 + r.next(70), 1 + r.next(4), 1 + r.next(40)}; }
// Precision codes with a byte size: INT8, FP16, FP32, INT16, INT32, BF16, FP8.
uint32_t any_prec(Rng& r) {
  constexpr uint32_t k[] = {0, 1, 2, 3, 4, 5, 7};
  return k[r.next(7)];
}

template <class R>
void set_shape(R v, const Shape& s) {
  v.set_res0_n(s.n); v.set_res0_c(s.c); v.set_res0_h(s.h); v.set_res0_w(s.w);
}

// CMP eu 22..26, short form (A and B align-EU) or long (A and B mode 0 or 3 with strides).
CmdClass build_cmp(uint8_t* p, bool is_short, Rng& r) {
  const Shape s = shape(r);
  auto common = [&](auto v) {
    set_shape(v, s);
    v.set_opt_opd0_prec(any_prec(r)); v.set_opt_opd2_prec(any_prec(r));
    v.set_res0_addr(place(r)); v.set_res1_addr(place(r));
    v.set_opd0_addr(place(r)); v.set_opd1_addr(place(r)); v.set_opd2_addr(place(r)); v.set_opd3_addr(place(r));
    v.set_opt_opd0_const(r.next(4) == 0); v.set_opt_opd1_const(r.next(4) == 0);
    v.set_opt_opd2_const(r.next(4) == 0); v.set_opt_opd3_const(r.next(4) == 0);
  };
  if (is_short) {
    common(cmd::SCmpRef(p));
    return CmdClass::sCMP;
  }
  cmd::TiuLongRef v(p);
  common(v);
  const uint32_t ws = 1 + r.next(3), hs = s.w * ws + r.next(8), cs = s.h * hs + r.next(8);
  const uint32_t ns = r.next(2 * cs + 1);
  if (r.next(2) == 0) {
    v.set_short_opd0_str(3);
    v.set_opd0_n_str(ns); v.set_opd0_c_str(cs); v.set_opd0_h_str(hs); v.set_opd0_w_str(ws);
  }
  if (r.next(2) == 0) {
    v.set_short_opd1_str(3);
    v.set_opd1_n_str(ns); v.set_opd1_c_str(cs); v.set_opd1_h_str(hs); v.set_opd1_w_str(ws);
  }
  return CmdClass::CMP;
}

// RQ&DQ with the precisions each operation takes; the parameters a tensor or constants (dq0:
// constants only, its tensor form is refused by name).
CmdClass build_rqdq(uint8_t* p, bool is_short, uint32_t eu, Rng& r) {
  const Shape s = shape(r);
  auto fill = [&](auto v) {
    set_shape(v, s);
    constexpr uint32_t kIn[] = {0, 3, 4}, kOut[] = {0, 3, 4};
    v.set_opt_opd0_prec(eu >= 3 ? kIn[r.next(2)] : kIn[r.next(3)]);
    v.set_opt_res0_prec(eu == 3 ? 2u : kOut[r.next(3)]);
    v.set_res0_addr(place(r)); v.set_opd0_addr(place(r));
    const bool konst = eu == 3 || r.next(2) == 0;
    v.set_opt_opd1_const(konst);
    v.set_opd1_addr(konst ? 0x3F800000u : place(r));  // 1.0f as rq0 / dq0 scale
    v.set_opd2_addr(konst ? 0u : place(r));
  };
  if (is_short) {
    fill(cmd::SRqDqRef(p));
    return CmdClass::sRQ_sDQ;
  }
  fill(cmd::TiuLongRef(p));
  return CmdClass::RQ_DQ;
}

// SGL gather / scatter: INT8 or INT16 indices, table mode 3 or 4.
CmdClass build_sgl(uint8_t* p, bool is_short, Rng& r) {
  const Shape s = shape(r);
  auto fill = [&](auto v) {
    set_shape(v, s);
    v.set_opd0_h(1 + r.next(4));
    v.set_opt_res0_prec(any_prec(r)); v.set_opt_opd1_prec(r.next(2) == 0 ? 0 : 3);
    v.set_short_opd0_str(3 + r.next(2));
    v.set_res0_addr(place(r)); v.set_opd0_addr(place(r)); v.set_opd1_addr(place(r));
  };
  if (is_short) {
    fill(cmd::SSglRef(p));
    return CmdClass::sSGL;
  }
  fill(cmd::TiuLongRef(p));
  return CmdClass::SGL;
}

struct Tally {
  int accepted = 0, refused = 0;
};

// One random command of `family` (0 CMP, 1 RQ&DQ, 2 SGL): validated as a stream, then run.
void trial(Bench& b, int family, Rng& r, Tally& t) {
  static constexpr uint32_t kRqEu[] = {0, 1, 3, 4};
  const bool is_short = r.next(2) == 0;
  const uint32_t eu = family == 0 ? 22 + r.next(5) : family == 1 ? kRqEu[r.next(4)] : 17 + r.next(2);
  const CmdClass cls = family == 0 ? (is_short ? CmdClass::sCMP : CmdClass::CMP)
                       : family == 1 ? (is_short ? CmdClass::sRQ_sDQ : CmdClass::RQ_DQ)
                                     : (is_short ? CmdClass::sSGL : CmdClass::SGL);
  uint8_t buf[256] = {};
  cmd::CommandBuilder w(Engine::tiu, ByteSpan(buf, sizeof buf));
  uint8_t* p = w.append(cls, eu).value();
  if (family == 0) build_cmp(p, is_short, r);
  else if (family == 1) build_rqdq(p, is_short, eu, r);
  else build_sgl(p, is_short, r);
  ASSERT_EQ(w.end(), Status::ok);
  const cmd::ValidationReport v = cmd::validate_stream(Engine::tiu, w.bytes(), cmd::ValidateOptions{});
  if (family == 2) {
    // all indices 0 (a row every table and result has), and no run changes that
    const tilefw::chip::MemoryRegion lm = sg::lmem_region(0);
    std::memset(b.machine.translate(lm.device_base, lm.size).value(), 0, lm.size);
  }
  std::string msg;
  const Status s = b.exec(Engine::tiu, p, &msg);
  const std::string what = std::string(cmd::class_name(cls)) + " eu " + std::to_string(eu);
  if (v.status == Status::ok) {
    ++t.accepted;
    EXPECT_EQ(s, Status::ok) << what << ": validation accepts, the run says " << msg;
    return;
  }
  ++t.refused;
  EXPECT_EQ(v.status, Status::cmd_footprint_out_of_range) << what << " " << v.field;
  if (family != 2) {
    EXPECT_EQ(s, Status::cmd_footprint_out_of_range) << what << ": validation refuses " << v.field << ", the run says " << msg;
  }
}

void agree(int family, uint64_t seed) {
  Bench b;
  Rng r{seed};
  Tally t;
  for (int i = 0; i < 300; ++i) trial(b, family, r, t);
  // both sides of the lane end were reached
  EXPECT_GT(t.accepted, 30);
  EXPECT_GT(t.refused, 30);
  std::printf("%d accepted, %d refused\n", t.accepted, t.refused);
}

// The requantising CONV: SYS_TR_ACC points TGCR 5 (kernel zero points) and 6 (parameters)
// at random places, then a 1x1 sCONV / CONV eu 0 with opt_rq (INT8 or FP8, oc up to 200 so
// that the vectors wrap past lane 63) reads one vector entry per output channel. Constant
// kernel and bias keep the parameter tensors the only operands near a lane's end.
void rq_conv_trial(Bench& b, Rng& r, Tally& t) {
  const bool is_short = r.next(2) == 0, fp8 = r.next(2) == 0, kzp_const = r.next(3) == 0;
  const uint32_t oc = 1 + r.next(200);
  uint8_t buf[256] = {};
  cmd::CommandBuilder w(Engine::tiu, ByteSpan(buf, sizeof buf));
  uint8_t* tr = w.append(CmdClass::SYS_TR_ACC, 0).value();
  // within 40 bytes of a lane's end: a vector holds at most 4 entries of 8 bytes per lane
  const auto near_end = [&] { return (r.next(64) << 18) | (sg::kLaneBytes - 1 - r.next(40)); };
  const uint32_t kzp = near_end(), params = near_end();
  cmd::SysTrAccRef tv(tr);
  tv.set_reg_idx0(5); tv.set_imm0(kzp); tv.set_reg_idx1(6); tv.set_reg_idx2(127);
  tv.set_imm1(uint64_t{params} << 32);
  uint8_t* p = w.append(is_short ? CmdClass::sCONV : CmdClass::CONV, 0).value();
  auto common = [&](auto v) {
    v.set_res0_n(1); v.set_res0_c(oc); v.set_res0_h(1); v.set_res0_w(1);
    v.set_opd0_c(1); v.set_opd0_h(1); v.set_opd0_w(1); v.set_opd1_h(1); v.set_opd1_w(1);
    v.set_res_op_x_str(1); v.set_res_op_y_str(1);
    const uint32_t prec = fp8 ? 7 : 0;
    v.set_opt_opd0_prec(prec); v.set_opt_opd1_prec(prec); v.set_opt_res0_prec(prec);
    v.set_opt_opd1_const(1); v.set_opt_opd2_const(1); v.set_opt_opd3_const(1);
    v.set_opt_rq(1); v.set_opt_opd4_const(kzp_const);
    v.set_res0_addr(0x1000); v.set_opd0_addr(0x100);
  };
  if (is_short) {
    common(cmd::SConvRef(p));
  } else {
    cmd::TiuLongRef v(p);
    common(v);
    v.set_res0_c_str(1); v.set_opd0_c_str(1);  // explicit strides are unused: mode 0 (alignEU)
  }
  ASSERT_EQ(w.end(), Status::ok);
  const cmd::ValidationReport v = cmd::validate_stream(Engine::tiu, w.bytes(), cmd::ValidateOptions{});
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, tr, &msg), Status::ok) << msg;
  const Status s = b.exec(Engine::tiu, p, &msg);
  const std::string what = std::string(is_short ? "sCONV" : "CONV") + (fp8 ? " fp8" : " int8") + " oc " + std::to_string(oc);
  if (v.status == Status::ok) {
    ++t.accepted;
    EXPECT_EQ(s, Status::ok) << what << ": validation accepts, the run says " << msg;
    return;
  }
  ++t.refused;
  EXPECT_EQ(v.status, Status::cmd_footprint_out_of_range) << what << " " << v.field;
  EXPECT_EQ(s, Status::cmd_footprint_out_of_range) << what << ": validation refuses " << v.field << ", the run says " << msg;
}

// LIN eu 1, 20, 21 (short, or long with align-EU operands): A and R over every element, B
// and C one value per channel; a random defined precision pair, constants now and then.
void lin_trial(Bench& b, Rng& r, Tally& t) {
  static constexpr uint32_t kEu[] = {1, 20, 21};
  static constexpr uint32_t kPairs[][2] = {{2, 2}, {1, 1}, {1, 2}, {5, 5}, {5, 2}};  // input, result
  const bool is_short = r.next(2) == 0;
  const uint32_t eu = kEu[r.next(3)];
  static constexpr uint32_t kSame[] = {0, 1, 3};  // the short form: A in res0's precision
  const uint32_t* pr = kPairs[is_short ? kSame[r.next(3)] : r.next(5)];
  const uint32_t in = pr[0], res = pr[1];
  const Shape sh = shape(r);
  uint8_t buf[256] = {};
  cmd::CommandBuilder w(Engine::tiu, ByteSpan(buf, sizeof buf));
  uint8_t* p = w.append(is_short ? CmdClass::sLIN : CmdClass::LIN, eu).value();
  auto common = [&](auto v) {
    set_shape(v, sh);
    v.set_opt_res0_prec(res);
    v.set_res0_addr(place(r)); v.set_opd0_addr(place(r)); v.set_opd1_addr(place(r)); v.set_opd2_addr(place(r));
    v.set_opt_opd1_const(r.next(4) == 0); v.set_opt_opd2_const(r.next(4) == 0);
  };
  if (is_short) {
    common(cmd::SLinRef(p));
  } else {
    cmd::TiuLongRef v(p);
    common(v);
    v.set_opt_opd0_prec(in);
  }
  ASSERT_EQ(w.end(), Status::ok);
  const cmd::ValidationReport v = cmd::validate_stream(Engine::tiu, w.bytes(), cmd::ValidateOptions{});
  std::string msg;
  const Status s = b.exec(Engine::tiu, p, &msg);
  const std::string what = std::string(is_short ? "sLIN" : "LIN") + " eu " + std::to_string(eu);
  if (v.status == Status::ok) {
    ++t.accepted;
    EXPECT_EQ(s, Status::ok) << what << ": validation accepts, the run says " << msg;
    return;
  }
  ++t.refused;
  EXPECT_EQ(v.status, Status::cmd_footprint_out_of_range) << what << " " << v.field;
  EXPECT_EQ(s, Status::cmd_footprint_out_of_range) << what << ": validation refuses " << v.field << ", the run says " << msg;
}

// VC over random shapes, precisions and places: validation takes A's last row whole, so a
// refusal naming opd0 need not fault when it runs; every other refusal does, and every
// acceptance runs.
void vc_trial(Bench& b, Rng& r, Tally& t) {
  static constexpr uint32_t kEu[] = {0, 2, 3, 4, 5, 15, 16, 20};
  const bool is_short = r.next(2) == 0;
  const uint32_t eu = kEu[r.next(8)];
  uint8_t buf[256] = {};
  cmd::CommandBuilder w(Engine::tiu, ByteSpan(buf, sizeof buf));
  uint8_t* p = w.append(is_short ? CmdClass::sVC : CmdClass::VC, eu).value();
  const uint32_t aw = 1 + r.next(20);
  auto common = [&](auto v) {
    v.set_opt_res0_prec(any_prec(r)); v.set_opt_opd0_prec(any_prec(r)); v.set_opt_opd1_prec(any_prec(r));
    v.set_opd0_c(1 + r.next(3)); v.set_opd0_w(aw); v.set_opd1_w(1 + r.next(aw));
    v.set_res0_c(1 + r.next(70)); v.set_res0_w(1 + r.next(30));
    v.set_res0_addr(place(r)); v.set_opd0_addr(place(r)); v.set_opd1_addr(place(r));
  };
  if (is_short) common(cmd::SVcRef(p));
  else common(cmd::TiuLongRef(p));
  ASSERT_EQ(w.end(), Status::ok);
  const cmd::ValidationReport v = cmd::validate_stream(Engine::tiu, w.bytes(), cmd::ValidateOptions{});
  std::string msg;
  const Status s = b.exec(Engine::tiu, p, &msg);
  const std::string what = std::string(is_short ? "sVC" : "VC") + " eu " + std::to_string(eu);
  if (v.status == Status::ok) {
    ++t.accepted;
    EXPECT_EQ(s, Status::ok) << what << ": validation accepts, the run says " << msg;
    return;
  }
  ++t.refused;
  EXPECT_EQ(v.status, Status::cmd_footprint_out_of_range) << what << " " << v.field;
  if (std::string(v.field) != "opd0_addr") {
    EXPECT_EQ(s, Status::cmd_footprint_out_of_range) << what << ": validation refuses " << v.field << ", the run says " << msg;
  }
}

}  // namespace

TEST(Sg2260ValidateAgree, VcFootprints) {
  Bench b;
  Rng r{16};
  Tally t;
  for (int i = 0; i < 300; ++i) vc_trial(b, r, t);
  EXPECT_GT(t.accepted, 30);
  EXPECT_GT(t.refused, 30);
  std::printf("%d accepted, %d refused\n", t.accepted, t.refused);
}

TEST(Sg2260ValidateAgree, LinFootprints) {
  Bench b;
  Rng r{15};
  Tally t;
  for (int i = 0; i < 300; ++i) lin_trial(b, r, t);
  EXPECT_GT(t.accepted, 30);
  EXPECT_GT(t.refused, 30);
  std::printf("%d accepted, %d refused\n", t.accepted, t.refused);
}

TEST(Sg2260ValidateAgree, RequantisingConvFootprints) {
  Bench b;
  Rng r{14};
  Tally t;
  for (int i = 0; i < 300; ++i) rq_conv_trial(b, r, t);
  EXPECT_GT(t.accepted, 30);
  EXPECT_GT(t.refused, 30);
  std::printf("%d accepted, %d refused\n", t.accepted, t.refused);
}

TEST(Sg2260ValidateAgree, CmpFootprints) { agree(0, 11); }
TEST(Sg2260ValidateAgree, RqDqFootprints) { agree(1, 12); }
TEST(Sg2260ValidateAgree, SglFootprints) { agree(2, 13); }
