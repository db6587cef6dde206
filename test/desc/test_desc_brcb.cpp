// vbrcb (BrcbDesc): each rule in order with constexpr proofs, and the report of the memory
// rules (byte offset, repeat, block of the first failing dst block).
#include "tftest.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"

using namespace tilefw;
using namespace tilefw::desc;

namespace {

constexpr uint32_t kUb = chip::a2a3::kUbBytes;

constexpr BrcbDesc brcb(uint32_t repeat, uint32_t blk, uint32_t rep, uint32_t d, uint32_t s) {
  BrcbDesc b{};
  b.repeat = repeat;
  b.dst_block_stride = blk;
  b.dst_repeat_stride = rep;
  b.dst = Operand{chip::MemSpace::UB, d};
  b.src = Operand{chip::MemSpace::UB, s};
  return b;
}

// Positive: dense (blk 1, rep 8), row slots (blk 8, rep 64), both element sizes, 255 repeats.
static_assert(validate(brcb(1, 1, 8, 0, 4096), DType::f32).ok());
static_assert(validate(brcb(8, 8, 64, 0, 32768), DType::f32).ok());
static_assert(validate(brcb(255, 1, 8, 0, 65536), DType::f16).ok());
static_assert(validate(brcb(2, 1, 8, 0, 512), DType::i16).ok());
static_assert(validate(brcb(4, 1, 8, 0, 1024), DType::f32).repeats == 4);
// The last byte of UB is reachable, by dst and by src.
static_assert(validate(brcb(1, 1, 8, kUb - 256, 0), DType::f32).ok());
static_assert(validate(brcb(1, 1, 8, 0, kUb - 32), DType::f32).ok());
static_assert(validate(brcb(1, 1, 8, 0, kUb - 32), DType::f16).ok());  // reads 16 B
// Rule order: repeat, strides, dst block stride 0, dtype, spaces, alignment, bounds, overlap.
static_assert(validate(brcb(0, 1, 8, 0, 4096), DType::f32).status == Status::desc_repeat_out_of_range);
static_assert(validate(brcb(256, 1, 8, 0, 4096), DType::f32).status == Status::desc_repeat_out_of_range);
static_assert(validate(brcb(1, 65536, 8, 0, 4096), DType::f32).status == Status::desc_stride_out_of_range);
static_assert(validate(brcb(1, 1, 65536, 0, 4096), DType::f32).status == Status::desc_stride_out_of_range);
static_assert(validate(brcb(1, 0, 8, 0, 4096), DType::f32).status == Status::desc_dst_block_stride_zero);
static_assert(validate(brcb(1, 1, 8, 0, 4096), DType::i8).status == Status::desc_unsupported_dtype);
static_assert(validate(brcb(1, 1, 8, 0, 4096), DType::u8).status == Status::desc_unsupported_dtype);
static_assert(validate(brcb(1, 1, 8, 16, 4096), DType::f32).status == Status::misaligned);
static_assert(validate(brcb(1, 1, 8, 0, 4112), DType::f16).status == Status::misaligned);
static_assert(validate(brcb(1, 1, 8, kUb - 224, 0), DType::f32).status == Status::out_of_bounds);
static_assert(validate(brcb(2, 1, 8, 0, kUb - 32), DType::f32).status == Status::out_of_bounds);
static_assert(validate(brcb(2, 1, 8, 0, kUb - 32), DType::f16).ok());  // 2 x 16 B
static_assert(validate(brcb(1, 1, 8, 0, 224), DType::f32).status == Status::illegal_overlap);
static_assert(validate(brcb(1, 1, 8, 256, 0), DType::f32).ok());  // adjacent, disjoint

TEST(DescBrcb, FieldsOfDescriptorRules) {
  DescReport r = validate(brcb(300, 1, 8, 0, 4096), DType::f32);
  EXPECT_EQ(r.status, Status::desc_repeat_out_of_range);
  EXPECT_STREQ(r.field, "repeat");
  EXPECT_EQ(r.value, 300u);
  EXPECT_EQ(r.limit, 255u);
  r = validate(brcb(1, 1, 70000, 0, 4096), DType::f32);
  EXPECT_STREQ(r.field, "dst_repeat_stride");
  EXPECT_EQ(r.limit, 65535u);
  r = validate(brcb(1, 0, 8, 0, 4096), DType::f32);
  EXPECT_STREQ(r.field, "dst_block_stride");
  r = validate(brcb(1, 1, 8, 0, 4096), DType::i8);
  EXPECT_STREQ(r.field, "dtype");
  BrcbDesc l1 = brcb(1, 1, 8, 0, 4096);
  l1.src.space = chip::MemSpace::L1;
  r = validate(l1, DType::f32);
  EXPECT_EQ(r.status, Status::desc_operand_not_in_ub);
  EXPECT_STREQ(r.field, "src.space");
  r = validate(brcb(1, 1, 8, 0, 4100), DType::f32);
  EXPECT_EQ(r.status, Status::misaligned);
  EXPECT_STREQ(r.field, "src.offset");
  EXPECT_EQ(r.value, 4100u);
  EXPECT_EQ(r.limit, 32u);
}

TEST(DescBrcb, BoundsReportTheFirstFailingBlock) {
  // Row slots: block k of repeat r at base + (r * 64 + k * 8) * 32. Base kUb - 3072: repeat 0
  // fits, repeat 1 starts at kUb - 1024 and its blocks k >= 4 leave UB.
  DescReport r = validate(brcb(3, 8, 64, kUb - 3072, 0), DType::f32);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_EQ(r.repeat_index, 1u);
  EXPECT_EQ(r.block_index, 4u);
  EXPECT_EQ(r.byte_offset, uint64_t{kUb} - 1024 + 4 * 256);
  EXPECT_EQ(r.limit, kUb);
  // src: f16 reads 16 B per repeat; 3 repeats from kUb - 32 run past at repeat 2.
  r = validate(brcb(3, 1, 8, 0, kUb - 32), DType::f16);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "src");
  EXPECT_EQ(r.repeat_index, 2u);
  EXPECT_EQ(r.byte_offset, uint64_t{kUb});
  // The top 8 KB is legal but flagged.
  EXPECT_TRUE(validate(brcb(1, 1, 8, kUb - 256, 0), DType::f32).touches_reserved_ub);
  EXPECT_FALSE(validate(brcb(1, 1, 8, 0, 4096), DType::f32).touches_reserved_ub);
}

