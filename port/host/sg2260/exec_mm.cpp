// SG2260 execution, TIU MM / sMM (mm.normal, eu 1): the older lane-split matrix multiply.
// Semantics and layout (a tilefw decision fitted to the real ResNet-50 commands):
// sg2260/sim.hpp (execute_command, "MM").
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

struct MmParams {
  const char* cls;
  uint64_t M, lc, lw;  // left: M rows, each split over lc lanes x lw columns (K = lc * lw)
  uint64_t rc, rw;     // result (and right) columns: rc lanes x rw (N = rc * rw)
  uint64_t addr[4];    // res0, opd0, opd1, opd2
  uint32_t prec[2];    // res0, opd0 (opd1 and the bias share opd0's / res0's)
  bool sign[4];
  bool left_tran, opd0_const, bias_const, res_add, relu, rq;
  uint32_t mode[3];
  uint64_t str[3][4];
};

Status mm_check(const MmParams& a, const std::string& cls, std::string& msg) {
  if (a.rq) return unsupported(msg, cls + " with opt_rq (requantisation)");
  if (a.left_tran) return unsupported(msg, cls + " with opt_left_tran (transposed left matrix)");
  if (a.opd0_const) return unsupported(msg, cls + " with a constant left matrix (opt_opd0_const)");
  if (prec_is_float(a.prec[0]) != prec_is_float(a.prec[1])) {
    return unsupported(msg, cls + ": float and integer operands mixed");
  }
  if (tiu_esize(a.prec[0]) == 0 || tiu_esize(a.prec[1]) == 0) return unsupported(msg, cls + ": INT4 operands");
  if (!prec_is_float(a.prec[1]) && tiu_esize(a.prec[1]) > 2) {
    return unsupported(msg, cls + ": INT32 operands (integer MM takes int8 / int16 operands)");
  }
  return Status::ok;
}

Status run_mm(const Ctx& x, const MmParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu 1";
  Status st = mm_check(a, cls, msg);
  if (st != Status::ok) return st;
  const uint64_t K = a.lc * a.lw, N = a.rc * a.rw;
  if (a.M * N == 0) return Status::ok;
  TiuOperand y, l, r, b;
  st = tiu_operand(x, a.addr[0], a.prec[0], a.sign[0], false, a.mode[0], a.rc, 1, a.rw, a.str[0][0], a.str[0][1],
                   a.str[0][2], a.str[0][3], a.cls, "res0", y, msg);
  if (st == Status::ok) {
    st = tiu_operand(x, a.addr[1], a.prec[1], a.sign[1], false, a.mode[1], a.lc, 1, a.lw, a.str[1][0], a.str[1][1],
                     a.str[1][2], a.str[1][3], a.cls, "opd0", l, msg);
  }
  if (st == Status::ok) {
    st = tiu_operand(x, a.addr[2], a.prec[1], a.sign[2], false, a.mode[2], a.rc, 1, a.rw, a.str[2][0], a.str[2][1],
                     a.str[2][2], a.str[2][3], a.cls, "opd1", r, msg);
  }
  if (st == Status::ok) {
    st = tiu_operand(x, a.addr[3], a.prec[0], a.sign[3], a.bias_const, 0, a.rc, 1, a.rw, 0, 0, 0, 0, a.cls, "opd2", b, msg);
  }
  if (st != Status::ok) return st;
  const bool fl = prec_is_float(a.prec[0]);
  // the left matrix once (M x K), then one result column at a time
  std::vector<double> left(a.M * K);
  for (uint64_t m = 0; m < a.M; ++m) {
    for (uint64_t k = 0; k < K; ++k) {
      const uint8_t* p = element(l.side, m, k / a.lw, 0, k % a.lw, l.ns, l.cs, l.hs, l.ws, l.esize);
      if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
      note_read(l.side, p, l.esize);
      left[m * K + k] = read_value(p, l.prec, l.sign);
    }
  }
  std::vector<double> col(K);
  for (uint64_t j = 0; j < N; ++j) {
    const uint64_t jc = j / a.rw, jw = j % a.rw;
    for (uint64_t k = 0; k < K; ++k) {
      const uint8_t* p = element(r.side, k, jc, 0, jw, r.ns, r.cs, r.hs, r.ws, r.esize);
      if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd1 outside LMEM");
      note_read(r.side, p, r.esize);
      col[k] = read_value(p, r.prec, r.sign);
    }
    double bias = b.is_const ? const_value(b.const_bits, b.prec, b.sign) : 0;
    if (!b.is_const) {
      const uint8_t* p = element(b.side, 0, jc, 0, jw, b.ns, b.cs, b.hs, b.ws, b.esize);
      if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd2 (bias) outside LMEM");
      note_read(b.side, p, b.esize);
      bias = read_value(p, b.prec, b.sign);
    }
    for (uint64_t m = 0; m < a.M; ++m) {
      float facc = 0;
      double iacc = 0;
      for (uint64_t k = 0; k < K; ++k) {
        if (fl) facc = std::fmaf(static_cast<float>(left[m * K + k]), static_cast<float>(col[k]), facc);
        else iacc += left[m * K + k] * col[k];
      }
      uint8_t* d = element(y.side, m, jc, 0, jw, y.ns, y.cs, y.hs, y.ws, y.esize);
      if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
      double v = fl ? static_cast<double>(facc + static_cast<float>(bias)) : iacc + bias;
      if (a.res_add) {
        note_read(y.side, d, y.esize);
        const double old = read_value(d, y.prec, y.sign);
        v = fl ? static_cast<double>(static_cast<float>(v) + static_cast<float>(old)) : v + old;
      }
      if (a.relu && v < 0) v = 0;
      note_write(y.side, d, y.esize);
      if (fl) {
        write_value(d, y.prec, v, RoundMode::nearest_even, y.sign);
      } else {  // saturate to res0's range
        const int bits = static_cast<int>(y.esize * 8);
        const double lo = y.sign ? -std::ldexp(1.0, bits - 1) : 0.0;
        const double hi = y.sign ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
        const int64_t iv = static_cast<int64_t>(v < lo ? lo : v > hi ? hi : v);
        std::memcpy(d, &iv, y.esize);
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_mm(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  (void)eu;  // MM has eu 1 only (the class table)
  if (c == CmdClass::sMM) {
    const cmd::SMmView v(data);
    MmParams a{"sMM", v.opd0_n(), v.opd0_c(), v.opd0_w(), v.res0_c(), v.res0_w(),
               {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
               {v.opt_res0_prec(), v.opt_opd0_prec()},
               {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
               v.opt_left_tran() != 0, v.opt_opd0_const() != 0, v.opt_opd2_const() != 0, v.opt_res_add() != 0,
               v.opt_relu() != 0, v.opt_rq() != 0,
               {0, 0, 0},
               {}};
    return run_mm(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  MmParams a{"MM", v.opd0_n(), v.opd0_c(), v.opd0_w(), v.res0_c(), v.res0_w(),
             {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
             {v.opt_res0_prec(), v.opt_opd0_prec()},
             {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
             v.opt_left_tran() != 0, v.opt_opd0_const() != 0, v.opt_opd2_const() != 0, v.opt_res_add() != 0,
             v.opt_relu() != 0, v.opt_rq() != 0,
             {v.short_res0_str(), v.short_opd0_str(), v.short_opd1_str()},
             {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
              {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
              {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}}};
  return run_mm(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
