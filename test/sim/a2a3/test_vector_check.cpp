// The simulated vector unit's own decode checks (port/host/a2a3/vector_check.hpp), host only:
// bad issues written straight into the registers fault with the unit's own status,
// and over random register contents (legal and illegal) the unit and the core's validator
// (desc::validate, an independent implementation) agree on every status and NOP (6000 issues
// here; 300000-400000 per class with other seeds agreed too, in one-off runs).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "a2a3/vector_unit.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"
#include "tilefw/desc/validate_vector.hpp"

using namespace tilefw;
namespace vreg = chip::a2a3::vreg;

namespace {
struct Sim {
  explicit Sim(uint32_t profile = port::host::kProfileA2a3) : m(profile) {}
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3VectorUnit vu{m};
  uint8_t* ub = *m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
};

struct Raw {
  uint32_t cls = vreg::kOpClassBinary, idx = 0;
  DType dt = DType::f32;
  bool counter = false;
  uint64_t mask_hi = ~uint64_t{0}, mask_lo = ~uint64_t{0};
  uint32_t repeat = 1;
  uint32_t dst = 0, src0 = 256, src1 = 512;
  uint32_t dst_blk = 1, dst_rep = 8, src0_blk = 1, src0_rep = 8, src1_blk = 1, src1_rep = 8;
  uint32_t reduce_word = 0;
};

Status ring(const Raw& r) {
  port::reg_write64(vreg::address(vreg::kCtrl), vreg::kCtrlReset | (r.counter ? vreg::kCtrlCounterMode : 0));
  port::reg_write64(vreg::address(vreg::kMaskHi), r.mask_hi);
  port::reg_write64(vreg::address(vreg::kMaskLo), r.mask_lo);
  port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(r.cls | r.idx, static_cast<uint32_t>(r.dt)));
  port::reg_write32(vreg::address(vreg::kRepeat), r.repeat);
  port::reg_write32(vreg::address(vreg::kDstAddr), r.dst);
  port::reg_write32(vreg::address(vreg::kSrc0Addr), r.src0);
  port::reg_write32(vreg::address(vreg::kSrc1Addr), r.src1);
  port::reg_write32(vreg::address(vreg::kDstStride), vreg::stride_word(r.dst_blk, r.dst_rep));
  port::reg_write32(vreg::address(vreg::kSrc0Stride), vreg::stride_word(r.src0_blk, r.src0_rep));
  port::reg_write32(vreg::address(vreg::kSrc1Stride), vreg::stride_word(r.src1_blk, r.src1_rep));
  port::reg_write32(vreg::address(vreg::kReduce), r.reduce_word);
  port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
  return static_cast<Status>(port::reg_read32(vreg::address(vreg::kStatus)) & 0xFFFFu);
}

