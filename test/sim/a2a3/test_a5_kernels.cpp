// Tile kernels written for A5 (this file is built with TILEFW_CHIP_A5, as an A5 build compiles
// them: Tile<> and TASSIGN<addr> accept A5's sizes) on a simulated A5 core, and the same
// kernels on an a2a3 core, which refuses them at the first instruction touching a tile beyond
// its memory, naming its own limit. Results are checked exactly against scalar references
// written here.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "core_sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tilefw::tile;
using chip::Chip;
using chip::MemSpace;

namespace {

static_assert(chip::kBuildChip == Chip::a5, "this file is built as an A5 build compiles its kernels");

// The shared core, with GM put and get.
struct Sim : tile_test::CoreSim {
  using CoreSim::CoreSim;
  template <class T>
  void put(uint64_t gm_off, const std::vector<T>& v) {
    std::memcpy(at(MemSpace::GM, gm_off), v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> get(uint64_t gm_off, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), at(MemSpace::GM, gm_off), n * sizeof(T));
    return v;
  }
};

// ---- a 224 KB UB tile: load, y = x * x + x, store ----------------------------------------------
constexpr int kR = 224, kC = 256;  // 224 x 256 floats = 229376 bytes = 224 KB
using Big = Tile<TileType::Vec, float, kR, kC>;
static_assert(Big::Bytes == 224u * 1024u);
using Small = Tile<TileType::Vec, float, 16, kC>;  // 16 KB, placed after the big tile

std::vector<float> input() {
  std::vector<float> v(kR * kC);
  uint32_t s = 2026u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int32_t>(s >> 9) % 4096) / 64.0f;
  }
  return v;
}

// y = x * x + x: TLOAD, TMUL in place, TADD with the original reloaded into a second tile
// would need 448 KB; instead the square is formed in place and x's first 16 rows are kept in
// a 16 KB tile above the big one (ending at 240 KB, past a2a3's 192 KB too).
Result<Event> kernel(Sim& s, std::vector<float>& out) {
  GlobalTensor<float, kR, kC> gx, gy;
  GlobalTensor<float, 16, kC> gx16;
  if (TASSIGN(gx, 0x0) != Status::ok || TASSIGN(gy, 0x40000) != Status::ok || TASSIGN(gx16, 0x0) != Status::ok) {
    return Status::invalid_argument;
  }
  Big x;
  Small keep;
  TASSIGN<0x0>(x);
  TASSIGN<0x38000>(keep);
  Result<Event> e = TLOAD(s.core, x, gx);
  if (!e.ok()) return e;
  Result<Event> k = TLOAD(s.core, keep, gx16);
  if (!k.ok()) return k;
  e = TMUL(s.core, x, x, x, e.value());
  if (!e.ok()) return e;
  Small head;  // x's first 16 rows, now squared
  TASSIGN<0x0>(head);
  e = TADD(s.core, head, head, keep, e.value(), k.value());
  if (!e.ok()) return e;
  e = TSTORE(s.core, gy, x, e.value());
  if (!e.ok()) return e;
  out = s.get<float>(0x40000, kR * kC);
  return e;
}

TEST(A5Kernels, A224KbUbTileRunsExactlyOnA5) {
  Sim s(Chip::a5);
  const std::vector<float> x = input();
  s.put(0x0, x);
  std::vector<float> y;
  const Result<Event> r = kernel(s, y);
  ASSERT_TRUE(r.ok()) << status_name(r.status()) << " " << s.core.last_report.field << " limit "
                      << s.core.last_report.limit;
  for (int i = 0; i < kR * kC; ++i) {
    const float sq = x[i] * x[i];
    const float want = i < 16 * kC ? sq + x[i] : sq;
    ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want)) << i;
  }
  EXPECT_TRUE(s.core_model.pipes().hazards().empty());
}

TEST(A5Kernels, TheSameKernelIsRefusedOnA2a3NamingItsUb) {
  Sim s(Chip::a2a3);
  s.put(0x0, input());
  std::vector<float> y;
  const Result<Event> r = kernel(s, y);
  EXPECT_EQ(r.status(), Status::out_of_bounds);  // the first TLOAD: x ends at 224 KB
  EXPECT_STREQ(s.core.last_report.field, "dst");
  EXPECT_EQ(s.core.last_report.limit, 192u * 1024u);
  EXPECT_EQ(s.core_model.mte2().moves(), 0u);  // refused before any register write
  // A vector instruction on the big tile is refused by the planner, naming the tile and the limit.
  Big x;
  TASSIGN<0x0>(x);
  EXPECT_EQ(TADD(s.core, x, x, x).status(), Status::tile_out_of_bounds);
  EXPECT_STREQ(s.core.last_report.field, "dst");
  EXPECT_EQ(s.core.last_report.limit, 192u * 1024u);
}

// ---- L0C beyond 128 KB and the bias table beyond 1 KB --------------------------------------
constexpr int M = 32, K = 32, N = 32;

