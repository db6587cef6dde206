// EXPECT-FAIL: Fix: RowValid must be DYNAMIC or in [0, Rows]
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 17, 8> t;
