// The test macros themselves, on both runners: ASSERT_* must be one statement (an `else` after
// it belongs to the caller's `if`), with no dangling-else warning under -Werror.
#include "tftest.hpp"

TEST(Harness, AssertIsOneStatementUnderIfElse) {
  int taken = 0;
  for (int i = 0; i < 2; ++i) {
    // With a bare `if (!ok) return` macro, this else would bind to the macro's if: i == 0
    // would take it and i == 1 would not, giving 1 instead of 11.
    if (i == 0)
      ASSERT_EQ(i, 0);
    else
      taken += i * 10 + 1;
  }
  EXPECT_EQ(taken, 11);
}
