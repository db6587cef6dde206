// SG2260 execution, TIU VC / sVC (vector correlation). Documented (the firmware's command
// generator, its kernel API and tests, the vendor debugger): A = opd0 is a vector of A_len =
// (opd0_c - 1) * opd0_w + opd1_w values stored (1, opd0_c, 1, opd0_w) align-EU (the last
// channel holds opd1_w of them), B = opd1 is (1, res0_c, 1, res0_w) align-EU, and R = res0 is
// (A_len, res0_c, 1, res0_w) align-EU with R(i, c, 0, w) = A[i] op B(c, w); op is the AR
// operation of the same number (tsk_eu_typ), A = the kernel API's src0 (so sub is A - B);
// precisions and signs are separate for A, B and R; opd2_addr holds the selects' value.
// tilefw decisions (docs/sg2260-commands.md section 15, "vector correlation"): the element
// operation and store are AR's (sg2260/exec_ar_rows.hpp); a select writes the value's low
// bytes when the compare holds, else 0; div (its Newton iteration count in opd2_n_str) and
// mulDHR are refused by name.
#include <cstring>
#include <string>

#include "sg2260/exec_ar_rows.hpp"
#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/bits.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

struct VcParams {
  const char* cls;
  uint32_t eu;
  uint64_t a_c, a_w, a_last;  // opd0_c, opd0_w, opd1_w
  uint64_t b_c, b_w;          // res0_c, res0_w
  uint64_t addr[3];           // res0, opd0, opd1
  uint32_t prec[3];
  bool sign[3];
  uint32_t select;            // opd2_addr
};

bool vc_select(uint32_t eu) { return eu == 10 || eu == 11 || eu == 13; }

Status vc_check(const VcParams& a, const std::string& cls, std::string& msg) {
  switch (a.eu) {
    case 0: case 2: case 3: case 4: case 5: case 7: case 8: case 9: case 10: case 11: case 13: case 15: case 16:
    case 20:
      break;
    case 12:
      return unsupported(msg, cls + " (div): opd2_n_str counts its Newton iterations and their result is not given");
    default:
      return unsupported(msg, cls + ": not a vector-correlation operation the firmware admits");
  }
  const bool bitwise = a.eu == 7 || a.eu == 8 || a.eu == 9;
  for (int i = 0; i < 3; ++i) {
    if (tiu_esize(a.prec[i]) == 0) return unsupported(msg, cls + ": precision " + prec_name(a.prec[i]));
    if (bitwise && prec_is_float(a.prec[i])) return unsupported(msg, cls + " on floating-point operands");
  }
  if (a.a_last == 0 || a.a_last > a.a_w) {
    return fail(msg, Status::cmd_bad_field, cls + ": opd1_w (A's last row) is 0 or above opd0_w");
  }
  return Status::ok;
}

Status run_vc(const Ctx& x, const VcParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  Status st = vc_check(a, cls, msg);
  if (st != Status::ok || a.a_c * a.a_w * a.b_c * a.b_w == 0) return st;
  TiuOperand R, A, B;
  st = tiu_operand(x, a.addr[1], a.prec[1], a.sign[1], false, 0, a.a_c, 1, a.a_w, 0, 0, 0, 0, a.cls, "opd0", A, msg);
  if (st == Status::ok) {
    st = tiu_operand(x, a.addr[2], a.prec[2], a.sign[2], false, 0, a.b_c, 1, a.b_w, 0, 0, 0, 0, a.cls, "opd1", B, msg);
  }
  if (st == Status::ok) {
    st = tiu_operand(x, a.addr[0], a.prec[0], a.sign[0], false, 0, a.b_c, 1, a.b_w, 0, 0, 0, 0, a.cls, "res0", R, msg);
  }
  if (st != Status::ok) return st;
  ArRow row;
  row.eu = a.eu;
  for (int i = 0; i < 3; ++i) {
    row.prec[i] = a.prec[i];
    row.sign[i] = a.sign[i];
  }
  const uint64_t a_len = (a.a_c - 1) * a.a_w + a.a_last;
  for (uint64_t i = 0; i < a_len; ++i) {
    const uint8_t* pa = element(A.side, 0, i / a.a_w, 0, i % a.a_w, A.ns, A.cs, A.hs, A.ws, A.esize);
    if (pa == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
    note_read(A.side, pa, A.esize);
    const double av = read_value(pa, a.prec[1], a.sign[1]);
    for (uint64_t c = 0; c < a.b_c; ++c) {
      for (uint64_t w = 0; w < a.b_w; ++w) {
        const uint8_t* pb = element(B.side, 0, c, 0, w, B.ns, B.cs, B.hs, B.ws, B.esize);
        if (pb == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd1 outside LMEM");
        uint8_t* d = element(R.side, i, c, 0, w, R.ns, R.cs, R.hs, R.ws, R.esize);
        if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
        note_read(B.side, pb, B.esize);
        note_write(R.side, d, R.esize);
        const double r = ar_apply(a.eu, av, read_value(pb, a.prec[2], a.sign[2]));
        if (vc_select(a.eu)) {
          const uint32_t bits = r != 0 ? a.select : 0;
          std::memcpy(d, &bits, R.esize);  // little-endian low bytes
        } else {
          store_ar(d, row, r);
        }
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_vc(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sVC) {
    const cmd::SVcView v(data);
    const VcParams a{"sVC", eu, v.opd0_c(), v.opd0_w(), v.opd1_w(), v.res0_c(), v.res0_w(),
                     {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
                     {static_cast<uint32_t>(v.opt_res0_prec()), static_cast<uint32_t>(v.opt_opd0_prec()),
                      static_cast<uint32_t>(v.opt_opd1_prec())},
                     // R's sign: bit 55, where the firmware's generator puts it in both forms
                     {cmd::read_field(data, 55, 1) != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
                     static_cast<uint32_t>(v.opd2_addr())};
    return run_vc(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const VcParams a{"VC", eu, v.opd0_c(), v.opd0_w(), v.opd1_w(), v.res0_c(), v.res0_w(),
                   {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
                   {static_cast<uint32_t>(v.opt_res0_prec()), static_cast<uint32_t>(v.opt_opd0_prec()),
                    static_cast<uint32_t>(v.opt_opd1_prec())},
                   {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
                   static_cast<uint32_t>(v.opd2_addr())};
  return run_vc(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
