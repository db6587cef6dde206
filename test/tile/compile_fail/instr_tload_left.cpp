// EXPECT-FAIL: Fix: TLOAD loads Vec (UB) or Mat (L1) tiles
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Result<Event> f(Core& c) { TileLeft<half, 16, 16> l; GlobalTensor<half, 16, 16> g; return TLOAD(c, l, g); }
