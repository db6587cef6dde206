// EXPECT-FAIL: Fix: TEXPANDS takes an unboxed Vec tile (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Mat, float, 16, 16> d; return TEXPANDS(c, d, 1.0f); }
