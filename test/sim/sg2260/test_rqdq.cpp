// SG2260 simulator, TIU RQ&DQ / sRQ&sDQ, bit for bit against a reference written here from the
// operation list (docs/sg2260-commands.md section 15, "RQ&DQ"):
//   rq0  R = sat(f2i(fp32(fp32(i2f(A) * scale) + zp)))  scale, zp FP32 (B = (scale, zp))
//   rq1  R = sat(shift_round(A * scale, shift) + zp)   B = (scale, shift, zp) as int32
//   dq0  R = fp32((A - zp) * scale)                    constants only
//   dq1  R = sat(shift_round((A - zp) * scale, shift))  B = (zp, scale, shift) as int32
// with every round mode (i2f / f2i 0..4, the shift 0..6), sym_range, signed and unsigned
// inputs and results, per-channel tensors and constants, both forms; hand cases pin each
// round mode's ties and the shifts past 62. The reference shares no code with the
// simulator: integer division for the shift, long double for left shifts, and its own
// integer-to-FP32 rounding.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "plain_reference.hpp"
#include "sg2260/hazard.hpp"

namespace {

using namespace simtest;
using simref::Placed;

constexpr uint32_t kLane0 = 60, kN = 2, kC = 6, kH = 1, kW = 7;
constexpr uint32_t kOffA = 0x0000, kOffB = 0x1000, kOffR = 0x4000;  // res0 in another LMEM bank

struct Rng {
  uint64_t s;
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 7;
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

int64_t lo_of(uint32_t prec, bool sign, bool sym) {
  const uint32_t bits = 8 * simref::esize(prec);
  if (!sign) return 0;
  return sym ? -((int64_t{1} << (bits - 1)) - 1) : -(int64_t{1} << (bits - 1));
}
int64_t hi_of(uint32_t prec, bool sign) {
  const uint32_t bits = 8 * simref::esize(prec);
  return sign ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
}

// v / 2^n rounded by a mode, 0 <= n <= 62: truncating division, then the remainder's size
// against the divisor's half decides.
int64_t ref_div_round(int64_t v, int n, uint32_t mode) {
  if (n == 0) return v;
  const int64_t d = int64_t{1} << n;
  int64_t q = v / d, r = v % d;  // C++: q toward zero, r with v's sign
  if (r < 0) { q -= 1; r += d; }  // now the floor and a remainder in [0, d)
  const int64_t twice = 2 * r;  // against d: below, at or above a half
  switch (mode) {
    case 0: return twice > d || (twice == d && q % 2 != 0) ? q + 1 : q;
    case 1: return twice > d || (twice == d && v > 0) ? q + 1 : q;
    case 2: return (v < 0 && r != 0) ? q + 1 : q;
    case 3: return q;
    case 4: return r != 0 ? q + 1 : q;
    case 5: return twice >= d ? q + 1 : q;
    default: return twice > d ? q + 1 : q;
  }
}

// shift_round(x, s): s < 0 divides by 2^-s rounding by mode; s >= 0 multiplies exactly
// (long double holds 64 significant bits), the caller clamps.
long double ref_shift(int64_t x, int s, uint32_t mode) {
  if (s < 0) return static_cast<long double>(ref_div_round(x, -s, mode));
  return std::ldexp(static_cast<long double>(x), s);
}
int64_t clamp_ld(long double v, int64_t lo, int64_t hi) {
  if (v < static_cast<long double>(lo)) return lo;
  if (v > static_cast<long double>(hi)) return hi;
  return static_cast<int64_t>(v);
}

// An integer rounded to FP32 by a mode (0 even, 1 half away, 2 toward zero, 3 down, 4 up): the
// two FP32 neighbours are multiples of the unit in the last place.
float ref_i2f(int64_t a, uint32_t mode) {
  const uint64_t mag = a < 0 ? static_cast<uint64_t>(-a) : static_cast<uint64_t>(a);
  int bits = 0;
  while (bits < 64 && (mag >> bits) != 0) ++bits;
  if (bits <= 24) return static_cast<float>(a);
  const int64_t ulp = int64_t{1} << (bits - 24);
  const int64_t below = a >= 0 ? a / ulp * ulp : -((-a + ulp - 1) / ulp * ulp);  // floor to a multiple
  const int64_t above = below + ulp;
  const int64_t r = a - below;
  int64_t pick = below;
  switch (mode) {
    case 0: pick = 2 * r > ulp || (2 * r == ulp && (below / ulp) % 2 != 0) ? above : below; break;
    case 1: pick = 2 * r > ulp || (2 * r == ulp && a > 0) ? above : below; break;
    case 2: pick = a < 0 && r != 0 ? above : below; break;
    case 3: pick = below; break;
    default: pick = r != 0 ? above : below; break;
  }
  return static_cast<float>(pick);  // exact: pick has at most 24 significant bits
}
double ref_f2i(double y, uint32_t mode) {
  switch (mode) {
    case 0: { const double f = std::floor(y), d = y - f; return d > 0.5 || (d == 0.5 && std::fmod(f, 2) != 0) ? f + 1 : f; }
    case 1: return std::round(y);
    case 2: return std::trunc(y);
    case 3: return std::floor(y);
    default: return std::ceil(y);
  }
}

struct RqCase {
  uint32_t eu;
  uint32_t a_prec;
  bool a_sign;
  uint32_t r_prec;
  bool r_sign;
  bool sym;
  uint32_t round;  // opd2_n_str
  bool b_const;
  bool shortf;
};

std::string name(const RqCase& k) {
  return "eu " + std::to_string(k.eu) + " A " + std::to_string(k.a_prec) + (k.a_sign ? "s" : "u") + " R " +
         std::to_string(k.r_prec) + (k.r_sign ? "s" : "u") + (k.sym ? " sym" : "") + " round " + std::to_string(k.round) +
         (k.b_const ? " const" : " tensor") + (k.shortf ? " short" : " long");
}

struct Params {
  int64_t scale = 0, shift = 0, zp = 0;
  float scale_f = 0, zp_f = 0;
};

void build(uint8_t* b, const RqCase& k, uint32_t opd1, uint32_t opd2) {
  const uint32_t base = kLane0 << 18;
  if (k.shortf) {
    cmd::SRqDqRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kH); v.set_res0_w(kW);
    v.set_opt_opd0_prec(k.a_prec); v.set_opt_res0_prec(k.r_prec); v.set_opt_opd0_sign(k.a_sign); v.set_opt_opd2_sign(k.r_sign);
    v.set_sym_range(k.sym); v.set_opd2_n_str(k.round); v.set_opt_opd1_const(k.b_const);
    v.set_res0_addr(base | kOffR); v.set_opd0_addr(base | kOffA); v.set_opd1_addr(opd1); v.set_opd2_addr(opd2);
  } else {
    cmd::TiuLongRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kH); v.set_res0_w(kW);
    v.set_opt_opd0_prec(k.a_prec); v.set_opt_res0_prec(k.r_prec); v.set_opt_opd0_sign(k.a_sign); v.set_opt_opd2_sign(k.r_sign);
    v.set_sym_range(k.sym); v.set_opd2_n_str(k.round); v.set_opt_opd1_const(k.b_const);
    v.set_res0_addr(base | kOffR); v.set_opd0_addr(base | kOffA); v.set_opd1_addr(opd1); v.set_opd2_addr(opd2);
  }
}

