// SG2260 simulator, CONV / sCONV (conv.normal) and sPorD (max / min / avg pooling, depthwise),
// bit-exact against a plain reference (plain_reference.hpp; the semantics of sg2260/sim.hpp
// written again from the documentation, sharing no code with the simulator) over the LMEM lane
// layout: channels on lanes with wrap past lane 63, kernels in their P-channel slots, every
// float precision (f32, f16, bf16, FP8 E4M3 / E5M2) and int8; faults; the timing-v2 cost.
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


Status run(host::Machine& m, const uint8_t* data, std::string* msg = nullptr) {
  std::string s;
  const Status st = sim::execute_command(m, 0, 0, data, s);
  if (msg != nullptr) *msg = s;
  return st;
}

struct ConvCase {
  uint32_t in_prec, res_prec;
  bool in_sign, res_sign;
  double scale = 1.0;  // inputs and kernels times this, the bias times its square
};

// conv.normal: ic = 70 from lane 3 and oc = 70 to lane 60 (both wrap), kernel from lane 10,
// f32 bias from lane 7, pads, stride, dilation, insertion, rotation, relu; every float input
// precision (FP8 both formats) with f32 / f16 / bf16 / FP8 results.
// `shape`, when given, changes the geometry (the simulator's column-stride and narrow-row
// layouts of the exact sums).
void conv_case(const ConvCase& k, bool relu, bool rotate, void (*shape)(Win&) = nullptr) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = 70; g.oc = 70; g.ih = 5; g.iw = 6; g.kh = 3; g.kw = 2; g.pu = 1; g.pd = 2; g.pl = 0; g.pr = 1;
  g.sh = 2; g.sw = 1; g.dh = 2; g.insw = 1; g.rotate = rotate;
  if (shape != nullptr) shape(g);
  const Placed X{m, 3, 0x100, k.in_prec, k.in_sign, g.ic, g.ih, g.iw};
  const Placed Y{m, 60, 0x8000, k.res_prec, k.res_sign, g.oc, g.oh(), g.ow()};
  Lcg r{42};
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), k.in_prec, k.in_sign, r.next(-12, 12) / 8.0 * k.scale);
  for (uint64_t o = 0; o < g.oc; ++o) {
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < g.kh; ++ky)
        for (uint64_t kx = 0; kx < g.kw; ++kx)
          put(kernel_at(m, 10, 0x4000, k.in_prec, g.ic, g, o, c, ky, kx), k.in_prec, k.in_sign, r.next(-8, 8) / 8.0 * k.scale);
    put(lane_at(m, 7, 0xC000, o, 1, 0, 4), kF32, true, r.next(-16, 16) / 4.0 * k.scale * k.scale);
  }
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(g.ic);
  v.set_opt_opd0_prec(k.in_prec); v.set_opt_opd1_prec(k.in_prec); v.set_opt_opd2_prec(kF32);
  v.set_opt_res0_prec(k.res_prec); v.set_opt_opd0_sign(k.in_sign); v.set_opt_opd1_sign(k.in_sign);
  v.set_opt_opd2_sign(1); v.set_opt_res0_sign(k.res_sign); v.set_opt_relu(relu);
  v.set_opt_opd3_const(1); v.set_opd3_addr(0);
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local()); v.set_opd1_addr((10u << 18) | 0x4000);
  v.set_opd2_addr((7u << 18) | 0xC000);
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  // the reference reads every operand once from its documented place
  std::vector<double> xs(g.ic * g.ih * g.iw), ws(g.oc * g.ic * g.kh * g.kw), bs(g.oc);
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) xs[(c * g.ih + y) * g.iw + x] = get(X.at(0, c, y, x), k.in_prec, k.in_sign);
  for (uint64_t o = 0; o < g.oc; ++o) {
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < g.kh; ++ky)
        for (uint64_t kx = 0; kx < g.kw; ++kx)
          ws[((o * g.ic + c) * g.kh + ky) * g.kw + kx] = get(kernel_at(m, 10, 0x4000, k.in_prec, g.ic, g, o, c, ky, kx), k.in_prec, k.in_sign);
    bs[o] = get(lane_at(m, 7, 0xC000, o, 1, 0, 4), kF32, true);
  }
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return xs[(c * g.ih + y) * g.iw + x]; };
  uint64_t checked = 0;
  for (uint64_t o = 0; o < g.oc; ++o) {
    for (uint64_t oy = 0; oy < g.oh(); ++oy) {
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        float acc = 0;
        for (uint64_t c = 0; c < g.ic; ++c)
          for (uint64_t ky = 0; ky < g.kh; ++ky)
            for (uint64_t kx = 0; kx < g.kw; ++kx) {
              const uint64_t wy = rotate ? g.kh - 1 - ky : ky, wx = rotate ? g.kw - 1 - kx : kx;
              const double w = ws[((o * g.ic + c) * g.kh + wy) * g.kw + wx];
              acc = std::fmaf(float(g.tap(xin, c, oy, ox, ky, kx, 0)), float(w), acc);
            }
        float res = acc + float(bs[o]);
        if (relu && res < 0) res = 0;
        uint8_t want[4] = {};
        put(want, k.res_prec, k.res_sign, res);
        ASSERT_EQ(std::memcmp(want, Y.at(0, o, oy, ox), esize(k.res_prec)), 0)
            << "oc " << o << " y " << oy << " x " << ox << " want " << res;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, g.oc * g.oh() * g.ow());
}

