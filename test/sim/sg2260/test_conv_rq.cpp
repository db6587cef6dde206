// SG2260 simulator, the requantising CONV (sCONV / CONV eu 0 with opt_rq) and SYS_TR_ACC, the
// command that points it at its parameters: INT8 (kernel zero point, multiplier, shift, output
// zero point per channel, every shift round mode, relu, sym_range, int8 / int16 / uint8
// results) and FP8 (an FP32 scale per channel, saturating) bit for bit against the oracle of
// conv_rq_oracle.hpp over the lane layout, hand-computed values, the compiler's parameter
// placement of the real FP8 ResNet-50 (scale, bias and kernel in one lane block), and the
// forms no public source defines, refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "conv_rq_oracle.hpp"
#include "fixture.hpp"
#include "machine.hpp"
#include "plain_reference.hpp"
#include "sg2260/hazard.hpp"
#include "sg2260/sim.hpp"
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

uint32_t local(uint32_t lane, uint32_t off) { return (lane << 18) | off; }

// SYS_TR_ACC wr_imm: TGCR[i0] = imm0, TGCR[i1] = imm1's high word, TGCR[i2] = its low word.
void write_tgcr(host::Machine& m, uint32_t i0, uint32_t imm0, uint32_t i1, uint32_t hi, uint32_t i2, uint32_t lo) {
  Cmd c(CmdClass::SYS_TR_ACC, 0);
  cmd::SysTrAccRef v(c.b);
  v.set_reg_idx0(i0); v.set_imm0(imm0); v.set_reg_idx1(i1); v.set_reg_idx2(i2);
  v.set_imm1((uint64_t{hi} << 32) | lo);
  std::string msg;
  ASSERT_EQ(run(m, c.b, &msg), Status::ok) << msg;
}

int32_t i32(const uint8_t* p) { int32_t v; std::memcpy(&v, p, 4); return v; }
void put32(uint8_t* p, int32_t v) { std::memcpy(p, &v, 4); }
void put16(uint8_t* p, int16_t v) { std::memcpy(p, &v, 2); }
void putf(uint8_t* p, float v) { std::memcpy(p, &v, 4); }

// Hand-computed: one input channel, 1x1 kernels, two output channels.
//   ch 0: w 3, kzp 1, bias 10, multiplier 3, shift -2, zp 5, half to even:
//         x 1, 2, 7, -60 -> sum 12, 14, 24, -110 -> x3 36, 42, 72, -330 -> /4 9, 10.5, 18,
//         -82.5 -> 9, 10, 18, -82 -> +5: 14, 15, 23, -77
//   ch 1: w -2, kzp -3, bias -1, multiplier 1000, shift -3, zp -2 (sym_range):
//         sum 0, 1, 6, -61 -> x1000 /8 0, 125, 750, -7625 -> -2: -2, 123, 748, -7627
//         -> saturated to -127 .. 127: -2, 123, 127, -127
TEST(SimConvRq, Int8HandValues) {
  host::Machine m{host::kProfileSg2260};
  const int8_t xs[4] = {1, 2, 7, -60};
  for (int i = 0; i < 4; ++i) *m.translate(sg::lmem_region(0).device_base + 0x100 + i, 1).value() = uint8_t(xs[i]);
  Win g;
  g.ic = 1; g.oc = 2; g.ih = 1; g.iw = 4;
  const int8_t w[2] = {3, -2};
  const int16_t kzp[2] = {1, -3};
  const int32_t bias[2] = {10, -1}, mult[2] = {3, 1000};
  const int8_t shift[2] = {-2, -3};
  const int16_t zp[2] = {5, -2};
  for (uint64_t o = 0; o < 2; ++o) {
    *kernel_at(m, 10, 0x4000, kI8, 1, g, o, 0, 0, 0) = uint8_t(w[o]);
    put32(lane_at(m, 7, 0xC000, o, 1, 0, 4), bias[o]);
    put16(lane_at(m, 20, 0x2000, o, 1, 0, 2), kzp[o]);
    put32(lane_at(m, 30, 0x3000, o, 2, 0, 4), mult[o]);
    put32(lane_at(m, 30, 0x3000, o, 2, 1, 4), int32_t((uint32_t(uint8_t(shift[o]))) | (uint32_t(uint16_t(zp[o])) << 16)));
  }
  write_tgcr(m, 5, local(20, 0x2000), 6, local(30, 0x3000), 127, 0);
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(1);
  v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_opt_opd2_sign(1); v.set_opt_res0_sign(1);
  v.set_opt_opd2_prec(kI32); v.set_opt_rq(1); v.set_sym_range(1); v.set_opd2_n_str(0);
  v.set_opt_opd3_const(1);
  v.set_res0_addr(local(40, 0x8000)); v.set_opd0_addr(local(0, 0x100)); v.set_opd1_addr(local(10, 0x4000));
  v.set_opd2_addr(local(7, 0xC000));
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const int8_t want[2][4] = {{14, 15, 23, -77}, {-2, 123, 127, -127}};
  const Placed Y{m, 40, 0x8000, kI8, true, 2, 1, 4};
  for (int o = 0; o < 2; ++o)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(int8_t(*Y.at(0, o, 0, x)), want[o][x]) << o << " " << x;
}