int64_t draw_a(Rng& r, uint32_t prec, bool sign) {
  const int64_t lo = lo_of(prec, sign, false), hi = hi_of(prec, sign);
  switch (r.next() % 6) {
    case 0: return lo;
    case 1: return hi;
    case 2: return r.range(-2, 2) < lo ? lo : r.range(sign ? -2 : 0, 2);
    default: return r.range(lo, hi);
  }
}

Params draw_params(Rng& r, const RqCase& k) {
  Params p;
  if (k.eu == 0) {
    // scales that make results land inside and past the range, ties included (multiples of 1/4)
    const float scales[] = {0.25f, 0.5f, -0.75f, 1.0f / 3, 1e-3f, 1.5e9f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), std::ldexp(1.0f, -140), static_cast<float>(r.range(-8, 8)) / 4};
    p.scale_f = scales[r.next() % (sizeof scales / sizeof scales[0])];
    const float zps[] = {0.0f, 0.5f, -0.5f, 128.0f, -3.25f, 1e20f};
    p.zp_f = zps[r.next() % (sizeof zps / sizeof zps[0])];
    return p;
  }
  p.scale = (r.next() % 3 == 0) ? r.range(INT32_MIN, INT32_MAX) : r.range(-300, 300);
  if (k.b_const && k.eu == 4) p.scale = r.range(-300, 300);
  p.shift = (r.next() % 4 == 0) ? r.range(0, 8) : -r.range(0, 40);
  if (k.b_const) {
    p.zp = k.eu == 1 ? (k.r_sign ? r.range(-32768, 32767) : r.range(0, 65535)) : (k.a_sign ? r.range(-32768, 32767) : r.range(0, 65535));
  } else {
    p.zp = r.range(-70000, 70000);
  }
  if (k.eu == 4 && !k.b_const && k.a_prec == simref::kI8 && r.next() % 2 == 0) p.zp = r.range(-128, 255);
  return p;
}

