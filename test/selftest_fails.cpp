// A test that must fail: meson runs it with should_fail, so if failures ever stopped
// propagating (runner, QEMU exit code, meson) this would turn into an unexpected pass.
#include "tftest.hpp"
#include "tilefw/base/status.hpp"

TEST(Selftest, FailurePropagates) {
  EXPECT_EQ(tilefw::status_class(tilefw::Status::misaligned), tilefw::StatusClass::ok);
}
