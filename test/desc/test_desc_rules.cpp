// Descriptor rules of a2a3 vector issues, one by one (positive and negative), their order,
// the typed wrappers, constexpr use and the message formatter.
#include <cstring>

#include "desc_test_util.hpp"
#include "tftest.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/desc/describe.hpp"

using namespace desc_test;
using tilefw::bf16;
using tilefw::half;

namespace {

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// Contiguous, disjoint, full-mask binary issue on f32: dst 0, src0 64 KB, src1 128 KB.
constexpr BinIntrinsicDesc good_bin(uint32_t repeat = 1) { return bin(repeat, 0, 65536, 131072); }

// ---- constexpr proofs -------------------------------------------------------------------------
// The f32 64 x 64 tile add of docs/a2a3-vector-semantics.md section 1.1.
constexpr BinIntrinsicDesc kTileAdd64 = bin(64, 0, 16384, 32768);
static_assert(is_valid<float>(kTileAdd64));
static_assert(validate<float>(kTileAdd64) == Status::ok);
static_assert(validate_report<float>(kTileAdd64).repeats == 64u);
static_assert(validate<half>(bin(0, 0, 256, 512)) == Status::desc_normal_mode_needs_repeat);
static_assert(validate<int8_t>(good_bin()) == Status::desc_unsupported_dtype);
static_assert(validate<float>(good_bin(), Mask128::none()) == Status::ok);
static_assert(validate_report<float>(good_bin(), Mask128{~uint64_t{0}, 0}).nop);
static_assert(validate<half>(un(1, 2, 256)) == Status::misaligned);
static_assert(validate<float>(red(ReduceOp::vcadd, 1, 8, 0)) == Status::illegal_overlap);
static_assert(validate<float>(bin(2, 256, 0, 4096)) == Status::illegal_overlap);
static_assert(validate<float>(bin_count(16384, 0, 65536, 131072)) == Status::ok);
static_assert(Mask128::continuous(0) == Mask128::none());
static_assert(Mask128::continuous(64) == Mask128{0, ~uint64_t{0}});
static_assert(Mask128::continuous(65) == Mask128{1, ~uint64_t{0}});
static_assert(Mask128::continuous(128) == Mask128::all());
static_assert(Mask128::continuous(1000) == Mask128::all());

}  // namespace

TEST(DescMask, ContinuousClampsAndSplitsWords) {
  EXPECT_EQ(Mask128::continuous(3).lo, 7u);
  EXPECT_EQ(Mask128::continuous(3).hi, 0u);
  EXPECT_EQ(Mask128::continuous(127).hi, 0x7FFFFFFFFFFFFFFFu);
  EXPECT_EQ(Mask128::continuous(200).hi, ~uint64_t{0});
  EXPECT_TRUE(Mask128::all().lane(127));
  EXPECT_FALSE(Mask128::continuous(100).lane(100));
  EXPECT_TRUE(Mask128::continuous(100).lane(99));
}

TEST(DescRules, TileAdd64x64WorkedExampleIsValid) {
  const DescReport r = validate(kTileAdd64, DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_STREQ(r.field, "");
  EXPECT_EQ(r.repeats, 64u);
  EXPECT_FALSE(r.nop);
  EXPECT_FALSE(r.touches_reserved_ub);
  EXPECT_TRUE(is_valid<float>(kTileAdd64));
}

// ---- repeat / count ---------------------------------------------------------------------------
TEST(DescRules, NormalModeNeedsRepeat) {
  EXPECT_EQ(validate<float>(good_bin(1)), Status::ok);
  const DescReport r = validate(good_bin(0), DType::f32);
  EXPECT_EQ(r.status, Status::desc_normal_mode_needs_repeat);
  EXPECT_STREQ(r.field, "repeat");
  EXPECT_EQ(r.value, 0u);
}

TEST(DescRules, RepeatOutOfRange) {
  EXPECT_EQ(validate<float>(good_bin(255)), Status::ok);
  const DescReport r = validate(good_bin(256), DType::f32);
  EXPECT_EQ(r.status, Status::desc_repeat_out_of_range);
  EXPECT_STREQ(r.field, "repeat");
  EXPECT_EQ(r.value, 256u);
  EXPECT_EQ(r.limit, 255u);
}

TEST(DescRules, CountModeNeedsZeroRepeat) {
  BinIntrinsicDesc d = bin_count(64, 0, 65536, 131072);
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.repeat = 1;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_count_mode_needs_zero_repeat);
  EXPECT_STREQ(r.field, "repeat");
  EXPECT_EQ(r.value, 1u);
}

