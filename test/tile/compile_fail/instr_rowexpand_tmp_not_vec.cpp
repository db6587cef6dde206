// EXPECT-FAIL: Fix: TROWEXPANDADD takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d; Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> v; Tile<TileType::Mat, float, 16, 16> t; return TROWEXPANDADD_TMP(c, d, d, v, t); }
