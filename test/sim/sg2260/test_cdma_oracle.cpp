// The CDMA data path of the multi-chip simulator against the independent reference of
// cdma_oracle.hpp (written from the rules without reading the simulator): every reduce op on
// every format that allows it, over values that include NaN, infinities, signed zeros and
// subnormals, and a strided destination walk.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cdma_fixture.hpp"
#include "cdma_oracle.hpp"

namespace {
using cdmatest::Cluster;
using tilefw::Status;
namespace cmd = tilefw::cmd;

// Random raw elements of a format, with a share of special values.
uint32_t draw(std::mt19937_64& rng, uint32_t format) {
  const uint64_t r = rng();
  switch (format) {
    case cdma_oracle::kFp32: {
      static const uint32_t kSpecial[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                          0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu};
      if (r % 5 == 0) return kSpecial[(r >> 8) % 8];
      return cdma_oracle::f32_bits(static_cast<float>(static_cast<int32_t>(r >> 16) % 100000) / 37.0f);
    }
    case cdma_oracle::kFp16:
    case cdma_oracle::kBf16: {
      static const uint16_t kHalf[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x83FF, 0x7BFF};
      static const uint16_t kBf[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x7F7F};
      if (r % 5 == 0) return format == cdma_oracle::kFp16 ? kHalf[(r >> 8) % 8] : kBf[(r >> 8) % 8];
      uint16_t v = static_cast<uint16_t>(r >> 20);
      if (format == cdma_oracle::kFp16 && (v & 0x7C00) == 0x7C00) v &= 0xBFFF;  // finite here
      if (format == cdma_oracle::kBf16 && (v & 0x7F80) == 0x7F80) v &= 0xBFFF;
      return v;
    }
    default: return static_cast<uint32_t>(r >> 7);  // INT32, wrapping adds included
  }
}

bool is_nan(uint32_t bits, uint32_t format) {
  if (format == cdma_oracle::kFp32) return (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0;
  if (format == cdma_oracle::kFp16) return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0;
  if (format == cdma_oracle::kBf16) return (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0;
  return false;
}

struct Case {
  uint32_t format;
  uint32_t op;
};

class CdmaOracle : public ::testing::TestWithParam<Case> {};

TEST_P(CdmaOracle, ReduceMatchesTheReference) {
  const Case k = GetParam();
  constexpr uint32_t kN = 4096;
  const uint32_t es = cdma_oracle::element_bytes(k.format);
  std::mt19937_64 rng(0xC0DA + k.format * 16 + k.op);
  Cluster c(2, "ring:2");
  std::vector<uint32_t> src(kN), dst(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    src[i] = draw(rng, k.format);
    dst[i] = draw(rng, k.format);
    cdma_oracle::store(c.ddr(0, i * es), k.format, src[i]);
    cdma_oracle::store(c.ddr(1, 0x100000 + i * es), k.format, dst[i]);
  }
  c.send(0, 1, 0, kN, k.op != cdma_oracle::kNone, k.format);
  c.recv(1, 0, 0x100000, kN, k.op, k.format);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < kN && wrong < 5; ++i) {
    bool nan = false;
    const uint32_t want = cdma_oracle::reduce(k.format, k.op, dst[i], src[i], nan);
    const uint32_t got = cdma_oracle::load(c.ddr(1, 0x100000 + i * es), k.format);
    const bool ok = nan ? is_nan(got, k.format) : got == want;
    if (!ok) ++wrong;
    EXPECT_TRUE(ok) << "element " << i << ": dst 0x" << std::hex << dst[i] << " op in 0x" << src[i] << " -> 0x"
                    << got << ", the reference says 0x" << want << (nan ? " (a NaN)" : "");
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryOpAndFormat, CdmaOracle,
    ::testing::Values(Case{cdma_oracle::kFp32, cdma_oracle::kNone}, Case{cdma_oracle::kFp32, cdma_oracle::kAdd},
                      Case{cdma_oracle::kFp32, cdma_oracle::kMul}, Case{cdma_oracle::kFp32, cdma_oracle::kMax},
                      Case{cdma_oracle::kFp32, cdma_oracle::kMin}, Case{cdma_oracle::kFp16, cdma_oracle::kAdd},
                      Case{cdma_oracle::kFp16, cdma_oracle::kMul}, Case{cdma_oracle::kFp16, cdma_oracle::kMax},
                      Case{cdma_oracle::kFp16, cdma_oracle::kMin}, Case{cdma_oracle::kBf16, cdma_oracle::kAdd},
                      Case{cdma_oracle::kBf16, cdma_oracle::kMul}, Case{cdma_oracle::kBf16, cdma_oracle::kMax},
                      Case{cdma_oracle::kBf16, cdma_oracle::kMin}, Case{cdma_oracle::kInt32, cdma_oracle::kAdd},
                      Case{cdma_oracle::kInt32, cdma_oracle::kMax}, Case{cdma_oracle::kInt32, cdma_oracle::kMin}));

// Element k of a flat send lands on element k of a strided recv, row-major over n, c, h, w.
TEST(CdmaOracleWalk, StridedDestination) {
  Cluster c(2, "ring:2");
  constexpr uint32_t kN = 2 * 3 * 4 * 5;
  for (uint32_t i = 0; i < kN; ++i) cdma_oracle::store(c.ddr(0, i * 4), cdma_oracle::kInt32, 1000 + i);
  c.send(0, 1, 0, kN, false, cmd::kCdmaFormatInt32);
  cmd::CdmaTensor t;
  t.addr = cdmatest::ddr1(0x100000);
  t.format = cmd::kCdmaFormatInt32;
  t.n = 2, t.c = 3, t.h = 4, t.w = 5;
  t.hstride = 7, t.cstride = 40, t.nstride = 130;
  ASSERT_EQ(cmd::cdma_recv(c.on(1, 0), t, cmd::kCdmaReduceNone), Status::ok);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  const std::vector<uint64_t> at = cdma_oracle::walk(2, 3, 4, 5, 130, 40, 7, cdma_oracle::kInt32);
  for (uint32_t i = 0; i < kN; ++i) {
    EXPECT_EQ(cdma_oracle::load(c.ddr(1, 0x100000 + at[i]), cdma_oracle::kInt32), 1000 + i) << "element " << i;
  }
  // A gap between rows is never written.
  EXPECT_EQ(cdma_oracle::load(c.ddr(1, 0x100000 + 5 * 4), cdma_oracle::kInt32), 0u);
}

}  // namespace
