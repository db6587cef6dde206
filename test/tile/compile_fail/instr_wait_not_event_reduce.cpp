// EXPECT-FAIL: Fix: trailing arguments of a tile instruction are tile::Event
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c, Event e) { Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> d; Tile<TileType::Vec, float, 16, 16> s; return TROWSUM(c, d, s, s, e, e.seq); }
