// EXPECT-FAIL: Fix: TEXP takes unboxed Vec tiles (UB)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d; TileLeft<float, 16, 16> a; return TEXP(c, d, a); }
