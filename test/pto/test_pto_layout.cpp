// TTRANS and TCOLPROD under their PTO spellings: the pages' Manual examples (compiled as
// written, test/pto/doc_examples/) run on the simulated AI Core, checked against scalar
// references here; Auto placement; a refused TTRANS returns an empty RecordEvent and the
// context names the failure.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>

#include <pto/host.hpp>

void example_ttrans_manual();
void example_tcolprod_manual();

namespace {

using tilefw::chip::MemSpace;

uint32_t bits_at(pto::host::Core& core, uint64_t offset) {
  uint32_t v;
  std::memcpy(&v, core.space(MemSpace::UB, offset), sizeof v);
  return v;
}

TEST(PtoLayout, TtransManualExample) {
  pto::host::Core core;
  for (uint32_t k = 0; k < 256; ++k) {
    const uint32_t b = k == 7 ? 0x7FC0ABCDu : std::bit_cast<uint32_t>(static_cast<float>(k) - 100.5f);
    std::memcpy(core.space(MemSpace::UB, 0x1000 + k * 4), &b, 4);
  }
  example_ttrans_manual();
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  for (uint32_t i = 0; i < 16; ++i) {
    for (uint32_t j = 0; j < 16; ++j) {
      EXPECT_EQ(bits_at(core, 0x2000 + (i * 16 + j) * 4), bits_at(core, 0x1000 + (j * 16 + i) * 4)) << i << "," << j;
    }
  }
}

TEST(PtoLayout, TcolprodManualExample) {
  pto::host::Core core;
  float* src = reinterpret_cast<float*>(core.space(MemSpace::UB, 0x1000));
  for (int k = 0; k < 256; ++k) src[k] = 0.5f + static_cast<float>((k * 29) % 61) / 40.0f;
  example_tcolprod_manual();
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  for (int j = 0; j < 16; ++j) {
    float acc = src[j];
    for (int i = 1; i < 16; ++i) acc = acc * src[i * 16 + j];
    EXPECT_EQ(bits_at(core, 0x2000 + j * 4), std::bit_cast<uint32_t>(acc)) << j;
  }
}

TEST(PtoLayout, TtransAutoPlacedHalfTiles) {
  pto::host::Core core;
  pto::Tile<pto::TileType::Vec, pto::half, 16, 32> src;  // 16 x 32 -> 32 x 16
  pto::Tile<pto::TileType::Vec, pto::half, 32, 16> dst;
  pto::Tile<pto::TileType::Vec, pto::half, 16, 32> tmp;  // 1 group x 32 blocks = 1 KB
  for (uint32_t k = 0; k < 4096; ++k) {  // Auto places dst, src, tmp upward from 0: fill them all
    const uint16_t b = static_cast<uint16_t>(k * 40503u);
    std::memcpy(core.space(MemSpace::UB, k * 2), &b, 2);
  }
  pto::TTRANS(dst, src, tmp);
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  ASSERT_TRUE(dst.assigned() && src.assigned());
  const uint64_t d = dst.address(), a = src.address();
  for (uint32_t i = 0; i < 32; ++i) {
    for (uint32_t j = 0; j < 16; ++j) {
      uint16_t got, want;
      std::memcpy(&got, core.space(MemSpace::UB, d + (i * 16 + j) * 2), 2);
      std::memcpy(&want, core.space(MemSpace::UB, a + (j * 32 + i) * 2), 2);
      EXPECT_EQ(got, want) << i << "," << j;
    }
  }
}

TEST(PtoLayout, TgatherManualPlacement) {
  pto::host::Core core;
  pto::Tile<pto::TileType::Vec, float, 4, 16> dst;
  pto::Tile<pto::TileType::Vec, float, 16, 16> src;
  pto::Tile<pto::TileType::Vec, int32_t, 4, 16> idx;
  pto::Tile<pto::TileType::Vec, int32_t, 4, 16> tmp;
  pto::TASSIGN(dst, 0x0);
  pto::TASSIGN(src, 0x1000);
  pto::TASSIGN(idx, 0x2000);
  pto::TASSIGN(tmp, 0x3000);
  for (uint32_t k = 0; k < 256; ++k) {
    const float v = static_cast<float>(k) * 0.75f - 3.0f;
    std::memcpy(core.space(MemSpace::UB, 0x1000 + k * 4), &v, 4);
  }
  for (uint32_t k = 0; k < 64; ++k) {
    const int32_t i = static_cast<int32_t>((k * 61 + 5) % 256);
    std::memcpy(core.space(MemSpace::UB, 0x2000 + k * 4), &i, 4);
  }
  pto::TGATHER(dst, src, idx, tmp);
  ASSERT_EQ(pto::status(), tilefw::Status::ok);
  for (uint32_t k = 0; k < 64; ++k) {
    EXPECT_EQ(bits_at(core, k * 4), bits_at(core, 0x1000 + ((k * 61 + 5) % 256) * 4)) << k;
  }
  // A negative index: the instruction fails naming the offsets; dst keeps its bytes.
  core.set_checked(true);
  const int32_t neg = -1;
  std::memcpy(core.space(MemSpace::UB, 0x2000 + 9 * 4), &neg, 4);
  const uint32_t before = bits_at(core, 9 * 4);
  pto::TGATHER(dst, src, idx, tmp);
  const pto::Failure f = pto::last_failure();
  EXPECT_EQ(f.status, tilefw::Status::out_of_bounds);
  EXPECT_STREQ(f.instr, "TGATHER");
  EXPECT_STREQ(f.report.field, "src1");  // the indices
  EXPECT_EQ(f.report.byte_offset, 0xFFFFFFFFu);  // 0x1000 + (-4): past UB (saturated to 32 bits)
  EXPECT_EQ(bits_at(core, 9 * 4), before);
}

TEST(PtoLayout, RefusedTtransIsNamedByTheContext) {
  pto::host::Core core;
  pto::Tile<pto::TileType::Vec, float, 16, 16> src;
  pto::Tile<pto::TileType::Vec, float, 16, 16> dst;
  pto::Tile<pto::TileType::Vec, float, 1, 8> tmp;  // 32 B: the transpose needs 1 KB
  core.set_checked(true);
  const pto::RecordEvent e = pto::TTRANS(dst, src, tmp);
  (void)e;
  const pto::Failure f = pto::last_failure();
  EXPECT_EQ(f.status, tilefw::Status::plan_tmp_too_small);
  EXPECT_STREQ(f.instr, "TTRANS");
  EXPECT_STREQ(f.report.field, "tmp");
}

}  // namespace