// `Left`: the kernel's Left tile, A5's (TileLeft in this A5 build: boxes in column order) unless
// a test names a2a3's.
template <class Left = TileLeft<half, M, K>>
Result<Event> matmul_bias(Sim& s) {
  GlobalTensor<half, M, K> ga;
  GlobalTensor<half, K, N> gb;
  GlobalTensor<float, 1, N> gbias;
  GlobalTensor<float, M, N> gc;
  (void)TASSIGN(ga, 0x0);
  (void)TASSIGN(gb, 0x1000);
  (void)TASSIGN(gbias, 0x2000);
  (void)TASSIGN(gc, 0x4000);
  Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor> ma;
  Tile<TileType::Mat, half, K, N, BLayout::RowMajor, K, N, SLayout::ColMajor> mb;
  Tile<TileType::Mat, float, 1, N> mbias;
  TASSIGN<0x7F000>(ma);  // the top of L1 (512 KB on both)
  TASSIGN<0x7E000>(mb);
  TASSIGN<0x7D000>(mbias);
  Left left;
  TileRight<half, K, N> right;
  TileAcc<float, M, N> acc;
  Tile<TileType::Bias, float, 1, N> bias;
  TASSIGN<0x0>(left);
  TASSIGN<0x0>(right);
  TASSIGN<0x3C000>(acc);  // 240 KB into L0C (A5: 256 KB; a2a3: 128 KB)
  TASSIGN<0xC00>(bias);   // 3 KB into the bias table (A5: 4 KB; a2a3: 1 KB)
  Result<Event> e1 = TLOAD(s.core, ma, ga);
  Result<Event> e2 = TLOAD(s.core, mb, gb);
  Result<Event> e3 = TLOAD(s.core, mbias, gbias);
  if (!e1.ok() || !e2.ok() || !e3.ok()) return !e1.ok() ? e1 : !e2.ok() ? e2 : e3;
  Result<Event> m1 = TMOV(s.core, left, ma, e1.value());
  Result<Event> m2 = TMOV(s.core, right, mb, e2.value());
  if (!m1.ok() || !m2.ok()) return !m1.ok() ? m1 : m2;
  Result<Event> m3 = TMOV(s.core, bias, mbias, e3.value());
  if (!m3.ok()) return m3;
  Result<Event> mm = TMATMUL_BIAS(s.core, acc, left, right, bias, m1.value(), m2.value(), m3.value());
  if (!mm.ok()) return mm;
  return TSTORE(s.core, gc, acc, mm.value());
}

void put_operands(Sim& s, std::vector<uint16_t>& a, std::vector<uint16_t>& b, std::vector<float>& bias) {
  a.resize(M * K);
  b.resize(K * N);
  bias.resize(N);
  for (int i = 0; i < M * K; ++i) a[i] = to_half(static_cast<float>((i * 7) % 13) * 0.125f - 0.5f).bits;
  for (int i = 0; i < K * N; ++i) b[i] = to_half(static_cast<float>((i * 5) % 11) * 0.25f - 1.0f).bits;
  for (int j = 0; j < N; ++j) bias[j] = 0.5f * static_cast<float>(j) - 3.0f;
  s.put(0x0, a);
  s.put(0x1000, b);
  s.put(0x2000, bias);
}

TEST(A5Kernels, MatmulWithAccAndBiasAboveA2a3sSizesRunsExactlyOnA5) {
  Sim s(Chip::a5);
  std::vector<uint16_t> a, b;
  std::vector<float> bias;
  put_operands(s, a, b, bias);
  const Result<Event> r = matmul_bias(s);
  ASSERT_TRUE(r.ok()) << status_name(r.status()) << " " << s.core.last_report.field;
  const std::vector<float> c = s.get<float>(0x4000, M * N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = bias[j];  // sequential in k, as the cube accumulates
      for (int k = 0; k < K; ++k) want = want + to_float(half{a[i * K + k]}) * to_float(half{b[k * N + j]});
      ASSERT_EQ(std::bit_cast<uint32_t>(c[i * N + j]), std::bit_cast<uint32_t>(want)) << i << "," << j;
    }
  }
}

TEST(A5Kernels, MatmulIsRefusedOnA2a3NamingItsLeftLayoutThenItsBiasTableThenItsL0c) {
  Sim s(Chip::a2a3);
  std::vector<uint16_t> a, b;
  std::vector<float> bias;
  put_operands(s, a, b, bias);
  // As written for A5, the kernel's first refusal is its Left tile: a2a3's L0A holds boxes in
  // row order, not A5's column order.
  EXPECT_EQ(matmul_bias(s).status(), Status::desc_layout_unsupported);
  EXPECT_STREQ(s.core.last_report.field, "dst.layout");
  // With a2a3's Left tile, the first instruction beyond a2a3's memory is the TMOV into the bias
  // table at 3 KB.
  EXPECT_EQ((matmul_bias<TileLeftFor<Chip::a2a3, half, M, K>>(s).status()), Status::out_of_bounds);
  EXPECT_STREQ(s.core.last_report.field, "dst");
  EXPECT_EQ(s.core.last_report.limit, 1024u);
  // With the bias inside a2a3's table, the matmul itself is refused: C at 240 KB of L0C.
  TileLeftFor<Chip::a2a3, half, M, K> left;
  TileRight<half, K, N> right;
  TileAcc<float, M, N> acc;
  TASSIGN<0x0>(left);
  TASSIGN<0x0>(right);
  TASSIGN<0x3C000>(acc);
  EXPECT_EQ(TMATMUL(s.core, acc, left, right).status(), Status::out_of_bounds);
  EXPECT_STREQ(s.core.last_report.field, "c");
  EXPECT_EQ(s.core.last_report.limit, 128u * 1024u);
}

}  // namespace
