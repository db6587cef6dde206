// SG2260 simulator, AR's fast rows (sg2260/exec_ar_fast.hpp) through the row loop the simulator
// runs (ar_row_typed): FP16 mul, add, sub, max and min of every FP16 pattern against 72 second
// operands (zeros, infinities, quiet and signalling NaNs, subnormals, the extremes, and random
// patterns), operand against operand, operand against constant and constant against operand;
// FP16 casts to integers in every round mode and to FP16; one-byte elements with a constant;
// and integer max / min of every width and signedness. The expected bits come from the rules,
// not from the simulator: the exact result in double (a product or sum of two FP16 values is
// exact there) rounded once to FP16 by the compiler's _Float16 conversion (libgcc's soft-float
// code); a NaN operand gives opd0's NaN, else opd1's, quieted with its payload kept; max is
// (a < b ? b : a) and min (b < a ? b : a).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "sg2260/exec_ar_fast.hpp"
#include "sg2260/exec_ar_rows.hpp"

namespace {

namespace ex = tilefw::port::host::sg2260::exec;

constexpr uint32_t kFp16 = 1;
enum Eu : uint32_t { kMul = 0, kAdd = 2, kSub = 3, kMax = 4, kMin = 5 };

double half_value(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<double>(h);
}

bool is_nan_bits(uint16_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x3FFu) != 0; }

uint16_t expected_bits(uint32_t eu, uint16_t a, uint16_t b) {
  if (eu == kMax || eu == kMin) {
    const double x = half_value(a), y = half_value(b);
    const bool take_b = eu == kMax ? x < y : y < x;
    const uint16_t r = take_b ? b : a;
    return is_nan_bits(r) ? static_cast<uint16_t>(r | 0x200u) : r;
  }
  if (is_nan_bits(a)) return static_cast<uint16_t>(a | 0x200u);
  if (is_nan_bits(b)) return static_cast<uint16_t>(b | 0x200u);
  const double x = half_value(a), y = half_value(b);
  const double r = eu == kMul ? x * y : eu == kAdd ? x + y : x - y;
  // inf - inf, 0 x inf: the host's default NaN, as the simulator's double arithmetic makes it
  const _Float16 h = static_cast<_Float16>(r);
  return std::bit_cast<uint16_t>(h);
}

std::vector<uint16_t> second_operands() {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D55, 0xFE01, 0x0001, 0x8001, 0x03FF,
                             0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3555, 0x5640, 0x1400, 0x6800, 0x0200};
  std::mt19937 rng(20261129);
  while (v.size() < 72) v.push_back(static_cast<uint16_t>(rng()));
  return v;
}

ex::ArRow fp16_row(uint32_t eu) {
  ex::ArRow a;
  a.eu = eu;
  a.prec[0] = a.prec[1] = a.prec[2] = kFp16;
  return a;
}

// One row of all 65536 patterns (opd0, or opd1 when `swap`) against b (an operand or constant).
void check_fp16(uint32_t eu, uint16_t b, bool b_const, bool swap) {
  std::vector<uint16_t> all(65536), other(65536, b), out(65536, 0xDEAD);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  ex::ArRow a = fp16_row(eu);
  const uint8_t* p_all = reinterpret_cast<const uint8_t*>(all.data());
  const uint8_t* p_b = b_const ? nullptr : reinterpret_cast<const uint8_t*>(other.data());
  if (b_const) a.k[swap ? 0 : 1] = half_value(b);
  const uint64_t step[3] = {2, 2, 2};
  const uint8_t* p0 = swap ? p_b : p_all;
  const uint8_t* p1 = swap ? p_all : p_b;
  ex::ar_row_typed(a, p0, p1, reinterpret_cast<uint8_t*>(out.data()), 65536, step);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < 65536 && wrong < 5; ++i) {
    const uint16_t x = swap ? b : all[i], y = swap ? all[i] : b;
    const uint16_t want = expected_bits(eu, x, y);
    if (out[i] != want) {
      ++wrong;
      ADD_FAILURE() << "eu " << eu << " opd0 0x" << std::hex << x << " opd1 0x" << y << (b_const ? " (constant)" : "")
                    << ": got 0x" << out[i] << ", want 0x" << want;
    }
  }
}

TEST(ArFast, Fp16RowsGiveTheCorrectlyRoundedResultForEveryPattern) {
  for (uint32_t eu : {kMul, kAdd, kSub, kMax, kMin}) {
    for (uint16_t b : second_operands()) {
      check_fp16(eu, b, false, false);
      check_fp16(eu, b, false, true);
      if (!is_nan_bits(b)) {  // a NaN constant is left to the typed loops (not an FP16 value check)
        check_fp16(eu, b, true, false);
        check_fp16(eu, b, true, true);
      }
    }
  }
}

