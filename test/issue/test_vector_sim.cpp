// The simulator's vector unit driven through issue_once (host only): worked examples of
// vector-semantics 5, counter mode, saturation, raw register writes that bypass validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "a2a3_vector_unit.hpp"
#include "machine.hpp"
#include "port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

using namespace tilefw;
namespace vreg = chip::a2a3::vreg;

namespace {
struct Sim {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3VectorUnit vu{m};
  issue::VectorUnit unit{};
  uint8_t* ub = *m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
  uint16_t h(uint32_t off) const { uint16_t v; std::memcpy(&v, ub + off, 2); return v; }
  void set_h(uint32_t off, float f) { uint16_t v = to_half(f).bits; std::memcpy(ub + off, &v, 2); }
  float f(uint32_t off) const { float v; std::memcpy(&v, ub + off, 4); return v; }
  void set_f(uint32_t off, float v) { std::memcpy(ub + off, &v, 4); }
  float hf(uint32_t off) const { return to_float(half{h(off)}); }
};
}  // namespace

TEST(VectorSim, Example1And2HalfAddContinuousMasks) {
  Sim s;
  for (int i = 0; i < 512; ++i) {
    s.set_h(2 * i, float(i + 1));
    s.set_h(1024 + 2 * i, float(513 + i));
  }
  desc::BinIntrinsicDesc d{};
  d.repeat = 4;
  d.dst.offset = 4096;
  d.src1.offset = 1024;
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::ok);
  for (int i = 0; i < 512; ++i) EXPECT_EQ(s.hf(4096 + 2 * i), 514.0f + 2 * i);
  // #2: mask = 64 continuous: lanes 64..127 of each repeat untouched.
  std::memset(s.ub + 8192, 0xAB, 1024);
  d.dst.offset = 8192;
  d.tail_elements = 64;
  d.repeat = 1;
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::ok);
  issue::set_mask(s.unit, 0, ~uint64_t{0});
  d.tail_elements = 0;
  d.repeat = 4;
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::ok);
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 128; ++k) {
      const uint32_t off = 8192 + 2 * (r * 128 + k);
      if (k < 64) EXPECT_EQ(s.hf(off), 514.0f + 2 * (r * 128 + k));
      else EXPECT_EQ(s.h(off), 0xABABu);
    }
  }
  EXPECT_EQ(s.vu.issues(), 3u);
}

TEST(VectorSim, CounterModeRunsCeilRepeatsAndIsSticky) {
  Sim s;
  for (int i = 0; i < 200; ++i) s.set_f(4 * i, float(i));
  ASSERT_EQ(issue::set_mask_count(s.unit, 130), Status::ok);
  desc::UnaryDesc d{};
  d.op = desc::UnaryOp::vabs;
  d.repeat = 0;
  d.mask_mode = desc::MaskMode::count;
  d.vector_count = 130;
  d.dst.offset = 4096;
  std::memset(s.ub + 4096, 0xFF, 1024);
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f32), Status::ok);
  for (int i = 0; i < 130; ++i) EXPECT_EQ(s.f(4096 + 4 * i), float(i));
  uint32_t w;
  std::memcpy(&w, s.ub + 4096 + 4 * 130, 4);
  EXPECT_EQ(w, 0xFFFFFFFFu);
}

TEST(VectorSim, SaturationModeTreeExample) {
  Sim s;
  issue::set_overflow_mode(s.unit, issue::OverflowMode::saturate);
  const float in[4] = {60000, 60000, -30000, 100};
  for (int i = 0; i < 4; ++i) s.set_h(2 * i, in[i]);
  desc::ReduceDesc r{};
  r.op = desc::ReduceOp::vcadd;
  r.tail_elements = 4;
  r.dst.offset = 1024;
  ASSERT_EQ(issue::issue_once(s.unit, r, DType::f16), Status::ok);
  EXPECT_EQ(s.hf(1024), 35584.0f);
  issue::set_overflow_mode(s.unit, issue::OverflowMode::infnan);
  ASSERT_EQ(issue::issue_once(s.unit, r, DType::f16), Status::ok);
  EXPECT_EQ(s.h(1024), 0x7C00u);
}

