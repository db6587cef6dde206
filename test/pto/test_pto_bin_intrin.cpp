// TBIN_INTRIN and BinIntrinsicDesc (PTO's single-issue binary): the documented FP32 64 x 64
// configuration (repeat 64, block stride 1, repeat stride 8) run on the simulator against a
// scalar reference, Count mode and a Normal-mode tail, and the validator's verdicts on the
// documented rules (ValidateBinIntrinsicDesc / IsBinIntrinsicDescValid), and sync over the bytes a
// descriptor reaches past its tiles.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <pto/host.hpp>

namespace {

using namespace pto;
using tilefw::Status;
using tilefw::chip::MemSpace;

using T64 = Tile<TileType::Vec, float, 64, 64>;

float value(int i, int salt) { return static_cast<float>((i * 53 + salt * 17) % 211) * 0.013f - 1.1f; }

struct Operands {
  T64 dst, a, b;
  float* ub = nullptr;
};

// Places the three tiles by TASSIGN and fills a and b; dst starts at -7.
void setup(pto::host::Core& core, Operands& r) {
  TASSIGN(r.dst, 0x0);
  TASSIGN(r.a, 0x4000);
  TASSIGN(r.b, 0x8000);
  r.ub = reinterpret_cast<float*>(core.space(MemSpace::UB));
  for (int i = 0; i < 4096; ++i) {
    r.ub[i] = -7.0f;
    r.ub[0x1000 + i] = value(i, 1);
    r.ub[0x2000 + i] = value(i, 2);
  }
}

TEST(PtoBinIntrin, Fp32SixtyFourSquareFullRepeats) {
  pto::host::Core core;
  Operands r;
  setup(core, r);
  BinIntrinsicDesc d;
  d.repeat = 4096 / (256 / 4);  // 64 repeats of 64 lanes
  d.dstBlockStride = d.src0BlockStride = d.src1BlockStride = 1;
  d.dstRepeatStride = d.src0RepeatStride = d.src1RepeatStride = 8;
  EXPECT_TRUE(IsBinIntrinsicDescValid<float>(d));
  TBIN_INTRIN<AddOp>(r.dst, r.a, r.b, d);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(r.ub[i], value(i, 1) + value(i, 2)) << i;
}

TEST(PtoBinIntrin, CountModeCoversVectorCountElements) {
  pto::host::Core core;
  Operands r;
  setup(core, r);
  BinIntrinsicDesc d;
  d.repeat = 0;
  d.maskMode = MaskMode::Count;
  d.vectorCount = 100;
  TBIN_INTRIN<MulOp>(r.dst, r.a, r.b, d);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r.ub[i], value(i, 1) * value(i, 2)) << i;
  for (int i = 100; i < 4096; ++i) ASSERT_EQ(r.ub[i], -7.0f) << i;
}

TEST(PtoBinIntrin, NormalModeTailTrimsOneRepeat) {
  pto::host::Core core;
  Operands r;
  setup(core, r);
  BinIntrinsicDesc d;
  d.repeat = 1;
  d.tailElements = 10;
  TBIN_INTRIN<MaxOp>(r.dst, r.a, r.b, d);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < 10; ++i) {
    const float x = value(i, 1), y = value(i, 2);
    ASSERT_EQ(r.ub[i], x > y ? x : y) << i;
  }
  for (int i = 10; i < 4096; ++i) ASSERT_EQ(r.ub[i], -7.0f) << i;
}

TEST(PtoBinIntrin, RejectedDescriptorWritesNothing) {
  pto::host::Core core;
  core.set_checked(true);
  Operands r;
  setup(core, r);
  BinIntrinsicDesc d;
  d.repeat = 2;
  d.tailElements = 5;
  TBIN_INTRIN<AddOp>(r.dst, r.a, r.b, d);
  EXPECT_EQ(pto::status(), Status::desc_tail_with_multiple_repeats);
  EXPECT_STREQ(pto::last_failure().instr, "TBIN_INTRIN");
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(r.ub[i], -7.0f) << i;
}

