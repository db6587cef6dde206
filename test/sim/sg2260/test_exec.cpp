// SG2260 simulator, functional execution (host only): bit-exact results of every class and
// operation the simulator executes (DMA tensor / NC-transpose / general, long AR and MM2,
// sMM2 nt/tt, every supported AR eu, CW&BC, SFU rsqrt), explicit unsupported Statuses naming
// class and eu, and the contract between validation and execution: for every executed class,
// an operand address that validation accepts executes, one it rejects would fault, and the
// runtime rejects it before any engine starts.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "sg2260/exec_common.hpp"
#include "sg2260/sim.hpp"
#include "fixture.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/rt/runtime.hpp"

namespace {

using tilefw::ConstByteSpan;
namespace rt = tilefw::rt;
using namespace simtest;

// ---- DMA ---------------------------------------------------------------------------------

TEST(SimExec, GeneralCopiesFlatAcrossLanesAndFills) {
  Bench b;
  for (uint32_t i = 0; i < 40; ++i) *b.ddr(i) = static_cast<uint8_t>(i + 1);
  Cmd c(CmdClass::dma_general, 0);
  cmd::DmaCommonRef d(c.b);
  d.set_src_data_format(0);
  d.set_src_cstride(40);  // 40 int8, crossing from lane 2's last 16 bytes into lane 3
  dma_addrs(d, ddr1(0), kLmem | ((2u << 18) | (sg::kLaneBytes - 16)));
  ASSERT_EQ(b.exec(Engine::gdma, c.b), Status::ok);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(*b.lm(2, sg::kLaneBytes - 16 + i), i + 1);
  for (uint32_t i = 16; i < 40; ++i) EXPECT_EQ(*b.lm(3, i - 16), i + 1);
  // fill_constant_en: 3 f32 of constant_value into DDR.
  Cmd f(CmdClass::dma_general, 0);
  cmd::DmaCommonRef g(f.b);
  g.set_src_data_format(2);
  g.set_fill_constant_en(1);
  g.set_constant_value(std::bit_cast<uint32_t>(-2.5f));
  g.set_src_cstride(3);
  dma_addrs(g, 0, ddr1(0x100));
  ASSERT_EQ(b.exec(Engine::gdma, f.b), Status::ok);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(b.get<float>(b.ddr(0x100 + 4 * i)), -2.5f);
  EXPECT_EQ(b.get<uint32_t>(b.ddr(0x10C)), 0u);
}

TEST(SimExec, TensorNcTranspose) {
  Bench b;
  // src n 2 x c 3 x h 1 x w 2 f16 bits 100 + (n*3 + c)*2 + w, contiguous in DDR.
  for (uint16_t i = 0; i < 12; ++i) {
    const uint16_t v = static_cast<uint16_t>(100 + i);
    std::memcpy(b.ddr(2 * i), &v, 2);
  }
  Cmd c(CmdClass::dma_tensor, 1);
  cmd::DmaCommonRef d(c.b);
  d.set_src_data_format(1);
  d.set_src_nsize(2); d.set_src_csize(3); d.set_src_hsize(1); d.set_src_wsize(2);
  d.set_src_nstride(6); d.set_src_cstride(2); d.set_src_hstride(2); d.set_src_wstride(1);
  d.set_dst_nstride(8); d.set_dst_cstride(0); d.set_dst_hstride(2); d.set_dst_wstride(1);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
  dma_addrs(d, ddr1(0), kLmem | (5u << 18) | 0x40);
  ASSERT_EQ(b.exec(Engine::gdma, c.b), Status::ok);
  // dst(c', n', h, w) with c' = src n on lanes 5, 6; n' = src c at n stride 8 elements.
  for (uint32_t n = 0; n < 2; ++n) {
    for (uint32_t ch = 0; ch < 3; ++ch) {
      for (uint32_t w = 0; w < 2; ++w) {
        EXPECT_EQ(b.get<uint16_t>(b.lm(5 + n, 0x40 + 2 * (ch * 8 + w))), 100 + (n * 3 + ch) * 2 + w)
            << n << "," << ch << "," << w;
      }
    }
  }
}

TEST(SimExec, UnsupportedDmaNamesTheClass) {
  Bench b;
  std::string msg;
  Cmd t(CmdClass::dma_tensor, 2);
  EXPECT_EQ(b.exec(Engine::gdma, t.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("tensor sp_func 2 (collect)"), std::string::npos) << msg;
  Cmd m(CmdClass::dma_matrix, 1);
  EXPECT_EQ(b.exec(Engine::gdma, m.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("matrix sp_func 1"), std::string::npos) << msg;
  Cmd g(CmdClass::dma_general, 1);
  EXPECT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("general sp_func 1 (broadcast)"), std::string::npos) << msg;
  Cmd r(CmdClass::dma_reverse, 0);
  EXPECT_EQ(b.exec(Engine::gdma, r.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("reverse"), std::string::npos) << msg;
}

// ---- AR ----------------------------------------------------------------------------------

struct ArCase {
  uint32_t eu;
  uint32_t prec;  // res0 and operands
  bool sign;
  int64_t a, b, want;  // integers; for f32: bit patterns of floats
};

// One element per case, long AR (the sAR path shares the executor and is covered elsewhere).
TEST(SimExec, EveryArOperationBitExact) {
  auto f = [](float x) { return static_cast<int64_t>(std::bit_cast<uint32_t>(x)); };
  const ArCase cases[] = {
      {0, 2, true, f(1.5f), f(-3.0f), f(-4.5f)},          // mul
      {2, 2, true, f(0.1f), f(0.2f), f(0.1f + 0.2f)},     // add (f32 rounding)
      {3, 2, true, f(1.0f), f(1e-8f), f(1.0f)},           // sub rounds to 1
      {4, 2, true, f(-1.0f), f(2.0f), f(2.0f)},           // max
      {5, 2, true, f(-1.0f), f(2.0f), f(-1.0f)},          // min
      {12, 2, true, f(1.0f), f(3.0f), f(1.0f / 3.0f)},    // div
      {26, 2, true, f(-7.25f), 0, f(7.25f)},              // abs
      {27, 2, true, f(1.0f), f(4.5f), f(3.5f)},           // fsub_abs
      {19, 2, true, f(-0.0f), 0, f(-0.0f)},               // copy keeps the sign of zero
      {0, 4, true, -7, 6, -42},                           // int32 mul
      {2, 4, true, 2147483647, 1, -2147483648LL},         // int32 add wraps
      {15, 4, true, 2147483647, 1, 2147483647},           // add_satu clamps
      {16, 4, true, -2147483647 - 1, 1, -2147483648LL},   // sub_satu clamps
      {20, 3, true, 300, 300, 32767},                     // int16 mul_satu
      {20, 3, true, -300, 300, -32768},
      {15, 0, false, 200, 100, 255},                      // uint8 add_satu
      {16, 0, false, 5, 9, 0},                            // uint8 sub_satu
      {3, 0, false, 5, 9, 252},                           // uint8 sub wraps
      {7, 4, true, 0x0F0F, 0x00FF, 0x000F},               // and
      {8, 4, true, 0x0F00, 0x00F0, 0x0FF0},               // or
      {9, 4, true, 0x0FF0, 0x00FF, 0x0F0F},               // xor
      {1, 4, true, 0x0F0F, 0, ~int64_t{0x0F0F}},          // not
      // NaN operands: opd0's NaN when it is one, else opd1's (sign and payload kept), however
      // the host compiler orders the operands of a commutative op
      {0, 2, true, 0x7FC00001, 0xFFC00002, 0x7FC00001},   // mul: +NaN x -NaN
      {0, 2, true, 0xFFC00002, 0x7FC00001, 0xFFC00002},   // mul: -NaN x +NaN
      {2, 2, true, f(1.0f), 0xFFC00003, 0xFFC00003},      // add: 1 + -NaN
      {3, 2, true, 0x7FC00004, 0xFFC00005, 0x7FC00004},   // sub
      {12, 2, true, 0xFFC00006, 0x7FC00007, 0xFFC00006},  // div
  };
  for (const ArCase& k : cases) {
    Bench b;
    const uint32_t es = k.prec == 0 ? 1 : k.prec == 3 ? 2 : 4;
    std::memcpy(b.lm(0, 0), &k.a, es);
    std::memcpy(b.lm(0, 0x100), &k.b, es);
    Cmd c(CmdClass::AR, k.eu);
    cmd::TiuLongRef v(c.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1);
    v.set_opt_res0_prec(k.prec); v.set_opt_opd0_prec(k.prec); v.set_opt_opd1_prec(k.prec);
    v.set_opt_res0_sign(k.sign); v.set_opt_opd0_sign(k.sign); v.set_opt_opd1_sign(k.sign);
    v.set_tsk_opd_num(2);
    v.set_res0_addr(0x200); v.set_opd0_addr(0); v.set_opd1_addr(0x100);
    std::string msg;
    ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << "eu " << k.eu << ": " << msg;
    int64_t got = 0;
    std::memcpy(&got, b.lm(0, 0x200), es);
    const int64_t mask = es == 8 ? -1 : (int64_t{1} << (8 * es)) - 1;
    EXPECT_EQ(got & mask, k.want & mask) << "eu " << k.eu << " prec " << k.prec;
  }
}

TEST(SimExec, LongArWithExplicitStridesAndConstant) {
  Bench b;
  // 2 lanes x h 2 x w 3 f32, opd0 explicit h stride 4 (row padding), opd1 constant 10.0.
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t i = 0; i < 8; ++i) {
      const float x = static_cast<float>(c * 100 + i);
      std::memcpy(b.lm(c, 4 * i), &x, 4);
    }
  }
  Cmd k(CmdClass::AR, 2);
  cmd::TiuLongRef v(k.b);
  v.set_res0_n(1); v.set_res0_c(2); v.set_res0_h(2); v.set_res0_w(3);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2); v.set_tsk_opd_num(2);
  v.set_short_opd0_str(3); v.set_opd0_h_str(4); v.set_opd0_w_str(1);
  v.set_opt_opd1_const(1); v.set_opd1_addr(std::bit_cast<uint32_t>(10.0f));
  v.set_res0_addr(0x1000);
  ASSERT_EQ(b.exec(Engine::tiu, k.b), Status::ok);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t h = 0; h < 2; ++h) {
      for (uint32_t w = 0; w < 3; ++w) {
        // alignEU result: row h at h * 3 elements.
        EXPECT_EQ(b.get<float>(b.lm(c, 0x1000 + 4 * (h * 3 + w))), static_cast<float>(c * 100 + h * 4 + w) + 10.0f);
      }
    }
  }
}

