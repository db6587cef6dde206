// EXPECT-FAIL: Fix: trailing arguments of a tile instruction are tile::Event
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileAcc<float, 16, 16> acc; Tile<TileType::Vec, float, 16, 16> v; return TMOV(c, v, acc, 1u); }
