// SG2260 simulator, AR's fast rows (sg2260/exec_ar_fast.hpp) through the row loop the simulator
// runs (ar_row_typed): FP16 mul, add, sub, max and min of every FP16 pattern against 72 second
// operands (zeros, infinities, quiet and signalling NaNs, subnormals, the extremes, and random
// patterns), operand against operand, operand against constant and constant against operand;
// and integer max / min of every width and signedness. The expected bits come from the rules,
// not from the simulator: the exact result in double (a product or sum of two FP16 values is
// exact there) rounded once to FP16 by the compiler's _Float16 conversion (libgcc's soft-float
// code); a NaN operand gives opd0's NaN, else opd1's, quieted with its payload kept; max is
// (a < b ? b : a) and min (b < a ? b : a).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
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
  a.eu = 12;  // div: not a fast row
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

TEST(ArFast, IntegerMaxMinChooseAnElement) {
  check_ints<int8_t>(0, true);
  check_ints<uint8_t>(0, false);
  check_ints<int16_t>(3, true);
  check_ints<uint16_t>(3, false);
  check_ints<int32_t>(4, true);
  check_ints<uint32_t>(4, false);
}

}  // namespace
