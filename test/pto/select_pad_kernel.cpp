// A PTO kernel using TFILLPAD and TSELS, compiled for the host (test_pto_select_pad runs it on
// the simulator) and for Cortex-M (the PTO header and these instructions must build there):
// z = TSELS(TFILLPAD(x's 10 x 13 corner, PadValue::Min), w, mode) over 16 x 16 float tiles,
// with named events (Event<Op::TFILLPAD, Op::TSELS> and the load's) when `named_event`.
#include <cstdint>

#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
constexpr int kR = 16, kC = 16, kVr = 10, kVc = 13;
using SrcT = Tile<TileType::Vec, float, kR, kC, BLayout::RowMajor, kVr, kVc>;
using MinT = Tile<TileType::Vec, float, kR, kC, BLayout::RowMajor, kR, kC, SLayout::NoneBox, TileConfig::fractalABSize,
                  PadValue::Min>;
using FullT = Tile<TileType::Vec, float, kR, kC>;
using CornerGm = GlobalTensor<float, Shape<1, 1, 1, kVr, kVc>, Stride<1, 1, 1, kC, 1>>;
using FullGm = GlobalTensor<float, Shape<1, 1, 1, kR, kC>, Stride<1, 1, 1, kC, 1>>;
}  // namespace

void select_pad_kernel(float* x, float* w, float* z, uint8_t mode, bool named_event) {
  CornerGm gx(x);
  FullGm gw(w), gz(z);
  SrcT src;
  MinT padded;
  FullT other, out;
  TLOAD(src, gx);
  if (named_event) {
    // Given events, an instruction waits for exactly those: TSELS names both of its producers.
    Event<Op::TLOAD, Op::TSELS> loaded = TLOAD(other, gw);
    Event<Op::TFILLPAD, Op::TSELS> e = TFILLPAD(padded, src);
    TSELS(out, padded, other, mode, e, loaded);
  } else {
    TLOAD(other, gw);
    TFILLPAD(padded, src);
    TSELS(out, padded, other, mode);
  }
  TSTORE(gz, out);
}
