// SG2260 simulator, the classes of the real YOLOv5s / ResNet-50 models beyond CONV / PorD,
// bit-exact against a plain reference (plain_reference.hpp): MM normal (lane-split matrix
// multiply, res_add), FP8 in both formats (every code through sAR casts, rounding, overflow,
// an FP8 multiply), add_satu with its shift (YOLOv5s' 2^n) and on floats, taylor_4x = taylor,
// lane_copy / static_bc, DMA tensor broadcast; the costs of MM, CW&BC and broadcast by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "fixture.hpp"
#include "plain_reference.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/views.hpp"

namespace {

using namespace simref;
using namespace simtest;


Status run(host::Machine& m, const uint8_t* data, std::string* msg = nullptr, uint32_t engine = 0) {
  std::string s;
  const Status st = sim::execute_command(m, 0, engine, data, s);
  if (msg != nullptr) *msg = s;
  return st;
}

uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Fills every (c, w) of an h = 1 operand (a matrix2 or a lane-split matrix) with integers.
void fill_rows(const Placed& p, Lcg& r, int lo, int hi) {
  for (uint64_t c = 0; c < p.c; ++c)
    for (uint64_t w = 0; w < p.w; ++w) put(p.at(0, c, 0, w), p.prec, p.sign, r.next(lo, hi));
}

// ---- MM normal -----------------------------------------------------------------------------

// M = 3 rows, K = 2 x 5 (left from lane 62: wraps), N = 70 x 3 (right from lane 10, result
// from lane 0: 70 lanes wrap); f16 operands, f32 result, constant bias, then res_add.
TEST(SimMm, NormalF16LaneSplitWithResAdd) {
  host::Machine m{host::kProfileSg2260};
  const uint64_t M = 3, lc = 2, lw = 5, rc = 70, rw = 3, K = lc * lw, N = rc * rw;
  const Placed L{m, 62, 0x100, kF16, false, lc, 1, lw};
  const Placed R{m, 10, 0x2000, kF16, false, rc, 1, rw};
  const Placed Y{m, 0, 0x9000, kF32, false, rc, 1, rw};
  Lcg r{5};
  for (uint64_t i = 0; i < M; ++i)
    for (uint64_t k = 0; k < K; ++k) put(L.at(i, k / lw, 0, k % lw), kF16, false, r.next(-30, 30) / 8.0);
  for (uint64_t k = 0; k < K; ++k)
    for (uint64_t j = 0; j < N; ++j) put(R.at(k, j / rw, 0, j % rw), kF16, false, r.next(-30, 30) / 16.0);
  Cmd c(CmdClass::sMM, 1);
  cmd::SMmRef v(c.b);
  v.set_opd0_n(M); v.set_opd0_c(lc); v.set_opd0_w(lw); v.set_res0_c(rc); v.set_res0_w(rw); v.set_opd1_w(lw);
  v.set_opt_opd0_prec(kF16); v.set_opt_res0_prec(kF32); v.set_opt_opd2_const(1); v.set_opd2_addr(f32_bits(1.5f));
  v.set_res0_addr(Y.local()); v.set_opd0_addr(L.local()); v.set_opd1_addr(R.local());
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  std::vector<float> first(M * N);
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t i = 0; i < M; ++i)
      for (uint64_t j = 0; j < N; ++j) {
        float acc = 0;
        for (uint64_t k = 0; k < K; ++k)
          acc = std::fmaf(float(get(L.at(i, k / lw, 0, k % lw), kF16, false)), float(get(R.at(k, j / rw, 0, j % rw), kF16, false)), acc);
        float want = acc + 1.5f;
        if (pass == 1) want = want + first[i * N + j];
        const float got = float(get(Y.at(i, j / rw, 0, j % rw), kF32, false));
        ASSERT_EQ(f32_bits(got), f32_bits(want)) << pass << " " << i << " " << j;
        if (pass == 0) first[i * N + j] = got;
      }
    v.set_opt_res_add(1);
    if (pass == 0) {
      ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
    }
  }
  uint64_t cycles = 0, bytes = 0, ops = 0;  // 19 + ceil(70/64) * ceil(3/32) * K * M + 13
  EXPECT_TRUE(sim::command_cost(0, c.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 19u + 2 * 1 * K * M + 13);
  EXPECT_EQ(ops, M * K * N);
  v.set_opt_left_tran(1);
  EXPECT_EQ(run(m, c.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("opt_left_tran"), std::string::npos) << msg;
}

TEST(SimMm, NormalInt8ExactSaturatedToInt16) {
  host::Machine m{host::kProfileSg2260};
  const uint64_t M = 2, lc = 3, lw = 4, rc = 2, rw = 5, K = lc * lw, N = rc * rw;
  const Placed L{m, 0, 0x100, kI8, true, lc, 1, lw};
  const Placed R{m, 4, 0x2000, kI8, true, rc, 1, rw};
  const Placed Y{m, 8, 0x9000, kI16, true, rc, 1, rw};
  for (uint64_t i = 0; i < M; ++i)
    for (uint64_t k = 0; k < K; ++k) put(L.at(i, k / lw, 0, k % lw), kI8, true, i == 0 ? 127 : -3 + int(k));
  for (uint64_t k = 0; k < K; ++k)
    for (uint64_t j = 0; j < N; ++j) put(R.at(k, j / rw, 0, j % rw), kI8, true, j == 0 ? 127 : int(j) - int(k));
  Cmd c(CmdClass::sMM, 1);
  cmd::SMmRef v(c.b);
  v.set_opd0_n(M); v.set_opd0_c(lc); v.set_opd0_w(lw); v.set_res0_c(rc); v.set_res0_w(rw);
  v.set_opt_opd0_prec(kI8); v.set_opt_res0_prec(kI16); v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1);
  v.set_opt_res0_sign(1); v.set_opt_opd2_sign(1); v.set_opt_opd2_const(1); v.set_opd2_addr(0xFFF6);  // bias -10
  v.set_res0_addr(Y.local()); v.set_opd0_addr(L.local()); v.set_opd1_addr(R.local());
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  for (uint64_t i = 0; i < M; ++i)
    for (uint64_t j = 0; j < N; ++j) {
      int64_t s = -10;
      for (uint64_t k = 0; k < K; ++k) s += int64_t(get(L.at(i, k / lw, 0, k % lw), kI8, true)) * int64_t(get(R.at(k, j / rw, 0, j % rw), kI8, true));
      const int64_t want = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
      EXPECT_EQ(get(Y.at(i, j / rw, 0, j % rw), kI16, true), double(want)) << i << " " << j;
    }
  EXPECT_EQ(get(Y.at(0, 0, 0, 0), kI16, true), 32767.0);  // 12 * 127 * 127 - 10 saturates
}

