// EXPECT-FAIL: Fix: TMATMUL (C, A, B) types are
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<int8_t, 16, 32> a; TileRight<int8_t, 32, 16> b; TileAcc<float, 16, 16> acc; return TMATMUL_ACC(c, acc, a, b); }
