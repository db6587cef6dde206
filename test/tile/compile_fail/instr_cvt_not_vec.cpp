// EXPECT-FAIL: Fix: TCVT takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, half, 16, 16> d; Tile<TileType::Mat, float, 16, 16> s; return TCVT(c, d, s, desc::RoundMode::rint); }
