// SG2260 simulator, TIU VC / sVC (vector correlation): R(i, c, 0, w) = A[i] op B(c, w) with A
// a vector over (opd0_c, opd0_w) whose last row holds opd1_w values: hand-computed values, then
// float and integer operations (wrapping and saturating), bitwise ops and the selects over
// the lane layout (operands wrapping past lane 63) against a reference written here from the
// documented operation, and div / mulDHR refused by name.
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

// sVC sub on FP32: A = 1, 2, 3 (one row), B = (10, 20 | 30, 40) on two lanes:
// R(i, c, 0, w) = A[i] - B(c, w).
TEST(SimVc, HandValuesSub) {
  host::Machine m{host::kProfileSg2260};
  const Placed A{m, 5, 0x100, kF32, true, 1, 1, 3};
  const Placed B{m, 9, 0x200, kF32, true, 2, 1, 2};
  const Placed R{m, 9, 0x4000, kF32, true, 2, 1, 2};
  for (int i = 0; i < 3; ++i) put(A.at(0, 0, 0, i), kF32, true, i + 1);
  put(B.at(0, 0, 0, 0), kF32, true, 10); put(B.at(0, 0, 0, 1), kF32, true, 20);
  put(B.at(0, 1, 0, 0), kF32, true, 30); put(B.at(0, 1, 0, 1), kF32, true, 40);
  Cmd cm(CmdClass::sVC, 3);
  cmd::SVcRef v(cm.b);
  v.set_opt_res0_prec(kF32); v.set_opt_opd0_prec(kF32); v.set_opt_opd1_prec(kF32);
  v.set_opd0_c(1); v.set_opd0_w(3); v.set_opd1_w(3); v.set_res0_c(2); v.set_res0_w(2);
  v.set_res0_addr(R.local()); v.set_opd0_addr(A.local()); v.set_opd1_addr(B.local());
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  const double want[3][2][2] = {{{-9, -19}, {-29, -39}}, {{-8, -18}, {-28, -38}}, {{-7, -17}, {-27, -37}}};
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 2; ++c)
      for (int w = 0; w < 2; ++w) EXPECT_EQ(get(R.at(i, c, 0, w), kF32, true), want[i][c][w]) << i << c << w;
}

struct VcCase {
  uint32_t eu, a_prec, b_prec, r_prec;
  bool a_sign, b_sign, r_sign;
};

// The reference: the operation on exact values, then the store into R's format.
void reference(const VcCase& k, double a, double b, uint32_t select, uint8_t* out) {
  const uint32_t bits = esize(k.r_prec) * 8;
  const bool fl = k.r_prec == kF32 || k.r_prec == kF16 || k.r_prec == kBf16;
  if (k.eu == 10 || k.eu == 11 || k.eu == 13) {
    const bool hold = k.eu == 10 ? a > b : k.eu == 11 ? a == b : a < b;
    const uint32_t v = hold ? select : 0;
    std::memcpy(out, &v, esize(k.r_prec));
    return;
  }
  double r = 0;
  switch (k.eu) {
    case 0: case 20: r = a * b; break;
    case 2: case 15: r = a + b; break;
    case 3: case 16: r = a - b; break;
    case 4: r = a > b ? a : b; break;
    case 5: r = a < b ? a : b; break;
    case 7: r = double(int64_t(a) & int64_t(b)); break;
    case 8: r = double(int64_t(a) | int64_t(b)); break;
    case 9: r = double(int64_t(a) ^ int64_t(b)); break;
  }
  if (fl) {
    put(out, k.r_prec, k.r_sign, r);
    return;
  }
  const bool satu = k.eu == 15 || k.eu == 16 || k.eu == 20;
  if (satu) {
    const double hi = k.r_sign ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    const double lo = k.r_sign ? -std::ldexp(1.0, bits - 1) : 0;
    r = r > hi ? hi : r < lo ? lo : r;
  }
  const uint64_t wrapped = uint64_t(int64_t(r));  // two's complement, low bytes kept
  std::memcpy(out, &wrapped, esize(k.r_prec));
}