// MM2 nn on integers: int8 x int8, exact sums, an int16 bias constant, saturated to int8 and
// to uint16 results ("matrix2" operands: row r on lane (L + r) % 64, columns alignEU).
TEST(SimMm2, NnInt8ExactSaturated) {
  for (const bool to_u16 : {false, true}) {
    host::Machine m{host::kProfileSg2260};
    const uint64_t M = 70, K = 9, N = 5;
    const Placed L{m, 3, 0x100, kI8, true, M, 1, K};
    const Placed R{m, 0, 0x2000, kI8, true, K, 1, N};
    const Placed Y{m, 9, 0x9000, to_u16 ? kI16 : kI8, !to_u16, M, 1, N};
    Lcg r{to_u16 ? 8u : 9u};
    fill_rows(L, r, -128, 127);
    fill_rows(R, r, -128, 127);
    Cmd c(CmdClass::sMM2, 4);
    cmd::SMm2Ref v(c.b);
    v.set_res0_c(M); v.set_res0_w(N); v.set_opd1_c(K); v.set_opd1_w(N);
    v.set_opt_opd0_prec(kI8); v.set_opt_opd1_prec(kI8); v.set_opt_res0_prec(Y.prec); v.set_opt_opd2_prec(kI16);
    v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_opt_res0_sign(Y.sign); v.set_opt_opd2_sign(1);
    v.set_opt_opd2_const(1); v.set_opd2_addr(0xFF9C);  // bias -100
    v.set_res0_addr(Y.local()); v.set_opd0_addr(L.local()); v.set_opd1_addr(R.local());
    std::string msg;
    ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
    int clamped = 0;
    for (uint64_t i = 0; i < M; ++i)
      for (uint64_t j = 0; j < N; ++j) {
        int64_t acc = -100;
        for (uint64_t k = 0; k < K; ++k) acc += int64_t(get(L.at(0, i, 0, k), kI8, true)) * int64_t(get(R.at(0, k, 0, j), kI8, true));
        const int64_t lo = to_u16 ? 0 : -128, hi = to_u16 ? 65535 : 127;
        const int64_t want = acc < lo ? lo : acc > hi ? hi : acc;
        clamped += want != acc;
        ASSERT_EQ(get(Y.at(0, i, 0, j), Y.prec, Y.sign), double(want)) << i << " " << j;
      }
    EXPECT_GT(clamped, 0);
  }
}

