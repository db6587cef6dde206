// SG2260 simulator, TIU CMP / sCMP (fused compare), bit for bit against a reference written
// here from the operation list (docs/sg2260-commands.md section 15, "CMP"): A = opd0 and B =
// opd1 in opd0's precision, C = opd2 and D = opd3 in opd2's; sel_gt / sel_eq / sel_lt write
// (A op B ? C : D) to res0; gt_and_sel / lt_and_sel write the pick of A or B by the same
// compare to res0 (max / min) and (A op B ? C : D) to res1. Compares in exact values, a NaN
// compares false. Every A/B precision (signed and unsigned integers, both FP8 formats),
// NaN, inf, -0, subnormals and the integer limits, constants in each role, both forms, and
// what stays refused (srch_bin, stride mode 3 without strides, INT4). The reference shares no
// code with the simulator: values by plain_reference.hpp, addresses by the spec's lane rule.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "plain_reference.hpp"
#include "sg2260/hazard.hpp"

namespace {

using namespace simtest;
using simref::Placed;

// Shape of every case: channels from lane 62 (so they wrap onto lanes 0 and the next
// channel slab), two batches.
constexpr uint32_t kLane0 = 62, kN = 2, kC = 3, kH = 2, kW = 5;
constexpr uint32_t kOffA = 0x0000, kOffB = 0x1000, kOffC = 0x2000, kOffD = 0x3000, kOffR0 = 0x4000, kOffR1 = 0x5000;

struct Lcg64 {
  uint64_t s;
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 11;
  }
};

// Edge bit patterns of a precision: zeros of both signs, infinities, NaNs, the smallest and
// largest subnormals and finite values (floats); 0, +-1, the limits (integers).
std::vector<uint32_t> edges(uint32_t prec) {
  switch (prec) {
    case simref::kF32:
      return {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x00000001u,
              0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u, 0xBF800000u};
    case simref::kF16:
      return {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x0001, 0x83FF, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00};
    case simref::kBf16:
      return {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x807F, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80};
    case simref::kFp8:
      return {0x00, 0x80, 0x7F, 0xFF, 0x7C, 0xFC, 0x7E, 0x01, 0x81, 0x7B, 0xFB, 0x77, 0xF7, 0x38, 0xB8};
    case simref::kI8: return {0x00, 0x01, 0xFF, 0x7F, 0x80, 0x81};
    case simref::kI16: return {0x0000, 0x0001, 0xFFFF, 0x7FFF, 0x8000, 0x8001};
    default: return {0x00000000u, 0x00000001u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x80000001u};
  }
}

uint32_t mask_bits(uint32_t bits, uint32_t prec) {
  const uint32_t es = simref::esize(prec);
  return es == 4 ? bits : bits & ((1u << (8 * es)) - 1);
}

// A value's bits: an edge pattern, a random pattern, or (to exercise equality) B = A.
uint32_t draw(Lcg64& r, uint32_t prec) {
  const std::vector<uint32_t> e = edges(prec);
  if (r.next() % 3 == 0) return e[r.next() % e.size()];
  return mask_bits(static_cast<uint32_t>(r.next()), prec);
}

double value_of(uint32_t bits, uint32_t prec, bool sign) {
  uint8_t b[4];
  std::memcpy(b, &bits, 4);
  return simref::get(b, prec, sign);
}

uint32_t load(const uint8_t* p, uint32_t prec) {
  uint32_t v = 0;
  std::memcpy(&v, p, simref::esize(prec));
  return v;
}
void store(uint8_t* p, uint32_t prec, uint32_t bits) { std::memcpy(p, &bits, simref::esize(prec)); }

struct CmpCase {
  uint32_t eu;
  uint32_t ab;  // A/B precision
  bool sign;    // A/B: integers signed, FP8 E4M3
  uint32_t cd;  // C/D precision
  bool shortf = false;
  bool konst[4] = {false, false, false, false};  // A, B, C, D constants
};

