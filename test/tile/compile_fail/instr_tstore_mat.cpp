// EXPECT-FAIL: Fix: TSTORE stores Vec (UB) or Acc (L0C) tiles
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { Tile<TileType::Mat, float, 16, 16> s; GlobalTensor<float, 16, 16> g; return TSTORE(c, g, s); }
