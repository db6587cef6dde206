// EXPECT-FAIL: Fix: Cols must be a multiple of the box cols
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
TileLeftFor<chip::Chip::a5, float, 16, 12> t;  // A5's Left boxes are 16 x 8 floats too
