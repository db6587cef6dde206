// Reference plans pinned step by step (docs/a2a3-tile-model.md section 8.1,
// docs/a2a3-vector-semantics.md section 8), plan
// statuses, and random shapes: every planned issue passes desc::validate and elementwise plans
// touch every valid element exactly once, at the same (row, col) of every operand.
#include "plan_test_util.hpp"
#include "tftest.hpp"

using namespace plan_test;

namespace {

constexpr DType F32 = DType::f32;
constexpr DType F16 = DType::f16;

Plan g_plan;
Steps g_steps;

Status plan_and_collect(const Request& r) {
  const Status st = plan_tile(r, g_plan);
  collect(g_plan, g_steps);
  return st;
}

const desc::BinIntrinsicDesc& bin(uint32_t i) { return g_steps.s[i].binary; }
const desc::ReduceDesc& red(uint32_t i) { return g_steps.s[i].reduce; }

bool is_mode(uint32_t i, StepKind k) { return g_steps.s[i].kind == k; }
bool is_set_mask(uint32_t i, Mask128 m) {
  return g_steps.s[i].kind == StepKind::set_mask && g_steps.s[i].mask == m;
}
bool is_set_count(uint32_t i, uint32_t n) {
  return g_steps.s[i].kind == StepKind::set_mask_count && g_steps.s[i].count == n;
}

bool bin_is(uint32_t i, desc::BinaryOp op, uint32_t repeat, uint32_t d, uint32_t a, uint32_t b,
            uint32_t rep_d, uint32_t rep_a, uint32_t rep_b) {
  const Step& s = g_steps.s[i];
  if (s.kind != StepKind::binary) return false;
  const auto& x = s.binary;
  return x.op == op && x.repeat == repeat && x.dst.offset == d && x.src0.offset == a && x.src1.offset == b &&
         x.dst_repeat_stride == rep_d && x.src0_repeat_stride == rep_a && x.src1_repeat_stride == rep_b &&
         x.dst_block_stride == 1 && x.src0_block_stride == 1 && x.src1_block_stride == 1;
}

bool every_step_validates() {
  Step s{};
  for (auto c = g_plan.begin(); c.next(s);) {
    if (!validate_step(s).ok()) return false;
  }
  return true;
}

// ---- elementwise reference plans ---------------------------------------------------------------
TEST(PlanTadd, F32_64x64_IsOneIssue) {
  const Request r = Request::binary(TileOp::TADD, ub_tile(0, F32, 64, 64), ub_tile(16384, F32, 64, 64),
                                    ub_tile(32768, F32, 64, 64));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_EQ(g_plan.issue_count(), 1u);
  EXPECT_TRUE(bin_is(0, desc::BinaryOp::vadd, 64, 0, 16384, 32768, 8, 8, 8));
  EXPECT_TRUE(g_steps.s[0].mode == MaskMode::normal);
  EXPECT_TRUE(g_steps.s[0].mask == Mask128::all());
  EXPECT_EQ(bin(0).tail_elements, 0u);
}

TEST(PlanTadd, F32_128x128_IsOneCounterModeIssue) {
  const Request r = Request::binary(TileOp::TADD, ub_tile(0, F32, 128, 128), ub_tile(65536, F32, 128, 128),
                                    ub_tile(131072, F32, 128, 128));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_EQ(g_plan.issue_count(), 1u);
  EXPECT_TRUE(is_set_count(0, 16384));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vadd, 0, 0, 65536, 131072, 8, 8, 8));
  EXPECT_TRUE(bin(1).mask_mode == MaskMode::count);
  EXPECT_EQ(bin(1).vector_count, 16384u);
  EXPECT_TRUE(is_mode(2, StepKind::set_mask_norm));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
}