// What the core's validator says about the same registers (repeat/count as the unit reads them),
// for the profile `on`.
desc::DescReport core_verdict(const Raw& r, chip::Chip on = chip::Chip::a2a3) {
  const desc::Mask128 live{r.mask_hi, r.mask_lo};
  const desc::MaskMode mode = r.counter ? desc::MaskMode::count : desc::MaskMode::normal;
  const uint32_t count = r.counter ? static_cast<uint32_t>(r.mask_lo) : 0u;
  if (r.cls == vreg::kOpClassBinary) {
    desc::BinIntrinsicDesc d{};
    d.op = static_cast<desc::BinaryOp>(r.idx);
    d.repeat = r.repeat;
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst_block_stride = r.dst_blk;
    d.dst_repeat_stride = r.dst_rep;
    d.src0_block_stride = r.src0_blk;
    d.src0_repeat_stride = r.src0_rep;
    d.src1_block_stride = r.src1_blk;
    d.src1_repeat_stride = r.src1_rep;
    d.dst.offset = r.dst;
    d.src0.offset = r.src0;
    d.src1.offset = r.src1;
    return desc::validate(d, r.dt, live, on);
  }
  if (r.cls == vreg::kOpClassReduce) {
    desc::ReduceDesc d{};
    d.op = static_cast<desc::ReduceOp>(r.idx);
    d.repeat = r.repeat;
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst_repeat_stride = r.dst_rep;
    d.src_block_stride = r.src0_blk;
    d.src_repeat_stride = r.src0_rep;
    d.order = static_cast<desc::ReduceOrder>(r.reduce_word & 0x3u);
    d.vcadd_mode = (r.reduce_word >> 8) & 0x3u;
    d.fold = (r.reduce_word & vreg::kReduceFold) != 0;
    d.dst.offset = r.dst;
    d.src.offset = r.src0;
    return desc::validate(d, r.dt, live, on);
  }
  if (r.cls == vreg::kOpClassScalar) {
    desc::ScalarDesc d{};
    d.op = static_cast<desc::ScalarOp>(r.idx);
    d.repeat = r.repeat;
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst_block_stride = r.dst_blk;
    d.dst_repeat_stride = r.dst_rep;
    d.src_block_stride = r.src0_blk;
    d.src_repeat_stride = r.src0_rep;
    d.dst.offset = r.dst;
    d.src.offset = r.src0;
    return desc::validate(d, r.dt, live, on);
  }
  desc::UnaryDesc d{};
  d.op = static_cast<desc::UnaryOp>(r.idx);
  d.repeat = r.repeat;
  d.mask_mode = mode;
  d.vector_count = count;
  d.dst_block_stride = r.dst_blk;
  d.dst_repeat_stride = r.dst_rep;
  d.src_block_stride = r.src0_blk;
  d.src_repeat_stride = r.src0_rep;
  d.dst.offset = r.dst;
  d.src.offset = r.src0;
  return desc::validate(d, r.dt, live, on);
}
}  // namespace

TEST(VectorCheck, RawBinaryStrideBeyondItsFieldFaults) {
  Sim s;
  Raw r;
  r.src1_rep = 256;  // the binary repeat-stride field holds 0..255
  EXPECT_EQ(ring(r), Status::desc_stride_out_of_range);
  EXPECT_EQ(s.vu.last_report().field, std::string("src1_repeat_stride"));
  EXPECT_EQ(s.vu.faults(), 1u);
}

TEST(VectorCheck, RawMisalignedAndUnsupportedFaultWithoutWriting) {
  Sim s;
  std::memset(s.ub, 0x5A, 1024);
  Raw r;
  r.src0 = 256 + 4;
  EXPECT_EQ(ring(r), Status::misaligned);
  EXPECT_EQ(s.vu.last_report().field, std::string("src0.offset"));
  r.src0 = 256;
  r.idx = 3;  // vdiv
  r.dt = DType::i32;
  EXPECT_EQ(ring(r), Status::desc_unsupported_dtype);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(s.ub[i], 0x5A);
  EXPECT_EQ(s.vu.faults(), 2u);
}

TEST(VectorCheck, RawReductionOverlapFaults) {
  Sim s;
  Raw r;
  r.cls = vreg::kOpClassReduce;  // vcadd f32 over 2 repeats; dst record of repeat 0 in src repeat 1
  r.repeat = 2;
  r.src0 = 0;
  r.dst = 256;
  r.dst_rep = 1;
  EXPECT_EQ(ring(r), Status::illegal_overlap);
  EXPECT_EQ(s.vu.last_report().byte_offset, 256u);
}

