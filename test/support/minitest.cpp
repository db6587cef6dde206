// The no-heap runner behind minitest.hpp: runs every registered test in registration order,
// prints one line per test and `N passed, M failed`, exits 1 when anything failed.
#include "minitest.hpp"

#include <cstring>

namespace minitest {
namespace {
struct Entry {
  const char* suite;
  const char* name;
  TestFn fn;
};
constexpr int kMaxTests = 1024;
Entry g_tests[kMaxTests];
int g_count = 0;
int g_dropped = 0;
int g_check_failures = 0;
}  // namespace

Registrar::Registrar(const char* suite, const char* name, TestFn fn) noexcept {
  if (g_count < kMaxTests) {
    g_tests[g_count++] = Entry{suite, name, fn};
  } else {
    ++g_dropped;  // reported as a failure: a test that cannot run must not pass silently
  }
}

bool report(bool ok, const char* expression, const char* file, int line) noexcept {
  if (!ok) {
    ++g_check_failures;
    std::printf("  FAILED %s:%d: %s\n", file, line, expression);
  }
  return ok;
}

void print_u64(unsigned long long v, bool negative) noexcept {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) std::putchar('-');
  while (n > 0) std::putchar(digits[--n]);
}

bool str_eq(const char* a, const char* b) noexcept {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

}  // namespace minitest

int main() {
  using namespace minitest;
  int passed = 0;
  int failed = g_dropped;
  for (int i = 0; i < g_count; ++i) {
    const int before = g_check_failures;
    g_tests[i].fn();
    const bool ok = g_check_failures == before;
    std::printf("[%s] %s.%s\n", ok ? "  OK  " : " FAIL ", g_tests[i].suite, g_tests[i].name);
    if (ok) {
      ++passed;
    } else {
      ++failed;
    }
  }
  if (g_dropped > 0) std::printf("%d tests dropped: raise kMaxTests\n", g_dropped);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
