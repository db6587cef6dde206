// The simulator's vector unit driven through issue_once (host only): worked examples of
// the documentation (docs/a2a3-vector-semantics.md), counter mode, saturation, raw register writes
// that bypass validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "a2a3/vector_unit.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
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

// ---- copy_ubuf_to_ubuf, vector_dup, vconv ------------------------------------------------------
namespace {
uint32_t u32_at(const Sim& s, uint32_t off) { uint32_t v; std::memcpy(&v, s.ub + off, 4); return v; }
void set_u32(Sim& s, uint32_t off, uint32_t v) { std::memcpy(s.ub + off, &v, 4); }
}  // namespace

TEST(VectorSim, CopyMovesBurstsWithGaps) {
  Sim s;
  for (uint32_t i = 0; i < 1024; ++i) s.ub[i] = static_cast<uint8_t>(i * 7 + 1);
  std::memset(s.ub + 4096, 0xEE, 1024);
  desc::CopyDesc d{};
  d.nburst = 3;
  d.burst_len = 2;  // 64 B
  d.src_gap = 1;    // source bursts every 96 B
  d.dst_gap = 0;    // packed at the destination
  d.src.offset = 0;
  d.dst.offset = 4096;
  ASSERT_EQ(issue::issue_once(s.unit, d), Status::ok);
  for (uint32_t b = 0; b < 3; ++b) {
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(s.ub[4096 + b * 64 + i], s.ub[b * 96 + i]) << b << " " << i;
  }
  EXPECT_EQ(s.ub[4096 + 192], 0xEE);  // nothing past the last burst
  // Overlapping read and write bytes: illegal_overlap, nothing written.
  d.dst.offset = 32;
  d.src.offset = 0;
  d.src_gap = 0;
  EXPECT_EQ(issue::issue_once(s.unit, d), Status::illegal_overlap);
  EXPECT_EQ(s.vu.last_status(), Status::ok);  // rejected by the core before any register write
  EXPECT_EQ(s.ub[32], static_cast<uint8_t>(32 * 7 + 1));
  d.dst.offset = 4100;  // misaligned
  EXPECT_EQ(issue::issue_once(s.unit, d), Status::misaligned);
}

TEST(VectorSim, RawCopyRegistersAreRevalidated) {
  Sim s;
  s.ub[0] = 0x5A;
  const uint64_t b = s.unit.base;
  port::reg_write32(b + vreg::kOp, vreg::op_word(vreg::kOpClassCopy, 0));
  port::reg_write32(b + vreg::kDstAddr, 192 * 1024 - 32);
  port::reg_write32(b + vreg::kSrc0Addr, 0);
  port::reg_write32(b + vreg::kCopyBurst, vreg::copy_burst_word(1, 2));  // 64 B: past UB
  port::reg_write32(b + vreg::kCopyGap, 0);
  port::ring_doorbell(b + vreg::kDoorbell, 1);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(b + vreg::kStatus)), Status::out_of_bounds);
  EXPECT_EQ(s.ub[192 * 1024 - 32], 0u);
}

TEST(VectorSim, DupFillsParticipatingLanesOnly) {
  Sim s;
  std::memset(s.ub, 0x11, 2048);
  desc::DupDesc d{};
  d.scalar_bits = to_half(1.5f).bits;
  d.repeat = 2;
  d.tail_elements = 0;
  d.dst.offset = 0;
  issue::set_mask(s.unit, 0, 0xFFull);  // lanes 0..7 of each repeat
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::ok);
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t k = 0; k < 128; ++k) {
      const uint32_t off = r * 256 + 2 * k;
      if (k < 8) EXPECT_EQ(s.h(off), 0x3E00u) << r << " " << k;
      else EXPECT_EQ(s.h(off), 0x1111u) << r << " " << k;
    }
  }
  // Counter mode, f32, 100 elements: 64 + 36.
  issue::set_mask(s.unit, ~uint64_t{0}, ~uint64_t{0});
  desc::DupDesc c{};
  c.scalar_bits = 0xDEADBEEFu;
  c.repeat = 0;
  c.mask_mode = desc::MaskMode::count;
  c.vector_count = 100;
  c.dst.offset = 1024;
  ASSERT_EQ(issue::issue_once(s.unit, c, DType::u32), Status::ok);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(u32_at(s, 1024 + 4 * i), i < 100 ? 0xDEADBEEFu : 0x11111111u) << i;
  // i8 has no vector_dup: rejected, nothing written.
  EXPECT_EQ(issue::issue_once(s.unit, c, DType::i8), Status::desc_unsupported_dtype);
}