TEST(ArFast, Fp16RowsAreTakenByTheFastLoopsWhereTheCpuHasF16c) {
  if (!__builtin_cpu_supports("avx") || !__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no AVX/F16C";
  std::vector<uint16_t> x(21, 0x3C00), out(21);
  ex::ArRow a = fp16_row(kAdd);
  const uint64_t step[3] = {2, 2, 2};
  const auto* p = reinterpret_cast<const uint8_t*>(x.data());
  EXPECT_EQ(ex::ar_row_fast(a, p, p, reinterpret_cast<uint8_t*>(out.data()), 21, step), 16u);  // 2 x 8; the tail typed
  const uint64_t strided[3] = {2, 4, 2};
  EXPECT_EQ(ex::ar_row_fast(a, p, p, reinterpret_cast<uint8_t*>(out.data()), 10, strided), 0u);
  a.k[1] = 0.1;  // not an FP16 value
  EXPECT_EQ(ex::ar_row_fast(a, p, nullptr, reinterpret_cast<uint8_t*>(out.data()), 16, step), 0u);
  a.eu = 9;  // xor: not a fast row
  EXPECT_EQ(ex::ar_row_fast(a, p, p, reinterpret_cast<uint8_t*>(out.data()), 16, step), 0u);
}

template <typename T>
void check_ints(uint32_t prec, bool sign) {
  std::mt19937 rng(7);
  constexpr uint32_t kN = 1000;
  std::vector<T> x(kN), y(kN), out(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    x[i] = static_cast<T>(rng());
    y[i] = static_cast<T>(i % 3 == 0 ? x[i] : static_cast<T>(rng()));
  }
  for (uint32_t eu : {kMax, kMin}) {
    ex::ArRow a;
    a.eu = eu;
    a.prec[0] = a.prec[1] = a.prec[2] = prec;
    a.sign[0] = a.sign[1] = a.sign[2] = sign;
    const uint64_t step[3] = {sizeof(T), sizeof(T), sizeof(T)};
    ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(x.data()), reinterpret_cast<const uint8_t*>(y.data()),
                     reinterpret_cast<uint8_t*>(out.data()), kN, step);
    for (uint32_t i = 0; i < kN; ++i) {
      const T want = eu == kMax ? (x[i] < y[i] ? y[i] : x[i]) : (y[i] < x[i] ? y[i] : x[i]);
      ASSERT_EQ(out[i], want) << "prec " << prec << " sign " << sign << " eu " << eu << " element " << i;
    }
    a.k[1] = -3;  // a constant: negative, so unsigned formats leave it to the typed loops
    ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(x.data()), nullptr, reinterpret_cast<uint8_t*>(out.data()), kN,
                     step);
    for (uint32_t i = 0; i < kN; ++i) {
      const double k = -3.0;
      const double v = static_cast<double>(x[i]);
      const double r = eu == kMax ? (v < k ? k : v) : (k < v ? k : v);
      const T want = static_cast<T>(static_cast<int64_t>(r));  // the typed loops' wrap to the width
      ASSERT_EQ(out[i], want) << "constant, prec " << prec << " sign " << sign << " eu " << eu << " element " << i;
    }
  }
}

// FP16 division in round mode `round` (0 nearest even, 2 toward zero, 3 down, 4 up): the
// nearest FP16 of the double quotient (the compiler's conversion), stepped one FP16 toward the
// mode where it lies on the wrong side of the exact quotient, the side found exactly (c x y
// against x: a product of two FP16 values is exact in double).
uint16_t step_bits(uint16_t c, bool up) {
  const bool negative = (c & 0x8000u) != 0;
  if ((c & 0x7FFFu) == 0) return up ? 0x0001 : 0x8001;  // from a zero to the smallest subnormal
  return static_cast<uint16_t>(negative == up ? c - 1 : c + 1);
}

uint16_t expected_div(uint16_t a, uint16_t b, uint32_t round) {
  if (is_nan_bits(a)) return static_cast<uint16_t>(a | 0x200u);
  if (is_nan_bits(b)) return static_cast<uint16_t>(b | 0x200u);
  const double x = half_value(a), y = half_value(b), q = x / y;
  const uint16_t c = std::bit_cast<uint16_t>(static_cast<_Float16>(q));
  if (round == 0 || std::isnan(q) || std::isinf(q)) return c;
  const double cv = half_value(c);
  if (q == 0) return c;  // an exact zero (x zero, or y infinite)
  const double diff = cv * y - x;  // the side of c against x / y, times y's sign (an infinite c too)
  const int side = (diff > 0) - (diff < 0);
  const int above = y > 0 ? side : -side;  // +1: c > x / y
  const bool want_down = round == 3 || (round == 2 && q > 0);
  const bool want_up = round == 4 || (round == 2 && q < 0);
  if (want_down && above > 0) return step_bits(c, false);
  if (want_up && above < 0) return step_bits(c, true);
  return c;
}

