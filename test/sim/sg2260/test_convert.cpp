// SG2260 simulator, value conversion over contiguous runs (sg2260/exec_convert.hpp): FP16 ->
// float / double for all 65536 patterns and float -> FP16 (nearest even) for every 65537th
// float pattern plus every half's value, its neighbours and the midpoints between halves,
// against the compiler's _Float16 conversions (libgcc's soft-float code: no code shared with
// the simulator). Runs of every length 0..40 cover the 8-wide vector loops and their tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "sg2260/exec_convert.hpp"

namespace {

namespace ex = tilefw::port::host::sg2260::exec;

uint32_t reference_float_bits(uint16_t hb) {
  _Float16 h;
  std::memcpy(&h, &hb, 2);
  return std::bit_cast<uint32_t>(static_cast<float>(h));
}

uint16_t reference_half_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

TEST(SimConvert, EveryHalfToFloatAndDouble) {
  std::vector<uint8_t> bytes(65536 * 2);
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  std::vector<float> f(65536);
  std::vector<double> d(65536);
  ex::halves_to_floats(bytes.data(), f.data(), 65536);
  ex::halves_to_doubles(bytes.data(), d.data(), 65536);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint32_t want = reference_float_bits(static_cast<uint16_t>(i));
    const uint64_t want_d = std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(want)));
    if (std::bit_cast<uint32_t>(f[i]) != want || std::bit_cast<uint64_t>(d[i]) != want_d) {
      if (bad++ < 5) ADD_FAILURE() << "half 0x" << std::hex << i;
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(SimConvert, EveryHalfStridedToDouble) {
  std::vector<uint8_t> bytes(65536 * 6, 0xEE);  // one half every 6 bytes
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    std::memcpy(&bytes[6 * i], &h, 2);
  }
  std::vector<double> d(65536);
  ex::halves_to_doubles(bytes.data(), 6, d.data(), 65536);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = std::bit_cast<float>(reference_float_bits(static_cast<uint16_t>(i)));
    if (std::bit_cast<uint64_t>(d[i]) != std::bit_cast<uint64_t>(static_cast<double>(want)) && bad++ < 5) {
      ADD_FAILURE() << "half 0x" << std::hex << i;
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(SimConvert, FloatsToHalvesNearestEven) {
  std::vector<float> in;
  for (uint64_t v = 0; v <= 0xFFFFFFFFull; v += 65537) in.push_back(std::bit_cast<float>(static_cast<uint32_t>(v)));
  for (uint32_t i = 0; i < 65536; ++i) {  // every half, its float neighbours, the midpoint above
    const uint32_t b = reference_float_bits(static_cast<uint16_t>(i));
    for (const uint32_t x : {b, b + 1, b - 1, b + 0x1000u, b + 0x0FFFu, b + 0x1001u}) in.push_back(std::bit_cast<float>(x));
  }
  std::vector<uint8_t> out(in.size() * 2);
  ex::floats_to_halves(in.data(), out.data(), in.size());
  uint64_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    uint16_t got;
    std::memcpy(&got, &out[2 * i], 2);
    if (got != reference_half_bits(in[i]) && bad++ < 5) {
      ADD_FAILURE() << "float 0x" << std::hex << std::bit_cast<uint32_t>(in[i]) << " -> 0x" << got;
    }
  }
  EXPECT_EQ(bad, 0u);
}

uint16_t reference_half_of_double(double v) {
  const _Float16 h = static_cast<_Float16>(v);  // one correct rounding from double
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

// Doubles written as FP16 (nearest even, one rounding from the double): exact floats, values
// between floats (round to odd must keep the sticky bit), halfway points between halves and
// just off them, overflow, subnormals, zeros and infinities; contiguous and strided runs.
TEST(SimConvert, DoublesToHalvesRoundOnce) {
  std::vector<double> in;
  for (uint32_t i = 0; i < 65536; i += 3) {
    const double h = static_cast<double>(std::bit_cast<float>(reference_float_bits(static_cast<uint16_t>(i))));
    if (std::isnan(h)) continue;
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(h == 0 ? 1e-8 : h) - 10, -24));
    for (const double x : {h, h + ulp / 2, h + ulp / 2 + 1e-30, h + ulp / 2 - std::ldexp(ulp, -40),
                           h + std::ldexp(ulp, -30), h - std::ldexp(ulp, -31), h * (1 + 1e-12)}) {
      in.push_back(x);
    }
  }
  for (const double x : {65520.0, 65519.999, 1e300, -1e300, 1e-300, -0.0, double{INFINITY}, -double{INFINITY}}) in.push_back(x);
  for (const uint64_t step : {uint64_t{2}, uint64_t{6}}) {
    std::vector<uint8_t> out(in.size() * step);
    ex::doubles_to_halves(in.data(), out.data(), step, in.size());
    uint64_t bad = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      uint16_t got;
      std::memcpy(&got, &out[i * step], 2);
      if (got != reference_half_of_double(in[i]) && bad++ < 5) {
        ADD_FAILURE() << "step " << step << " double " << in[i] << " -> 0x" << std::hex << got;
      }
    }
    EXPECT_EQ(bad, 0u) << "step " << step << " of " << in.size();
  }
  const double nan[9] = {NAN, 1, 2, 3, 4, 5, 6, 7, -NAN};
  uint8_t h[18];
  ex::doubles_to_halves(nan, h, 2, 9);
  EXPECT_EQ((h[1] & 0x7C) == 0x7C && (h[0] | (h[1] & 3)) != 0, true) << "NaN stays NaN";
}