TEST(DescBrcb, OverlapReportsTheEarliestRepeat) {
  // Row slots every 256 B from 0, source at 4096 (f32, 32 B per repeat): repeat r writes
  // blocks r*2048 + k*256, so repeat 2 block 0 hits the source of repeat 0 at 4096.
  DescReport r = validate(brcb(4, 8, 64, 0, 4096), DType::f32);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src");
  EXPECT_EQ(r.repeat_index, 2u);
  EXPECT_EQ(r.block_index, 0u);
  EXPECT_EQ(r.byte_offset, 4096u);
  EXPECT_EQ(r.other_offset, 4096u);
  EXPECT_EQ(r.other_repeat, 0u);
  // A write block straddling into the middle of the source range: first shared byte is the block.
  r = validate(brcb(1, 1, 8, 0, 96), DType::f16);  // reads 96..111, block 3 = 96..127
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_EQ(r.block_index, 3u);
  EXPECT_EQ(r.other_offset, 96u);
  // Dst blocks that interleave around the source without sharing a byte: legal.
  EXPECT_TRUE(validate(brcb(1, 2, 16, 0, 32), DType::f32).ok());
  EXPECT_EQ(validate(brcb(1, 2, 16, 0, 32), DType::f32).repeats, 1u);
}

}  // namespace