std::string name(const CmpCase& k) {
  return "eu " + std::to_string(k.eu) + " ab " + std::to_string(k.ab) + (k.sign ? "s" : "u") + " cd " +
         std::to_string(k.cd) + (k.shortf ? " short" : " long") + " const " + std::to_string(k.konst[0]) +
         std::to_string(k.konst[1]) + std::to_string(k.konst[2]) + std::to_string(k.konst[3]);
}

bool two_results(uint32_t eu) { return eu == 22 || eu == 25; }

// The reference: one element's compare on exact values (IEEE: NaN unordered, -0 == +0).
bool ref_compare(uint32_t eu, double a, double b) {
  if (eu == 22 || eu == 23) return a > b;
  if (eu == 24) return a == b;
  return a < b;
}

void fill_command(uint8_t* b, const CmpCase& k, const uint32_t (&kbits)[4]) {
  const uint32_t r0prec = two_results(k.eu) ? k.ab : k.cd;
  const uint32_t base = kLane0 << 18;
  const uint32_t addr[4] = {k.konst[0] ? kbits[0] : base | kOffA, k.konst[1] ? kbits[1] : base | kOffB,
                            k.konst[2] ? kbits[2] : base | kOffC, k.konst[3] ? kbits[3] : base | kOffD};
  if (k.shortf) {
    cmd::SCmpRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kH); v.set_res0_w(kW);
    v.set_opt_opd0_prec(k.ab); v.set_opt_opd2_prec(k.cd); v.set_opt_opd0_sign(k.sign);
    v.set_opt_opd0_const(k.konst[0]); v.set_opt_opd1_const(k.konst[1]);
    v.set_opt_opd2_const(k.konst[2]); v.set_opt_opd3_const(k.konst[3]);
    v.set_opd0_addr(addr[0]); v.set_opd1_addr(addr[1]); v.set_opd2_addr(addr[2]); v.set_opd3_addr(addr[3]);
    v.set_res0_addr(base | kOffR0); v.set_res1_addr(base | kOffR1);
  } else {
    cmd::TiuLongRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kH); v.set_res0_w(kW);
    v.set_opt_res0_prec(r0prec); v.set_opt_opd0_prec(k.ab); v.set_opt_opd2_prec(k.cd); v.set_opt_opd0_sign(k.sign);
    v.set_opt_opd0_const(k.konst[0]); v.set_opt_opd1_const(k.konst[1]);
    v.set_opt_opd2_const(k.konst[2]); v.set_opt_opd3_const(k.konst[3]);
    v.set_opd0_addr(addr[0]); v.set_opd1_addr(addr[1]); v.set_opd2_addr(addr[2]); v.set_opd3_addr(addr[3]);
    v.set_res0_addr(base | kOffR0); v.set_res1_addr(base | kOffR1);
  }
}

