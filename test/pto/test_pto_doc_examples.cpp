// The PTO Tile Lib documents' examples (test/pto/doc_examples/, each compiled as written against
// <pto/pto-inst.hpp>) run on the simulated AI Core, their results checked against scalar references written here.
// The examples leave their inputs to whatever the tiles hold, so each test fills UB first:
// manual tiles at the example's addresses, auto tiles where Auto mode places them (operands in
// argument order, each at the next 32 B boundary of UB from 0: docs/pto-api.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <pto/host.hpp>

void example_auto();
void example_manual();
void example();
void example_static_valid(unsigned& rows, unsigned& cols);
void example_dynamic_valid(int m, unsigned& rows, unsigned& cols);

namespace {

using tilefw::chip::MemSpace;

// Values whose row sums are exact in f32 in any order (multiples of 1/4 below 2^10), so the
// reference's order cannot differ from the unit's.
float input(int i, int j) { return static_cast<float>((i * 7 + j * 5) % 23 - 11) + 0.25f * static_cast<float>(j % 4); }

void fill(pto::host::Core& core, uint64_t offset, int rows, int cols, int salt) {
  float* p = reinterpret_cast<float*>(core.space(MemSpace::UB, offset));
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) p[i * cols + j] = input(i + salt, j);
  }
}

float ub_float(pto::host::Core& core, uint64_t offset) {
  float v;
  std::memcpy(&v, core.space(MemSpace::UB, offset), sizeof v);
  return v;
}

void expect_row_sums(pto::host::Core& core, uint64_t src, uint64_t dst) {
  for (int i = 0; i < 16; ++i) {
    float want = 0.0f;
    for (int j = 0; j < 16; ++j) want += input(i, j);
    EXPECT_EQ(ub_float(core, dst + 4u * i), want) << "row " << i;
  }
  (void)src;
}

TEST(PtoDocExamples, TrowsumManualExample) {
  pto::host::Core core;
  fill(core, 0x1000, 16, 16, 0);
  example_manual();
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  expect_row_sums(core, 0x1000, 0x2000);
  EXPECT_EQ(core.hazard_count(), 0u);
}

TEST(PtoDocExamples, TrowsumAutoExample) {
  pto::host::Core core;
  // TROWSUM(dst, src, tmp): dst (16 x 1 f32, 64 B) at 0, src (1 KB) at 64, tmp at 1088.
  fill(core, 64, 16, 16, 0);
  example_auto();
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  expect_row_sums(core, 64, 0);
  const pto::Arena& ub = core.context().arena[static_cast<size_t>(MemSpace::UB)];
  EXPECT_EQ(ub.auto_lo, 0u);
  EXPECT_EQ(ub.auto_end, 64u + 1024u + 1024u);
}

TEST(PtoDocExamples, TrowsumAutoExampleTwiceExhaustsNothingAfterReset) {
  pto::host::Core core;
  example_auto();
  pto::reset_auto_placement();
  fill(core, 64, 16, 16, 0);
  example_auto();  // the same bytes again: placement is deterministic
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  expect_row_sums(core, 64, 0);
}

TEST(PtoDocExamples, BasicVectorTileExample) {
  pto::host::Core core;
  // TADD(c, a, b): c at 0, a at 1024, b at 2048 (16 x 16 f32 each).
  fill(core, 1024, 16, 16, 1);
  fill(core, 2048, 16, 16, 5);
  example();
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      const float want = input(i + 1, j) + input(i + 5, j);  // one RNE f32 addition, as vadd
      ASSERT_EQ(ub_float(core, 4u * (i * 16 + j)), want) << i << "," << j;
    }
  }
}

TEST(PtoDocExamples, StaticValidRegionFragment) {
  unsigned rows = 0, cols = 0;
  example_static_valid(rows, cols);
  EXPECT_EQ(rows, 127u);
  EXPECT_EQ(cols, 127u);
}

TEST(PtoDocExamples, DynamicValidRegionFragment) {
  unsigned rows = 0, cols = 0;
  example_dynamic_valid(77, rows, cols);
  EXPECT_EQ(rows, 77u);
  EXPECT_EQ(cols, 127u);
}

}  // namespace
