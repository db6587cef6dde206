// EXPECT-FAIL: Fix: TROWEXPANDDIV takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d; Tile<TileType::Mat, float, 16, 8> v; return TROWEXPANDDIV(c, d, d, v); }