TEST(DescRules, CountModeNeedsCount) {
  EXPECT_EQ(validate<float>(bin_count(1, 0, 65536, 131072)), Status::ok);
  const DescReport r = validate(bin_count(0, 0, 65536, 131072), DType::f32);
  EXPECT_EQ(r.status, Status::desc_count_mode_needs_count);
  EXPECT_STREQ(r.field, "vector_count");
}

TEST(DescRules, CountMode16384Elements) {
  // f32: 256 repeats of 64 lanes (more than 255: legal in count mode), 64 KB per operand.
  const DescReport r = validate(bin_count(16384, 0, 65536, 131072), DType::f32);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.repeats, 256u);
  EXPECT_TRUE(r.touches_reserved_ub);  // src1 ends exactly at the UB end
  const DescReport h = validate(bin_count(16384, 0, 65536, 131072), DType::f16);
  EXPECT_EQ(h.status, Status::ok);
  EXPECT_EQ(h.repeats, 128u);
  EXPECT_FALSE(h.touches_reserved_ub);
  // One element more needs a 257th repeat: src1 runs past UB.
  const DescReport o = validate(bin_count(16385, 0, 65536, 131072), DType::f32);
  EXPECT_EQ(o.status, Status::out_of_bounds);
  EXPECT_STREQ(o.field, "src1");  // dst and src0 still fit: the 257th repeat is one block
  EXPECT_EQ(o.repeat_index, 256u);
  EXPECT_EQ(o.block_index, 0u);
  EXPECT_EQ(o.byte_offset, uint64_t{kUb});
}

TEST(DescRules, UnknownMaskMode) {
  BinIntrinsicDesc d = good_bin();
  d.mask_mode = static_cast<MaskMode>(7);
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_unknown_mask_mode);
  EXPECT_STREQ(r.field, "mask_mode");
}

// ---- tail -------------------------------------------------------------------------------------
TEST(DescRules, TailOutOfRange) {
  BinIntrinsicDesc d = good_bin();
  d.tail_elements = 64;
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.tail_elements = 65;
  DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_tail_out_of_range);
  EXPECT_STREQ(r.field, "tail_elements");
  EXPECT_EQ(r.value, 65u);
  EXPECT_EQ(r.limit, 64u);
  d.tail_elements = 128;
  EXPECT_EQ(validate<half>(d), Status::ok);
  d.tail_elements = 129;
  r = validate(d, DType::f16);
  EXPECT_EQ(r.status, Status::desc_tail_out_of_range);
  EXPECT_EQ(r.limit, 128u);
}

TEST(DescRules, TailWithMultipleRepeats) {
  BinIntrinsicDesc d = good_bin(1);
  d.tail_elements = 5;
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.repeat = 2;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_tail_with_multiple_repeats);
  EXPECT_STREQ(r.field, "tail_elements");
  EXPECT_EQ(r.value, 5u);
}

TEST(DescRules, TailInCountMode) {
  BinIntrinsicDesc d = bin_count(100, 0, 65536, 131072);
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.tail_elements = 4;
  const DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_tail_in_count_mode);
  EXPECT_STREQ(r.field, "tail_elements");
}

TEST(DescRules, TailReplacesLiveMask) {
  // tail > 0: continuous(tail) even when the live MASK is zero (not a NOP).
  BinIntrinsicDesc d = good_bin();
  d.tail_elements = 3;
  const DescReport r = validate(d, DType::f32, Mask128::none());
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_FALSE(r.nop);
  // Only block 0 participates: src1 may start 32 B below the UB end.
  d.src1 = ub(kUb - 32);
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.tail_elements = 9;  // lanes 0..8: blocks 0 and 1
  const DescReport o = validate(d, DType::f32);
  EXPECT_EQ(o.status, Status::out_of_bounds);
  EXPECT_STREQ(o.field, "src1");
  EXPECT_EQ(o.byte_offset, uint64_t{kUb});
  EXPECT_EQ(o.block_index, 1u);
}

