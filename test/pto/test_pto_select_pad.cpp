// TFILLPAD and TSELS through PTO's spellings on the simulated AI Core: a ragged GM corner padded
// with the destination's PadValue, then selected, under Auto placement and with a named
// Event<Op::TFILLPAD, Op::TSELS>; a failure names its field. References are written here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include <pto/host.hpp>

namespace {

using namespace pto;
using tilefw::Status;

constexpr int kR = 16, kC = 16, kVr = 10, kVc = 13;
using SrcT = Tile<TileType::Vec, float, kR, kC, BLayout::RowMajor, kVr, kVc>;
using MinT = Tile<TileType::Vec, float, kR, kC, BLayout::RowMajor, kR, kC, SLayout::NoneBox, TileConfig::fractalABSize,
                  PadValue::Min>;
using FullT = Tile<TileType::Vec, float, kR, kC>;
using CornerGm = GlobalTensor<float, Shape<1, 1, 1, kVr, kVc>, Stride<1, 1, 1, kC, 1>>;
using FullGm = GlobalTensor<float, Shape<1, 1, 1, kR, kC>, Stride<1, 1, 1, kC, 1>>;

float value(int i) { return static_cast<float>((i * 29) % 97) * 0.25f - 11.0f; }

// z = TSELS(TFILLPAD(x's corner), w, mode): the padded tile when mode is 1, w otherwise.
void kernel(float* x, float* w, float* z, uint8_t mode, bool named_event) {
  CornerGm gx(x);
  FullGm gw(w), gz(z);
  SrcT src;
  MinT padded;
  FullT other, out;
  TLOAD(src, gx);
  TLOAD(other, gw);
  if (named_event) {
    Event<Op::TFILLPAD, Op::TSELS> e = TFILLPAD(padded, src);
    TSELS(out, padded, other, mode, e);
  } else {
    TFILLPAD(padded, src);
    TSELS(out, padded, other, mode);
  }
  TSTORE(gz, out);
}

TEST(PtoSelectPad, FillPadMinThenSelectBitExact) {
  for (const auto chip : {tilefw::chip::Chip::a2a3, tilefw::chip::Chip::a5}) {
    for (const uint8_t mode : {uint8_t{1}, uint8_t{0}}) {
      for (const bool named : {false, true}) {
        host::Core core(chip);
        float* x = host::gm<float>(kR * kC);
        float* w = host::gm<float>(kR * kC);
        float* z = host::gm<float>(kR * kC);
        for (int i = 0; i < kR * kC; ++i) {
          x[i] = value(i);
          w[i] = value(i + 5) * 3.0f;
        }
        kernel(x, w, z, mode, named);
        ASSERT_EQ(pto::status(), Status::ok);
        EXPECT_EQ(core.npu().pipes().hazard_count(), 0u);
        for (int i = 0; i < kR * kC; ++i) {
          const int r = i / kC, c = i % kC;
          const float pad = -std::numeric_limits<float>::infinity();
          const float want = mode != 1 ? w[i] : (r < kVr && c < kVc ? x[i] : pad);
          uint32_t gb, wb;
          std::memcpy(&gb, &z[i], 4);
          std::memcpy(&wb, &want, 4);
          EXPECT_EQ(gb, wb) << "element " << i << " mode " << int{mode};
        }
      }
    }
  }
}

TEST(PtoSelectPad, MismatchedValidRegionNamesTheField) {
  host::Core core;
  core.set_checked(true);
  FullT a, d;
  Tile<TileType::Vec, float, kR, kC, BLayout::RowMajor, kR, 8> b;
  TSELS(d, a, b, 0);
  const Failure f = pto::last_failure();
  EXPECT_EQ(f.status, Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(f.instr, "TSELS");
  EXPECT_STREQ(f.report.field, "src1.valid_cols");
}

}  // namespace
