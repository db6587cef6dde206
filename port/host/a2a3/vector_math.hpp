// Arithmetic of the simulated a2a3 vector unit, per element type: f16 rounding and
// saturation, the binary/unary ops on f32, f16 (in double, rounded once) and integers, and the
// correctly rounded f32 transcendentals (docs/a2a3-vector-semantics.md section 6.2, Rule:
// correctly rounded transcendentals). Internal to port/host:
// included by the vector unit's sources only.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host::vector_model {

using desc::Mask128;

using desc::Mask128;

inline constexpr uint16_t kHalfQNaN = 0x7E00;
inline constexpr uint32_t kFloatQNaN = 0x7FC00000u;

// ---- f16 helpers -----------------------------------------------------------------------------
inline double h2d(uint16_t h) noexcept { return std::bit_cast<float>(half_bits_to_float_bits(h)); }

// Rounds a double to the nearest half (ties to even) in one step: scale so the half's quantum
// is 1, round to integer (exact in double), scale back; the result is a half value.
inline uint16_t d2h(double d) noexcept {
  if (std::isnan(d)) return kHalfQNaN;
  const double a = std::fabs(d);
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7C00);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the leading bit has weight 2^(e-1)
  int q = e - 1 - 10;
  if (q < -24) q = -24;  // subnormal quantum
  const double r = std::nearbyint(std::ldexp(a, -q));
  const float v = static_cast<float>(std::ldexp(r, q));  // exact: a half value
  return static_cast<uint16_t>(sign | float_bits_to_half_bits(std::bit_cast<uint32_t>(v)));
}

inline uint16_t sat_h(uint16_t h, bool saturate) noexcept {
  if (!saturate) return h;
  if ((h & 0x7FFFu) == 0x7C00u) return static_cast<uint16_t>((h & 0x8000u) | 0x7BFFu);
  if ((h & 0x7FFFu) > 0x7C00u) return 0;
  return h;
}

inline float canon(float r) noexcept { return r != r ? std::bit_cast<float>(kFloatQNaN) : r; }

