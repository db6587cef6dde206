// SG2260 simulator, TIU LIN / sLIN (fused linear): mac R = A x B + C, add_sqr (A + B)^2,
// sub_sqr (A - B)^2 with B and C per channel (lanes, or constants): hand-computed values
// (the fused FP32 multiply-add among them), every defined precision pair over the lane
// layout against a reference written here from the documented operation (plain_reference.hpp
// for the encodings), and the forms outside the firmware's checks refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "fixture.hpp"
#include "machine.hpp"
#include "plain_reference.hpp"
#include "sg2260/sim.hpp"
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

uint32_t f32_bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

// sLIN over one channel, four FP32 elements, B and C constants.
void hand(uint32_t eu, float b, float c, const float (&a)[4], const float (&want)[4]) {
  host::Machine m{host::kProfileSg2260};
  const Placed A{m, 2, 0x100, kF32, true, 1, 1, 4};
  const Placed R{m, 2, 0x4000, kF32, true, 1, 1, 4};
  for (int i = 0; i < 4; ++i) put(A.at(0, 0, 0, i), kF32, true, a[i]);
  Cmd cm(CmdClass::sLIN, eu);
  cmd::SLinRef v(cm.b);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(4); v.set_opt_res0_prec(kF32);
  v.set_opt_opd1_const(1); v.set_opd1_addr(f32_bits(b)); v.set_opt_opd2_const(1); v.set_opd2_addr(f32_bits(c));
  v.set_res0_addr(R.local()); v.set_opd0_addr(A.local());
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(get(R.at(0, 0, 0, i), kF32, true), double(want[i])) << eu << " " << i;
}

// (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly: one fused rounding keeps the 2^-24 that a
// product rounded first to FP32 (a tie to 1 + 2^-11) would lose.
TEST(SimLin, HandValues) {
  const float e = 1.0f + std::ldexp(1.0f, -12);
  hand(1, 2.0f, 0.5f, {1.5f, -2.0f, 3.25f, 0.0f}, {3.5f, -3.5f, 7.0f, 0.5f});
  hand(1, e, -1.0f, {e, 1.0f, 0.0f, -e}, {std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24), std::ldexp(1.0f, -12), -1.0f,
                                           -2.0f - std::ldexp(1.0f, -11) - std::ldexp(1.0f, -24)});
  hand(20, 1.0f, 99.0f, {1.5f, -2.0f, 3.25f, -1.0f}, {6.25f, 1.0f, 18.0625f, 0.0f});
  hand(21, 1.0f, 99.0f, {1.5f, -2.0f, 3.25f, -1.0f}, {0.25f, 9.0f, 5.0625f, 4.0f});
}

// Long form: A (2, 70, 3, 5) from lane 60 (channels wrap), B and C tensors from lane 60 (the
// firmware requires R's start lane), every defined precision pair.
void lin_case(uint32_t eu, uint32_t in_prec, uint32_t res_prec, bool b_const) {
  host::Machine m{host::kProfileSg2260};
  const uint64_t N = 2, C = 70, H = 3, W = 5;
  const Placed A{m, 60, 0x100, in_prec, true, C, H, W};
  const Placed R{m, 60, 0x8000, res_prec, true, C, H, W};
  Lcg r{eu * 10 + in_prec * 3 + res_prec};
  for (uint64_t n = 0; n < N; ++n)
    for (uint64_t c = 0; c < C; ++c)
      for (uint64_t h = 0; h < H; ++h)
        for (uint64_t w = 0; w < W; ++w) put(A.at(n, c, h, w), in_prec, true, r.next(-4000, 4000) / 64.0);
  for (uint64_t c = 0; c < C; ++c) {
    put(lane_at(m, 60, 0x4000, c, 1, 0, esize(in_prec)), in_prec, true, r.next(-300, 300) / 32.0);
    put(lane_at(m, 60, 0x6000, c, 1, 0, esize(in_prec)), in_prec, true, r.next(-300, 300) / 16.0);
  }
  uint8_t kb[4] = {};
  put(kb, in_prec, true, -1.375);
  uint32_t kbits = 0;
  std::memcpy(&kbits, kb, 4);
  Cmd cm(CmdClass::LIN, eu);
  cmd::TiuLongRef v(cm.b);
  v.set_res0_n(N); v.set_res0_c(C); v.set_res0_h(H); v.set_res0_w(W);
  v.set_opt_res0_prec(res_prec); v.set_opt_opd0_prec(in_prec);
  v.set_res0_addr(R.local()); v.set_opd0_addr(A.local());
  v.set_opt_opd1_const(b_const); v.set_opd1_addr(b_const ? kbits : (60u << 18) | 0x4000);
  v.set_opd2_addr((60u << 18) | 0x6000);
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  for (uint64_t c = 0; c < C; ++c) {
    const double b = b_const ? get(kb, in_prec, true) : get(lane_at(m, 60, 0x4000, c, 1, 0, esize(in_prec)), in_prec, true);
    const double cc = get(lane_at(m, 60, 0x6000, c, 1, 0, esize(in_prec)), in_prec, true);
    for (uint64_t n = 0; n < N; ++n)
      for (uint64_t h = 0; h < H; ++h)
        for (uint64_t w = 0; w < W; ++w) {
          const float a = float(get(A.at(n, c, h, w), in_prec, true));
          float want = 0;
          if (eu == 1) {
            want = std::fmaf(a, float(b), float(cc));
          } else {
            const float t = eu == 20 ? a + float(b) : a - float(b);
            want = t * t;
          }
          uint8_t wb[4] = {};
          put(wb, res_prec, true, want);
          ASSERT_EQ(std::memcmp(wb, R.at(n, c, h, w), esize(res_prec)), 0) << n << " " << c << " " << h << " " << w;
        }
  }
}

TEST(SimLin, MacF32Tensors) { lin_case(1, kF32, kF32, false); }
TEST(SimLin, MacF16ToF32ConstantScale) { lin_case(1, kF16, kF32, true); }
TEST(SimLin, MacBf16) { lin_case(1, kBf16, kBf16, false); }
TEST(SimLin, AddSqrF16) { lin_case(20, kF16, kF16, false); }
TEST(SimLin, SubSqrBf16ToF32) { lin_case(21, kBf16, kF32, false); }
TEST(SimLin, SubSqrF32Constant) { lin_case(21, kF32, kF32, true); }

TEST(SimLin, UndefinedFormsRefusedByName) {
  const auto refused = [](uint32_t eu, uint32_t in_prec, uint32_t res_prec, uint32_t mode, const char* what) {
    host::Machine m{host::kProfileSg2260};
    Cmd cm(CmdClass::LIN, eu);
    cmd::TiuLongRef v(cm.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1);
    v.set_opt_res0_prec(res_prec); v.set_opt_opd0_prec(in_prec); v.set_short_opd0_str(mode);
    v.set_opt_opd1_const(1); v.set_opt_opd2_const(1);
    std::string msg;
    EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op) << what;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  };
  refused(1, kI8, kI8, 0, "INT8 inputs");
  refused(1, kF32, kF16, 0, "FP32 inputs to a FP16 result");
  refused(20, kF16, kBf16, 0, "FP16 inputs to a BF16 result");
  refused(1, kFp8, kF16, 0, "FP8 inputs");
  refused(21, kF32, kF32, 3, "stride modes");
}

}  // namespace
