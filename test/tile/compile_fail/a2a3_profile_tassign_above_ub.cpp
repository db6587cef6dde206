// EXPECT-FAIL: Fix: TASSIGN address + tile bytes must fit
// An a2a3 build: 0x3E000 lies beyond its 192 KB UB (inside A5's 256 KB).
#include "tilefw/tile/tile.hpp"

using namespace tilefw::tile;
void f() {
  Tile<TileType::Vec, float, 8, 64> small;
  TASSIGN<0x3E000>(small);
}
