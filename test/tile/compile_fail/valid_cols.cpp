// EXPECT-FAIL: Fix: ColValid must be DYNAMIC or in [0, Cols]
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 16, 9> t;
