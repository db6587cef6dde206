// The TCOLPROD page's "Manual" example, as written (its function renamed: the TROWSUM example
// already defines example_manual).
#include <pto/pto-inst.hpp>

using namespace pto;

void example_tcolprod_manual() {
  using SrcT = Tile<TileType::Vec, float, 16, 16>;
  using DstT = Tile<TileType::Vec, float, 1, 16>;
  SrcT src;
  DstT dst;
  TASSIGN(src, 0x1000);
  TASSIGN(dst, 0x2000);
  TCOLPROD(dst, src);
}
