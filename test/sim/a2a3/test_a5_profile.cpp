// The A5 profile beside a2a3: its sizes (constants, the simulated core's memories, the planner's
// row-reduction rules), and one kernel giving the same bits on both where their rules agree.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core_sim.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tile_test;

namespace {

// One simulated AI Core of either profile; tile::Core follows the core's profile.
using Sim = CoreSim;

TEST(A5Profile, SizesBesideA2a3) {
  EXPECT_EQ(chip::a5::kUbBytes, 256u * 1024u);
  EXPECT_EQ(chip::a5::kL0CBytes, 256u * 1024u);
  EXPECT_EQ(chip::a5::kBiasTableBytes, 4096u);
  EXPECT_EQ(chip::a5::kL1Bytes, 512u * 1024u);
  EXPECT_EQ(chip::a5::kL0ABytes, 64u * 1024u);
  EXPECT_EQ(chip::a5::kVectorRegisterBytes, 256u);
  EXPECT_EQ(chip::a5::kVLanes * chip::a5::kVLaneBytes, 256u);
  EXPECT_EQ(chip::a5::lanes_per_register(2), 128u);
  EXPECT_EQ(chip::a5::lanes_per_register(4), 64u);
  // Where they differ.
  EXPECT_EQ(chip::region_size(Chip::a2a3, MemSpace::UB), 192u * 1024u);
  EXPECT_EQ(chip::region_size(Chip::a5, MemSpace::UB), 256u * 1024u);
  EXPECT_EQ(chip::region_size(Chip::a2a3, MemSpace::L0C), 128u * 1024u);
  EXPECT_EQ(chip::region_size(Chip::a5, MemSpace::L0C), 256u * 1024u);
  EXPECT_EQ(chip::region_size(Chip::a2a3, MemSpace::BiasTable), 1024u);
  EXPECT_EQ(chip::region_size(Chip::a5, MemSpace::BiasTable), 4096u);
  // Same address map and alignments.
  EXPECT_EQ(chip::region_of(Chip::a5, MemSpace::UB)->device_base, chip::a2a3::kUb.device_base);
  EXPECT_EQ(chip::region_alignment(Chip::a5, MemSpace::L0A), 512u);
  EXPECT_TRUE(chip::region_of(Chip::a5, MemSpace::LMEM) == nullptr);
  EXPECT_STREQ(chip::chip_name(Chip::a5), "a5");
#if defined(TILEFW_CHIP_A5)
  EXPECT_EQ(chip::kBuildChip, Chip::a5);  // a -Dchip=a5 build's static checks follow A5
#else
  EXPECT_EQ(chip::kBuildChip, Chip::a2a3);  // this build's static checks follow a2a3
#endif
}

TEST(A5Profile, SimulatedCoreMapsItsMemories) {
  port::host::Machine a2(port::host::kProfileA2a3);
  port::host::Machine a5(port::host::kProfileA5);
  const uint64_t ub = chip::a2a3::kUb.device_base;
  const uint64_t l0c = chip::a2a3::kL0C.device_base;
  const uint64_t bias = chip::a2a3::kBiasTable.device_base;
  EXPECT_TRUE(a2.translate(ub, 192 * 1024).ok());
  EXPECT_EQ(a2.translate(ub, 192 * 1024 + 32).status(), Status::region_overrun);
  EXPECT_TRUE(a5.translate(ub, 256 * 1024).ok());
  EXPECT_EQ(a5.translate(ub, 256 * 1024 + 32).status(), Status::region_overrun);
  EXPECT_EQ(a2.translate(l0c + 128 * 1024, 64).status(), Status::unmapped_address);
  EXPECT_TRUE(a5.translate(l0c + 128 * 1024, 64).ok());
  EXPECT_EQ(a2.translate(bias + 1024, 64).status(), Status::unmapped_address);
  EXPECT_TRUE(a5.translate(bias + 1024, 64).ok());
  port::host::A2a3Core c2(a2);
  port::host::A2a3Core c5(a5);
  EXPECT_EQ(c2.chip(), Chip::a2a3);
  EXPECT_EQ(c5.chip(), Chip::a5);
}

using Src = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using Dst = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, DYNAMIC, DYNAMIC>;
using Tmp = Tile<TileType::Vec, float, 16, 16>;

struct RowSum {
  Src src{16, 16};
  Dst dst{16, 1};
  Tmp tmp{};
  RowSum() {
    tile::TASSIGN<0x0>(src);
    tile::TASSIGN<0x2000>(dst);
    tile::TASSIGN<0x3000>(tmp);
  }
};

TEST(A5Profile, TrowsumValidRowMismatchRefusedOnA2a3AcceptedOnA5) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    RowSum k;
    ASSERT_EQ(k.dst.set_valid(8, 1), Status::ok);  // src has 16 valid rows
    float* x = reinterpret_cast<float*>(s.ub());
    for (int i = 0; i < 256; ++i) x[i] = 1.0f;
    const Result<tile::Event> r = tile::TROWSUM(s.core, k.dst, k.src, k.tmp);
    float out[16];
    std::memcpy(out, s.ub() + 0x2000, sizeof out);
    if (s.core.chip == Chip::a2a3) {
      EXPECT_EQ(r.status(), Status::plan_valid_shape_mismatch);
      EXPECT_EQ(out[0], 0.0f);  // nothing ran
    } else {
      ASSERT_TRUE(r.ok()) << status_name(r.status());
      for (float v : out) EXPECT_EQ(v, 16.0f);  // src's 16 valid rows reduced
    }
  }
}