TEST(PlanTadd, ContiguousWithTail) {
  // f32 1x128 valid 1x40 (vr == 1: contiguous): no full repeat, a 40-lane tail (normal mode).
  const Request r = Request::binary(TileOp::TSUB, ub_tile(0, F32, 1, 128, 1, 40), ub_tile(1024, F32, 1, 128, 1, 40),
                                    ub_tile(2048, F32, 1, 128, 1, 40));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 3u);
  EXPECT_TRUE(is_set_mask(0, Mask128::continuous(40)));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vsub, 1, 0, 1024, 2048, 8, 8, 8));
  EXPECT_TRUE(is_set_mask(2, Mask128::all()));
  // f32 2x64 valid 1x64 then 2x64 valid 2x64: whole repeats only.
  ASSERT_EQ(plan_and_collect(Request::binary(TileOp::TSUB, ub_tile(0, F32, 2, 64), ub_tile(1024, F32, 2, 64),
                                             ub_tile(2048, F32, 2, 64))),
            Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_TRUE(bin_is(0, desc::BinaryOp::vsub, 2, 0, 1024, 2048, 8, 8, 8));
  // f32 3x80 contiguous, 80 > 64 not a multiple of 64: counter mode over 240 elements.
  ASSERT_EQ(plan_and_collect(Request::binary(TileOp::TSUB, ub_tile(0, F32, 3, 80), ub_tile(1024, F32, 3, 80),
                                             ub_tile(2048, F32, 3, 80))),
            Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(is_set_count(0, 240));
  EXPECT_EQ(bin(1).repeat, 0u);
}

TEST(PlanTadd, SmallTileMaskedRows) {
  // f32 Cols 8 < 64, valid 10x8 contiguous: MASK continuous(8), repeat 10, repeat stride 1.
  const Request r = Request::binary(TileOp::TADD, ub_tile(0, F32, 10, 8), ub_tile(512, F32, 10, 8),
                                    ub_tile(1024, F32, 10, 8));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 3u);
  EXPECT_TRUE(is_set_mask(0, Mask128::continuous(8)));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vadd, 10, 0, 512, 1024, 1, 1, 1));
  EXPECT_TRUE(is_set_mask(2, Mask128::all()));
}

TEST(PlanTadd, NonContiguousHeadTail) {
  // f32 64x128 valid 64x100: row-repeat, chunk 0 repeat 64 stride 16, tail 36 lanes.
  const Request r = Request::binary(TileOp::TADD, ub_tile(0, F32, 64, 128, 64, 100),
                                    ub_tile(32768, F32, 64, 128, 64, 100), ub_tile(65536, F32, 64, 128, 64, 100));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(bin_is(0, desc::BinaryOp::vadd, 64, 0, 32768, 65536, 16, 16, 16));
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(36)));
  EXPECT_TRUE(bin_is(2, desc::BinaryOp::vadd, 64, 256, 33024, 65792, 16, 16, 16));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
}

TEST(PlanTadd, RowsAbove255AreSplit) {
  // f32 300x32 valid 300x20 (Cols < 64, not contiguous): row-repeat, 255 + 45 rows.
  const Request r = Request::binary(TileOp::TMUL, ub_tile(0, F32, 300, 32, 300, 20),
                                    ub_tile(40960, F32, 300, 32, 300, 20), ub_tile(81920, F32, 300, 32, 300, 20));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(is_set_mask(0, Mask128::continuous(20)));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vmul, 255, 0, 40960, 81920, 4, 4, 4));
  EXPECT_TRUE(bin_is(2, desc::BinaryOp::vmul, 45, 255 * 128, 40960 + 255 * 128, 81920 + 255 * 128, 4, 4, 4));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
}

TEST(PlanTadd, StrideAbove255FallsBackToOneIssuePerRow) {
  // dst rows are 2048 f32 = 256 blocks > 255: one issue per row (different widths: row-repeat).
  const Request r = Request::binary(TileOp::TADD, ub_tile(0, F32, 4, 2048, 4, 64), ub_tile(32768, F32, 4, 64),
                                    ub_tile(33792, F32, 4, 64));
  ASSERT_EQ(plan_and_collect(r), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(bin(i).repeat, 1u);
    EXPECT_EQ(bin(i).dst.offset, i * 8192u);
    EXPECT_EQ(bin(i).src0.offset, 32768u + i * 256u);
    EXPECT_EQ(bin(i).src1.offset, 33792u + i * 256u);
  }
}