// ---- extension flags --------------------------------------------------------------------------
TEST(DescRules, ExtensionModesUnsupported) {
  BinIntrinsicDesc d = good_bin();
  d.repeat_stride_mode = true;
  DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_extension_mode_unsupported);
  EXPECT_STREQ(r.field, "repeat_stride_mode");
  d.repeat_stride_mode = false;
  d.stride_size_mode = true;
  r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_extension_mode_unsupported);
  EXPECT_STREQ(r.field, "stride_size_mode");
  UnaryDesc u = un(1, 0, 256);
  u.stride_size_mode = true;
  EXPECT_EQ(validate<half>(u), Status::desc_extension_mode_unsupported);
  ReduceDesc rd = red(ReduceOp::vcadd, 1, 1024, 0);
  EXPECT_EQ(validate<half>(rd), Status::ok);
  rd.repeat_stride_mode = true;
  EXPECT_EQ(validate<half>(rd), Status::desc_extension_mode_unsupported);
}

// ---- strides ----------------------------------------------------------------------------------
TEST(DescRules, BinaryStridesAre8Bit) {
  uint32_t BinIntrinsicDesc::*const fields[] = {
      &BinIntrinsicDesc::dst_block_stride,  &BinIntrinsicDesc::src0_block_stride,
      &BinIntrinsicDesc::src1_block_stride, &BinIntrinsicDesc::dst_repeat_stride,
      &BinIntrinsicDesc::src0_repeat_stride, &BinIntrinsicDesc::src1_repeat_stride};
  const char* const names[] = {"dst_block_stride",  "src0_block_stride",  "src1_block_stride",
                               "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride"};
  for (int i = 0; i < 6; ++i) {
    BinIntrinsicDesc d = bin(1, 0, 0, 0);  // in place: any stride 255 stays inside UB
    d.dst = ub(0);
    d.*fields[i] = 255;
    EXPECT_EQ(validate<float>(d), Status::ok);
    d.*fields[i] = 256;
    const DescReport r = validate(d, DType::f32);
    EXPECT_EQ(r.status, Status::desc_stride_out_of_range);
    EXPECT_STREQ(r.field, names[i]);
    EXPECT_EQ(r.value, 256u);
    EXPECT_EQ(r.limit, 255u);
  }
}

TEST(DescRules, UnaryScalarReduceStridesAre16Bit) {
  UnaryDesc u = un(1, 0, 0);
  u.src_repeat_stride = 65535;
  u.dst_repeat_stride = 65535;  // one repeat: repeat strides do not move anything
  EXPECT_EQ(validate<float>(u), Status::ok);
  u.src_repeat_stride = 65536;
  DescReport r = validate(u, DType::f32);
  EXPECT_EQ(r.status, Status::desc_stride_out_of_range);
  EXPECT_STREQ(r.field, "src_repeat_stride");
  EXPECT_EQ(r.limit, 65535u);
  u = un(1, 0, 0);
  u.dst_block_stride = 256;  // legal for unary (16-bit field), 8 blocks 8 KB apart
  EXPECT_EQ(validate<float>(u), Status::ok);
  u.dst_block_stride = 65536;
  r = validate(u, DType::f32);
  EXPECT_EQ(r.status, Status::desc_stride_out_of_range);
  EXPECT_STREQ(r.field, "dst_block_stride");

  ScalarDesc s = sc(1, 0, 0);
  s.src_block_stride = 65536;
  r = validate(s, DType::f32);
  EXPECT_EQ(r.status, Status::desc_stride_out_of_range);
  EXPECT_STREQ(r.field, "src_block_stride");

  ReduceDesc rd = red(ReduceOp::vcadd, 1, 4096, 0);
  rd.dst_repeat_stride = 65535;
  EXPECT_EQ(validate<float>(rd), Status::ok);
  rd.dst_repeat_stride = 65536;
  r = validate(rd, DType::f32);
  EXPECT_EQ(r.status, Status::desc_stride_out_of_range);
  EXPECT_STREQ(r.field, "dst_repeat_stride");
  rd = red(ReduceOp::vcadd, 1, 4096, 0);
  rd.src_block_stride = 70000;
  EXPECT_STREQ(validate(rd, DType::f32).field, "src_block_stride");
}

