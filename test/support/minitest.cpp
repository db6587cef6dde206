// The no-heap runner behind minitest.hpp: runs every registered test in registration order and
// reports in TAP (meson's protocol 'tap' counts each test case), ending with the comment
// `# N passed, M failed`; exits 1 when anything failed. Output goes through the board's
// semihosting console (board_print.h), never through stdio.
#include "minitest.hpp"

#include "board_print.h"

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
    print("# FAILED ");
    print(file);
    print(":");
    print_i64(line);
    print(": ");
    print(expression);
    print("\n");
  }
  return ok;
}

bool str_eq(const char* a, const char* b) noexcept {
  if (a == nullptr || b == nullptr) return a == b;
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

void print(const char* s) noexcept { board_print(s); }
void print_u64(unsigned long long v) noexcept { board_print_u64(v); }
void print_i64(long long v) noexcept { board_print_i64(v); }
void print_hex(unsigned long long v) noexcept { board_print_hex(v, 1); }
void print_double(double v) noexcept { board_print_double(v); }

}  // namespace minitest

int main() {
  using namespace minitest;
  int passed = 0;
  int failed = 0;
  print("1..");
  print_i64(g_count + (g_dropped > 0 ? 1 : 0));
  print("\n");
  for (int i = 0; i < g_count; ++i) {
    const int before = g_check_failures;
    g_tests[i].fn();
    const bool ok = g_check_failures == before;
    print(ok ? "ok " : "not ok ");
    print_i64(i + 1);
    print(" - ");
    print(g_tests[i].suite);
    print(".");
    print(g_tests[i].name);
    print("\n");
    if (ok) {
      ++passed;
    } else {
      ++failed;
    }
  }
  if (g_dropped > 0) {
    ++failed;
    print("not ok ");
    print_i64(g_count + 1);
    print(" - ");
    print_i64(g_dropped);
    print(" tests dropped: raise kMaxTests\n");
  }
  print("# ");
  print_i64(passed);
  print(" passed, ");
  print_i64(failed);
  print(" failed\n");
  return failed == 0 ? 0 : 1;
}
