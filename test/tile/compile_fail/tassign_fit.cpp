// EXPECT-FAIL: Fix: TASSIGN address + tile bytes must fit
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
void f() { Tile<TileType::Vec, float, 8, 8> t; TASSIGN<196608 - 128>(t); }
