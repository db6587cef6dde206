// The TTRANS page's "Manual" example, as written (its function renamed: the TROWSUM example
// already defines example_manual): TASSIGN as a statement, then the instruction.
#include <pto/pto-inst.hpp>

using namespace pto;

void example_ttrans_manual() {
  using SrcT = Tile<TileType::Vec, float, 16, 16>;
  using DstT = Tile<TileType::Vec, float, 16, 16>;
  using TmpT = Tile<TileType::Vec, float, 16, 16>;
  SrcT src;
  DstT dst;
  TmpT tmp;
  TASSIGN(src, 0x1000);
  TASSIGN(dst, 0x2000);
  TASSIGN(tmp, 0x3000);
  TTRANS(dst, src, tmp);
}
