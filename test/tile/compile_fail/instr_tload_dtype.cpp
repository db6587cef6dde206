// EXPECT-FAIL: Fix: TLOAD keeps the element type
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Vec, float, 16, 16> d; GlobalTensor<half, 16, 16> g; return TLOAD(c, d, g); }