TEST(VectorSim, ConvertF32ToF16EveryRoundMode) {
  // Inputs: 1+2^-11 (a tie), -(1+2^-11), 1+2^-12 (below the tie), 65520 (tie at the top), 2,
  // NaN, 2^-25 + 2^-40 (just above half the smallest subnormal), -0.
  const uint32_t in[8] = {0x3F801000u, 0xBF801000u, 0x3F800800u, 0x477FF000u,
                          0x40000000u, 0x7FC12345u, 0x33000001u, 0x80000000u};
  struct Want {
    desc::RoundMode mode;
    uint16_t out[8];
  };
  const Want wants[] = {
      {desc::RoundMode::rint, {0x3C00, 0xBC00, 0x3C00, 0x7C00, 0x4000, 0x7E00, 0x0001, 0x8000}},
      {desc::RoundMode::round, {0x3C01, 0xBC01, 0x3C00, 0x7C00, 0x4000, 0x7E00, 0x0001, 0x8000}},
      {desc::RoundMode::floor, {0x3C00, 0xBC01, 0x3C00, 0x7BFF, 0x4000, 0x7E00, 0x0000, 0x8000}},
      {desc::RoundMode::ceil, {0x3C01, 0xBC00, 0x3C01, 0x7C00, 0x4000, 0x7E00, 0x0001, 0x8000}},
      {desc::RoundMode::trunc, {0x3C00, 0xBC00, 0x3C00, 0x7BFF, 0x4000, 0x7E00, 0x0000, 0x8000}},
      {desc::RoundMode::odd, {0x3C01, 0xBC01, 0x3C01, 0x7BFF, 0x4000, 0x7E00, 0x0001, 0x8000}},
  };
  for (const Want& w : wants) {
    Sim s;
    for (uint32_t k = 0; k < 64; ++k) set_u32(s, 4 * k, in[k % 8]);
    std::memset(s.ub + 4096, 0x77, 256);
    desc::CvtDesc d{};
    d.src_type = DType::f32;
    d.dst_type = DType::f16;
    d.round = w.mode;
    d.repeat = 1;
    d.src.offset = 0;
    d.dst.offset = 4096;
    issue::set_mask(s.unit, 0, 0xFFFFull);  // lanes 0..15
    ASSERT_EQ(issue::issue_once(s.unit, d), Status::ok) << desc::round_name(w.mode);
    for (uint32_t k = 0; k < 64; ++k) {
      if (k < 16) EXPECT_EQ(s.h(4096 + 2 * k), w.out[k % 8]) << desc::round_name(w.mode) << " lane " << k;
      else EXPECT_EQ(s.h(4096 + 2 * k), 0x7777u) << "lane " << k;
    }
  }
}

