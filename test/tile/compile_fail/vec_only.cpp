// EXPECT-FAIL: Fix: vector tile instructions take unboxed Vec tiles
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Status f(plan::Plan& p) { Tile<TileType::Mat, float, 8, 8> a; return plan_binary(plan::TileOp::TADD, p, a, a, a); }
