// EXPECT-FAIL: Fix: a row-major unboxed tile needs Cols * sizeof(Element)
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, float, 16, 1> t;
