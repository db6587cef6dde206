// SG2260 execution, TIU CMP / sCMP (fused compare). The operation names, the operand roles and
// the precisions each result takes are documented facts (docs/sg2260-commands.md section 15,
// "CMP"); the compare itself (exact values, NaN false) and max/min as the compare's own pick
// are tilefw decisions stated there. srch_bin is refused by name.
#include <cstring>
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

// eu 22 gt_and_sel (res0 = max, res1 = select), 23 sel_gt, 24 sel_eq, 25 lt_and_sel (res0 =
// min, res1 = select), 26 sel_lt, 27 srch_bin.
constexpr uint32_t kGtAndSel = 22, kSelGt = 23, kSelEq = 24, kLtAndSel = 25, kSelLt = 26, kSrchBin = 27;

struct CmpParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;
  uint64_t addr[6];     // res0, res1, opd0 (A), opd1 (B), opd2 (C), opd3 (D)
  uint32_t ab_prec, cd_prec;
  bool sign;            // A and B: integers signed, FP8 E4M3 (else E5M2)
  bool is_const[4];     // A, B, C, D
  uint32_t mode[2];     // A, B stride modes (C, D and the results are align-EU)
  uint64_t str[2][4];   // A, B explicit strides (long form only)
  bool has_strides;
};

bool two_results(uint32_t eu) { return eu == kGtAndSel || eu == kLtAndSel; }

// The compare of one element's A and B values (exact in double; a NaN compares false).
bool cmp_true(uint32_t eu, double a, double b) {
  switch (eu) {
    case kGtAndSel: case kSelGt: return a > b;
    case kSelEq: return a == b;
    default: return a < b;  // kLtAndSel, kSelLt
  }
}

Status cmp_operands(const Ctx& x, const CmpParams& a, TiuOperand (&o)[6], std::string& msg) {
  const std::string cls = a.cls;
  if (a.eu == kSrchBin) {
    return unsupported(msg, cls + " eu 27 (srch_bin): no public source gives the bins' layout or the side rule");
  }
  if (a.eu < kGtAndSel || a.eu > kSelLt) return unsupported(msg, cls + " eu " + std::to_string(a.eu) + ": not a CMP operation");
  static const char* const kNames[] = {"res0", "res1", "opd0", "opd1", "opd2", "opd3"};
  const uint32_t res0_prec = two_results(a.eu) ? a.ab_prec : a.cd_prec;
  const uint32_t prec[6] = {res0_prec, a.cd_prec, a.ab_prec, a.ab_prec, a.cd_prec, a.cd_prec};
  for (int i = 0; i < 6; ++i) {
    if (i == 1 && !two_results(a.eu)) continue;
    const bool k = i >= 2 && a.is_const[i - 2];
    uint32_t mode = 0;
    const uint64_t* s = nullptr;
    if (i == 2 || i == 3) {
      mode = a.mode[i - 2];
      s = a.str[i - 2];
      if (mode == 3 && !a.has_strides && !k) {
        return unsupported(msg, cls + ": " + kNames[i] + " stride mode 3 (the short form has no stride fields)");
      }
    }
    static const uint64_t kNone[4] = {0, 0, 0, 0};
    if (s == nullptr) s = kNone;
    const Status st = tiu_operand(x, a.addr[i], prec[i], i == 2 || i == 3 ? a.sign : true, k, mode, a.c, a.h, a.w,
                                  s[0], s[1], s[2], s[3], a.cls, kNames[i], o[i], msg);
    if (st != Status::ok) return st;
  }
  return Status::ok;
}

// The element of operand `o` at (n, c, h, w), logged as a read or write; nullptr for a constant
// (its bits are o.const_bits). `bad` is set when the element lies outside LMEM.
uint8_t* at(const TiuOperand& o, uint64_t n, uint64_t c, uint64_t h, uint64_t w, bool write, bool& bad) {
  if (o.is_const) return nullptr;
  uint8_t* p = element(o.side, n, c, h, w, o.ns, o.cs, o.hs, o.ws, o.esize);
  if (p == nullptr) {
    bad = true;
    return nullptr;
  }
  if (write) note_write(o.side, p, o.esize);
  else note_read(o.side, p, o.esize);
  return p;
}

// Copies the picked operand's element bits (a constant: the low bytes of its 32-bit field).
void copy_pick(uint8_t* d, const TiuOperand& src, const uint8_t* p) {
  if (p != nullptr) std::memmove(d, p, src.esize);
  else std::memcpy(d, &src.const_bits, src.esize);  // little-endian low bytes
}

Status run_cmp(const Ctx& x, const CmpParams& a, std::string& msg) {
  TiuOperand o[6];
  const Status s = cmp_operands(x, a, o, msg);
  if (s != Status::ok) return s;
  const bool two = two_results(a.eu);
  static const char* const kNames[] = {"res0", "res1", "opd0", "opd1", "opd2", "opd3"};
  for (uint64_t n = 0; n < a.n; ++n) {
    for (uint64_t c = 0; c < a.c; ++c) {
      for (uint64_t h = 0; h < a.h; ++h) {
        for (uint64_t w = 0; w < a.w; ++w) {
          bool bad[6] = {};
          const uint8_t* in[4];
          for (int i = 0; i < 4; ++i) in[i] = at(o[i + 2], n, c, h, w, false, bad[i + 2]);
          uint8_t* r0 = at(o[0], n, c, h, w, true, bad[0]);
          uint8_t* r1 = two ? at(o[1], n, c, h, w, true, bad[1]) : nullptr;
          for (int i : {2, 3, 4, 5, 0, 1}) {
            if (bad[i]) return fail(msg, Status::cmd_footprint_out_of_range, std::string(a.cls) + ": " + kNames[i] + " outside LMEM");
          }
          const double va = in[0] != nullptr ? read_value(in[0], a.ab_prec, a.sign) : const_value(o[2].const_bits, a.ab_prec, a.sign);
          const double vb = in[1] != nullptr ? read_value(in[1], a.ab_prec, a.sign) : const_value(o[3].const_bits, a.ab_prec, a.sign);
          const bool t = cmp_true(a.eu, va, vb);
          // every input is read before a result is written (a result may overwrite an input)
          uint8_t pick_ab[4], pick_cd[4];
          copy_pick(pick_ab, t ? o[2] : o[3], t ? in[0] : in[1]);
          copy_pick(pick_cd, t ? o[4] : o[5], t ? in[2] : in[3]);
          if (two) {
            std::memcpy(r0, pick_ab, o[0].esize);
            std::memcpy(r1, pick_cd, o[1].esize);
          } else {
            std::memcpy(r0, pick_cd, o[0].esize);
          }
        }
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_cmp(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sCMP) {
    const cmd::SCmpView v(data);
    const CmpParams a{"sCMP", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(),
                      {v.res0_addr(), v.res1_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
                      v.opt_opd0_prec(), v.opt_opd2_prec(), v.opt_opd0_sign() != 0,
                      {v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
                      {v.short_opd0_str(), v.short_opd1_str()}, {}, false};
    return run_cmp(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const CmpParams a{"CMP", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(),
                    {v.res0_addr(), v.res1_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
                    v.opt_opd0_prec(), v.opt_opd2_prec(), v.opt_opd0_sign() != 0,
                    {v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
                    {v.short_opd0_str(), v.short_opd1_str()},
                    {{v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
                     {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}},
                    true};
  return run_cmp(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
