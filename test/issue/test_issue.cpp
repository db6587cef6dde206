// issue layer on whichever port the build uses (host: the register window of the default
// machine, no simulator attached; Cortex-M on QEMU: the RAM-backed stand-in register window).
// Checks the exact register values written, that MASK/CTRL follow the descriptor, that one
// doorbell is rung, and that a rejected descriptor writes nothing.
#include <cstdint>

#include "tilefw/port/port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

namespace port = tilefw::port;
namespace vreg = tilefw::chip::a2a3::vreg;
namespace issue = tilefw::issue;
namespace desc = tilefw::desc;
using tilefw::DType;
using tilefw::Status;

namespace {
constexpr uint32_t kSentinel = 0xDEAD'BEEFu;
constexpr uint32_t kRegs[] = {vreg::kCtrl,      vreg::kCtrl + 4,    vreg::kMaskLo,    vreg::kMaskLo + 4,
                              vreg::kMaskHi,    vreg::kMaskHi + 4,  vreg::kOp,        vreg::kRepeat,
                              vreg::kDstAddr,   vreg::kSrc0Addr,    vreg::kSrc1Addr,  vreg::kDstStride,
                              vreg::kSrc0Stride, vreg::kSrc1Stride, vreg::kScalar,    vreg::kReduce,
                              vreg::kDoorbell,  vreg::kStatus};
void fill_sentinel() {
  for (uint32_t off : kRegs) port::reg_write32(vreg::address(off), kSentinel);
  port::reg_write32(vreg::address(vreg::kDoorbell), 0);
  port::reg_write32(vreg::address(vreg::kStatus), 0);
}
uint32_t r32(uint32_t off) { return port::reg_read32(vreg::address(off)); }
uint64_t r64(uint32_t off) { return port::reg_read64(vreg::address(off)); }

desc::BinIntrinsicDesc vadd64x64() {
  desc::BinIntrinsicDesc d{};
  d.op = desc::BinaryOp::vadd;
  d.repeat = 64;
  d.dst.offset = 32768;
  d.src0.offset = 0;
  d.src1.offset = 16384;
  return d;
}
}  // namespace

