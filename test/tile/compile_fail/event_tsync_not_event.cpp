// EXPECT-FAIL: Fix: TSYNC waits on tile::Event values
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
Status f(Core& c) { return TSYNC(c, Pipe::V, 3); }
