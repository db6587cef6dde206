// SG2260 simulator, SFU taylor (eu 13), bit-exact: res0 = sum_{j<L} coef[j] * x^j by Horner
// in double, rounded once to res0's precision; the table is read from the lane holding the
// element (a tilefw decision, sg2260/sim.hpp). Long SFU and sSFU; exp's Taylor table, a
// 3-term polynomial checked against hand-computed bits, lane independence, the L = 0 / L > 32
// faults, the single rounding to f16, and the timing-model-v1 cost.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "fixture.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/views.hpp"

namespace {

using namespace simtest;

// The shared fixture with the taylor tests' views of core 0's LMEM (TIU commands only).
struct TaylorBench : Bench {
  void put_f32(uint32_t lane, uint32_t off, const std::vector<float>& v) {
    std::memcpy(lm(lane, off), v.data(), v.size() * 4);
  }
  uint32_t bits32(uint32_t lane, uint32_t off) { return get<uint32_t>(lm(lane, off)); }
  uint16_t bits16(uint32_t lane, uint32_t off) { return get<uint16_t>(lm(lane, off)); }
  Status exec(const uint8_t* data, std::string* out = nullptr) { return Bench::exec(Engine::tiu, data, out); }
};

// A taylor command: res0 / opd0 of 1 x c x 1 x w (alignEU), table of `len` at `table`.
struct Taylor {
  uint32_t c = 1, w = 1, res_prec = 2, opd_prec = 2, len = 1;
  uint32_t res = 0x4000, opd = 0, table = 0x8000;
  template <typename V>
  void fill(V v) const {
    v.set_res0_n(1); v.set_res0_c(c); v.set_res0_h(1); v.set_res0_w(w);
    v.set_opt_res0_prec(res_prec); v.set_opt_opd0_prec(opd_prec);
    v.set_res0_addr(res); v.set_opd0_addr(opd); v.set_opd1_addr(table); v.set_opd1_n(len);
  }
  void build(Cmd& x, bool is_long) const {
    if (is_long) {
      cmd::TiuLongRef v(x.b);
      fill(v);
      // the long form's opd0 shape fields are not read (SFU is element-wise on res0's shape)
    } else {
      fill(cmd::SSfuRef(x.b));
    }
  }
};

// Reference: Horner over the f32 table in double, one rounding to f32.
uint32_t horner_f32(const std::vector<float>& coef, float x) {
  double y = coef.back();
  for (size_t j = coef.size() - 1; j-- > 0;) y = y * static_cast<double>(x) + coef[j];
  return std::bit_cast<uint32_t>(static_cast<float>(y));
}

TEST(SimTaylor, ExpTableOnF32BothForms) {
  std::vector<float> coef(12);
  double fact = 1;
  for (size_t j = 0; j < coef.size(); ++j) {
    if (j > 0) fact *= static_cast<double>(j);
    coef[j] = static_cast<float>(1.0 / fact);
  }
  const std::vector<float> xs = {0.0f, 0.5f, -1.0f, 1.0f, 0.125f, -0.3f, 0.693147f, 1.5f};
  for (int is_long = 0; is_long < 2; ++is_long) {
    TaylorBench b;
    b.put_f32(0, 0, xs);
    b.put_f32(0, 0x8000, coef);
    Taylor t;
    t.w = static_cast<uint32_t>(xs.size());
    t.len = static_cast<uint32_t>(coef.size());
    Cmd x(is_long ? CmdClass::SFU : CmdClass::sSFU, 13);
    t.build(x, is_long != 0);
    std::string msg;
    ASSERT_EQ(b.exec(x.b, &msg), Status::ok) << msg;
    for (size_t i = 0; i < xs.size(); ++i) {
      const uint32_t got = b.bits32(0, 0x4000 + 4 * static_cast<uint32_t>(i));
      EXPECT_EQ(got, horner_f32(coef, xs[i])) << is_long << " x=" << xs[i];
      // 12 terms approximate exp to ~1e-7 relative on |x| <= 1.5 (a sanity check of the order)
      EXPECT_NEAR(std::bit_cast<float>(got), std::exp(xs[i]), 2e-6 * std::exp(xs[i])) << xs[i];
    }
    EXPECT_EQ(b.bits32(0, 0x4000), 0x3F800000u);  // exp(0) = coef[0] = 1 exactly
  }
}

TEST(SimTaylor, ThreeTermPolynomialHandComputedBits) {
  // 1 + 2x + 3x^2 at x = 0.5 -> 2.75; -2 -> 9; 3 -> 34; 0.1f (0x3DCCCCCD) -> 1.23000000387...
  // which is 1.52e-8 above 0x3F9D70A4 (1.2300000190734863) and 1.04e-7 above 0x3F9D70A3.
  TaylorBench b;
  b.put_f32(0, 0, {0.5f, -2.0f, 3.0f, std::bit_cast<float>(0x3DCCCCCDu)});
  b.put_f32(0, 0x8000, {1.0f, 2.0f, 3.0f});
  Taylor t;
  t.w = 4;
  t.len = 3;
  Cmd x(CmdClass::sSFU, 13);
  t.build(x, false);
  ASSERT_EQ(b.exec(x.b), Status::ok);
  EXPECT_EQ(b.bits32(0, 0x4000), 0x40300000u);
  EXPECT_EQ(b.bits32(0, 0x4004), 0x41100000u);
  EXPECT_EQ(b.bits32(0, 0x4008), 0x42080000u);
  EXPECT_EQ(b.bits32(0, 0x400C), 0x3F9D70A4u);
}

TEST(SimTaylor, EachLaneReadsItsOwnTable) {
  // Lanes 3 and 4 (opd0 starts at lane 3): lane 3's table is 1 + x, lane 4's is x^2; the
  // table address names lane 0, whose copy (all 7s) must not be read.
  TaylorBench b;
  b.put_f32(3, 0x100, {3.0f, -1.0f});
  b.put_f32(4, 0x100, {3.0f, -1.0f});
  b.put_f32(0, 0x800, {7.0f, 7.0f, 7.0f});
  b.put_f32(3, 0x800, {1.0f, 1.0f, 0.0f});
  b.put_f32(4, 0x800, {0.0f, 0.0f, 1.0f});
  Taylor t;
  t.c = 2;
  t.w = 2;
  t.len = 3;
  t.opd = (3u << 18) | 0x100;
  t.res = (3u << 18) | 0x4000;
  t.table = 0x800;
  for (int is_long = 0; is_long < 2; ++is_long) {
    Cmd x(is_long ? CmdClass::SFU : CmdClass::sSFU, 13);
    t.build(x, is_long != 0);
    std::string msg;
    ASSERT_EQ(b.exec(x.b, &msg), Status::ok) << msg;
    EXPECT_EQ(std::bit_cast<float>(b.bits32(3, 0x4000)), 4.0f);
    EXPECT_EQ(std::bit_cast<float>(b.bits32(3, 0x4004)), 0.0f);
    EXPECT_EQ(std::bit_cast<float>(b.bits32(4, 0x4000)), 9.0f);
    EXPECT_EQ(std::bit_cast<float>(b.bits32(4, 0x4004)), 1.0f);
  }
}

TEST(SimTaylor, TableLengthZeroOrAbove32Faults) {
  TaylorBench b;
  for (uint32_t len : {0u, 33u, 1000u}) {
    for (int is_long = 0; is_long < 2; ++is_long) {
      Taylor t;
      t.len = len;
      Cmd x(is_long ? CmdClass::SFU : CmdClass::sSFU, 13);
      t.build(x, is_long != 0);
      std::string msg;
      EXPECT_EQ(b.exec(x.b, &msg), Status::cmd_bad_field) << len;
      EXPECT_NE(msg.find("opd1_n"), std::string::npos) << msg;
      EXPECT_EQ(msg.rfind(std::string(is_long ? "SFU" : "sSFU") + " eu 13 (taylor)", 0), 0u) << msg;
    }
  }
  // 32 terms are accepted; a table running past the lane's end is a footprint fault.
  Taylor ok;
  ok.len = 32;
  Cmd y(CmdClass::sSFU, 13);
  ok.build(y, false);
  EXPECT_EQ(b.exec(y.b), Status::ok);
  ok.table = sg::kLaneBytes - 4 * 31;
  Cmd z(CmdClass::sSFU, 13);
  ok.build(z, false);
  EXPECT_EQ(b.exec(z.b), Status::cmd_footprint_out_of_range);
  // Integer operands are refused; normalize stays unsupported by name (taylor_4x computes
  // taylor's polynomial: test/sim/sg2260/test_classes.cpp).
  Taylor i;
  i.opd_prec = 4;
  i.len = 2;
  Cmd w(CmdClass::sSFU, 13);
  i.build(w, false);
  std::string msg;
  EXPECT_EQ(b.exec(w.b, &msg), Status::sim_unsupported_op);
  EXPECT_EQ(msg, "sSFU eu 13 (taylor) on integer operands");
  Cmd u(CmdClass::sSFU, 15);
  ok.table = 0x8000;
  ok.build(u, false);
  EXPECT_EQ(b.exec(u.b, &msg), Status::sim_unsupported_op);
  EXPECT_EQ(msg.rfind("sSFU eu 15 (normalize)", 0), 0u) << msg;
}

TEST(SimTaylor, F16ResultRoundedOnceFromDouble) {
  // 1 + x with x = 2^-11 + 2^-30: the exact sum lies just above the f16 tie between 1.0 and
  // 1 + 2^-10. Rounding to f32 first would land on the tie (1 + 2^-11) and then to 1.0
  // (0x3C00); the single rounding gives 0x3C01. x = 2^-11 alone is the tie: 0x3C00 (even).
  TaylorBench b;
  const float x0 = std::ldexp(1.0f, -11) + std::ldexp(1.0f, -30);
  b.put_f32(0, 0, {x0, std::ldexp(1.0f, -11), -0.5f, 65504.0f});
  b.put_f32(0, 0x8000, {1.0f, 1.0f});
  Taylor t;
  t.w = 4;
  t.len = 2;
  t.res_prec = 1;
  Cmd x(CmdClass::SFU, 13);
  t.build(x, true);
  ASSERT_EQ(b.exec(x.b), Status::ok);
  EXPECT_EQ(b.bits16(0, 0x4000), 0x3C01u);
  EXPECT_EQ(b.bits16(0, 0x4002), 0x3C00u);
  EXPECT_EQ(b.bits16(0, 0x4004), 0x3800u);  // 0.5
  EXPECT_EQ(b.bits16(0, 0x4006), 0x7BFFu);  // 65505 rounds to the largest finite f16
}

TEST(SimTaylor, TimingV1CostIsArBodyTimesTwoLMinusOnePlus13) {
  // 1 x 64 x 1 x 32 f32: AR body = 1 * ceil(64/64) * ceil(32/16) = 2; L = 5 -> 2 * 9 + 13.
  // Operands in banks 1 (res0), 0 (opd0), 2 (table): no conflict; the table in res0's bank: +1.
  for (int is_long = 0; is_long < 2; ++is_long) {
    Taylor t;
    t.c = 64;
    t.w = 32;
    t.len = 5;
    Cmd x(is_long ? CmdClass::SFU : CmdClass::sSFU, 13);
    t.build(x, is_long != 0);
    uint64_t cycles = 0, bytes = 0, ops = 0;
    sim::command_cost(0, x.b, cycles, bytes, ops, sim::TimingModel::v1);
    EXPECT_EQ(cycles, 2u * 9 + 13) << is_long;
    sim::command_cost(0, x.b, cycles, bytes, ops, sim::TimingModel::v2);  // v2 costs SFU as v1
    EXPECT_EQ(cycles, 2u * 9 + 13) << is_long;
    EXPECT_EQ(ops, 64u * 32);
    t.table = 0x4100;
    Cmd y(is_long ? CmdClass::SFU : CmdClass::sSFU, 13);
    t.build(y, is_long != 0);
    sim::command_cost(0, y.b, cycles, bytes, ops, sim::TimingModel::v1);
    EXPECT_EQ(cycles, 2u * 9 + 13 + 1) << is_long;
  }
}

}  // namespace
