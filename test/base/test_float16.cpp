// half / bf16 conversions: spot values with known bit patterns (IEEE binary16, bfloat16),
// both rounding modes, and an independent bit-level reference for bf16 and half-away.
#include <bit>
#include <cstdint>
#include <initializer_list>

#include "tftest.hpp"
#include "tilefw/base/float16.hpp"

using tilefw::RoundMode;
using tilefw::bf16_bits_to_float_bits;
using tilefw::float_bits_to_bf16_bits;
using tilefw::float_bits_to_half_bits;
using tilefw::half_bits_to_float_bits;

namespace {

constexpr uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// Independent reference: round a float to `mant_bits` of mantissa by exact integer
// arithmetic on the value (not on the encoding), then build the narrow encoding.
// Works for formats with exponent bias `bias` and `exp_bits` exponent bits.
uint32_t reference_narrow(uint32_t f, int exp_bits, int mant_bits, RoundMode mode) {
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

// xorshift: deterministic pseudo-random float bit patterns.
uint32_t next(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

}  // namespace

TEST(Half, KnownPatterns) {
  EXPECT_EQ(float_bits_to_half_bits(bits(1.0f)), 0x3C00u);
  EXPECT_EQ(float_bits_to_half_bits(bits(-2.0f)), 0xC000u);
  EXPECT_EQ(float_bits_to_half_bits(bits(65504.0f)), 0x7BFFu);
  EXPECT_EQ(float_bits_to_half_bits(bits(65519.0f)), 0x7BFFu);      // below the tie
  EXPECT_EQ(float_bits_to_half_bits(bits(65520.0f)), 0x7C00u);      // tie rounds to even = inf
  EXPECT_EQ(float_bits_to_half_bits(bits(0x1p-24f)), 0x0001u);      // smallest subnormal
  EXPECT_EQ(float_bits_to_half_bits(bits(0x1p-25f)), 0x0000u);      // tie to even: zero
  EXPECT_EQ(float_bits_to_half_bits(bits(0x1.8p-25f)), 0x0001u);    // above the tie
  EXPECT_EQ(float_bits_to_half_bits(bits(0x1p-14f)), 0x0400u);      // smallest normal
  EXPECT_EQ(float_bits_to_half_bits(bits(2.71875f)), 0x4170u);      // exp(1) in fp16, doc example
  EXPECT_EQ(float_bits_to_half_bits(0x7F800001u), 0x7E00u);         // sNaN -> quiet NaN
  EXPECT_EQ(float_bits_to_half_bits(0xFF800000u), 0xFC00u);         // -inf
  EXPECT_EQ(float_bits_to_half_bits(bits(-0.0f)), 0x8000u);
  // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: even (1) vs away (1 + 2^-10).
  EXPECT_EQ(float_bits_to_half_bits(bits(1.0f + 0x1p-11f)), 0x3C00u);
  EXPECT_EQ(float_bits_to_half_bits(bits(1.0f + 0x1p-11f), RoundMode::half_away_from_zero), 0x3C01u);
  EXPECT_EQ(float_bits_to_half_bits(bits(-1.0f - 0x1p-11f), RoundMode::half_away_from_zero), 0xBC01u);
  EXPECT_EQ(float_bits_to_half_bits(bits(65520.0f), RoundMode::half_away_from_zero), 0x7C00u);
  EXPECT_EQ(float_bits_to_half_bits(bits(0x1p-25f), RoundMode::half_away_from_zero), 0x0001u);
}

TEST(Half, ToFloatIsExact) {
  EXPECT_EQ(half_bits_to_float_bits(0x3C00u), bits(1.0f));
  EXPECT_EQ(half_bits_to_float_bits(0x0001u), bits(0x1p-24f));
  EXPECT_EQ(half_bits_to_float_bits(0x03FFu), bits(0x1.ff8p-15f));
  EXPECT_EQ(half_bits_to_float_bits(0x7BFFu), bits(65504.0f));
  EXPECT_EQ(half_bits_to_float_bits(0xFC00u), 0xFF800000u);
  EXPECT_EQ(half_bits_to_float_bits(0x7C01u), 0x7FC02000u);  // NaN quieted, payload kept
  // Round trip: every non-NaN half survives half -> float -> half.
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0) continue;
    if (float_bits_to_half_bits(half_bits_to_float_bits(static_cast<uint16_t>(h))) != h) {
      EXPECT_EQ(float_bits_to_half_bits(half_bits_to_float_bits(static_cast<uint16_t>(h))), h);
      break;
    }
  }
}

TEST(Half, MatchesBitLevelReferenceBothModes) {
  uint32_t s = 0x12345678u;
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    uint32_t f = next(s);
    if (i % 4 == 1) f = (f & 0x8000FFFFu) | (0x33u + (f >> 16) % 0x15u) << 23;  // near half range
    for (RoundMode mode : {RoundMode::nearest_even, RoundMode::half_away_from_zero}) {
      if (float_bits_to_half_bits(f, mode) != reference_narrow(f, 5, 10, mode)) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Bf16, KnownPatterns) {
  EXPECT_EQ(float_bits_to_bf16_bits(bits(1.0f)), 0x3F80u);
  EXPECT_EQ(float_bits_to_bf16_bits(0x3F808000u), 0x3F80u);  // tie, even stays
  EXPECT_EQ(float_bits_to_bf16_bits(0x3F818000u), 0x3F82u);  // tie, odd rounds up
  EXPECT_EQ(float_bits_to_bf16_bits(0x3F808000u, RoundMode::half_away_from_zero), 0x3F81u);
  EXPECT_EQ(float_bits_to_bf16_bits(0xBF808000u, RoundMode::half_away_from_zero), 0xBF81u);
  EXPECT_EQ(float_bits_to_bf16_bits(0x7F7FFFFFu), 0x7F80u);  // rounds up to inf
  EXPECT_EQ(float_bits_to_bf16_bits(0x7F800001u), 0x7FC0u);  // sNaN -> quiet NaN
  EXPECT_EQ(float_bits_to_bf16_bits(0x00008000u), 0x0000u);  // subnormal tie to even
  EXPECT_EQ(float_bits_to_bf16_bits(0x00018000u), 0x0002u);
  EXPECT_EQ(bf16_bits_to_float_bits(0x3F80u), bits(1.0f));
}

TEST(Bf16, MatchesBitLevelReferenceBothModes) {
  uint32_t s = 0x9E3779B9u;
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    uint32_t f = next(s);
    if (i % 3 == 0) f = (f & 0xFFFF0000u) | 0x8000u;  // exact ties
    if (i % 7 == 0) f &= 0x807FFFFFu;               // subnormals
    for (RoundMode mode : {RoundMode::nearest_even, RoundMode::half_away_from_zero}) {
      if (float_bits_to_bf16_bits(f, mode) != reference_narrow(f, 8, 7, mode)) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Float16, Constexpr) {
  static_assert(tilefw::to_half(1.5f).bits == 0x3E00u);
  static_assert(tilefw::to_float(tilefw::half{0x3E00u}) == 1.5f);
  static_assert(tilefw::to_bf16(-2.0f).bits == 0xC000u);
  EXPECT_TRUE(true);
}