TEST(PlanTadd, UnaryAndScalarUseTheSameScheduler) {
  ASSERT_EQ(plan_and_collect(Request::unary(TileOp::TEXP, ub_tile(0, F16, 64, 128), ub_tile(16384, F16, 64, 128))),
            Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_TRUE(g_steps.s[0].kind == StepKind::unary);
  EXPECT_TRUE(g_steps.s[0].unary.op == desc::UnaryOp::vexp);
  EXPECT_EQ(g_steps.s[0].unary.repeat, 64u);
  // f16 Cols 64 < 128 lanes: MASK continuous(64), repeat = rows, repeat stride 4 blocks.
  ASSERT_EQ(plan_and_collect(Request::unary(TileOp::TEXP, ub_tile(0, F16, 64, 64), ub_tile(8192, F16, 64, 64))),
            Status::ok);
  ASSERT_EQ(g_steps.n, 3u);
  EXPECT_TRUE(is_set_mask(0, Mask128::continuous(64)));
  EXPECT_EQ(g_steps.s[1].unary.repeat, 64u);
  EXPECT_EQ(g_steps.s[1].unary.src_repeat_stride, 4u);
  ASSERT_EQ(plan_and_collect(Request::scalar(TileOp::TMULS, ub_tile(0, F32, 16, 64), ub_tile(4096, F32, 16, 64),
                                             0x40000000u)),
            Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_EQ(g_steps.s[0].scalar.scalar_bits, 0x40000000u);
  EXPECT_EQ(g_steps.s[0].scalar.repeat, 16u);
}

// ---- row reductions -------------------------------------------------------------------------
TEST(PlanTrowsum, F32_64x64_IsOneCounterModeVcaddAndLeavesTmpUntouched) {
  const TileDesc dst = ub_tile(0, F32, 64, 1, 64, 1, Layout::col_major);
  const TileDesc tmp = ub_tile(16384, F32, 64, 64);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, dst, ub_tile(32768, F32, 64, 64), tmp)), Status::ok);
  EXPECT_EQ(g_plan.issue_count(), 1u);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(is_set_count(0, 4096));
  EXPECT_TRUE(g_steps.s[1].kind == StepKind::reduce);
  EXPECT_TRUE(red(1).op == desc::ReduceOp::vcadd);
  EXPECT_TRUE(red(1).mask_mode == MaskMode::count);
  EXPECT_EQ(red(1).vector_count, 4096u);
  EXPECT_EQ(red(1).repeat, 0u);
  EXPECT_EQ(red(1).dst_repeat_stride, 1u);
  EXPECT_EQ(red(1).src_block_stride, 1u);
  EXPECT_EQ(red(1).src_repeat_stride, 8u);
  EXPECT_EQ(red(1).src.offset, 32768u);
  EXPECT_TRUE(is_mode(2, StepKind::set_mask_norm));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
  for (uint32_t i = 0; i < g_steps.n; ++i) {
    const uint32_t o = g_steps.s[i].dst_operand().offset;
    EXPECT_FALSE(g_steps.s[i].is_issue() && o >= 16384u && o < 32768u);
  }
  // An ND 64x64 dst: dst repeat stride = dst Cols.
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, ub_tile(0, F32, 64, 64, 64, 1),
                                             ub_tile(32768, F32, 64, 64), tmp)),
            Status::ok);
  EXPECT_EQ(red(1).dst_repeat_stride, 64u);
}

TEST(PlanTrowsum, ValidCol200FollowsSection42) {
  // f32, EPR 64: P = 3, rem = 8, 16 rows; src 16x256, tmp 16x64 (max(1, P/2) chunks).
  const TileDesc dst = ub_tile(0, F32, 16, 1, 16, 1, Layout::col_major);
  const TileDesc src = ub_tile(1024, F32, 16, 256, 16, 200);
  const TileDesc tmp = ub_tile(17408, F32, 16, 64);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, dst, src, tmp)), Status::ok);
  ASSERT_EQ(g_steps.n, 10u);
  // FillTmp: tmp_0 = s_0 + s_1 (counter mode, one repeat per row).
  EXPECT_TRUE(is_set_count(0, 16 * 64));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vadd, 0, 17408, 1024, 1024 + 256, 8, 32, 32));
  // P odd: tmp_0 += s_2.
  EXPECT_TRUE(bin_is(2, desc::BinaryOp::vadd, 0, 17408, 17408, 1024 + 512, 8, 8, 32));
  // tail: normal mode, MASK continuous(8), tmp_0[0:8] += s_3[0:8], repeat = rows.
  EXPECT_TRUE(is_mode(3, StepKind::set_mask_norm));
  EXPECT_TRUE(is_set_mask(4, Mask128::continuous(8)));
  EXPECT_TRUE(bin_is(5, desc::BinaryOp::vadd, 16, 17408, 17408, 1024 + 768, 8, 8, 32));
  // TmpProc: len = 1, nothing. vcadd tmp -> dst, counter mode.
  EXPECT_TRUE(is_set_count(6, 16 * 64));
  EXPECT_TRUE(g_steps.s[7].kind == StepKind::reduce);
  EXPECT_EQ(red(7).src.offset, 17408u);
  EXPECT_EQ(red(7).src_repeat_stride, 8u);
  EXPECT_EQ(red(7).dst_repeat_stride, 1u);
  EXPECT_TRUE(is_mode(8, StepKind::set_mask_norm));
  EXPECT_TRUE(is_set_mask(9, Mask128::all()));
}

