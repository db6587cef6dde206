// EXPECT-FAIL: Fix: the reduction
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Status f(plan::Plan& p) { Tile<TileType::Vec, half, 16, 16> d; Tile<TileType::Vec, float, 16, 64> s; return plan_reduce(plan::TileOp::TROWSUM, p, d, s, s); }
