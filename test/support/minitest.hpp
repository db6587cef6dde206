// A no-heap test runner for the Cortex-M targets that accepts the GoogleTest subset the core
// tests use (TEST, EXPECT_*/ASSERT_*), so each test is written once and runs on both host
// (GoogleTest) and QEMU. Fixed-size registry, TAP output written without stdio (no printf, so
// no malloc: the link-level test checks the ELFs), exit code 1 on any failure.
// Not supported here: streaming messages (`<< "text"`), fixtures, death tests.
#pragma once

#include <cstdint>
#include <type_traits>

namespace minitest {

using TestFn = void (*)();
struct Registrar {
  Registrar(const char* suite, const char* name, TestFn fn) noexcept;
};
// Records one check; returns ok so ASSERT_* can return early.
bool report(bool ok, const char* expression, const char* file, int line) noexcept;
bool str_eq(const char* a, const char* b) noexcept;

// Output primitives (minitest.cpp, over the board's console).
void print(const char* s) noexcept;
void print_u64(unsigned long long v) noexcept;
void print_i64(long long v) noexcept;
void print_hex(unsigned long long v) noexcept;
void print_double(double v) noexcept;

template <typename T>
void print_value(const T& v) noexcept {
  if constexpr (std::is_enum_v<T>) {
    print_value(static_cast<long long>(static_cast<std::underlying_type_t<T>>(v)));
  } else if constexpr (std::is_same_v<T, bool>) {
    print(v ? "true" : "false");
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    print_i64(v);
  } else if constexpr (std::is_integral_v<T>) {
    print_u64(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    print_double(static_cast<double>(v));
  } else if constexpr (std::is_pointer_v<T>) {
    print_hex(reinterpret_cast<uintptr_t>(v));
  } else {
    print("<value>");
  }
}

template <typename A, typename B, typename Cmp>
bool compare(const A& a, const B& b, Cmp cmp, const char* expression, const char* file,
             int line) noexcept {
  const bool ok = report(cmp(a, b), expression, file, line);
  if (!ok) {
    print("#   values: ");
    print_value(a);
    print(" vs ");
    print_value(b);
    print("\n");
  }
  return ok;
}

}  // namespace minitest

#define MT_CAT2(a, b) a##b
#define MT_CAT(a, b) MT_CAT2(a, b)

#define TEST(suite, name)                                                              \
  static void MT_CAT(MT_CAT(mt_test_, suite), MT_CAT(_, name))();                      \
  static const ::minitest::Registrar MT_CAT(MT_CAT(mt_reg_, suite), MT_CAT(_, name)){  \
      #suite, #name, &MT_CAT(MT_CAT(mt_test_, suite), MT_CAT(_, name))};               \
  static void MT_CAT(MT_CAT(mt_test_, suite), MT_CAT(_, name))()

#define MT_CMP(a, b, op)                                                                      \
  ::minitest::compare((a), (b), [](const auto& x, const auto& y) { return x op y; },          \
                      #a " " #op " " #b, __FILE__, __LINE__)

#define EXPECT_TRUE(c) ((void)::minitest::report(static_cast<bool>(c), #c, __FILE__, __LINE__))
#define EXPECT_FALSE(c) ((void)::minitest::report(!static_cast<bool>(c), "!(" #c ")", __FILE__, __LINE__))
#define EXPECT_EQ(a, b) ((void)MT_CMP(a, b, ==))
#define EXPECT_NE(a, b) ((void)MT_CMP(a, b, !=))
#define EXPECT_LT(a, b) ((void)MT_CMP(a, b, <))
#define EXPECT_LE(a, b) ((void)MT_CMP(a, b, <=))
#define EXPECT_GT(a, b) ((void)MT_CMP(a, b, >))
#define EXPECT_GE(a, b) ((void)MT_CMP(a, b, >=))
#define EXPECT_STREQ(a, b) \
  ((void)::minitest::report(::minitest::str_eq((a), (b)), #a " == " #b, __FILE__, __LINE__))

// ASSERT_* return from the test on failure. The if/else is complete and sits inside a switch
// (GoogleTest's trick), so `if (x) ASSERT_TRUE(y); else z();` binds the else to the user's if
// and draws no -Wdangling-else warning.
#define MT_ASSERT(ok) \
  switch (0)          \
  case 0:             \
  default:            \
    if (ok) {         \
    } else            \
      return
#define ASSERT_TRUE(c) MT_ASSERT(::minitest::report(static_cast<bool>(c), #c, __FILE__, __LINE__))
#define ASSERT_FALSE(c) \
  MT_ASSERT(::minitest::report(!static_cast<bool>(c), "!(" #c ")", __FILE__, __LINE__))
#define ASSERT_EQ(a, b) MT_ASSERT(MT_CMP(a, b, ==))
#define ASSERT_NE(a, b) MT_ASSERT(MT_CMP(a, b, !=))
#define ASSERT_LT(a, b) MT_ASSERT(MT_CMP(a, b, <))
#define ASSERT_LE(a, b) MT_ASSERT(MT_CMP(a, b, <=))
#define ASSERT_GT(a, b) MT_ASSERT(MT_CMP(a, b, >))
#define ASSERT_GE(a, b) MT_ASSERT(MT_CMP(a, b, >=))