struct IntCase {
  uint32_t res_prec;
  bool res_sign;
  int round;
  bool relu, sym, kzp_const;
};

// ic = 70 from lane 3 and oc = 70 to lane 60 (both wrap), 3x2 kernels with pads, stride,
// dilation, insertion and a pad value; per-channel zero points, multipliers and shifts
// (some left shifts), INT32 bias tensor; every output against the oracle.
void int_case(const IntCase& k) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = 70; g.oc = 70; g.ih = 5; g.iw = 6; g.kh = 3; g.kw = 2; g.pu = 1; g.pd = 2; g.pr = 1;
  g.sh = 2; g.dh = 2; g.insw = 1;
  const Placed X{m, 3, 0x100, kI8, true, g.ic, g.ih, g.iw};
  const Placed Y{m, 60, 0x8000, k.res_prec, k.res_sign, g.oc, g.oh(), g.ow()};
  Lcg r{uint64_t(k.round * 7 + k.res_prec * 3 + k.relu + 2 * k.sym + 4 * k.kzp_const)};
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), kI8, true, r.next(-128, 127));
  const int16_t kzp_const = -7;
  std::vector<rqref::IntParams> ps(g.oc);
  std::vector<int16_t> kz(g.oc);
  for (uint64_t o = 0; o < g.oc; ++o) {
    // channels 1, 5, 9 ...: kernels within 1 of the zero point, a small multiplier and a
    // right shift by 1 or 2, so that exact halves (ties) land inside the result's range
    const bool ties = o % 4 == 1;
    kz[o] = k.kzp_const ? kzp_const : int16_t(ties ? r.next(-100, 100) : r.next(-300, 300));
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < g.kh; ++ky)
        for (uint64_t kx = 0; kx < g.kw; ++kx)
          put(kernel_at(m, 10, 0x4000, kI8, g.ic, g, o, c, ky, kx), kI8, true, ties ? kz[o] + r.next(-1, 1) : r.next(-128, 127));
    put32(lane_at(m, 7, 0xC000, o, 1, 0, 4), ties ? r.next(-50, 50) : r.next(-30000, 30000));
    put16(lane_at(m, 20, 0x2000, o, 1, 0, 2), int16_t(r.next(-300, 300)));  // ignored with kzp_const
    if (!k.kzp_const) put16(lane_at(m, 20, 0x2000, o, 1, 0, 2), kz[o]);
    ps[o] = {ties ? r.next(1, 3) : r.next(1, 1 << 20) * (o % 5 == 0 ? -1 : 1),
             int8_t(ties ? -r.next(1, 2) : o % 9 == 0 ? r.next(0, 3) : -r.next(10, 24)), int16_t(r.next(-40, 40))};
    put32(lane_at(m, 30, 0x3000, o, 2, 0, 4), ps[o].multiplier);
    put32(lane_at(m, 30, 0x3000, o, 2, 1, 4),
          int32_t(uint32_t(uint8_t(ps[o].shift)) | (uint32_t(uint16_t(ps[o].zp)) << 16)));
  }
  if (k.kzp_const) {
    write_tgcr(m, 6, local(30, 0x3000), 127, 0, 5, uint16_t(kzp_const));
  } else {
    write_tgcr(m, 5, local(20, 0x2000), 6, local(30, 0x3000), 127, 0);
  }
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(g.ic);
  v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_opt_opd2_sign(1); v.set_opt_res0_sign(k.res_sign);
  v.set_opt_opd2_prec(kI32); v.set_opt_res0_prec(k.res_prec);
  v.set_opt_rq(1); v.set_sym_range(k.sym); v.set_opd2_n_str(k.round); v.set_opt_relu(k.relu);
  v.set_opt_opd4_const(k.kzp_const);
  v.set_opt_opd3_const(1); v.set_opd3_addr(0xF9);  // pad value -7
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local()); v.set_opd1_addr(local(10, 0x4000));
  v.set_opd2_addr(local(7, 0xC000));
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kI8, true); };
  const int bits = int(esize(k.res_prec)) * 8;
  int clipped = 0, tie_rows = 0;
  for (uint64_t o = 0; o < g.oc; ++o)
    for (uint64_t oy = 0; oy < g.oh(); ++oy)
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        int64_t s = i32(lane_at(m, 7, 0xC000, o, 1, 0, 4));
        for (uint64_t c = 0; c < g.ic; ++c)
          for (uint64_t ky = 0; ky < g.kh; ++ky)
            for (uint64_t kx = 0; kx < g.kw; ++kx)
              s += int64_t(g.tap(xin, c, oy, ox, ky, kx, -7)) *
                   (int64_t(int8_t(*kernel_at(m, 10, 0x4000, kI8, g.ic, g, o, c, ky, kx))) - kz[o]);
        const int64_t want = rqref::int_result(s, ps[o], k.round, k.relu, bits, k.res_sign, k.sym);
        const int64_t hi = k.res_sign ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
        clipped += want == hi;
        tie_rows += o % 4 == 1 && want > -hi && want < hi;
        ASSERT_EQ(get(Y.at(0, o, oy, ox), k.res_prec, k.res_sign), double(want)) << o << " " << oy << " " << ox;
      }
  EXPECT_GT(clipped, 0);    // the case reaches saturation
  EXPECT_GT(tie_rows, 20);  // and the tie channels stay inside the range
}