TEST(SimExec, ArRowsKeepTheElementOrderWhereTheResultOverlapsASource) {
  // res0 one element after opd0 (f32 add 1.0): element by element, each result is the next
  // element's source, so res[w] = opd0[0] + w + 1; in place (res0 = opd0) each element reads
  // its own value first: res[w] = opd0[w] + 1.
  for (const uint32_t res0 : {4u, 0u}) {
    Bench b;
    for (uint32_t i = 0; i < 301; ++i) b.put<float>(b.lm(0, 4 * i), static_cast<float>(10 * i));
    Cmd k(CmdClass::AR, 2);
    cmd::TiuLongRef v(k.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(300);
    v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2); v.set_tsk_opd_num(2);
    v.set_opt_opd1_const(1); v.set_opd1_addr(std::bit_cast<uint32_t>(1.0f));
    v.set_res0_addr(res0); v.set_opd0_addr(0);
    ASSERT_EQ(b.exec(Engine::tiu, k.b), Status::ok);
    for (uint32_t w = 0; w < 300; ++w) {
      const float want = res0 == 4 ? static_cast<float>(w + 1) : static_cast<float>(10 * w + 1);
      ASSERT_EQ(b.get<float>(b.lm(0, res0 + 4 * w)), want) << "res0 " << res0 << " w " << w;
    }
  }
}