// A folded reduction (A5's register row reduction): refused by an a2a3 unit, by an A5 unit for
// an op other than vcadd / vcmax / vcmin only_value and for a dst repeat stride other than 0;
// each verdict the core validator's for the same profile.
TEST(VectorCheck, RawFoldedReductionIsA5Only) {
  Raw r;
  r.cls = vreg::kOpClassReduce;
  r.repeat = 3;
  r.src0 = 0;
  r.dst = 1024;
  r.dst_rep = 0;
  r.reduce_word = vreg::kReduceFold;
  {
    Sim s;
    EXPECT_EQ(ring(r), Status::desc_reduce_mode_unsupported);
    EXPECT_STREQ(s.vu.last_report().field, "fold");
    EXPECT_EQ(core_verdict(r, chip::Chip::a2a3).status, Status::desc_reduce_mode_unsupported);
  }
  Sim s(port::host::kProfileA5);
  EXPECT_EQ(ring(r), Status::ok);
  EXPECT_EQ(core_verdict(r, chip::Chip::a5).status, Status::ok);
  Raw g = r;
  g.idx = 1;  // vcgadd
  EXPECT_EQ(ring(g), Status::desc_reduce_mode_unsupported);
  EXPECT_EQ(core_verdict(g, chip::Chip::a5).status, Status::desc_reduce_mode_unsupported);
  Raw m = r;
  m.idx = 3;  // vcmax value_index: two records, not one accumulator
  EXPECT_EQ(ring(m), Status::desc_reduce_mode_unsupported);
  m.reduce_word |= 2u;  // only_value
  EXPECT_EQ(ring(m), Status::ok);
  Raw d = r;
  d.dst_rep = 1;
  EXPECT_EQ(ring(d), Status::desc_stride_out_of_range);
  EXPECT_STREQ(s.vu.last_report().field, "dst_repeat_stride");
  EXPECT_EQ(core_verdict(d, chip::Chip::a5).status, Status::desc_stride_out_of_range);
}

namespace {
// Random arithmetic issues written straight to the registers of a unit of profile `on` (operands
// often near its UB's end): the unit's own checks and the core's validator for that profile give
// the same verdict.
void agree_on_random_registers(chip::Chip on, uint32_t seed) {
  Sim s(on == chip::Chip::a5 ? port::host::kProfileA5 : port::host::kProfileA2a3);
  const uint32_t ub = static_cast<uint32_t>(chip::region_size(on, chip::MemSpace::UB));
  std::mt19937 rng(seed);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  const DType types[] = {DType::f16, DType::f32, DType::i16, DType::i32, DType::bf16};
  const uint32_t classes[] = {vreg::kOpClassBinary, vreg::kOpClassUnary, vreg::kOpClassScalar, vreg::kOpClassReduce};
  int faults = 0, nops = 0;
  for (int n = 0; n < 6000; ++n) {
    Raw r;
    r.cls = classes[pick(4)];
    r.idx = pick(8);
    r.dt = types[pick(5)];
    r.counter = pick(4) == 0;
    r.repeat = r.counter ? (pick(6) == 0 ? 1 : 0) : pick(12);
    r.mask_lo = pick(5) == 0 ? pick(3) * 0x0F0F : (r.counter ? 1 + pick(3000) : ~uint64_t{0} >> pick(64));
    r.mask_hi = pick(2) == 0 ? 0 : ~uint64_t{0};
    auto place = [&]() { return pick(4) == 0 ? ub - 32 * pick(16) + (pick(8) == 0 ? 2 : 0) : 32 * pick(80); };
    r.dst = place();
    r.src0 = place();
    r.src1 = place();
    auto stride = [&](uint32_t big) { return pick(6) == 0 ? big + pick(300) : pick(10); };
    r.dst_blk = stride(0);
    r.dst_rep = stride(0);
    r.src0_blk = stride(0);
    r.src0_rep = stride(0);
    r.src1_blk = stride(0);
    r.src1_rep = stride(r.cls == vreg::kOpClassBinary ? 200 : 0);
    r.reduce_word = pick(4) | (pick(5) == 0 ? 0x100u : 0u) | (pick(6) == 0 ? vreg::kReduceFold : 0u);
    if ((r.reduce_word & vreg::kReduceFold) != 0 && pick(2) == 0) r.dst_rep = 0;
    if (r.cls == vreg::kOpClassReduce && r.idx > 4) r.idx = pick(5);
    const desc::DescReport want = core_verdict(r, on);
    const Status got = ring(r);
    ASSERT_EQ(got, want.status) << "case " << n << " cls " << r.cls << " idx " << r.idx << " dt " << int(r.dt) << " counter " << r.counter << " repeat " << r.repeat << " field " << want.field << "/" << s.vu.last_report().field;
    ASSERT_EQ(s.vu.last_report().nop, want.nop) << "case " << n;
    faults += got != Status::ok;
    nops += want.nop;
  }
  EXPECT_GT(faults, 1000);  // the sample reaches faults and legal issues alike
  EXPECT_GT(nops, 10);
}
}  // namespace

