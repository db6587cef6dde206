// TIU operand checks of the classes whose operands take layouts other than "each operand its
// own shape, align-EU or explicit strides": CMP (every operand has res0's shape, res1 for the
// two-result compares, precisions from opd0 / opd2), RQ&DQ (a per-channel parameter tensor,
// or constants in opd1 / opd2), SGL (rows padded to the EU count, a table, indices) and the
// requantising CONV (per-channel vectors at the addresses the TIU global config registers hold)
// LIN (A and R align-EU, B and C per-channel vectors) and VC (a vector against a tensor).
// The footprints are the ones the operations are defined with (docs/sg2260-commands.md
// section 15), so that a command validation accepts cannot fault on a footprint when it runs.
// Each check is written once against a Reader: the fields it reads, located by a table per
// layout (2 bytes a field), so the long and the short forms share one copy of the code.

#include "footprint.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;

// Operands in SMEM get a start check (TIU layouts are lane layouts).
inline Fail local(uint32_t addr, const Footprint& f, const char* field) noexcept {
  return check_local(addr, sg::local_is_smem(addr) ? Footprint{} : f, field);
}
inline Fail align_eu_operand(uint32_t addr, uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t prec,
                             const char* field) noexcept {
  return local(addr, align_eu_footprint(n, c, h, w, tiu_esize(prec)), field);
}

// The fields the checks below read; a short form lacks some (they read as 0), the long form has
// them all. (CMP's strides, which only the long form has, are read through its view.)
#define TILEFW_EXEC_FIELDS(X)                                                                  \
  X(res0_addr) X(res1_addr) X(opd0_addr) X(opd1_addr) X(opd2_addr) X(opd3_addr)               \
  X(res0_n) X(res0_c) X(res0_h) X(res0_w) X(opd0_c) X(opd0_h) X(opd0_w) X(opd1_w)               \
  X(opt_opd0_const) X(opt_opd1_const) X(opt_opd2_const) X(opt_opd3_const) X(opt_opd4_const)    \
  X(opt_opd5_const) X(opt_res0_prec) X(opt_opd0_prec) X(opt_opd1_prec) X(opt_opd2_prec)        \
  X(opt_rq) X(short_res0_str) X(short_opd0_str) X(short_opd1_str)

struct ExecFields {
#define TILEFW_EXEC_DECL(n) Fld n;
  TILEFW_EXEC_FIELDS(TILEFW_EXEC_DECL)
#undef TILEFW_EXEC_DECL
};
template <size_t N>
constexpr ExecFields exec_fields(const FieldDesc (&t)[N], bool required) {
  ExecFields f;
#define TILEFW_EXEC_FILL(n) f.n = fld(t, #n, required);
  TILEFW_EXEC_FIELDS(TILEFW_EXEC_FILL)
#undef TILEFW_EXEC_FILL
  return f;
}
constexpr ExecFields kLongExec = exec_fields(kTiuLongFields, true);
constexpr ExecFields kSCmpExec = exec_fields(kSCmpFields, false);
constexpr ExecFields kSRqDqExec = exec_fields(kSRqDqFields, false);
constexpr ExecFields kSSglExec = exec_fields(kSSglFields, false);
constexpr ExecFields kSConvExec = exec_fields(kSConvFields, false);
constexpr ExecFields kSLinExec = exec_fields(kSLinFields, false);
constexpr ExecFields kSVcExec = exec_fields(kSVcFields, false);
// check_vc_view forms A's length in 32 bits: opd0_c and opd0_w are 16-bit fields.
static_assert((kLongExec.opd0_c.v >> 10) <= 16 && (kLongExec.opd0_w.v >> 10) <= 16 &&
              (kSVcExec.opd0_c.v >> 10) <= 16 && (kSVcExec.opd0_w.v >> 10) <= 16);

/// A command read through its layout's table, with the accessors of a view.
struct Reader {
  const ExecFields* f;
  const uint8_t* p;
#define TILEFW_EXEC_READ(n) \
  uint32_t n() const noexcept { return get(p, f->n); }
  TILEFW_EXEC_FIELDS(TILEFW_EXEC_READ)
#undef TILEFW_EXEC_READ
};
#undef TILEFW_EXEC_FIELDS

// ---- CMP: eu 22 gt_and_sel, 23 sel_gt, 24 sel_eq, 25 lt_and_sel, 26 sel_lt ----------------
constexpr bool two_results(uint32_t eu) noexcept { return eu == 22 || eu == 25; }

