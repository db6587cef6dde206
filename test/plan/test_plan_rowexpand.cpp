// TROWEXPAND / TROWEXPANDADD/SUB/MUL/DIV: pinned step sequences (the stream documented in
// plan.hpp), every op check's status, and a bit-exact replay of the steps on a byte array
// against a straightforward scalar reference.
#include <cstring>

#include "plan_test_util.hpp"
#include "tftest.hpp"
#include "tilefw/base/float16.hpp"

using namespace plan_test;

namespace {

constexpr DType F32 = DType::f32;
constexpr DType F16 = DType::f16;
constexpr Layout DN = Layout::col_major;

Plan g_plan;
Steps g_steps;

Status plan_and_collect(const Request& r) {
  const Status st = plan_tile(r, g_plan);
  collect(g_plan, g_steps);
  return st;
}

const desc::BrcbDesc& brc(uint32_t i) { return g_steps.s[i].brcb; }

bool is_set_mask(uint32_t i, Mask128 m) {
  return g_steps.s[i].kind == StepKind::set_mask && g_steps.s[i].mask == m;
}

bool brcb_is(uint32_t i, uint32_t repeat, uint32_t d, uint32_t s, uint32_t blk, uint32_t rep) {
  if (g_steps.s[i].kind != StepKind::brcb) return false;
  const auto& x = brc(i);
  return x.repeat == repeat && x.dst.offset == d && x.src.offset == s && x.dst_block_stride == blk &&
         x.dst_repeat_stride == rep;
}

// A row-broadcast issue: src1 block stride 0, dst/src0 block stride 1.
bool rowbin_is(uint32_t i, desc::BinaryOp op, uint32_t repeat, uint32_t d, uint32_t a, uint32_t b,
               uint32_t rep_d, uint32_t rep_a, uint32_t rep_b) {
  const Step& s = g_steps.s[i];
  if (s.kind != StepKind::binary) return false;
  const auto& x = s.binary;
  return x.op == op && x.repeat == repeat && x.dst.offset == d && x.src0.offset == a && x.src1.offset == b &&
         x.dst_repeat_stride == rep_d && x.src0_repeat_stride == rep_a && x.src1_repeat_stride == rep_b &&
         x.dst_block_stride == 1 && x.src0_block_stride == 1 && x.src1_block_stride == 0 &&
         x.tail_elements == 0 && s.mode == MaskMode::normal;
}

// ---- scalar replay -----------------------------------------------------------------------------
// Executes steps on a UB-sized byte array with the simulator model of
// docs/a2a3-vector-semantics.md section 5:
// repeats in order, all reads of a repeat before its writes; masked-off lanes untouched; vbrcb
// and copies ignore MASK. Arithmetic is done in float and rounded to the dtype (exact for f32;
// for f16, float has >= 2p+2 bits, so + - * / round correctly).
alignas(8) uint8_t g_ub[chip::a2a3::kUbBytes];

float load(DType dt, uint32_t off) {
  if (dt == F32) {
    float f;
    std::memcpy(&f, g_ub + off, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, g_ub + off, 2);
  const uint32_t fb = half_bits_to_float_bits(h);
  float f;
  std::memcpy(&f, &fb, 4);
  return f;
}

void store(DType dt, uint32_t off, float f) {
  if (dt == F32) {
    std::memcpy(g_ub + off, &f, 4);
    return;
  }
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  const uint16_t h = float_bits_to_half_bits(fb);
  std::memcpy(g_ub + off, &h, 2);
}

float apply(desc::BinaryOp op, float a, float b) {
  switch (op) {
    case desc::BinaryOp::vadd: return a + b;
    case desc::BinaryOp::vsub: return a - b;
    case desc::BinaryOp::vmul: return a * b;
    case desc::BinaryOp::vdiv: return a / b;
    default: return 0.0f;
  }
}

struct Pending {
  uint32_t off;
  float v;
};
Pending g_pending[128];

bool replay(const Plan& p) {
  Step s{};
  for (auto c = p.begin(); c.next(s);) {
    switch (s.kind) {
      case StepKind::set_mask:
      case StepKind::set_mask_count:
      case StepKind::set_mask_norm: continue;  // the state is recorded in each issue step
      case StepKind::binary: {
        // Normal mode only (these plans never use counter mode): lanes by the recorded MASK.
        if (s.mode != MaskMode::normal) return false;
        const auto& d = s.binary;
        const uint32_t e = dtype_size(s.dtype);
        const uint32_t epr = 256 / e;
        const uint32_t per_block = 32 / e;
        const Mask128 m = e == 4 ? Mask128{0, s.mask.lo} : s.mask;
        auto at = [&](uint32_t base, uint32_t blk, uint32_t rep, uint32_t r, uint32_t k) {
          return base + (r * rep + (k / per_block) * blk) * 32 + (k % per_block) * e;
        };
        for (uint32_t r = 0; r < d.repeat; ++r) {
          uint32_t n = 0;
          for (uint32_t k = 0; k < epr; ++k) {
            if (!m.lane(k)) continue;
            const float a = load(s.dtype, at(d.src0.offset, d.src0_block_stride, d.src0_repeat_stride, r, k));
            const float b = load(s.dtype, at(d.src1.offset, d.src1_block_stride, d.src1_repeat_stride, r, k));
            g_pending[n++] = Pending{at(d.dst.offset, d.dst_block_stride, d.dst_repeat_stride, r, k),
                                     apply(d.op, a, b)};
          }
          for (uint32_t i = 0; i < n; ++i) store(s.dtype, g_pending[i].off, g_pending[i].v);
        }
        break;
      }
      case StepKind::brcb: {
        const auto& d = s.brcb;
        const uint32_t e = dtype_size(s.dtype);
        for (uint32_t r = 0; r < d.repeat; ++r) {
          uint8_t v[8][4];
          for (uint32_t k = 0; k < 8; ++k) std::memcpy(v[k], g_ub + d.src.offset + (8 * r + k) * e, e);
          for (uint32_t k = 0; k < 8; ++k) {
            const uint32_t blk = d.dst.offset + (r * d.dst_repeat_stride + k * d.dst_block_stride) * 32;
            for (uint32_t x = 0; x < 32; x += e) std::memcpy(g_ub + blk + x, v[k], e);
          }
        }
        break;
      }
      case StepKind::copy: {
        const auto& d = s.copy;
        for (uint32_t i = 0; i < d.nburst; ++i) {
          std::memmove(g_ub + d.dst.offset + i * (d.burst_len + d.dst_gap) * 32,
                       g_ub + d.src.offset + i * (d.burst_len + d.src_gap) * 32, d.burst_len * 32);
        }
        break;
      }
      default: return false;  // not used by these plans
    }
  }
  return true;
}


uint32_t round_bits(DType dt, float f) {
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  return dt == F32 ? fb : float_bits_to_half_bits(fb);
}
uint32_t read_bits(DType dt, uint32_t off) {
  uint32_t b = 0;
  std::memcpy(&b, g_ub + off, dtype_size(dt));
  return b;
}

uint32_t g_expect[32768];

// Element (i, j) of a tile, row-major or col-major.
uint32_t elem_at(const TileDesc& t, uint32_t i, uint32_t j) {
  const uint32_t idx = t.layout == Layout::row_major ? i * t.cols + j : j * t.rows + i;
  return t.offset + idx * t.elem_bytes();
}

desc::BinaryOp op_of(TileOp op) {
  switch (op) {
    case TileOp::TROWEXPANDADD: return desc::BinaryOp::vadd;
    case TileOp::TROWEXPANDSUB: return desc::BinaryOp::vsub;
    case TileOp::TROWEXPANDMUL: return desc::BinaryOp::vmul;
    default: return desc::BinaryOp::vdiv;
  }
}

// Random UB (garbage everywhere, random finite values in the inputs), the reference
// dst[i, j] = src0[i, j] op v[i] (TROWEXPAND: v[i]) computed first, then the plan replayed and
// every valid dst element compared bit for bit.
bool replay_matches_reference(const Request& q, Rng& rng) {
  if (plan_tile(q, g_plan) != Status::ok) return false;
  for (uint32_t i = 0; i < sizeof(g_ub); i += 4) {
    const uint32_t x = rng.next();
    std::memcpy(g_ub + i, &x, 4);
  }
  const bool expand_only = q.op == TileOp::TROWEXPAND;
  const TileDesc& v = expand_only ? q.src0 : q.src1;
  const DType dt = q.dst.dtype;
  const uint32_t vr = q.dst.valid_rows;
  const uint32_t vc = q.dst.valid_cols;
  if (uint64_t{vr} * vc > 32768) return false;
  auto random_value = [&]() { return static_cast<float>(static_cast<int32_t>(rng.next() % 4001) - 2000) / 125.0f; };
  if (!expand_only) {
    for (uint32_t i = 0; i < vr; ++i) {
      for (uint32_t j = 0; j < vc; ++j) store(dt, elem_at(q.src0, i, j), random_value());
    }
  }
  for (uint32_t i = 0; i < vr; ++i) {
    float x = random_value();
    if (q.op == TileOp::TROWEXPANDDIV && x == 0.0f) x = 1.0f;
    store(dt, elem_at(v, i, 0), x);
  }
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) {
      const float b = load(dt, elem_at(v, i, 0));
      g_expect[i * vc + j] =
          expand_only ? read_bits(dt, elem_at(v, i, 0)) : round_bits(dt, apply(op_of(q.op), load(dt, elem_at(q.src0, i, j)), b));
    }
  }
  if (!replay(g_plan)) return false;
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) {
      if (read_bits(dt, elem_at(q.dst, i, j)) != g_expect[i * vc + j]) return false;
    }
  }
  return true;
}

