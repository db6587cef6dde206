// EXPECT-FAIL: Fix: Cols must be a multiple of the box cols
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
TileLeft<float, 16, 12> t;