// ---- FP8 -----------------------------------------------------------------------------------

// An sAR cast of `count` elements on lane 0 (alignEU), opd0 at 0, res0 at 0x1000.
void cast(host::Machine& m, uint32_t from, bool from_sign, uint32_t to, uint64_t count, uint32_t round = 0) {
  Cmd c(CmdClass::sAR, 14);
  cmd::SArRef v(c.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(count); v.set_tsk_opd_num(1);
  v.set_opt_opd0_prec(from); v.set_opt_res0_prec(to); v.set_opt_opd0_sign(from_sign); v.set_opd2_n_str(round);
  v.set_opd0_addr(0); v.set_res0_addr(0x1000);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
}

uint8_t* lane0(host::Machine& m, uint32_t off) {
  return m.translate(sg::lmem_region(0).device_base + off, 1).value();
}

TEST(SimFp8, EveryCodeOfBothFormatsToF32) {
  for (const bool e4m3 : {true, false}) {
    host::Machine m{host::kProfileSg2260};
    for (int i = 0; i < 256; ++i) *lane0(m, static_cast<uint32_t>(i)) = static_cast<uint8_t>(i);
    cast(m, kFp8, e4m3, kF32, 256);
    for (int i = 0; i < 256; ++i) {
      const double want = fp8_value(static_cast<uint8_t>(i), e4m3);
      const double got = get(lane0(m, 0x1000 + 4 * i), kF32, true);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << e4m3 << " code " << i;
      } else {
        EXPECT_EQ(got, want) << e4m3 << " code " << i;
      }
    }
  }
}

