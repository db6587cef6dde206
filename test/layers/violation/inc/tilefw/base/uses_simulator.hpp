// Fixture for the must-fail test of scripts/check_layers.py: the core may not include the
// simulator.
#pragma once
#include "machine.hpp"