// ---- pinned streams -------------------------------------------------------------------------------
TEST(PlanRowExpand, F32_64x64_SubWithColMajorVector) {
  const TileDesc dst = ub_tile(0, F32, 64, 64);
  const TileDesc a = ub_tile(16384, F32, 64, 64);
  const TileDesc v = ub_tile(32768, F32, 64, 1, 64, 1, DN);
  ASSERT_EQ(plan_and_collect(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, dst, a, v)), Status::ok);
  ASSERT_EQ(g_steps.n, 2u);
  // vbrcb: 8 repeats of 8 rows; row i's slot is block 0 of dst row i (8 blocks per row).
  EXPECT_TRUE(brcb_is(0, 8, 0, 32768, 8, 64));
  EXPECT_TRUE(g_steps.s[0].dtype == F32);
  // one vsub over the 64 rows reading each row's slot (the block it overwrites).
  EXPECT_TRUE(rowbin_is(1, desc::BinaryOp::vsub, 64, 0, 16384, 0, 8, 8, 8));
  EXPECT_TRUE(g_steps.s[1].mask == Mask128::all());
  EXPECT_EQ(g_plan.issue_count(), 2u);
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, dst, a, v), rng));
}

TEST(PlanRowExpand, F16_ColMajorAndRowMajorVectors) {
  // f16 32x128 (8 blocks per row), v 32x1 col-major (64 B): 4 vbrcb repeats, one vadd.
  const TileDesc dst = ub_tile(0, F16, 32, 128);
  const TileDesc a = ub_tile(8192, F16, 32, 128);
  ASSERT_EQ(plan_and_collect(Request::rowexpand_binary(TileOp::TROWEXPANDADD, dst, a,
                                                       ub_tile(16384, F16, 32, 1, 32, 1, DN))),
            Status::ok);
  ASSERT_EQ(g_steps.n, 2u);
  EXPECT_TRUE(brcb_is(0, 4, 0, 16384, 8, 64));
  EXPECT_TRUE(g_steps.s[0].dtype == F16);
  EXPECT_TRUE(rowbin_is(1, desc::BinaryOp::vadd, 32, 0, 8192, 0, 8, 8, 8));
  // v row-major 32x16 with one valid column: one repeat-1 vbrcb per row from the row's start,
  // 8 blocks into dst row i (block stride 1), then the same vadd.
  const TileDesc vr = ub_tile(16384, F16, 32, 16, 32, 1);
  ASSERT_EQ(plan_and_collect(Request::rowexpand_binary(TileOp::TROWEXPANDADD, dst, a, vr)), Status::ok);
  ASSERT_EQ(g_steps.n, 33u);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_TRUE(brcb_is(i, 1, i * 256, 16384 + i * 32, 1, 8));
  EXPECT_TRUE(rowbin_is(32, desc::BinaryOp::vadd, 32, 0, 8192, 0, 8, 8, 8));
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(Request::rowexpand_binary(TileOp::TROWEXPANDADD, dst, a, vr), rng));
  EXPECT_TRUE(replay_matches_reference(
      Request::rowexpand_binary(TileOp::TROWEXPANDMUL, dst, a, ub_tile(16384, F16, 32, 1, 32, 1, DN)), rng));
}