struct Strides {
  uint32_t n = 0, c = 0, h = 0, w = 0;
};

// A or B: stride mode 0 (align-EU) or 3 (the command's strides; the short form has none, so
// only its start is checked); a constant is not an address.
template <class V>
Fail cmp_input(const V& v, uint32_t addr, bool konst, uint32_t mode, const Strides* s, const char* field,
               const char* mode_field) noexcept {
  if (konst) return kPass;
  if (mode != 0 && mode != 3) return {Status::cmd_bad_field, mode_field,
      TILEFW_REASON("stride mode other than 0 (alignEU) or 3 (explicit)")};
  const uint32_t esize = tiu_esize(static_cast<uint32_t>(v.opt_opd0_prec()));
  Footprint f;
  if (mode == 0) {
    f = align_eu_footprint(v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), esize);
  } else if (s != nullptr) {
    f = tensor_footprint(v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), s->n, s->c, s->h, s->w, esize);
  }
  return local(addr, f, field);
}

template <class V>
Fail check_cmp_view(const V& v, uint32_t eu, const Strides* a_str, const Strides* b_str) noexcept {
  const uint32_t n = v.res0_n(), c = v.res0_c(), h = v.res0_h(), w = v.res0_w();
  const uint32_t ab = static_cast<uint32_t>(v.opt_opd0_prec()), cd = static_cast<uint32_t>(v.opt_opd2_prec());
  // res0 holds the max / min of A and B (A's precision) or the pick of C and D (C's).
  Fail r = align_eu_operand(v.res0_addr(), n, c, h, w, two_results(eu) ? ab : cd, "res0_addr");
  if (!r.ok()) return r;
  r = two_results(eu) ? align_eu_operand(v.res1_addr(), n, c, h, w, cd, "res1_addr")
                      : check_local(v.res1_addr(), Footprint{}, "res1_addr");
  if (!r.ok()) return r;
  r = cmp_input(v, v.opd0_addr(), v.opt_opd0_const() != 0, v.short_opd0_str(), a_str, "opd0_addr", "short_opd0_str");
  if (!r.ok()) return r;
  r = cmp_input(v, v.opd1_addr(), v.opt_opd1_const() != 0, v.short_opd1_str(), b_str, "opd1_addr", "short_opd1_str");
  if (!r.ok()) return r;
  if (v.opt_opd2_const() == 0) {
    r = align_eu_operand(v.opd2_addr(), n, c, h, w, cd, "opd2_addr");
    if (!r.ok()) return r;
  }
  if (v.opt_opd3_const() == 0) return align_eu_operand(v.opd3_addr(), n, c, h, w, cd, "opd3_addr");
  return kPass;
}

// ---- RQ&DQ: eu 0 rq0, 1 rq1, 3 dq0, 4 dq1 ---------------------------------------------------
template <class V>
Fail check_rqdq_view(const V& v, uint32_t eu) noexcept {
  const uint32_t n = v.res0_n(), c = v.res0_c(), h = v.res0_h(), w = v.res0_w();
  Fail r = align_eu_operand(v.res0_addr(), n, c, h, w, static_cast<uint32_t>(v.opt_res0_prec()), "res0_addr");
  if (!r.ok()) return r;
  r = align_eu_operand(v.opd0_addr(), n, c, h, w, static_cast<uint32_t>(v.opt_opd0_prec()), "opd0_addr");
  if (!r.ok()) return r;
  // Constants: opd1 and opd2 hold the scale / zp / shift bits, neither is an address.
  if (v.opt_opd1_const() != 0) return kPass;
  // The per-channel INT32 tensor (1, c, 1, k): rq0 and dq0 two values, rq1 and dq1 three.
  const uint32_t k = eu == 0 || eu == 3 ? 2 : 3;
  r = align_eu_operand(v.opd1_addr(), 1, c, 1, k, 4, "opd1_addr");
  if (!r.ok()) return r;
  return check_local(v.opd2_addr(), Footprint{}, "opd2_addr");
}

