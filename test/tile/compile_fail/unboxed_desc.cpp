// EXPECT-FAIL: Fix: only unboxed (SLayout::NoneBox) tiles have a planner description
#include "tilefw/tile/tile.hpp"
using namespace tilefw;
using namespace tilefw::tile;
plan::TileDesc f() { TileLeft<half, 32, 64> l; return l.desc(); }