TEST(PlanRowExpand, ColsAboveEprWithMaskedTail) {
  // f32 16x160 valid 16x150 (20 blocks per row): chunks 0, 1 full, tail 22 lanes.
  const TileDesc dst = ub_tile(0, F32, 16, 160, 16, 150);
  const TileDesc a = ub_tile(10240, F32, 16, 160, 16, 150);
  const TileDesc v = ub_tile(20480, F32, 16, 1, 16, 1, DN);
  const Request q = Request::rowexpand_binary(TileOp::TROWEXPANDSUB, dst, a, v);
  ASSERT_EQ(plan_and_collect(q), Status::ok);
  ASSERT_EQ(g_steps.n, 6u);
  EXPECT_TRUE(brcb_is(0, 2, 0, 20480, 20, 160));
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(22)));
  EXPECT_TRUE(rowbin_is(2, desc::BinaryOp::vsub, 16, 512, 10240 + 512, 0, 20, 20, 20));  // tail first
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
  EXPECT_TRUE(rowbin_is(4, desc::BinaryOp::vsub, 16, 256, 10240 + 256, 0, 20, 20, 20));  // chunk 1
  EXPECT_TRUE(rowbin_is(5, desc::BinaryOp::vsub, 16, 0, 10240, 0, 20, 20, 20));          // chunk 0 last
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(q, rng));
  // TROWEXPANDDIV, f16 valid 16x200 of 16x256 (EPR 128): tail 72 lanes, then chunk 0.
  const Request d = Request::rowexpand_binary(TileOp::TROWEXPANDDIV, ub_tile(0, F16, 16, 256, 16, 200),
                                              ub_tile(8192, F16, 16, 256, 16, 200), ub_tile(16384, F16, 16, 1, 16, 1, DN));
  ASSERT_EQ(plan_and_collect(d), Status::ok);
  ASSERT_EQ(g_steps.n, 5u);
  EXPECT_TRUE(brcb_is(0, 2, 0, 16384, 16, 128));
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(72)));
  EXPECT_TRUE(rowbin_is(2, desc::BinaryOp::vdiv, 16, 256, 8192 + 256, 0, 16, 16, 16));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
  EXPECT_TRUE(rowbin_is(4, desc::BinaryOp::vdiv, 16, 0, 8192, 0, 16, 16, 16));
  EXPECT_TRUE(replay_matches_reference(d, rng));
}

