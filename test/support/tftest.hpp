// Include this in every core test: GoogleTest on the host, the no-heap minitest runner on
// Cortex-M targets. Use only the macro subset minitest.hpp documents.
#pragma once

#if defined(TILEFW_TEST_MINITEST)
#include "minitest.hpp"
#else
#include <gtest/gtest.h>
#endif