TEST(ArFast, Fp16DivisionRoundsByItsMode) {
  std::vector<uint16_t> all(65536), out(65536), other(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  const uint64_t step[3] = {2, 2, 2};
  for (uint32_t round : {0u, 2u, 3u, 4u}) {
    for (uint16_t b : second_operands()) {
      for (int form = 0; form < 3; ++form) {  // x / b, b / x (constant), x / b (array)
        ex::ArRow a = fp16_row(12);
        a.round = round;
        const uint8_t* px = reinterpret_cast<const uint8_t*>(all.data());
        std::fill(other.begin(), other.end(), b);
        const uint8_t* pb = reinterpret_cast<const uint8_t*>(other.data());
        if (form == 0 || form == 1) {
          if (is_nan_bits(b)) continue;
          a.k[form == 0 ? 1 : 0] = half_value(b);
        }
        const uint8_t* p0 = form == 1 ? nullptr : px;
        const uint8_t* p1 = form == 0 ? nullptr : form == 1 ? px : pb;
        ex::ar_row_typed(a, p0, p1, reinterpret_cast<uint8_t*>(out.data()), 65536, step);
        for (uint32_t i = 0; i < 65536; ++i) {
          const uint16_t x = static_cast<uint16_t>(i);
          const uint16_t want = form == 1 ? expected_div(b, x, round) : expected_div(x, b, round);
          ASSERT_EQ(out[i], want) << "round " << round << " form " << form << std::hex << " x 0x" << x << " b 0x" << b;
        }
      }
    }
  }
}

// FP16 -> 8- and 16-bit integers (eu 14), every pattern, each of the five round modes: the
// value rounded by the mode, NaN as 0, clamped to the result's range.
template <typename T>
void check_fp16_to_int(uint32_t prec, bool sign, uint32_t round) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<T> out(65536);
  ex::ArRow a;
  a.eu = 14;
  a.inputs = 1;
  a.round = round;
  a.prec[0] = prec;
  a.prec[1] = kFp16;
  a.sign[0] = sign;
  const uint64_t step[3] = {sizeof(T), 2, 0};
  ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(all.data()), nullptr, reinterpret_cast<uint8_t*>(out.data()), 65536,
                   step);
  for (uint32_t i = 0; i < 65536; ++i) {
    const double v = half_value(static_cast<uint16_t>(i));
    double r = 0;
    if (!std::isnan(v)) {
      switch (round) {
        case 0: r = std::nearbyint(v); break;  // nearest, ties to even (the default FP environment)
        case 1: r = std::round(v); break;               // ties away from zero
        case 2: r = std::trunc(v); break;
        case 3: r = std::floor(v); break;
        default: r = std::ceil(v); break;
      }
      r = std::fmin(std::fmax(r, static_cast<double>(std::numeric_limits<T>::min())),
                    static_cast<double>(std::numeric_limits<T>::max()));
    }
    ASSERT_EQ(out[i], static_cast<T>(r)) << "FP16 0x" << std::hex << i << std::dec << " round " << round << " sign " << sign;
  }
}

TEST(ArFast, Fp16CastsToIntegersRoundByTheirMode) {
  for (uint32_t round = 0; round <= 4; ++round) {
    check_fp16_to_int<int8_t>(0, true, round);
    check_fp16_to_int<uint8_t>(0, false, round);
    check_fp16_to_int<int16_t>(3, true, round);
    check_fp16_to_int<uint16_t>(3, false, round);
  }
}

// FP16 -> FP16 (a cast in each round mode, a copy): every value is its own result; a NaN comes
// back quieted, its payload kept.
TEST(ArFast, Fp16ToFp16KeepsEveryValueAndQuietsNaNs) {
  std::vector<uint16_t> all(65536), out(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  for (uint32_t eu : {14u, 19u}) {
    for (uint32_t round = 0; round <= (eu == 14 ? 4u : 0u); ++round) {
      ex::ArRow a;
      a.eu = eu;
      a.inputs = 1;
      a.round = round;
      a.prec[0] = a.prec[1] = kFp16;
      const uint64_t step[3] = {2, 2, 0};
      ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(all.data()), nullptr, reinterpret_cast<uint8_t*>(out.data()),
                       65536, step);
      for (uint32_t i = 0; i < 65536; ++i) {
        const uint16_t want = is_nan_bits(static_cast<uint16_t>(i)) ? static_cast<uint16_t>(i | 0x200u) : static_cast<uint16_t>(i);
        ASSERT_EQ(out[i], want) << "eu " << eu << " round " << round << " FP16 0x" << std::hex << i;
      }
    }
  }
}

