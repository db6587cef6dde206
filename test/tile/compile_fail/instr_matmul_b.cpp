// EXPECT-FAIL: Fix: TMATMUL's b operand is a TileRight (L0B, Zn)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> a, b; TileAcc<float, 16, 16> acc; return TMATMUL_ACC(c, acc, a, b); }
