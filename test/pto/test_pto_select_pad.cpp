// TFILLPAD and TSELS through PTO's spellings on the simulated AI Core: a ragged GM corner padded
// with the destination's PadValue, then selected, under Auto placement and with a named
// Event<Op::TFILLPAD, Op::TSELS>; a failure names its field. References are written here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include <pto/host.hpp>

// test/pto/select_pad_kernel.cpp (also compiled for Cortex-M): z = TSELS(TFILLPAD(x's 10 x 13
// corner, PadValue::Min), w, mode) over 16 x 16 tiles.
void select_pad_kernel(float* x, float* w, float* z, uint8_t mode, bool named_event);

namespace {

using namespace pto;
using tilefw::Status;

constexpr int kR = 16, kC = 16, kVr = 10, kVc = 13;
using FullT = Tile<TileType::Vec, float, kR, kC>;

float value(int i) { return static_cast<float>((i * 29) % 97) * 0.25f - 11.0f; }

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
        select_pad_kernel(x, w, z, mode, named);
        ASSERT_EQ(pto::status(), Status::ok);
        EXPECT_EQ(core.npu().pipes().hazard_count(), 0u) << "mode " << int{mode} << " named " << named;
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