TEST(VectorSim, ConvertToAndFromInt32AndWidenings) {
  Sim s;
  const float fin[8] = {2.5f, -2.5f, 3.0e9f, -3.0e9f, std::bit_cast<float>(0x7FC00000u), 0.49999997f, -0.0f, 7.0f};
  for (uint32_t k = 0; k < 8; ++k) s.set_f(4 * k, fin[k]);
  struct Want {
    desc::RoundMode mode;
    int32_t out[8];
  };
  const Want wants[] = {
      {desc::RoundMode::rint, {2, -2, INT32_MAX, INT32_MIN, 0, 0, 0, 7}},
      {desc::RoundMode::round, {3, -3, INT32_MAX, INT32_MIN, 0, 0, 0, 7}},
      {desc::RoundMode::floor, {2, -3, INT32_MAX, INT32_MIN, 0, 0, 0, 7}},
      {desc::RoundMode::ceil, {3, -2, INT32_MAX, INT32_MIN, 0, 1, 0, 7}},
      {desc::RoundMode::trunc, {2, -2, INT32_MAX, INT32_MIN, 0, 0, 0, 7}},
  };
  for (const Want& w : wants) {
    desc::CvtDesc d{};
    d.src_type = DType::f32;
    d.dst_type = DType::i32;
    d.round = w.mode;
    d.dst_repeat_stride = 8;
    d.src.offset = 0;
    d.dst.offset = 1024;
    issue::set_mask(s.unit, 0, 0xFFull);
    ASSERT_EQ(issue::issue_once(s.unit, d), Status::ok);
    for (uint32_t k = 0; k < 8; ++k) {
      EXPECT_EQ(static_cast<int32_t>(u32_at(s, 1024 + 4 * k)), w.out[k]) << desc::round_name(w.mode) << " " << k;
    }
  }
  // i32 -> f32 rounds to nearest even: 2^24 + 1 -> 2^24, 2^24 + 3 -> 2^24 + 4.
  set_u32(s, 2048, 16777217u);
  set_u32(s, 2052, 16777219u);
  desc::CvtDesc i2f{};
  i2f.src_type = DType::i32;
  i2f.dst_type = DType::f32;
  i2f.round = desc::RoundMode::rint;
  i2f.dst_repeat_stride = 8;
  i2f.src.offset = 2048;
  i2f.dst.offset = 3072;
  issue::set_mask(s.unit, 0, 0x3ull);
  ASSERT_EQ(issue::issue_once(s.unit, i2f), Status::ok);
  EXPECT_EQ(s.f(3072), 16777216.0f);
  EXPECT_EQ(s.f(3076), 16777220.0f);
  // f16 -> f32 exact (a subnormal half), bf16 -> f32 exact, f32 -> bf16 nearest even.
  const uint16_t h = 0x0001;  // 2^-24
  std::memcpy(s.ub + 4096, &h, 2);
  desc::CvtDesc h2f{};
  h2f.src_type = DType::f16;
  h2f.dst_type = DType::f32;
  h2f.round = desc::RoundMode::none;
  h2f.src_repeat_stride = 4;
  h2f.dst_repeat_stride = 8;
  h2f.src.offset = 4096;
  h2f.dst.offset = 5120;
  issue::set_mask(s.unit, 0, 0x1ull);
  ASSERT_EQ(issue::issue_once(s.unit, h2f), Status::ok);
  EXPECT_EQ(u32_at(s, 5120), 0x33800000u);
  set_u32(s, 6144, 0x3F808000u);  // halfway between bf16 0x3F80 and 0x3F81
  desc::CvtDesc f2b{};
  f2b.src_type = DType::f32;
  f2b.dst_type = DType::bf16;
  f2b.round = desc::RoundMode::rint;
  f2b.src.offset = 6144;
  f2b.dst.offset = 7168;
  ASSERT_EQ(issue::issue_once(s.unit, f2b), Status::ok);
  uint16_t b16 = 0;
  std::memcpy(&b16, s.ub + 7168, 2);
  EXPECT_EQ(b16, 0x3F80u);
  // An unsupported triple is rejected before any register write.
  f2b.round = desc::RoundMode::floor;
  EXPECT_EQ(issue::issue_once(s.unit, f2b), Status::desc_conversion_unsupported);
}

