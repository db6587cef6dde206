// Test-side reference for correctly rounded f16/f32 exp, ln and rsqrt, independent of the
// simulator: a double evaluation decides the result when a +-4 ulp window around it rounds to
// one value (glibc's exp/log are within 1 ulp), and otherwise binary128 series written here
// (about 110 correct bits, far below any binary32 hard case) decide it. rsqrt is two binary128
// Newton steps from the double estimate. Rounding is to nearest even with the format's
// subnormals and overflow. Host tests only (GCC/Clang __float128 on x86-64).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cr {

using Q = __float128;

struct Format {
  int precision;     // significand bits
  int min_quantum;   // exponent of the smallest subnormal
  double overflow;   // values >= this round to infinity
};
constexpr Format kF32{24, -149, 0x1.ffffffp127};
constexpr Format kF16{11, -24, 65520.0};

inline Q pow2(int k) {  // exact 2^k in binary128 (normal range), built from its bits
  const uint64_t w[2] = {0, static_cast<uint64_t>(k + 16383) << 48};  // little endian: low, high
  Q r;
  std::memcpy(&r, w, sizeof r);
  return r;
}

// Round a finite binary128 value to `f`, returned as the double holding the result (+-inf on
// overflow).
inline double round_to(Q q, const Format& f) {
  if (q == 0) return static_cast<double>(q);
  const bool neg = q < 0;
  if (neg) q = -q;
  int e = 0;
  std::frexp(static_cast<double>(q), &e);  // 2^(e-1) <= q < 2^e, up to the double rounding:
  if (q < pow2(e - 1)) --e;
  if (q >= pow2(e)) ++e;
  const int qe = e - f.precision > f.min_quantum ? e - f.precision : f.min_quantum;
  const Q n = q * pow2(-qe);  // < 2^precision + 1
  auto i = static_cast<int64_t>(n);
  const Q frac = n - static_cast<Q>(i);
  if (frac > Q(0.5) || (frac == Q(0.5) && (i & 1) != 0)) ++i;
  double r = std::ldexp(static_cast<double>(i), qe);
  if (r >= f.overflow) r = std::numeric_limits<double>::infinity();
  return neg ? -r : r;
}
inline double round_to(double d, const Format& f) {
  if (std::isnan(d) || std::isinf(d)) return d;
  if (f.precision == kF32.precision) return static_cast<float>(d);  // the FPU's own RN (and fast)
  return round_to(static_cast<Q>(d), f);
}

// ln 2 to binary128 precision: hi + lo, both doubles (106 bits, error < 2^-107).
inline Q ln2() { return Q(0x1.62e42fefa39efp-1) + Q(0x1.abc9e3b39803fp-56); }

inline Q exp_q(double x) {
  const int k = static_cast<int>(std::nearbyint(x / 0.6931471805599453));
  const Q r = Q(x) - Q(k) * ln2();  // |r| < 0.35
  Q term = 1, sum = 1;
  for (int n = 1; n < 40; ++n) {
    term = term * r / n;
    sum += term;
  }
  return sum * pow2(k);
}

inline Q log_q(double x) {  // x finite > 0
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.7071067811865476) {
    m *= 2;
    --e;
  }
  const Q s = (Q(m) - 1) / (Q(m) + 1);  // |s| < 0.172
  const Q s2 = s * s;
  Q p = s, sum = 0;
  for (int k = 0; k < 60; ++k) {
    sum += p / (2 * k + 1);
    p *= s2;
  }
  return Q(e) * ln2() + 2 * sum;
}

// The double approximant decides when its +-4 ulp window rounds to one value.
template <class Slow>
double decide(double approx, const Format& f, Slow slow) {
  double lo = approx, hi = approx;
  for (int i = 0; i < 4; ++i) {
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  const double a = round_to(lo, f), b = round_to(hi, f);
  if (a == b) return a;
  return round_to(slow(), f);
}

/// exp(x) rounded to f; x is a value of the format (exact in double).
inline double exp_rn(double x, const Format& f) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? x : 0.0;
  if (x > 100) return INFINITY;   // far beyond both formats' overflow
  if (x < -120) return 0.0;       // below half the smallest f32 subnormal
  return decide(std::exp(x), f, [x] { return exp_q(x); });
}
/// ln(x) rounded to f.
inline double log_rn(double x, const Format& f) {
  if (std::isnan(x) || x < 0) return NAN;
  if (x == 0) return -INFINITY;
  if (std::isinf(x)) return x;
  if (x == 1) return 0.0;
  return decide(std::log(x), f, [x] { return log_q(x); });
}
/// 1/sqrt(x) rounded to f.
inline double rsqrt_rn(double x, const Format& f) {
  if (std::isnan(x) || x < 0) return NAN;
  if (x == 0) return std::signbit(x) ? -INFINITY : INFINITY;
  if (std::isinf(x)) return 0.0;
  Q y = Q(1.0 / std::sqrt(x));
  for (int i = 0; i < 2; ++i) y += y * (1 - Q(x) * y * y) / 2;  // Newton: 2^-52 -> 2^-104 -> 2^-113
  return round_to(y, f);
}

}  // namespace cr