// Runs one case over random and edge inputs; checks every result bit for bit.
void run_case(const CmpCase& k, uint64_t seed) {
  Bench b;
  Cmd c(k.shortf ? CmdClass::sCMP : CmdClass::CMP, k.eu);
  Lcg64 r{seed};
  const uint32_t r0prec = two_results(k.eu) ? k.ab : k.cd;
  const Placed A{b.machine, kLane0, kOffA, k.ab, k.sign, kC, kH, kW}, B{b.machine, kLane0, kOffB, k.ab, k.sign, kC, kH, kW};
  const Placed C{b.machine, kLane0, kOffC, k.cd, true, kC, kH, kW}, D{b.machine, kLane0, kOffD, k.cd, true, kC, kH, kW};
  const Placed R0{b.machine, kLane0, kOffR0, r0prec, true, kC, kH, kW}, R1{b.machine, kLane0, kOffR1, k.cd, true, kC, kH, kW};
  // constants: the 32-bit field; its low bytes are the value (high bytes random garbage)
  uint32_t kbits[4];
  for (int i = 0; i < 4; ++i) {
    const uint32_t prec = i < 2 ? k.ab : k.cd;
    const uint32_t garbage = simref::esize(prec) == 4 ? 0 : static_cast<uint32_t>(r.next()) << (8 * simref::esize(prec));
    kbits[i] = draw(r, prec) | garbage;
  }
  fill_command(c.b, k, kbits);
  // the inputs, kept for the reference
  std::vector<uint32_t> in[4];
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
          const uint32_t a = draw(r, k.ab);
          const uint32_t bb = r.next() % 4 == 0 ? a ^ (r.next() % 2 == 0 ? 0u : mask_bits(0x80000000u >> (32 - 8 * simref::esize(k.ab)), k.ab)) : draw(r, k.ab);
          const uint32_t vals[4] = {a, bb, draw(r, k.cd), draw(r, k.cd)};
          const Placed* ps[4] = {&A, &B, &C, &D};
          for (int i = 0; i < 4; ++i) {
            in[i].push_back(vals[i]);
            store(ps[i]->at(n, ch, y, x), i < 2 ? k.ab : k.cd, vals[i]);
          }
          store(R0.at(n, ch, y, x), r0prec, 0xA5A5A5A5u);
          store(R1.at(n, ch, y, x), k.cd, 0x5A5A5A5Au);
        }
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << name(k) << ": " << msg;
  size_t e = 0;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x, ++e) {
          uint32_t v[4];
          for (int i = 0; i < 4; ++i) v[i] = mask_bits(k.konst[i] ? kbits[i] : in[i][e], i < 2 ? k.ab : k.cd);
          const bool t = ref_compare(k.eu, value_of(v[0], k.ab, k.sign), value_of(v[1], k.ab, k.sign));
          const uint32_t sel = t ? v[2] : v[3];
          const std::string where = name(k) + " at " + std::to_string(n) + "," + std::to_string(ch) + "," +
                                    std::to_string(y) + "," + std::to_string(x);
          if (two_results(k.eu)) {
            EXPECT_EQ(load(R0.at(n, ch, y, x), k.ab), t ? v[0] : v[1]) << where << " res0";
            EXPECT_EQ(load(R1.at(n, ch, y, x), k.cd), sel) << where << " res1";
          } else {
            EXPECT_EQ(load(R0.at(n, ch, y, x), k.cd), sel) << where << " res0";
            EXPECT_EQ(load(R1.at(n, ch, y, x), k.cd), mask_bits(0x5A5A5A5Au, k.cd)) << where << " res1 untouched";
          }
        }
}

// True when every byte of [begin, end) lies in one of the logged ranges.
bool covered(const std::vector<sim::AccessLog::Range>& v, uint64_t begin, uint64_t end) {
  for (uint64_t a = begin; a < end; ++a) {
    bool in = false;
    for (const auto& r : v) in = in || (a >= r.begin && a < r.end);
    if (!in) return false;
  }
  return true;
}
uint64_t lane_addr(uint32_t lane, uint32_t off) { return sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off; }

constexpr uint32_t kAbPrecs[] = {simref::kI8, simref::kI16, simref::kI32, simref::kF16, simref::kBf16, simref::kF32, simref::kFp8};

TEST(SimCmp, EveryOpEveryPrecisionBothFormsBitExact) {
  uint64_t seed = 1;
  for (uint32_t eu : {22u, 23u, 24u, 25u, 26u}) {
    for (uint32_t ab : kAbPrecs) {
      for (bool sign : {true, false}) {
        for (uint32_t cd : {simref::kI8, simref::kF16, simref::kF32}) {
          for (bool shortf : {false, true}) {
            CmpCase k{eu, ab, sign, cd, shortf};
            run_case(k, seed++);
          }
        }
      }
    }
  }
}

TEST(SimCmp, ConstantsInEachRole) {
  uint64_t seed = 1000;
  for (uint32_t eu : {22u, 23u, 24u, 25u, 26u}) {
    for (uint32_t ab : {simref::kI16, simref::kF32, simref::kBf16, simref::kFp8}) {
      for (int role = 0; role < 4; ++role) {
        CmpCase k{eu, ab, true, simref::kF16, role % 2 == 1};
        k.konst[role] = true;
        run_case(k, seed++);
        CmpCase both{eu, ab, false, simref::kI32, false};
        both.konst[role] = true;
        both.konst[(role + 2) % 4] = true;
        run_case(both, seed++);
      }
    }
  }
}

