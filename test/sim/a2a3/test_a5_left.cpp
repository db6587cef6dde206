// A5's Left tile (L0A) beside a2a3's: the bytes a TMOV writes into L0A on each profile against
// the documented layout, computed here from the rule alone; the cube reading each profile's
// layout, so a matmul gives the same bits on both; the refusals of a Left tile laid out for
// the other profile; and the box rules (16 rows x 32 B, 512 B) on A5 at the validators.
//
// The rule (PTO's TileLeft: RowMajor outer on a2a3, ColMajor outer on A5, RowMajor inner on
// both; box 16 x 32/sizeof(T), 512 B): element (r, c) of an R x C Left tile lies in box
// (r / 16, c / c0), c0 = 32 / sizeof(T), at (r % 16) * 32 + (c % c0) * sizeof(T) inside it;
// a2a3 puts box (i, j) at (i * C / c0 + j) * 512, A5 at (j * R / 16 + i) * 512.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "core_sim.hpp"
#include "a2a3/tile_check.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/desc/validate_tile_move.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tilefw::tile;
using chip::Chip;
using chip::MemSpace;

namespace {

constexpr uint8_t kFill = 0xA5;  // L0A's bytes before the move
constexpr uint64_t kLeftAt = 0x400;  // two boxes into L0A

// Byte offset of element (r, c) in an R x C Left tile of `elem`-byte elements on `on`,
// from the rule in the header comment (not from the code under test).
uint64_t left_byte(Chip on, uint32_t R, uint32_t C, uint32_t elem, uint32_t r, uint32_t c) {
  const uint32_t c0 = 32 / elem;
  const uint32_t i = r / 16, j = c / c0;
  const uint64_t box = on == Chip::a5 ? uint64_t{j} * (R / 16) + i : uint64_t{i} * (C / c0) + j;
  return box * 512 + (r % 16) * 32 + (c % c0) * elem;
}

using Sim = tile_test::CoreSim;

// Distinct bit patterns per element (moves copy bits; the matmul tests use real values).
template <class Bits>
std::vector<Bits> pattern(uint32_t rows, uint32_t cols) {
  std::vector<Bits> v(size_t{rows} * cols);
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = static_cast<Bits>(i * 2654435761u >> 7 | 1u);
  return v;
}

// GM (VR x VC row-major) -> Mat tile MatT -> Left tile LeftT at kLeftAt; returns the status of
// the first failing instruction. L0A is filled with kFill first.
template <class LeftT, class MatT, class Bits>
Status load_left(Sim& s, const std::vector<Bits>& data) {
  using T = typename LeftT::DType;
  static_assert(sizeof(T) == sizeof(Bits));
  constexpr int VR = LeftT::ValidRow, VC = LeftT::ValidCol;
  std::memcpy(s.at(MemSpace::GM, 0), data.data(), data.size() * sizeof(Bits));
  std::memset(s.at(MemSpace::L0A, 0), kFill, 64 * 1024);
  GlobalTensor<T, VR, VC> g;
  (void)TASSIGN(g, 0x0);
  MatT mat;
  LeftT left;
  TASSIGN<0x0>(mat);
  TASSIGN<kLeftAt>(left);
  const Result<Event> loaded = TLOAD(s.core, mat, g);
  if (!loaded.ok()) return loaded.status();
  return TMOV(s.core, left, mat, loaded.value()).status();
}

// Every byte of the Left tile's capacity (and the box after it) against the rule: valid
// elements at their place, everything else untouched.
template <class Bits>
void expect_left_bytes(Sim& s, Chip on, uint32_t R, uint32_t C, uint32_t VR, uint32_t VC,
                       const std::vector<Bits>& data) {
  const uint32_t elem = sizeof(Bits);
  std::vector<uint8_t> want(size_t{R} * C * elem + 512, kFill);
  for (uint32_t r = 0; r < VR; ++r) {
    for (uint32_t c = 0; c < VC; ++c) {
      std::memcpy(&want[left_byte(on, R, C, elem, r, c)], &data[size_t{r} * VC + c], elem);
    }
  }
  const uint8_t* got = s.at(MemSpace::L0A, kLeftAt);
  for (size_t b = 0; b < want.size(); ++b) ASSERT_EQ(got[b], want[b]) << chip::chip_name(on) << " byte " << b;
  EXPECT_EQ(s.at(MemSpace::L0A, 0)[kLeftAt - 1], kFill);  // nothing before the tile
}

template <int R, int C>
using MatNzHalf = Tile<TileType::Mat, half, R, C, BLayout::ColMajor, R, C, SLayout::RowMajor>;

// ---- the bytes in L0A -----------------------------------------------------------------------

TEST(A5Left, TmovWritesColumnOrderedBoxesOnA5AndRowOrderedOnA2a3) {
  constexpr int R = 32, C = 48;  // 2 x 3 boxes of 16 x 16 halves
  const std::vector<uint16_t> data = pattern<uint16_t>(R, C);
  Sim a5(Chip::a5);
  ASSERT_EQ((load_left<TileLeftFor<Chip::a5, half, R, C>, MatNzHalf<R, C>>(a5, data)), Status::ok);
  expect_left_bytes(a5, Chip::a5, R, C, R, C, data);
  Sim a2(Chip::a2a3);
  ASSERT_EQ((load_left<TileLeftFor<Chip::a2a3, half, R, C>, MatNzHalf<R, C>>(a2, data)), Status::ok);
  expect_left_bytes(a2, Chip::a2a3, R, C, R, C, data);
  // The layouts differ where they should: box (1, 0) is A5's second box, a2a3's fourth.
  EXPECT_NE(std::memcmp(a5.at(MemSpace::L0A, kLeftAt), a2.at(MemSpace::L0A, kLeftAt), R * C * 2), 0);
  EXPECT_EQ(std::memcmp(a5.at(MemSpace::L0A, kLeftAt + 512), a2.at(MemSpace::L0A, kLeftAt + 3 * 512), 512), 0);
}

TEST(A5Left, EveryElementSizeAndSourceLayoutLandsInA5sBoxes) {
  // f32 (16 x 8 boxes), i8 (16 x 32), from an Nz Mat tile and from a Zn one (A5's TEXTRACT
  // takes both sources for a Left tile); the move re-lays each element out.
  {
    constexpr int R = 48, C = 24;
    const std::vector<uint32_t> data = pattern<uint32_t>(R, C);
    Sim s(Chip::a5);
    using Mat = Tile<TileType::Mat, float, R, C, BLayout::ColMajor, R, C, SLayout::RowMajor>;
    ASSERT_EQ((load_left<TileLeftFor<Chip::a5, float, R, C>, Mat>(s, data)), Status::ok);
    expect_left_bytes(s, Chip::a5, R, C, R, C, data);
  }
  {
    constexpr int R = 32, C = 96;
    const std::vector<uint8_t> data = pattern<uint8_t>(R, C);
    Sim s(Chip::a5);
    using Mat = Tile<TileType::Mat, int8_t, R, C, BLayout::RowMajor, R, C, SLayout::ColMajor>;  // Zn
    ASSERT_EQ((load_left<TileLeftFor<Chip::a5, int8_t, R, C>, Mat>(s, data)), Status::ok);
    expect_left_bytes(s, Chip::a5, R, C, R, C, data);
  }
}

TEST(A5Left, APartialValidRegionWritesOnlyItsElementsAtA5sPlaces) {
  constexpr int R = 48, C = 48, VR = 20, VC = 40;
  const std::vector<uint16_t> data = pattern<uint16_t>(VR, VC);
  Sim s(Chip::a5);
  using Mat = Tile<TileType::Mat, half, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor>;
  ASSERT_EQ((load_left<TileLeftFor<Chip::a5, half, R, C, VR, VC>, Mat>(s, data)), Status::ok);
  expect_left_bytes(s, Chip::a5, R, C, VR, VC, data);
}

TEST(A5Left, TileLeftFollowsTheBuildsProfile) {
  static_assert(TileLeftFor<Chip::a5, half, 16, 16>::BFractal == BLayout::ColMajor);
  static_assert(TileLeftFor<Chip::a2a3, half, 16, 16>::BFractal == BLayout::RowMajor);
  static_assert(std::is_same_v<TileLeft<half, 16, 16>, TileLeftFor<chip::kBuildChip, half, 16, 16>>);
  static_assert(TileLeftFor<Chip::a5, float, 16, 8>::InnerRows == 16 && TileLeftFor<Chip::a5, float, 16, 8>::InnerCols == 8);
  SUCCEED();
}

// ---- the cube reads its profile's layout ----------------------------------------------------

// GM a (VM x VK) and b (VK x N) -> Mat (Nz / Zn) -> Left / Right -> TMATMUL, then TMATMUL_ACC
// (c = a b + a b) -> GM c (VM x N). Returns c's bits.
template <Chip On, class T, class CT, int M, int K, int N, int VM, int VK, class Bits>
std::vector<uint32_t> gemm(const std::vector<Bits>& a, const std::vector<Bits>& b) {
  Sim s(On);
  std::memcpy(s.at(MemSpace::GM, 0x0), a.data(), a.size() * sizeof(Bits));
  std::memcpy(s.at(MemSpace::GM, 0x10000), b.data(), b.size() * sizeof(Bits));
  GlobalTensor<T, VM, VK> ga;
  GlobalTensor<T, VK, N> gb;
  GlobalTensor<CT, VM, N> gc;
  (void)TASSIGN(ga, 0x0);
  (void)TASSIGN(gb, 0x10000);
  (void)TASSIGN(gc, 0x20000);
  Tile<TileType::Mat, T, M, K, BLayout::ColMajor, VM, VK, SLayout::RowMajor> ma;
  Tile<TileType::Mat, T, K, N, BLayout::RowMajor, VK, N, SLayout::ColMajor> mb;
  TileLeftFor<On, T, M, K, VM, VK> left;
  TileRight<T, K, N, VK, N> right;
  TileAcc<CT, M, N, VM, N> acc;
  TASSIGN<0x0>(ma);
  TASSIGN<0x20000>(mb);
  TASSIGN<0x200>(left);
  TASSIGN<0x0>(right);
  TASSIGN<0x0>(acc);
  Result<Event> e1 = TLOAD(s.core, ma, ga);
  Result<Event> e2 = TLOAD(s.core, mb, gb);
  EXPECT_TRUE(e1.ok() && e2.ok());
  Result<Event> m1 = TMOV(s.core, left, ma, e1.value());
  Result<Event> m2 = TMOV(s.core, right, mb, e2.value());
  EXPECT_TRUE(m1.ok() && m2.ok()) << status_name(s.core.last_report.status) << " " << s.core.last_report.field;
  Result<Event> mm = TMATMUL(s.core, acc, left, right, m1.value(), m2.value());
  EXPECT_TRUE(mm.ok()) << status_name(mm.status()) << " " << s.core.last_report.field;
  Result<Event> ma2 = TMATMUL_ACC(s.core, acc, left, right, mm.value());
  EXPECT_TRUE(ma2.ok());
  EXPECT_TRUE(TSTORE(s.core, gc, acc, ma2.value()).ok());
  std::vector<uint32_t> c(size_t{VM} * N);
  std::memcpy(c.data(), s.at(MemSpace::GM, 0x20000), c.size() * 4);
  return c;
}

TEST(A5Left, MatmulGivesTheSameBitsOnBothProfiles) {
  // Halves with fractional parts (the sums round), a 20 x 40 valid region of a 32 x 48 Left
  // tile so A5's box columns are 2 boxes apart and partly empty.
  constexpr int M = 32, K = 48, N = 32, VM = 20, VK = 40;
  std::vector<uint16_t> a(VM * VK), b(VK * N);
  for (int i = 0; i < VM * VK; ++i) a[i] = to_half(static_cast<float>((i * 37) % 101) / 17.0f - 2.5f).bits;
  for (int i = 0; i < VK * N; ++i) b[i] = to_half(static_cast<float>((i * 53) % 89) / 13.0f - 3.0f).bits;
  const std::vector<uint32_t> on_a5 = gemm<Chip::a5, half, float, M, K, N, VM, VK>(a, b);
  const std::vector<uint32_t> on_a2 = gemm<Chip::a2a3, half, float, M, K, N, VM, VK>(a, b);
  ASSERT_FALSE(::testing::Test::HasFailure());
  for (int i = 0; i < VM; ++i) {
    for (int j = 0; j < N; ++j) {
      float ab = 0.0f;  // sequential in k, as the cube accumulates
      for (int k = 0; k < VK; ++k) ab = ab + to_float(half{a[i * VK + k]}) * to_float(half{b[k * N + j]});
      float want = ab;
      for (int k = 0; k < VK; ++k) want = want + to_float(half{a[i * VK + k]}) * to_float(half{b[k * N + j]});
      ASSERT_EQ(on_a5[i * N + j], std::bit_cast<uint32_t>(want)) << i << "," << j;
      ASSERT_EQ(on_a2[i * N + j], on_a5[i * N + j]) << i << "," << j;
    }
  }
}

TEST(A5Left, MatmulOfFloatsAndInt8GivesTheSameBitsOnBothProfiles) {
  {
    constexpr int M = 32, K = 24, N = 16;  // f32 boxes 16 x 8: 2 x 3 Left boxes
    std::vector<uint32_t> a(M * K), b(K * N);
    for (int i = 0; i < M * K; ++i) a[i] = std::bit_cast<uint32_t>(static_cast<float>((i * 29) % 97) / 7.0f - 6.0f);
    for (int i = 0; i < K * N; ++i) b[i] = std::bit_cast<uint32_t>(static_cast<float>((i * 31) % 83) / 11.0f - 3.5f);
    const auto on_a5 = gemm<Chip::a5, float, float, M, K, N, M, K>(a, b);
    const auto on_a2 = gemm<Chip::a2a3, float, float, M, K, N, M, K>(a, b);
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(on_a5, on_a2);
    float want = 0.0f;  // element (1, 2), twice over k
    for (int rep = 0; rep < 2; ++rep) {
      for (int k = 0; k < K; ++k) want = want + std::bit_cast<float>(a[1 * K + k]) * std::bit_cast<float>(b[k * N + 2]);
    }
    EXPECT_EQ(on_a5[1 * N + 2], std::bit_cast<uint32_t>(want));
  }
  {
    constexpr int M = 16, K = 64, N = 16;  // i8 boxes 16 x 32: 1 x 2 Left boxes
    std::vector<uint8_t> a(M * K), b(K * N);
    for (int i = 0; i < M * K; ++i) a[i] = static_cast<uint8_t>((i * 37) % 251);
    for (int i = 0; i < K * N; ++i) b[i] = static_cast<uint8_t>((i * 41) % 241);
    const auto on_a5 = gemm<Chip::a5, int8_t, int32_t, M, K, N, M, K>(a, b);
    const auto on_a2 = gemm<Chip::a2a3, int8_t, int32_t, M, K, N, M, K>(a, b);
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(on_a5, on_a2);
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        int32_t want = 0;
        for (int k = 0; k < K; ++k) want += static_cast<int8_t>(a[i * K + k]) * static_cast<int8_t>(b[k * N + j]);
        ASSERT_EQ(static_cast<int32_t>(on_a5[i * N + j]), 2 * want) << i << "," << j;
      }
    }
  }
}