// ---- SGL: eu 17 gather_line, 18 scatter_line ------------------------------------------------
// A and R by rows: w contiguous, each row padded to the EU count, `rows` rows per channel,
// channels on lanes (R: n over the lanes' groups as align-EU; A: one image, channel stride 0
// when shared by every lane).
TILEFW_CMD_OUTLINE Footprint padded_rows(uint32_t n, uint32_t c, uint32_t rows, uint32_t w, uint32_t esize,
                                         bool shared) noexcept {
  Footprint f;
  if (n == 0 || c == 0 || rows == 0 || w == 0 || esize == 0) return f;
  const uint64_t hs = align_eu(w, esize);
  f.known = true;
  f.esize = esize;
  f.base = (rows - 1) * hs + w;
  f.lanes = c;
  f.cs = shared ? 0 : rows * hs;
  f.n_minus_1 = n - 1;
  f.align_eu_ns = true;
  return f;
}

template <class V>
Fail check_sgl_view(const V& v, uint32_t eu) noexcept {
  const uint32_t n = v.res0_n(), c = v.res0_c(), h = v.res0_h(), w = v.res0_w(), a_h = v.opd0_h();
  const uint32_t esize = tiu_esize(static_cast<uint32_t>(v.opt_res0_prec()));
  Fail r = local(v.res0_addr(), padded_rows(n, c, h, w, esize, false), "res0_addr");
  if (!r.ok()) return r;
  // Table mode 3: a table per channel; 4: one table position in every lane. Other modes have
  // no defined layout: start check.
  const uint32_t mode = v.short_opd0_str();
  r = local(v.opd0_addr(), mode == 3 || mode == 4 ? padded_rows(1, c, a_h, w, esize, mode == 4) : Footprint{},
            "opd0_addr");
  if (!r.ok()) return r;
  // Indices (n, c, rows, 1) align-EU: a result row each (gather), a table row each (scatter).
  r = align_eu_operand(v.opd1_addr(), n, c, eu == 17 ? h : a_h, 1, static_cast<uint32_t>(v.opt_opd1_prec()),
                       "opd1_addr");
  if (!r.ok()) return r;
  if (v.opt_opd2_const() == 0) {
    r = check_local(v.opd2_addr(), Footprint{}, "opd2_addr");
    if (!r.ok()) return r;
  }
  return check_local(v.res1_addr(), Footprint{}, "res1_addr");
}

// ---- requantising CONV: eu 0 with opt_rq -------------------------------------------------
// A per-channel vector on lanes: channel ch's `count` values at lane (L + ch) % 64, in-lane
// offset + ((L + ch) / 64) * slab elements (the lane rule of the bias).
inline Fail lane_vector(uint32_t addr, uint32_t c, uint32_t count, uint32_t slab, uint32_t esize,
                        const char* field) noexcept {
  return local(addr, tensor_footprint(1, c, 1, count, 0, slab, 0, 1, esize), field);
}

template <class V>
Fail check_conv_rq_view(const V& v, const TgcrState& t) noexcept {
  if (v.opt_rq() == 0 || v.opt_opd5_const() != 0) return kPass;  // the constant form reads no tensor
  const uint32_t c = v.res0_c();
  if (static_cast<uint32_t>(v.opt_opd0_prec()) == 7) {  // FP8: one FP32 scale per channel
    return lane_vector(t.rq_params, c, 1, 1, 4, "TGCR 6 (requant parameters)");
  }
  const Fail r = lane_vector(t.rq_params, c, 2, 2, 4, "TGCR 6 (requant parameters)");
  if (!r.ok() || v.opt_opd4_const() != 0) return r;
  return lane_vector(t.kernel_zp, c, 1, 1, 2, "TGCR 5 (kernel zero point)");
}

// ---- LIN: eu 1 mac, 20 add_sqr, 21 sub_sqr --------------------------------------------------
// A and R (n, c, h, w) align-EU, A in the input precision (the short form has none: res0's),
// B and C one value per channel on the lanes unless constant; C only for mac.
template <class V>
Fail check_lin_view(const V& v, uint32_t eu, uint32_t in_prec) noexcept {
  const uint32_t n = v.res0_n(), c = v.res0_c(), h = v.res0_h(), w = v.res0_w();
  Fail r = align_eu_operand(v.res0_addr(), n, c, h, w, static_cast<uint32_t>(v.opt_res0_prec()), "res0_addr");
  if (!r.ok()) return r;
  r = align_eu_operand(v.opd0_addr(), n, c, h, w, in_prec, "opd0_addr");
  if (!r.ok()) return r;
  const uint32_t esize = tiu_esize(in_prec);
  if (v.opt_opd1_const() == 0) {
    r = lane_vector(v.opd1_addr(), c, 1, 1, esize, "opd1_addr");
    if (!r.ok()) return r;
  }
  if (eu == 1 && v.opt_opd2_const() == 0) return lane_vector(v.opd2_addr(), c, 1, 1, esize, "opd2_addr");
  return kPass;
}