TEST(SimConvRq, Int8HalfEvenRelu) { int_case({kI8, true, 0, true, false, false}); }
TEST(SimConvRq, Int8HalfAwaySym) { int_case({kI8, true, 1, false, true, false}); }
TEST(SimConvRq, Int8TowardZeroKzpConstant) { int_case({kI8, true, 2, false, false, true}); }
TEST(SimConvRq, Int16Down) { int_case({kI16, true, 3, false, false, false}); }
TEST(SimConvRq, Uint8Up) { int_case({kI8, false, 4, false, false, false}); }
TEST(SimConvRq, Int8HalfUpRelu) { int_case({kI8, true, 5, true, false, false}); }
TEST(SimConvRq, Int16HalfDownSym) { int_case({kI16, true, 6, false, true, false}); }

// FP8 with the compiler's placement: per lane the FP32 scale at +0 (one per channel), the
// FP32 bias after the scales, the kernel at +64; TGCR 6 points at the scales. e4m3 selects
// the format (the operands' sign bit). Some channels' scales push results past the FP8 top.
void fp8_case(bool e4m3, uint64_t ic, uint64_t oc, bool relu) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = ic; g.oc = oc; g.ih = 9; g.iw = 9; g.kh = 3; g.kw = 3; g.pu = g.pd = g.pl = g.pr = 1; g.sh = g.sw = 2;
  const uint32_t blk = 0x14000, per_lane = uint32_t((oc + 63) / 64);
  const uint32_t bias_off = blk + 4 * per_lane, kern_off = blk + 64;
  const Placed X{m, 0, 0x100, kFp8, e4m3, g.ic, g.ih, g.iw};
  const Placed Y{m, 0, 0x8000, kFp8, e4m3, g.oc, g.oh(), g.ow()};
  Lcg r{e4m3 ? 11u : 12u};
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), kFp8, e4m3, r.next(-24, 24) / 8.0);
  std::vector<float> scale(oc), bias(oc);
  for (uint64_t o = 0; o < oc; ++o) {
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < g.kh; ++ky)
        for (uint64_t kx = 0; kx < g.kw; ++kx) put(kernel_at(m, 0, kern_off, kFp8, g.ic, g, o, c, ky, kx), kFp8, e4m3, r.next(-16, 16) / 8.0);
    scale[o] = o % 7 == 3 ? 65536.0f : float(r.next(1, 64)) / 16.0f;
    bias[o] = float(r.next(-40, 40)) / 4.0f;
    putf(lane_at(m, 0, blk, o, 1, 0, 4), scale[o]);
    putf(lane_at(m, 0, bias_off, o, 1, 0, 4), bias[o]);
  }
  write_tgcr(m, 6, local(0, blk), 127, 0, 127, 0);
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(g.ic);
  v.set_opt_opd0_prec(kFp8); v.set_opt_opd1_prec(kFp8); v.set_opt_res0_prec(kFp8); v.set_opt_opd2_prec(kF32);
  v.set_opt_opd0_sign(e4m3); v.set_opt_opd1_sign(e4m3); v.set_opt_res0_sign(e4m3); v.set_opt_opd2_sign(1);
  v.set_opt_rq(1); v.set_opt_relu(relu);
  v.set_opt_opd3_const(1); v.set_opd3_addr(0);
  v.set_res0_addr(Y.local()); v.set_opd0_addr(X.local()); v.set_opd1_addr(local(0, kern_off));
  v.set_opd2_addr(local(0, bias_off));
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kFp8, e4m3); };
  int saturated = 0;
  for (uint64_t o = 0; o < oc; ++o)
    for (uint64_t oy = 0; oy < g.oh(); ++oy)
      for (uint64_t ox = 0; ox < g.ow(); ++ox) {
        float acc = 0;
        for (uint64_t c = 0; c < g.ic; ++c)
          for (uint64_t ky = 0; ky < g.kh; ++ky)
            for (uint64_t kx = 0; kx < g.kw; ++kx)
              acc = std::fmaf(float(g.tap(xin, c, oy, ox, ky, kx, 0)),
                              float(get(kernel_at(m, 0, kern_off, kFp8, g.ic, g, o, c, ky, kx), kFp8, e4m3)), acc);
        float t = acc + bias[o];
        if (relu && t < 0) t = 0;
        const float scaled = t * scale[o];
        const uint8_t want = rqref::fp8_saturating(scaled, e4m3);
        saturated += std::fabs(double(scaled)) > rqref::fp8_top(e4m3);
        ASSERT_EQ(*Y.at(0, o, oy, ox), want) << o << " " << oy << " " << ox << " value " << scaled;
      }
  EXPECT_GT(saturated, 0);  // saturation reached, never infinity or NaN
}