TEST(SimConv, F16InF16OutAcrossLaneWrap) { conv_case({kF16, kF16, false, false}, true, false); }
TEST(SimConv, Bf16InF32OutRotated) { conv_case({kBf16, kF32, false, false}, false, true); }
TEST(SimConv, F32InBf16Out) { conv_case({kF32, kBf16, false, false}, false, false); }
TEST(SimConv, Fp8E4M3InF16Out) { conv_case({kFp8, kF16, true, false}, true, false); }
TEST(SimConv, Fp8E5M2InFp8E4M3Out) { conv_case({kFp8, kFp8, false, true}, false, false); }

// Column strides 2 and 3 over rows wider than a vector (the sums read the planes split by
// column phase), rows narrower than a vector but many of them (the sums run down the
// columns), and few narrow rows (summed as one run, rows end to end): every output against
// the plain reference.
void wide_stride_two(Win& g) { g.ih = 6; g.iw = 41; g.kh = 3; g.kw = 3; g.sh = 1; g.sw = 2; g.insw = 0; g.pl = 1; g.pr = 1; }
void wide_stride_three(Win& g) { g.ih = 4; g.iw = 50; g.kh = 2; g.kw = 3; g.sh = 1; g.sw = 3; g.dw = 2; g.insw = 1; }
void narrow_tall(Win& g) { g.ih = 24; g.iw = 3; g.kh = 3; g.kw = 2; g.sh = 1; g.sw = 1; g.insw = 0; g.pl = 0; g.pr = 1; }
void small_plane(Win& g) { g.ih = 7; g.iw = 7; g.kh = 3; g.kw = 3; g.pu = 1; g.pd = 1; g.pl = 1; g.pr = 1; g.sh = 1; g.dh = 1; g.insw = 0; }
void small_plane_stride_two(Win& g) { small_plane(g); g.sw = 2; }
// BF16 operands near 2^-74: their products lie below FP32's normal range and round there, so a
// product added unfused differs from the rule's fmaf; the result must follow the rule.
TEST(SimConv, Bf16ProductsBelowTheFloatNormalRangeAreFused) {
  conv_case({kBf16, kF32, false, false, 0x1p-74}, false, false);
}

// Rows of 150 outputs: the vector blocks of 128, 16 and the row's last 16 outputs summed again.
void wide_rows(Win& g) { g.ih = 3; g.iw = 150; g.kh = 2; g.kw = 3; g.pu = 0; g.pd = 0; g.pl = 1; g.pr = 1; g.sh = 1; g.sw = 1; g.dh = 1; g.insw = 0; }
TEST(SimConv, F16WideRows) { conv_case({kF16, kF16, false, false}, false, false, wide_rows); }
TEST(SimConv, Fp8WideRowsRotated) { conv_case({kFp8, kBf16, true, false}, true, true, wide_rows); }
// Rows of 20 outputs at row stride 2: each row is two overlapping vectors of 16, and the rows'
// vectors are summed side by side, eight at a time across rows (a row's plane offset is
// twice the plane's width).
void short_rows_stride_two(Win& g) { g.ih = 11; g.iw = 20; g.kh = 3; g.kw = 3; g.pu = 1; g.pd = 1; g.pl = 1; g.pr = 1; g.sh = 2; g.sw = 1; g.dh = 1; g.insw = 0; }
TEST(SimConv, F16ShortRowsSideBySideRowStrideTwo) { conv_case({kF16, kF16, false, false}, false, false, short_rows_stride_two); }
TEST(SimConv, F16SmallPlaneRowsEndToEnd) { conv_case({kF16, kF16, false, false}, true, false, small_plane); }
TEST(SimConv, Bf16SmallPlaneStrideTwoRowsEndToEnd) { conv_case({kBf16, kF16, false, false}, false, true, small_plane_stride_two); }
TEST(SimConv, F16ColumnStrideTwoWideRows) { conv_case({kF16, kF16, false, false}, true, false, wide_stride_two); }
TEST(SimConv, Bf16ColumnStrideThreeDilatedInserted) { conv_case({kBf16, kF32, false, false}, false, true, wide_stride_three); }
TEST(SimConv, F16NarrowTallRowsByColumns) { conv_case({kF16, kF16, false, false}, true, false, narrow_tall); }
TEST(SimConv, Fp8NarrowTallRowsByColumnsRotated) { conv_case({kFp8, kBf16, true, false}, false, true, narrow_tall); }

