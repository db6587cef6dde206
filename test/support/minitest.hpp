// A no-heap test runner for the Cortex-M targets that accepts the GoogleTest subset the core
// tests use (TEST, EXPECT_*/ASSERT_*), so each test is written once and runs on both host
// (GoogleTest) and QEMU. Fixed-size registry, printf output, exit code 1 on any failure.
// Not supported here: streaming messages (`<< "text"`), fixtures, death tests.
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace minitest {

using TestFn = void (*)();
struct Registrar {
  Registrar(const char* suite, const char* name, TestFn fn) noexcept;
};
// Records one check; returns ok so ASSERT_* can return early.
bool report(bool ok, const char* expression, const char* file, int line) noexcept;

// newlib-nano's printf has no %ll: 64-bit values are printed digit by digit.
void print_u64(unsigned long long v, bool negative) noexcept;

template <typename T>
void print_value(const T& v) noexcept {
  if constexpr (std::is_enum_v<T>) {
    print_value(static_cast<long long>(static_cast<std::underlying_type_t<T>>(v)));
  } else if constexpr (std::is_same_v<T, bool>) {
    std::printf("%s", v ? "true" : "false");
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    const long long x = v;
    print_u64(x < 0 ? 0ull - static_cast<unsigned long long>(x) : static_cast<unsigned long long>(x), x < 0);
  } else if constexpr (std::is_integral_v<T>) {
    print_u64(static_cast<unsigned long long>(v), false);
  } else if constexpr (std::is_floating_point_v<T>) {
    std::printf("%g", static_cast<double>(v));
  } else if constexpr (std::is_pointer_v<T>) {
    std::printf("%p", static_cast<const void*>(v));
  } else {
    std::printf("<value>");
  }
}

template <typename A, typename B, typename Cmp>
bool compare(const A& a, const B& b, Cmp cmp, const char* expression, const char* file,
             int line) noexcept {
  const bool ok = cmp(a, b);
  if (!ok) {
    std::printf("  values: ");
    print_value(a);
    std::printf(" vs ");
    print_value(b);
    std::printf("\n");
  }
  return report(ok, expression, file, line);
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

#define ASSERT_TRUE(c) \
  if (!::minitest::report(static_cast<bool>(c), #c, __FILE__, __LINE__)) return
#define ASSERT_FALSE(c) \
  if (!::minitest::report(!static_cast<bool>(c), "!(" #c ")", __FILE__, __LINE__)) return
#define ASSERT_EQ(a, b) \
  if (!MT_CMP(a, b, ==)) return
#define ASSERT_NE(a, b) \
  if (!MT_CMP(a, b, !=)) return
#define ASSERT_LT(a, b) \
  if (!MT_CMP(a, b, <)) return
#define ASSERT_LE(a, b) \
  if (!MT_CMP(a, b, <=)) return
#define ASSERT_GE(a, b) \
  if (!MT_CMP(a, b, >=)) return

namespace minitest {
bool str_eq(const char* a, const char* b) noexcept;
}