TEST(PlanRowExpand, RowsAbove255AreSplit) {
  // f32 dst 304x32 valid 300x32 (4 blocks per row, capacity for 38 whole vbrcb groups).
  const TileDesc dst = ub_tile(0, F32, 304, 32, 300, 32);
  const TileDesc a = ub_tile(38912, F32, 300, 32);
  const TileDesc v = ub_tile(77312, F32, 304, 1, 300, 1, DN);
  const Request q = Request::rowexpand_binary(TileOp::TROWEXPANDSUB, dst, a, v);
  ASSERT_EQ(plan_and_collect(q), Status::ok);
  ASSERT_EQ(g_steps.n, 5u);
  EXPECT_TRUE(brcb_is(0, 38, 0, 77312, 4, 32));
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(32)));
  EXPECT_TRUE(rowbin_is(2, desc::BinaryOp::vsub, 255, 0, 38912, 0, 4, 4, 4));
  EXPECT_TRUE(rowbin_is(3, desc::BinaryOp::vsub, 45, 255 * 128, 38912 + 255 * 128, 255 * 128, 4, 4, 4));
  EXPECT_TRUE(is_set_mask(4, Mask128::all()));
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(q, rng));
  // More than 255 vbrcb groups: f32 splits at 255 repeats (8160 B of v), f16 at 254 (the
  // next piece's source must be 32 B aligned: 254 * 16 B).
  const Request w = Request::rowexpand_binary(TileOp::TROWEXPANDSUB, ub_tile(0, F32, 2048, 8), ub_tile(65536, F32, 2048, 8),
                                              ub_tile(131072, F32, 2048, 1, 2048, 1, DN));
  ASSERT_EQ(plan_and_collect(w), Status::ok);
  EXPECT_TRUE(brcb_is(0, 255, 0, 131072, 1, 8));
  EXPECT_TRUE(brcb_is(1, 1, 255 * 8 * 32, 131072 + 255 * 32, 1, 8));
  EXPECT_TRUE(replay_matches_reference(w, rng));
  const Request h = Request::rowexpand_binary(TileOp::TROWEXPANDADD, ub_tile(0, F16, 2048, 16), ub_tile(65536, F16, 2048, 16),
                                              ub_tile(131072, F16, 2048, 1, 2048, 1, DN));
  ASSERT_EQ(plan_and_collect(h), Status::ok);
  EXPECT_TRUE(brcb_is(0, 254, 0, 131072, 1, 8));
  EXPECT_TRUE(brcb_is(1, 2, 254 * 8 * 32, 131072 + 254 * 16, 1, 8));
  EXPECT_TRUE(replay_matches_reference(h, rng));
}