TEST(PlanTrowsum, TmpProcFoldsOddLeftoverIntoLastChunk) {
  // f32 vc = 384: P = 6, len 3 -> tmp0 = t0 + t1, tmp0 += t2.
  const TileDesc dst = ub_tile(0, F32, 8, 1, 8, 1, Layout::col_major);
  const TileDesc src = ub_tile(1024, F32, 8, 384);
  const TileDesc tmp = ub_tile(16384, F32, 8, 192);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, dst, src, tmp)), Status::ok);
  ASSERT_EQ(g_steps.n, 9u);
  EXPECT_TRUE(is_set_count(0, 8 * 64));
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vadd, 0, 16384, 1024, 1024 + 256, 24, 48, 48));
  EXPECT_TRUE(bin_is(2, desc::BinaryOp::vadd, 0, 16384 + 256, 1024 + 512, 1024 + 768, 24, 48, 48));
  EXPECT_TRUE(bin_is(3, desc::BinaryOp::vadd, 0, 16384 + 512, 1024 + 1024, 1024 + 1280, 24, 48, 48));
  EXPECT_TRUE(bin_is(4, desc::BinaryOp::vadd, 0, 16384, 16384, 16384 + 256, 24, 24, 24));
  EXPECT_TRUE(bin_is(5, desc::BinaryOp::vadd, 0, 16384, 16384, 16384 + 512, 24, 24, 24));
  EXPECT_TRUE(g_steps.s[6].kind == StepKind::reduce);
}

TEST(PlanTrowsum, OneAndAHalfRepeatsCopiesChunkZero) {
  // f16, EPR 128: vc 200 -> P = 1, rem 72: copy chunk 0 into tmp, masked tail, vcadd.
  const TileDesc dst = ub_tile(0, F16, 16, 16, 16, 1);
  const TileDesc src = ub_tile(512, F16, 16, 256, 16, 200);
  const TileDesc tmp = ub_tile(16896, F16, 16, 128);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, dst, src, tmp)), Status::ok);
  ASSERT_EQ(g_steps.n, 7u);
  EXPECT_TRUE(g_steps.s[0].kind == StepKind::copy);
  EXPECT_EQ(g_steps.s[0].copy.nburst, 16u);
  EXPECT_EQ(g_steps.s[0].copy.burst_len, 8u);
  EXPECT_EQ(g_steps.s[0].copy.src_gap, 8u);
  EXPECT_EQ(g_steps.s[0].copy.dst_gap, 0u);
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(72)));
  EXPECT_TRUE(bin_is(2, desc::BinaryOp::vadd, 16, 16896, 16896, 512 + 256, 8, 8, 16));
  EXPECT_TRUE(is_set_count(3, 16 * 128));
  EXPECT_EQ(red(4).dst_repeat_stride, 16u);
}

TEST(PlanTrowsum, PartialRepeatIsOneMaskedVcadd) {
  const TileDesc dst = ub_tile(0, F32, 304, 1, 300, 1, Layout::col_major);
  const TileDesc src = ub_tile(2048, F32, 300, 64, 300, 40);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWMAX, dst, src, ub_tile(80000, F32, 8, 64))), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(is_set_mask(0, Mask128::continuous(40)));
  EXPECT_TRUE(red(1).op == desc::ReduceOp::vcmax);
  EXPECT_TRUE(red(1).order == desc::ReduceOrder::only_value);
  EXPECT_EQ(red(1).repeat, 255u);
  EXPECT_EQ(red(2).repeat, 45u);
  EXPECT_EQ(red(2).dst.offset, 255u * 4u);
  EXPECT_EQ(red(2).src.offset, 2048u + 255u * 256u);
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
}

