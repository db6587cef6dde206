// TROWSUM / TROWMAX / TROWMIN on an A5 simulated core: a row is reduced in vector registers
// (per repeat of 64 floats or 128 halves the lanes' sum tree, or their max / min, folded in repeat
// order into one accumulator from +0, -inf or +inf), so tmp is never touched and the sums round
// as A5 rounds them, not as a2a3's pairwise chunk folding does. The references below are scalar
// loops written here; they share nothing with the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core_sim.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tile_test;

namespace {

// One simulated AI Core of either profile; tile::Core follows the core's profile.
using Sim = CoreSim;

// ---- references -----------------------------------------------------------------------------
// The lanes of one repeat summed as adjacent pairs, level by level (a vcadd).
float pair_tree(std::vector<float> v) {
  for (size_t n = v.size(); n > 1; n /= 2) {
    for (size_t i = 0; i < n / 2; ++i) v[i] = v[2 * i] + v[2 * i + 1];
  }
  return v[0];
}
// A5's row sum: per 64-lane repeat its pair tree (lanes past the valid columns are +0), added in
// repeat order to an accumulator that starts at +0.
float a5_row_sum(const float* row, uint32_t cols) {
  float acc = 0.0f;
  for (uint32_t c = 0; c < cols; c += 64) {
    std::vector<float> v(64, 0.0f);
    for (uint32_t k = 0; k < 64 && c + k < cols; ++k) v[k] = row[c + k];
    acc = acc + pair_tree(v);
  }
  return acc;
}
// The same in half precision: every add rounded once to half. The inputs are multiples of 1/8
// below 2^12, so each float add of two halves is exact and one conversion rounds it.
_Float16 h_add(_Float16 a, _Float16 b) { return static_cast<_Float16>(static_cast<float>(a) + static_cast<float>(b)); }
_Float16 a5_row_sum_h(const _Float16* row, uint32_t cols) {
  _Float16 acc = 0;
  for (uint32_t c = 0; c < cols; c += 128) {
    std::vector<_Float16> v(128, _Float16(0));
    for (uint32_t k = 0; k < 128 && c + k < cols; ++k) v[k] = row[c + k];
    for (size_t n = v.size(); n > 1; n /= 2) {
      for (size_t i = 0; i < n / 2; ++i) v[i] = h_add(v[2 * i], v[2 * i + 1]);
    }
    acc = h_add(acc, v[0]);
  }
  return acc;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

constexpr uint32_t kSrc = 0x0, kDst = 0x8000, kTmp = 0x9000;
constexpr uint32_t kRows = 8, kCols = 200;
using SrcF = Tile<TileType::Vec, float, kRows, kCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using DstF = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor, DYNAMIC, DYNAMIC>;
using TmpF = Tile<TileType::Vec, float, kRows, 256>;

// Row 0 makes the two orders differ: 1e8 in lane 0 of repeats 0 and -1e8 in lane 0 of repeat 1
// cancel lane-wise on a2a3 (every 1 survives) but absorb 1s in each repeat's tree on A5. The
// other rows are pseudo-random thirds.
void fill_src(float* x) {
  uint32_t state = 977u;
  for (uint32_t i = 0; i < kRows * kCols; ++i) {
    state = state * 1664525u + 1013904223u;
    x[i] = static_cast<float>(static_cast<int32_t>(state >> 9) % 30001) / 3.0f;
  }
  for (uint32_t c = 0; c < kCols; ++c) x[c] = 1.0f;
  x[0] = 1e8f;
  x[64] = -1e8f;
}

struct RowSumRun {
  std::vector<uint8_t> ub;
  Status status = Status::ok;
};
RowSumRun run_rowsum(uint32_t profile, uint32_t valid_cols) {
  Sim s(profile);
  SrcF src{kRows, valid_cols};
  DstF dst{kRows, 1};
  TmpF tmp;
  tile::TASSIGN<kSrc>(src);
  tile::TASSIGN<kDst>(dst);
  tile::TASSIGN<kTmp>(tmp);
  fill_src(reinterpret_cast<float*>(s.ub() + kSrc));
  std::memset(s.ub() + kDst, 0x5A, 64);
  std::memset(s.ub() + kTmp, 0xA5, kRows * 256 * 4);
  RowSumRun r;
  r.status = tile::TROWSUM(s.core, dst, src, tmp).status();
  r.ub.assign(s.ub(), s.ub() + kTmp + kRows * 256 * 4);
  return r;
}

bool tmp_untouched(const std::vector<uint8_t>& ub) {
  for (uint32_t i = kTmp; i < kTmp + kRows * 256 * 4; ++i) {
    if (ub[i] != 0xA5) return false;
  }
  return true;
}

TEST(A5RowReduce, TrowsumF32FoldsRepeatsInRegistersTmpUntouched) {
  for (const uint32_t vc : {200u, 192u, 65u, 130u}) {
    const RowSumRun a5 = run_rowsum(port::host::kProfileA5, vc);
    ASSERT_EQ(a5.status, Status::ok) << vc;
    EXPECT_TRUE(tmp_untouched(a5.ub)) << vc;
    std::vector<float> x(kRows * kCols);
    fill_src(x.data());
    for (uint32_t i = 0; i < kRows; ++i) {
      float got = 0;
      std::memcpy(&got, a5.ub.data() + kDst + 4 * i, 4);
      EXPECT_EQ(bits(got), bits(a5_row_sum(x.data() + i * kCols, vc))) << "cols " << vc << " row " << i;
    }
  }
}

// The same instruction on a2a3 folds chunks lane-wise through tmp: tmp is written and row 0's sum
// rounds differently (the reference above is A5's alone).
TEST(A5RowReduce, A2a3RoundsRowZeroOtherwiseAndWritesTmp) {
  const RowSumRun a2 = run_rowsum(port::host::kProfileA2a3, kCols);
  ASSERT_EQ(a2.status, Status::ok);
  EXPECT_FALSE(tmp_untouched(a2.ub));
  std::vector<float> x(kRows * kCols);
  fill_src(x.data());
  float got = 0;
  std::memcpy(&got, a2.ub.data() + kDst, 4);
  EXPECT_EQ(got, 198.0f);  // 1e8 - 1e8 lane-wise, then 198 ones
  EXPECT_NE(bits(got), bits(a5_row_sum(x.data(), kCols)));
}

// tmp may even alias src on A5: nothing writes it.
TEST(A5RowReduce, TmpAliasingSrcIsHarmlessOnA5) {
  Sim s(port::host::kProfileA5);
  SrcF src{kRows, kCols};
  DstF dst{kRows, 1};
  Tile<TileType::Vec, float, kRows, kCols> tmp;
  tile::TASSIGN<kSrc>(src);
  tile::TASSIGN<kDst>(dst);
  tile::TASSIGN<kSrc>(tmp);
  float* x = reinterpret_cast<float*>(s.ub() + kSrc);
  fill_src(x);
  const std::vector<float> before(x, x + kRows * kCols);
  ASSERT_TRUE(tile::TROWSUM(s.core, dst, src, tmp).ok());
  EXPECT_TRUE(std::memcmp(before.data(), x, before.size() * 4) == 0);
  const float* out = reinterpret_cast<const float*>(s.ub() + kDst);
  for (uint32_t i = 0; i < kRows; ++i) EXPECT_EQ(bits(out[i]), bits(a5_row_sum(before.data() + i * kCols, kCols)));
}

// TROWMAX / TROWMIN: every repeat's extreme folded from -inf / +inf; a NaN anywhere gives NaN.
TEST(A5RowReduce, TrowmaxTrowminF32) {
  Sim s(port::host::kProfileA5);
  SrcF src{kRows, 150};
  DstF mx{kRows, 1};
  Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor, DYNAMIC, DYNAMIC> mn{kRows, 1};
  TmpF tmp;
  tile::TASSIGN<kSrc>(src);
  tile::TASSIGN<kDst>(mx);
  tile::TASSIGN<kDst + 0x100>(mn);
  tile::TASSIGN<kTmp>(tmp);
  float* x = reinterpret_cast<float*>(s.ub() + kSrc);
  fill_src(x);
  for (uint32_t i = 0; i < kRows * kCols; ++i) x[i] = -std::fabs(x[i]) - 1.0f;  // all below 0
  x[3 * kCols + 149] = std::numeric_limits<float>::quiet_NaN();                   // row 3, last valid column
  x[5 * kCols + 150] = 1e30f;                                                      // past the valid columns
  std::memset(s.ub() + kTmp, 0xA5, kRows * 256 * 4);
  ASSERT_TRUE(tile::TROWMAX(s.core, mx, src, tmp).ok());
  ASSERT_TRUE(tile::TROWMIN(s.core, mn, src, tmp).ok());
  std::vector<uint8_t> t(s.ub() + kTmp, s.ub() + kTmp + kRows * 256 * 4);
  EXPECT_TRUE(std::all_of(t.begin(), t.end(), [](uint8_t b) { return b == 0xA5; }));
  const float* omx = reinterpret_cast<const float*>(s.ub() + kDst);
  const float* omn = reinterpret_cast<const float*>(s.ub() + kDst + 0x100);
  for (uint32_t i = 0; i < kRows; ++i) {
    if (i == 3) {
      EXPECT_TRUE(std::isnan(omx[i]));
      EXPECT_TRUE(std::isnan(omn[i]));
      continue;
    }
    float want_max = -INFINITY, want_min = INFINITY;
    for (uint32_t c = 0; c < 150; ++c) {
      want_max = std::max(want_max, x[i * kCols + c]);
      want_min = std::min(want_min, x[i * kCols + c]);
    }
    EXPECT_EQ(bits(omx[i]), bits(want_max)) << i;
    EXPECT_EQ(bits(omn[i]), bits(want_min)) << i;
  }
}

// Half: 128 lanes per repeat, every add rounded to half; a row-major dst gets column 0 only.
TEST(A5RowReduce, TrowsumF16RowMajorDst) {
  Sim s(port::host::kProfileA5);
  constexpr uint32_t kC = 320, kValid = 300;
  Tile<TileType::Vec, half, 16, kC, BLayout::RowMajor, DYNAMIC, DYNAMIC> src{16, kValid};
  Tile<TileType::Vec, half, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC> dst{16, 1};
  Tile<TileType::Vec, half, 16, kC> tmp;
  tile::TASSIGN<kSrc>(src);
  tile::TASSIGN<0x4000>(dst);
  tile::TASSIGN<0x6000>(tmp);
  auto* x = reinterpret_cast<_Float16*>(s.ub() + kSrc);
  uint32_t state = 31u;
  for (uint32_t i = 0; i < 16 * kC; ++i) {
    state = state * 1664525u + 1013904223u;
    x[i] = static_cast<_Float16>(static_cast<float>(static_cast<int32_t>(state >> 11) % 8000) / 8.0f);
  }
  std::memset(s.ub() + 0x4000, 0x5A, 16 * 16 * 2);
  std::memset(s.ub() + 0x6000, 0xA5, 16 * kC * 2);
  ASSERT_TRUE(tile::TROWSUM(s.core, dst, src, tmp).ok());
  const auto* out = reinterpret_cast<const uint16_t*>(s.ub() + 0x4000);
  for (uint32_t i = 0; i < 16; ++i) {
    const _Float16 want = a5_row_sum_h(x + i * kC, kValid);
    EXPECT_EQ(out[i * 16], std::bit_cast<uint16_t>(want)) << i;
    for (uint32_t c = 1; c < 16; ++c) EXPECT_EQ(out[i * 16 + c], 0x5A5Au) << i << "," << c;
  }
  for (uint32_t i = 0x6000; i < 0x6000 + 16 * kC * 2; ++i) ASSERT_EQ(s.ub()[i], 0xA5) << i;
}

// Valid rows without a valid column: the identity of the op in each valid row's dst element
// (-inf for the maximum, +inf for the minimum), nothing else written.
TEST(A5RowReduce, NoValidColumnStoresTheIdentity) {
  Sim s(port::host::kProfileA5);
  SrcF src{5, 0};
  DstF mn{kRows, 1};
  Tile<TileType::Vec, half, kRows, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC> mx{kRows, 1};
  Tile<TileType::Vec, half, kRows, 256, BLayout::RowMajor, DYNAMIC, DYNAMIC> hsrc{5, 0};
  TmpF tmp;
  Tile<TileType::Vec, half, kRows, 256> htmp;
  tile::TASSIGN<kSrc>(src);
  tile::TASSIGN<kSrc>(hsrc);
  tile::TASSIGN<kDst>(mn);
  tile::TASSIGN<kDst + 0x100>(mx);
  tile::TASSIGN<kTmp>(tmp);
  tile::TASSIGN<kTmp>(htmp);
  std::memset(s.ub() + kDst, 0x5A, 0x200);
  ASSERT_TRUE(tile::TROWMIN(s.core, mn, src, tmp).ok());
  ASSERT_TRUE(tile::TROWMAX(s.core, mx, hsrc, htmp).ok());
  const auto* f = reinterpret_cast<const uint32_t*>(s.ub() + kDst);
  for (uint32_t i = 0; i < kRows; ++i) EXPECT_EQ(f[i], i < 5 ? 0x7F800000u : 0x5A5A5A5Au) << i;
  const auto* h = reinterpret_cast<const uint16_t*>(s.ub() + kDst + 0x100);
  for (uint32_t i = 0; i < kRows; ++i) {
    EXPECT_EQ(h[i * 16], i < 5 ? 0xFC00u : 0x5A5Au) << i;
    for (uint32_t c = 1; c < 16; ++c) EXPECT_EQ(h[i * 16 + c], 0x5A5Au) << i << "," << c;
  }
}

}  // namespace
