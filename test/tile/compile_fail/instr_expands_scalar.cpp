// EXPECT-FAIL: Fix: the scalar must have the tile's element type
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, half, 16, 16> d; return TEXPANDS(c, d, 1.0f); }
