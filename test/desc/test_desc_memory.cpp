// Memory rules of a2a3 vector issues: the NOP rule, alignment (incl. reduction destinations),
// UB bounds on participating blocks, the reserved-UB diagnostic and the block overlap rule.
#include "desc_test_util.hpp"
#include "tftest.hpp"
#include "tilefw/base/float16.hpp"

using namespace desc_test;
using tilefw::half;

// ---- NOP ----------------------------------------------------------------------------------------
TEST(DescNop, ZeroMaskIsOkEvenOutsideUb) {
  const BinIntrinsicDesc d = bin(4, 0xFFFFFF00u, 3, kUb);  // out of UB and misaligned
  const DescReport r = validate(d, DType::f32, Mask128::none());
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_TRUE(r.nop);
  EXPECT_EQ(validate(d, DType::f32).status, Status::misaligned);
}

TEST(DescNop, B32IgnoresMaskHigh) {
  const BinIntrinsicDesc d = bin(1, kUb, kUb, kUb);  // would be out of bounds if it ran
  const Mask128 hi_only{~uint64_t{0}, 0};
  const DescReport r = validate(d, DType::f32, hi_only);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_TRUE(r.nop);
  // b16 uses all 128 bits: lanes 64..127 are blocks 4..7.
  const DescReport h = validate(d, DType::f16, hi_only);
  EXPECT_EQ(h.status, Status::out_of_bounds);
  EXPECT_EQ(h.block_index, 4u);
  EXPECT_EQ(h.byte_offset, uint64_t{kUb} + 128u);
  EXPECT_FALSE(h.nop);
}

TEST(DescNop, UnaryAndReduceNop) {
  EXPECT_TRUE(validate(un(1, 1, 1), DType::f16, Mask128::none()).nop);
  EXPECT_TRUE(validate(red(ReduceOp::vcmax, 1, 1, 1), DType::f32, Mask128{5, 0}).nop);
  EXPECT_EQ(validate(red(ReduceOp::vcmax, 1, 1, 1), DType::f32, Mask128{5, 1}).status, Status::misaligned);
}

// ---- alignment ----------------------------------------------------------------------------------
TEST(DescAlign, ElementwiseOperandsNeed32B) {
  EXPECT_EQ(validate<half>(bin(1, 32, 64, 96)), Status::ok);
  DescReport r = validate(bin(1, 2, 4096, 8192), DType::f16);
  EXPECT_EQ(r.status, Status::misaligned);
  EXPECT_STREQ(r.field, "dst.offset");
  EXPECT_EQ(r.value, 2u);
  EXPECT_EQ(r.limit, 32u);
  EXPECT_EQ(r.byte_offset, 2u);
  r = validate(bin(1, 0, 4096, 8194), DType::f16);
  EXPECT_STREQ(r.field, "src1.offset");
  EXPECT_EQ(r.value, 8194u);
  r = validate(un(1, 0, 4112), DType::f32);
  EXPECT_EQ(r.status, Status::misaligned);
  EXPECT_STREQ(r.field, "src.offset");
  r = validate(sc(1, 16, 4096), DType::f32);
  EXPECT_STREQ(r.field, "dst.offset");
}

namespace {
struct AlignCase {
  ReduceOp op;
  ReduceOrder order;
  DType dt;
  uint32_t good;   // an aligned dst offset
  uint32_t bad;    // a misaligned one
  uint32_t align;  // the required alignment
};
}  // namespace

