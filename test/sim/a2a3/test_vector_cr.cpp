// Correct rounding of the simulator's transcendentals (docs/a2a3-vector-semantics.md section 6.2,
// Rule: correctly rounded transcendentals), driven
// through issue_once on the host simulator and compared bit for bit with the independent
// reference of cr_reference.hpp: the audit's hard cases (mpmath values), every f16 input, whole
// f32 binades and a random 2^24 f32 sample. NaN results must be NaN (the unit canonicalises).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "a2a3/vector_unit.hpp"
#include "cr_reference.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

using namespace tilefw;
using desc::UnaryOp;

namespace {

struct Sim {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3VectorUnit vu{m};
  issue::VectorUnit unit{};
  uint8_t* ub = *m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
};

constexpr uint32_t kOut = chip::a2a3::kUbBytes / 2;  // inputs at UB 0, results from here

// One counter-mode issue of `op` over n elements of `dt` already in UB 0.
void issue_unary(Sim& s, UnaryOp op, DType dt, uint32_t n) {
  desc::UnaryDesc d{};
  d.op = op;
  d.mask_mode = desc::MaskMode::count;
  d.vector_count = n;
  d.repeat = 0;
  d.dst.offset = kOut;
  ASSERT_EQ(issue::issue_once(s.unit, d, dt), Status::ok);
}

// Runs `op` on f32 inputs from `next` (count of them), in batches, checking each result
// against `ref`. Returns the number of mismatches (the first few are printed).
uint64_t sweep_f32(Sim& s, UnaryOp op, uint64_t count, const std::function<uint32_t()>& next,
                   const std::function<double(double)>& ref) {
  constexpr uint32_t kBatch = kOut / 4;
  std::vector<uint32_t> in(kBatch);
  uint64_t bad = 0;
  for (uint64_t done = 0; done < count;) {
    const auto n = static_cast<uint32_t>(count - done < kBatch ? count - done : kBatch);
    for (uint32_t i = 0; i < n; ++i) in[i] = next();
    std::memcpy(s.ub, in.data(), n * 4);
    issue_unary(s, op, DType::f32, n);
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t got = 0;
      std::memcpy(&got, s.ub + kOut + 4 * i, 4);
      const double want = ref(std::bit_cast<float>(in[i]));
      const auto want_bits = std::bit_cast<uint32_t>(static_cast<float>(want));
      const bool ok = std::isnan(want) ? (got & 0x7FFFFFFFu) > 0x7F800000u : got == want_bits;
      if (!ok && ++bad <= 5) {
        std::printf("%s f32 x=0x%08x: sim 0x%08x, correctly rounded 0x%08x\n", desc::op_name(op), in[i], got, want_bits);
      }
    }
    done += n;
  }
  return bad;
}

// Builds without the exhaustive option (sanitizers) take every 8th float of a binade and a
// 2^21 random sample; the default host build takes every float and 2^24.
constexpr uint32_t kBinadeStride = TILEFW_EXHAUSTIVE ? 1 : 8;
constexpr uint64_t kSample = uint64_t{1} << (TILEFW_EXHAUSTIVE ? 24 : 21);

// Every kBinadeStride-th float in [first, first + count) (bit patterns).
uint64_t binade(Sim& s, UnaryOp op, uint32_t first, uint32_t count, const std::function<double(double)>& ref) {
  uint32_t b = first;
  return sweep_f32(s, op, count / kBinadeStride, [&b] { return (b += kBinadeStride) - kBinadeStride; }, ref);
}

double cr_exp(double x) { return cr::exp_rn(x, cr::kF32); }
double cr_log(double x) { return cr::log_rn(x, cr::kF32); }
double cr_rsqrt(double x) { return cr::rsqrt_rn(x, cr::kF32); }

}  // namespace

