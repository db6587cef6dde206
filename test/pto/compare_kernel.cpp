// A PTO kernel using TCMP, TCMPS and TSEL, compiled for the host (test_pto_compare runs it on
// the simulator) and for Cortex-M (the PTO header and these instructions must build there):
// m = TCMP(x, w, mode) as a u8 predicate tile, z = TSEL(m, x, w); s = TCMPS(x, scalar, LT),
// y = TSEL(s, w, x, tmp) over 16 x 16 float tiles, with a named Event<Op::TCMP, Op::TSEL> when
// `named_event`.
#include <cstdint>

#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int kR = 16, kC = 16;
using FullT = Tile<TileType::Vec, float, kR, kC>;
using MaskT = Tile<TileType::Vec, uint8_t, kR, 32, BLayout::RowMajor, -1, -1>;
using FullGm = GlobalTensor<float, Shape<1, 1, 1, kR, kC>, Stride<1, 1, 1, kC, 1>>;
using MaskGm = GlobalTensor<uint8_t, Shape<1, 1, 1, kR, kC / 8>, Stride<1, 1, 1, 32, 1>>;  // the valid bytes
}  // namespace

void compare_kernel(float* x, float* w, uint8_t* m, float* z, float* y, CmpMode mode, float scalar, bool named_event) {
  FullGm gx(x), gw(w), gz(z), gy(y);
  MaskGm gm(m);
  FullT a, b, out, out2, tmp;
  MaskT mask(kR, kC / 8), less(kR, kC / 8);
  TLOAD(a, gx);
  TLOAD(b, gw);
  if (named_event) {
    Event<Op::TCMP, Op::TSEL> e = TCMP(mask, a, b, mode);
    TSEL(out, mask, a, b, e);
  } else {
    TCMP(mask, a, b, mode);
    TSEL(out, mask, a, b);
  }
  TCMPS(less, a, scalar, CmpMode::LT);
  TSEL(out2, less, b, a, tmp);
  TSTORE(gm, mask);
  TSTORE(gz, out);
  TSTORE(gy, out2);
}
