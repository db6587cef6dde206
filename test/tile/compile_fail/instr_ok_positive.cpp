// EXPECT-OK
#include "tilefw/tile/instr.hpp"
using namespace tilefw;
using namespace tilefw::tile;
// Every instruction with well-formed operands compiles (the negative snippets differ from
// these only in the operand they break).
Result<Event> f(Core& c, Event e) {
  Tile<TileType::Vec, float, 16, 16> d, a;
  Tile<TileType::Vec, half, 16, 16> h;
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> col;
  (void)TADD(c, d, d, a, e);
  (void)TADDS(c, d, a, 1.0f, e, e);
  (void)TEXP(c, d, a);
  (void)TROWSUM(c, col, d, a, e);
  (void)TROWEXPANDADD(c, d, a, col);
  (void)TROWEXPANDADD_TMP(c, d, a, col, a);
  (void)TROWEXPAND_TMP(c, d, col, a);
  (void)TEXPANDS(c, h, half{});
  (void)TCVT(c, h, d, desc::RoundMode::rint);
  GlobalTensor<float, 16, 16> g;
  GlobalTensor<half, 16, 16> gh;
  Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor> m;
  TileLeft<half, 16, 16> l;
  TileRight<half, 16, 16> r;
  TileAcc<float, 16, 16> acc;
  Tile<TileType::Mat, float, 1, 16> mb;
  Tile<TileType::Bias, float, 1, 16> z;
  (void)TLOAD(c, d, g);
  (void)TLOAD(c, m, gh);
  (void)TSTORE(c, g, d, e);
  (void)TSTORE(c, gh, acc);
  (void)TMOV(c, l, m);
  (void)TMOV(c, z, mb);
  (void)TMOV(c, h, acc);
  (void)TMATMUL(c, acc, l, r);
  TileLeftFor<chip::Chip::a5, half, 16, 16> l5;  // A5's Left tile (boxes in column order) compiles in any build
  (void)TMOV(c, l5, m);
  (void)TMATMUL(c, acc, l5, r);
  (void)TMATMUL_BIAS(c, acc, l, r, z, e);
  (void)TSYNC(c, Pipe::V, e, e);
  return TMATMUL_ACC(c, acc, l, r, e);
}
