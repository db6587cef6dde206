// EXPECT-FAIL: Fix: TMOV from a Mat tile keeps the element type
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<float, 16, 16> l; Tile<TileType::Mat, half, 16, 16> s; return TMOV(c, l, s); }