TEST(SimFp8, F32ToBothFormatsRoundsToNearestEvenAndOverflows) {
  // ties, subnormals, the top of each range and beyond, signed zero
  const std::vector<float> vals = {0.0f, -0.0f, 1.0f, 1.0625f, 1.1875f, 1.125f, -2.75f, 0.001953125f, 0.0029296875f,
                                   3e-5f, 448.0f, 464.0f, 465.0f, 500.0f, 57344.0f, 61439.0f, 61440.0f, -1e6f,
                                   0.3f, -7.77f, 15.5f, 1.5e-5f, INFINITY};
  for (const bool e4m3 : {true, false}) {
    host::Machine m{host::kProfileSg2260};
    std::memcpy(lane0(m, 0), vals.data(), vals.size() * 4);
    Cmd c(CmdClass::sAR, 14);
    cmd::SArRef v(c.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(vals.size()); v.set_tsk_opd_num(1);
    v.set_opt_opd0_prec(kF32); v.set_opt_res0_prec(kFp8); v.set_opt_opd0_sign(e4m3);  // sAR: res0 format by opd0's sign
    v.set_res0_addr(0x1000);
    std::string msg;
    ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
    for (size_t i = 0; i < vals.size(); ++i) {
      EXPECT_EQ(*lane0(m, 0x1000 + static_cast<uint32_t>(i)), fp8_code(vals[i], e4m3)) << e4m3 << " value " << vals[i];
    }
  }
}

TEST(SimFp8, MulE4M3ByE5M2ToF16) {
  host::Machine m{host::kProfileSg2260};
  for (int i = 0; i < 64; ++i) {
    *lane0(m, i) = static_cast<uint8_t>(i * 3 + 1);        // E4M3 operand
    *lane0(m, 0x100 + i) = static_cast<uint8_t>(i * 5 + 2);  // E5M2 operand
  }
  Cmd c(CmdClass::AR, 0);
  cmd::TiuLongRef v(c.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(64); v.set_tsk_opd_num(2);
  v.set_opt_opd0_prec(kFp8); v.set_opt_opd1_prec(kFp8); v.set_opt_res0_prec(kF16);
  v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(0);
  v.set_opd0_addr(0); v.set_opd1_addr(0x100); v.set_res0_addr(0x1000);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  for (int i = 0; i < 64; ++i) {
    uint8_t want[2];
    put(want, kF16, false, fp8_value(*lane0(m, i), true) * fp8_value(*lane0(m, 0x100 + i), false));
    EXPECT_EQ(std::memcmp(want, lane0(m, 0x1000 + 2 * i), 2), 0) << i;
  }
}

// ---- round modes 2..4 (toward zero, down, up): the real YOLOv5s casts (3) and divs (2) -----

// The f16 value a directed mode gives: among every finite f16, the nearest on the asked side.
double f16_directed(double v, uint32_t mode) {
  double lo = -INFINITY, hi = INFINITY;  // largest <= v, smallest >= v
  for (uint32_t b = 0; b < 65536; ++b) {
    uint8_t e[2] = {static_cast<uint8_t>(b), static_cast<uint8_t>(b >> 8)};
    const double x = get(e, kF16, false);
    if (!std::isfinite(x)) continue;
    if (x <= v && x > lo) lo = x;
    if (x >= v && x < hi) hi = x;
  }
  if (mode == 3) return lo;
  if (mode == 4) return hi;
  return v < 0 ? hi : lo;
}

TEST(SimRound, CastsAndDivToward0DownUp) {
  const std::vector<float> vals = {1.0001f, -1.0001f, 2.5f, -2.5f, 0.1f, -0.1f, 70000.0f, -3.0f, 1e-8f};
  for (uint32_t mode : {2u, 3u, 4u}) {
    host::Machine m{host::kProfileSg2260};
    std::memcpy(lane0(m, 0), vals.data(), vals.size() * 4);
    cast(m, kF32, true, kF16, vals.size(), mode);
    for (size_t i = 0; i < vals.size(); ++i) {
      const double want = std::fabs(vals[i]) > 65504 && ((mode == 4 && vals[i] > 0) || (mode == 3 && vals[i] < 0))
                              ? std::copysign(INFINITY, vals[i])
                              : f16_directed(vals[i], mode);
      EXPECT_EQ(get(lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), kF16, false), want) << mode << " " << vals[i];
    }
    cast(m, kF32, true, kI16, vals.size(), mode);
    for (size_t i = 0; i < vals.size(); ++i) {
      double r = mode == 2 ? std::trunc(vals[i]) : mode == 3 ? std::floor(vals[i]) : std::ceil(vals[i]);
      r = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
      EXPECT_EQ(get(lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), kI16, true), r) << mode << " " << vals[i];
    }
  }
  // div f16 (YOLOv5s: 1 / x with round mode 2)
  host::Machine m{host::kProfileSg2260};
  const std::vector<double> xs = {3, -3, 7, 0.3, 1.5, -11};
  for (size_t i = 0; i < xs.size(); ++i) put(lane0(m, 2 * static_cast<uint32_t>(i)), kF16, false, xs[i]);
  Cmd c(CmdClass::sAR, 12);
  cmd::SArRef v(c.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(xs.size()); v.set_tsk_opd_num(2);
  v.set_opt_opd0_prec(kF16); v.set_opt_opd1_prec(kF16); v.set_opt_res0_prec(kF16); v.set_opt_opd0_const(1);
  v.set_opd0_addr(0x3c00); v.set_opd1_addr(0); v.set_opd2_n_str(2); v.set_res0_addr(0x1000);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = get(lane0(m, 2 * static_cast<uint32_t>(i)), kF16, false);
    EXPECT_EQ(get(lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), kF16, false), f16_directed(1.0 / x, 2)) << x;
  }
  v.set_opd2_n_str(5);
  EXPECT_EQ(run(m, c.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("round mode 5"), std::string::npos) << msg;
}