// int8 conv: exact sums, int8 bias constant, saturated to an int8 result, res_add.
TEST(SimConv, Int8ExactSumsSaturateWithResAdd) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = 9; g.oc = 4; g.ih = 4; g.iw = 4; g.kh = 2; g.kw = 2; g.pl = 1; g.pr = 1;
  const Placed X{m, 0, 0x100, kI8, true, g.ic, g.ih, g.iw};
  const Placed Y{m, 5, 0x8000, kI8, true, g.oc, g.oh(), g.ow()};
  Lcg r{7};
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), kI8, true, r.next(-128, 127));
  for (uint64_t o = 0; o < g.oc; ++o) {
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < 2; ++ky)
        for (uint64_t kx = 0; kx < 2; ++kx) put(kernel_at(m, 20, 0x4000, kI8, g.ic, g, o, c, ky, kx), kI8, true, r.next(-3, 3));
    for (uint64_t y = 0; y < g.oh(); ++y)
      for (uint64_t x = 0; x < g.ow(); ++x) put(Y.at(0, o, y, x), kI8, true, r.next(-100, 100));
  }
  std::vector<double> old(g.oc * g.oh() * g.ow());
  for (uint64_t i = 0; i < old.size(); ++i) old[i] = get(Y.at(0, i / (g.oh() * g.ow()), i / g.ow() % g.oh(), i % g.ow()), kI8, true);
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(g.ic);
  v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_opt_opd2_sign(1); v.set_opt_res0_sign(1);
  v.set_opt_opd2_const(1); v.set_opd2_addr(0xFB);  // bias -5
  v.set_opt_res_add(1); v.set_opt_opd3_const(1); v.set_opd3_addr(0x07);  // pad value 7
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local()); v.set_opd1_addr((20u << 18) | 0x4000);
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kI8, true); };
  int saturated = 0;
  for (uint64_t o = 0; o < g.oc; ++o)
    for (uint64_t oy = 0; oy < g.oh(); ++oy)
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        int64_t s = 0;
        for (uint64_t c = 0; c < g.ic; ++c)
          for (uint64_t ky = 0; ky < 2; ++ky)
            for (uint64_t kx = 0; kx < 2; ++kx)
              s += int64_t(g.tap(xin, c, oy, ox, ky, kx, 7)) *
                   int64_t(get(kernel_at(m, 20, 0x4000, kI8, g.ic, g, o, c, ky, kx), kI8, true));
        s += -5 + int64_t(old[(o * g.oh() + oy) * g.ow() + ox]);
        const int64_t want = s < -128 ? -128 : s > 127 ? 127 : s;
        saturated += want != s;
        ASSERT_EQ(get(Y.at(0, o, oy, ox), kI8, true), double(want)) << o << " " << oy << " " << ox;
      }
  EXPECT_GT(saturated, 0);  // the case exercises saturation
}