// One-byte elements with a constant (results kept per configuration): a saturating add of an
// INT16 constant into INT16, and a product wrapping to INT16; several constants in turn, more
// than the tables kept, so configurations are replaced and found again.
TEST(ArFast, OneByteElementsWithAConstantGiveTheirResults) {
  std::vector<int8_t> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
  std::vector<int16_t> out(256);
  for (int pass = 0; pass < 2; ++pass) {
    for (int k : {32767, -32768, 300, -7, 0, 1, 129, -129, 1000, 20000}) {
      for (uint32_t eu : {15u, 0u}) {
        ex::ArRow a;
        a.eu = eu;
        a.prec[0] = 3;
        a.prec[1] = 0;
        a.prec[2] = 3;
        a.sign[0] = a.sign[1] = a.sign[2] = true;
        a.k[1] = k;
        const uint64_t step[3] = {2, 1, 0};
        ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(x.data()), nullptr, reinterpret_cast<uint8_t*>(out.data()), 256,
                         step);
        for (int i = 0; i < 256; ++i) {
          const int64_t exact = eu == 15 ? int64_t{x[i]} + k : int64_t{x[i]} * k;
          const int16_t want = eu == 15 ? static_cast<int16_t>(std::clamp<int64_t>(exact, -32768, 32767))
                                        : static_cast<int16_t>(static_cast<uint16_t>(exact & 0xFFFF));
          ASSERT_EQ(out[i], want) << "eu " << eu << " x " << int{x[i]} << " k " << k << " pass " << pass;
        }
      }
    }
  }
}

// The same configuration with the constant on either side: tensor - 0 and then 0 - tensor
// (INT8, signed) must not share results.
TEST(ArFast, ConstantOnEitherSideKeepsItsOwnResults) {
  std::vector<int8_t> x(256), out(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
  const uint64_t step[3] = {1, 1, 1};
  for (int which = 0; which < 2; ++which) {
    ex::ArRow a;
    a.eu = kSub;
    a.sign[0] = a.sign[1] = a.sign[2] = true;  // INT8 throughout, the constant 0
    const auto* p = reinterpret_cast<const uint8_t*>(x.data());
    ex::ar_row_typed(a, which == 0 ? p : nullptr, which == 0 ? nullptr : p, reinterpret_cast<uint8_t*>(out.data()), 256, step);
    for (int i = 0; i < 256; ++i) {
      const int8_t want = static_cast<int8_t>(which == 0 ? x[i] : -x[i]);  // INT8 wraps: -(-128) is -128
      ASSERT_EQ(out[i], want) << (which == 0 ? "x - 0" : "0 - x") << " x " << int{x[i]};
    }
  }
}

// Rows whose length is not a multiple of the vectors (the tail in the typed loops) and rows in
// place (the result over opd0): every element checked.
TEST(ArFast, TailsAndInPlaceRowsGiveEveryResult) {
  std::mt19937 rng(3);
  for (uint64_t n : {1u, 7u, 9u, 21u, 63u, 65u, 130u}) {
    std::vector<uint16_t> x(n), y(n), out(n);
    for (uint64_t i = 0; i < n; ++i) {
      x[i] = static_cast<uint16_t>(rng());
      y[i] = static_cast<uint16_t>(rng());
    }
    for (uint32_t eu : {kMul, kAdd, kSub, kMax, kMin}) {
      const uint64_t step[3] = {2, 2, 2};
      ex::ArRow a = fp16_row(eu);
      ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(x.data()), reinterpret_cast<const uint8_t*>(y.data()),
                       reinterpret_cast<uint8_t*>(out.data()), n, step);
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], expected_bits(eu, x[i], y[i])) << "n " << n << " eu " << eu << " i " << i;
      std::vector<uint16_t> in_place = x;
      ex::ar_row_typed(a, reinterpret_cast<const uint8_t*>(in_place.data()), reinterpret_cast<const uint8_t*>(y.data()),
                       reinterpret_cast<uint8_t*>(in_place.data()), n, step);
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(in_place[i], expected_bits(eu, x[i], y[i])) << "in place, n " << n << " i " << i;
    }
  }
}

TEST(ArFast, IntegerMaxMinChooseAnElement) {
  check_ints<int8_t>(0, true);
  check_ints<uint8_t>(0, false);
  check_ints<int16_t>(3, true);
  check_ints<uint16_t>(3, false);
  check_ints<int32_t>(4, true);
  check_ints<uint32_t>(4, false);
}

}  // namespace
