// Tile<> types: derived members, valid regions, TASSIGN (static and runtime), GlobalTensor,
// and the shared path into the planner (a Tile plans exactly what its TileDesc plans).
#include <type_traits>

#include "tftest.hpp"
#include "tilefw/tile/tile.hpp"

using namespace tilefw;
using namespace tilefw::tile;

namespace {

using V64 = Tile<TileType::Vec, float, 64, 64>;
using Dn = Tile<TileType::Vec, float, 64, 1, BLayout::ColMajor>;
using Dyn = Tile<TileType::Vec, half, 32, 128, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using RowDyn = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, DYNAMIC, 64>;

static_assert(std::is_trivially_copyable_v<V64>);
static_assert(std::is_trivially_copyable_v<Dyn>);
static_assert(V64::Bytes == 16384);
static_assert(!V64::isBoxedLayout && V64::isRowMajor);
static_assert(TileLeft<half, 32, 64>::InnerRows == 16 && TileLeft<half, 32, 64>::InnerCols == 16);
static_assert(TileLeft<float, 16, 8>::InnerCols == 8);
static_assert(TileRight<float, 8, 16>::InnerRows == 8 && TileRight<float, 8, 16>::InnerCols == 16);
static_assert(TileAcc<float, 16, 16>::InnerRows == 16 && TileAcc<float, 16, 16>::SFractalSize == 1024);
static_assert(TileAcc<float, 16, 16>::Loc == TileType::Acc && !TileAcc<float, 16, 16>::isRowMajor);

constexpr bool static_assign_works() {
  V64 t;
  TASSIGN<0x4000>(t);
  return t.address() == 0x4000;
}
static_assert(static_assign_works());

plan::Plan g_a;
plan::Plan g_b;

TEST(Tile, ValidRegions) {
  const V64 t;
  EXPECT_EQ(t.GetValidRow(), 64u);
  EXPECT_EQ(t.GetValidCol(), 64u);
  Dyn d(20, 100);
  EXPECT_EQ(d.GetValidRow(), 20u);
  EXPECT_EQ(d.GetValidCol(), 100u);
  EXPECT_EQ(d.set_valid(33, 100), Status::plan_tile_constraint);
  EXPECT_EQ(d.set_valid(32, 128), Status::ok);
  RowDyn r(7);
  EXPECT_EQ(r.GetValidRow(), 7u);
  EXPECT_EQ(r.GetValidCol(), 64u);
  EXPECT_EQ(r.set_valid(8, 32), Status::invalid_argument);  // cols are static
}

TEST(Tile, RuntimeTassign) {
  V64 t;
  EXPECT_EQ(TASSIGN(t, 0x100), Status::ok);
  EXPECT_EQ(t.address(), 0x100u);
  EXPECT_EQ(TASSIGN(t, 0x101), Status::tile_misaligned);
  EXPECT_EQ(t.address(), 0x100u);
  // The UB of the build's profile (a2a3 192 KB, a -Dchip=a5 build 256 KB).
  const uint32_t ub = chip::kBuildChip == chip::Chip::a5 ? 262144u : 196608u;
  EXPECT_EQ(TASSIGN(t, ub - 16384), Status::ok);
  EXPECT_EQ(TASSIGN(t, ub - 16384 + 32), Status::tile_out_of_bounds);
  TileLeft<half, 32, 64> l;
  EXPECT_EQ(TASSIGN(l, 256), Status::tile_misaligned);  // L0A: 512 B
  EXPECT_EQ(TASSIGN(l, 512), Status::ok);
  EXPECT_EQ(TASSIGN(l, 65536 - 4096), Status::ok);
  EXPECT_EQ(TASSIGN(l, 65536 - 3584), Status::tile_out_of_bounds);
  EXPECT_EQ(status_class(Status::tile_misaligned), StatusClass::misaligned);
}

TEST(Tile, GlobalTensor) {
  GlobalTensor<float, DYNAMIC, 64> g(10);
  EXPECT_EQ(g.rows(), 10u);
  EXPECT_EQ(g.row_stride(), 64u);
  EXPECT_EQ(g.span_bytes(), 2560u);
  EXPECT_EQ(TASSIGN(g, 3), Status::ok);  // GM: no alignment
  EXPECT_EQ(TASSIGN(g, 16u * 1024 * 1024 - 100), Status::tile_out_of_bounds);
  GlobalTensor<half> bad(4, 64, 32);
  EXPECT_EQ(TASSIGN(bad, 0), Status::plan_tile_constraint);
}

TEST(Tile, PlansLikeItsTileDesc) {
  V64 dst, a, b;
  ASSERT_EQ(TASSIGN(dst, 0), Status::ok);
  ASSERT_EQ(TASSIGN(a, 16384), Status::ok);
  ASSERT_EQ(TASSIGN(b, 32768), Status::ok);
  ASSERT_EQ(plan_binary(plan::TileOp::TADD, g_a, dst, a, b), Status::ok);
  ASSERT_EQ(plan::plan_tile(plan::Request::binary(plan::TileOp::TADD, plan::ub_tile(0, DType::f32, 64, 64),
                                                  plan::ub_tile(16384, DType::f32, 64, 64),
                                                  plan::ub_tile(32768, DType::f32, 64, 64)),
                            g_b),
            Status::ok);
  ASSERT_EQ(g_a.issue_count(), 1u);
  ASSERT_EQ(g_a.step_count(), g_b.step_count());
  const plan::Step s = g_a.materialize(0, 0, 0);
  EXPECT_EQ(s.binary.repeat, 64u);
  EXPECT_EQ(s.binary.src1.offset, 32768u);
  // TROWSUM with a DN dst and a tile-typed tmp.
  Dn rd;
  ASSERT_EQ(TASSIGN(rd, 49152), Status::ok);
  ASSERT_EQ(plan_reduce(plan::TileOp::TROWSUM, g_a, rd, a, b), Status::ok);
  // a2a3: one vcadd over the 64 rows; A5 (a -Dchip=a5 build): one folded reduce per row.
  EXPECT_EQ(g_a.issue_count(), chip::kBuildChip == chip::Chip::a5 ? 64u : 1u);
  // Dynamic valid region flows into the plan: 64x64 capacity, 64 x 40 valid (not contiguous).
  Tile<TileType::Vec, float, 64, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC> d0(64, 40), d1(64, 40), d2(64, 40);
  ASSERT_EQ(TASSIGN(d0, 0), Status::ok);  // placed: an unplaced tile is tile_unassigned
  ASSERT_EQ(TASSIGN(d1, 16384), Status::ok);
  ASSERT_EQ(TASSIGN(d2, 32768), Status::ok);
  ASSERT_EQ(plan_binary(plan::TileOp::TMUL, g_a, d0, d1, d2), Status::ok);
  EXPECT_EQ(g_a.issue_count(), 1u);
  EXPECT_EQ(g_a.materialize(1, 0, 0).binary.repeat, 64u);
}

TEST(Tile, UnassignedTilesAreRefusedNotAliasedAtZero) {
  // A tile TASSIGN never placed used to plan at offset 0; now the first instruction names it.
  V64 placed_a, placed_b, never;
  EXPECT_FALSE(never.assigned());
  TASSIGN<0x4000>(placed_a);
  ASSERT_EQ(TASSIGN(placed_b, 0x8000), Status::ok);
  EXPECT_TRUE(placed_a.assigned() && placed_b.assigned());
  EXPECT_EQ(plan_binary(plan::TileOp::TADD, g_a, never, placed_a, placed_b), Status::tile_unassigned);
  EXPECT_EQ(g_a.step_count(), 0u);  // nothing planned
  desc::DescReport r{};
  EXPECT_EQ(plan::plan_tile(plan::Request::binary(plan::TileOp::TADD, placed_a.desc(), never.desc(), placed_b.desc()),
                            g_a, &r),
            Status::tile_unassigned);
  EXPECT_EQ(r.status, Status::tile_unassigned);
  EXPECT_STREQ(r.field, "src0");
  EXPECT_EQ(plan::plan_tile(plan::Request::binary(plan::TileOp::TADD, placed_a.desc(), placed_b.desc(), never.desc()),
                            g_a, &r),
            Status::tile_unassigned);
  EXPECT_STREQ(r.field, "src1");
  // A failed TASSIGN does not place the tile either.
  EXPECT_EQ(TASSIGN(never, 0x101), Status::tile_misaligned);
  EXPECT_FALSE(never.assigned());
  EXPECT_EQ(plan_reduce(plan::TileOp::TROWSUM, g_a, placed_a, placed_b, never), Status::tile_unassigned);
  // A GlobalTensor is placed only by a successful TASSIGN.
  GlobalTensor<float, 8, 64> g;
  EXPECT_FALSE(g.assigned());
  EXPECT_EQ(TASSIGN(g, 16u * 1024 * 1024), Status::tile_out_of_bounds);
  EXPECT_FALSE(g.assigned());
  EXPECT_EQ(TASSIGN(g, 0), Status::ok);
  EXPECT_TRUE(g.assigned());
  EXPECT_STREQ(status_name(Status::tile_unassigned), "tile_unassigned");
}

}  // namespace