// ---- a Left tile of the other profile -------------------------------------------------------

TEST(A5Left, EachProfileRefusesTheOthersLeftTileBeforeAnyIssue) {
  constexpr int R = 16, C = 32;
  for (const Chip on : {Chip::a5, Chip::a2a3}) {
    Sim s(on);
    MatNzHalf<R, C> mat;
    TileLeftFor<Chip::a5, half, R, C> nz;
    TileLeftFor<Chip::a2a3, half, R, C> zz;
    TileRight<half, C, R> right;
    TileAcc<float, R, R> acc;
    TASSIGN<0x0>(mat);
    TASSIGN<0x0>(nz);
    TASSIGN<0x0>(zz);
    TASSIGN<0x0>(right);
    TASSIGN<0x0>(acc);
    const Result<Event> moved = on == Chip::a5 ? TMOV(s.core, zz, mat) : TMOV(s.core, nz, mat);
    EXPECT_EQ(moved.status(), Status::desc_layout_unsupported) << chip::chip_name(on);
    EXPECT_STREQ(s.core.last_report.field, "dst.layout");
    EXPECT_EQ(s.core.last_report.value, static_cast<uint32_t>(MemSpace::L0A));
    EXPECT_EQ(s.core_model.mte1().moves(), 0u);
    const Result<Event> mm = on == Chip::a5 ? TMATMUL(s.core, acc, zz, right) : TMATMUL(s.core, acc, nz, right);
    EXPECT_EQ(mm.status(), Status::desc_layout_unsupported);
    EXPECT_STREQ(s.core.last_report.field, "a.layout");
    EXPECT_EQ(s.core.last_report.value, static_cast<uint32_t>(MemSpace::L0A));
    EXPECT_EQ(s.core_model.cube().matmuls(), 0u);
    // The profile's own Left tile moves.
    EXPECT_TRUE((on == Chip::a5 ? TMOV(s.core, nz, mat) : TMOV(s.core, zz, mat)).ok());
  }
}

