// EXPECT-OK
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
void f() { Tile<TileType::Vec, float, 16, 8> t; TASSIGN<0x100>(t); (void)TASSIGN(t, 0x200); TileLeft<half, 32, 64> l; TASSIGN<512>(l); TileAcc<float, 16, 16> a; (void)a; }