// The reference itself against values the audit computed with mpmath (50 digits).
TEST(VectorCr, ReferenceAgreesWithMpmath) {
  EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(cr_log(std::bit_cast<float>(0x3c413d3au)))), 0xc08e158fu);
  EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(cr_exp(std::bit_cast<float>(0xc16912cdu)))), 0x34fd331bu);
  EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(cr_rsqrt(std::bit_cast<float>(0x013a18e3u)))), 0x5e96209eu);
  // The series path directly (the double window decides most inputs on its own).
  EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(cr::round_to(cr::log_q(std::bit_cast<float>(0x41178febu)), cr::kF32))),
            0x400fe5e7u);
  EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(cr::round_to(cr::exp_q(std::bit_cast<float>(0xc16912cdu)), cr::kF32))),
            0x34fd331bu);
}

// Inputs whose double-rounded result was wrong (found by the simulator's audit); expected values
// from mpmath.
TEST(VectorCr, AuditHardCases) {
  struct Case {
    uint32_t x, want;
  };
  const Case ln[] = {{0x0dc8bba4, 0xc289bac4}, {0x111c87f8, 0xc28085df}, {0x1f116ab8, 0xc233b53e},
                     {0x2c4c24b7, 0xc1d48710}, {0x38dcbe38, 0xc1128ba4}, {0x3bf86ef0, 0xc09c399e},
                     {0x3c413d3a, 0xc08e158f}, {0x41178feb, 0x400fe5e7}, {0x4665a9a6, 0x41198725},
                     {0x4c5d65a5, 0x418f034b}, {0x4d604ebe, 0x419a352c}, {0x5ee8984e, 0x422e4a21},
                     {0x65d890d3, 0x4254d1f9}, {0x66a8c860, 0x42595e46}, {0x6f31a8ec, 0x42845a89},
                     {0x79e7ec37, 0x42a1ffb7}};
  std::vector<Case> rsqrt;
  for (uint32_t e = 1; e <= 0x33; ++e) rsqrt.push_back({(e << 24) | 0x3a18e3u, 0x5e96209eu - (e - 1) * 0x800000u});
  const Case ex[] = {{0xc16912cd, 0x34fd331b}};
  Sim s;
  auto check = [&](UnaryOp op, const Case* c, size_t n) {
    for (size_t i = 0; i < n; ++i) std::memcpy(s.ub + 4 * i, &c[i].x, 4);
    issue_unary(s, op, DType::f32, static_cast<uint32_t>(n));
    for (size_t i = 0; i < n; ++i) {
      uint32_t got = 0;
      std::memcpy(&got, s.ub + kOut + 4 * i, 4);
      EXPECT_EQ(got, c[i].want) << desc::op_name(op) << " x=0x" << std::hex << c[i].x;
    }
  };
  check(UnaryOp::vln, ln, std::size(ln));
  check(UnaryOp::vrsqrt, rsqrt.data(), rsqrt.size());
  check(UnaryOp::vexp, ex, std::size(ex));
}

// f16: all 65536 inputs of every correctly rounded unary op.
TEST(VectorCr, F16EveryInput) {
  Sim s;
  struct Op {
    UnaryOp op;
    double (*ref)(double);
  };
  const Op ops[] = {
      {UnaryOp::vexp, [](double x) { return cr::exp_rn(x, cr::kF16); }},
      {UnaryOp::vln, [](double x) { return cr::log_rn(x, cr::kF16); }},
      {UnaryOp::vrsqrt, [](double x) { return cr::rsqrt_rn(x, cr::kF16); }},
      {UnaryOp::vsqrt, [](double x) { return std::isnan(x) || x < 0 ? NAN : cr::round_to(std::sqrt(x), cr::kF16); }},
      {UnaryOp::vrec, [](double x) {  // 1/x in binary128 is within 2^-112: exact enough for half
         if (std::isnan(x)) return x;
         if (x == 0 || std::isinf(x)) return 1.0 / x;
         return cr::round_to(cr::Q(1) / cr::Q(x), cr::kF16);
       }},
  };
  constexpr uint32_t kBatch = 32768;  // two issues: 64 KB of inputs each
  for (const Op& o : ops) {
    uint64_t bad = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
      if (i % kBatch == 0) {
        for (uint32_t k = 0; k < kBatch; ++k) {
          const auto h = static_cast<uint16_t>(i + k);
          std::memcpy(s.ub + 2 * k, &h, 2);
        }
        issue_unary(s, o.op, DType::f16, kBatch);
      }
      uint16_t got = 0;
      std::memcpy(&got, s.ub + kOut + 2 * (i % kBatch), 2);
      const double x = to_float(half{static_cast<uint16_t>(i)});
      const double want = o.ref(x);
      const uint16_t want_bits = to_half(static_cast<float>(want)).bits;  // exact: a half value
      const bool ok = std::isnan(want) ? (got & 0x7FFFu) > 0x7C00u : got == want_bits;
      if (!ok && ++bad <= 5) {
        ADD_FAILURE() << desc::op_name(o.op) << " f16 x=0x" << std::hex << i << ": sim 0x" << got << ", want 0x" << want_bits;
      }
    }
    EXPECT_EQ(bad, 0u) << desc::op_name(o.op);
  }
}

