// SG2260 simulator on real command bytes: commands copied from the two tpu-mlir models of
// test/data/sg2260-tdb (each named by model, core, engine, 1-based index and byte
// offset as NAME.ops.csv lists them), executed on seeded operands placed where their fields
// say, and checked bit-exactly against the plain reference (plain_reference.hpp). The fields
// are read back through the views, so a test also pins how the real bytes decode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "plain_reference.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/views.hpp"

namespace {

using tilefw::Status;
namespace cmd = tilefw::cmd;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;
using namespace simref;

// resnet50_v2_bm1690_f16_core8 core 0 tiu #82 @4896 conv.normal (512 -> 64, 7 x 7, 1 x 1)
const uint8_t kResnetConv82[64] = {
    0x01, 0x02, 0xea, 0x00, 0x20, 0x00, 0x00, 0x02, 0x12, 0x01, 0x00, 0x22, 0x02, 0x00, 0x18, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x40, 0x00, 0x07, 0x00, 0x07, 0x00, 0x00, 0x02, 0x07, 0x00,
    0x07, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// resnet50 core 0 tiu #9 @320 pord.depthwise (64 channels, 56 x 56, 1 x 1)
const uint8_t kResnetDepthwise9[64] = {
    0x11, 0x00, 0x2a, 0x00, 0x20, 0x02, 0x00, 0x00, 0x26, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00,
    0x01, 0x00, 0x40, 0x00, 0x38, 0x00, 0x38, 0x00, 0x38, 0x00, 0x38, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00, 0xd8, 0x00, 0x00, 0x00, 0xc0, 0x01, 0x00, 0x80, 0x04, 0x02, 0x00, 0x00, 0x40, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// yolov5s_bm1690_f16_core8 core 0 tiu #720 @41088 pord.maxpooling (the command that running the
// real .bmodel files found refused: opd2_addr 0xFFFFFFFF, unused; pad value opd3 = f16 -65504)
const uint8_t kYoloMaxpool720[64] = {
    0x01, 0x00, 0x54, 0x01, 0x20, 0x82, 0x00, 0x00, 0x26, 0x00, 0x00, 0x22, 0x22, 0x11, 0x00, 0x00,
    0x01, 0x00, 0x20, 0x00, 0x14, 0x00, 0x14, 0x00, 0x14, 0x00, 0x14, 0x00, 0x05, 0x00, 0x05, 0x00,
    0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xfb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// resnet50 core 0 tiu #141 @7232 pord.avgpooling (2048 channels, 1 x 16 -> 1, x 1/49 in f32)
const uint8_t kResnetAvgpool141[64] = {
    0x01, 0x00, 0xaa, 0x01, 0x20, 0x22, 0x00, 0x80, 0x4a, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x08, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x10, 0x00, 0x01, 0x00, 0x10, 0x00,
    0x00, 0x50, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x05, 0x2f, 0xa7, 0x3c, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// resnet50 core 0 tiu #146 @7552 mm.normal (the FC: 1 x 64 by 64 x 1024 in f32)
const uint8_t kResnetMm146[48] = {
    0x01, 0x00, 0xb0, 0x01, 0x20, 0x24, 0x20, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00,
    0x80, 0x00, 0x01, 0x00, 0x02, 0x00, 0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x80, 0x02, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x80, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
// yolov5s core 0 tiu #16 @832 arith.add_satu ((n + 15) << 10: f16 2^n)
const uint8_t kYoloAddSatu16[64] = {
    0x01, 0x00, 0x0e, 0x00, 0x20, 0xe6, 0x79, 0x01, 0xc3, 0x30, 0x80, 0x00, 0x01, 0x00, 0x20, 0x00,
    0x1a, 0x00, 0x40, 0x01, 0x00, 0x80, 0x02, 0x00, 0x00, 0x41, 0x03, 0x00, 0x0f, 0x00, 0x31, 0x3f,
    0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

Status run(host::Machine& m, const uint8_t* data, std::string& msg) { return sim::execute_command(m, 0, 0, data, msg); }

uint32_t lane_of(uint64_t local) { return static_cast<uint32_t>((local >> 18) & 63); }
uint32_t off_of(uint64_t local) { return static_cast<uint32_t>(local & 0x3FFFF); }

void fill(const Placed& p, uint64_t n, Lcg& r, int lo, int hi, double scale) {
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t c = 0; c < p.c; ++c)
      for (uint64_t y = 0; y < p.h; ++y)
        for (uint64_t x = 0; x < p.w; ++x) put(p.at(i, c, y, x), p.prec, p.sign, r.next(lo, hi) * scale);
}

TEST(SimReal, ResnetConv512To64) {
  const cmd::SConvView v(kResnetConv82);
  ASSERT_EQ(v.opd0_c(), 512u);
  ASSERT_EQ(v.res0_c(), 64u);
  ASSERT_EQ(v.opt_opd2_const(), 1u);  // bias: the constant 0
  host::Machine m{host::kProfileSg2260};
  Win g;
  g.ic = v.opd0_c(); g.oc = v.res0_c(); g.ih = v.opd0_h(); g.iw = v.opd0_w(); g.kh = v.opd1_h(); g.kw = v.opd1_w();
  const Placed X{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kF16, false, g.ic, g.ih, g.iw};
  const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kF16, false, g.oc, g.oh(), g.ow()};
  Lcg r{1};
  fill(X, 1, r, -16, 16, 1.0 / 16);
  for (uint64_t o = 0; o < g.oc; ++o)
    for (uint64_t c = 0; c < g.ic; ++c)
      put(kernel_at(m, lane_of(v.opd1_addr()), off_of(v.opd1_addr()), kF16, g.ic, g, o, c, 0, 0), kF16, false, r.next(-8, 8) / 64.0);
  std::string msg;
  ASSERT_EQ(run(m, kResnetConv82, msg), Status::ok) << msg;
  for (uint64_t o = 0; o < g.oc; ++o)
    for (uint64_t y = 0; y < g.oh(); ++y)
      for (uint64_t x = 0; x < g.ow(); ++x) {
        float acc = 0;
        for (uint64_t c = 0; c < g.ic; ++c)
          acc = std::fmaf(float(get(X.at(0, c, y, x), kF16, false)),
                          float(get(kernel_at(m, lane_of(v.opd1_addr()), off_of(v.opd1_addr()), kF16, g.ic, g, o, c, 0, 0), kF16, false)), acc);
        if (v.opt_relu() != 0 && acc < 0) acc = 0;
        uint8_t w[2];
        put(w, kF16, false, acc);
        ASSERT_EQ(std::memcmp(w, Y.at(0, o, y, x), 2), 0) << o << " " << y << " " << x;
      }
}

TEST(SimReal, ResnetDepthwiseAndYoloMaxpool) {
  {  // depthwise 1 x 1: x * k + bias, f16 data, FP32 bias tensor
    const cmd::SPorDView v(kResnetDepthwise9);
    host::Machine m{host::kProfileSg2260};
    const Placed X{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kF16, false, v.res0_c(), v.opd0_h(), v.opd0_w()};
    const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kF16, false, v.res0_c(), v.res0_h(), v.res0_w()};
    Lcg r{2};
    fill(X, 1, r, -64, 64, 1.0 / 8);
    for (uint64_t c = 0; c < v.res0_c(); ++c) {
      put(lane_at(m, lane_of(v.opd1_addr()), off_of(v.opd1_addr()), c, 1, 0, 2), kF16, false, r.next(-9, 9) / 8.0);
      put(lane_at(m, lane_of(v.opd2_addr()), off_of(v.opd2_addr()), c, 1, 0, 4), kF32, true, r.next(-9, 9) / 3.0);
    }
    std::string msg;
    ASSERT_EQ(run(m, kResnetDepthwise9, msg), Status::ok) << msg;
    for (uint64_t c = 0; c < v.res0_c(); ++c)
      for (uint64_t y = 0; y < v.res0_h(); ++y)
        for (uint64_t x = 0; x < v.res0_w(); ++x) {
          const float k = float(get(lane_at(m, lane_of(v.opd1_addr()), off_of(v.opd1_addr()), c, 1, 0, 2), kF16, false));
          const float b = float(get(lane_at(m, lane_of(v.opd2_addr()), off_of(v.opd2_addr()), c, 1, 0, 4), kF32, true));
          uint8_t w[2];
          put(w, kF16, false, float(get(X.at(0, c, y, x), kF16, false)) * k + b);
          ASSERT_EQ(std::memcmp(w, Y.at(0, c, y, x), 2), 0) << c << " " << y << " " << x;
        }
  }
  {  // maxpool 5 x 5, pads 2, the pad value -65504
    const cmd::SPorDView v(kYoloMaxpool720);
    ASSERT_EQ(v.opd2_addr(), 0xFFFFFFFFu);
    host::Machine m{host::kProfileSg2260};
    Win g;
    g.oc = g.ic = v.res0_c(); g.ih = v.opd0_h(); g.iw = v.opd0_w(); g.kh = v.opd1_h(); g.kw = v.opd1_w();
    g.pu = v.opd0_up_pad(); g.pd = v.opd0_dn_pad(); g.pl = v.opd0_lf_pad(); g.pr = v.opd0_rt_pad();
    const Placed X{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kF16, false, g.oc, g.ih, g.iw};
    const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kF16, false, g.oc, g.oh(), g.ow()};
    ASSERT_EQ(g.oh(), v.res0_h());
    Lcg r{3};
    fill(X, 1, r, -40, 40, 0.25);
    std::string msg;
    ASSERT_EQ(run(m, kYoloMaxpool720, msg), Status::ok) << msg;
    const auto xin = [&](uint64_t c, uint64_t y, uint64_t x) { return get(X.at(0, c, y, x), kF16, false); };
    for (uint64_t c = 0; c < g.oc; ++c)
      for (uint64_t y = 0; y < g.oh(); ++y)
        for (uint64_t x = 0; x < g.ow(); ++x) {
          double best = -INFINITY;
          for (uint64_t ky = 0; ky < g.kh; ++ky)
            for (uint64_t kx = 0; kx < g.kw; ++kx) best = std::max(best, g.tap(xin, c, y, x, ky, kx, -65504.0));
          ASSERT_EQ(get(Y.at(0, c, y, x), kF16, false), best) << c << " " << y << " " << x;
        }
  }
}

TEST(SimReal, ResnetAvgpoolAndFc) {
  {  // 2048 channels of 16 f32 values times 1/49
    const cmd::SPorDView v(kResnetAvgpool141);
    host::Machine m{host::kProfileSg2260};
    const Placed X{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kF32, false, v.res0_c(), v.opd0_h(), v.opd0_w()};
    const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kF32, false, v.res0_c(), 1, 1};
    Lcg r{4};
    fill(X, 1, r, -500, 500, 1.0 / 7);
    std::string msg;
    ASSERT_EQ(run(m, kResnetAvgpool141, msg), Status::ok) << msg;
    const uint32_t sb = v.opd1_addr();
    float scale;
    std::memcpy(&scale, &sb, 4);
    for (uint64_t c = 0; c < v.res0_c(); ++c) {
      float s = 0;
      for (uint64_t x = 0; x < 16; ++x) s += float(get(X.at(0, c, 0, x), kF32, false));
      ASSERT_EQ(get(Y.at(0, c, 0, 0), kF32, false), double(s * scale)) << c;
    }
  }
  {  // FC: Y (1 x 8 lanes x 128) = L (1 x 2 lanes x 32) . R (64 x 8 x 128)
    const cmd::SMmView v(kResnetMm146);
    host::Machine m{host::kProfileSg2260};
    const uint64_t lw = v.opd0_w(), rw = v.res0_w(), K = v.opd0_c() * lw, N = v.res0_c() * rw;
    const Placed L{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kF32, false, v.opd0_c(), 1, lw};
    const Placed R{m, lane_of(v.opd1_addr()), off_of(v.opd1_addr()), kF32, false, v.res0_c(), 1, rw};
    const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kF32, false, v.res0_c(), 1, rw};
    Lcg r{5};
    fill(L, 1, r, -99, 99, 1.0 / 3);
    fill(R, K, r, -99, 99, 1.0 / 5);
    std::string msg;
    ASSERT_EQ(run(m, kResnetMm146, msg), Status::ok) << msg;
    for (uint64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (uint64_t k = 0; k < K; ++k)
        acc = std::fmaf(float(get(L.at(0, k / lw, 0, k % lw), kF32, false)), float(get(R.at(k, j / rw, 0, j % rw), kF32, false)), acc);
      ASSERT_EQ(get(Y.at(0, j / rw, 0, j % rw), kF32, false), double(acc)) << j;
    }
  }
}

TEST(SimReal, YoloAddSatuBuildsPowersOfTwo) {
  const cmd::SArView v(kYoloAddSatu16);
  host::Machine m{host::kProfileSg2260};
  const Placed X{m, lane_of(v.opd0_addr()), off_of(v.opd0_addr()), kI8, true, v.res0_c(), v.res0_h(), v.res0_w()};
  const Placed Y{m, lane_of(v.res0_addr()), off_of(v.res0_addr()), kI16, true, v.res0_c(), v.res0_h(), v.res0_w()};
  Lcg r{6};
  fill(X, 1, r, -20, 20, 1.0);
  std::string msg;
  ASSERT_EQ(run(m, kYoloAddSatu16, msg), Status::ok) << msg;
  for (uint64_t c = 0; c < v.res0_c(); c += 7)
    for (uint64_t y = 0; y < v.res0_h(); ++y)
      for (uint64_t x = 0; x < v.res0_w(); ++x) {
        const double n = get(X.at(0, c, y, x), kI8, true);
        const double bits = get(Y.at(0, c, y, x), kI16, true);
        ASSERT_EQ(bits, std::min(32767.0, (n + 15) * 1024)) << n;
        if (n > -15 && n < 16) {  // f16 bits of 2^n
          uint8_t b[2];
          std::memcpy(b, Y.at(0, c, y, x), 2);
          ASSERT_EQ(get(b, kF16, false), std::ldexp(1.0, static_cast<int>(n)));
        }
      }
}

}  // namespace