TEST(SimExec, ArPlanesKeepTheRowOrderWhereTheResultIsASourceRowLater) {
  // 4 rows of 5 f32 elements, rows back to back (the simulator runs such a plane as one row,
  // row by row where the result meets a source out of place, as here);
  // res0 one row after opd0, add 1.0: row by row, row h's result is row h + 1's source, so
  // res[h][w] = opd0[0][w] + h + 1. With rows 7 elements apart (h stride 7: run row by row)
  // the same chain holds: the control.
  for (const uint32_t h_str : {5u, 7u}) {
    Bench b;
    for (uint32_t i = 0; i < 40; ++i) b.put<float>(b.lm(0, 4 * i), static_cast<float>(10 * i));
    Cmd k(CmdClass::AR, 2);
    cmd::TiuLongRef v(k.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(4); v.set_res0_w(5);
    v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2); v.set_tsk_opd_num(2);
    v.set_opt_opd1_const(1); v.set_opd1_addr(std::bit_cast<uint32_t>(1.0f));
    v.set_short_res0_str(3); v.set_res0_h_str(h_str); v.set_res0_w_str(1);
    v.set_short_opd0_str(3); v.set_opd0_h_str(h_str); v.set_opd0_w_str(1);
    v.set_res0_addr(4 * h_str); v.set_opd0_addr(0);
    ASSERT_EQ(b.exec(Engine::tiu, k.b), Status::ok);
    for (uint32_t h = 0; h < 4; ++h) {
      for (uint32_t w = 0; w < 5; ++w) {
        const float want = static_cast<float>(10 * w + h + 1);
        ASSERT_EQ(b.get<float>(b.lm(0, 4 * (h_str * (h + 1) + w))), want) << "h stride " << h_str << " h " << h << " w " << w;
      }
    }
  }
}