TEST(VectorSim, BrcbBroadcastsEachElementIntoItsBlock) {
  Sim s;
  // 16 f32 values 1..16 at 0: two repeats of 8 elements each.
  for (uint32_t i = 0; i < 16; ++i) s.set_f(4 * i, static_cast<float>(i + 1));
  std::memset(s.ub + 4096, 0x5A, 4096);
  desc::BrcbDesc d{};
  d.repeat = 2;
  d.dst_block_stride = 2;   // every other block
  d.dst_repeat_stride = 16;
  d.src.offset = 0;
  d.dst.offset = 4096;
  issue::set_mask(s.unit, 0, 0x1ull);  // vbrcb ignores MASK: every block is written
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f32), Status::ok);
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t k = 0; k < 8; ++k) {
      const uint32_t blk = 4096 + (r * 16 + k * 2) * 32;
      for (uint32_t e = 0; e < 8; ++e) EXPECT_EQ(s.f(blk + 4 * e), static_cast<float>(8 * r + k + 1)) << r << k << e;
      EXPECT_EQ(u32_at(s, blk + 32), 0x5A5A5A5Au) << "gap block written " << r << " " << k;
    }
  }
  // b16: each block gets 16 copies.
  for (uint32_t i = 0; i < 8; ++i) s.set_h(8192 + 2 * i, static_cast<float>(i) - 3.0f);
  d.repeat = 1;
  d.dst_block_stride = 1;
  d.dst_repeat_stride = 8;
  d.src.offset = 8192;
  d.dst.offset = 12288;
  ASSERT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::ok);
  for (uint32_t k = 0; k < 8; ++k) {
    for (uint32_t e = 0; e < 16; ++e) EXPECT_EQ(s.hf(12288 + k * 32 + 2 * e), static_cast<float>(k) - 3.0f);
  }
  // Negative: dst block stride 0, reads overlapping writes, b8 data: rejected, nothing written.
  d.dst_block_stride = 0;
  EXPECT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::desc_dst_block_stride_zero);
  d.dst_block_stride = 1;
  d.dst.offset = 8192;
  EXPECT_EQ(issue::issue_once(s.unit, d, DType::f16), Status::illegal_overlap);
  EXPECT_EQ(s.hf(8192 + 2), -2.0f);
  d.dst.offset = 12288;
  EXPECT_EQ(issue::issue_once(s.unit, d, DType::i8), Status::desc_unsupported_dtype);
}

TEST(VectorSim, RawBrcbRegistersAreRevalidated) {
  Sim s;
  const uint64_t b = s.unit.base;
  port::reg_write32(b + vreg::kOp, vreg::op_word(vreg::kOpClassBrcb, static_cast<uint32_t>(DType::f32)));
  port::reg_write32(b + vreg::kRepeat, 1);
  port::reg_write32(b + vreg::kDstAddr, 192 * 1024 - 128);  // 8 blocks from here leave UB
  port::reg_write32(b + vreg::kSrc0Addr, 0);
  port::reg_write32(b + vreg::kDstStride, vreg::stride_word(1, 8));
  port::ring_doorbell(b + vreg::kDoorbell, 1);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(b + vreg::kStatus)), Status::out_of_bounds);
  EXPECT_EQ(s.ub[192 * 1024 - 128], 0u);
}

// The simulator audit's reproducer of the sticky-MASK defect: a counter-mode issue through
// issue_live leaves the sticky
// MASK {hi all ones, lo 3} intact, so the later normal-mode issue writes lanes 0, 1, 64..127.
TEST(VectorSim, LiveIssueKeepsStickyMaskAcrossCounterMode) {
  Sim s;
  for (int i = 0; i < 128; ++i) s.set_h(2 * i, -2.0f);
  ASSERT_EQ(issue::set_mask_count(s.unit, 1), Status::ok);
  issue::set_mask(s.unit, ~uint64_t{0}, 3);
  desc::UnaryDesc d{};
  d.op = desc::UnaryOp::vabs;
  d.dst.offset = 4096;
  d.repeat = 0;
  ASSERT_EQ(issue::issue_live(s.unit, d, DType::f16), Status::ok);  // count 3: lanes 0..2
  EXPECT_EQ(s.hf(4096), 2.0f);
  EXPECT_EQ(s.hf(4096 + 4), 2.0f);
  EXPECT_EQ(s.h(4096 + 6), 0u);
  issue::set_mask_norm(s.unit);
  d.dst.offset = 8192;
  d.repeat = 1;
  ASSERT_EQ(issue::issue_live(s.unit, d, DType::f16), Status::ok);
  for (int k = 0; k < 128; ++k) {
    const bool on = k < 2 || k >= 64;
    if (on) EXPECT_EQ(s.hf(8192 + 2 * k), 2.0f) << k;
    else EXPECT_EQ(s.h(8192 + 2 * k), 0u) << k;
  }
  EXPECT_EQ(s.unit.mask.hi, ~uint64_t{0});
  EXPECT_EQ(s.unit.mask.lo, 3u);
}
