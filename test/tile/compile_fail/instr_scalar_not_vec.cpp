// EXPECT-FAIL: Fix: TMULS takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Mat, float, 16, 16> d; Tile<TileType::Vec, float, 16, 16> a; return TMULS(c, d, a, 2.0f); }
