// half / bf16 conversions: spot values with known bit patterns (IEEE binary16, bfloat16), and
// float -> half / bf16 in both rounding modes against the independent bit-level reference
// (float16_reference.hpp) over structured coverage (every exponent and sign, ties and near-ties
// at every rounding position, subnormals, NaN/inf, the overflow boundaries) and a random
// sample. Runs on host and QEMU; the 2^32 sweeps are in test_float16_exhaustive.cpp (host).
#include <bit>
#include <cstdint>
#include <initializer_list>

#include "float16_reference.hpp"
#include "tftest.hpp"
#include "tilefw/base/float16.hpp"

using tilefw::RoundMode;
using tilefw::bf16_bits_to_float_bits;
using tilefw::float_bits_to_bf16_bits;
using tilefw::float_bits_to_half_bits;
using tilefw::half_bits_to_float_bits;

namespace {

constexpr uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

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

// ---- against the reference ----------------------------------------------------------------

namespace {

constexpr RoundMode kModes[] = {RoundMode::nearest_even, RoundMode::half_away_from_zero};
constexpr uint32_t kNoMismatch = 0xFFFFFFFFu;  // not a pattern any check below reports

// Compares the library with the reference for one float in both modes and both formats;
// counts mismatches and keeps the first failing pattern.
struct Checker {
  uint32_t mismatches = 0;
  uint32_t first = kNoMismatch;
  uint32_t checked = 0;

  void check(uint32_t f) {
    for (RoundMode mode : kModes) {
      const bool ok = float_bits_to_half_bits(f, mode) == float16_reference::half_bits(f, mode) &&
                      float_bits_to_bf16_bits(f, mode) == float16_reference::bf16_bits(f, mode);
      if (!ok && mismatches++ == 0) first = f;
    }
    ++checked;
  }
};

// Every sign and exponent (0..255: zeros and subnormals, normals, inf and NaN), and for every
// count k = 1..23 of dropped mantissa bits (half drops 13 from normals and more for its
// subnormals, bf16 drops 16) the dropped field at 0, 1, just below, exactly at and just above
// the halfway point and all ones, with the lowest kept bit clear and set, and the higher kept
// bits all clear or all set.
void structured_sweep(Checker& c) {
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exp = 0; exp < 256; ++exp) {
      for (uint32_t k = 1; k <= 23; ++k) {
        const uint32_t halfway = 1u << (k - 1);
        const uint32_t low = (1u << k) - 1;
        const uint32_t high_mask = 0x7FFFFFu & ~((low << 1) | 1u);
        const uint32_t rests[] = {0, 1, halfway - 1, halfway, halfway + 1, low};
        const uint32_t highs[] = {0, high_mask};
        for (uint32_t rest : rests) {
          for (uint32_t kept_lsb = 0; kept_lsb < 2; ++kept_lsb) {
            for (uint32_t high : highs) {
              const uint32_t mant = (high | (kept_lsb << k) | (rest & low)) & 0x7FFFFFu;
              c.check((sign << 31) | (exp << 23) | mant);
            }
          }
        }
      }
    }
  }
}

// Every pattern in [center - radius, center + radius), both signs.
void range_sweep(Checker& c, uint32_t center, uint32_t radius) {
  for (uint32_t f = center - radius; f != center + radius; ++f) {
    c.check(f);
    c.check(f | 0x80000000u);
  }
}

// xorshift: deterministic pseudo-random float bit patterns.
uint32_t next(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

#if defined(TILEFW_TEST_MINITEST)
constexpr uint32_t kRandomSamples = 1u << 15;  // QEMU: seconds, not minutes
#else
constexpr uint32_t kRandomSamples = 1u << 22;
#endif

}  // namespace