// max/min with tilefw's rules: NaN wins, max(-0,+0) = +0, min(-0,+0) = -0.
template <class F>
inline F fmax_rule(F a, F b) noexcept {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class F>
inline F fmin_rule(F a, F b) noexcept {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// ---- per-dtype arithmetic --------------------------------------------------------------------
// The ops are the descriptor enums (the OP register's index field is their value); a scalar op
// is its binary op with a broadcast operand.
inline constexpr desc::BinaryOp kScalarToBinary[4] = {desc::BinaryOp::vadd, desc::BinaryOp::vmul,
                                                      desc::BinaryOp::vmax, desc::BinaryOp::vmin};

inline double bin_d(desc::BinaryOp op, double a, double b) noexcept {
  switch (op) {
    case desc::BinaryOp::vadd: return a + b;
    case desc::BinaryOp::vsub: return a - b;
    case desc::BinaryOp::vmul: return a * b;
    case desc::BinaryOp::vdiv: return a / b;
    case desc::BinaryOp::vmax: return fmax_rule(a, b);
    default: return fmin_rule(a, b);
  }
}
inline float bin_f(desc::BinaryOp op, float a, float b) noexcept {
  switch (op) {
    case desc::BinaryOp::vadd: return canon(a + b);
    case desc::BinaryOp::vsub: return canon(a - b);
    case desc::BinaryOp::vmul: return canon(a * b);
    case desc::BinaryOp::vdiv: return canon(a / b);
    case desc::BinaryOp::vmax: return canon(fmax_rule(a, b));
    default: return canon(fmin_rule(a, b));
  }
}
template <class I>
inline I bin_i(desc::BinaryOp op, I a, I b) noexcept {
  using U = std::make_unsigned_t<I>;
  switch (op) {
    case desc::BinaryOp::vadd: return static_cast<I>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case desc::BinaryOp::vsub: return static_cast<I>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    case desc::BinaryOp::vmul: return static_cast<I>(static_cast<U>(static_cast<uint32_t>(static_cast<U>(a)) *
                                                 static_cast<uint32_t>(static_cast<U>(b))));
    case desc::BinaryOp::vmax: return a > b ? a : b;
    case desc::BinaryOp::vmin: return a < b ? a : b;
    default: return 0;  // vdiv has no integer form (validation rejects it)
  }
}
inline double un_d(desc::UnaryOp op, double x) noexcept {
  switch (op) {
    case desc::UnaryOp::vabs: return std::fabs(x);
    case desc::UnaryOp::vexp: return std::exp(x);
    case desc::UnaryOp::vln: return std::log(x);
    case desc::UnaryOp::vsqrt: return std::sqrt(x);
    case desc::UnaryOp::vrsqrt: return 1.0 / std::sqrt(x);
    case desc::UnaryOp::vrec: return 1.0 / x;
    default: return x != x ? x : (x > 0 ? x : 0.0);
  }
}
// ---- f32 transcendentals, correctly rounded (Rule: correctly rounded transcendentals) ---------
// (float)exp((double)x) is not: rounding twice misrounds inputs whose exact value lies within
// ~2^-53 (relative) of a binary32 midpoint, e.g. ln(0x1.827a74p-7). exp and ln are therefore
// evaluated once in long double (64-bit significand on x86-64, glibc expl/logl within a few
// 2^-64) and rounded once. binary32 exp/ln have no input whose exact value lies within 2^-58 of a
// midpoint: an exhaustive run over all 2^32 inputs, deciding every input that close with a
// binary128 evaluation, found none, so one rounding of the long double value is exact.
// test/sim/a2a3/test_vector_cr.cpp re-checks binades and a random sample on every build.
static_assert(std::numeric_limits<long double>::digits >= 64, "f32 exp/ln need an extended long double");

__extension__ typedef unsigned __int128 U128;

// Sign of x*m*m - 1 for finite x > 0 and m > 0 with at most 26 significant bits, exactly:
// x = X*2^a (X < 2^24), m = M*2^b (M < 2^26), so X*M*M < 2^76 is an exact integer.
inline int sign_x_m2_minus_1(float x, double m) noexcept {
  int a = 0, b = 0;
  const auto X = static_cast<uint64_t>(std::ldexp(std::frexp(static_cast<double>(x), &a), 24));
  const auto M = static_cast<uint64_t>(std::ldexp(std::frexp(m, &b), 26));
  const U128 p = U128{X} * M * M;
  const int s = (a - 24) + 2 * (b - 26);  // x*m*m = p * 2^s
  if (s >= 0) return p == 1 && s == 0 ? 0 : 1;
  if (-s >= 128) return -1;
  const U128 one = U128{1} << -s;
  return p < one ? -1 : (p > one ? 1 : 0);
}

// 1/sqrt(x): its exact values come nearer to binary32 midpoints (down to ~2^-75 relative) than
// long double resolves, so the long double candidate y is checked against the midpoints to its
// neighbours exactly: 1/sqrt(x) > m <=> x*m*m < 1 (equality is impossible: a midpoint's square
// times x is never 1). The candidate is off by at most one ulp.
inline float rsqrt_f32(float x) noexcept {
  if (!(x > 0.0f) || std::isinf(x)) return canon(1.0f / std::sqrt(x));  // +-0, <0, NaN, inf: exact IEEE
  float y = static_cast<float>(1.0L / std::sqrt(static_cast<long double>(x)));
  const float up = std::nextafter(y, std::numeric_limits<float>::infinity());
  if (sign_x_m2_minus_1(x, (static_cast<double>(y) + static_cast<double>(up)) / 2) < 0) return up;
  const float dn = std::nextafter(y, 0.0f);
  if (sign_x_m2_minus_1(x, (static_cast<double>(y) + static_cast<double>(dn)) / 2) > 0) return dn;
  return y;
}

inline float un_f(desc::UnaryOp op, float x) noexcept {
  switch (op) {
    case desc::UnaryOp::vabs: return canon(std::fabs(x));
    case desc::UnaryOp::vexp: return canon(static_cast<float>(std::exp(static_cast<long double>(x))));
    case desc::UnaryOp::vln: return canon(static_cast<float>(std::log(static_cast<long double>(x))));
    case desc::UnaryOp::vsqrt: return canon(std::sqrt(x));  // IEEE sqrt, reciprocal and division are correctly rounded
    case desc::UnaryOp::vrsqrt: return rsqrt_f32(x);
    case desc::UnaryOp::vrec: return canon(1.0f / x);
    default: return canon(x != x ? x : (x > 0 ? x : 0.0f));
  }
}


}  // namespace tilefw::port::host::vector_model