TEST(VectorSim, RawRegisterWritesAreRevalidated) {
  Sim s;
  std::memset(s.ub, 0x11, 4096);
  // Repeat 0 in normal mode, written straight into the registers.
  port::reg_write32(vreg::address(vreg::kOp), vreg::op_word(0x00, uint32_t(DType::f32)));
  port::reg_write32(vreg::address(vreg::kRepeat), 0);
  port::reg_write32(vreg::address(vreg::kDstStride), vreg::stride_word(1, 8));
  port::reg_write32(vreg::address(vreg::kSrc0Stride), vreg::stride_word(1, 8));
  port::reg_write32(vreg::address(vreg::kSrc1Stride), vreg::stride_word(1, 8));
  port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
  EXPECT_EQ(port::reg_read32(vreg::address(vreg::kStatus)), uint32_t(Status::desc_normal_mode_needs_repeat));
  // Out of bounds: the faulting issue writes nothing.
  port::reg_write32(vreg::address(vreg::kRepeat), 2);
  port::reg_write32(vreg::address(vreg::kDstAddr), 196608 - 256);
  port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
  EXPECT_EQ(port::reg_read32(vreg::address(vreg::kStatus)), uint32_t(Status::out_of_bounds));
  EXPECT_EQ(port::reg_read32(vreg::address(vreg::kFaultOffset)), 196608u);
  // Illegal overlap (dst = src0 shifted by one block): nothing written.
  port::reg_write32(vreg::address(vreg::kDstAddr), 32);
  port::ring_doorbell(vreg::address(vreg::kDoorbell), 1);
  EXPECT_EQ(port::reg_read32(vreg::address(vreg::kStatus)), uint32_t(Status::illegal_overlap));
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(s.ub[i], 0x11);
  EXPECT_EQ(s.vu.faults(), 3u);
  EXPECT_EQ(port::reg_read32(vreg::address(vreg::kIssueCount)), 3u);
}

TEST(VectorSim, AccumulatorPatternIsSequential) {
  Sim s;
  // dst == src1, rep stride 0 on both: acc = ((acc + x0) + x1) + x2 per lane.
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 64; ++k) s.set_f(256 * r + 4 * k, float(r + 1));
  desc::BinIntrinsicDesc d{};
  d.repeat = 3;
  d.dst.offset = 4096;
  d.src1.offset = 4096;
  d.dst_repeat_stride = 0;
  d.src1_repeat_stride = 0;
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f32), Status::ok);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(s.f(4096 + 4 * k), 6.0f);
}

TEST(VectorSim, VcmaxValueIndexTiesSmallest) {
  Sim s;
  for (int k = 0; k < 128; ++k) s.set_h(2 * k, k == 52 || k == 90 ? 11.0f : 1.0f);
  desc::ReduceDesc r{};
  r.op = desc::ReduceOp::vcmax;
  r.dst.offset = 1024;
  ASSERT_EQ(issue::issue_once(s.unit, r, DType::f16), Status::ok);
  EXPECT_EQ(s.hf(1024), 11.0f);
  EXPECT_EQ(s.h(1026), 52u);
}

// f32 vadd/vsub/vmul on the contiguous fast path (full mask, strides 1/8, disjoint operands):
// every NaN result is the canonical quiet NaN 0x7FC00000, whatever the inputs' payloads and
// whichever of the two passes (raw results, then canonicalisation) produced it.
TEST(VectorSim, ContiguousF32ResultsCanonicaliseNaN) {
  for (uint32_t op = 0; op < 3; ++op) {
    Sim s;
    auto bits = [&](uint32_t off) { uint32_t v; std::memcpy(&v, s.ub + off, 4); return v; };
    auto set_bits = [&](uint32_t off, uint32_t v) { std::memcpy(s.ub + off, &v, 4); };
    for (int i = 0; i < 128; ++i) {
      s.set_f(4 * i, float(i));
      s.set_f(1024 + 4 * i, 2.0f);
    }
    set_bits(4 * 3, 0xFFC12345u);           // negative NaN with a payload
    set_bits(1024 + 4 * 70, 0x7F800001u);   // signalling NaN in src1, second repeat
    set_bits(4 * 90, 0x7F800000u);          // +inf ...
    set_bits(1024 + 4 * 90, op == 0 ? 0xFF800000u : 0x7F800000u);  // ... -inf (add) / +inf: inf-inf
    set_bits(4 * 100, 0x00000000u);         // 0 * inf (mul)
    set_bits(1024 + 4 * 100, 0x7F800000u);
    desc::BinIntrinsicDesc d{};
    d.op = static_cast<desc::BinaryOp>(op);
    d.repeat = 2;
    d.src0.offset = 0;
    d.src1.offset = 1024;
    d.dst.offset = 2048;
    ASSERT_EQ(issue::issue_once(s.unit, d, DType::f32), Status::ok);
    EXPECT_EQ(bits(2048 + 4 * 3), 0x7FC00000u) << "op " << op;
    EXPECT_EQ(bits(2048 + 4 * 70), 0x7FC00000u) << "op " << op;
    if (op != 2) {
      EXPECT_EQ(bits(2048 + 4 * 90), 0x7FC00000u) << "op " << op;  // inf - inf
    } else {
      EXPECT_EQ(bits(2048 + 4 * 100), 0x7FC00000u);  // 0 * inf
    }
    // Ordinary lanes are the plain IEEE results.
    const float want = op == 0 ? 5.0f + 2.0f : op == 1 ? 5.0f - 2.0f : 5.0f * 2.0f;
    EXPECT_EQ(s.f(2048 + 4 * 5), want) << "op " << op;
  }
}
