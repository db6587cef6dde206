// EXPECT-FAIL: Fix: SFractalSize must be 512
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Tile<TileType::Mat, half, 16, 16, BLayout::RowMajor, 16, 16, SLayout::RowMajor, 256> t;
