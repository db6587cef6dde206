// TCMP, TCMPS and TSEL through PTO's spellings on the simulated AI Core: every compare mode,
// NaN and -0 among the inputs, with Auto sync and a named Event<Op::TCMP, Op::TSEL>; the
// predicate stored to GM is checked bit by bit (bit j % 8 of byte j / 8 of each row); a refusal
// names its field. References are written here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <pto/host.hpp>

// test/pto/compare_kernel.cpp (also compiled for Cortex-M).
void compare_kernel(float* x, float* w, uint8_t* m, float* z, float* y, pto::CmpMode mode, float scalar,
                    bool named_event);

namespace {

using namespace pto;
using tilefw::Status;

constexpr int kR = 16, kC = 16;

bool holds(float a, float b, CmpMode m) {
  if (std::isnan(a) || std::isnan(b)) return m == CmpMode::NE;
  switch (m) {
    case CmpMode::EQ: return a == b;
    case CmpMode::NE: return a != b;
    case CmpMode::LT: return a < b;
    case CmpMode::GT: return a > b;
    case CmpMode::GE: return a >= b;
    case CmpMode::LE: return a <= b;
  }
  return false;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(PtoCompare, EveryModeBitExactAutoAndNamedEvents) {
  for (const CmpMode mode : {CmpMode::EQ, CmpMode::NE, CmpMode::LT, CmpMode::GT, CmpMode::GE, CmpMode::LE}) {
    for (const bool named : {false, true}) {
      host::Core core;
      float* x = host::gm<float>(kR * kC);
      float* w = host::gm<float>(kR * kC);
      uint8_t* m = host::gm<uint8_t>(kR * 32);
      float* z = host::gm<float>(kR * kC);
      float* y = host::gm<float>(kR * kC);
      for (int i = 0; i < kR * kC; ++i) {
        x[i] = static_cast<float>((i * 7) % 5) - 2.0f;
        w[i] = static_cast<float>((i * 3) % 5) - 2.0f;
      }
      x[3] = std::bit_cast<float>(0x7FC00042u);
      w[40] = std::bit_cast<float>(0xFFC00001u);
      x[41] = -0.0f;
      w[41] = 0.0f;
      std::memset(m, 0xEE, kR * 32);
      compare_kernel(x, w, m, z, y, mode, 0.0f, named);
      ASSERT_EQ(pto::status(), Status::ok);
      EXPECT_EQ(core.npu().pipes().hazard_count(), 0u);
      for (int r = 0; r < kR; ++r) {
        for (int byte = 0; byte < 2; ++byte) {
          uint8_t want = 0;
          for (int k = 0; k < 8; ++k) {
            const int i = r * kC + byte * 8 + k;
            if (holds(x[i], w[i], mode)) want |= static_cast<uint8_t>(1u << k);
          }
          EXPECT_EQ(m[r * 32 + byte], want) << "row " << r << " byte " << byte;
        }
      }
      for (int i = 0; i < kR * kC; ++i) {
        EXPECT_EQ(bits(z[i]), bits(holds(x[i], w[i], mode) ? x[i] : w[i])) << i;
        EXPECT_EQ(bits(y[i]), bits(x[i] < 0.0f ? w[i] : x[i])) << i;
      }
    }
  }
}

TEST(PtoCompare, MismatchedPredicateNamesTheField) {
  host::Core core;
  core.set_checked(true);
  Tile<TileType::Vec, float, kR, kC> a, b;
  Tile<TileType::Vec, uint8_t, kR, 32, BLayout::RowMajor, -1, -1> mask(kR, 3);  // 16 columns: 2 bytes
  TCMP(mask, a, b, CmpMode::EQ);
  const Failure f = pto::last_failure();
  EXPECT_EQ(f.status, Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(f.instr, "TCMP");
  EXPECT_STREQ(f.report.field, "dst.valid_cols");
  EXPECT_EQ(f.report.value, 3u);
  EXPECT_EQ(f.report.limit, 2u);
}

}  // namespace