TEST(SimExec, BranchFreeHalfReadsEveryPatternAsTheBitConversion) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = sim::exec::half_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(std::bit_cast<uint32_t>(f), tilefw::half_bits_to_float_bits(static_cast<uint16_t>(h))) << std::hex << h;
  }
}

TEST(SimExec, UnsupportedArOperationsSayWhy) {
  for (uint32_t eu : {6u, 18u, 21u, 22u, 23u, 28u}) {
    Bench b;
    Cmd c(CmdClass::sAR, eu);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op) << eu;
    EXPECT_EQ(msg.rfind("sAR eu " + std::to_string(eu) + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find("the spec"), std::string::npos) << msg;
  }
  Bench b;
  Cmd s(CmdClass::AR, 15);
  cmd::TiuLongRef v(s.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1); v.set_opt_res0_prec(3);
  v.set_tsk_opd_num(3);  // a saturating op's shift from a tensor
  std::string msg;
  EXPECT_EQ(b.exec(Engine::tiu, s.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("shift tensor"), std::string::npos) << msg;
}

// ---- MM2 ---------------------------------------------------------------------------------

// L (M x K) and R (K x N) as small integers in f32 (exact), stored per orientation.
void store_mm2(Bench& b, uint32_t eu, uint32_t M, uint32_t N, uint32_t K) {
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t k = 0; k < K; ++k) {
      const float l = static_cast<float>(i * 10 + k) - 7.0f;
      // nn/nt: row i of L on lane i; tt: L stored K x M, row k on lane k.
      if (eu == 6) std::memcpy(b.lm(k, 4 * i), &l, 4);
      else std::memcpy(b.lm(i, 4 * k), &l, 4);
    }
  }
  for (uint32_t k = 0; k < K; ++k) {
    for (uint32_t j = 0; j < N; ++j) {
      const float r = static_cast<float>(k) * 0.5f - static_cast<float>(j);
      // nn: R K x N at 0x1000, row k on lane k; nt/tt: stored N x K, row j on lane j.
      if (eu == 4) std::memcpy(b.lm(k, 0x1000 + 4 * j), &r, 4);
      else std::memcpy(b.lm(j, 0x1000 + 4 * k), &r, 4);
    }
  }
}
void expect_mm2(Bench& b, uint32_t M, uint32_t N, uint32_t K) {
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      double acc = 0;
      for (uint32_t k = 0; k < K; ++k) {
        acc += (static_cast<double>(i * 10 + k) - 7.0) * (static_cast<double>(k) * 0.5 - static_cast<double>(j));
      }
      EXPECT_EQ(b.get<float>(b.lm(i, 0x2000 + 4 * j)), static_cast<float>(acc)) << i << "," << j;
    }
  }
}

TEST(SimExec, Mm2AllOrientationsShortAndLong) {
  const uint32_t M = 3, N = 5, K = 4;
  for (uint32_t eu : {4u, 5u, 6u}) {
    for (int is_long = 0; is_long < 2; ++is_long) {
      Bench b;
      store_mm2(b, eu, M, N, K);
      Cmd c(is_long ? CmdClass::MM2 : CmdClass::sMM2, eu);
      auto fill = [&](auto v) {
        v.set_res0_c(M); v.set_res0_w(N);
        v.set_opd1_c(eu == 4 ? K : N); v.set_opd1_w(eu == 4 ? N : K);
        v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2);
        v.set_opt_opd2_const(1); v.set_opt_opd2_prec(2);
        v.set_res0_addr(0x2000); v.set_opd0_addr(0); v.set_opd1_addr(0x1000);
      };
      if (is_long) fill(cmd::TiuLongRef(c.b)); else fill(cmd::SMm2Ref(c.b));
      std::string msg;
      ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
      expect_mm2(b, M, N, K);
    }
  }
}

// ---- CW&BC, SFU, CMP --------------------------------------------------------------------