TEST(A5Profile, TrowsumEmptySourceRefusedOnA2a3NothingOnA5) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    RowSum k;
    ASSERT_EQ(k.src.set_valid(0, 16), Status::ok);
    ASSERT_EQ(k.dst.set_valid(0, 1), Status::ok);
    std::memset(s.ub() + 0x2000, 0x7F, 64);
    const Result<tile::Event> r = tile::TROWSUM(s.core, k.dst, k.src, k.tmp);
    if (s.core.chip == Chip::a2a3) {
      EXPECT_EQ(r.status(), Status::plan_empty_valid_region);
    } else {
      ASSERT_TRUE(r.ok()) << status_name(r.status());
      EXPECT_EQ(s.ub()[0x2000], 0x7F);  // no row: no issue, dst untouched
    }
  }
}

// A5 loops over src's valid rows with no column: each row's dst element gets the sum's
// identity, +0, as its accumulator is stored with nothing folded in.
TEST(A5Profile, TrowsumNoValidColumnRefusedOnA2a3ZeroOnA5) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    RowSum k;
    ASSERT_EQ(k.src.set_valid(16, 0), Status::ok);
    std::memset(s.ub() + 0x2000, 0x7F, 128);
    const Result<tile::Event> r = tile::TROWSUM(s.core, k.dst, k.src, k.tmp);
    if (s.core.chip == Chip::a2a3) {
      EXPECT_EQ(r.status(), Status::plan_empty_valid_region);
      EXPECT_EQ(s.ub()[0x2000], 0x7F);
    } else {
      ASSERT_TRUE(r.ok()) << status_name(r.status());
      for (int i = 0; i < 64; ++i) EXPECT_EQ(s.ub()[0x2000 + i], 0u) << i;      // 16 x +0.0f
      for (int i = 64; i < 128; ++i) EXPECT_EQ(s.ub()[0x2000 + i], 0x7Fu) << i;  // past dst
    }
  }
}

TEST(A5Profile, TrowsumDtypeRuleSharedByBoth) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    Tile<TileType::Vec, int32_t, 16, 16> src;
    Tile<TileType::Vec, int32_t, 16, 1, BLayout::ColMajor> dst;
    Tile<TileType::Vec, int32_t, 16, 16> tmp;
    tile::TASSIGN<0x0>(src);
    tile::TASSIGN<0x2000>(dst);
    tile::TASSIGN<0x3000>(tmp);
    EXPECT_EQ(tile::TROWSUM(s.core, dst, src, tmp).status(), Status::plan_unsupported_dtype);
  }
}

// softmax-like kernel: row sums, then x + x, both in UB; a deterministic input. Rows of at most
// one repeat (64 floats): one vcadd on a2a3, one folded vcadd from +0 on A5, the same sums.
std::vector<uint8_t> run_kernel(uint32_t prof) {
  Sim s(prof);
  using Big = Tile<TileType::Vec, float, 32, 64>;
  Big x, y;
  Tile<TileType::Vec, float, 32, 1, BLayout::ColMajor> sums;
  Tile<TileType::Vec, float, 32, 64> tmp;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  tile::TASSIGN<0x8000>(sums);
  tile::TASSIGN<0x9000>(tmp);
  uint32_t state = 12345u;
  float* p = reinterpret_cast<float*>(s.ub());
  for (int i = 0; i < 32 * 64; ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = static_cast<float>(static_cast<int32_t>(state >> 8) % 2000) / 7.0f;
  }
  EXPECT_TRUE(tile::TROWSUM(s.core, sums, x, tmp).ok());
  EXPECT_TRUE(tile::TADD(s.core, y, x, x).ok());
  EXPECT_TRUE(tile::TMUL(s.core, y, y, x).ok());
  return std::vector<uint8_t>(s.ub(), s.ub() + 0x9000);
}

TEST(A5Profile, SameKernelSameBitsOnBoth) {
  const std::vector<uint8_t> a = run_kernel(port::host::kProfileA2a3);
  const std::vector<uint8_t> b = run_kernel(port::host::kProfileA5);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b);
  // The kernel did run: the sums are not all zero.
  bool nonzero = false;
  for (size_t i = 0x8000; i < 0x8000 + 128; ++i) nonzero = nonzero || a[i] != 0;
  EXPECT_TRUE(nonzero);
}

}  // namespace