TEST(SimConvert, RunsOfEveryLengthAndOffset) {
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<uint8_t> bytes(2 * n + 2, 0xEE);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t h = static_cast<uint16_t>(0x3C00u + 37u * i);
      std::memcpy(&bytes[1 + 2 * i], &h, 2);  // odd offset: no alignment assumed
    }
    std::vector<float> f(n + 1, -7.0f);
    ex::halves_to_floats(bytes.data() + 1, f.data(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(std::bit_cast<uint32_t>(f[i]), reference_float_bits(static_cast<uint16_t>(0x3C00u + 37u * i)));
    EXPECT_EQ(f[n], -7.0f) << "n " << n << ": nothing past the run";
    std::vector<uint8_t> back(2 * n + 2, 0xEE);
    ex::floats_to_halves(f.data(), back.data() + 1, n);
    EXPECT_EQ(std::memcmp(back.data() + 1, bytes.data() + 1, 2 * n), 0) << "n " << n;
    EXPECT_EQ(back[2 * n + 1], 0xEE) << "n " << n << ": nothing past the run";
  }
}

// The integer stores' half-away-from-zero rounding without the library call, against
// std::round: halves, the largest double below one half, 2^52 and its neighbours, signed zeros,
// infinities, NaN, and a million random doubles (half of them multiples of 2^-k, k < 60).
TEST(SimConvert, RoundHalfAwayIsStdRound) {
  std::vector<double> xs = {0.5, -0.5, 0.49999999999999994, -0.49999999999999994, 1.5, 2.5, -2.5, 0x1p52 - 0.5,
                            -0x1p52 + 0.5, 0x1p52, 0x1p53 + 2, -0.0, 0.0, 1e-300, double{INFINITY}, -double{INFINITY}};
  std::mt19937_64 r(7);
  for (int i = 0; i < 1000000; ++i) {
    const uint64_t u = r();
    xs.push_back(i & 1 ? std::ldexp(static_cast<double>(static_cast<int64_t>(u >> 11) - (int64_t{1} << 52)), -static_cast<int>(u % 60))
                       : std::bit_cast<double>(u));
  }
  uint64_t bad = 0;
  for (const double x : xs) {
    const double got = ex::round_half_away(x), want = std::round(x);
    if (std::isnan(want) ? !std::isnan(got) : std::bit_cast<uint64_t>(got) != std::bit_cast<uint64_t>(want)) {
      if (bad++ < 5) ADD_FAILURE() << x;
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_TRUE(std::isnan(ex::round_half_away(NAN)));
}

}  // namespace
