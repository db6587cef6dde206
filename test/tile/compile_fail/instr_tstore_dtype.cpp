// EXPECT-FAIL: Fix: TSTORE from a Vec tile keeps the element type
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> s; GlobalTensor<half, 16, 16> g; return TSTORE(c, g, s); }
