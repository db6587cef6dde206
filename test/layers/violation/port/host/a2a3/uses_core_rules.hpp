// Fixture for the must-fail test of scripts/check_layers.py: the simulator checks with its own
// rules, so a simulator wing may not include the core's descriptor rules (only desc-data).
#pragma once
#include "tilefw/desc/validate_vector.hpp"