TEST(PlanRowExpand, InPlaceUsesTmpSlots) {
  // x = x - v in place: the slots cannot live in dst (they would clobber src0): tmp, dense.
  const TileDesc x = ub_tile(0, F32, 20, 64, 20, 50);
  const TileDesc v = ub_tile(8192, F32, 24, 1, 20, 1, DN);
  EXPECT_EQ(plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, x, x, v), g_plan), Status::plan_tmp_too_small);
  const TileDesc tmp = ub_tile(9216, F32, 3, 64);  // 768 B = 24 slots
  const Request q = Request::rowexpand_binary(TileOp::TROWEXPANDSUB, x, x, v, tmp);
  ASSERT_EQ(plan_and_collect(q), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(brcb_is(0, 3, 9216, 8192, 1, 8));
  EXPECT_TRUE(is_set_mask(1, Mask128::continuous(50)));
  EXPECT_TRUE(rowbin_is(2, desc::BinaryOp::vsub, 20, 0, 0, 9216, 8, 8, 1));
  EXPECT_TRUE(is_set_mask(3, Mask128::all()));
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(q, rng));
  // Too small (23 slots) and overlapping tmps.
  EXPECT_EQ(plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, x, x, v, ub_tile(9216, F32, 23, 8)), g_plan),
            Status::plan_tmp_too_small);
  EXPECT_EQ(plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, x, x, v, ub_tile(4096, F32, 3, 64)), g_plan),
            Status::plan_operands_overlap);
  EXPECT_EQ(plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, x, x, v, ub_tile(8192, F32, 3, 64)), g_plan),
            Status::plan_operands_overlap);
  // dst with fewer capacity rows than whole vbrcb groups (5 < 8): tmp too.
  const Request small = Request::rowexpand_binary(TileOp::TROWEXPANDMUL, ub_tile(0, F32, 5, 64), ub_tile(2048, F32, 5, 64),
                                                  ub_tile(4096, F32, 8, 1, 5, 1, DN), ub_tile(4128, F32, 1, 64));
  ASSERT_EQ(plan_and_collect(small), Status::ok);
  EXPECT_TRUE(brcb_is(0, 1, 4128, 4096, 1, 8));
  EXPECT_TRUE(replay_matches_reference(small, rng));
}

