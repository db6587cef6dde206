// EXPECT-FAIL: Fix: a Tile needs Rows > 0
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, float, 0, 8> t;
