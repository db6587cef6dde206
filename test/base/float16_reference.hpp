// Independent bit-level reference for float -> half / bf16 in both rounding modes, shared by
// test_float16.cpp (structured and random coverage) and test_float16_exhaustive.cpp (all 2^32).
#pragma once

#include <bit>
#include <cstdint>

#include "tilefw/base/float16.hpp"

namespace float16_reference {

using tilefw::RoundMode;

// Rounds a float to `mant_bits` of mantissa by exact integer arithmetic on the value
// (sig * 2^e), not on the encoding as the library does, then builds the narrow encoding of a
// format with `exp_bits` exponent bits (bias 2^(exp_bits-1) - 1). NaN: quiet bit set, top
// payload bits kept.
inline uint32_t reference_narrow(uint32_t f, int exp_bits, int mant_bits, RoundMode mode) {
  const uint32_t sign = f >> 31;
  const int total = 1 + exp_bits + mant_bits;
  const uint32_t sign_out = sign << (total - 1);
  const uint32_t exp_all = (1u << exp_bits) - 1;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t fexp = (f >> 23) & 0xFF;
  const uint32_t fman = f & 0x7FFFFF;
  if (fexp == 0xFF) {
    if (fman == 0) return sign_out | (exp_all << mant_bits);
    return sign_out | (exp_all << mant_bits) | (1u << (mant_bits - 1)) | (fman >> (23 - mant_bits));
  }
  if (fexp == 0 && fman == 0) return sign_out;
  // value = sig * 2^e with sig an integer
  uint64_t sig = fexp == 0 ? fman : (fman | 0x800000u);
  int e = fexp == 0 ? -149 : static_cast<int>(fexp) - 150;
  // target quantum: 2^q where q = max(exponent of value - mant_bits, 1 - bias - mant_bits)
  int msb = 63 - std::countl_zero(sig);
  int value_exp = msb + e;  // floor(log2 |value|)
  int q = value_exp - mant_bits;
  const int min_q = 1 - bias - mant_bits;
  if (q < min_q) q = min_q;
  // integer n = round(sig * 2^(e - q))
  uint64_t n;
  if (e >= q) {
    n = sig << (e - q);
  } else {
    const int sh = q - e;
    if (sh >= 64) {
      n = 0;
      // only matters for tiny values; treat as below half a quantum
    } else {
      const uint64_t kept = sig >> sh;
      const uint64_t rest = sig & ((uint64_t{1} << sh) - 1);
      const uint64_t halfway = uint64_t{1} << (sh - 1);
      bool up = mode == RoundMode::nearest_even ? (rest > halfway || (rest == halfway && (kept & 1)))
                                                : rest >= halfway;
      n = kept + (up ? 1 : 0);
    }
  }
  // encode n * 2^q
  if (n == 0) return sign_out;
  int nmsb = 63 - std::countl_zero(n);
  int exp_field;
  uint64_t mant;
  if (q == min_q && nmsb < mant_bits) {  // subnormal
    exp_field = 0;
    mant = n;
  } else {
    // normalise so that n has mant_bits+1 bits
    while (nmsb > mant_bits) {  // only after rounding carry: n = 2^(mant_bits+1)
      n >>= 1;
      ++q;
      --nmsb;
    }
    exp_field = q + mant_bits + bias;
    mant = n & ((uint64_t{1} << mant_bits) - 1);
  }
  if (exp_field >= static_cast<int>(exp_all)) return sign_out | (exp_all << mant_bits);
  return sign_out | (static_cast<uint32_t>(exp_field) << mant_bits) | static_cast<uint32_t>(mant);
}

inline uint16_t half_bits(uint32_t f, RoundMode mode) {
  return static_cast<uint16_t>(reference_narrow(f, 5, 10, mode));
}
inline uint16_t bf16_bits(uint32_t f, RoundMode mode) {
  return static_cast<uint16_t>(reference_narrow(f, 8, 7, mode));
}

}  // namespace float16_reference
