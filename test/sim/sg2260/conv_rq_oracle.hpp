// Independent oracle for the requantising CONV's result step, written from the documented
// facts (the vendor compiler's packing of the parameters and its reference model's order of
// steps) and sharing no code with the simulator: the integer path divides by 2^n with an
// explicit floor and compares twice the remainder with the divisor; the FP8 path clamps to
// the format's largest finite value found by scanning the 256 codes.
#pragma once

#include <cmath>
#include <cstdint>

#include "plain_reference.hpp"

namespace rqref {

__extension__ typedef __int128 Int128;  // exact products (a GCC / Clang extension)

// q = v / 2^n rounded by mode (0 half even, 1 half away, 2 toward zero, 3 down, 4 up,
// 5 half up, 6 half down), for |v| < 2^95 and n >= 0.
inline Int128 div_pow2(Int128 v, int n, int mode) {
  if (n == 0) return v;
  if (n > 110) n = 110;  // |v / 2^n| < 2^-15 from n = 110 on: every mode gives the same
  const Int128 d = static_cast<Int128>(1) << n;
  Int128 q = v / d, r = v % d;  // C++ truncates toward zero
  if (r < 0) { q -= 1; r += d; }  // floor and a remainder in [0, d)
  const Int128 twice = 2 * r;
  const bool above = twice > d, at = twice == d, inexact = r != 0;
  switch (mode) {
    case 0: return above || (at && (q % 2 != 0)) ? q + 1 : q;
    case 1: return above || (at && v > 0) ? q + 1 : q;
    case 2: return inexact && v < 0 ? q + 1 : q;
    case 3: return q;
    case 4: return inexact ? q + 1 : q;
    case 5: return above || at ? q + 1 : q;
    default: return above ? q + 1 : q;
  }
}

struct IntParams {
  int32_t multiplier;
  int8_t shift;  // > 0 left, < 0 right
  int16_t zp;
};

// One integer result: sum (kernel minus its zero point) plus bias, times the multiplier,
// shifted, relu, plus the output zero point, saturated (sym: -max .. max when signed).
inline int64_t int_result(int64_t sum_plus_bias, const IntParams& p, int mode, bool relu, int bits, bool sign,
                          bool sym) {
  Int128 v = static_cast<Int128>(sum_plus_bias) * p.multiplier;
  if (p.shift >= 0) {
    for (int i = 0; i < p.shift; ++i) {
      v *= 2;
      if (v > (static_cast<Int128>(1) << 110) || v < -(static_cast<Int128>(1) << 110)) break;
    }
  } else {
    v = div_pow2(v, -p.shift, mode);
  }
  if (relu && v < 0) v = 0;
  v += p.zp;
  const Int128 hi = sign ? (static_cast<Int128>(1) << (bits - 1)) - 1 : (static_cast<Int128>(1) << bits) - 1;
  const Int128 lo = sign ? (sym ? -hi : -hi - 1) : 0;
  if (v > hi) v = hi;
  if (v < lo) v = lo;
  return static_cast<int64_t>(v);
}

// The largest finite FP8 value, by scanning the codes.
inline double fp8_top(bool e4m3) {
  double top = 0;
  for (int c = 0; c < 256; ++c) {
    const double x = simref::fp8_value(static_cast<uint8_t>(c), e4m3);
    if (std::isfinite(x) && x > top) top = x;
  }
  return top;
}

// The FP8 code of an FP32 value, saturating: beyond the top (infinities too) the top, with
// the value's sign; NaN stays NaN.
inline uint8_t fp8_saturating(float v, bool e4m3) {
  const double top = fp8_top(e4m3);
  double d = v;
  if (d > top) d = top;
  if (d < -top) d = -top;
  return simref::fp8_code(d, e4m3);
}

}  // namespace rqref