TEST(VectorCheck, AgreesWithTheCoreValidatorOnRandomRegisters) { agree_on_random_registers(chip::Chip::a2a3, 20261125); }

// A5's unit bounds by its 256 KB of UB, as the core's validator does for A5.
TEST(VectorCheck, AgreesWithTheCoreValidatorOnRandomRegistersOnA5) { agree_on_random_registers(chip::Chip::a5, 20261129); }

TEST(VectorCheck, CopyAndDupAgreeWithTheCoreValidatorOnRandomRegisters) {
  Sim s;
  std::mt19937 rng(1125);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  const DType types[] = {DType::f16, DType::f32, DType::i8, DType::u16, DType::i32, DType::bf16};
  int faults = 0;
  for (int n = 0; n < 4000; ++n) {
    auto place = [&]() { return pick(4) == 0 ? 196608 - 32 * pick(40) + (pick(8) == 0 ? 4 : 0) : 32 * pick(120); };
    const uint32_t dst = place(), src = place();
    desc::DescReport want{};
    if (pick(2) == 0) {  // copy_ubuf_to_ubuf
      desc::CopyDesc d{};
      d.nburst = pick(8) == 0 ? 0 : 1 + pick(6);
      d.burst_len = pick(8) == 0 ? 0 : 1 + pick(5);
      d.src_gap = pick(4);
      d.dst_gap = pick(4);
      d.dst.offset = dst;
      d.src.offset = src;
      want = desc::validate(d, chip::Chip::a2a3);
      port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(vreg::kOpClassCopy, 0));
      port::reg_write32(vreg::address(vreg::kCopyBurst), vreg::copy_burst_word(d.nburst, d.burst_len));
      port::reg_write32(vreg::address(vreg::kCopyGap), vreg::copy_gap_word(d.src_gap, d.dst_gap));
    } else {  // vector_dup
      const bool counter = pick(4) == 0;
      desc::DupDesc d{};
      d.mask_mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
      d.repeat = counter ? (pick(6) == 0 ? 1 : 0) : pick(12);
      d.vector_count = counter ? pick(3000) : 0;
      d.dst_block_stride = pick(5);
      d.dst_repeat_stride = pick(10);
      d.dst.offset = dst;
      const DType dt = types[pick(6)];
      const desc::Mask128 live{pick(2) == 0 ? 0 : ~uint64_t{0}, pick(6) == 0 ? 0 : ~uint64_t{0} >> pick(64)};
      want = desc::validate(d, dt, live, chip::Chip::a2a3);
      port::reg_write64(vreg::address(vreg::kCtrl), vreg::kCtrlReset | (counter ? vreg::kCtrlCounterMode : 0));
      port::reg_write64(vreg::address(vreg::kMaskHi), counter ? 0 : live.hi);
      port::reg_write64(vreg::address(vreg::kMaskLo), counter ? d.vector_count : live.lo);
      port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(vreg::kOpClassDup, static_cast<uint32_t>(dt)));
      port::reg_write32(vreg::address(vreg::kRepeat), d.repeat);
      port::reg_write32(vreg::address(vreg::kDstStride), vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride));
    }
    port::reg_write32(vreg::address(vreg::kDstAddr), dst);
    port::reg_write32(vreg::address(vreg::kSrc0Addr), src);
    port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
    const auto got = static_cast<Status>(port::reg_read32(vreg::address(vreg::kStatus)) & 0xFFFFu);
    ASSERT_EQ(got, want.status) << "case " << n << " field " << want.field << "/" << s.vu.last_report().field;
    ASSERT_EQ(s.vu.last_report().nop, want.nop) << "case " << n;
    faults += got != Status::ok;
  }
  EXPECT_GT(faults, 500);
}