// ---- add_satu ------------------------------------------------------------------------------

// YOLOv5s' exp: res0(int16) = sat((n + 15) << 10) with n int8, opd1 const 15, opd2 const 10.
TEST(SimAddSatu, Int16ShiftedAsYolov5sExp) {
  host::Machine m{host::kProfileSg2260};
  const std::vector<int8_t> n = {-15, -1, 0, 1, 15, 16, 17, 100, -128, -20};
  std::memcpy(lane0(m, 0), n.data(), n.size());
  Cmd c(CmdClass::sAR, 15);
  cmd::SArRef v(c.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(n.size()); v.set_tsk_opd_num(3);
  v.set_opt_opd0_prec(kI8); v.set_opt_opd1_prec(kI16); v.set_opt_res0_prec(kI16);
  v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_opt_opd1_const(1); v.set_opt_opd2_const(1);
  v.set_opd1_addr(0x3f31000f); v.set_opd2_addr(0xa); v.set_opd2_n_str(1); v.set_res0_addr(0x1000);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  for (size_t i = 0; i < n.size(); ++i) {
    const int64_t s = (int64_t(n[i]) + 15) * 1024;
    EXPECT_EQ(get(lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), kI16, true), double(s > 32767 ? 32767 : s < -32768 ? -32768 : s)) << int(n[i]);
  }
  // a negative shift: right, half away from zero (round mode 1): (n + 15) / 4
  v.set_opd2_addr(0xFE);
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  for (size_t i = 0; i < n.size(); ++i) {
    EXPECT_EQ(get(lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), kI16, true), std::round((n[i] + 15) / 4.0)) << int(n[i]);
  }
}