// The reference itself, on hand-derived values, so a bug shared by library and reference
// cannot hide.
TEST(Float16Reference, KnownPatterns) {
  using float16_reference::bf16_bits;
  using float16_reference::half_bits;
  constexpr RoundMode kEven = RoundMode::nearest_even;
  constexpr RoundMode kAway = RoundMode::half_away_from_zero;
  EXPECT_EQ(half_bits(bits(1.0f), kEven), 0x3C00u);
  EXPECT_EQ(half_bits(bits(65519.0f), kEven), 0x7BFFu);
  EXPECT_EQ(half_bits(bits(65520.0f), kEven), 0x7C00u);
  EXPECT_EQ(half_bits(bits(65520.0f), kAway), 0x7C00u);
  EXPECT_EQ(half_bits(bits(0x1p-24f), kEven), 0x0001u);
  EXPECT_EQ(half_bits(bits(0x1p-25f), kEven), 0x0000u);
  EXPECT_EQ(half_bits(bits(0x1p-25f), kAway), 0x0001u);
  EXPECT_EQ(half_bits(bits(0x1.8p-25f), kEven), 0x0001u);
  EXPECT_EQ(half_bits(bits(0x1.ffcp-15f), kEven), 0x0400u);  // subnormal tie carries to normal
  EXPECT_EQ(half_bits(bits(1.0f + 0x1p-11f), kEven), 0x3C00u);
  EXPECT_EQ(half_bits(bits(1.0f + 0x1p-11f), kAway), 0x3C01u);
  EXPECT_EQ(half_bits(bits(-1.0f - 0x1p-11f), kAway), 0xBC01u);
  EXPECT_EQ(half_bits(0x7F800001u, kEven), 0x7E00u);
  EXPECT_EQ(half_bits(0xFF800000u, kAway), 0xFC00u);
  EXPECT_EQ(bf16_bits(0x3F808000u, kEven), 0x3F80u);
  EXPECT_EQ(bf16_bits(0x3F818000u, kEven), 0x3F82u);
  EXPECT_EQ(bf16_bits(0x3F808000u, kAway), 0x3F81u);
  EXPECT_EQ(bf16_bits(0x7F7FFFFFu, kEven), 0x7F80u);
  EXPECT_EQ(bf16_bits(0x7F7F7FFFu, kAway), 0x7F7Fu);
  EXPECT_EQ(bf16_bits(0x7F7F8000u, kAway), 0x7F80u);
  EXPECT_EQ(bf16_bits(0x00008000u, kEven), 0x0000u);
  EXPECT_EQ(bf16_bits(0x00008000u, kAway), 0x0001u);
  EXPECT_EQ(bf16_bits(0x7F800001u, kEven), 0x7FC0u);
}

TEST(Float16Reference, StructuredCoverageBothFormatsBothModes) {
  Checker c;
  structured_sweep(c);
  EXPECT_EQ(c.checked, 2u * 256u * 23u * 6u * 2u * 2u);
  EXPECT_EQ(c.first, kNoMismatch);
  EXPECT_EQ(c.mismatches, 0u);
}

// The overflow boundaries, pattern by pattern: half's largest finite value 65504 and the tie
// 65520 to infinity, bf16's largest finite value and its tie to infinity; and the smallest
// normals (the subnormal/normal seam of each format).
TEST(Float16Reference, BoundariesPatternByPattern) {
  Checker c;
  range_sweep(c, bits(65520.0f), 1u << 14);   // 65504 .. 65536 and beyond
  range_sweep(c, 0x7F7F8000u, 1u << 15);      // bf16: 0x7F7F (max finite) -> 0x7F80 (inf)
  range_sweep(c, bits(0x1p-14f), 1u << 14);   // half: smallest normal
  range_sweep(c, bits(0x1p-24f), 1u << 12);   // half: smallest subnormal
  range_sweep(c, 0x00800000u, 1u << 14);      // bf16: smallest normal
  EXPECT_EQ(c.first, kNoMismatch);
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(Float16Reference, RandomSampleBothFormatsBothModes) {
  Checker c;
  uint32_t s = 0x9E3779B9u;
  for (uint32_t i = 0; i < kRandomSamples; ++i) {
    uint32_t f = next(s);
    if (i % 4 == 1) f = (f & 0x8000FFFFu) | (0x33u + (f >> 16) % 0x15u) << 23;  // half's range
    if (i % 8 == 3) f = (f & 0xFFFF0000u) | 0x8000u;                           // bf16 ties
    if (i % 8 == 5) f = (f & 0xFFFFE000u) | 0x1000u;                           // half ties
    c.check(f);
  }
  EXPECT_EQ(c.first, kNoMismatch);
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(Float16, Constexpr) {
  static_assert(tilefw::to_half(1.5f).bits == 0x3E00u);
  static_assert(tilefw::to_float(tilefw::half{0x3E00u}) == 1.5f);
  static_assert(tilefw::to_bf16(-2.0f).bits == 0xC000u);
  EXPECT_TRUE(true);
}
