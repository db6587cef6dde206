// EXPECT-FAIL: Fix: Element must be
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Vec, double, 8, 8> t;