struct FastCase {
  uint32_t rows, cols;
};

TEST(PlanTrowsum, Fp32FastPaths) {
  const FastCase cases[] = {{64, 128}, {32, 256}, {16, 512}, {8, 1024}};
  for (const FastCase& c : cases) {
    const TileDesc dst = ub_tile(0, F32, c.rows, 1, c.rows, 1, Layout::col_major);
    const TileDesc src = ub_tile(1024, F32, c.rows, c.cols);
    const TileDesc tmp = ub_tile(1024 + 32768, F32, 8, 128);
    ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, dst, src, tmp)), Status::ok);
    const uint32_t T = tmp.offset;
    // first step: vcgadd src -> tmp, 128 repeats, dst rep 1, src blk 1 rep 8
    ASSERT_TRUE(g_steps.n >= 3u);
    EXPECT_TRUE(red(0).op == desc::ReduceOp::vcgadd);
    EXPECT_EQ(red(0).repeat, 128u);
    EXPECT_EQ(red(0).dst.offset, T);
    EXPECT_EQ(red(0).src.offset, 1024u);
    EXPECT_EQ(red(0).dst_repeat_stride, 1u);
    EXPECT_EQ(red(0).src_repeat_stride, 8u);
    const uint32_t last = g_steps.n - 1;
    EXPECT_TRUE(red(last).op == desc::ReduceOp::vcgadd);
    EXPECT_EQ(red(last).repeat, c.rows / 8);
    EXPECT_EQ(red(last).dst.offset, 0u);
    EXPECT_EQ(red(last).src.offset, T);
    auto pairs = [&](uint32_t i, uint32_t repeat) {
      const auto& b = bin(i);
      return g_steps.s[i].kind == StepKind::binary && b.repeat == repeat && b.dst_block_stride == 1 &&
             b.src0_block_stride == 2 && b.src1_block_stride == 2 && b.dst_repeat_stride == 8 &&
             b.src0_repeat_stride == 16 && b.src1_repeat_stride == 16 && b.dst.offset == T &&
             b.src0.offset == T && b.src1.offset == T + 32;
    };
    auto group = [&](uint32_t i, uint32_t repeat) {
      return g_steps.s[i].kind == StepKind::reduce && red(i).op == desc::ReduceOp::vcgadd &&
             red(i).repeat == repeat && red(i).dst.offset == T && red(i).src.offset == T;
    };
    if (c.cols == 128) {
      ASSERT_EQ(g_steps.n, 3u);
      EXPECT_TRUE(pairs(1, 8));
    } else if (c.cols == 256) {
      ASSERT_EQ(g_steps.n, 4u);
      EXPECT_TRUE(pairs(1, 8));
      EXPECT_TRUE(pairs(2, 4));
    } else if (c.cols == 512) {
      ASSERT_EQ(g_steps.n, 3u);
      EXPECT_TRUE(group(1, 16));
    } else {
      ASSERT_EQ(g_steps.n, 4u);
      EXPECT_TRUE(group(1, 16));
      EXPECT_TRUE(pairs(2, 1));
    }
    EXPECT_TRUE(every_step_validates());
  }
  // Not a fast shape (ND dst): the generic stream.
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TROWSUM, ub_tile(0, F32, 64, 8, 64, 1),
                                             ub_tile(2048, F32, 64, 128), ub_tile(34816, F32, 64, 64))),
            Status::ok);
  EXPECT_TRUE(g_steps.s[1].kind == StepKind::binary);
}

// ---- column ops, expand, convert --------------------------------------------------------------
TEST(PlanTcol, ColsumCopiesRowZeroThenAccumulates) {
  const TileDesc dst = ub_tile(0, F32, 1, 128, 1, 100);
  const TileDesc src = ub_tile(512, F32, 20, 128, 20, 100);
  ASSERT_EQ(plan_and_collect(Request::reduce(TileOp::TCOLSUM, dst, src, ub_tile(11264, F32, 1, 128))), Status::ok);
  ASSERT_EQ(g_steps.n, 5u);
  EXPECT_TRUE(g_steps.s[0].kind == StepKind::copy);
  EXPECT_EQ(g_steps.s[0].copy.burst_len, 13u);  // ceil(100 * 4 / 32)
  EXPECT_TRUE(bin_is(1, desc::BinaryOp::vadd, 19, 0, 1024, 0, 0, 16, 0));
  EXPECT_TRUE(is_set_mask(2, Mask128::continuous(36)));
  EXPECT_TRUE(bin_is(3, desc::BinaryOp::vadd, 19, 256, 1280, 256, 0, 16, 0));
  EXPECT_TRUE(every_step_validates());
}

