// Exhaustive float16 checks (host only): all 65536 half patterns to float against GCC's
// _Float16; float -> half over all 2^32 float patterns against _Float16 (nearest-even); and,
// since the compiler has no reference for them (GCC 12 has no __bf16 and no round-away mode),
// float -> half in both modes and float -> bf16 in both modes over all 2^32 patterns against
// the independent bit-level reference of float16_reference.hpp (the _Float16 sweep uses the
// compiler's F16C code where the CPU has it, see compiler_half_bits_f16c). Each sweep runs on two
// threads (the CI machine has 2 cores); -Dexhaustive=false (the sanitizer build) keeps every
// check but samples every 65537th pattern (about 65 k floats, every exponent).
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <thread>

#include "float16_reference.hpp"
#include "tilefw/base/float16.hpp"

namespace {

using tilefw::RoundMode;

uint16_t compiler_half_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

// GCC converts float to _Float16 with libgcc's soft-float routine (about 15 M/s: 240 s for the
// 2^32 sweep on two cores) unless F16C is enabled, then with one vcvtps2ph (about 7 s). Both
// are the compiler's conversion; the sweep uses the F16C code where the CPU has it, and a
// sampled test keeps the two compiler paths pinned to each other.
#if defined(__x86_64__) || defined(__i386__)
#define TILEFW_HAVE_F16C_PATH 1
[[gnu::target("f16c")]] uint16_t compiler_half_bits_f16c(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
bool cpu_has_f16c() { return __builtin_cpu_supports("f16c"); }
#else
#define TILEFW_HAVE_F16C_PATH 0
#endif

uint32_t compiler_float_bits(uint16_t hb) {
  _Float16 h;
  std::memcpy(&h, &hb, 2);
  return std::bit_cast<uint32_t>(static_cast<float>(h));
}

constexpr uint64_t kStride = TILEFW_EXHAUSTIVE ? 1 : 65537;

struct SweepResult {
  uint64_t checked = 0;
  uint64_t mismatches = 0;
  uint64_t first_bad = ~uint64_t{0};
};

// Runs `ok(f)` for every float pattern f (every kStride-th without TILEFW_EXHAUSTIVE) on two
// threads and counts the patterns for which it is false.
template <class Check>
SweepResult sweep_all_floats(Check ok) {
  std::atomic<uint64_t> checked{0};
  std::atomic<uint64_t> mismatches{0};
  std::atomic<uint64_t> first_bad{~uint64_t{0}};
  auto lane = [&](uint64_t index, uint64_t lanes) {
    uint64_t n = 0;
    uint64_t bad = 0;
    uint64_t first = ~uint64_t{0};
    for (uint64_t v = index * kStride; v <= 0xFFFFFFFFull; v += lanes * kStride) {
      ++n;
      if (!ok(static_cast<uint32_t>(v)) && bad++ == 0) first = v;
    }
    checked += n;
    mismatches += bad;
    uint64_t seen = first_bad.load();
    while (first < seen && !first_bad.compare_exchange_weak(seen, first)) {
    }
  };
  std::thread t1(lane, 0, 2);
  std::thread t2(lane, 1, 2);
  t1.join();
  t2.join();
  return SweepResult{checked.load(), mismatches.load(), first_bad.load()};
}

// 2^32 - 1 = 65537 * 65535, so the sampled sweep visits k * 65537 for k = 0..65535.
constexpr uint64_t kExpectedPatterns = TILEFW_EXHAUSTIVE ? (uint64_t{1} << 32) : 65536;

}  // namespace

TEST(HalfExhaustive, AllHalfPatternsToFloat) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    ASSERT_EQ(tilefw::half_bits_to_float_bits(static_cast<uint16_t>(h)),
              compiler_float_bits(static_cast<uint16_t>(h)))
        << "half bits 0x" << std::hex << h;
  }
}

TEST(HalfExhaustive, AllFloatPatternsToHalfVsCompiler) {
  SweepResult r;
#if TILEFW_HAVE_F16C_PATH
  if (cpu_has_f16c()) {
    r = sweep_all_floats([](uint32_t f) {
      return tilefw::float_bits_to_half_bits(f) == compiler_half_bits_f16c(std::bit_cast<float>(f));
    });
  } else
#endif
  {
    r = sweep_all_floats([](uint32_t f) {
      return tilefw::float_bits_to_half_bits(f) == compiler_half_bits(std::bit_cast<float>(f));
    });
  }
  EXPECT_EQ(r.checked, kExpectedPatterns);
  EXPECT_EQ(r.mismatches, 0u) << "first mismatch at float bits 0x" << std::hex << r.first_bad;
}

#if TILEFW_HAVE_F16C_PATH
// The compiler's two float -> _Float16 paths agree (every 4099th pattern: about a million
// floats, every exponent and NaN payloads), so the F16C sweep checks the same conversion.
TEST(HalfExhaustive, CompilerSoftFloatAndF16cPathsAgree) {
  if (!cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C";
  uint64_t mismatches = 0;
  for (uint64_t v = 0; v <= 0xFFFFFFFFull; v += 4099) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(v));
    if (compiler_half_bits(f) != compiler_half_bits_f16c(f)) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0u);
}
#endif

TEST(HalfExhaustive, AllFloatPatternsToHalfBothModesVsReference) {
  const SweepResult r = sweep_all_floats([](uint32_t f) {
    return tilefw::float_bits_to_half_bits(f, RoundMode::nearest_even) ==
               float16_reference::half_bits(f, RoundMode::nearest_even) &&
           tilefw::float_bits_to_half_bits(f, RoundMode::half_away_from_zero) ==
               float16_reference::half_bits(f, RoundMode::half_away_from_zero);
  });
  EXPECT_EQ(r.checked, kExpectedPatterns);
  EXPECT_EQ(r.mismatches, 0u) << "first mismatch at float bits 0x" << std::hex << r.first_bad;
}

TEST(Bf16Exhaustive, AllFloatPatternsToBf16BothModesVsReference) {
  const SweepResult r = sweep_all_floats([](uint32_t f) {
    return tilefw::float_bits_to_bf16_bits(f, RoundMode::nearest_even) ==
               float16_reference::bf16_bits(f, RoundMode::nearest_even) &&
           tilefw::float_bits_to_bf16_bits(f, RoundMode::half_away_from_zero) ==
               float16_reference::bf16_bits(f, RoundMode::half_away_from_zero);
  });
  EXPECT_EQ(r.checked, kExpectedPatterns);
  EXPECT_EQ(r.mismatches, 0u) << "first mismatch at float bits 0x" << std::hex << r.first_bad;
}
