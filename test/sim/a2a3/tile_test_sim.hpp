// Shared helpers of the bit-exact tile tests (host only): the simulated core of core_sim.hpp
// with a recorder of the vector issues it takes, tile shorthands, and scalar reference
// arithmetic written independently of the simulator (long double, explicit rounding to half /
// bf16 / int32).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core_sim.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/instr.hpp"

namespace tile_test {

using namespace tilefw;
namespace a2a3 = tilefw::chip::a2a3;

// ---- the simulated core ---------------------------------------------------------------------
/// One vector issue as the unit's registers held it when its doorbell rang.
struct VecIssue {
  uint32_t op = 0;
  uint32_t repeat = 0;
  uint64_t ctrl = 0;
  uint64_t mask_hi = 0, mask_lo = 0;
  uint32_t dst = 0, src0 = 0, src1 = 0;
  uint32_t dst_stride = 0, src0_stride = 0, src1_stride = 0;  // [15:0] block, [31:16] repeat
  bool counter() const { return (ctrl & a2a3::vreg::kCtrlCounterMode) != 0; }
};

/// The shared core (core_sim.hpp) plus a recorder of the vector issues it takes.
struct Sim : CoreSim {
  std::vector<VecIssue> issues;

  explicit Sim(uint32_t profile = port::host::kProfileA2a3) : CoreSim(profile) {
    // Registered after the vector unit's hook, so it sees the registers of the issue just run.
    const uint64_t b = a2a3::kVectorUnitRegisters.base;
    m.on_write(b + a2a3::vreg::kDoorbell, [this, b](uint64_t, uint64_t v) {
      if ((v & 1u) == 0) return;
      VecIssue i;
      i.op = m.read32(b + a2a3::vreg::kOp);
      i.repeat = m.read32(b + a2a3::vreg::kRepeat);
      i.ctrl = m.read64(b + a2a3::vreg::kCtrl);
      i.mask_hi = m.read64(b + a2a3::vreg::kMaskHi);
      i.mask_lo = m.read64(b + a2a3::vreg::kMaskLo);
      i.dst = m.read32(b + a2a3::vreg::kDstAddr);
      i.src0 = m.read32(b + a2a3::vreg::kSrc0Addr);
      i.src1 = m.read32(b + a2a3::vreg::kSrc1Addr);
      i.dst_stride = m.read32(b + a2a3::vreg::kDstStride);
      i.src0_stride = m.read32(b + a2a3::vreg::kSrc0Stride);
      i.src1_stride = m.read32(b + a2a3::vreg::kSrc1Stride);
      issues.push_back(i);
    });
  }

  const std::vector<port::host::Hazard>& hazards() { return core_model.pipes().hazards(); }
  uint64_t hazard_count() { return core_model.pipes().hazard_count(); }
  uint32_t vector_issues() { return core_model.pipes().count(tile::Pipe::V); }
  std::string last_failure() const {
    return std::string(status_name(core.last_report.status)) + " field=" + core.last_report.field;
  }
};

// ---- tiles ---------------------------------------------------------------------------------
/// A vector tile with a dynamic valid region.
template <class T, int R, int C, BLayout L = BLayout::RowMajor>
using VTile = Tile<TileType::Vec, T, R, C, L, DYNAMIC, DYNAMIC>;

/// `n` bytes rounded up to whole 32 B blocks (where the tests place the next tile).
constexpr uint32_t align32(uint64_t n) { return static_cast<uint32_t>((n + 31) / 32 * 32); }

// ---- planner refusals --------------------------------------------------------------------
/// Plans `r` expecting the refusal `want` naming `field`; returns the segments the refused plan
/// holds (for the tests that also expect none).
inline uint32_t expect_refused(const plan::Request& r, Status want, const char* field) {
  plan::Plan p;
  desc::DescReport rep{};
  EXPECT_EQ(plan::plan_tile(r, p, &rep), want) << field;
  EXPECT_STREQ(rep.field, field);
  return p.segment_count();
}

// ---- raw element access --------------------------------------------------------------------
inline uint32_t load_bits(const uint8_t* base, uint64_t off, uint32_t elem) {
  uint32_t v = 0;
  std::memcpy(&v, base + off, elem);  // little endian: the low bytes
  return v;
}
inline void store_bits(uint8_t* base, uint64_t off, uint32_t elem, uint32_t v) {
  std::memcpy(base + off, &v, elem);
}

// ---- reference numerics (independent of the simulator) --------------------------------------
inline constexpr uint32_t kF32NaN = 0x7FC00000u;
inline constexpr uint16_t kF16NaN = 0x7E00u;
inline constexpr uint16_t kBf16NaN = 0x7FC0u;

inline float f32_of(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
/// f32 result bits with NaN canonical (the simulator's documented rule).
inline uint32_t f32_bits(float f) { return f != f ? kF32NaN : bits_of(f); }

/// binary16 bits -> exact value.
inline long double h2ld(uint16_t h) {
  const int e = (h >> 10) & 31;
  const int m = h & 1023;
  long double v;
  if (e == 31) v = m != 0 ? std::nanl("") : HUGE_VALL;
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), -24);
  else v = std::ldexp(static_cast<long double>(1024 + m), e - 25);
  return (h & 0x8000u) != 0 ? -v : v;
}