TEST(SimConvRq, Fp8E5M2LikeTheRealResNet) { fp8_case(false, 3, 64, true); }
TEST(SimConvRq, Fp8E4M3AcrossLaneWrap) { fp8_case(true, 70, 70, false); }

bool covered(const std::vector<sim::AccessLog::Range>& v, uint64_t begin, uint64_t end) {
  for (uint64_t a = begin; a < end; ++a) {
    bool in = false;
    for (const auto& r : v) in = in || (a >= r.begin && a < r.end);
    if (!in) return false;
  }
  return true;
}
uint64_t lane_addr(uint32_t lane, uint32_t off) { return sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off; }

// The hazard checker sees what the registers point at: an INT8 requantising conv over two
// channels from lane 30 logs both channels' parameter words (8 bytes on lanes 30 and 31) and
// kernel zero points (2 bytes) as reads.
TEST(SimConvRq, AccessLogHasTheParameterTensors) {
  host::Machine m{host::kProfileSg2260};
  write_tgcr(m, 5, local(20, 0x2000), 6, local(30, 0x3000), 127, 0);
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  Win g;
  g.ic = 1; g.oc = 2; g.ih = 1; g.iw = 1;
  g.geometry(v);
  v.set_opd0_c(1); v.set_opt_rq(1); v.set_opt_opd1_const(1); v.set_opt_opd2_const(1); v.set_opt_opd3_const(1);
  v.set_res0_addr(local(40, 0)); v.set_opd0_addr(local(0, 0x100));
  sim::AccessLog log;
  std::string msg;
  ASSERT_EQ(sim::execute_command(m, 0, 0, cm.b, msg, &log), Status::ok) << msg;
  for (uint32_t ch = 0; ch < 2; ++ch) {
    EXPECT_TRUE(covered(log.reads(), lane_addr(30 + ch, 0x3000), lane_addr(30 + ch, 0x3000) + 8)) << ch;
    EXPECT_TRUE(covered(log.reads(), lane_addr(20 + ch, 0x2000), lane_addr(20 + ch, 0x2000) + 2)) << ch;
  }
  EXPECT_FALSE(covered(log.reads(), lane_addr(32, 0x3000), lane_addr(32, 0x3000) + 1));  // no third channel
}