// The decisions at their edges, by hand: -0 vs +0 are equal (max picks B), NaN compares false
// on either side (the select takes D, max/min take B), and signedness decides integer order.
TEST(SimCmp, HandCasesZeroNaNAndSignedness) {
  struct Hand { uint32_t eu, ab; bool sign; uint32_t a, b; bool want; };
  const Hand hs[] = {
      {24, simref::kF32, true, 0x80000000u, 0x00000000u, true},   // -0 == +0
      {22, simref::kF32, true, 0x80000000u, 0x00000000u, false},  // -0 > +0 false: max is B (+0)
      {25, simref::kF32, true, 0x00000000u, 0x80000000u, false},  // +0 < -0 false: min is B (-0)
      {23, simref::kF16, true, 0x7E00, 0x3C00, false},            // NaN > 1
      {26, simref::kF16, true, 0x3C00, 0x7E00, false},            // 1 < NaN
      {24, simref::kBf16, true, 0x7FC0, 0x7FC0, false},           // NaN == NaN (same bits)
      {23, simref::kI8, true, 0xFF, 0x01, false},                 // -1 > 1 signed
      {23, simref::kI8, false, 0xFF, 0x01, true},                 // 255 > 1 unsigned
      {26, simref::kI32, true, 0x80000000u, 0x7FFFFFFFu, true},   // INT32_MIN < INT32_MAX
      {23, simref::kFp8, true, 0x7E, 0x7C, true},                 // E4M3 448 > 256
      {23, simref::kFp8, false, 0x7E, 0x7C, false},               // E5M2: 0x7E NaN, 0x7C inf
  };
  for (const Hand& h : hs) {
    Bench b;
    CmpCase k{h.eu, h.ab, h.sign, simref::kI16};
    Cmd c(CmdClass::CMP, h.eu);
    const uint32_t none[4] = {0, 0, 0, 0};
    fill_command(c.b, k, none);
    const Placed A{b.machine, kLane0, kOffA, h.ab, h.sign, kC, kH, kW}, B{b.machine, kLane0, kOffB, h.ab, h.sign, kC, kH, kW};
    const Placed C{b.machine, kLane0, kOffC, simref::kI16, true, kC, kH, kW}, D{b.machine, kLane0, kOffD, simref::kI16, true, kC, kH, kW};
    const Placed R0{b.machine, kLane0, kOffR0, two_results(h.eu) ? h.ab : simref::kI16, true, kC, kH, kW};
    const Placed R1{b.machine, kLane0, kOffR1, simref::kI16, true, kC, kH, kW};
    for (uint32_t n = 0; n < kN; ++n)
      for (uint32_t ch = 0; ch < kC; ++ch)
        for (uint32_t y = 0; y < kH; ++y)
          for (uint32_t x = 0; x < kW; ++x) {
            store(A.at(n, ch, y, x), h.ab, h.a);
            store(B.at(n, ch, y, x), h.ab, h.b);
            store(C.at(n, ch, y, x), simref::kI16, 111);
            store(D.at(n, ch, y, x), simref::kI16, 222);
          }
    std::string msg;
    ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
    const uint32_t sel = h.want ? 111 : 222;
    if (two_results(h.eu)) {
      EXPECT_EQ(load(R0.at(1, 2, 1, 4), h.ab), h.want ? h.a : h.b) << h.eu << " " << h.a << " " << h.b;
      EXPECT_EQ(load(R1.at(1, 2, 1, 4), simref::kI16), sel) << h.eu << " " << h.a << " " << h.b;
    } else {
      EXPECT_EQ(load(R0.at(1, 2, 1, 4), simref::kI16), sel) << h.eu << " " << h.a << " " << h.b;
    }
  }
}