// The reference result for one element (integer result as int64, FP32 as its bits).
int64_t ref_element(const RqCase& k, const Params& p, int64_t a) {
  const int64_t lo = lo_of(k.r_prec, k.r_sign, k.sym), hi = hi_of(k.r_prec, k.r_sign);
  switch (k.eu) {
    case 0: {
      const float f = ref_i2f(a, k.round & 7);
      const float prod = static_cast<float>(static_cast<double>(f) * static_cast<double>(p.scale_f));
      const float y = static_cast<float>(static_cast<double>(prod) + static_cast<double>(p.zp_f));
      if (std::isnan(y)) return 0;
      const double q = ref_f2i(y, k.round >> 3);
      return q < static_cast<double>(lo) ? lo : q > static_cast<double>(hi) ? hi : static_cast<int64_t>(q);
    }
    case 1: return clamp_ld(ref_shift(a * p.scale, static_cast<int>(p.shift), k.round) + p.zp, lo, hi);
    case 3: {
      const float r = static_cast<float>(static_cast<double>(a - p.zp) * static_cast<double>(p.scale_f));
      return std::bit_cast<uint32_t>(r);
    }
    default: return clamp_ld(ref_shift((a - p.zp) * p.scale, static_cast<int>(p.shift), k.round), lo, hi);
  }
}