TEST(DescAlign, ReductionDestinations) {
  const AlignCase cases[] = {
      {ReduceOp::vcadd, ReduceOrder::value_index, DType::f16, 4098, 4097, 2},
      {ReduceOp::vcadd, ReduceOrder::value_index, DType::f32, 4100, 4098, 4},
      {ReduceOp::vcgadd, ReduceOrder::value_index, DType::f16, 4128, 4112, 32},
      {ReduceOp::vcgadd, ReduceOrder::value_index, DType::f32, 4128, 4112, 32},
      {ReduceOp::vcpadd, ReduceOrder::value_index, DType::f16, 4128, 4112, 32},
      {ReduceOp::vcpadd, ReduceOrder::value_index, DType::f32, 4128, 4100, 32},
      {ReduceOp::vcmax, ReduceOrder::value_index, DType::f16, 4098, 4097, 2},
      {ReduceOp::vcmax, ReduceOrder::index_value, DType::f32, 4100, 4098, 4},
      {ReduceOp::vcmin, ReduceOrder::only_value, DType::f16, 4098, 4097, 2},
      {ReduceOp::vcmin, ReduceOrder::only_value, DType::f32, 4100, 4102, 4},
      {ReduceOp::vcmax, ReduceOrder::only_index, DType::f16, 4100, 4098, 4},
      {ReduceOp::vcmin, ReduceOrder::only_index, DType::f32, 4100, 4098, 4},
  };
  for (const AlignCase& c : cases) {
    EXPECT_EQ(validate(red(c.op, 2, c.good, 0, c.order), c.dt).status, Status::ok);
    const DescReport r = validate(red(c.op, 2, c.bad, 0, c.order), c.dt);
    EXPECT_EQ(r.status, Status::misaligned);
    EXPECT_STREQ(r.field, "dst.offset");
    EXPECT_EQ(r.value, c.bad);
    EXPECT_EQ(r.limit, c.align);
  }
  const DescReport s = validate(red(ReduceOp::vcadd, 1, 4096, 16), DType::f16);
  EXPECT_EQ(s.status, Status::misaligned);
  EXPECT_STREQ(s.field, "src.offset");
}

// ---- bounds -------------------------------------------------------------------------------------
TEST(DescBounds, LastBlockExactlyAtUbEnd) {
  const DescReport r = validate(bin(1, 0, 4096, kUb - 256), DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_TRUE(r.touches_reserved_ub);
  const DescReport o = validate(bin(1, 0, 4096, kUb - 224), DType::f32);
  EXPECT_EQ(o.status, Status::out_of_bounds);
  EXPECT_STREQ(o.field, "src1");
  EXPECT_EQ(o.byte_offset, uint64_t{kUb});
  EXPECT_EQ(o.repeat_index, 0u);
  EXPECT_EQ(o.block_index, 7u);
  EXPECT_EQ(o.limit, kUb);
}

TEST(DescBounds, LastRepeatPastUb) {
  // 4 repeats of 256 B: the last block of repeat 3 ends exactly at the UB end.
  EXPECT_EQ(validate<half>(bin(4, kUb - 1024, 0, 4096)), Status::ok);
  const DescReport o = validate(bin(4, kUb - 992, 0, 4096), DType::f16);
  EXPECT_EQ(o.status, Status::out_of_bounds);
  EXPECT_STREQ(o.field, "dst");
  EXPECT_EQ(o.repeat_index, 3u);
  EXPECT_EQ(o.block_index, 7u);
  EXPECT_EQ(o.byte_offset, uint64_t{kUb});
  // Large strides: a start far beyond UB is reported at repeat 0 block 0.
  const DescReport f = validate(bin(1, 0, 0xFFFFFFE0u, 4096), DType::f16);
  EXPECT_EQ(f.status, Status::out_of_bounds);
  EXPECT_STREQ(f.field, "src0");
  EXPECT_EQ(f.byte_offset, 0xFFFFFFE0u);
  EXPECT_EQ(f.block_index, 0u);
}

TEST(DescBounds, MaskedOffBlocksDoNotCount) {
  // Only lanes 0..15 of f16 (block 0): blocks 1..7 of src1 would lie outside UB.
  const BinIntrinsicDesc d = bin(1, 0, 4096, kUb - 32);
  EXPECT_EQ(validate(d, DType::f16, Mask128::continuous(16)).status, Status::ok);
  EXPECT_EQ(validate(d, DType::f16, Mask128::continuous(17)).status, Status::out_of_bounds);
  // Only lane 127 (block 7): blocks 0..6 masked, block 7 inside UB.
  const BinIntrinsicDesc e = bin(1, 0, 4096, kUb - 256);
  EXPECT_EQ(validate(e, DType::f16, Mask128{uint64_t{1} << 63, 0}).status, Status::ok);
  BinIntrinsicDesc g = e;
  g.src1_block_stride = 2;  // block 7 at +448: outside
  const DescReport r = validate(g, DType::f16, Mask128{uint64_t{1} << 63, 0});
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_EQ(r.block_index, 7u);
  EXPECT_EQ(r.byte_offset, uint64_t{kUb} - 256u + 448u);
  EXPECT_EQ(validate(g, DType::f16, Mask128{0, uint64_t{1} << 63}).status, Status::ok);  // block 3
}

TEST(DescBounds, CountModeLastRepeatIsPartial) {
  // f16 count 130: repeat 0 full, repeat 1 lanes 0..1 (block 0 only).
  BinIntrinsicDesc d = bin_count(130, 0, 4096, kUb - 288);
  EXPECT_EQ(validate<half>(d), Status::ok);
  d.vector_count = 145;  // repeat 1 lanes 0..16: block 1 at the UB end
  const DescReport r = validate(d, DType::f16);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_EQ(r.repeat_index, 1u);
  EXPECT_EQ(r.block_index, 1u);
  EXPECT_EQ(r.byte_offset, uint64_t{kUb});
}

TEST(DescBounds, HugeCountWithRepeatStrideZeroIsClosedForm) {
  // 2^32-1 elements: 67 million repeats. With repeat strides 0 nothing moves; the accumulator
  // exception allows dst == src1. Must be fast (no loop over repeats).
  BinIntrinsicDesc d = bin_count(0xFFFFFFFFu, 0, 4096, 0);
  d.dst_repeat_stride = 0;
  d.src0_repeat_stride = 0;
  d.src1_repeat_stride = 0;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.repeats, 67108864u);
  d.src0_repeat_stride = 1;  // src0 walks 32 B per repeat: 4096 + r*32 + 256 > 196608 at r 6009
  const DescReport o = validate(d, DType::f32);
  EXPECT_EQ(o.status, Status::out_of_bounds);
  EXPECT_STREQ(o.field, "src0");
  EXPECT_EQ(o.repeat_index, 6009u);
  EXPECT_EQ(o.block_index, 7u);
  EXPECT_EQ(o.byte_offset, uint64_t{kUb});
}