TEST(SimExec, CwTransposeAndLaneBroadcast) {
  Bench b;
  // opd0: c 3 lanes x w 2 f32 (alignEU), value c*10 + w.
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t w = 0; w < 2; ++w) {
      const float x = static_cast<float>(c * 10 + w);
      std::memcpy(b.lm(c, 4 * w), &x, 4);
    }
  }
  Cmd t(CmdClass::sCW_sBC, 0);
  cmd::SCwBcRef v(t.b);
  v.set_res0_n(1); v.set_res0_c(2); v.set_res0_h(1); v.set_res0_w(3); v.set_opd0_c(3); v.set_opd0_w(2);
  v.set_opt_res0_prec(2); v.set_res0_addr(0x100); v.set_opd0_addr(0);
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, t.b, &msg), Status::ok) << msg;
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t w = 0; w < 3; ++w) EXPECT_EQ(b.get<float>(b.lm(c, 0x100 + 4 * w)), static_cast<float>(w * 10 + c));
  }
  // Long lane_bc: lane 1's row of 2 f32 to 64 lanes.
  Cmd l(CmdClass::CW_BC, 3);
  cmd::TiuLongRef u(l.b);
  u.set_res0_n(1); u.set_res0_c(64); u.set_res0_h(1); u.set_res0_w(2); u.set_opt_res0_prec(2);
  u.set_opd0_n(1); u.set_opd0_c(1); u.set_opd0_h(1); u.set_opd0_w(2); u.set_opt_opd0_prec(2);
  u.set_res0_addr(0x200); u.set_opd0_addr((1u << 18) | 0);
  ASSERT_EQ(b.exec(Engine::tiu, l.b, &msg), Status::ok) << msg;
  for (uint32_t c = 0; c < 64; ++c) {
    EXPECT_EQ(b.get<float>(b.lm(c, 0x200)), 10.0f);
    EXPECT_EQ(b.get<float>(b.lm(c, 0x204)), 11.0f);
  }
  // The operations the spec only names are refused by name.
  for (uint32_t eu : {1u, 5u}) {
    Cmd x(CmdClass::sCW_sBC, eu);
    EXPECT_EQ(b.exec(Engine::tiu, x.b, &msg), Status::sim_unsupported_op);
    EXPECT_EQ(msg.rfind("sCW&sBC eu " + std::to_string(eu) + " (", 0), 0u) << msg;
  }
}

TEST(SimExec, SfuRsqrtCorrectlyRounded) {
  Bench b;
  const float in[6] = {4.0f, 0.25f, 2.0f, -1.0f, 0.0f, 1e-30f};
  std::memcpy(b.lm(0, 0), in, sizeof in);
  for (int is_long = 0; is_long < 2; ++is_long) {
    Cmd s(is_long ? CmdClass::SFU : CmdClass::sSFU, 17);
    auto fill = [](auto v) {
      v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(6);
      v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_res0_addr(0x100); v.set_opd0_addr(0);
    };
    if (is_long) fill(cmd::TiuLongRef(s.b)); else fill(cmd::SSfuRef(s.b));
    std::string msg;
    ASSERT_EQ(b.exec(Engine::tiu, s.b, &msg), Status::ok) << msg;
    const uint32_t want[6] = {0x3F000000u, 0x40000000u, 0x3F3504F3u /* 0.70710677 */, 0x7FC00000u,
                              0x7F800000u, 0x5E5AEBD0u /* 1e15 rounded: 1/sqrt(1e-30f) */};
    for (int i = 0; i < 6; ++i) {
      const uint32_t got = b.get<uint32_t>(b.lm(0, 0x100 + 4 * i));
      const float x = in[i];
      const uint32_t ref = std::isnan(1.0 / std::sqrt(static_cast<double>(x)))
                               ? 0x7FC00000u
                               : std::bit_cast<uint32_t>(static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))));
      EXPECT_EQ(got, ref) << i;
      if (i < 5) {
        EXPECT_EQ(got, want[i]) << i;
      }
    }
  }
  // f16 result of an f32 operand: 1/sqrt(2) rounded to f16 = 0x39A8.
  Cmd h(CmdClass::sSFU, 17);
  cmd::SSfuRef v(h.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1);
  v.set_opt_res0_prec(1); v.set_opt_opd0_prec(2); v.set_res0_addr(0x200); v.set_opd0_addr(8);
  ASSERT_EQ(b.exec(Engine::tiu, h.b), Status::ok);
  EXPECT_EQ(b.get<uint16_t>(b.lm(0, 0x200)), 0x39A8u);
  std::string msg;
  for (uint32_t eu : {12u, 13u, 15u}) {
    Cmd t(CmdClass::sSFU, eu);
    EXPECT_EQ(b.exec(Engine::tiu, t.b, &msg), Status::sim_unsupported_op);
    EXPECT_EQ(msg.rfind("sSFU eu " + std::to_string(eu) + " (", 0), 0u) << msg;
  }
}