// In place: res0 over A (sel_gt into A's storage when A and C share a precision).
TEST(SimCmp, ResultMayOverwriteAnInput) {
  Bench b;
  Cmd c(CmdClass::CMP, 22);
  CmpCase k{22, simref::kF32, true, simref::kF32};
  const uint32_t none[4] = {0, 0, 0, 0};
  fill_command(c.b, k, none);
  cmd::TiuLongRef(c.b).set_res0_addr((kLane0 << 18) | kOffA);  // max into A
  cmd::TiuLongRef(c.b).set_res1_addr((kLane0 << 18) | kOffB);  // select into B
  const Placed A{b.machine, kLane0, kOffA, simref::kF32, true, kC, kH, kW}, B{b.machine, kLane0, kOffB, simref::kF32, true, kC, kH, kW};
  const Placed C{b.machine, kLane0, kOffC, simref::kF32, true, kC, kH, kW}, D{b.machine, kLane0, kOffD, simref::kF32, true, kC, kH, kW};
  simref::put(A.at(0, 0, 0, 0), simref::kF32, true, 2.0);
  simref::put(B.at(0, 0, 0, 0), simref::kF32, true, 1.0);
  simref::put(C.at(0, 0, 0, 0), simref::kF32, true, 7.0);
  simref::put(D.at(0, 0, 0, 0), simref::kF32, true, 8.0);
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
  EXPECT_EQ(simref::get(A.at(0, 0, 0, 0), simref::kF32, true), 2.0);
  EXPECT_EQ(simref::get(B.at(0, 0, 0, 0), simref::kF32, true), 7.0);
}

TEST(SimCmp, WhatStaysRefusedIsNamed) {
  {
    Bench b;
    Cmd c(CmdClass::CMP, 27);
    CmpCase k{27, simref::kF32, true, simref::kI32};
    const uint32_t none[4] = {0, 0, 0, 0};
    fill_command(c.b, k, none);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op);
    EXPECT_NE(msg.find("CMP eu 27 (srch_bin)"), std::string::npos) << msg;
  }
  {
    Bench b;
    Cmd c(CmdClass::sCMP, 23);
    CmpCase k{23, simref::kF32, true, simref::kF32, true};
    const uint32_t none[4] = {0, 0, 0, 0};
    fill_command(c.b, k, none);
    cmd::SCmpRef(c.b).set_short_opd1_str(3);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op);
    EXPECT_NE(msg.find("sCMP: opd1 stride mode 3"), std::string::npos) << msg;
  }
  {
    Bench b;
    Cmd c(CmdClass::CMP, 24);
    CmpCase k{24, 6, true, simref::kF32};  // INT4
    const uint32_t none[4] = {0, 0, 0, 0};
    fill_command(c.b, k, none);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op);
    EXPECT_NE(msg.find("CMP: opd0 precision"), std::string::npos) << msg;
  }
}

// Outside LMEM is a footprint error naming the operand, not a crash.
TEST(SimCmp, OperandOutsideLmemIsNamed) {
  Bench b;
  Cmd c(CmdClass::CMP, 23);
  CmpCase k{23, simref::kF32, true, simref::kF32};
  const uint32_t none[4] = {0, 0, 0, 0};
  fill_command(c.b, k, none);
  cmd::TiuLongRef(c.b).set_opd3_addr((kLane0 << 18) | 0x3FFC0);
  std::string msg;
  EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("CMP: opd3 outside LMEM"), std::string::npos) << msg;
}

// Timing (the existing CMP model): 2 x the AR body + 10, eu by the wider of opd0 and res0
// (f32: 16 per lane): n * ceil(c/64) * ceil(h*w/16) = 2 * 1 * 1 = 2 -> 2 * 2 + 10; no bank
// conflict (res0 in bank 1, the inputs in bank 0).
TEST(SimCmp, CostIsTwiceTheArBodyPlusTen) {
  Cmd c(CmdClass::CMP, 23);
  CmpCase k{23, simref::kF32, true, simref::kF32};
  const uint32_t none[4] = {0, 0, 0, 0};
  fill_command(c.b, k, none);
  uint64_t cycles = 0, bytes = 0, ops = 0;
  EXPECT_TRUE(sim::command_cost(0, c.b, cycles, bytes, ops, sim::TimingModel::v1));
  EXPECT_EQ(ops, uint64_t{kN} * kC * kH * kW);
  EXPECT_EQ(cycles, 14u);
}