TEST(PlanTcol, ColexpandDoublesCopies) {
  const TileDesc dst = ub_tile(0, F16, 5, 64);
  const TileDesc src = ub_tile(1024, F16, 1, 64);
  ASSERT_EQ(plan_and_collect(Request::unary(TileOp::TCOLEXPAND, dst, src)), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);  // row 0, then 1 row, 2 rows, 1 row
  EXPECT_EQ(g_steps.s[1].copy.nburst, 1u);
  EXPECT_EQ(g_steps.s[2].copy.nburst, 2u);
  EXPECT_EQ(g_steps.s[3].copy.nburst, 1u);
  EXPECT_EQ(g_steps.s[3].copy.dst.offset, 4u * 128u);
}

TEST(PlanMisc, ExpandsAndCvt) {
  ASSERT_EQ(plan_and_collect(Request::expands(ub_tile(0, F32, 64, 64), 0x3f800000u)), Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_TRUE(g_steps.s[0].kind == StepKind::dup);
  EXPECT_EQ(g_steps.s[0].dup.repeat, 64u);
  ASSERT_EQ(plan_and_collect(Request::cvt(ub_tile(0, F16, 32, 64), ub_tile(4096, F32, 32, 64), desc::RoundMode::rint)),
            Status::ok);
  ASSERT_EQ(g_steps.n, 1u);
  EXPECT_TRUE(g_steps.s[0].kind == StepKind::cvt);
  EXPECT_EQ(g_steps.s[0].cvt.repeat, 32u);
  EXPECT_EQ(g_steps.s[0].cvt.dst_repeat_stride, 4u);
  EXPECT_EQ(g_steps.s[0].cvt.src_repeat_stride, 8u);
}

// ---- statuses ----------------------------------------------------------------------------------------
TEST(PlanStatus, TileAndOpChecks) {
  const TileDesc a = ub_tile(0, F32, 16, 64);
  const TileDesc b = ub_tile(4096, F32, 16, 64);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(8192, F32, 16, 12), a, b), g_plan),
            Status::plan_tile_constraint);  // 48 B rows
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(8192, F32, 16, 64, 17, 64), a, b), g_plan),
            Status::plan_tile_constraint);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(8200, F32, 16, 64), a, b), g_plan),
            Status::tile_misaligned);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(196608 - 1024, F32, 16, 64), a, b), g_plan),
            Status::tile_out_of_bounds);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(8192, F32, 16, 64, 8, 64), a, b), g_plan),
            Status::plan_valid_shape_mismatch);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TDIV, ub_tile(8192, DType::i32, 16, 64),
                                      ub_tile(0, DType::i32, 16, 64), ub_tile(4096, DType::i32, 16, 64)),
                      g_plan),
            Status::plan_unsupported_dtype);
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(8192, F32, 16, 64, 0, 64), ub_tile(0, F32, 16, 64, 0, 64),
                                      ub_tile(4096, F32, 16, 64, 0, 64)),
                      g_plan),
            Status::plan_empty_valid_region);
  TileDesc l1 = a;
  l1.space = chip::MemSpace::L1;
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, l1, a, b), g_plan), Status::plan_tile_wrong_space);
  // Overlapping tiles: the desc rule decides (illegal_overlap), before any step is returned.
  desc::DescReport rep{};
  EXPECT_EQ(plan_tile(Request::binary(TileOp::TADD, ub_tile(256, F32, 16, 64), a, b), g_plan, &rep),
            Status::illegal_overlap);
  EXPECT_EQ(rep.status, Status::illegal_overlap);
  EXPECT_EQ(g_plan.step_count(), 0u);
  // TROWSUM: int32 not supported (Rule: TROWSUM family types), DN dst with Cols != 1, tmp too
  // small, valid rows.
  const TileDesc dn = ub_tile(0, F32, 16, 1, 16, 1, Layout::col_major);
  EXPECT_EQ(plan_tile(Request::reduce(TileOp::TROWSUM, ub_tile(0, DType::i32, 16, 8, 16, 1),
                                      ub_tile(1024, DType::i32, 16, 64), ub_tile(8192, DType::i32, 16, 64)),
                      g_plan),
            Status::plan_unsupported_dtype);
  EXPECT_EQ(plan_tile(Request::reduce(TileOp::TROWSUM, ub_tile(0, F32, 16, 8, 16, 8, Layout::col_major),
                                      ub_tile(1024, F32, 16, 64), ub_tile(8192, F32, 16, 64)),
                      g_plan),
            Status::plan_layout_unsupported);
  EXPECT_EQ(plan_tile(Request::reduce(TileOp::TROWSUM, dn, ub_tile(1024, F32, 16, 384), ub_tile(40960, F32, 16, 64)),
                      g_plan),
            Status::plan_tmp_too_small);
  EXPECT_EQ(plan_tile(Request::reduce(TileOp::TROWSUM, ub_tile(0, F32, 16, 1, 8, 1, Layout::col_major),
                                      ub_tile(1024, F32, 16, 64), ub_tile(8192, F32, 16, 64)),
                      g_plan),
            Status::plan_valid_shape_mismatch);
  EXPECT_EQ(status_class(Status::plan_tmp_too_small), StatusClass::invalid_descriptor);
  EXPECT_EQ(status_class(Status::tile_misaligned), StatusClass::misaligned);
  EXPECT_EQ(status_class(Status::tile_out_of_bounds), StatusClass::out_of_bounds);
}

