// EXPECT-FAIL: Fix: Rows must be a multiple of the box rows
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
TileLeftFor<chip::Chip::a5, half, 20, 16> t;  // A5's Left boxes have 16 rows