// A: 3 rows of 5 from lane 62 with 2 in the last (A_len 12); B (1, 4, 1, 7) from lane 62;
// R (12, 4, 1, 7) from lane 62: both wrap past lane 63.
void vc_case(const VcCase& k, bool is_short) {
  host::Machine m{host::kProfileSg2260};
  const uint64_t AC = 3, AW = 5, ALAST = 2, BC = 4, BW = 7, ALEN = (AC - 1) * AW + ALAST;
  const Placed A{m, 62, 0x100, k.a_prec, k.a_sign, AC, 1, AW};
  const Placed B{m, 62, 0x2000, k.b_prec, k.b_sign, BC, 1, BW};
  const Placed R{m, 62, 0x8000, k.r_prec, k.r_sign, BC, 1, BW};
  const auto value = [](Lcg& r, uint32_t prec, bool sign) {
    if (prec == kF32 || prec == kF16 || prec == kBf16) return r.next(-400, 400) / 16.0;
    const int bits = int(esize(prec)) * 8;
    const int hi = bits >= 16 ? 30000 : (sign ? 127 : 255);
    return double(r.next(sign ? -hi : 0, hi));
  };
  Lcg r{k.eu * 100 + k.a_prec * 10 + k.r_prec};
  for (uint64_t i = 0; i < ALEN; ++i) put(A.at(0, i / AW, 0, i % AW), k.a_prec, k.a_sign, value(r, k.a_prec, k.a_sign));
  for (uint64_t c = 0; c < BC; ++c)
    for (uint64_t w = 0; w < BW; ++w) put(B.at(0, c, 0, w), k.b_prec, k.b_sign, value(r, k.b_prec, k.b_sign));
  // one equal pair for the equality select
  put(B.at(0, 1, 0, 3), k.b_prec, k.b_sign, get(A.at(0, 0, 0, 0), k.a_prec, k.a_sign));
  const uint32_t select = 0x5A3C7E11;
  Cmd cm(is_short ? CmdClass::sVC : CmdClass::VC, k.eu);
  auto fields = [&](auto v) {
    v.set_opt_res0_prec(k.r_prec); v.set_opt_opd0_prec(k.a_prec); v.set_opt_opd1_prec(k.b_prec);
    v.set_opt_opd0_sign(k.a_sign); v.set_opt_opd1_sign(k.b_sign);
    v.set_opd0_c(AC); v.set_opd0_w(AW); v.set_opd1_w(ALAST); v.set_res0_c(BC); v.set_res0_w(BW);
    v.set_res0_addr(R.local()); v.set_opd0_addr(A.local()); v.set_opd1_addr(B.local()); v.set_opd2_addr(select);
  };
  if (is_short) {
    fields(cmd::SVcRef(cm.b));
    cm.b[6] = uint8_t((cm.b[6] & ~0x80) | (k.r_sign ? 0x80 : 0));  // R's sign at bit 55
  } else {
    cmd::TiuLongRef v(cm.b);
    fields(v);
    v.set_opt_res0_sign(k.r_sign);
  }
  std::string msg;
  ASSERT_EQ(run(m, cm.b, &msg), Status::ok) << msg;
  for (uint64_t i = 0; i < ALEN; ++i) {
    const double a = get(A.at(0, i / AW, 0, i % AW), k.a_prec, k.a_sign);
    for (uint64_t c = 0; c < BC; ++c)
      for (uint64_t w = 0; w < BW; ++w) {
        uint8_t want[4] = {};
        reference(k, a, get(B.at(0, c, 0, w), k.b_prec, k.b_sign), select, want);
        ASSERT_EQ(std::memcmp(want, R.at(i, c, 0, w), esize(k.r_prec)), 0) << i << " " << c << " " << w;
      }
  }
}

TEST(SimVc, FloatAddF16) { vc_case({2, kF16, kF16, kF16, true, true, true}, true); }
TEST(SimVc, FloatMulF32) { vc_case({0, kF32, kF32, kF32, true, true, true}, false); }
TEST(SimVc, FloatSubBf16ToF32) { vc_case({3, kBf16, kBf16, kF32, true, true, true}, false); }
TEST(SimVc, MaxMinF16) {
  vc_case({4, kF16, kF16, kF16, true, true, true}, true);
  vc_case({5, kF16, kF16, kF16, true, true, true}, false);
}
TEST(SimVc, IntWrapAndSaturate) {
  vc_case({2, kI8, kI8, kI8, true, true, true}, true);         // wraps
  vc_case({15, kI8, kI8, kI8, true, true, true}, false);       // add_satu
  vc_case({16, kI16, kI8, kI8, true, true, false}, true);      // sub_satu into uint8
  vc_case({20, kI16, kI16, kI32, true, true, true}, false);    // mul_satu
  vc_case({0, kI8, kI16, kI16, false, true, true}, false);     // mul wraps to int16
}
TEST(SimVc, Bitwise) {
  vc_case({7, kI16, kI16, kI16, true, true, true}, true);
  vc_case({8, kI8, kI8, kI8, false, false, false}, false);
  vc_case({9, kI32, kI32, kI32, true, true, true}, true);
}
TEST(SimVc, SelectsWriteTheValue) {
  vc_case({10, kF16, kF16, kI32, true, true, false}, true);
  vc_case({11, kI8, kI8, kI16, true, true, false}, false);
  vc_case({13, kF32, kF32, kF32, true, true, true}, true);
}

// The run's work counts every R element (A_len x res0_c x res0_w), and an R larger than LMEM
// is refused at the command entry, before any loop.
TEST(SimVc, WorkCountsEveryResultElement) {
  host::Machine m{host::kProfileSg2260};
  Cmd cm(CmdClass::sVC, 2);
  cmd::SVcRef v(cm.b);
  v.set_opt_res0_prec(kF32); v.set_opt_opd0_prec(kF32); v.set_opt_opd1_prec(kF32);
  v.set_opd0_c(3); v.set_opd0_w(5); v.set_opd1_w(2); v.set_res0_c(4); v.set_res0_w(7);
  uint64_t work = 0;
  std::string msg;
  ASSERT_EQ(sim::command_extent(m, 0, cm.b, work, msg), Status::ok) << msg;
  EXPECT_EQ(work, 12u * 4 * 7);
  v.set_opd0_c(65535); v.set_opd0_w(65535); v.set_res0_c(2); v.set_res0_w(1);
  EXPECT_EQ(sim::command_extent(m, 0, cm.b, work, msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("sVC eu 2 res0"), std::string::npos) << msg;
}

TEST(SimVc, DivAndUndefinedRefusedByName) {
  for (uint32_t eu : {12u, 23u}) {
    host::Machine m{host::kProfileSg2260};
    Cmd cm(CmdClass::VC, eu);
    cmd::TiuLongRef v(cm.b);
    v.set_opt_res0_prec(kF32); v.set_opt_opd0_prec(kF32); v.set_opt_opd1_prec(kF32);
    v.set_opd0_c(1); v.set_opd0_w(1); v.set_opd1_w(1); v.set_res0_c(1); v.set_res0_w(1);
    std::string msg;
    EXPECT_EQ(run(m, cm.b, &msg), Status::sim_unsupported_op) << eu;
    EXPECT_NE(msg.find(eu == 12 ? "Newton" : "not a vector-correlation"), std::string::npos) << msg;
  }
}

}  // namespace