// CMP runs eu 22..26 (test_cmp.cpp); srch_bin stays refused by name.
TEST(SimExec, CmpSrchBinIsUnsupportedByName) {
  Bench b;
  for (CmdClass cls : {CmdClass::sCMP, CmdClass::CMP}) {
    Cmd c(cls, 27);
    std::string msg;
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op);
    EXPECT_EQ(msg.rfind(std::string(cmd::class_name(cls)) + " eu 27 (srch_bin): ", 0), 0u) << msg;
  }
}

// ---- validation <-> execution ------------------------------------------------------------

// A command of an executed class whose probed operand is at `addr` (TIU local address, or the
// local part of a tag-31 DMA address).
struct Probe {
  const char* what;
  Engine engine;
  void (*build)(uint8_t* p, uint64_t addr);
};

void ar_f32(uint8_t* p, uint64_t res0, uint64_t opd0, uint64_t opd1) {
  cmd::TiuLongRef v(p);
  v.set_res0_n(1); v.set_res0_c(3); v.set_res0_h(1); v.set_res0_w(20);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2); v.set_tsk_opd_num(2);
  v.set_res0_addr(res0); v.set_opd0_addr(opd0); v.set_opd1_addr(opd1);
}
template <typename V>
void mm2_f16(V v, uint64_t res0, uint64_t opd0, uint64_t opd1, bool nn) {
  v.set_res0_c(4); v.set_res0_w(34); v.set_opd1_c(nn ? 16 : 34); v.set_opd1_w(nn ? 34 : 16);
  v.set_opt_res0_prec(1); v.set_opt_opd0_prec(1); v.set_opt_opd1_prec(1); v.set_opt_opd2_const(1);
  v.set_res0_addr(res0); v.set_opd0_addr(opd0); v.set_opd1_addr(opd1);
}
void tensor_f16(uint8_t* p, uint64_t src, uint64_t dst, uint32_t sp) {
  cmd::DmaCommonRef d(p);
  d.set_src_data_format(1);
  d.set_nchw_copy(1);
  d.set_src_nsize(2); d.set_src_csize(3); d.set_src_hsize(1); d.set_src_wsize(10);
  d.set_src_nstride(30); d.set_src_cstride(10); d.set_src_hstride(10); d.set_src_wstride(1);
  d.set_dst_nstride(16); d.set_dst_cstride(40); d.set_dst_hstride(10); d.set_dst_wstride(1);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
  (void)sp;
  dma_addrs(d, src, dst);
}