// The first conv of tpu-mlir's FP8 (E5M2) ResNet-50 test model as its listing gives it: a
// SYS_TR_ACC writes TGCR 6 = 81920 (R5: bank 5 of lane 0), then conv.normal over the
// 1x3x224x224 input at R0, kernel 64x3x7x7 at R5.64, bias at R5.4, parameters at R5 (one
// FP32 scale per channel, 1.0 for E5M2), stride 2, pads 3, relu, round mode 0, result
// 1x64x112x112 at R4. Every 97th output is checked against the oracle.
TEST(SimConvRq, Fp8RealResNetFirstConvGeometry) {
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = 3; g.oc = 64; g.ih = g.iw = 224; g.kh = g.kw = 7; g.pu = g.pd = g.pl = g.pr = 3; g.sh = g.sw = 2;
  ASSERT_EQ(g.oh(), 112u);
  const uint32_t r5 = 0x14000, r4 = 0x10000;
  const Placed X{m, 0, 0, kFp8, false, g.ic, g.ih, g.iw};
  const Placed Y{m, 0, r4, kFp8, false, g.oc, g.oh(), g.ow()};
  Lcg r{2024};
  for (uint64_t c = 0; c < g.ic; ++c)
    for (uint64_t y = 0; y < g.ih; ++y)
      for (uint64_t x = 0; x < g.iw; ++x) put(X.at(0, c, y, x), kFp8, false, r.next(-16, 16) / 8.0);
  for (uint64_t o = 0; o < g.oc; ++o) {
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < 7; ++ky)
        for (uint64_t kx = 0; kx < 7; ++kx) put(kernel_at(m, 0, r5 + 64, kFp8, g.ic, g, o, c, ky, kx), kFp8, false, r.next(-8, 8) / 16.0);
    putf(lane_at(m, 0, r5, o, 1, 0, 4), 1.0f);
    putf(lane_at(m, 0, r5 + 4, o, 1, 0, 4), float(r.next(-8, 8)) / 4.0f);
  }
  write_tgcr(m, 6, 81920, 127, 0, 127, 0);
  Cmd cm(CmdClass::sCONV, 0);
  cmd::SConvRef v(cm.b);
  g.geometry(v);
  v.set_opd0_c(3);
  v.set_opt_opd0_prec(kFp8); v.set_opt_opd1_prec(kFp8); v.set_opt_res0_prec(kFp8); v.set_opt_opd2_prec(kF32);
  v.set_opt_opd2_sign(1); v.set_opt_rq(1); v.set_opt_relu(1); v.set_opt_opd3_const(1);
  v.set_res0_addr(r4); v.set_opd0_addr(0); v.set_opd1_addr(r5 + 64); v.set_opd2_addr(r5 + 4);
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kFp8, false); };
  int checked = 0, nonzero = 0;
  for (uint64_t i = 0; i < g.oc * g.oh() * g.ow(); i += 97) {
    const uint64_t o = i / (g.oh() * g.ow()), oy = i / g.ow() % g.oh(), ox = i % g.ow();
    float acc = 0;
    for (uint64_t c = 0; c < g.ic; ++c)
      for (uint64_t ky = 0; ky < 7; ++ky)
        for (uint64_t kx = 0; kx < 7; ++kx)
          acc = std::fmaf(float(g.tap(xin, c, oy, ox, ky, kx, 0)),
                          float(get(kernel_at(m, 0, r5 + 64, kFp8, g.ic, g, o, c, ky, kx), kFp8, false)), acc);
    float t = acc + float(get(lane_at(m, 0, r5 + 4, o, 1, 0, 4), kF32, true));
    if (t < 0) t = 0;
    const uint8_t want = rqref::fp8_saturating(t * 1.0f, false);
    ASSERT_EQ(*Y.at(0, o, oy, ox), want) << o << " " << oy << " " << ox;
    ++checked;
    nonzero += want != 0;
  }
  EXPECT_GT(checked, 8000);
  EXPECT_GT(nonzero, 1000);
}