// A descriptor reaching past its source tile: src0 `a` is one repeat (256 B) but two repeats of
// stride 8 read the next 256 B too, the tile `n` a load (MTE2) has just written. Sync must cover
// the bytes the descriptor touches, not only the tile's.
using T1 = Tile<TileType::Vec, float, 8, 8>;   // 256 B: one repeat of float
using T2 = Tile<TileType::Vec, float, 16, 8>;  // 512 B: two repeats
using Gm1 = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>>;

void reach_past_kernel(pto::host::Core& core, float* g, float*& ub) {
  T1 a, n, b;
  T2 dst;
  TASSIGN(a, 0x0);
  TASSIGN(n, 0x100);  // right after a
  TASSIGN(b, 0x200);
  TASSIGN(dst, 0x1000);
  ub = reinterpret_cast<float*>(core.space(MemSpace::UB));
  for (int i = 0; i < 64; ++i) {
    ub[i] = value(i, 1);          // a
    ub[0x80 + i] = value(i, 2);   // b
  }
  Gm1 gn(g);
  TLOAD(n, gn);
  BinIntrinsicDesc d;
  d.repeat = 2;
  d.src1RepeatStride = 0;  // b's 64 floats in both repeats
  TBIN_INTRIN<AddOp>(dst, a, b, d);
}

float* loaded_gm() {
  float* g = pto::host::gm<float>(64);
  for (int i = 0; i < 64; ++i) g[i] = value(i, 3);
  return g;
}

TEST(PtoBinIntrin, AutoSyncWaitsForTheBytesTheDescriptorReachesPastItsTile) {
  pto::host::Core core;
  float* g = loaded_gm();
  float* ub = nullptr;
  reach_past_kernel(core, g, ub);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.hazard_count(), 0u) << "TBIN_INTRIN must wait for the load of the bytes past a";
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(ub[0x400 + i], value(i, 1) + value(i, 2)) << i;
    ASSERT_EQ(ub[0x440 + i], value(i, 3) + value(i, 2)) << i;
  }
}

TEST(PtoBinIntrin, ManualSyncChecksTheBytesTheDescriptorReachesPastItsTile) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  float* g = loaded_gm();
  float* ub = nullptr;
  reach_past_kernel(core, g, ub);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 1u);
  EXPECT_STREQ(core.context().first_violation.instr, "TBIN_INTRIN");
  EXPECT_STREQ(core.context().first_violation.report.field, "MTE2");
}

TEST(PtoBinIntrin, ValidatorVerdicts) {
  BinIntrinsicDesc ok;
  ok.repeat = 64;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(ok), Status::ok);

  BinIntrinsicDesc count = ok;
  count.maskMode = MaskMode::Count;
  count.vectorCount = 10;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(count), Status::desc_count_mode_needs_zero_repeat);
  count.repeat = 0;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(count), Status::ok);
  count.vectorCount = 0;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(count), Status::desc_count_mode_needs_count);

  BinIntrinsicDesc normal;
  normal.repeat = 0;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(normal), Status::desc_normal_mode_needs_repeat);
  normal.repeat = 256;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(normal), Status::desc_repeat_out_of_range);

  BinIntrinsicDesc tail;
  tail.repeat = 1;
  tail.tailElements = 65;  // > 256 / sizeof(float)
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(tail), Status::desc_tail_out_of_range);
  EXPECT_EQ(ValidateBinIntrinsicDesc<half>(tail), Status::ok);  // 128 lanes of half
  tail.repeat = 2;
  tail.tailElements = 3;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(tail), Status::desc_tail_with_multiple_repeats);

  BinIntrinsicDesc ext;
  ext.repeatStrideMode = true;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(ext), Status::desc_extension_mode_unsupported);
  EXPECT_FALSE(IsBinIntrinsicDescValid<float>(ext));
  ext.repeatStrideMode = false;
  ext.strideSizeMode = true;
  EXPECT_FALSE(IsBinIntrinsicDescValid<float>(ext));

  BinIntrinsicDesc stride;
  stride.dstRepeatStride = 256;
  EXPECT_EQ(ValidateBinIntrinsicDesc<float>(stride), Status::desc_stride_out_of_range);
  static_assert(IsBinIntrinsicDescValid<float>(BinIntrinsicDesc{}), "the defaults are one full repeat");
}

}  // namespace