const Probe kProbes[] = {
    {"AR res0", Engine::tiu, [](uint8_t* p, uint64_t a) { ar_f32(p, a, 0, 0x100); }},
    {"AR opd0", Engine::tiu, [](uint8_t* p, uint64_t a) { ar_f32(p, 0, a, 0x100); }},
    {"AR opd1", Engine::tiu, [](uint8_t* p, uint64_t a) { ar_f32(p, 0, 0x100, a); }},
    {"sAR cast res0", Engine::tiu, [](uint8_t* p, uint64_t a) {
       cmd::SArRef v(p);
       v.set_res0_n(2); v.set_res0_c(40); v.set_res0_h(1); v.set_res0_w(3);
       v.set_opt_res0_prec(1); v.set_opt_opd0_prec(2); v.set_tsk_opd_num(1);
       v.set_res0_addr(a); v.set_opd0_addr(0);
     }},
    {"MM2 nn opd1", Engine::tiu, [](uint8_t* p, uint64_t a) { mm2_f16(cmd::TiuLongRef(p), 0x8000, 0, a, true); }},
    {"sMM2 nt opd1", Engine::tiu, [](uint8_t* p, uint64_t a) { mm2_f16(cmd::SMm2Ref(p), 0x8000, 0, a, false); }},
    {"sMM2 tt opd0", Engine::tiu, [](uint8_t* p, uint64_t a) { mm2_f16(cmd::SMm2Ref(p), 0x8000, a, 0x4000, false); }},
    {"sMM2 nn res0", Engine::tiu, [](uint8_t* p, uint64_t a) { mm2_f16(cmd::SMm2Ref(p), a, 0, 0x4000, true); }},
    {"sCW cw_ts opd0", Engine::tiu, [](uint8_t* p, uint64_t a) {
       cmd::SCwBcRef v(p);
       v.set_res0_n(1); v.set_res0_c(5); v.set_res0_h(1); v.set_res0_w(70); v.set_opd0_c(70); v.set_opd0_w(5);
       v.set_opt_res0_prec(2); v.set_res0_addr(0x1000); v.set_opd0_addr(a);
     }},
    {"CW_BC lane_bc res0", Engine::tiu, [](uint8_t* p, uint64_t a) {
       cmd::TiuLongRef v(p);
       v.set_res0_n(2); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(4); v.set_opt_res0_prec(1);
       v.set_opd0_n(2); v.set_opd0_c(1); v.set_opd0_h(1); v.set_opd0_w(4); v.set_opt_opd0_prec(1);
       v.set_res0_addr(a); v.set_opd0_addr(0);
     }},
    {"sSFU rsqrt res0", Engine::tiu, [](uint8_t* p, uint64_t a) {
       cmd::SSfuRef v(p);
       v.set_res0_n(1); v.set_res0_c(2); v.set_res0_h(2); v.set_res0_w(9);
       v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_res0_addr(a); v.set_opd0_addr(0x100);
     }},
    {"SFU rsqrt opd0", Engine::tiu, [](uint8_t* p, uint64_t a) {
       cmd::TiuLongRef v(p);
       v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(9);
       v.set_opt_res0_prec(1); v.set_opt_opd0_prec(1); v.set_res0_addr(0x100); v.set_opd0_addr(a);
     }},
    {"tensor dst", Engine::gdma, [](uint8_t* p, uint64_t a) { tensor_f16(p, ddr1(0), kLmem | a, 0); }},
    {"tensor src", Engine::gdma, [](uint8_t* p, uint64_t a) { tensor_f16(p, kLmem | a, ddr1(0), 0); }},
    {"tensor NC-transpose dst", Engine::gdma, [](uint8_t* p, uint64_t a) {
       tensor_f16(p, ddr1(0), kLmem | a, 1);
       cmd::DmaCommonRef(p).set_nchw_copy(0);
     }},
    {"matrix S2L dst", Engine::gdma, [](uint8_t* p, uint64_t a) {
       cmd::DmaCommonRef d(p);
       d.set_src_data_format(2);
       d.set_src_nsize(1); d.set_src_csize(1); d.set_src_hsize(2); d.set_src_wsize(68); d.set_src_hstride(68);
       d.set_dst_nsize(2); d.set_dst_csize(34); d.set_dst_wsize(2); d.set_dst_nstride(16); d.set_dst_cstride(16);
       dma_addrs(d, ddr1(0), kLmem | a);
     }},
    {"general src", Engine::gdma, [](uint8_t* p, uint64_t a) {
       cmd::DmaCommonRef d(p);
       d.set_src_data_format(2);
       d.set_src_cstride(70);
       dma_addrs(d, kLmem | a, ddr1(0x2000));
     }},
};
CmdClass probe_class(const char* what) {
  const std::string w = what;
  if (w.rfind("AR", 0) == 0) return CmdClass::AR;
  if (w.rfind("sAR", 0) == 0) return CmdClass::sAR;
  if (w.rfind("MM2", 0) == 0) return CmdClass::MM2;
  if (w.rfind("sMM2", 0) == 0) return CmdClass::sMM2;
  if (w.rfind("sCW", 0) == 0) return CmdClass::sCW_sBC;
  if (w.rfind("CW_BC", 0) == 0) return CmdClass::CW_BC;
  if (w.rfind("sSFU", 0) == 0) return CmdClass::sSFU;
  if (w.rfind("SFU", 0) == 0) return CmdClass::SFU;
  if (w.rfind("tensor", 0) == 0) return CmdClass::dma_tensor;
  if (w.rfind("matrix", 0) == 0) return CmdClass::dma_matrix;
  return CmdClass::dma_general;
}
uint32_t probe_eu(const char* what) {
  const std::string w = what;
  if (w.find("cast") != std::string::npos) return 14;
  if (w.find(" nn") != std::string::npos) return 4;
  if (w.find(" nt") != std::string::npos) return 5;
  if (w.find(" tt") != std::string::npos) return 6;
  if (w.find("lane_bc") != std::string::npos) return 3;
  if (w.find("rsqrt") != std::string::npos) return 17;
  if (w.find("NC-transpose") != std::string::npos) return 1;
  if (w.rfind("AR", 0) == 0) return 2;
  return 0;
}

