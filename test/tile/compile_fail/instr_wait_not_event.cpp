// EXPECT-FAIL: Fix: trailing arguments of a tile instruction are tile::Event
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d; return TADD(c, d, d, d, 5); }
