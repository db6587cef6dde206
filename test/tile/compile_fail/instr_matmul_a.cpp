// EXPECT-FAIL: Fix: TMATMUL's a operand is a TileLeft (L0A, 512 B boxes rows inside
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileRight<half, 16, 16> a, b; TileAcc<float, 16, 16> acc; return TMATMUL(c, acc, a, b); }
