// The PTO host harness on an A5 core (docs/a5-profile.md): the seed's TROWSUM "Manual" example
// gives the same bits as on a2a3, A5's UB is 256 KB, and TROWSUM's valid-region checks are
// a2a3's only.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <pto/host.hpp>

void example_manual();

namespace {

using namespace pto;
using tilefw::Status;
using tilefw::chip::Chip;
using tilefw::chip::MemSpace;

std::vector<uint8_t> manual_example_on(Chip chip) {
  pto::host::Core core(chip);
  float* src = reinterpret_cast<float*>(core.space(MemSpace::UB, 0x1000));
  for (int i = 0; i < 256; ++i) src[i] = static_cast<float>((i * 37) % 101) / 8.0f - 3.0f;
  example_manual();
  EXPECT_EQ(pto::status(), Status::ok);
  const uint8_t* dst = core.space(MemSpace::UB, 0x2000);
  return std::vector<uint8_t>(dst, dst + 64);
}

TEST(PtoA5, TrowsumManualExampleSameBitsOnBoth) {
  const std::vector<uint8_t> a = manual_example_on(Chip::a2a3);
  const std::vector<uint8_t> b = manual_example_on(Chip::a5);
  EXPECT_TRUE(a == b);
  float first = 0;
  std::memcpy(&first, a.data(), 4);
  EXPECT_NE(first, 0.0f);  // the example ran
}

TEST(PtoA5, UbIs256KbOnA5) {
  pto::host::Core a2(Chip::a2a3);
  EXPECT_TRUE(a2.space(MemSpace::UB, 200 * 1024) == nullptr);
  pto::host::Core a5(Chip::a5);
  EXPECT_TRUE(a5.space(MemSpace::UB, 200 * 1024) != nullptr);
  EXPECT_TRUE(a5.space(MemSpace::UB, 256 * 1024) == nullptr);
  EXPECT_TRUE(a5.space(MemSpace::L0C, 200 * 1024) != nullptr);
}

TEST(PtoA5, TrowsumValidRowsCheckedOnA2a3Only) {
  using SrcT = Tile<TileType::Vec, float, 16, 16>;
  using DstT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, DYNAMIC, 1>;
  using TmpT = Tile<TileType::Vec, float, 16, 16>;
  for (const Chip chip : {Chip::a2a3, Chip::a5}) {
    pto::host::Core core(chip);
    core.set_checked(true);
    SrcT src;
    DstT dst(8);  // src has 16 valid rows
    TmpT tmp;
    TASSIGN(src, 0x1000);
    TASSIGN(dst, 0x2000);
    TASSIGN(tmp, 0x3000);
    TROWSUM(dst, src, tmp);
    EXPECT_EQ(pto::status(), chip == Chip::a2a3 ? Status::plan_valid_shape_mismatch : Status::ok)
        << tilefw::chip::chip_name(chip);
    pto::clear_status();
  }
}

// A kernel whose tiles lie above a2a3's 192 KB of UB: placed and run on an A5 core with exact
// results (TASSIGN and every instruction bound by A5's 256 KB), refused on a2a3 at TASSIGN.
TEST(PtoA5, TilesAbove192KbRunOnA5AndAreRefusedOnA2a3) {
  using T = Tile<TileType::Vec, float, 16, 64>;  // 4 KB each
  for (const Chip chip : {Chip::a2a3, Chip::a5}) {
    pto::host::Core core(chip);
    core.set_checked(true);
    T a, b, c;
    TASSIGN(a, 0x31000);  // 196 KB
    TASSIGN(b, 0x3E000);
    TASSIGN(c, 0x3F000);  // the last 4 KB of A5's UB
    if (chip == Chip::a2a3) {
      EXPECT_EQ(pto::status(), Status::tile_out_of_bounds);
      continue;
    }
    ASSERT_EQ(pto::status(), Status::ok);
    float* pa = reinterpret_cast<float*>(core.space(MemSpace::UB, 0x31000));
    float* pb = reinterpret_cast<float*>(core.space(MemSpace::UB, 0x3E000));
    for (int i = 0; i < 1024; ++i) {
      pa[i] = static_cast<float>(i % 97) * 0.5f;
      pb[i] = 1.0f - static_cast<float>(i % 13);
    }
    TMUL(c, a, b);
    ASSERT_EQ(pto::status(), Status::ok) << tilefw::status_name(pto::status());
    const float* pc = reinterpret_cast<const float*>(core.space(MemSpace::UB, 0x3F000));
    for (int i = 0; i < 1024; ++i) ASSERT_EQ(pc[i], pa[i] * pb[i]) << i;
  }
}

}  // namespace
