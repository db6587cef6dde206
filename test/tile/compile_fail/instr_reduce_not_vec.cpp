// EXPECT-FAIL: Fix: TROWSUM takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> d; Tile<TileType::Vec, float, 16, 16> s; Tile<TileType::Mat, float, 16, 16> t; return TROWSUM(c, d, s, t); }