TEST(DescRules, DstBlockStrideZero) {
  BinIntrinsicDesc d = good_bin();
  d.src0_block_stride = 0;  // re-reads block 0: legal
  EXPECT_EQ(validate<float>(d), Status::ok);
  d.dst_block_stride = 0;
  DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_dst_block_stride_zero);
  EXPECT_STREQ(r.field, "dst_block_stride");
  EXPECT_EQ(r.value, 0u);
  UnaryDesc u = un(1, 0, 4096);
  u.src_block_stride = 0;
  EXPECT_EQ(validate<half>(u), Status::ok);
  u.dst_block_stride = 0;
  EXPECT_EQ(validate<half>(u), Status::desc_dst_block_stride_zero);
  ScalarDesc s = sc(1, 0, 4096);
  s.dst_block_stride = 0;
  EXPECT_EQ(validate<half>(s), Status::desc_dst_block_stride_zero);
}

// ---- op / dtype (docs/a2a3-vector-semantics.md section 6.1) -------------------------------------
TEST(DescRules, BinaryDtypes) {
  const BinaryOp ops[] = {BinaryOp::vadd, BinaryOp::vsub, BinaryOp::vmul, BinaryOp::vmax, BinaryOp::vmin};
  for (BinaryOp op : ops) {
    const BinIntrinsicDesc d = bin(1, 0, 4096, 8192, op);
    EXPECT_EQ(validate<int16_t>(d), Status::ok);
    EXPECT_EQ(validate<half>(d), Status::ok);
    EXPECT_EQ(validate<int32_t>(d), Status::ok);
    EXPECT_EQ(validate<float>(d), Status::ok);
    EXPECT_EQ(validate<bf16>(d), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<uint16_t>(d), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<uint32_t>(d), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<int8_t>(d), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<uint8_t>(d), Status::desc_unsupported_dtype);
  }
  const BinIntrinsicDesc div = bin(1, 0, 4096, 8192, BinaryOp::vdiv);
  EXPECT_EQ(validate<half>(div), Status::ok);
  EXPECT_EQ(validate<float>(div), Status::ok);
  const DescReport r = validate(div, DType::i16);
  EXPECT_EQ(r.status, Status::desc_unsupported_dtype);
  EXPECT_STREQ(r.field, "dtype");
  EXPECT_EQ(validate<int32_t>(div), Status::desc_unsupported_dtype);
}