void run_case(Bench& b, const RqCase& k, Rng& r) {
  Cmd c(k.shortf ? CmdClass::sRQ_sDQ : CmdClass::RQ_DQ, k.eu);
  const Placed A{b.machine, kLane0, kOffA, k.a_prec, k.a_sign, kC, kH, kW};
  const Placed B{b.machine, kLane0, kOffB, simref::kI32, true, kC, 1, 3};
  const uint32_t rp = k.eu == 3 ? uint32_t{simref::kF32} : k.r_prec;
  const Placed R{b.machine, kLane0, kOffR, rp, k.r_sign, kC, kH, kW};
  std::vector<Params> ch(kC);
  if (k.b_const) {
    const Params p = draw_params(r, k);
    for (auto& q : ch) q = p;
  } else {
    for (uint32_t i = 0; i < kC; ++i) {
      ch[i] = draw_params(r, k);
      const Params& p = ch[i];
      int32_t w[3];
      if (k.eu == 0) { w[0] = std::bit_cast<int32_t>(p.scale_f); w[1] = std::bit_cast<int32_t>(p.zp_f); w[2] = 0x5555; }
      else if (k.eu == 1) { w[0] = static_cast<int32_t>(p.scale); w[1] = static_cast<int32_t>(p.shift); w[2] = static_cast<int32_t>(p.zp); }
      else { w[0] = static_cast<int32_t>(p.zp); w[1] = static_cast<int32_t>(p.scale); w[2] = static_cast<int32_t>(p.shift); }
      for (uint32_t j = 0; j < 3; ++j) std::memcpy(B.at(0, i, 0, j), &w[j], 4);
    }
  }
  uint32_t opd1 = (kLane0 << 18) | kOffB, opd2 = 0;
  if (k.b_const) {
    const Params& p = ch[0];
    if (k.eu == 0) { opd1 = std::bit_cast<uint32_t>(p.scale_f); opd2 = std::bit_cast<uint32_t>(p.zp_f); }
    else if (k.eu == 3) { opd1 = std::bit_cast<uint32_t>(p.scale_f); opd2 = static_cast<uint32_t>(p.zp) & 0xFFFF; }
    else { opd1 = static_cast<uint32_t>(p.scale); opd2 = (static_cast<uint32_t>(p.zp) << 16) | (static_cast<uint32_t>(p.shift) & 0xFF); }
  }
  build(c.b, k, opd1, opd2);
  std::vector<int64_t> in;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ci = 0; ci < kC; ++ci)
      for (uint32_t x = 0; x < kW; ++x) {
        const int64_t a = draw_a(r, k.a_prec, k.a_sign);
        in.push_back(a);
        std::memcpy(A.at(n, ci, 0, x), &a, simref::esize(k.a_prec));
        const uint32_t junk = 0xDEADBEEF;
        std::memcpy(R.at(n, ci, 0, x), &junk, simref::esize(rp));
      }
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << name(k) << ": " << msg;
  size_t e = 0;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ci = 0; ci < kC; ++ci)
      for (uint32_t x = 0; x < kW; ++x, ++e) {
        const int64_t want = ref_element(k, ch[ci], in[e]);
        int64_t got = 0;
        std::memcpy(&got, R.at(n, ci, 0, x), simref::esize(rp));
        const uint32_t es = simref::esize(rp);
        const uint64_t mask = es == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * es)) - 1;
        EXPECT_EQ(static_cast<uint64_t>(got) & mask, static_cast<uint64_t>(want) & mask)
            << name(k) << " n " << n << " c " << ci << " w " << x << " A " << in[e] << " scale " << ch[ci].scale
            << "/" << ch[ci].scale_f << " shift " << ch[ci].shift << " zp " << ch[ci].zp << "/" << ch[ci].zp_f;
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

constexpr uint32_t kIntPrecs[] = {simref::kI8, simref::kI16, simref::kI32};

TEST(SimRqDq, Rq0EveryRoundModePairBitExact) {
  Bench b;
  Rng r{11};
  for (uint32_t ap : kIntPrecs)
    for (bool as : {true, false})
      for (uint32_t rp : {simref::kI8, simref::kI16})
        for (bool rs : {true, false})
          for (uint32_t i2f = 0; i2f <= 4; ++i2f)
            for (uint32_t f2i = 0; f2i <= 4; ++f2i) {
              const bool sym = (i2f + f2i) % 2 == 0, bc = f2i % 2 == 1, sf = (i2f % 2) == 1;
              run_case(b, RqCase{0, ap, as, rp, rs, sym, (f2i << 3) | i2f, bc, sf}, r);
            }
}

TEST(SimRqDq, Rq1AndDq1EveryShiftRoundModeBitExact) {
  Bench b;
  Rng r{22};
  for (uint32_t eu : {1u, 4u})
    for (uint32_t ap : kIntPrecs) {
      if (eu == 4 && ap == simref::kI32) continue;  // dequantise takes int8 / int16
      for (bool as : {true, false})
        for (uint32_t rp : kIntPrecs) {
          if (eu == 1 && rp == simref::kI32) continue;
          for (bool rs : {true, false})
            for (uint32_t rd = 0; rd <= 6; ++rd)
              for (bool sym : {false, true})
                for (bool bc : {false, true}) run_case(b, RqCase{eu, ap, as, rp, rs, sym, rd, bc, (rd + bc) % 2 == 1}, r);
        }
    }
}

