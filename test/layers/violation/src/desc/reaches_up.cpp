// Fixture for the must-fail test of scripts/check_layers.py: desc may not include rt.
#include "tilefw/base/status.hpp"
#include "tilefw/rt/runtime.hpp"
