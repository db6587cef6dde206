// SG2260 execution, TIU LIN / sLIN (fused linear): eu 1 mac, 20 add_sqr, 21 sub_sqr.
// Documented (the firmware's command generator and checks, its kernel API's names): A = opd0
// (n, c, h, w) and R = res0 of the same shape, align-EU; B = opd1 and C = opd2 one value per
// channel on the lanes (start lane R's) or constants (opt_opd1_const / opt_opd2_const); the
// long form has A's precision in opt_opd0_prec, the short form none (A, B and C take res0's,
// as the vendor debugger reads it); floats only (FP32 -> FP32, FP16 -> FP16 / FP32, BF16 ->
// BF16 / FP32). mac is the kernel API's scale_bias R = A x B + C, add_sqr its add_bias_sqr
// R = (A + B)^2, sub_sqr its sub_bias_sqr R = (A - B)^2. The rounding is a tilefw decision
// (docs/sg2260-commands.md section 15, "fused linear").
#include <cmath>
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

constexpr uint32_t kMac = 1, kAddSqr = 20, kSubSqr = 21;
constexpr uint32_t kPrecF16 = 1, kPrecF32 = 2, kPrecBf16 = 5;

struct LinParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;
  uint64_t res_addr, a_addr, b_addr, c_addr;
  uint32_t res_prec, in_prec;
  bool b_const, c_const;
  uint32_t mode[2];  // stride modes of res0, opd0 (short form: 0)
};

Status lin_check(const LinParams& a, const std::string& cls, std::string& msg) {
  if (a.eu != kMac && a.eu != kAddSqr && a.eu != kSubSqr) {
    return unsupported(msg, cls + ": not a fused-linear operation (1 mac, 20 add_sqr, 21 sub_sqr)");
  }
  const bool ok = (a.in_prec == kPrecF32 && a.res_prec == kPrecF32) ||
                  (a.in_prec == kPrecF16 && (a.res_prec == kPrecF16 || a.res_prec == kPrecF32)) ||
                  (a.in_prec == kPrecBf16 && (a.res_prec == kPrecBf16 || a.res_prec == kPrecF32));
  if (!ok) {
    return unsupported(msg, cls + ": " + prec_name(a.in_prec) + " inputs to a " + prec_name(a.res_prec) +
                                " result (defined: FP32 -> FP32, FP16 / BF16 -> itself or FP32)");
  }
  if (a.mode[0] != 0 || a.mode[1] != 0) {
    return unsupported(msg, cls + ": stride modes other than 0 (align-EU) for res0 / opd0");
  }
  return Status::ok;
}

// B or C of channel ch: the constant, or the channel's value on its lane.
Status channel_value(const Ctx& x, const LinParams& a, uint64_t addr, bool is_const, uint64_t ch, const char* what,
                     double& v, std::string& msg) {
  if (is_const) {
    v = const_value(static_cast<uint32_t>(addr), a.in_prec, true);
    return Status::ok;
  }
  const uint8_t* p = nullptr;
  const Status st = lane_vector(x, addr, ch, 1, 1, tiu_esize(a.in_prec), std::string(a.cls) + ": " + what, p, msg);
  if (st != Status::ok) return st;
  v = read_value(p, a.in_prec, true);
  return Status::ok;
}

// One result in FP32: mac one fused multiply-add; the squares the sum or difference rounded
// to FP32, then its square rounded to FP32.
float lin_value(uint32_t eu, float av, float bv, float cv) {
  if (eu == kMac) return std::fmaf(av, bv, cv);
  const float t = eu == kAddSqr ? av + bv : av - bv;
  return t * t;
}

Status run_lin(const Ctx& x, const LinParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  Status st = lin_check(a, cls, msg);
  if (st != Status::ok || a.n * a.c * a.h * a.w == 0) return st;
  TiuOperand A, R;
  st = tiu_operand(x, a.a_addr, a.in_prec, true, false, 0, a.c, a.h, a.w, 0, 0, 0, 0, a.cls, "opd0", A, msg);
  if (st == Status::ok) {
    st = tiu_operand(x, a.res_addr, a.res_prec, true, false, 0, a.c, a.h, a.w, 0, 0, 0, 0, a.cls, "res0", R, msg);
  }
  if (st != Status::ok) return st;
  for (uint64_t c = 0; c < a.c; ++c) {
    double bv = 0, cv = 0;
    st = channel_value(x, a, a.b_addr, a.b_const, c, "opd1 (B)", bv, msg);
    if (st == Status::ok && a.eu == kMac) st = channel_value(x, a, a.c_addr, a.c_const, c, "opd2 (C)", cv, msg);
    if (st != Status::ok) return st;
    for (uint64_t n = 0; n < a.n; ++n) {
      for (uint64_t h = 0; h < a.h; ++h) {
        for (uint64_t w = 0; w < a.w; ++w) {
          const uint8_t* p = element(A.side, n, c, h, w, A.ns, A.cs, A.hs, A.ws, A.esize);
          if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
          uint8_t* d = element(R.side, n, c, h, w, R.ns, R.cs, R.hs, R.ws, R.esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
          note_read(A.side, p, A.esize);
          note_write(R.side, d, R.esize);
          const float r = lin_value(a.eu, static_cast<float>(read_value(p, a.in_prec, true)), static_cast<float>(bv),
                                    static_cast<float>(cv));
          write_value(d, a.res_prec, r, RoundMode::nearest_even, true);
        }
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_lin(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sLIN) {
    const cmd::SLinView v(data);
    const uint32_t rp = static_cast<uint32_t>(v.opt_res0_prec());
    const LinParams a{"sLIN", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
                      v.opd1_addr(), v.opd2_addr(), rp, rp, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, {0, 0}};
    return run_lin(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const LinParams a{"LIN", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
                    v.opd1_addr(), v.opd2_addr(), static_cast<uint32_t>(v.opt_res0_prec()),
                    static_cast<uint32_t>(v.opt_opd0_prec()), v.opt_opd1_const() != 0, v.opt_opd2_const() != 0,
                    {static_cast<uint32_t>(v.short_res0_str()), static_cast<uint32_t>(v.short_opd0_str())}};
  return run_lin(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
