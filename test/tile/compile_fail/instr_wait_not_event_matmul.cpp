// EXPECT-FAIL: Fix: trailing arguments of a tile instruction are tile::Event
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> a; TileRight<half, 16, 16> b; TileAcc<float, 16, 16> acc; return TMATMUL(c, acc, a, b, nullptr); }
