// EXPECT-FAIL: Fix: TLOAD's source is a GlobalTensor
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d, s; return TLOAD(c, d, s); }
