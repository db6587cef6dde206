// EXPECT-OK
// A build for the A5 profile: the tile API's static checks use A5's sizes (UB 256 KB, L0C 256 KB).
#define TILEFW_CHIP_A5
#include "tilefw/tile/tile.hpp"

using namespace tilefw::tile;
static_assert(tilefw::chip::kBuildChip == tilefw::chip::Chip::a5);
void f() {
  Tile<TileType::Vec, float, 224, 256> big;  // 224 KB: above a2a3's UB, inside A5's
  Tile<TileType::Vec, float, 8, 64> small;
  TASSIGN<0x3E000>(small);  // 248 KB + 2 KB: inside A5's UB only
  TileAcc<float, 256, 256> acc;  // 256 KB: A5's L0C
  (void)big;
  (void)acc;
}
