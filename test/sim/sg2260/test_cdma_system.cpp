// The multi-chip system's CDMA semantics and timing (Rule: CDMA timing v1) against hand
// computation; placeholder filled below.
#include <gtest/gtest.h>

#include "cdma_fixture.hpp"

using namespace cdmatest;