// f32: whole binades where the results are hardest (around 1, overflow and underflow,
// subnormal inputs); rsqrt over [1, 4) covers every significand with both exponent parities.
TEST(VectorCr, F32Binades) {
  Sim s;
  constexpr uint32_t kBinade = 1u << 23;
  const uint32_t one = 0x3F800000u, two = 0x40000000u, half = 0x3F000000u;
  const uint32_t sixty_four = 0x42800000u, neg_one = 0xBF800000u, neg_sixty_four = 0xC2800000u;
  uint64_t bad = 0;
  bad += binade(s, UnaryOp::vexp, one, kBinade, cr_exp);
  bad += binade(s, UnaryOp::vexp, neg_one, kBinade, cr_exp);
  bad += binade(s, UnaryOp::vexp, sixty_four, kBinade, cr_exp);      // overflow at 88.72
  bad += binade(s, UnaryOp::vexp, neg_sixty_four, kBinade, cr_exp);  // subnormal results and 0
  bad += binade(s, UnaryOp::vln, half, kBinade, cr_log);
  bad += binade(s, UnaryOp::vln, one, kBinade, cr_log);
  bad += binade(s, UnaryOp::vln, 1, kBinade - 1, cr_log);  // subnormal inputs
  bad += binade(s, UnaryOp::vln, 0x71800000u, kBinade, cr_log);  // 2^100
  bad += binade(s, UnaryOp::vrsqrt, one, kBinade, cr_rsqrt);
  bad += binade(s, UnaryOp::vrsqrt, two, kBinade, cr_rsqrt);
  bad += binade(s, UnaryOp::vrsqrt, 1, kBinade - 1, cr_rsqrt);  // subnormal inputs
  EXPECT_EQ(bad, 0u);
}

// f32: kSample random bit patterns (every sign, exponent, NaN and infinity included) per op.
TEST(VectorCr, F32RandomSample) {
  Sim s;
  std::mt19937 rng(20240611);
  auto next = [&rng] { return static_cast<uint32_t>(rng()); };
  uint64_t bad = 0;
  bad += sweep_f32(s, UnaryOp::vexp, kSample, next, cr_exp);
  bad += sweep_f32(s, UnaryOp::vln, kSample, next, cr_log);
  bad += sweep_f32(s, UnaryOp::vrsqrt, kSample, next, cr_rsqrt);
  // sqrt and reciprocal are IEEE operations: a smaller sample guards the wiring.
  bad += sweep_f32(s, UnaryOp::vsqrt, kSample / 16, next, [](double x) {
    return std::isnan(x) || x < 0 ? NAN : static_cast<double>(static_cast<float>(std::sqrt(x)));  // 53 >= 2*24+2
  });
  bad += sweep_f32(s, UnaryOp::vrec, kSample / 16, next, [](double x) {
    return static_cast<double>(static_cast<float>(1.0 / x));  // 53 >= 2*24+2: one correct rounding
  });
  EXPECT_EQ(bad, 0u);
}
