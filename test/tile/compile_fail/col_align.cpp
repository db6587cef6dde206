// EXPECT-FAIL: Fix: a col-major unboxed tile needs Rows * sizeof(Element)
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, float, 12, 1, BLayout::ColMajor> t;
