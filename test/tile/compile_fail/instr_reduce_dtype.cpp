// EXPECT-FAIL: Fix: the reduction's dst element type must equal src's
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, half, 16, 1, BLayout::ColMajor> d; Tile<TileType::Vec, float, 16, 16> s; return TROWMAX(c, d, s, s); }
