// EXPECT-FAIL: Fix: TMATMUL (C, A, B) types are
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> a; TileRight<bf16, 16, 16> b; TileAcc<float, 16, 16> acc; return TMATMUL(c, acc, a, b); }