// ---- VC: R(i, c, 0, w) = A[i] op B(c, w) ----------------------------------------------------
// R (A_len, res0_c, 1, res0_w), A (1, opd0_c, 1, opd0_w) and B (1, res0_c, 1, res0_w), all
// align-EU, each in its own precision; A's last row is taken whole (the run reads opd1_w of
// it), so validation is the stricter of the two there.
template <class V>
Fail check_vc_view(const V& v) noexcept {
  const uint32_t ac = v.opd0_c(), aw = v.opd0_w(), bc = v.res0_c(), bw = v.res0_w();
  if (v.opd1_w() == 0 || v.opd1_w() > aw) {
    return {Status::cmd_bad_field, "opd1_w", TILEFW_REASON("A's last row (opd1_w) is 0 or longer than opd0_w")};
  }
  // opd0_c and opd0_w are 16-bit and opd1_w <= opd0_w: a_len <= opd0_c * opd0_w < 2^32.
  const uint32_t a_len = (ac == 0 ? 0 : (ac - 1) * aw) + v.opd1_w();
  Fail r = align_eu_operand(v.res0_addr(), a_len, bc, 1, bw, static_cast<uint32_t>(v.opt_res0_prec()), "res0_addr");
  if (!r.ok()) return r;
  r = align_eu_operand(v.opd0_addr(), 1, ac, 1, aw, static_cast<uint32_t>(v.opt_opd0_prec()), "opd0_addr");
  if (!r.ok()) return r;
  return align_eu_operand(v.opd1_addr(), 1, bc, 1, bw, static_cast<uint32_t>(v.opt_opd1_prec()), "opd1_addr");
}

}  // namespace

bool vc_executed(const Command& c) noexcept {
  switch (c.eu) {
    case 0: case 2: case 3: case 4: case 5: case 7: case 8: case 9: case 10: case 11: case 13: case 15: case 16:
    case 20:
      return c.cls == CmdClass::VC || c.cls == CmdClass::sVC;
    default:
      return false;
  }
}

Fail check_vc(const Command& c) noexcept {
  return check_vc_view(Reader{c.cls == CmdClass::sVC ? &kSVcExec : &kLongExec, c.data});
}

bool lin_executed(const Command& c) noexcept {
  if (c.eu != 1 && c.eu != 20 && c.eu != 21) return false;
  if (c.cls == CmdClass::sLIN) return true;
  const TiuLongView v(c.data);
  return c.cls == CmdClass::LIN && v.short_res0_str() == 0 && v.short_opd0_str() == 0;
}

Fail check_lin(const Command& c) noexcept {
  const bool s = c.cls == CmdClass::sLIN;
  const Reader v{s ? &kSLinExec : &kLongExec, c.data};
  return check_lin_view(v, c.eu, static_cast<uint32_t>(s ? v.opt_res0_prec() : v.opt_opd0_prec()));
}

Fail check_conv_rq(const Command& c, const TgcrState& t) noexcept {
  if (c.eu != 0) return kPass;
  if (c.cls == CmdClass::sCONV) return check_conv_rq_view(Reader{&kSConvExec, c.data}, t);
  if (c.cls == CmdClass::CONV) return check_conv_rq_view(Reader{&kLongExec, c.data}, t);
  return kPass;
}

Fail check_cmp(const Command& c) noexcept {
  if (c.cls == CmdClass::sCMP) return check_cmp_view(Reader{&kSCmpExec, c.data}, c.eu, nullptr, nullptr);
  const TiuLongView l(c.data);
  const Strides a{l.opd0_n_str(), l.opd0_c_str(), l.opd0_h_str(), l.opd0_w_str()};
  const Strides b{l.opd1_n_str(), l.opd1_c_str(), l.opd1_h_str(), l.opd1_w_str()};
  return check_cmp_view(Reader{&kLongExec, c.data}, c.eu, &a, &b);
}

Fail check_rqdq(const Command& c) noexcept {
  return check_rqdq_view(Reader{c.cls == CmdClass::sRQ_sDQ ? &kSRqDqExec : &kLongExec, c.data}, c.eu);
}

Fail check_sgl(const Command& c) noexcept {
  return check_sgl_view(Reader{c.cls == CmdClass::sSGL ? &kSSglExec : &kLongExec, c.data}, c.eu);
}

}  // namespace tilefw::cmd::detail
