// EXPECT-FAIL: Fix: the tile is larger than the memory space of its TileType
// The same tile as a5_profile_ub_256k.cpp in an a2a3 build (the default): UB is 192 KB.
#include "tilefw/tile/tile.hpp"

using namespace tilefw::tile;
void f() {
  Tile<TileType::Vec, float, 224, 256> big;
  (void)big;
}