TEST(SimRqDq, Dq0ConstantsBitExact) {
  Bench b;
  Rng r{33};
  for (uint32_t ap : {simref::kI8, simref::kI16})
    for (bool as : {true, false})
      for (uint32_t i2f = 0; i2f <= 4; ++i2f)
        for (bool sf : {false, true}) run_case(b, RqCase{3, ap, as, simref::kF32, true, false, i2f, true, sf}, r);
}

// Hand cases: every shift round mode on +-2.5 and +-2.25, sym_range, shifts of 63 and more.
TEST(SimRqDq, HandCasesTiesSymRangeAndLongShifts) {
  Bench b;
  struct Hand { int64_t a; int64_t scale; int shift; uint32_t mode; bool sym; int64_t want; };
  const Hand hs[] = {
      {5, 1, -1, 0, false, 2},   {5, 1, -1, 1, false, 3},   {5, 1, -1, 2, false, 2},  {5, 1, -1, 3, false, 2},
      {5, 1, -1, 4, false, 3},   {5, 1, -1, 5, false, 3},   {5, 1, -1, 6, false, 2},  {-5, 1, -1, 0, false, -2},
      {-5, 1, -1, 1, false, -3}, {-5, 1, -1, 2, false, -2}, {-5, 1, -1, 3, false, -3}, {-5, 1, -1, 4, false, -2},
      {-5, 1, -1, 5, false, -2}, {-5, 1, -1, 6, false, -3}, {7, 1, -1, 0, false, 4},  {-9, 1, -2, 0, false, -2},
      {-1000, 1, 0, 0, false, -128}, {-1000, 1, 0, 0, true, -127}, {1000, 1, 0, 0, true, 127},
      {3, 1, 5, 0, false, 96},   {3, 1, 6, 0, false, 127},  // left shifts, the second saturates
  };
  for (const Hand& h : hs) {
    Cmd c(CmdClass::RQ_DQ, 1);
    build(c.b, RqCase{1, simref::kI16, true, simref::kI8, true, h.sym, h.mode, true, false},
          static_cast<uint32_t>(h.scale), static_cast<uint32_t>(h.shift) & 0xFF);
    const Placed A{b.machine, kLane0, kOffA, simref::kI16, true, kC, kH, kW};
    const Placed R{b.machine, kLane0, kOffR, simref::kI8, true, kC, kH, kW};
    for (uint32_t n = 0; n < kN; ++n)
      for (uint32_t ci = 0; ci < kC; ++ci)
        for (uint32_t x = 0; x < kW; ++x) simref::put(A.at(n, ci, 0, x), simref::kI16, true, static_cast<double>(h.a));
    std::string msg;
    ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
    EXPECT_EQ(static_cast<int8_t>(*R.at(1, 5, 0, 6)), h.want) << h.a << " " << h.shift << " mode " << h.mode;
  }
  // Shifts of 63 and more from a parameter tensor (int32 shift): INT32_MAX * INT32_MAX is
  // about 2^62, so >> 63 is a little under one half and >> 64 under a quarter.
  struct Long { int shift; uint32_t mode; int64_t want; };
  const Long ls[] = {{-63, 0, 0}, {-63, 4, 1}, {-63, 3, 0}, {-64, 4, 1}, {-64, 1, 0}, {-100, 4, 1}, {-100, 2, 0}};
  for (const Long& l : ls) {
    Cmd c(CmdClass::RQ_DQ, 1);
    build(c.b, RqCase{1, simref::kI32, true, simref::kI16, true, false, l.mode, false, false}, (kLane0 << 18) | kOffB, 0);
    const Placed A{b.machine, kLane0, kOffA, simref::kI32, true, kC, kH, kW};
    const Placed B{b.machine, kLane0, kOffB, simref::kI32, true, kC, 1, 3};
    const Placed R{b.machine, kLane0, kOffR, simref::kI16, true, kC, kH, kW};
    for (uint32_t ci = 0; ci < kC; ++ci) {
      const int32_t w[3] = {INT32_MAX, l.shift, 0};
      for (uint32_t j = 0; j < 3; ++j) std::memcpy(B.at(0, ci, 0, j), &w[j], 4);
      for (uint32_t n = 0; n < kN; ++n)
        for (uint32_t x = 0; x < kW; ++x) simref::put(A.at(n, ci, 0, x), simref::kI32, true, INT32_MAX);
    }
    std::string msg;
    ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
    int16_t got;
    std::memcpy(&got, R.at(0, 3, 0, 2), 2);
    EXPECT_EQ(got, l.want) << l.shift << " mode " << l.mode;
  }
}