// Pooling over channels on lanes (c = 70 from lane 62): max with the pad constant and NaN,
// min on int8, avg with an FP32 multiplier; results in every float precision.
void pool_case(uint32_t eu, uint32_t prec, bool sign) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = g.oc = 70; g.ih = 5; g.iw = 7; g.kh = 3; g.kw = 3; g.pu = 1; g.pd = 1; g.pl = 2; g.pr = 0; g.sh = 2; g.sw = 2;
  const Placed X{m, 62, 0x200, prec, sign, g.oc, g.ih, g.iw};
  const Placed Y{m, 1, 0x9000, prec, sign, g.oc, g.oh(), g.ow()};
  Lcg r{eu * 31 + prec};
  for (uint64_t c = 0; c < g.oc; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), prec, sign, prec == kI8 ? r.next(-128, 127) : r.next(-40, 40) / 8.0);
  const bool with_nan = eu == 4 && prec != kI8;
  if (with_nan) put(X.at(0, 5, 2, 3), prec, sign, NAN);
  Cmd cm(CmdClass::sPorD, eu);
  cmd::SPorDRef v(cm.b);
  g.geometry(v);
  v.set_opt_opd0_prec(prec); v.set_opt_res0_prec(prec); v.set_opt_opd0_sign(sign); v.set_opt_res0_sign(sign);
  uint8_t padbits[4] = {};
  const double pad = prec == kI8 ? 100 : -3.5;
  put(padbits, prec, sign, pad);
  uint32_t pb;
  std::memcpy(&pb, padbits, 4);
  v.set_opt_opd3_const(1); v.set_opd3_addr(pb);
  const float scale = 1.0f / 9;
  if (eu == 1) {
    uint32_t sb;
    std::memcpy(&sb, &scale, 4);
    v.set_opt_opd1_const(1); v.set_opd1_addr(sb);
  }
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local());
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), prec, sign); };
  for (uint64_t c = 0; c < g.oc; ++c)
    for (uint64_t oy = 0; oy < g.oh(); ++oy)
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        double best = 0;
        float sum = 0;
        bool nan = false;
        for (uint64_t ky = 0; ky < 3; ++ky)
          for (uint64_t kx = 0; kx < 3; ++kx) {
            const double t = g.tap(xin, c, oy, ox, ky, kx, get(padbits, prec, sign));
            nan = nan || std::isnan(t);
            sum += float(t);
            if ((ky == 0 && kx == 0) || (eu == 4 ? t > best : t < best)) best = t;
          }
        const double want = eu == 1 ? double(sum * scale) : nan ? NAN : best;
        const double got = get(Y.at(0, c, oy, ox), prec, sign);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << c << " " << oy << " " << ox;
          continue;
        }
        uint8_t wb[4] = {};
        put(wb, prec, sign, want);
        ASSERT_EQ(std::memcmp(wb, Y.at(0, c, oy, ox), esize(prec)), 0) << c << " " << oy << " " << ox << " want " << want;
      }
}

TEST(SimPorD, MaxPoolF16WithPadAndNaN) { pool_case(4, kF16, false); }
TEST(SimPorD, MaxPoolFp8E5M2) { pool_case(4, kFp8, false); }
TEST(SimPorD, MinPoolInt8) { pool_case(3, kI8, true); }
TEST(SimPorD, AvgPoolF32) { pool_case(1, kF32, false); }
TEST(SimPorD, AvgPoolBf16) { pool_case(1, kBf16, false); }
TEST(SimPorD, AvgPoolFp8E4M3) { pool_case(1, kFp8, true); }

// depthwise: f16 data, per-channel f16 kernels on lanes from 40 (wrap), FP32 bias tensor.
TEST(SimPorD, DepthwiseF16FloatBiasAcrossLaneWrap) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = g.oc = 66; g.ih = 4; g.iw = 5; g.kh = 3; g.kw = 3; g.pu = 1; g.pd = 1; g.pl = 1; g.pr = 1;
  const Placed X{m, 0, 0x200, kF16, false, g.oc, g.ih, g.iw};
  const Placed Y{m, 2, 0x9000, kF16, false, g.oc, g.oh(), g.ow()};
  Lcg r{99};
  for (uint64_t c = 0; c < g.oc; ++c) {
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), kF16, false, r.next(-20, 20) / 8.0);
    for (uint64_t i = 0; i < 9; ++i) put(lane_at(m, 40, 0x4000, c, 9, i, 2), kF16, false, r.next(-9, 9) / 8.0);
    put(lane_at(m, 63, 0x6000, c, 1, 0, 4), kF32, true, r.next(-9, 9) / 16.0);
  }
  Cmd cm(CmdClass::sPorD, 0);
  cmd::SPorDRef v(cm.b);
  g.geometry(v);
  v.set_opt_opd0_prec(kF16); v.set_opt_res0_prec(kF16); v.set_opt_opd3_const(1);
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local()); v.set_opd1_addr((40u << 18) | 0x4000);
  v.set_opd2_addr((63u << 18) | 0x6000);
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kF16, false); };
  for (uint64_t c = 0; c < g.oc; ++c)
    for (uint64_t oy = 0; oy < g.oh(); ++oy)
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        float acc = 0;
        for (uint64_t ky = 0; ky < 3; ++ky)
          for (uint64_t kx = 0; kx < 3; ++kx)
            acc = std::fmaf(float(g.tap(xin, c, oy, ox, ky, kx, 0)), float(get(lane_at(m, 40, 0x4000, c, 9, ky * 3 + kx, 2), kF16, false)), acc);
        const float want = acc + float(get(lane_at(m, 63, 0x6000, c, 1, 0, 4), kF32, true));
        uint8_t wb[2];
        put(wb, kF16, false, want);
        ASSERT_EQ(std::memcmp(wb, Y.at(0, c, oy, ox), 2), 0) << c << " " << oy << " " << ox;
      }
}

