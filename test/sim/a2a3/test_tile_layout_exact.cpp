// Bit-exact TTRANS and TCOLPROD on the simulated a2a3 AI Core (and TTRANS on the A5 profile)
// against scalar references written here: the transpose moves raw bits (every bit pattern,
// NaN payloads included, must survive); the column product multiplies the rows in order, each
// product rounded to the element type. Refusals name their Status and field.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tile_test_sim.hpp"
#include "tilefw/plan/plan.hpp"

using namespace tile_test;

namespace {

// ---- TTRANS ----------------------------------------------------------------------------------
/// src SR x SC (valid h x w) -> dst DR x DC (valid w x h), tmp of TB bytes (as u8 rows of 32).
/// UB is random bits; after the call every byte of UB but tmp's must equal the reference:
/// dst's valid region transposed, everything else as before.
template <class T, int SR, int SC, int DR, int DC, int TB>
void check_trans(uint32_t h, uint32_t w, uint64_t seed, uint32_t* issues = nullptr) {
  constexpr uint32_t e = sizeof(T);
  Sim s;
  s.fill_ub(seed);
  VTile<T, SR, SC> src(h, w);
  VTile<T, DR, DC> dst(w, h);
  Tile<TileType::Vec, uint8_t, TB / 32, 32> tmp;
  const uint32_t dst_off = align32(uint64_t{SR} * SC * e);
  const uint32_t tmp_off = dst_off + align32(uint64_t{DR} * DC * e);
  ASSERT_EQ(tile::TASSIGN(src, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(dst, dst_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(tmp, tmp_off), Status::ok);
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  const uint32_t first = s.vector_issues();
  const Result<tile::Event> res = tile::TTRANS(s.core, dst, src, tmp);
  ASSERT_TRUE(res.ok()) << s.last_failure();
  if (issues != nullptr) *issues = s.vector_issues() - first;
  std::vector<uint8_t> want = before;
  for (uint32_t i = 0; i < w; ++i) {
    for (uint32_t j = 0; j < h; ++j) {
      const uint32_t v = load_bits(before.data(), (uint64_t{j} * SC + i) * e, e);
      store_bits(want.data(), dst_off + (uint64_t{i} * DC + j) * e, e, v);
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want,
                             [&](size_t b) { return b < tmp_off || b >= uint64_t{tmp_off} + TB; }),
            "")
      << "TTRANS " << dtype_name(dtype_of<T>) << " " << h << "x" << w;
}

}  // namespace

TEST(TileExactTrans, F32I32U32Shapes) {
  check_trans<float, 16, 16, 16, 16, 16 * 2 * 8 * 32>(16, 16, 1);      // square, full
  check_trans<int32_t, 16, 40, 40, 16, 2 * 40 * 32>(13, 37, 2);         // ragged valid regions
  check_trans<uint32_t, 8, 8, 8, 8, 1 * 8 * 32>(1, 1, 3);               // one element
  check_trans<float, 300, 8, 8, 304, 38 * 8 * 32>(300, 8, 4);           // 300 src rows: 38 groups
  check_trans<float, 3, 8, 8, 8, 8 * 32>(3, 5, 5);                      // fewer rows than lanes
}

TEST(TileExactTrans, F16Bf16I16U16Shapes) {
  check_trans<half, 16, 16, 16, 16, 16 * 32>(16, 16, 11);
  check_trans<bf16, 32, 48, 48, 32, 2 * 48 * 32>(29, 41, 12);
  check_trans<int16_t, 40, 16, 16, 48, 3 * 16 * 32>(40, 9, 13);
  check_trans<uint16_t, 17, 16, 16, 32, 2 * 16 * 32>(17, 16, 14);
}

// dst rows past 255 (the vadds repeats split) and src rows of more than 255 vbrcb repeats (the
// broadcast splits: at 255 for b32, at 254 for b16).
TEST(TileExactTrans, LongRowsSplitIssues) {
  check_trans<float, 2, 2048, 2048, 8, 2048 * 32>(2, 2048, 21);
  check_trans<half, 2, 2048, 2048, 16, 2048 * 32>(2, 2047, 22);
  check_trans<int32_t, 9, 264, 264, 16, 2 * 264 * 32>(9, 260, 23);
}

// The stream the header documents: per lane (min(BSE, H) of them) and group one vbrcb and one
// vadds (one more of each where an issue splits).
TEST(TileExactTrans, IssueCountFollowsTheStream) {
  uint32_t n = 0;
  check_trans<float, 16, 16, 16, 16, 16 * 2 * 8 * 32>(16, 16, 31, &n);
  EXPECT_EQ(n, 8u * 2u * 2u);  // 8 lanes x 2 groups x (vbrcb + vadds)
  check_trans<half, 16, 16, 16, 16, 16 * 32>(16, 16, 32, &n);
  EXPECT_EQ(n, 16u * 1u * 2u);
  check_trans<float, 3, 8, 8, 8, 8 * 32>(3, 5, 33, &n);
  EXPECT_EQ(n, 3u * 2u);  // lanes 0..2 only
}

namespace {
plan::Request trans_req(plan::TileDesc dst, plan::TileDesc src, plan::TileDesc tmp) {
  return plan::Request::reduce(plan::TileOp::TTRANS, dst, src, tmp);  // the same operands: dst, src0, tmp
}
}  // namespace

TEST(TileExactTrans, BadDescriptorsRefusedNamingTheField) {
  const plan::TileDesc src = plan::ub_tile(0, DType::f32, 16, 16, 12, 10);
  const plan::TileDesc dst = plan::ub_tile(0x1000, DType::f32, 16, 16, 10, 12);
  const plan::TileDesc tmp = plan::ub_tile(0x2000, DType::u8, 32, 32);  // 1 KB >= 2 x 16 x 32
  plan::Plan ok;
  EXPECT_EQ(plan::plan_tile(trans_req(dst, src, tmp), ok), Status::ok);
  EXPECT_EQ(ok.segment_count(), 8u * 3u + 1u);

  plan::TileDesc d = dst;
  d.valid_rows = 11;
  EXPECT_EQ(expect_refused(trans_req(d, src, tmp), Status::plan_valid_shape_mismatch, "dst.valid_rows"), 0u);
  d = dst;
  d.valid_cols = 16;
  EXPECT_EQ(expect_refused(trans_req(d, src, tmp), Status::plan_valid_shape_mismatch, "dst.valid_cols"), 0u);
  d = dst;
  d.dtype = DType::f16;
  d.cols = 32;
  EXPECT_EQ(expect_refused(trans_req(d, src, tmp), Status::plan_unsupported_dtype, "dst.dtype"), 0u);
  plan::TileDesc s8 = plan::ub_tile(0, DType::i8, 16, 32, 12, 10);
  plan::TileDesc d8 = plan::ub_tile(0x1000, DType::i8, 16, 32, 10, 12);
  EXPECT_EQ(expect_refused(trans_req(d8, s8, tmp), Status::plan_unsupported_dtype, "src0.dtype"), 0u);
  plan::TileDesc sc = src;
  sc.layout = plan::Layout::col_major;
  EXPECT_EQ(expect_refused(trans_req(dst, sc, tmp), Status::plan_layout_unsupported, "src0.layout"), 0u);
  d = dst;
  d.layout = plan::Layout::col_major;
  EXPECT_EQ(expect_refused(trans_req(d, src, tmp), Status::plan_layout_unsupported, "dst.layout"), 0u);
  plan::TileDesc small = plan::ub_tile(0x2000, DType::u8, 31, 32);  // one byte row short
  EXPECT_EQ(expect_refused(trans_req(dst, src, small), Status::plan_tmp_too_small, "tmp"), 0u);
  plan::TileDesc over = plan::ub_tile(0x1200, DType::u8, 32, 32);  // inside dst's 1 KB
  EXPECT_EQ(expect_refused(trans_req(dst, src, over), Status::plan_operands_overlap, "tmp"), 0u);
  plan::TileDesc din = plan::ub_tile(0x200, DType::f32, 16, 16, 10, 12);  // inside src
  EXPECT_EQ(expect_refused(trans_req(din, src, tmp), Status::plan_operands_overlap, "dst"), 0u);
  plan::TileDesc empty = src;
  empty.valid_rows = 0;
  d = dst;
  d.valid_cols = 0;
  EXPECT_EQ(expect_refused(trans_req(d, empty, tmp), Status::plan_empty_valid_region, "src0"), 0u);
  plan::TileDesc far = dst;
  far.offset = a2a3::kUbBytes - 512;
  plan::Plan p;
  desc::DescReport rep{};
  EXPECT_EQ(plan::plan_tile(trans_req(far, src, tmp), p, &rep), Status::tile_out_of_bounds);
  EXPECT_STREQ(rep.field, "dst");
}

TEST(TileExactTrans, TileLayerRefusesUnassignedAndMismatchedShapes) {
  Sim s;
  VTile<float, 16, 16> src(16, 8);
  VTile<float, 16, 16> dst(8, 16);
  Tile<TileType::Vec, uint8_t, 32, 32> tmp;
  ASSERT_EQ(tile::TASSIGN(src, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(dst, 0x400), Status::ok);
  Result<tile::Event> r = tile::TTRANS(s.core, dst, src, tmp);
  EXPECT_EQ(r.status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "tmp");
  ASSERT_EQ(tile::TASSIGN(tmp, 0x800), Status::ok);
  ASSERT_EQ(dst.set_valid(8, 15), Status::ok);
  const uint32_t before = s.vector_issues();
  r = tile::TTRANS(s.core, dst, src, tmp);
  EXPECT_EQ(r.status(), Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(s.core.last_report.field, "dst.valid_cols");
  EXPECT_EQ(s.vector_issues(), before);  // nothing issued
}

// ---- TCOLPROD --------------------------------------------------------------------------------
namespace {
uint32_t prod_ref(DType dt, uint32_t a, uint32_t b) {
  if (dt == DType::i32) return static_cast<uint32_t>(static_cast<int32_t>(a) * static_cast<int64_t>(static_cast<int32_t>(b)));
  if (dt == DType::f32) return f32_bits(f32_of(a) * f32_of(b));
  return ld2h(h2ld(static_cast<uint16_t>(a)) * h2ld(static_cast<uint16_t>(b)));  // exact product, rounded once
}

uint32_t prod_input(DType dt, Rng& r) {
  // Magnitudes near 1 so long columns neither overflow nor vanish, plus now and then a special.
  const uint32_t k = r.next() % 16;
  if (dt == DType::f16) {
    if (k == 0) return (r.next() % 2 != 0) ? 0x7E01u : 0x8000u;  // NaN payload, -0
    return (r.next() & 0x8000u) | ((14 + r.next() % 3) << 10) | (r.next() & 0x3FFu);
  }
  if (dt == DType::f32) {
    if (k == 0) return (r.next() % 2 != 0) ? 0x7F800000u : 0x00000001u;  // inf, subnormal
    return (r.next() & 0x80000000u) | ((126 + r.next() % 3) << 23) | (r.next() & 0x7FFFFFu);
  }
  return r.next() << 16 ^ r.next();
}

template <class T, int SR, int SC>
void check_colprod(uint32_t vr, uint32_t vc, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  const DType dt = dtype_of<T>;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, 1, SC> d(1, vc);
  VTile<T, SR, SC> src(vr, vc);
  const uint32_t src_off = align32(uint64_t{SC} * e);
  ASSERT_EQ(tile::TASSIGN(d, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) store_bits(s.ub(), src_off + (uint64_t{r} * SC + c) * e, e, prod_input(dt, rng));
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  const Result<tile::Event> res = tile::TCOLPROD(s.core, d, src);
  ASSERT_TRUE(res.ok()) << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t c = 0; c < vc; ++c) {
    uint32_t acc = load_bits(before.data(), src_off + c * e, e);
    for (uint32_t r = 1; r < vr; ++r) acc = prod_ref(dt, acc, load_bits(before.data(), src_off + (uint64_t{r} * SC + c) * e, e));
    store_bits(want.data(), c * e, e, acc);
  }
  // Row 0 is copied in whole 32 B blocks: the bytes after vc up to its block end are unspecified.
  const uint32_t tail_end = align32(uint64_t{vc} * e);
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want,
                             [&](size_t i) { return i < vc * e || i >= tail_end; }),
            "")
      << "TCOLPROD " << dtype_name(dt) << " " << vr << "x" << vc;
}
}  // namespace

TEST(TileExactColProd, F32F16I32) {
  check_colprod<float, 16, 64>(16, 64, 41);
  check_colprod<float, 13, 128>(13, 101, 42);  // full chunk + masked tail
  check_colprod<float, 300, 16>(300, 5, 43);    // 299 products: 255 + 44
  check_colprod<half, 16, 128>(16, 128, 44);
  check_colprod<half, 7, 256>(7, 200, 45);
  check_colprod<int32_t, 9, 64>(9, 64, 46);
  check_colprod<int32_t, 1, 8>(1, 3, 47);  // one row: only the copy
}

TEST(TileExactColProd, Int16AndBadShapesRefused) {
  plan::Plan p;
  desc::DescReport rep{};
  const plan::TileDesc s16 = plan::ub_tile(0x400, DType::i16, 8, 16);
  const plan::TileDesc d16 = plan::ub_tile(0, DType::i16, 1, 16);
  EXPECT_EQ(plan::plan_tile(plan::Request::unary(plan::TileOp::TCOLPROD, d16, s16), p, &rep),
            Status::plan_unsupported_dtype);
  const plan::TileDesc src = plan::ub_tile(0x400, DType::f32, 8, 16);
  const plan::TileDesc dst = plan::ub_tile(0, DType::f32, 1, 16, 1, 15);
  EXPECT_EQ(plan::plan_tile(plan::Request::unary(plan::TileOp::TCOLPROD, dst, src), p, &rep),
            Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(plan::tile_op_name(plan::TileOp::TCOLPROD), "TCOLPROD");
  EXPECT_STREQ(plan::tile_op_name(plan::TileOp::TTRANS), "TTRANS");
}

// TTRANS on the A5 profile: A5's page gives the same element rule (and the same 32 B row
// alignment tilefw's tiles already keep), so the same stream runs and moves the same bits;
// a tile above a2a3's 192 KB UB is accepted only on A5.
TEST(TileExactTrans, A5ProfileSameBitsAndItsLargerUb) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    tile::Core& core = s.core;
    uint8_t* ub = s.ub();
    s.fill_ub(77);
    VTile<float, 24, 16> src(24, 13);
    VTile<float, 16, 24> dst(13, 24);
    Tile<TileType::Vec, uint8_t, 48, 32> tmp;  // 3 groups x 16 blocks x 32 B
    const uint32_t base = 200 * 1024;  // past a2a3's UB
    ASSERT_EQ(tile::TASSIGN(src, 0), Status::ok);
    ASSERT_EQ(tile::TASSIGN(dst, 0x1000), Status::ok);
    const Status placed = tile::assign_checked(tmp, base, core.chip);
    const std::vector<uint8_t> before = s.image();
    const Result<tile::Event> res = tile::TTRANS(core, dst, src, tmp);
    if (core.chip == chip::Chip::a2a3) {
      EXPECT_NE(placed, Status::ok);
      EXPECT_FALSE(res.ok());
      continue;
    }
    ASSERT_EQ(placed, Status::ok);
    ASSERT_TRUE(res.ok()) << status_name(core.last_report.status) << " " << core.last_report.field;
    for (uint32_t i = 0; i < 13; ++i) {
      for (uint32_t j = 0; j < 24; ++j) {
        EXPECT_EQ(load_bits(ub, 0x1000 + (i * 24 + j) * 4, 4), load_bits(before.data(), (j * 16 + i) * 4, 4));
      }
    }
  }
}