TEST(PlanRowExpand, TrowexpandBroadcastsThenDoubles) {
  // f32 16x64 valid 16x40 (5 blocks): vbrcb into block 0, then copies [0,1)->[1,2),
  // [0,2)->[2,4), [0,1)->[4,5) of every row.
  const TileDesc dst = ub_tile(0, F32, 16, 64, 16, 40);
  const TileDesc v = ub_tile(4096, F32, 16, 1, 16, 1, DN);
  const Request q = Request::rowexpand(dst, v);
  ASSERT_EQ(plan_and_collect(q), Status::ok);
  ASSERT_EQ(g_steps.n, 4u);
  EXPECT_TRUE(brcb_is(0, 2, 0, 4096, 8, 64));
  const uint32_t lens[3] = {1, 2, 1};
  const uint32_t at[3] = {1, 2, 4};
  for (uint32_t k = 0; k < 3; ++k) {
    const auto& c = g_steps.s[k + 1].copy;
    EXPECT_TRUE(g_steps.s[k + 1].kind == StepKind::copy);
    EXPECT_EQ(c.nburst, 16u);
    EXPECT_EQ(c.burst_len, lens[k]);
    EXPECT_EQ(c.dst.offset, at[k] * 32);
    EXPECT_EQ(c.src.offset, 0u);
    EXPECT_EQ(c.src_gap, 8 - lens[k]);
    EXPECT_EQ(c.dst_gap, 8 - lens[k]);
  }
  Rng rng{};
  EXPECT_TRUE(replay_matches_reference(q, rng));
  // Row-major v (f16 Nx16, one valid column) and slots in tmp: a copy to block 0 first.
  const Request t = Request::rowexpand(ub_tile(0, F16, 12, 16, 12, 16), ub_tile(0, F16, 12, 16, 12, 1),
                                       ub_tile(1024, F16, 12, 128));
  ASSERT_EQ(plan_and_collect(t), Status::ok);
  EXPECT_TRUE(replay_matches_reference(t, rng));
}