TEST(SimConv, FaultsNameTheField) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = 2; g.oc = 2; g.ih = 4; g.iw = 4; g.kh = 3; g.kw = 3;
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(2); v.set_opt_opd0_prec(kF16); v.set_opt_opd1_prec(kF16); v.set_opt_res0_prec(kF16);
  v.set_opt_opd2_const(1); v.set_opt_opd3_const(1); v.set_opd1_addr(0x4000); v.set_res0_addr(0x8000);
  ASSERT_EQ(run(m, cm.b), Status::ok);
  std::string msg;
  v.set_res0_h(g.oh() + 1);
  EXPECT_EQ(run(m, cm.b, &msg), Status::cmd_bad_field);
  EXPECT_NE(msg.find("res0_h"), std::string::npos) << msg;
  v.set_res0_h(g.oh());
  v.set_pad_mode(1);
  EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("pad_mode"), std::string::npos) << msg;
  v.set_pad_mode(0);
  v.set_opt_opd3_const(0);
  EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("opt_opd3_const"), std::string::npos) << msg;
}

// Timing v2 (and v1): CONV 23 + n*ceil(oc/64)*ceil(oh*ow/4)*kh*kw*ceil(ic/ic_pc), PorD
// n*ceil(c/64)*ceil(oh*ow/eu)*kh*kw + 10, by hand.
TEST(SimConv, CostsByHand) {
  Cmd cm(CmdClass::sCONV, 0);  // YOLOv5s' first conv: f16 3 -> 32, 6 x 6, 26 x 320 out
  cmd::SConvRef v(cm.b);
  v.set_res0_n(1); v.set_res0_c(32); v.set_res0_h(26); v.set_res0_w(320); v.set_opd0_c(3);
  v.set_opd1_h(6); v.set_opd1_w(6); v.set_opt_opd0_prec(kF16); v.set_opt_res0_prec(kF16);
  v.set_res0_addr(0x3a200); v.set_opd0_addr(0x28000); v.set_opd1_addr(0x26700);  // banks 14, 10, 9
  uint64_t cycles = 0, bytes = 0, ops = 0;
  for (auto model : {sim::TimingModel::v1, sim::TimingModel::v2}) {
    EXPECT_TRUE(sim::command_cost(0, cm.b, cycles, bytes, ops, model));
    EXPECT_EQ(cycles, 23u + 1 * 1 * 2080 * 36 * 1);
    EXPECT_EQ(ops, 32u * 26 * 320 * 36 * 3);
    EXPECT_EQ(bytes, 32u * 26 * 320 * 2);
  }
  v.set_opd0_c(65);  // f16: 32 input channels per cycle -> 3 steps; f32: 8 -> 9
  EXPECT_TRUE(sim::command_cost(0, cm.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 23u + 2080 * 36 * 3);
  v.set_opt_opd0_prec(kF32);
  EXPECT_TRUE(sim::command_cost(0, cm.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 23u + 2080 * 36 * 9);
  v.set_opd0_addr(0x3a000);  // same bank as res0: +1
  EXPECT_TRUE(sim::command_cost(0, cm.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 23u + 2080 * 36 * 9 + 1);
  Cmd pm(CmdClass::sPorD, 4);  // ResNet-50's maxpool: f16 64 ch, 112 -> 56, 3 x 3
  cmd::SPorDRef p(pm.b);
  p.set_res0_n(1); p.set_res0_c(64); p.set_res0_h(56); p.set_res0_w(56); p.set_opd1_h(3); p.set_opd1_w(3);
  p.set_opt_opd0_prec(kF16); p.set_res0_addr(0x1c000); p.set_opd0_addr(0x10000);
  EXPECT_TRUE(sim::command_cost(0, pm.b, cycles, bytes, ops));
  EXPECT_EQ(cycles, 1u * 1 * 98 * 9 + 10);  // ceil(3136 / 32) = 98
}

}  // namespace