TEST(DescBounds, ReservedTopDiagnostic) {
  const uint32_t top = tilefw::chip::a2a3::kUbUsableBytes;
  EXPECT_FALSE(validate(bin(1, 0, 4096, top - 256), DType::f32).touches_reserved_ub);
  const DescReport r = validate(bin(1, 0, 4096, top - 224), DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_TRUE(r.touches_reserved_ub);
  // Masked-off blocks do not set it either.
  EXPECT_FALSE(validate(bin(1, 0, 4096, top - 32), DType::f32, Mask128::continuous(8)).touches_reserved_ub);
}

// The fast acceptance path answers for issues reaching into the reserved top too, when the
// shape gives it the exact extents (counter mode, a tail, a full live mask), with the same
// flag as the precise analysis; a partial live mask there is left to the precise path.
TEST(DescBounds, FastPathReservedTopFlagIsExact) {
  constexpr uint32_t kTile = 64 * 1024;  // three 128x128 f32 tiles fill UB
  const BinIntrinsicDesc full = bin_count(16384, 2 * kTile, 0, kTile);
  const QuickVerdict q = quick_valid(full, DType::f32, Mask128::all());
  EXPECT_TRUE(q);
  EXPECT_EQ(q.repeats, 256u);
  EXPECT_TRUE(q.touches_reserved_ub);
  EXPECT_TRUE(validate(full, DType::f32).touches_reserved_ub);
  // 200 lanes: the last of 4 repeats holds 8 lanes (one block), so the participating blocks end
  // at dst + 800 = the top while the conservative extent (8 blocks) reaches 224 B into it.
  const uint32_t top = tilefw::chip::a2a3::kUbUsableBytes;
  const BinIntrinsicDesc short_last = bin_count(64 * 3 + 8, top - 800, 0, 4096);
  const DescReport precise = validate(short_last, DType::f32);
  EXPECT_EQ(precise.status, Status::ok);
  const QuickVerdict s = quick_valid(short_last, DType::f32, Mask128::all());
  EXPECT_TRUE(s);
  EXPECT_EQ(s.touches_reserved_ub, precise.touches_reserved_ub);
  EXPECT_FALSE(s.touches_reserved_ub);
  // Negative: a partial live mask inside the top is not answered by the fast path, and an
  // extent past UB's end never is.
  // (src1's block 7 would start at the top; only block 0 participates).
  EXPECT_FALSE(quick_valid(bin(1, 0, 4096, top - 224), DType::f32, Mask128::continuous(8)));
  EXPECT_FALSE(validate(bin(1, 0, 4096, top - 224), DType::f32, Mask128::continuous(8)).touches_reserved_ub);
  EXPECT_TRUE(quick_valid(bin(1, 0, 4096, top - 224), DType::f32, Mask128::all()).touches_reserved_ub);
  EXPECT_FALSE(quick_valid(bin(1, 0, 4096, kUb - 224), DType::f32, Mask128::all()));
  EXPECT_EQ(validate(bin(1, 0, 4096, kUb - 224), DType::f32).status, Status::out_of_bounds);
}

TEST(DescBounds, ReductionDestinations) {
  // vcadd f32: 4 outputs of 4 B, unit 1 element.
  EXPECT_EQ(validate<float>(red(ReduceOp::vcadd, 4, kUb - 16, 0)), Status::ok);
  const DescReport r = validate(red(ReduceOp::vcadd, 4, kUb - 12, 0), DType::f32);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_EQ(r.repeat_index, 3u);
  EXPECT_EQ(r.byte_offset, uint64_t{kUb});
  // vcgadd f32: 8 outputs per repeat (32 B); an all-masked block writes nothing.
  EXPECT_EQ(validate<float>(red(ReduceOp::vcgadd, 1, kUb - 32, 0)), Status::ok);
  EXPECT_EQ(validate<float>(red(ReduceOp::vcgadd, 2, kUb - 32, 0)), Status::out_of_bounds);
  ReduceDesc g = red(ReduceOp::vcgadd, 2, kUb - 64, 0);
  g.dst_repeat_stride = 2;  // repeat 1 at kUb: only if some block participates
  EXPECT_EQ(validate<float>(g), Status::out_of_bounds);
  // vcpadd f16: 64 outputs of 2 B = 128 B per repeat.
  EXPECT_EQ(validate<half>(red(ReduceOp::vcpadd, 2, kUb - 256, 0)), Status::ok);
  EXPECT_EQ(validate<half>(red(ReduceOp::vcpadd, 2, kUb - 224, 0)), Status::out_of_bounds);
  // vcpadd with only lanes 0..63 (f16): outputs 0..31, 64 B.
  EXPECT_EQ(validate(red(ReduceOp::vcpadd, 1, kUb - 64, 0), DType::f16, Mask128::continuous(64)).status,
            Status::ok);
  // vcmax value_index f16: 4 B records; only_index: 4 B records.
  EXPECT_EQ(validate<half>(red(ReduceOp::vcmax, 2, kUb - 8, 0)), Status::ok);
  EXPECT_EQ(validate<half>(red(ReduceOp::vcmax, 3, kUb - 8, 0)), Status::out_of_bounds);
  EXPECT_EQ(validate<float>(red(ReduceOp::vcmin, 2, kUb - 8, 0, ReduceOrder::only_index)), Status::ok);
  EXPECT_EQ(validate<float>(red(ReduceOp::vcmin, 2, kUb - 8, 0, ReduceOrder::value_index)),
            Status::out_of_bounds);
}

// ---- overlap ------------------------------------------------------------------------------------
TEST(DescOverlap, IdenticalInPlaceIsLegal) {
  EXPECT_EQ(validate<float>(bin(8, 0, 0, 4096)), Status::ok);
  EXPECT_EQ(validate<float>(bin(8, 4096, 0, 4096)), Status::ok);
  EXPECT_EQ(validate<half>(un(8, 0, 0)), Status::ok);
  EXPECT_EQ(validate<half>(sc(8, 0, 0)), Status::ok);
}

TEST(DescOverlap, LaterRepeatReadsEarlierDst) {
  const DescReport r = validate(bin(2, 256, 0, 4096), DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src0");
  EXPECT_EQ(r.repeat_index, 0u);
  EXPECT_EQ(r.other_repeat, 1u);
  EXPECT_EQ(r.byte_offset, 256u);
  EXPECT_EQ(r.other_offset, 256u);
  // Any later repeat, not only the next one (Rule: block overlap, docs/a2a3-vector-semantics.md
  // section 5): repeat 0 vs repeat 3.
  const DescReport f = validate(bin(4, 768, 0, 8192), DType::f32);
  EXPECT_EQ(f.status, Status::illegal_overlap);
  EXPECT_EQ(f.other_repeat, 3u);
  // Writing behind the reads is fine: dst of repeat 1 over src0 of repeat 0.
  EXPECT_EQ(validate<float>(bin(4, 0, 256, 8192)), Status::ok);
  // Single repeat: shifted blocks are identical or disjoint, read-before-write.
  EXPECT_EQ(validate<float>(bin(1, 32, 0, 8192)), Status::ok);
  EXPECT_EQ(validate<float>(bin(2, 32, 0, 8192)), Status::illegal_overlap);
}

TEST(DescOverlap, AccumulatorOnSrc1) {
  // dst == src1, both repeat strides 0: sequential accumulation (docs/a2a3-vector-semantics.md
  // section 5).
  BinIntrinsicDesc d = bin(4, 0, 4096, 0);
  d.dst_repeat_stride = 0;
  d.src1_repeat_stride = 0;
  EXPECT_EQ(validate<float>(d), Status::ok);
  EXPECT_EQ(validate<half>(d), Status::ok);
  EXPECT_EQ(validate<int32_t>(d), Status::ok);
  // Only src1_repeat_stride == 0 (dst walks): still the exception.
  d.dst_repeat_stride = 8;
  EXPECT_EQ(validate<float>(d), Status::ok);
  // int16 and vdiv are not in the exception.
  d.dst_repeat_stride = 0;
  const DescReport i = validate(d, DType::i16);
  EXPECT_EQ(i.status, Status::illegal_overlap);
  EXPECT_STREQ(i.other, "src1");
  d.op = BinaryOp::vdiv;
  EXPECT_EQ(validate<float>(d), Status::illegal_overlap);
  d.op = BinaryOp::vmax;
  EXPECT_EQ(validate<float>(d), Status::ok);
  // Both repeat strides nonzero: dst repeat 0 is src1 of repeat 1, no exception.
  BinIntrinsicDesc w = bin(2, 256, 4096, 0);
  EXPECT_EQ(validate<float>(w), Status::illegal_overlap);
}

TEST(DescOverlap, AccumulatorPatternOnSrc0IsIllegal) {
  BinIntrinsicDesc d = bin(4, 0, 0, 4096);
  d.dst_repeat_stride = 0;
  d.src0_repeat_stride = 0;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src0");
  EXPECT_EQ(r.repeat_index, 0u);
  EXPECT_EQ(r.other_repeat, 1u);
  // dst vs src0 is still checked when src1 is an accumulator.
  BinIntrinsicDesc e = bin(4, 0, 0, 0);
  e.dst_repeat_stride = 0;
  e.src0_repeat_stride = 0;
  e.src1_repeat_stride = 0;
  EXPECT_STREQ(validate(e, DType::f32).other, "src0");
}

TEST(DescOverlap, PtoFp32TrowsumFastPath) {
  // vadd (blk 1,2,2; rep 8,16,16), dst == src0, src1 = src0 + 32 B, 64 rows = 8 repeats:
  // dst blocks coincide with src0/src1 blocks inside a repeat and compact behind the reads.
  BinIntrinsicDesc d = bin(8, 1024, 1024, 1056);
  d.src0_block_stride = 2;
  d.src1_block_stride = 2;
  d.src0_repeat_stride = 16;
  d.src1_repeat_stride = 16;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  // Same shape through count mode (64 rows x 8 lanes... 512 elements = 8 repeats).
  d.repeat = 0;
  d.mask_mode = MaskMode::count;
  d.vector_count = 512;
  EXPECT_EQ(validate<float>(d), Status::ok);
}

TEST(DescOverlap, ReductionDstInsideSrcBlock) {
  const DescReport r = validate(red(ReduceOp::vcadd, 1, 8, 0), DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src");
  EXPECT_EQ(r.repeat_index, 0u);
  EXPECT_EQ(r.other_repeat, 0u);
  EXPECT_EQ(r.byte_offset, 8u);
  EXPECT_EQ(r.other_offset, 0u);
  // Outside the participating blocks it is fine: lanes 0..7 only read block 0.
  EXPECT_EQ(validate(red(ReduceOp::vcadd, 1, 40, 0), DType::f32, Mask128::continuous(8)).status, Status::ok);
  EXPECT_EQ(validate(red(ReduceOp::vcadd, 1, 40, 0), DType::f32).status, Status::illegal_overlap);
  // A later repeat's source must not be an earlier repeat's output.
  ReduceDesc c = red(ReduceOp::vcadd, 2, 256, 0);
  EXPECT_EQ(validate<float>(c), Status::illegal_overlap);
  c.dst = ub(512);
  EXPECT_EQ(validate<float>(c), Status::ok);
}

TEST(DescOverlap, VcgaddInPlaceIsByteIdentical) {
  // f32: 8 outputs x 4 B = 32 B written over src block 0 of the same repeat.
  EXPECT_EQ(validate<float>(red(ReduceOp::vcgadd, 1, 0, 0)), Status::ok);
  ReduceDesc g = red(ReduceOp::vcgadd, 4, 0, 0);  // dst unit 32 B: compacts behind the reads
  EXPECT_EQ(validate<float>(g), Status::ok);
  // f16: 16 B of outputs inside a 32 B block: partial overlap.
  EXPECT_EQ(validate<half>(red(ReduceOp::vcgadd, 1, 0, 0)), Status::illegal_overlap);
  // f32 with block 3 masked: two runs (12 B + 16 B), neither identical to block 0.
  const Mask128 m{0, 0xFFFFFFFF00FFFFFFu};
  EXPECT_EQ(validate(red(ReduceOp::vcgadd, 1, 0, 0), DType::f32, m).status, Status::illegal_overlap);
}

TEST(DescOverlap, CountModeLastRepeat) {
  // Unary f32 count 70: repeat 0 full, repeat 1 lanes 0..5 (block 0). dst of repeat 0 at
  // src block 1 of repeat 1 would overlap, but block 1 does not participate in repeat 1.
  UnaryDesc u = un(0, 288, 0);
  u.mask_mode = MaskMode::count;
  u.vector_count = 70;
  EXPECT_EQ(validate<float>(u), Status::ok);
  u.vector_count = 72 + 1;  // lanes 0..8 of repeat 1: block 1 participates
  const DescReport r = validate(u, DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_EQ(r.other_repeat, 1u);
  EXPECT_EQ(r.other_block, 1u);
}

TEST(DescOverlap, FixedSourceReadAgainAfterInPlaceWrite) {
  // src0 repeat stride 0: repeat 0 writes its source in place (identical: legal inside the
  // repeat), and repeat 1 reads it again: illegal across repeats.
  BinIntrinsicDesc d = bin(2, 0, 0, 8192);
  d.src0_repeat_stride = 0;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.other, "src0");
  EXPECT_EQ(r.repeat_index, 0u);
  EXPECT_EQ(r.other_repeat, 1u);
  ReduceDesc g = red(ReduceOp::vcgadd, 2, 0, 0);
  g.src_repeat_stride = 0;
  EXPECT_EQ(validate<float>(g), Status::illegal_overlap);
  g.repeat = 1;
  EXPECT_EQ(validate<float>(g), Status::ok);
}

TEST(DescOverlap, CountModeDstWalksTowardsFixedSource) {
  // vcadd f16, one 2 B sum per repeat walking up from 0; the source block sits at 4096.
  ReduceDesc d = red(ReduceOp::vcadd, 0, 0, 4096);
  d.mask_mode = MaskMode::count;
  d.src_repeat_stride = 0;
  d.src_block_stride = 0;  // all 8 blocks re-read the same 32 B
  d.vector_count = 2048 * 128;  // outputs 0..4094
  DescReport r = validate(d, DType::f16);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.repeats, 2048u);
  d.vector_count = 3000 * 128;  // output of repeat 2048 lands in the source block
  r = validate(d, DType::f16);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_EQ(r.repeat_index, 2048u);
  EXPECT_EQ(r.byte_offset, 4096u);
}