// ---- the box rules on A5, at the core's validators and the engines' own checks ---------------

desc::MoveDesc to_left(Chip on, DType dt, uint32_t rows, uint32_t cols, uint64_t offset) {
  const uint32_t elem = dtype_size(dt);
  desc::MoveDesc d{};
  d.pipe = chip::a2a3::Pipe::MTE1;
  d.src = desc::MoveOperand{MemSpace::L1, 0, dt, desc::OperandLayout{}, rows, cols, cols};
  d.dst = desc::MoveOperand{MemSpace::L0A, offset, dt,
                            desc::OperandLayout{on == Chip::a5, desc::BoxOrder::row_major, 16, 32 / elem}, rows, cols, 0};
  d.rows = rows;
  d.cols = cols;
  return d;
}

void expect_refused(const desc::MoveDesc& d, Status s, const char* field, uint32_t value, uint32_t limit) {
  for (const desc::DescReport& r : {desc::validate(d, Chip::a5), port::host::tile_check::check_move(d, Chip::a5)}) {
    EXPECT_EQ(r.status, s) << status_name(r.status);
    EXPECT_STREQ(r.field, field);
    EXPECT_EQ(r.value, value);
    EXPECT_EQ(r.limit, limit);
  }
}

TEST(A5Left, BoxRulesOfA5sLeftTileAtTheValidators) {
  // Legal: 32 x 48 halves, 3 x 2 boxes... and on A5 only (a2a3 wants row-ordered boxes).
  EXPECT_TRUE(desc::validate(to_left(Chip::a5, DType::f16, 32, 48, 0x200), Chip::a5).ok());
  EXPECT_TRUE(port::host::tile_check::check_move(to_left(Chip::a5, DType::f16, 32, 48, 0x200), Chip::a5).ok());
  EXPECT_EQ(desc::validate(to_left(Chip::a5, DType::f16, 32, 48, 0x200), Chip::a2a3).status, Status::desc_layout_unsupported);
  // Rows a multiple of 16, columns of 32 B (8 floats, 16 halves, 32 int8), whole boxes.
  expect_refused(to_left(Chip::a5, DType::f16, 20, 48, 0), Status::desc_layout_unsupported, "dst.layout", 20, 16);
  expect_refused(to_left(Chip::a5, DType::f32, 16, 12, 0), Status::desc_layout_unsupported, "dst.layout", 12, 8);
  expect_refused(to_left(Chip::a5, DType::i8, 16, 48, 0), Status::desc_layout_unsupported, "dst.layout", 48, 32);
  // A Left tile starts on a box (512 B) and fits L0A's 64 KB.
  expect_refused(to_left(Chip::a5, DType::f16, 16, 16, 0x100), Status::misaligned, "dst.offset", 0x100, 512);
  desc::MoveDesc big = to_left(Chip::a5, DType::f16, 64, 512, 0x200);  // exactly 64 KB, one box in
  expect_refused(big, Status::out_of_bounds, "dst", 0x200, 64 * 1024);
  big.dst.offset = 0;
  EXPECT_TRUE(desc::validate(big, Chip::a5).ok());
  // The cube's A operand: the same boxes.
  desc::MatmulDesc mm{};
  mm.a_type = mm.b_type = DType::f16;
  mm.c_type = DType::f32;
  mm.m = 20, mm.k = 32, mm.n = 16;
  mm.a_rows = 20, mm.a_cols = 32, mm.b_rows = 32, mm.b_cols = 16, mm.c_rows = 32, mm.c_cols = 16;
  for (const desc::DescReport& r : {desc::validate(mm, Chip::a5), port::host::tile_check::check_matmul(mm, Chip::a5)}) {
    EXPECT_EQ(r.status, Status::desc_layout_unsupported);
    EXPECT_STREQ(r.field, "a");
    EXPECT_EQ(r.value, 20u);
    EXPECT_EQ(r.limit, 16u);
  }
}

}  // namespace