// ---- op checks -----------------------------------------------------------------------------------
TEST(PlanRowExpand, OpChecks) {
  const TileDesc dst = ub_tile(0, F32, 16, 64);
  const TileDesc a = ub_tile(4096, F32, 16, 64);
  const TileDesc v = ub_tile(8192, F32, 16, 1, 16, 1, DN);
  auto sub = [](const TileDesc& d, const TileDesc& x, const TileDesc& y) {
    return plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, d, x, y), g_plan);
  };
  EXPECT_EQ(sub(dst, a, v), Status::ok);
  // dtype: half and float only; every operand the same type.
  EXPECT_EQ(sub(ub_tile(0, DType::i32, 16, 64), ub_tile(4096, DType::i32, 16, 64), ub_tile(8192, DType::i32, 16, 1, 16, 1, DN)),
            Status::plan_unsupported_dtype);
  EXPECT_EQ(sub(dst, a, ub_tile(8192, F16, 16, 1, 16, 1, DN)), Status::plan_unsupported_dtype);
  EXPECT_EQ(sub(dst, ub_tile(4096, F16, 16, 64), v), Status::plan_unsupported_dtype);
  EXPECT_EQ(plan_tile(Request::rowexpand(dst, ub_tile(8192, DType::i16, 16, 1, 16, 1, DN)), g_plan),
            Status::plan_unsupported_dtype);
  // layouts: dst and src0 row-major; a col-major v has one column.
  EXPECT_EQ(sub(ub_tile(0, F32, 16, 64, 16, 64, DN), a, v), Status::plan_layout_unsupported);
  EXPECT_EQ(sub(dst, ub_tile(4096, F32, 16, 64, 16, 64, DN), v), Status::plan_layout_unsupported);
  EXPECT_EQ(sub(dst, a, ub_tile(8192, F32, 16, 2, 16, 1, DN)), Status::plan_layout_unsupported);
  // valid shapes: src0 as dst; v's valid rows = dst's, valid cols 1.
  EXPECT_EQ(sub(dst, ub_tile(4096, F32, 16, 64, 16, 32), v), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(sub(dst, a, ub_tile(8192, F32, 16, 1, 8, 1, DN)), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(sub(dst, a, ub_tile(8192, F32, 16, 8, 16, 2)), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(plan_tile(Request::rowexpand(dst, ub_tile(8192, F32, 16, 8, 16, 8)), g_plan),
            Status::plan_valid_shape_mismatch);
  EXPECT_EQ(sub(ub_tile(0, F32, 16, 64, 0, 64), ub_tile(4096, F32, 16, 64, 0, 64), ub_tile(8192, F32, 16, 1, 0, 1, DN)),
            Status::plan_empty_valid_region);
  // tiles: constraint, placement, space.
  EXPECT_EQ(sub(dst, a, ub_tile(8192, F32, 4, 1, 4, 1, DN)), Status::plan_tile_constraint);  // 16 B column
  EXPECT_EQ(sub(dst, a, ub_tile(196608 - 32, F32, 16, 1, 16, 1, DN)), Status::tile_out_of_bounds);
  TileDesc l1 = v;
  l1.space = chip::MemSpace::L1;
  EXPECT_EQ(sub(dst, a, l1), Status::plan_tile_wrong_space);
  // v row-major into dst rows narrower than 8 blocks, no tmp; a tmp in L1.
  EXPECT_EQ(sub(ub_tile(0, F32, 16, 32), ub_tile(4096, F32, 16, 32), ub_tile(8192, F32, 16, 8, 16, 1)),
            Status::plan_tmp_too_small);
  TileDesc t1 = ub_tile(0, F32, 16, 64);
  t1.space = chip::MemSpace::L1;
  EXPECT_EQ(plan_tile(Request::rowexpand_binary(TileOp::TROWEXPANDSUB, dst, dst, v, t1), g_plan),
            Status::plan_tile_wrong_space);
  EXPECT_EQ(g_plan.step_count(), 0u);
  EXPECT_STREQ(tile_op_name(TileOp::TROWEXPANDDIV), "TROWEXPANDDIV");
  EXPECT_STREQ(tile_op_name(TileOp::TROWEXPAND), "TROWEXPAND");
  EXPECT_STREQ(step_kind_name(StepKind::brcb), "brcb");
  EXPECT_STREQ(status_name(Status::plan_operands_overlap), "plan_operands_overlap");
  EXPECT_EQ(status_class(Status::plan_operands_overlap), StatusClass::invalid_descriptor);
}

// Random shapes: every plan validates and replays to the reference.
TEST(PlanRowExpand, RandomShapesMatchTheReference) {
  Rng rng{};
  const TileOp ops[] = {TileOp::TROWEXPAND, TileOp::TROWEXPANDADD, TileOp::TROWEXPANDSUB, TileOp::TROWEXPANDMUL,
                        TileOp::TROWEXPANDDIV};
  uint32_t planned = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const DType dt = rng.next() % 2 ? F32 : F16;
    const uint32_t e = dtype_size(dt);
    const uint32_t unit = 32 / e;
    const uint32_t rows = rng.in(1, 40);
    const uint32_t cols = unit * rng.in(1, 24);
    const uint32_t vr = rng.in(1, rows);
    const uint32_t vc = rng.in(1, cols);
    const TileOp op = ops[rng.next() % 5];
    const uint32_t tb = rows * cols * e;  // a multiple of 32
    const TileDesc dst = ub_tile(0, dt, rows, cols, vr, vc);
    const bool in_place = rng.next() % 4 == 0;
    const TileDesc a = in_place ? dst : ub_tile(tb, dt, rows, cols, vr, vc);
    const uint32_t vrows = (rows + unit - 1) / unit * unit;
    const TileDesc v = rng.next() % 2 ? ub_tile(2 * tb, dt, vrows, 1, vr, 1, DN) : ub_tile(2 * tb, dt, rows, unit, vr, 1);
    const TileDesc tmp = ub_tile(2 * tb + rows * 32 + vrows * e + 32, F32, 40, 64);
    const Request q = op == TileOp::TROWEXPAND ? Request::rowexpand(dst, v, tmp)
                                               : Request::rowexpand_binary(op, dst, a, v, tmp);
    ASSERT_EQ(plan_tile(q, g_plan), Status::ok);
    ++planned;
    EXPECT_TRUE(replay_matches_reference(q, rng));
  }
  EXPECT_EQ(planned, 120u);
}

}  // namespace
