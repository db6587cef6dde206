// EXPECT-FAIL: Fix: TASSIGN address must be aligned
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
void f() { Tile<TileType::Vec, float, 8, 8> t; TASSIGN<8>(t); }