// The forms no public source defines are refused by name, and PorD keeps refusing opt_rq.
TEST(SimConvRq, UndefinedFormsRefusedByName) {
  const auto refused = [](const std::function<void(cmd::SConvRef&)>& edit, const char* what) {
    host::Machine m{host::kProfileSg2260};
    Cmd cm(CmdClass::sCONV, 0);
    cmd::SConvRef v(cm.b);
    Win g;
    g.ic = 1; g.oc = 1; g.ih = 1; g.iw = 1;
    g.geometry(v);
    v.set_opd0_c(1); v.set_opt_rq(1); v.set_opt_opd3_const(1); v.set_opt_opd1_const(1); v.set_opt_opd2_const(1);
    edit(v);
    std::string msg;
    EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op) << what;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  };
  refused([](cmd::SConvRef& v) { v.set_opt_opd5_const(1); }, "opt_opd5_const");
  refused([](cmd::SConvRef& v) { v.set_opt_res_add(1); }, "opt_res_add");
  refused([](cmd::SConvRef& v) { v.set_opd2_n_str(7); }, "shift round mode 7");
  refused([](cmd::SConvRef& v) { v.set_opt_opd0_prec(kF16); v.set_opt_opd1_prec(kF16); v.set_opt_res0_prec(kF16); },
          "FP8 only");
  refused([](cmd::SConvRef& v) { v.set_opt_opd0_prec(kI16); v.set_opt_opd1_prec(kI16); }, "other than INT8");
  host::Machine m{host::kProfileSg2260};
  Cmd cm(CmdClass::PorD, 4);
  cmd::TiuLongRef v(cm.b);
  v.set_opt_rq(1);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1); v.set_opd0_h(1); v.set_opd0_w(1);
  v.set_opd1_h(1); v.set_opd1_w(1); v.set_res_op_x_str(1); v.set_res_op_y_str(1); v.set_opt_opd3_const(1);
  std::string msg;
  EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("opt_rq"), std::string::npos) << msg;
}

}  // namespace