// The hazard checker sees every operand: gt_and_sel logs A, B, C, D as reads and res0, res1 as
// writes (first channel's first row here: lane 62, 10 f32 elements each).
TEST(SimCmp, AccessLogHasEveryOperand) {
  Bench b;
  Cmd c(CmdClass::CMP, 22);
  const uint32_t none[4] = {0, 0, 0, 0};
  fill_command(c.b, CmpCase{22, simref::kF32, true, simref::kF32}, none);
  sim::AccessLog log;
  std::string msg;
  ASSERT_EQ(sim::execute_command(b.machine, 0, sim::kTiu, c.b, msg, &log), Status::ok) << msg;
  for (uint32_t off : {kOffA, kOffB, kOffC, kOffD}) EXPECT_TRUE(covered(log.reads(), lane_addr(kLane0, off), lane_addr(kLane0, off) + 40)) << off;
  for (uint32_t off : {kOffR0, kOffR1}) EXPECT_TRUE(covered(log.writes(), lane_addr(kLane0, off), lane_addr(kLane0, off) + 40)) << off;
  EXPECT_FALSE(covered(log.writes(), lane_addr(kLane0, kOffA), lane_addr(kLane0, kOffA) + 4));
}

// Long form, stride mode 3 on A and B: explicit element strides from opd0_*_str / opd1_*_str
// (A every other element, rows 16 apart; B transposed-looking h/w strides), C and D align-EU.
TEST(SimCmp, ExplicitStridesOnAAndB) {
  Bench b;
  Cmd c(CmdClass::CMP, 26);
  const uint32_t none[4] = {0, 0, 0, 0};
  fill_command(c.b, CmpCase{26, simref::kI16, true, simref::kI8}, none);
  cmd::TiuLongRef v(c.b);
  v.set_short_opd0_str(3); v.set_short_opd1_str(3);
  const uint64_t as[4] = {256, 64, 16, 2}, bs[4] = {128, 32, 1, 3};  // n, c, h, w in elements
  v.set_opd0_n_str(as[0]); v.set_opd0_c_str(as[1]); v.set_opd0_h_str(as[2]); v.set_opd0_w_str(as[3]);
  v.set_opd1_n_str(bs[0]); v.set_opd1_c_str(bs[1]); v.set_opd1_h_str(bs[2]); v.set_opd1_w_str(bs[3]);
  auto at = [&](uint32_t off, const uint64_t (&st)[4], uint64_t n, uint64_t ch, uint64_t y, uint64_t x) {
    const uint64_t lane = kLane0 + ch;
    const uint64_t e = n * st[0] + (lane / 64) * st[1] + y * st[2] + x * st[3];
    return b.lm(static_cast<uint32_t>(lane % 64), static_cast<uint32_t>(off + e * 2));
  };
  const Placed C{b.machine, kLane0, kOffC, simref::kI8, true, kC, kH, kW}, D{b.machine, kLane0, kOffD, simref::kI8, true, kC, kH, kW};
  const Placed R{b.machine, kLane0, kOffR0, simref::kI8, true, kC, kH, kW};
  Lcg64 r{99};
  std::vector<int16_t> av, bv;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
          av.push_back(static_cast<int16_t>(r.next() % 7) - 3);
          bv.push_back(static_cast<int16_t>(r.next() % 7) - 3);
          b.put(at(kOffA, as, n, ch, y, x), av.back());
          b.put(at(kOffB, bs, n, ch, y, x), bv.back());
          *C.at(n, ch, y, x) = 1;
          *D.at(n, ch, y, x) = 2;
        }
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
  size_t e = 0;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x, ++e)
          EXPECT_EQ(*R.at(n, ch, y, x), av[e] < bv[e] ? 1 : 2) << n << "," << ch << "," << y << "," << x;
}

}  // namespace