// ---- random shapes ---------------------------------------------------------------------------------
// Each valid dst element is written exactly once and its lane reads the same (row, col) of
// every source; nothing outside the valid region is written. Elementwise ops only.
uint8_t g_hits[4096];

bool check_coverage(const Request& q, int nsrc) {
  const TileDesc& d = q.dst;
  const uint32_t cells = d.valid_rows * d.valid_cols;
  if (cells > sizeof(g_hits)) return true;
  for (uint32_t i = 0; i < cells; ++i) g_hits[i] = 0;
  bool ok = true;
  const TileDesc* src[2] = {&q.src0, &q.src1};
  Step s{};
  for (auto c = g_plan.begin(); c.next(s);) {
    for_each_lane(s, [&](uint32_t o0, uint32_t o1, uint32_t o2) {
      const uint32_t de = d.elem_bytes();
      if (o0 < d.offset || (o0 - d.offset) % de != 0) {
        ok = false;
        return;
      }
      const uint32_t idx = (o0 - d.offset) / de;
      const uint32_t r = idx / d.cols;
      const uint32_t col = idx % d.cols;
      if (r >= d.valid_rows || col >= d.valid_cols) {
        ok = false;
        return;
      }
      ++g_hits[r * d.valid_cols + col];
      const uint32_t so[2] = {o1, o2};
      for (int k = 0; k < nsrc; ++k) {
        const TileDesc& t = *src[k];
        const uint32_t want = t.offset + (r * t.cols + col) * t.elem_bytes();
        if (so[k] != want) ok = false;
      }
    });
  }
  for (uint32_t i = 0; i < cells; ++i) ok = ok && g_hits[i] == 1;
  return ok;
}