TEST(VectorCheck, BrcbAgreesWithTheCoreValidatorOnRandomRegisters) {
  Sim s;
  std::mt19937 rng(2026);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  const DType types[] = {DType::f16, DType::f32, DType::i8, DType::u16, DType::i32};
  int faults = 0;
  for (int n = 0; n < 4000; ++n) {
    auto place = [&]() { return pick(4) == 0 ? 196608 - 32 * pick(40) + (pick(8) == 0 ? 4 : 0) : 32 * pick(120); };
    desc::BrcbDesc d{};
    d.repeat = pick(10);
    d.dst_block_stride = pick(4);
    d.dst_repeat_stride = pick(12);
    d.dst.offset = place();
    d.src.offset = place();
    const DType dt = types[pick(5)];
    const desc::DescReport want = desc::validate(d, dt, chip::Chip::a2a3);
    port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(vreg::kOpClassBrcb, static_cast<uint32_t>(dt)));
    port::reg_write32(vreg::address(vreg::kRepeat), d.repeat);
    port::reg_write32(vreg::address(vreg::kDstStride), vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride));
    port::reg_write32(vreg::address(vreg::kDstAddr), d.dst.offset);
    port::reg_write32(vreg::address(vreg::kSrc0Addr), d.src.offset);
    port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
    const auto got = static_cast<Status>(port::reg_read32(vreg::address(vreg::kStatus)) & 0xFFFFu);
    ASSERT_EQ(got, want.status) << "case " << n << " field " << want.field << "/" << s.vu.last_report().field;
    faults += got != Status::ok;
  }
  EXPECT_GT(faults, 500);
}

TEST(VectorCheck, ConversionAgreesWithTheCoreValidatorOnRandomRegisters) {
  Sim s;
  std::mt19937 rng(7031);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  const DType types[] = {DType::f16, DType::f32, DType::bf16, DType::i32, DType::i16};
  int faults = 0;
  for (int n = 0; n < 4000; ++n) {
    auto place = [&]() { return pick(4) == 0 ? 196608 - 32 * pick(40) + (pick(8) == 0 ? 4 : 0) : 32 * pick(120); };
    const bool counter = pick(4) == 0;
    desc::CvtDesc d{};
    d.src_type = types[pick(5)];
    d.dst_type = types[pick(5)];
    d.round = static_cast<desc::RoundMode>(pick(7));
    d.mask_mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
    d.repeat = counter ? (pick(6) == 0 ? 1 : 0) : pick(10);
    d.vector_count = counter ? pick(2000) : 0;
    d.dst_block_stride = pick(4);
    d.src_block_stride = pick(4);
    d.dst_repeat_stride = pick(8) == 0 ? 250 + pick(10) : pick(10);
    d.src_repeat_stride = pick(10);
    d.dst.offset = place();
    d.src.offset = place();
    const desc::Mask128 live{pick(2) == 0 ? 0 : ~uint64_t{0}, pick(6) == 0 ? 0 : ~uint64_t{0} >> pick(64)};
    const desc::DescReport want = desc::validate(d, live, chip::Chip::a2a3);
    port::reg_write64(vreg::address(vreg::kCtrl), vreg::kCtrlReset | (counter ? vreg::kCtrlCounterMode : 0));
    port::reg_write64(vreg::address(vreg::kMaskHi), counter ? 0 : live.hi);
    port::reg_write64(vreg::address(vreg::kMaskLo), counter ? d.vector_count : live.lo);
    port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(vreg::kOpClassCvt | static_cast<uint32_t>(d.round),
                                                              static_cast<uint32_t>(d.dst_type)));
    port::reg_write32(vreg::address(vreg::kCvtSrc), static_cast<uint32_t>(d.src_type));
    port::reg_write32(vreg::address(vreg::kRepeat), d.repeat);
    port::reg_write32(vreg::address(vreg::kDstAddr), d.dst.offset);
    port::reg_write32(vreg::address(vreg::kSrc0Addr), d.src.offset);
    port::reg_write32(vreg::address(vreg::kDstStride), vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride));
    port::reg_write32(vreg::address(vreg::kSrc0Stride), vreg::stride_word(d.src_block_stride, d.src_repeat_stride));
    port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
    const auto got = static_cast<Status>(port::reg_read32(vreg::address(vreg::kStatus)) & 0xFFFFu);
    ASSERT_EQ(got, want.status) << "case " << n << " field " << want.field << "/" << s.vu.last_report().field;
    ASSERT_EQ(s.vu.last_report().nop, want.nop) << "case " << n;
    faults += got != Status::ok;
  }
  EXPECT_GT(faults, 500);
}
