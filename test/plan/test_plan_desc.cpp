// The descriptors the planner added to the desc layer (UB copy, duplicate, conversion): rules
// one by one, in order, with constexpr proofs.
#include "tftest.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"

using namespace tilefw;
using namespace tilefw::desc;

namespace {

constexpr Operand ub(uint32_t o) { return Operand{chip::MemSpace::UB, o}; }

constexpr CopyDesc copy(uint32_t n, uint32_t len, uint32_t sgap, uint32_t dgap, uint32_t d, uint32_t s) {
  CopyDesc c{};
  c.nburst = n;
  c.burst_len = len;
  c.src_gap = sgap;
  c.dst_gap = dgap;
  c.dst = ub(d);
  c.src = ub(s);
  return c;
}

static_assert(validate(copy(16, 8, 8, 0, 8192, 0)).ok());
static_assert(validate(copy(0, 8, 0, 0, 8192, 0)).status == Status::desc_copy_burst_out_of_range);
static_assert(validate(copy(4096, 1, 0, 0, 8192, 0)).status == Status::desc_copy_burst_out_of_range);
static_assert(validate(copy(1, 0, 0, 0, 8192, 0)).status == Status::desc_copy_burst_out_of_range);
static_assert(validate(copy(1, 1, 65536, 0, 8192, 0)).status == Status::desc_stride_out_of_range);
static_assert(validate(copy(1, 1, 0, 0, 8200, 0)).status == Status::misaligned);
static_assert(validate(copy(1, 2, 0, 0, 196608 - 32, 0)).status == Status::out_of_bounds);
// interleaved bursts that never share a byte: legal; one shared block: illegal_overlap.
static_assert(validate(copy(4, 1, 1, 1, 32, 0)).ok());
static_assert(validate(copy(4, 2, 0, 0, 32, 0)).status == Status::illegal_overlap);

TEST(DescCopy, RulesAndReport) {
  const DescReport r = validate(copy(4, 2, 0, 0, 64, 0));
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src");
  EXPECT_EQ(r.repeats, 4u);
  EXPECT_TRUE(validate(copy(1, 8, 0, 0, 196608 - 256, 0)).touches_reserved_ub);
}

constexpr DupDesc dup(uint32_t repeat, uint32_t dst) {
  DupDesc d{};
  d.repeat = repeat;
  d.dst = ub(dst);
  return d;
}

static_assert(validate(dup(255, 0), DType::f32).ok());
static_assert(validate(dup(0, 0), DType::f32).status == Status::desc_normal_mode_needs_repeat);
static_assert(validate(dup(1, 0), DType::i8).status == Status::desc_unsupported_dtype);
static_assert(validate(dup(1, 16), DType::f16).status == Status::misaligned);
static_assert(validate(dup(1, 196608 - 32), DType::f16).status == Status::out_of_bounds);
static_assert(validate(dup(1, 196608 - 32), DType::f16, Mask128::continuous(16)).ok());

TEST(DescDup, Rules) {
  DupDesc d = dup(1, 0);
  d.dst_block_stride = 0;
  EXPECT_EQ(validate(d, DType::f32).status, Status::desc_dst_block_stride_zero);
  d = dup(0, 0);
  d.mask_mode = MaskMode::count;
  d.vector_count = 1000;
  EXPECT_TRUE(validate(d, DType::bf16).ok());
  EXPECT_EQ(validate(d, DType::bf16).repeats, 8u);
  EXPECT_TRUE(validate(dup(1, 0), DType::f32, Mask128::none()).nop);
}

constexpr CvtDesc cvt(DType from, DType to, desc::RoundMode m, uint32_t repeat, uint32_t d, uint32_t s) {
  CvtDesc c{};
  c.src_type = from;
  c.dst_type = to;
  c.round = m;
  c.repeat = repeat;
  c.dst = ub(d);
  c.src = ub(s);
  c.dst_repeat_stride = dtype_size(to) * 2;
  c.src_repeat_stride = dtype_size(from) * 2;
  return c;
}

static_assert(validate(cvt(DType::f32, DType::f16, desc::RoundMode::rint, 4, 0, 1024)).ok());
static_assert(validate(cvt(DType::f16, DType::f32, desc::RoundMode::none, 4, 0, 1024)).ok());
static_assert(validate(cvt(DType::f16, DType::f32, desc::RoundMode::rint, 4, 0, 1024)).status ==
              Status::desc_conversion_unsupported);
static_assert(validate(cvt(DType::i16, DType::f32, desc::RoundMode::rint, 4, 0, 1024)).status ==
              Status::desc_conversion_unsupported);
static_assert(validate(cvt(DType::f32, DType::i32, desc::RoundMode::none, 4, 0, 1024)).status ==
              Status::desc_conversion_unsupported);
static_assert(validate(cvt(DType::f32, DType::i32, desc::RoundMode::floor, 256, 0, 1024)).status ==
              Status::desc_repeat_out_of_range);

TEST(DescCvt, FootprintOfTheNarrowSide) {
  // f32 -> f16, one repeat: src 8 blocks (256 B), dst 4 blocks (128 B). dst at 128 B below the
  // end of UB fits; src does not.
  EXPECT_TRUE(validate(cvt(DType::f32, DType::f16, desc::RoundMode::rint, 1, 196608 - 128, 0)).ok());
  EXPECT_EQ(validate(cvt(DType::f32, DType::f16, desc::RoundMode::rint, 1, 0, 196608 - 128)).status, Status::out_of_bounds);
  // dst of repeat 0 (bytes 256..383) is a src block of repeat 1 (256..511): illegal_overlap.
  EXPECT_EQ(validate(cvt(DType::f32, DType::f16, desc::RoundMode::rint, 2, 256, 0)).status, Status::illegal_overlap);
  EXPECT_TRUE(validate(cvt(DType::f32, DType::f16, desc::RoundMode::rint, 1, 128, 0)).ok());  // block-identical
  CvtDesc c = cvt(DType::f32, DType::f16, desc::RoundMode::rint, 1, 0, 1024);
  c.dst_repeat_stride = 256;
  EXPECT_EQ(validate(c).status, Status::desc_stride_out_of_range);
}

}  // namespace
