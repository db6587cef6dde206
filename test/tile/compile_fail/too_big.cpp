// EXPECT-FAIL: Fix: the tile is larger than the memory space
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
TileLeft<float, 128, 256> t;