TEST(PlanRandom, ElementwisePlansValidateAndCoverTheValidRegionOnce) {
  Rng rng{};
  const TileOp ops[] = {TileOp::TADD, TileOp::TMAX, TileOp::TDIV, TileOp::TADDS, TileOp::TMINS,
                        TileOp::TABS, TileOp::TRELU, TileOp::TEXPANDS, TileOp::TCVT};
  const DType types[] = {F32, F16, DType::i32, DType::i16};
  uint32_t planned = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const TileOp op = ops[rng.next() % 9];
    DType dt = types[rng.next() % 4];
    DType st = dt;
    if (op == TileOp::TCVT) {
      dt = rng.next() % 2 ? F16 : F32;
      st = dt == F16 ? F32 : F16;
    }
    const uint32_t e = dtype_size(dt);
    const uint32_t se = dtype_size(st);
    const uint32_t unit = 32 / (e < se ? e : se);
    const uint32_t rows = rng.in(1, 40);
    const uint32_t cols = unit * rng.in(1, 12);
    const uint32_t vr = rng.in(1, rows);
    const uint32_t vc = rng.next() % 3 == 0 ? cols : rng.in(1, cols);
    const bool wide_src = rng.next() % 4 == 0;
    const uint32_t scols = wide_src ? cols + unit * rng.in(1, 4) : cols;
    const uint32_t bytes = rows * scols * 4;
    const uint32_t a = (bytes + 31) / 32 * 32;
    Request q{};
    q.op = op;
    q.dst = ub_tile(0, dt, rows, cols, vr, vc);
    q.src0 = ub_tile(a, st, rows, scols, vr, vc);
    q.src1 = ub_tile(2 * a, dt, rows, scols, vr, vc);
    q.scalar_bits = 0x3f800000u;
    q.round = dt == F16 ? desc::RoundMode::rint : desc::RoundMode::none;
    const int nsrc = op == TileOp::TEXPANDS ? 0 : (op == TileOp::TADD || op == TileOp::TMAX || op == TileOp::TDIV) ? 2 : 1;
    const Status s = plan_tile(q, g_plan);
    if (s == Status::plan_unsupported_dtype) continue;
    ASSERT_EQ(s, Status::ok);
    ++planned;
    EXPECT_TRUE(every_step_validates());
    EXPECT_TRUE(check_coverage(q, nsrc));
  }
  EXPECT_GT(planned, 200u);
}

TEST(PlanRandom, ReductionPlansValidate) {
  Rng rng{};
  uint32_t planned = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const DType dt = rng.next() % 2 ? F32 : F16;
    const uint32_t e = dtype_size(dt);
    const uint32_t epr = 256 / e;
    const uint32_t unit = 32 / e;
    const uint32_t rows = rng.in(1, 40);
    const uint32_t cols = unit * rng.in(1, 80);
    const uint32_t vr = rng.in(1, rows);
    const uint32_t vc = rng.in(1, cols);
    const uint32_t p = vc / epr;
    const uint32_t tcols = (p / 2 > 1 ? p / 2 : 1) * epr;
    const uint32_t sbytes = (rows * cols * e + 31) / 32 * 32;
    const bool dn = rng.next() % 2 == 0;
    const TileDesc dst = dn ? ub_tile(0, dt, 64, 1, vr, 1, Layout::col_major) : ub_tile(0, dt, rows, unit, vr, 1);
    const TileDesc src = ub_tile(4096, dt, rows, cols, vr, vc);
    const TileDesc tmp = ub_tile(4096 + sbytes, dt, rows, tcols);
    const TileOp ops[] = {TileOp::TROWSUM, TileOp::TROWMAX, TileOp::TROWMIN};
    const TileOp op = ops[rng.next() % 3];
    const Status s = plan_tile(Request::reduce(op, dst, src, tmp), g_plan);
    if (s == Status::tile_out_of_bounds) continue;
    ASSERT_EQ(s, Status::ok);
    ++planned;
    EXPECT_TRUE(every_step_validates());
    // No step writes outside dst and tmp.
    Step st{};
    for (auto c = g_plan.begin(); c.next(st);) {
      const uint32_t o = st.dst_operand().offset;
      EXPECT_TRUE(o < dst.bytes() || (o >= tmp.offset && o < tmp.offset + tmp.bytes()));
    }
    const TileOp cops[] = {TileOp::TCOLSUM, TileOp::TCOLMAX, TileOp::TCOLMIN, TileOp::TCOLEXPAND};
    const TileOp cop = cops[rng.next() % 4];
    const TileDesc cdst = ub_tile(0, dt, cop == TileOp::TCOLEXPAND ? rows : 1, cols,
                                  cop == TileOp::TCOLEXPAND ? vr : 1, vc);
    const TileDesc csrc = ub_tile(4096 + sbytes, dt, rows, cols, vr, vc);
    const Status cs = plan_tile(Request::reduce(cop, cdst, csrc, tmp), g_plan);
    if (cs == Status::tile_out_of_bounds || cs == Status::illegal_overlap) continue;
    ASSERT_EQ(cs, Status::ok);
    EXPECT_TRUE(every_step_validates());
  }
  EXPECT_GT(planned, 100u);
}

}  // namespace
