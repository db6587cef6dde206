// EXPECT-FAIL: Fix: TMATMUL_BIAS's bias is a Bias tile (BiasTable) of the result's element type
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> a; TileRight<half, 16, 16> b; TileAcc<float, 16, 16> acc; Tile<TileType::Vec, float, 1, 16> z; return TMATMUL_BIAS(c, acc, a, b, z); }