TEST(Issue, BinaryWritesOperandRegistersAndOneDoorbell) {
  fill_sentinel();
  issue::VectorUnit vu{};
  ASSERT_EQ(issue::issue_once(vu, vadd64x64(), DType::f32), Status::ok);
  EXPECT_EQ(r32(vreg::kOp), vreg::op_word(0x00, static_cast<uint32_t>(DType::f32)));
  EXPECT_EQ(r32(vreg::kRepeat), 64u);
  EXPECT_EQ(r32(vreg::kDstAddr), 32768u);
  EXPECT_EQ(r32(vreg::kSrc0Addr), 0u);
  EXPECT_EQ(r32(vreg::kSrc1Addr), 16384u);
  EXPECT_EQ(r32(vreg::kDstStride), vreg::stride_word(1, 8));
  EXPECT_EQ(r32(vreg::kSrc0Stride), 0x0008'0001u);
  EXPECT_EQ(r32(vreg::kSrc1Stride), 0x0008'0001u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
  // Normal mode, tail 0, shadow already normal with MASK all ones: CTRL and MASK untouched.
  EXPECT_EQ(r32(vreg::kCtrl), kSentinel);
  EXPECT_EQ(r32(vreg::kMaskLo), kSentinel);
  EXPECT_EQ(r32(vreg::kMaskHi), kSentinel);
  EXPECT_EQ(r32(vreg::kScalar), kSentinel);  // not an operand of a binary op
}

TEST(Issue, CountModeSetsCtrl56AndMaskCount) {
  fill_sentinel();
  issue::VectorUnit vu{};
  desc::BinIntrinsicDesc d = vadd64x64();
  d.repeat = 0;
  d.mask_mode = desc::MaskMode::count;
  d.vector_count = 4096;
  ASSERT_EQ(issue::issue_once(vu, d, DType::f32), Status::ok);
  EXPECT_EQ(r64(vreg::kCtrl), vreg::kCtrlInfNan | vreg::kCtrlCounterMode);
  EXPECT_EQ(r64(vreg::kMaskLo), 4096u);
  EXPECT_EQ(r64(vreg::kMaskHi), 0u);
  EXPECT_EQ(r32(vreg::kRepeat), 0u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
  EXPECT_TRUE(vu.counter_mode());
  // Nothing is restored: a following normal issue with tail 0 clears CTRL[56] only and keeps
  // MASK = {0, 4096} (sticky); validation sees that mask (lanes 12 only for f32: bit 12).
  fill_sentinel();
  d = vadd64x64();
  d.repeat = 1;
  ASSERT_EQ(issue::issue_once(vu, d, DType::f32), Status::ok);
  EXPECT_EQ(r64(vreg::kCtrl), vreg::kCtrlInfNan);
  EXPECT_EQ(r32(vreg::kMaskLo), kSentinel);
  EXPECT_EQ(vu.mask.lo, 4096u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
}

TEST(Issue, TailSetsContinuousMask) {
  fill_sentinel();
  issue::VectorUnit vu{};
  desc::UnaryDesc d{};
  d.op = desc::UnaryOp::vabs;
  d.repeat = 1;
  d.tail_elements = 70;
  d.dst.offset = 1024;
  ASSERT_EQ(issue::issue_once(vu, d, DType::f16), Status::ok);
  EXPECT_EQ(r64(vreg::kMaskLo), ~uint64_t{0});
  EXPECT_EQ(r64(vreg::kMaskHi), 0x3Fu);
  EXPECT_EQ(r32(vreg::kCtrl), kSentinel);  // already normal mode
  EXPECT_EQ(r32(vreg::kOp), vreg::op_word(0x10, static_cast<uint32_t>(DType::f16)));
  EXPECT_EQ(r32(vreg::kDstStride), 0x0008'0001u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
}

TEST(Issue, ScalarAndReduceRegisters) {
  fill_sentinel();
  issue::VectorUnit vu{};
  desc::ScalarDesc s{};
  s.op = desc::ScalarOp::vmuls;
  s.scalar_bits = 0x3C00;
  s.dst.offset = 512;
  ASSERT_EQ(issue::issue_once(vu, s, DType::f16), Status::ok);
  EXPECT_EQ(r32(vreg::kOp), vreg::op_word(0x21, static_cast<uint32_t>(DType::f16)));
  EXPECT_EQ(r32(vreg::kScalar), 0x3C00u);
  fill_sentinel();
  desc::ReduceDesc r{};
  r.op = desc::ReduceOp::vcmax;
  r.order = desc::ReduceOrder::only_index;
  r.repeat = 2;
  r.dst.offset = 4096;
  r.dst_repeat_stride = 3;
  ASSERT_EQ(issue::issue_once(vu, r, DType::f32), Status::ok);
  EXPECT_EQ(r32(vreg::kOp), vreg::op_word(0x33, static_cast<uint32_t>(DType::f32)));
  EXPECT_EQ(r32(vreg::kDstStride), 0x0003'0000u);
  EXPECT_EQ(r32(vreg::kReduce), 3u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
}

TEST(Issue, RejectedDescriptorWritesNothing) {
  fill_sentinel();
  issue::VectorUnit vu{};
  desc::BinIntrinsicDesc d = vadd64x64();
  d.mask_mode = desc::MaskMode::count;  // repeat 64 in count mode: invalid
  d.vector_count = 10;
  desc::DescReport rep{};
  EXPECT_EQ(issue::issue_once(vu, d, DType::f32, &rep), Status::desc_count_mode_needs_zero_repeat);
  EXPECT_EQ(rep.status, Status::desc_count_mode_needs_zero_repeat);
  d = vadd64x64();
  d.dst.offset = 196608 - 256;  // out of bounds
  EXPECT_EQ(issue::issue_once(vu, d, DType::f32), Status::out_of_bounds);
  d = vadd64x64();
  d.src0.offset = 16;
  EXPECT_EQ(issue::issue_once(vu, d, DType::f32), Status::misaligned);
  for (uint32_t off : kRegs) {
    if (off == vreg::kDoorbell || off == vreg::kStatus) continue;
    EXPECT_EQ(r32(off), kSentinel);
  }
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);
  EXPECT_FALSE(vu.counter_mode());
  EXPECT_TRUE(vu.mask == desc::Mask128::all());
}

TEST(Issue, MaskStateOperations) {
  fill_sentinel();
  issue::VectorUnit vu{};
  issue::set_mask(vu, 2, 8);
  EXPECT_EQ(r64(vreg::kMaskHi), 2u);
  EXPECT_EQ(r64(vreg::kMaskLo), 8u);
  EXPECT_EQ(issue::set_mask_count(vu, 130), Status::ok);
  EXPECT_EQ(r64(vreg::kCtrl), vreg::kCtrlInfNan | vreg::kCtrlCounterMode);
  EXPECT_EQ(r64(vreg::kMaskLo), 130u);
  EXPECT_EQ(r64(vreg::kMaskHi), 0u);
  EXPECT_EQ(issue::set_mask_count(vu, uint64_t{1} << 32), Status::invalid_argument);
  EXPECT_EQ(r64(vreg::kMaskLo), 130u);
  issue::set_mask_norm(vu);
  EXPECT_EQ(r64(vreg::kCtrl), vreg::kCtrlInfNan);
  EXPECT_EQ(r64(vreg::kMaskLo), 130u);  // sticky
  issue::set_overflow_mode(vu, issue::OverflowMode::saturate);
  EXPECT_EQ(r64(vreg::kCtrl), 0u);
  EXPECT_EQ(vu.overflow_mode(), issue::OverflowMode::saturate);
  issue::reset(vu);
  EXPECT_EQ(r64(vreg::kCtrl), vreg::kCtrlReset);
  EXPECT_EQ(r64(vreg::kMaskLo), ~uint64_t{0});
  EXPECT_EQ(r64(vreg::kMaskHi), ~uint64_t{0});
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);  // mask operations ring nothing
}

// issue_live: the descriptor runs under the live CTRL/MASK (mode from CTRL[56], count from
// MASK[31:0]) and never writes CTRL or MASK, so a sticky MASK survives counter-mode issues.
TEST(Issue, LiveIssueKeepsCtrlAndMask) {
  issue::VectorUnit vu{};
  issue::reset(vu);
  ASSERT_EQ(issue::set_mask_count(vu, 1), Status::ok);
  issue::set_mask(vu, ~uint64_t{0}, 0x1'0000'0003u);  // count = MASK[31:0] = 3
  fill_sentinel();
  desc::UnaryDesc d{};
  d.op = desc::UnaryOp::vabs;
  d.dst.offset = 4096;
  d.repeat = 0;
  d.mask_mode = desc::MaskMode::normal;  // ignored: the live state decides
  d.vector_count = 77;
  ASSERT_EQ(issue::issue_live(vu, d, DType::f16), Status::ok);
  EXPECT_EQ(r32(vreg::kRepeat), 0u);
  EXPECT_EQ(r32(vreg::kDstAddr), 4096u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
  for (uint32_t off : {vreg::kCtrl, vreg::kCtrl + 4, vreg::kMaskLo, vreg::kMaskLo + 4, vreg::kMaskHi, vreg::kMaskHi + 4}) {
    EXPECT_EQ(r32(off), kSentinel);
  }
  EXPECT_TRUE(vu.counter_mode());
  EXPECT_EQ(vu.mask.hi, ~uint64_t{0});
  EXPECT_EQ(vu.mask.lo, 0x1'0000'0003u);
  // Back in normal mode the whole sticky MASK is the lane mask; still no CTRL/MASK write.
  issue::set_mask_norm(vu);
  fill_sentinel();
  d.repeat = 1;
  ASSERT_EQ(issue::issue_live(vu, d, DType::f16), Status::ok);
  EXPECT_EQ(r32(vreg::kRepeat), 1u);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
  EXPECT_EQ(r32(vreg::kMaskLo), kSentinel);
  EXPECT_EQ(r32(vreg::kCtrl), kSentinel);
}

TEST(Issue, LiveIssueValidatesAgainstLiveState) {
  issue::VectorUnit vu{};
  issue::reset(vu);
  desc::UnaryDesc d{};
  d.op = desc::UnaryOp::vabs;
  d.dst.offset = 4096;
  d.repeat = 0;
  // Counter mode whose MASK[31:0] is 0: no count, whatever the upper bits hold.
  ASSERT_EQ(issue::set_mask_count(vu, 5), Status::ok);
  issue::set_mask(vu, 0, 0x1'0000'0000u);
  fill_sentinel();
  EXPECT_EQ(issue::issue_live(vu, d, DType::f16), Status::desc_count_mode_needs_count);
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);
  EXPECT_EQ(r32(vreg::kOp), kSentinel);
  // Counter mode needs repeat 0, normal mode repeat 1..255.
  issue::set_mask(vu, 0, 8);
  d.repeat = 1;
  EXPECT_EQ(issue::issue_live(vu, d, DType::f16), Status::desc_count_mode_needs_zero_repeat);
  issue::set_mask_norm(vu);
  d.repeat = 0;
  EXPECT_EQ(issue::issue_live(vu, d, DType::f16), Status::desc_normal_mode_needs_repeat);
  // A tail would need a MASK write: refused before anything is written.
  fill_sentinel();
  d.repeat = 1;
  d.tail_elements = 4;
  EXPECT_EQ(issue::issue_live(vu, d, DType::f16), Status::invalid_argument);
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);
  EXPECT_EQ(r32(vreg::kCtrl), kSentinel);
  EXPECT_EQ(r32(vreg::kMaskLo), kSentinel);
}
