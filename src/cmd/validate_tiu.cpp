// TIU operand checks for every class: each operand is described once by the fields of its
// class's layout (address, constant flag, precision, stride mode, shape, strides), looked up by
// name in the layout tables at compile time, so a table cannot name a field the layout lacks.
// What is checked per class is listed in validate.hpp.

#include <utility>

#include "footprint.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

// Never defined: a table that names a field its layout lacks does not compile (a call to a
// non-constexpr function while the constexpr tables are evaluated is an error).
void field_missing_from_layout();

namespace {

/// A field of one layout as (64-bit word, shift, mask), so a read is a load, a shift and an
/// AND with no branch; mask 0 = the layout has no such field (reads as 0).
struct Fld {
  uint64_t mask = 0;
  uint8_t word = 0;
  uint8_t shift = 0;
  constexpr bool present() const noexcept { return mask != 0; }
};

constexpr bool same_name(const char* a, const char* b) noexcept {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
template <size_t N>
constexpr Fld fld(const FieldDesc (&layout)[N], const char* name) {
  if (name == nullptr) return Fld{};
  for (const FieldDesc& d : layout) {
    if (same_name(d.name, name)) {
      return Fld{tilefw::cmd::detail::field_mask(d.width), static_cast<uint8_t>(d.bit / 64),
                 static_cast<uint8_t>(d.bit % 64)};
    }
  }
  field_missing_from_layout();
  return Fld{};
}
inline uint64_t get(const uint8_t* p, Fld f) noexcept { return (load_word(p, f.word) >> f.shift) & f.mask; }

/// When an operand takes part in the command.
enum class Use : uint8_t {
  always,
  ar_second,  // AR opd1: binary eu, or tsk_opd_num >= 2
  ar_third,   // AR opd2: tsk_opd_num == 3
  sfu_table,  // SFU opd1: the coefficient table of taylor (eu 12, 13)
  pord_kernel,  // PorD opd1: depthwise weights / avg-pooling scale / ROI table; max/min pooling
                // read no opd1 (tpu-mlir leaves it 0)
  pord_bias,    // PorD opd2: the bias of depthwise (eu 0, 5) only; pooling leaves it
                // 0xFFFFFFFF (YOLOv5s / ResNet-50 pord.maxpooling)
};

struct Names4 {
  const char* n = nullptr;
  const char* c = nullptr;
  const char* h = nullptr;
  const char* w = nullptr;
};

/// One operand. `tensor`: shape and precision come from the layout, so the footprint is
/// checked (layout: the stride-mode field; no such field = alignEU, the mode-0 layout every
/// TIU operand of the real buffers uses). Otherwise only the start address is checked.
struct Operand {
  const char* name = "";
  const char* mode_name = "";
  Use use = Use::always;
  bool tensor = false;
  bool explicit_strides = false;
  Fld addr, konst, prec, mode, n, c, h, w, ns, cs, hs, ws;
};

template <size_t N>
constexpr Operand start(const FieldDesc (&t)[N], const char* addr, const char* konst = nullptr,
                        Use use = Use::always) {
  Operand o;
  o.name = addr;
  o.use = use;
  o.addr = fld(t, addr);
  o.konst = fld(t, konst);
  return o;
}
template <size_t N>
constexpr Operand tensor(const FieldDesc (&t)[N], const char* addr, const char* konst, const char* prec,
                         const char* mode, Names4 shape, Names4 strides = {}, Use use = Use::always) {
  Operand o = start(t, addr, konst, use);
  o.tensor = true;
  o.mode_name = mode == nullptr ? "" : mode;
  o.prec = fld(t, prec);
  o.mode = fld(t, mode);
  o.n = fld(t, shape.n);
  o.c = fld(t, shape.c);
  o.h = fld(t, shape.h);
  o.w = fld(t, shape.w);
  o.explicit_strides = strides.n != nullptr;
  o.ns = fld(t, strides.n);
  o.cs = fld(t, strides.c);
  o.hs = fld(t, strides.h);
  o.ws = fld(t, strides.w);
  return o;
}

constexpr Names4 kRes0Shape{"res0_n", "res0_c", "res0_h", "res0_w"};
constexpr Names4 kOpd0Shape{"opd0_n", "opd0_c", "opd0_h", "opd0_w"};
constexpr Names4 kOpd1Shape{"opd1_n", "opd1_c", "opd1_h", "opd1_w"};
constexpr Names4 kRes0Str{"res0_n_str", "res0_c_str", "res0_h_str", "res0_w_str"};
constexpr Names4 kOpd0Str{"opd0_n_str", "opd0_c_str", "opd0_h_str", "opd0_w_str"};
constexpr Names4 kOpd1Str{"opd1_n_str", "opd1_c_str", "opd1_h_str", "opd1_w_str"};

// ---- long form (1024 bits) ---------------------------------------------------------------
constexpr const auto& L = kTiuLongFields;
// Every long class without a narrower reading: each operand with its own shape and strides.
constexpr Operand kLongGeneric[] = {
    tensor(L, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(L, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kOpd0Shape, kOpd0Str),
    tensor(L, "opd1_addr", "opt_opd1_const", "opt_opd1_prec", "short_opd1_str", kOpd1Shape, kOpd1Str),
    start(L, "opd2_addr", "opt_opd2_const"),
    start(L, "res1_addr"),
    start(L, "opd3_addr", "opt_opd3_const"),
};
// PorD: depthwise (eu 0) and ROI depthwise (5) read input, weights, bias and pad value;
// avg pooling (1, 6) input, scale and pad value; max/min pooling (3, 4, 7, 8) input and pad
// value (opd3, a constant in every real buffer).
constexpr Operand kLongPorD[] = {
    tensor(L, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(L, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kOpd0Shape, kOpd0Str),
    start(L, "opd1_addr", "opt_opd1_const", Use::pord_kernel),
    start(L, "opd2_addr", "opt_opd2_const", Use::pord_bias),
    start(L, "res1_addr"),
    start(L, "opd3_addr", "opt_opd3_const"),
};
// AR: element-wise, every operand has res0's shape (as the simulator executes it).
constexpr Operand kLongAr[] = {
    tensor(L, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(L, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kRes0Shape, kOpd0Str),
    tensor(L, "opd1_addr", "opt_opd1_const", "opt_opd1_prec", "short_opd1_str", kRes0Shape, kOpd1Str,
           Use::ar_second),
    start(L, "opd2_addr", "opt_opd2_const", Use::ar_third),
};
// SFU: element-wise on opd0; opd1 is taylor's coefficient table (length opd1_n, layout not given).
constexpr Operand kLongSfu[] = {
    tensor(L, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(L, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kRes0Shape, kOpd0Str),
    start(L, "opd1_addr", "opt_opd1_const", Use::sfu_table),
};
// CW&BC: one source (the short form has no other operand), both with their own shapes.
constexpr Operand kLongCwBc[] = {
    tensor(L, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(L, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kOpd0Shape, kOpd0Str),
};

// ---- short forms ---------------------------------------------------------------------------
constexpr Operand kSAr[] = {
    tensor(kSArFields, "res0_addr", nullptr, "opt_res0_prec", "short_res0_str", kRes0Shape, kRes0Str),
    tensor(kSArFields, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kRes0Shape, kOpd0Str),
    tensor(kSArFields, "opd1_addr", "opt_opd1_const", "opt_opd1_prec", "short_opd1_str", kRes0Shape, kOpd1Str,
           Use::ar_second),
    start(kSArFields, "opd2_addr", "opt_opd2_const", Use::ar_third),
};
// sCONV: the input has res0's n; no opd0_n field, no res0 strides (alignEU).
constexpr Operand kSConv[] = {
    tensor(kSConvFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    tensor(kSConvFields, "opd0_addr", nullptr, "opt_opd0_prec", "short_opd0_str",
           {"res0_n", "opd0_c", "opd0_h", "opd0_w"}, kOpd0Str),
    start(kSConvFields, "opd1_addr", "opt_opd1_const"),
    start(kSConvFields, "opd2_addr", "opt_opd2_const"),
    start(kSConvFields, "res1_addr"),
    start(kSConvFields, "opd3_addr", "opt_opd3_const"),
};
// sMM (MM v1): only res0_c / res0_w of the result; the layout gives no operand shapes.
constexpr Operand kSMm[] = {
    start(kSMmFields, "res0_addr"),
    start(kSMmFields, "opd0_addr", "opt_opd0_const"),
    start(kSMmFields, "opd1_addr"),
    start(kSMmFields, "opd2_addr", "opt_opd2_const"),
};
// sPorD: pooling keeps n and c; the input's h/w are opd0_h/w.
constexpr Operand kSPorD[] = {
    tensor(kSPorDFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    tensor(kSPorDFields, "opd0_addr", nullptr, "opt_opd0_prec", nullptr, {"res0_n", "res0_c", "opd0_h", "opd0_w"}),
    start(kSPorDFields, "opd1_addr", "opt_opd1_const", Use::pord_kernel),
    start(kSPorDFields, "opd2_addr", "opt_opd2_const", Use::pord_bias),
    start(kSPorDFields, "res1_addr"),
    start(kSPorDFields, "opd3_addr", "opt_opd3_const"),
};
// sCMP: opd0 has a precision and a stride mode (no strides: mode 3 leaves it a start check);
// the results and opd1 have no precision field.
constexpr Operand kSCmp[] = {
    start(kSCmpFields, "res0_addr"),
    start(kSCmpFields, "res1_addr"),
    tensor(kSCmpFields, "opd0_addr", "opt_opd0_const", "opt_opd0_prec", "short_opd0_str", kRes0Shape),
    [] {
      Operand o = start(kSCmpFields, "opd1_addr", "opt_opd1_const");
      o.mode = fld(kSCmpFields, "short_opd1_str");
      o.mode_name = "short_opd1_str";
      return o;
    }(),
    start(kSCmpFields, "opd2_addr", "opt_opd2_const"),
    start(kSCmpFields, "opd3_addr", "opt_opd3_const"),
};
constexpr Operand kSSfu[] = {
    tensor(kSSfuFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    tensor(kSSfuFields, "opd0_addr", nullptr, "opt_opd0_prec", nullptr, kRes0Shape),
    start(kSSfuFields, "opd1_addr", nullptr, Use::sfu_table),
};
// sVC: vector correlation gives only c and w sizes: start checks.
constexpr Operand kSVc[] = {
    start(kSVcFields, "res0_addr"), start(kSVcFields, "opd0_addr"),
    start(kSVcFields, "opd1_addr"), start(kSVcFields, "opd2_addr"),
};
// sLIN: only the result has a precision.
constexpr Operand kSLin[] = {
    tensor(kSLinFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    start(kSLinFields, "opd0_addr"),
    start(kSLinFields, "opd1_addr", "opt_opd1_const"),
    start(kSLinFields, "opd2_addr", "opt_opd2_const"),
};
constexpr Operand kSRqDq[] = {
    tensor(kSRqDqFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    tensor(kSRqDqFields, "opd0_addr", nullptr, "opt_opd0_prec", nullptr, kRes0Shape),
    start(kSRqDqFields, "opd1_addr", "opt_opd1_const"),
    start(kSRqDqFields, "opd2_addr"),
};
// sSG / sSGL: the result has shape and precision; tables and indices have partial shapes.
constexpr Operand kSSg[] = {
    tensor(kSSgFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    start(kSSgFields, "opd0_addr"),
    start(kSSgFields, "opd1_addr"),
    start(kSSgFields, "opd2_addr", "opt_opd2_const"),
    start(kSSgFields, "res1_addr"),
    start(kSSgFields, "opd3_addr", "opt_opd3_const"),
};
constexpr Operand kSSgl[] = {
    tensor(kSSglFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    start(kSSglFields, "opd0_addr"),
    start(kSSglFields, "opd1_addr"),
    start(kSSglFields, "opd2_addr", "opt_opd2_const"),
    start(kSSglFields, "res1_addr"),
};
// sCW&sBC: one precision for both; the source is (res0_n, opd0_c, res0_h, opd0_w).
constexpr Operand kSCwBc[] = {
    tensor(kSCwBcFields, "res0_addr", nullptr, "opt_res0_prec", nullptr, kRes0Shape),
    tensor(kSCwBcFields, "opd0_addr", nullptr, "opt_res0_prec", nullptr, {"res0_n", "opd0_c", "res0_h", "opd0_w"}),
};

// Which operands of a class take part, from the command's eu and tsk_opd_num.
struct UseContext {
  uint32_t eu;
  uint64_t opd_num;
  bool ar_unary;  // AR eu 1 not, 14 cast, 19 copy, 26 abs read opd0 only
};
constexpr bool used(Use use, const UseContext& u) noexcept {
  switch (use) {
    case Use::always: return true;
    case Use::ar_second: return !u.ar_unary || u.opd_num >= 2;
    case Use::ar_third: return u.opd_num >= 3;
    case Use::sfu_table: return u.eu == 12 || u.eu == 13;
    case Use::pord_kernel: return u.eu == 0 || u.eu == 1 || u.eu == 5 || u.eu == 6;
    case Use::pord_bias: return u.eu == 0 || u.eu == 5;
  }
  return true;
}

// One operand, with its table entry a compile-time constant: every field read is a load,
// a constant shift and a constant mask (the tables drive code generation, not the run).
template <const auto& Ops, size_t I>
inline Fail check_operand(const uint8_t* p) noexcept {
  constexpr Operand o = Ops[I];
  if constexpr (o.konst.present()) {
    if (get(p, o.konst) != 0) return kPass;  // the address field holds the constant
  }
  uint64_t mode = 0;
  if constexpr (o.mode.present()) {
    mode = get(p, o.mode);
    if (mode != 0 && mode != 3) {
      return {Status::cmd_bad_field, o.mode_name, "stride mode other than 0 (alignEU) or 3 (explicit)"};
    }
  }
  const uint64_t addr = get(p, o.addr);
  Footprint f;
  // TIU operands in SMEM: the tensor layouts are lane layouts; SMEM gets a start check.
  if constexpr (o.tensor) {
    if (!chip::sg2260::local_is_smem(addr)) {
      const uint32_t esize = tiu_esize(static_cast<uint32_t>(get(p, o.prec)));
      const uint64_t n = get(p, o.n), c = get(p, o.c), h = get(p, o.h), w = get(p, o.w);
      if (mode == 0) {
        f = align_eu_footprint(n, c, h, w, esize);
      } else if constexpr (o.explicit_strides) {
        f = tensor_footprint(n, c, h, w, get(p, o.ns), get(p, o.cs), get(p, o.hs), get(p, o.ws), esize);
      }
    }
  }
  return check_local(addr, f, o.name);
}

template <const auto& Ops, size_t... I>
inline Fail check_operands(const uint8_t* p, const UseContext& u, std::index_sequence<I...>) noexcept {
  Fail r = kPass;
  // In table order; the first failure stops the fold.
  (void)(((!used(Ops[I].use, u) || (r = check_operand<Ops, I>(p)).ok())) && ...);
  return r;
}
template <const auto& Ops>
Fail check_class(const uint8_t* p, const UseContext& u) noexcept {
  return check_operands<Ops>(p, u, std::make_index_sequence<sizeof(Ops) / sizeof(Ops[0])>{});
}

// ---- MM2 / sMM2: "matrix2" operands (R rows on lanes from the start lane, C contiguous
// elements, alignEU). nn: L M x K, R K x N; nt: R stored N x K; tt: L stored K x M too
// (K = opd1_c for nn, opd1_w for nt/tt). tf32 (eu 7): start checks only.
struct Mm2Fields {
  Fld m, n, opd1_c, opd1_w, res0_addr, opd0_addr, opd1_addr, opd2_addr;
  Fld res0_prec, opd0_prec, opd1_prec, opd0_const, opd1_const, opd2_const;
};
template <size_t N>
constexpr Mm2Fields mm2_fields(const FieldDesc (&t)[N]) {
  return Mm2Fields{fld(t, "res0_c"), fld(t, "res0_w"), fld(t, "opd1_c"), fld(t, "opd1_w"),
                   fld(t, "res0_addr"), fld(t, "opd0_addr"), fld(t, "opd1_addr"), fld(t, "opd2_addr"),
                   fld(t, "opt_res0_prec"), fld(t, "opt_opd0_prec"), fld(t, "opt_opd1_prec"),
                   fld(t, "opt_opd0_const"), fld(t, "opt_opd1_const"), fld(t, "opt_opd2_const")};
}
constexpr Mm2Fields kMm2Long = mm2_fields(kTiuLongFields);
constexpr Mm2Fields kMm2Short = mm2_fields(kSMm2Fields);

Footprint matrix2(uint64_t rows, uint64_t cols, uint32_t esize) noexcept {
  Footprint f;
  if (esize == 0 || rows == 0 || cols == 0) return f;
  f.known = true;
  f.esize = esize;
  f.base = cols;
  f.lanes = rows;
  f.cs = align_eu(cols, esize);
  return f;
}

template <const Mm2Fields& m>
Fail check_mm2(const uint8_t* p, uint32_t eu) noexcept {
  const uint64_t M = get(p, m.m), N = get(p, m.n);
  const uint64_t K = eu == 4 ? get(p, m.opd1_c) : get(p, m.opd1_w);
  const bool shaped = eu >= 4 && eu <= 6;
  const bool left_t = eu == 6, right_t = eu != 4;
  auto fp = [&](uint64_t rows, uint64_t cols, Fld prec) {
    return shaped ? matrix2(rows, cols, tiu_esize(static_cast<uint32_t>(get(p, prec)))) : Footprint{};
  };
  auto local = [&](Fld addr, const Footprint& f, const char* name) {
    const uint64_t a = get(p, addr);
    return check_local(a, chip::sg2260::local_is_smem(a) ? Footprint{} : f, name);
  };
  Fail r = local(m.res0_addr, fp(M, N, m.res0_prec), "res0_addr");
  if (!r.ok()) return r;
  if (get(p, m.opd0_const) == 0) {
    r = local(m.opd0_addr, left_t ? fp(K, M, m.opd0_prec) : fp(M, K, m.opd0_prec), "opd0_addr");
    if (!r.ok()) return r;
  }
  if (get(p, m.opd1_const) == 0) {
    r = local(m.opd1_addr, right_t ? fp(N, K, m.opd1_prec) : fp(K, N, m.opd1_prec), "opd1_addr");
    if (!r.ok()) return r;
  }
  if (get(p, m.opd2_const) == 0) return local(m.opd2_addr, Footprint{}, "opd2_addr");
  return kPass;
}

// CW&BC operations the simulator executes need a source shaped for them: cw_ts (eu 0) reads
// opd0(n, w, h, c), lane_bc (eu 3) reads opd0(n, 0, h, w).
Fail check_cw_shape(const Command& c) noexcept {
  const uint8_t* p = c.data;
  const bool is_long = c.cls == CmdClass::CW_BC;
  const uint64_t rn = read_field(p, is_long ? 256 : 64, 16), rc = read_field(p, is_long ? 272 : 80, 16);
  const uint64_t rh = read_field(p, is_long ? 288 : 96, 16), rw = read_field(p, is_long ? 304 : 112, 16);
  const uint64_t oc = read_field(p, is_long ? 336 : 128, 16), ow = read_field(p, is_long ? 368 : 144, 16);
  if (is_long && (read_field(p, 320, 16) != rn || read_field(p, 352, 16) != rh)) {
    return {Status::cmd_bad_field, "opd0_n", "CW&BC source n/h differ from the result's"};
  }
  if (c.eu == 0 && (oc != rw || ow != rc)) {
    return {Status::cmd_bad_field, "opd0_c", "cw_ts source must be the result with c and w swapped"};
  }
  if (c.eu == 3 && (oc != 1 || ow != rw)) {
    return {Status::cmd_bad_field, "opd0_c", "lane_bc source must be one channel of the result's w"};
  }
  return kPass;
}

}  // namespace

Fail check_tiu(const Command& c) noexcept {
  const uint8_t* p = c.data;
  const UseContext u{c.eu,
                     c.cls == CmdClass::sAR ? read_field(p, 53, 2) : c.cls == CmdClass::AR ? read_field(p, 51, 2) : 0,
                     c.eu == 1 || c.eu == 14 || c.eu == 19 || c.eu == 26};
  Fail r = kPass;
  switch (c.cls) {
    case CmdClass::CMP: case CmdClass::sCMP:
      if (c.eu >= 22 && c.eu <= 26) return check_cmp(c);
      break;
    case CmdClass::RQ_DQ: case CmdClass::sRQ_sDQ:
      if (c.eu == 0 || c.eu == 1 || c.eu == 3 || c.eu == 4) return check_rqdq(c);
      break;
    case CmdClass::SGL: case CmdClass::sSGL:
      if (c.eu == 17 || c.eu == 18) return check_sgl(c);
      break;
    case CmdClass::LIN: case CmdClass::sLIN:
      if (lin_executed(c)) return check_lin(c);
      break;
    case CmdClass::VC: case CmdClass::sVC:
      if (vc_executed(c)) return check_vc(c);
      break;
    default: break;
  }
  switch (c.cls) {
    case CmdClass::sMM2: return check_mm2<kMm2Short>(p, c.eu);
    case CmdClass::MM2: return check_mm2<kMm2Long>(p, c.eu);
    case CmdClass::AR: return check_class<kLongAr>(p, u);
    case CmdClass::SFU: return check_class<kLongSfu>(p, u);
    case CmdClass::CW_BC: r = check_class<kLongCwBc>(p, u); break;
    case CmdClass::PorD: return check_class<kLongPorD>(p, u);
    case CmdClass::CONV: case CmdClass::CONV_BW: case CmdClass::MM:
    case CmdClass::RQ_DQ: case CmdClass::SG: case CmdClass::SGL: case CmdClass::RAND:
    case CmdClass::LIN: case CmdClass::CMP: case CmdClass::VC:
      return check_class<kLongGeneric>(p, u);
    case CmdClass::sAR: return check_class<kSAr>(p, u);
    case CmdClass::sCONV: return check_class<kSConv>(p, u);
    case CmdClass::sMM: return check_class<kSMm>(p, u);
    case CmdClass::sPorD: return check_class<kSPorD>(p, u);
    case CmdClass::sCMP: return check_class<kSCmp>(p, u);
    case CmdClass::sSFU: return check_class<kSSfu>(p, u);
    case CmdClass::sVC: return check_class<kSVc>(p, u);
    case CmdClass::sLIN: return check_class<kSLin>(p, u);
    case CmdClass::sRQ_sDQ: return check_class<kSRqDq>(p, u);
    case CmdClass::sSG: return check_class<kSSg>(p, u);
    case CmdClass::sSGL: return check_class<kSSgl>(p, u);
    case CmdClass::sCW_sBC: r = check_class<kSCwBc>(p, u); break;
    default: return kPass;  // LAR (16-bit in-lane addresses), SYS_TR_ACC, SYS
  }
  if (r.ok() && (c.eu == 0 || c.eu == 3)) return check_cw_shape(c);
  return r;
}

}  // namespace tilefw::cmd::detail