TEST(SimAddSatu, FloatResultsClampToTheFiniteRange) {
  host::Machine m{host::kProfileSg2260};
  const std::vector<float> a = {60000.0f, -60000.0f, 1.0f, 65504.0f, INFINITY};
  std::memcpy(lane0(m, 0), a.data(), a.size() * 4);
  Cmd c(CmdClass::sAR, 15);
  cmd::SArRef v(c.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(a.size()); v.set_tsk_opd_num(2);
  v.set_opt_opd0_prec(kF32); v.set_opt_opd1_prec(kF32); v.set_opt_res0_prec(kF16);
  v.set_opt_opd1_const(1); v.set_opd1_addr(f32_bits(-a[0] < 0 ? 10000.0f : 0.0f)); v.set_res0_addr(0x1000);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
  const std::vector<double> want = {65504, -50000, 10001, 65504, 65504};
  for (size_t i = 0; i < a.size(); ++i) {
    uint8_t w[2];
    put(w, kF16, false, want[i]);
    EXPECT_EQ(std::memcmp(w, lane0(m, 0x1000 + 2 * static_cast<uint32_t>(i)), 2), 0) << i;
  }
}

// ---- SFU taylor_4x, CW&BC lane_copy / static_bc ---------------------------------------------

TEST(SimSfu, Taylor4xComputesTaylorsPolynomial) {
  host::Machine m{host::kProfileSg2260};
  for (uint32_t lane = 0; lane < 4; ++lane) {
    for (int i = 0; i < 40; ++i) put(m.translate(sg::lmem_region(0).device_base + lane * sg::kLaneBytes + 2 * i, 1).value(), kF16, false, (i - 20) / 16.0 + lane);
    for (int j = 0; j < 7; ++j) put(m.translate(sg::lmem_region(0).device_base + lane * sg::kLaneBytes + 0x800 + 2 * j, 1).value(), kF16, false, 1.0 / (j + 1 + lane));
  }
  std::vector<uint8_t> out[2];
  for (const uint32_t eu : {12u, 13u}) {
    Cmd c(CmdClass::sSFU, eu);
    cmd::SSfuRef v(c.b);
    v.set_res0_n(1); v.set_res0_c(4); v.set_res0_h(1); v.set_res0_w(40); v.set_opt_opd0_prec(kF16); v.set_opt_res0_prec(kF16);
    v.set_opd1_n(7); v.set_opd1_addr(0x800); v.set_res0_addr(0x1000);
    std::string msg;
    ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
    for (uint32_t lane = 0; lane < 4; ++lane) {
      const uint8_t* p = m.translate(sg::lmem_region(0).device_base + lane * sg::kLaneBytes + 0x1000, 80).value();
      out[eu - 12].insert(out[eu - 12].end(), p, p + 80);
      for (int i = 0; i < 40; ++i) {  // Horner in double, one rounding (the taylor decision)
        const double x = get(m.translate(sg::lmem_region(0).device_base + lane * sg::kLaneBytes + 2 * i, 1).value(), kF16, false);
        double y = 0;
        for (int j = 6; j >= 0; --j) y = y * x + get(m.translate(sg::lmem_region(0).device_base + lane * sg::kLaneBytes + 0x800 + 2 * j, 1).value(), kF16, false);
        uint8_t w[2];
        put(w, kF16, false, static_cast<float>(y));
        if (std::fabs(y) < 60000) {
          EXPECT_EQ(std::memcmp(w, p + 2 * i, 2), 0) << eu << " lane " << lane << " i " << i;
        }
      }
    }
  }
  EXPECT_EQ(out[0], out[1]);
}

TEST(SimCw, LaneCopyAndStaticBc) {
  host::Machine m{host::kProfileSg2260};
  const Placed src{m, 0, 0x4900, kF16, false, 32, 3, 5};
  const Placed dst{m, 32, 0x8000, kF16, false, 32, 3, 5};
  Lcg r{3};
  for (uint64_t c = 0; c < 32; ++c)
    for (uint64_t h = 0; h < 3; ++h)
      for (uint64_t w = 0; w < 5; ++w) put(src.at(0, c, h, w), kF16, false, r.next(-99, 99) / 4.0);
  Cmd lc(CmdClass::sCW_sBC, 2);
  cmd::SCwBcRef v(lc.b);
  v.set_res0_n(1); v.set_res0_c(32); v.set_res0_h(3); v.set_res0_w(5); v.set_opd0_c(32); v.set_opd0_w(5);
  v.set_opt_res0_prec(kF16); v.set_res0_addr(dst.local()); v.set_opd0_addr(src.local());
  std::string msg;
  ASSERT_EQ(run(m, lc.b, &msg), Status::ok) << msg;
  for (uint64_t c = 0; c < 32; ++c)
    for (uint64_t h = 0; h < 3; ++h)
      for (uint64_t w = 0; w < 5; ++w) ASSERT_EQ(std::memcmp(src.at(0, c, h, w), dst.at(0, c, h, w), 2), 0);
  // static_bc: 7 coefficients of static memory (SMEM offset 0x580) to 64 lanes, opd0_c = 64
  // as in YOLOv5s; LMEM lane 0 at the same offset holds other values and is not read.
  const Placed lane0{m, 0, 0x580, kF16, false, 1, 1, 7};
  const Placed all{m, 0, 0x38200, kF16, false, 64, 1, 7};
  uint8_t* smem = m.translate(sg::smem_region(0).device_base, sg::kSmemBytes).value();
  for (uint64_t w = 0; w < 7; ++w) {
    put(smem + 0x580 + 2 * w, kF16, false, 1.0 / (w + 1));
    put(lane0.at(0, 0, 0, w), kF16, false, -7.0);
  }
  Cmd bc(CmdClass::sCW_sBC, 4);
  cmd::SCwBcRef b(bc.b);
  b.set_res0_n(1); b.set_res0_c(64); b.set_res0_h(1); b.set_res0_w(7); b.set_opd0_c(64); b.set_opd0_w(7);
  b.set_opt_res0_prec(kF16); b.set_res0_addr(0x38200); b.set_opd0_addr(0x580);
  ASSERT_EQ(run(m, bc.b, &msg), Status::ok) << msg;
  for (uint64_t c = 0; c < 64; ++c)
    for (uint64_t w = 0; w < 7; ++w) ASSERT_EQ(std::memcmp(smem + 0x580 + 2 * w, all.at(0, c, 0, w), 2), 0) << c;
  uint64_t cycles = 0, bytes = 0, ops = 0;  // AR body (eu 32 for f16) + 10
  EXPECT_TRUE(sim::command_cost(0, bc.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 1u * 1 * 1 + 10);
  EXPECT_TRUE(sim::command_cost(0, lc.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 1u * 1 * 1 + 10);
}

// ---- DMA tensor broadcast ------------------------------------------------------------------

struct Nchw {
  uint64_t n, c, h, w;
};

// A DMA tensor copy of int16 (data format 3) from DDR region 1 at offset 0 into the LMEM tensor
// `dst`: src sizes and strides and dst sizes in elements, dst n and c strides those of its
// placement, h stride `dst_hstride`, w stride 1; LMEM lanes whose `lane_mask` bit is 0 are not
// written.
void set_int16_ddr_to_lmem(const cmd::DmaTensorRef& v, Nchw src_size, Nchw src_stride, const Placed& dst,
                           Nchw dst_size, uint64_t dst_hstride, uint64_t lane_mask) {
  v.set_src_data_format(3);
  v.set_src_nsize(src_size.n); v.set_src_csize(src_size.c); v.set_src_hsize(src_size.h); v.set_src_wsize(src_size.w);
  v.set_src_nstride(src_stride.n); v.set_src_cstride(src_stride.c); v.set_src_hstride(src_stride.h);
  v.set_src_wstride(src_stride.w);
  v.set_dst_nsize(dst_size.n); v.set_dst_csize(dst_size.c); v.set_dst_hsize(dst_size.h); v.set_dst_wsize(dst_size.w);
  v.set_dst_nstride(dst.nstride()); v.set_dst_cstride(dst.cstride()); v.set_dst_hstride(dst_hstride); v.set_dst_wstride(1);
  const uint64_t src = sg::make_dma_address(1, 0), da = sg::make_dma_address(sg::kTagLmem, dst.local());
  v.set_src_start_addr_l32(static_cast<uint32_t>(src)); v.set_src_start_addr_h13(src >> 32);
  v.set_dst_start_addr_l32(static_cast<uint32_t>(da)); v.set_dst_start_addr_h13(da >> 32);
  v.set_localmem_mask_l32(lane_mask & 0xFFFFFFFFu); v.set_localmem_mask_h32(lane_mask >> 32);
}

TEST(SimDmaBroadcast, OneChannelToLanesWithMask) {
  host::Machine m{host::kProfileSg2260};
  ASSERT_EQ(m.add_region(sg::ddr_region(1, 0, 65536)), Status::ok);
  uint8_t* ddr = m.translate(sg::kDdrWindowBase + sg::make_dma_address(1, 0), 1).value();
  for (int i = 0; i < 2 * 2 * 3; ++i) std::memcpy(ddr + 2 * i, &i, 2);  // n 2, h 2, w 3 of int16
  const Placed dst{m, 3, 0x100, kI16, true, 70, 2, 3};
  Cmd c(CmdClass::dma_tensor, 3);
  cmd::DmaTensorRef v(c.b);
  set_int16_ddr_to_lmem(v, {2, 1, 2, 3}, {6, 6, 3, 1}, dst, {2, 70, 2, 3}, 3, ~(uint64_t{1} << 10));  // lane 10 off
  for (uint64_t n = 0; n < 2; ++n) put(dst.at(n, 7, 0, 0), kI16, true, -1);  // channel 7 = lane 10
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg, 1), Status::ok) << msg;
  for (uint64_t n = 0; n < 2; ++n)
    for (uint64_t ch = 0; ch < 70; ++ch)
      for (uint64_t h = 0; h < 2; ++h)
        for (uint64_t w = 0; w < 3; ++w) {
          const double want = (ch + 3) % 64 == 10 ? (h == 0 && w == 0 ? -1 : 0) : double(n * 6 + h * 3 + w);
          ASSERT_EQ(get(dst.at(n, ch, h, w), kI16, true), want) << n << " " << ch << " " << h << " " << w;
        }
  uint64_t cycles = 0, bytes = 0, ops = 0;  // every dst element: 2 * 70 * 2 * 3 int16
  EXPECT_TRUE(sim::command_cost(1, c.b, cycles, bytes, ops, sim::TimingModel::v1));
  EXPECT_EQ(bytes, 2u * 70 * 2 * 3 * 2);
  EXPECT_EQ(cycles, 100u + (bytes + 67) / 68);
  v.set_src_csize(2);
  EXPECT_EQ(run(m, c.b, &msg, 1), Status::cmd_bad_field);
  EXPECT_NE(msg.find("src_csize"), std::string::npos) << msg;
}


// ---- DMA tensor with differing shapes --------------------------------------------------------

// A copy reshaping src (1, 1, 4, 6) int16 in DDR at w stride 2 into dst (1, 3, 2, 4) in LMEM:
// dst element i of the walk takes src element i (a dst row of 4 meets two src rows of 6: the
// pieces), the masked lane's channel keeps its bytes; then a fill writes every unmasked element.
TEST(SimDmaReshape, DstWalkTakesTheSrcWalkAcrossRowsWithMask) {
  host::Machine m{host::kProfileSg2260};
  ASSERT_EQ(m.add_region(sg::ddr_region(1, 0, 65536)), Status::ok);
  uint8_t* ddr = m.translate(sg::kDdrWindowBase + sg::make_dma_address(1, 0), 1).value();
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x) {
      const int16_t value = static_cast<int16_t>(y * 6 + x + 1);
      std::memcpy(ddr + 2 * (y * 13 + x * 2), &value, 2);  // h stride 13, w stride 2 (elements)
    }
  const Placed dst{m, 4, 0x200, kI16, true, 3, 2, 4};
  Cmd c(CmdClass::dma_tensor, 0);
  cmd::DmaTensorRef v(c.b);
  set_int16_ddr_to_lmem(v, {1, 1, 4, 6}, {52, 52, 13, 2}, dst, {1, 3, 2, 4}, 4, ~(uint64_t{1} << 5));  // lane 5 off
  for (uint64_t h = 0; h < 2; ++h)
    for (uint64_t w = 0; w < 4; ++w) put(dst.at(0, 1, h, w), kI16, true, -1);  // channel 1 = lane 5
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg, 1), Status::ok) << msg;
  for (uint64_t ch = 0; ch < 3; ++ch)
    for (uint64_t h = 0; h < 2; ++h)
      for (uint64_t w = 0; w < 4; ++w) {
        const double want = ch == 1 ? -1 : double(ch * 8 + h * 4 + w + 1);
        ASSERT_EQ(get(dst.at(0, ch, h, w), kI16, true), want) << ch << " " << h << " " << w;
      }
  v.set_fill_constant_en(1);
  v.set_constant_value(7);
  ASSERT_EQ(run(m, c.b, &msg, 1), Status::ok) << msg;
  for (uint64_t ch = 0; ch < 3; ++ch)
    for (uint64_t h = 0; h < 2; ++h)
      for (uint64_t w = 0; w < 4; ++w) ASSERT_EQ(get(dst.at(0, ch, h, w), kI16, true), ch == 1 ? -1 : 7) << ch << " " << h << " " << w;
}

}  // namespace
