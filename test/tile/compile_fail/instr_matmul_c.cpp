// EXPECT-FAIL: Fix: TMATMUL's result is a TileAcc (L0C, Nz 16 x 16)
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> a; TileRight<half, 16, 16> b; Tile<TileType::Vec, float, 16, 16> acc; return TMATMUL(c, acc, a, b); }