TEST(SimRqDq, WhatStaysRefusedIsNamed) {
  Bench b;
  struct Bad { RqCase k; const char* needle; };
  const Bad bad[] = {
      {{3, simref::kI8, true, simref::kF32, true, false, 0, false, false}, "(dq0) with a parameter tensor"},
      {{3, simref::kI8, true, simref::kI8, true, false, 0, true, false}, "(dq0): res0 precision"},
      {{0, simref::kF16, true, simref::kI8, true, false, 0, true, false}, "opd0 precision"},
      {{0, 6, true, simref::kI8, true, false, 0, true, true}, "opd0 precision"},  // INT4
      {{1, simref::kI8, true, 6, true, false, 0, true, false}, "res0 precision"},
      {{0, simref::kI8, true, simref::kI8, true, false, 5, true, false}, "(rq0): round modes 5"},
      {{1, simref::kI8, true, simref::kI8, true, false, 7, true, false}, "shift round mode 7"},
      {{4, simref::kI32, true, simref::kI8, true, false, 0, true, false}, "INT32 opd0"},
  };
  for (const Bad& x : bad) {
    Cmd c(x.k.shortf ? CmdClass::sRQ_sDQ : CmdClass::RQ_DQ, x.k.eu);
    build(c.b, x.k, 0, 0);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op) << x.needle;
    EXPECT_NE(msg.find(x.needle), std::string::npos) << msg;
  }
}

// Timing: the AR body + 10 (the assumption of section 12), eu by the wider of opd0 and res0:
// int16 -> 32 per lane; n * ceil(c/64) * ceil(h*w/32) = 2 * 1 * 1 -> 2 + 10.
TEST(SimRqDq, CostIsTheArBodyPlusTen) {
  for (bool sf : {false, true}) {
    Cmd c(sf ? CmdClass::sRQ_sDQ : CmdClass::RQ_DQ, 1);
    build(c.b, RqCase{1, simref::kI16, true, simref::kI8, true, false, 0, true, sf}, 1, 0);
    uint64_t cycles = 0, bytes = 0, ops = 0;
    EXPECT_TRUE(sim::command_cost(0, c.b, cycles, bytes, ops, sim::TimingModel::v1));
    EXPECT_EQ(cycles, 12u);
    EXPECT_EQ(ops, uint64_t{kN} * kC * kH * kW);
    EXPECT_EQ(bytes, ops * 1);
  }
}

// The hazard checker sees the parameter tensor: rq1 logs B's three words of the first channel
// (lane 60) as reads, A as read and res0 as written.
TEST(SimRqDq, AccessLogHasTheParameterTensor) {
  Bench b;
  Cmd c(CmdClass::RQ_DQ, 1);
  build(c.b, RqCase{1, simref::kI16, true, simref::kI8, true, false, 0, false, false}, (kLane0 << 18) | kOffB, 0);
  sim::AccessLog log;
  std::string msg;
  ASSERT_EQ(sim::execute_command(b.machine, 0, sim::kTiu, c.b, msg, &log), Status::ok) << msg;
  EXPECT_TRUE(covered(log.reads(), lane_addr(kLane0, kOffB), lane_addr(kLane0, kOffB) + 12));
  EXPECT_TRUE(covered(log.reads(), lane_addr(kLane0, kOffA), lane_addr(kLane0, kOffA) + 2 * kW));
  EXPECT_TRUE(covered(log.writes(), lane_addr(kLane0, kOffR), lane_addr(kLane0, kOffR) + kW));
}

}  // namespace