/// Rounding directions of a conversion to half (vconv RoundMode, plus nearest-even).
enum class Rnd { even, away, floor, ceil, trunc, odd };

/// Rounds an exact value to binary16 in direction `d`: the value is put on the half grid
/// (quantum 2^(exponent - 10), at least 2^-24), rounded to an integer significand, then encoded.
/// Overflow: nearest modes give inf; directed and odd modes give max finite or inf by direction.
inline uint16_t ld2h(long double x, Rnd d = Rnd::even) {
  if (x != x) return kF16NaN;
  const bool neg = std::signbit(x);
  const uint16_t sign = neg ? 0x8000u : 0u;
  const long double a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7C00u;
  int e = 0;
  (void)std::frexp(a, &e);
  int q = e - 1 - 10;
  if (q < -24) q = -24;
  const long double s = std::ldexp(a, -q);
  const long double fl = std::floor(s);
  const long double frac = s - fl;
  const bool fl_odd = std::fmod(fl, 2.0L) != 0;
  bool up = false;
  switch (d) {
    case Rnd::even: up = frac > 0.5L || (frac == 0.5L && fl_odd); break;
    case Rnd::away: up = frac >= 0.5L; break;
    case Rnd::floor: up = neg && frac > 0; break;
    case Rnd::ceil: up = !neg && frac > 0; break;
    case Rnd::trunc: up = false; break;
    case Rnd::odd: up = frac > 0 && !fl_odd; break;
  }
  uint32_t r = static_cast<uint32_t>(fl) + (up ? 1u : 0u);
  if (r == 2048) {
    r = 1024;
    ++q;
  }
  uint32_t bits = r < 1024 ? r : (static_cast<uint32_t>(q + 25) << 10) | (r - 1024);
  if (r >= 1024 && q + 25 >= 31) {  // overflow
    const bool to_inf = d == Rnd::even || d == Rnd::away || (d == Rnd::floor && neg) || (d == Rnd::ceil && !neg);
    bits = to_inf ? 0x7C00u : 0x7BFFu;
  }
  return static_cast<uint16_t>(sign | bits);
}

/// f32 -> bf16, nearest even (the classic bias trick), NaN canonical.
inline uint16_t f32_to_bf16(uint32_t u) {
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return kBf16NaN;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/// tilefw's max/min rules: NaN wins, max(-0, +0) = +0, min(-0, +0) = -0.
template <class F>
F ref_max(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class F>
F ref_min(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// Value generator: mostly moderate values (exact arithmetic stays interesting), some specials
/// (+-0, +-inf, NaN, subnormals, extremes) and some random bit patterns.
inline uint32_t gen_f32(Rng& r) {
  const uint32_t k = r.next() % 32;
  if (k == 0) {
    static constexpr uint32_t kSpecial[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                            0xFFC00001u, 0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu,
                                            0x3F800000u, 0xBF800000u};
    return kSpecial[r.next() % (sizeof kSpecial / sizeof kSpecial[0])];
  }
  if (k < 4) return r.next() << 16 ^ r.next();
  const float v = static_cast<float>(static_cast<int32_t>(r.next() % 20001) - 10000) / static_cast<float>(1u << (r.next() % 12));
  return bits_of(v);
}
inline uint16_t gen_f16(Rng& r) {
  const uint32_t k = r.next() % 32;
  if (k == 0) {
    static constexpr uint16_t kSpecial[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01,
                                            0x0001, 0x83FF, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00};
    return kSpecial[r.next() % (sizeof kSpecial / sizeof kSpecial[0])];
  }
  if (k < 4) return static_cast<uint16_t>(r.next());
  // Moderate: sign, exponent 2^-6 .. 2^7, random mantissa.
  const uint32_t e = 9 + r.next() % 14;
  return static_cast<uint16_t>((r.next() & 0x8000u) | (e << 10) | (r.next() & 0x3FFu));
}

}  // namespace tile_test