TEST(SimExec, ValidatedOperandsExecuteAndRejectedOnesWouldFault) {
  // Addresses near the end of lanes 0, 37 and 63 (with c over lanes, the wrap past lane 63),
  // plus the reserved bits: 25:24 (lane 64+) and above 26 (which used to alias lane 0).
  std::vector<uint64_t> addrs;
  for (uint32_t lane : {0u, 37u, 63u}) {
    for (uint32_t off = sg::kLaneBytes - 0x300; off < sg::kLaneBytes; off += 0x14) addrs.push_back((uint64_t{lane} << 18) | off);
  }
  for (uint64_t bad : {uint64_t{1} << 24, uint64_t{3} << 24, uint64_t{1} << 27, uint64_t{0xF8000000u},
                       uint64_t{0x80000040u}}) {
    addrs.push_back(bad);
  }
  for (const Probe& pr : kProbes) {
    uint32_t accepted = 0, rejected = 0;
    for (uint64_t a : addrs) {
      uint8_t stream[160] = {};
      cmd::CommandBuilder w(pr.engine, ByteSpan(stream, sizeof stream));
      uint8_t* p = w.append(probe_class(pr.what), probe_eu(pr.what)).value();
      pr.build(p, a);
      ASSERT_EQ(w.end(), Status::ok);
      const cmd::ValidationReport r = cmd::validate_stream(pr.engine, w.bytes());
      Bench b;
      std::string msg;
      const Status s = b.exec(pr.engine, p, &msg);
      if (r.ok()) {
        ++accepted;
        EXPECT_EQ(s, Status::ok) << pr.what << " at 0x" << std::hex << a << ": validated, then " << msg;
      } else {
        ++rejected;
        EXPECT_NE(s, Status::ok) << pr.what << " at 0x" << std::hex << a << ": rejected (" << r.message
                                 << ") but executes";
        EXPECT_TRUE(r.status == Status::cmd_footprint_out_of_range || r.status == Status::cmd_lmem_out_of_range)
            << pr.what << " " << tilefw::status_name(r.status);
      }
    }
    EXPECT_GT(accepted, 10u) << pr.what;
    EXPECT_GE(rejected, 5u) << pr.what;
  }
}

TEST(SimExec, RuntimeRejectsABadOperandOfEveryExecutedClassBeforeAnyEngineStarts) {
  for (const Probe& pr : kProbes) {
    host::Machine machine{host::kProfileSg2260};
    host::ScopedMachine scope{machine};
    ASSERT_EQ(machine.add_region(sg::ddr_region(1, 0, 65536)), Status::ok);
    ASSERT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok);
    sim::Simulator s(machine);
    uint8_t tiu[160] = {}, gdma[160] = {};
    cmd::CommandBuilder t(Engine::tiu, ByteSpan(tiu, sizeof tiu)), g(Engine::gdma, ByteSpan(gdma, sizeof gdma));
    cmd::CommandBuilder& w = pr.engine == Engine::tiu ? t : g;
    // Lane 64 (bits 25:24): every probed address field holds it (sMM2 res0_addr has 25 bits).
    pr.build(w.append(probe_class(pr.what), probe_eu(pr.what)).value(), uint64_t{1} << 24);
    ASSERT_EQ(t.end(), Status::ok);
    ASSERT_EQ(g.end(), Status::ok);
    const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
    ASSERT_EQ(tilefw::port::copy_to_device(base, tiu, t.size()), Status::ok);
    ASSERT_EQ(tilefw::port::copy_to_device(base + 4096, gdma, g.size()), Status::ok);
    rt::CoreSubmission sub;
    sub.tiu = rt::EngineStream{base, ConstByteSpan(machine.translate(base, t.size()).value(), t.size())};
    sub.gdma = rt::EngineStream{base + 4096, ConstByteSpan(machine.translate(base + 4096, g.size()).value(), g.size())};
    rt::Runtime r;
    EXPECT_EQ(r.submit(sub), Status::cmd_lmem_out_of_range) << pr.what;
    EXPECT_EQ(r.report().engine, pr.engine) << pr.what;
    EXPECT_EQ(r.report().command_id, 1u) << pr.what;
    EXPECT_EQ(s.run(), Status::ok);
    EXPECT_EQ(s.commands_executed(), 0u) << pr.what;
  }
}

}  // namespace
