// EXPECT-FAIL: Fix: TMOV moves Mat -> Left/Right/Bias or Acc -> Vec
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<float, 16, 16> l; Tile<TileType::Vec, float, 16, 16> s; return TMOV(c, l, s); }
