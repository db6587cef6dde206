// EXPECT-FAIL: Fix: Rows must be a multiple of the box rows
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
TileLeft<half, 8, 16> t;