TEST(DescRules, UnaryScalarReduceDtypes) {
  const UnaryOp fonly[] = {UnaryOp::vabs, UnaryOp::vexp, UnaryOp::vln, UnaryOp::vsqrt,
                           UnaryOp::vrsqrt, UnaryOp::vrec};
  for (UnaryOp op : fonly) {
    EXPECT_EQ(validate<half>(un(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<float>(un(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<int32_t>(un(1, 0, 4096, op)), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<int16_t>(un(1, 0, 4096, op)), Status::desc_unsupported_dtype);
  }
  EXPECT_EQ(validate<int32_t>(un(1, 0, 4096, UnaryOp::vrelu)), Status::ok);
  EXPECT_EQ(validate<half>(un(1, 0, 4096, UnaryOp::vrelu)), Status::ok);
  EXPECT_EQ(validate<int16_t>(un(1, 0, 4096, UnaryOp::vrelu)), Status::desc_unsupported_dtype);
  const ScalarOp sops[] = {ScalarOp::vadds, ScalarOp::vmuls, ScalarOp::vmaxs, ScalarOp::vmins};
  for (ScalarOp op : sops) {
    EXPECT_EQ(validate<int16_t>(sc(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<int32_t>(sc(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<half>(sc(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<float>(sc(1, 0, 4096, op)), Status::ok);
    EXPECT_EQ(validate<bf16>(sc(1, 0, 4096, op)), Status::desc_unsupported_dtype);
  }
  const ReduceOp rops[] = {ReduceOp::vcadd, ReduceOp::vcgadd, ReduceOp::vcpadd, ReduceOp::vcmax,
                           ReduceOp::vcmin};
  for (ReduceOp op : rops) {
    EXPECT_EQ(validate<half>(red(op, 1, 4096, 0)), Status::ok);
    EXPECT_EQ(validate<float>(red(op, 1, 4096, 0)), Status::ok);
    EXPECT_EQ(validate<int32_t>(red(op, 1, 4096, 0)), Status::desc_unsupported_dtype);
    EXPECT_EQ(validate<int16_t>(red(op, 1, 4096, 0)), Status::desc_unsupported_dtype);
  }
}

TEST(DescRules, UnknownOpAndOrder) {
  BinIntrinsicDesc d = good_bin();
  d.op = static_cast<BinaryOp>(42);
  DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_unknown_op);
  EXPECT_STREQ(r.field, "op");
  EXPECT_EQ(r.value, 42u);
  ReduceDesc rd = red(ReduceOp::vcmax, 1, 4096, 0);
  rd.order = static_cast<ReduceOrder>(9);
  r = validate(rd, DType::f32);
  EXPECT_EQ(r.status, Status::desc_unknown_op);
  EXPECT_STREQ(r.field, "order");
  rd.op = ReduceOp::vcadd;  // the sums ignore `order`
  EXPECT_EQ(validate<float>(rd), Status::ok);
}

TEST(DescRules, VcaddModeZeroOnly) {
  ReduceDesc rd = red(ReduceOp::vcadd, 1, 4096, 0);
  EXPECT_EQ(validate<float>(rd), Status::ok);
  rd.vcadd_mode = 1;
  const DescReport r = validate(rd, DType::f32);
  EXPECT_EQ(r.status, Status::desc_reduce_mode_unsupported);
  EXPECT_STREQ(r.field, "vcadd_mode");
  EXPECT_EQ(r.value, 1u);
  rd.op = ReduceOp::vcgadd;  // only vcadd has the mode argument
  EXPECT_EQ(validate<float>(rd), Status::ok);
}

TEST(DescRules, OperandNotInUb) {
  BinIntrinsicDesc d = good_bin();
  d.dst.space = MemSpace::L1;
  DescReport r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_operand_not_in_ub);
  EXPECT_STREQ(r.field, "dst.space");
  d = good_bin();
  d.src1.space = MemSpace::GM;
  r = validate(d, DType::f32);
  EXPECT_EQ(r.status, Status::desc_operand_not_in_ub);
  EXPECT_STREQ(r.field, "src1.space");
  ReduceDesc rd = red(ReduceOp::vcadd, 1, 4096, 0);
  rd.src.space = MemSpace::L0C;
  r = validate(rd, DType::f32);
  EXPECT_EQ(r.status, Status::desc_operand_not_in_ub);
  EXPECT_STREQ(r.field, "src.space");
}

// ---- rule order (docs/cli.md section 4.2, "Program items") ------------------------------------
TEST(DescRules, OrderDescriptorRulesBeforeMemoryRules) {
  BinIntrinsicDesc d = bin(0, 2, 2, kUb);  // repeat 0, misaligned, out of bounds
  d.dst_block_stride = 0;
  d.dst.space = MemSpace::L1;
  EXPECT_EQ(validate<int8_t>(d), Status::desc_normal_mode_needs_repeat);
  d.repeat = 1;
  d.tail_elements = 100;
  EXPECT_EQ(validate<float>(d), Status::desc_tail_out_of_range);
  d.tail_elements = 0;
  d.src0_repeat_stride = 300;
  EXPECT_EQ(validate<float>(d), Status::desc_stride_out_of_range);
  d.src0_repeat_stride = 8;
  EXPECT_EQ(validate<int8_t>(d), Status::desc_dst_block_stride_zero);
  d.dst_block_stride = 1;
  EXPECT_EQ(validate<int8_t>(d), Status::desc_unsupported_dtype);
  EXPECT_EQ(validate<float>(d), Status::desc_operand_not_in_ub);
  // Space is a descriptor rule: it wins even over the NOP rule.
  EXPECT_EQ(validate<float>(d, Mask128::none()), Status::desc_operand_not_in_ub);
  d.dst.space = MemSpace::UB;
  // NOP before alignment and bounds.
  EXPECT_EQ(validate<float>(d, Mask128::none()), Status::ok);
  EXPECT_EQ(validate<float>(d), Status::misaligned);
  d.dst = ub(0);
  d.src0 = ub(4096);
  EXPECT_EQ(validate<float>(d), Status::out_of_bounds);  // src1 at kUb
  d.repeat = 2;
  d.dst = ub(256);  // dst repeat 0 == src0 repeat 1
  d.src0 = ub(0);
  d.src1 = ub(8192);
  EXPECT_EQ(validate<float>(d), Status::illegal_overlap);
}

TEST(DescRules, CountRulesBeforeTailRules) {
  BinIntrinsicDesc d = bin_count(0, 0, 4096, 8192);
  d.repeat = 3;
  d.tail_elements = 1000;
  EXPECT_EQ(validate<float>(d), Status::desc_count_mode_needs_zero_repeat);
  d.repeat = 0;
  EXPECT_EQ(validate<float>(d), Status::desc_count_mode_needs_count);
  d.vector_count = 10;
  EXPECT_EQ(validate<float>(d), Status::desc_tail_out_of_range);
  d.tail_elements = 10;
  EXPECT_EQ(validate<float>(d), Status::desc_tail_in_count_mode);
}

// ---- describe ---------------------------------------------------------------------------------
TEST(DescDescribe, NamesFieldAndValue) {
  BinIntrinsicDesc d = good_bin();
  d.dst_block_stride = 0;
  char buf[256];
  const size_t n = describe(validate(d, DType::f32), buf, sizeof buf);
  EXPECT_EQ(n, std::strlen(buf));
  EXPECT_TRUE(starts_with(buf, "desc_dst_block_stride_zero: dst_block_stride is 0; `dst_block_stride`"));
  d = good_bin(300);
  describe(validate(d, DType::f32), buf, sizeof buf);
  EXPECT_TRUE(starts_with(buf, "desc_repeat_out_of_range: repeat is 300 (limit 255); "));
}

TEST(DescDescribe, MemoryMessages) {
  char buf[256];
  describe(validate(bin(1, 0, 4096, kUb - 224), DType::f32), buf, sizeof buf);
  EXPECT_STREQ(buf, "out_of_bounds: src1 block 7 of repeat 0 at UB byte offset 196608 is outside UB (196608 B)");
  describe(validate(bin(1, 0, 2, 4096), DType::f32), buf, sizeof buf);
  EXPECT_STREQ(buf, "misaligned: src0.offset is 2, not a multiple of 32");
  describe(validate(bin(2, 256, 0, 4096), DType::f32), buf, sizeof buf);
  EXPECT_STREQ(buf,
               "illegal_overlap: dst block 0 of repeat 0 (UB byte offset 256) overlaps src0 block 0 "
               "of repeat 1 (UB byte offset 256): a later repeat reads what an earlier one wrote");
  describe(validate(bin(1, 0, 4096, 8192), DType::f32, Mask128::none()), buf, sizeof buf);
  EXPECT_TRUE(starts_with(buf, "ok (NOP"));
}

TEST(DescDescribe, TruncatesSafely) {
  char buf[8];
  const size_t n = describe(validate(bin(1, 0, 2, 4096), DType::f32), buf, sizeof buf);
  EXPECT_EQ(n, std::strlen("misaligned: src0.offset is 2, not a multiple of 32"));
  EXPECT_STREQ(buf, "misalig");
}

TEST(DescDescribe, NamesDtypeAndSpace) {
  char buf[256];
  describe(validate(bin(1, 0, 4096, 8192, BinaryOp::vdiv), DType::i32), buf, sizeof buf);
  EXPECT_TRUE(starts_with(buf, "desc_unsupported_dtype: dtype is i32; "));
  BinIntrinsicDesc d = bin(1, 0, 4096, 8192);
  d.src0.space = MemSpace::L1;
  describe(validate(d, DType::f32), buf, sizeof buf);
  EXPECT_TRUE(starts_with(buf, "desc_operand_not_in_ub: src0.space is L1; "));
}
