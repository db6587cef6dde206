// TIU operand checks for every class: each operand is described once by the fields of its
// class's layout (address, constant flag, precision, stride mode, shape, strides), looked up by
// name in the layout tables at compile time, so a table cannot name a field the layout lacks.
// What is checked per class is listed in validate.hpp. The tables are data one interpreter
// walks (2 bytes a field), not code generated per operand: the firmware image holds about 75
// operands of 17 classes, and one copy of the check instead of one per operand is what lets
// it fit its size goal (bench/RESULTS.md, the firmware footprint).

#include "footprint.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

namespace {

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

// The operand names a failure reports (its address field) and its stride-mode field's name.
constexpr const char* kOperandNames[] = {"res0_addr", "res1_addr", "opd0_addr", "opd1_addr", "opd2_addr", "opd3_addr"};
constexpr const char* kModeNames[] = {"", "short_res0_str", "short_opd0_str", "short_opd1_str"};
template <size_t N>
constexpr uint8_t name_index(const char* const (&names)[N], const char* name) {
  if (name == nullptr) return 0;
  for (size_t i = 0; i < N; ++i) {
    if (same_name(names[i], name)) return static_cast<uint8_t>(i);
  }
  field_missing_from_layout();
  return 0;
}

/// One operand. `tensor`: shape and precision come from the layout, so the footprint is
/// checked (layout: the stride-mode field; no such field = alignEU, the mode-0 layout every
/// TIU operand of the real buffers uses). Otherwise only the start address is checked.
struct Operand {
  Fld addr, konst, prec, mode, n, c, h, w, ns, cs, hs, ws;
  uint8_t name = 0;       // kOperandNames
  uint8_t mode_name = 0;  // kModeNames
  Use use = Use::always;
  bool tensor = false;
  bool explicit_strides = false;
};

template <size_t N>
constexpr Operand start(const FieldDesc (&t)[N], const char* addr, const char* konst = nullptr,
                        Use use = Use::always) {
  Operand o;
  o.name = name_index(kOperandNames, addr);
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
  o.mode_name = name_index(kModeNames, mode);
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
      o.mode_name = name_index(kModeNames, "short_opd1_str");
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
  uint32_t opd_num;
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

// ---- the packed tables the check walks --------------------------------------------------
// The tables above are compile-time only. What the image holds: every operand in 8 bytes
// (address, constant flag, stride mode; its names and when it is used in one byte; its shape), the distinct
// shapes once (precision, sizes, strides: 18 bytes; the long form's res0 serves five classes),
// and per class its first operand and count.
struct PackedOperand {
  Fld addr, konst, mode;
  uint8_t name : 3 = 0;       // kOperandNames
  uint8_t mode_name : 2 = 0;  // kModeNames
  uint8_t use : 3 = 0;        // Use
  uint8_t shape = 0;  // 1 + its index in Packed::shapes; 0 = start check only
};
static_assert(sizeof(PackedOperand) == 8);
static_assert(sizeof kOperandNames / sizeof kOperandNames[0] <= 8 && sizeof kModeNames / sizeof kModeNames[0] <= 4 &&
              static_cast<unsigned>(Use::pord_bias) < 8, "the packed byte holds 3 + 2 + 3 bits");
struct Shape {
  Fld prec, n, c, h, w, ns, cs, hs, ws;  // ns present = explicit strides (stride mode 3)
};
constexpr bool operator==(Fld a, Fld b) noexcept { return a.v == b.v; }
constexpr Shape shape_of(const Operand& o) noexcept {
  return Shape{o.prec, o.n, o.c, o.h, o.w, o.ns, o.cs, o.hs, o.ws};
}
constexpr bool same_shape(const Shape& a, const Shape& b) noexcept {
  return a.prec == b.prec && a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.ns == b.ns &&
         a.cs == b.cs && a.hs == b.hs && a.ws == b.ws;
}

struct Group {
  const Operand* ops;
  size_t count;
};
template <size_t N>
constexpr Group group(const Operand (&ops)[N]) noexcept {
  return Group{ops, N};
}
// In this order: the index is the class's group (Packed::class_group).
constexpr Group kGroups[] = {
    group(kLongGeneric), group(kLongPorD), group(kLongAr), group(kLongSfu), group(kLongCwBc),
    group(kSAr), group(kSConv), group(kSMm), group(kSPorD), group(kSCmp), group(kSSfu),
    group(kSVc), group(kSLin), group(kSRqDq), group(kSSg), group(kSSgl), group(kSCwBc)};
constexpr size_t kGroupCount = sizeof kGroups / sizeof kGroups[0];
constexpr uint8_t kNoGroup = 0xFF;

constexpr uint8_t group_of(CmdClass c) noexcept {
  switch (c) {
    case CmdClass::CONV: case CmdClass::CONV_BW: case CmdClass::MM: case CmdClass::RQ_DQ:
    case CmdClass::SG: case CmdClass::SGL: case CmdClass::RAND: case CmdClass::LIN:
    case CmdClass::CMP: case CmdClass::VC: return 0;
    case CmdClass::PorD: return 1;
    case CmdClass::AR: return 2;
    case CmdClass::SFU: return 3;
    case CmdClass::CW_BC: return 4;
    case CmdClass::sAR: return 5;
    case CmdClass::sCONV: return 6;
    case CmdClass::sMM: return 7;
    case CmdClass::sPorD: return 8;
    case CmdClass::sCMP: return 9;
    case CmdClass::sSFU: return 10;
    case CmdClass::sVC: return 11;
    case CmdClass::sLIN: return 12;
    case CmdClass::sRQ_sDQ: return 13;
    case CmdClass::sSG: return 14;
    case CmdClass::sSGL: return 15;
    case CmdClass::sCW_sBC: return 16;
    default: return kNoGroup;  // LAR (16-bit in-lane addresses), SYS_TR_ACC, SYS; MM2 and sMM2 below
  }
}

constexpr size_t operand_count() noexcept {
  size_t n = 0;
  for (const Group& g : kGroups) n += g.count;
  return n;
}
constexpr size_t kOperandCount = operand_count();

// The distinct shapes, in first-use order.
template <size_t Max>
struct ShapePool {
  Shape at[Max > 0 ? Max : 1] = {};
  size_t size = 0;
  constexpr size_t index(const Shape& s) noexcept {
    for (size_t i = 0; i < size; ++i) {
      if (same_shape(at[i], s)) return i;
    }
    at[size] = s;
    return size++;
  }
};
constexpr ShapePool<kOperandCount> all_shapes() noexcept {
  ShapePool<kOperandCount> pool;
  for (const Group& g : kGroups) {
    for (size_t i = 0; i < g.count; ++i) {
      if (g.ops[i].tensor) pool.index(shape_of(g.ops[i]));
    }
  }
  return pool;
}
constexpr size_t kShapeCount = all_shapes().size;

struct Packed {
  PackedOperand ops[kOperandCount] = {};
  Shape shapes[kShapeCount] = {};
  uint8_t first[kGroupCount] = {};
  uint8_t count[kGroupCount] = {};
  uint8_t class_group[static_cast<size_t>(CmdClass::dma_tensor)] = {};  // by TIU class
};
constexpr Packed pack() noexcept {
  Packed p;
  ShapePool<kOperandCount> pool = all_shapes();
  for (size_t i = 0; i < kShapeCount; ++i) p.shapes[i] = pool.at[i];
  size_t k = 0;
  for (size_t gi = 0; gi < kGroupCount; ++gi) {
    const Group& g = kGroups[gi];
    p.first[gi] = static_cast<uint8_t>(k);
    p.count[gi] = static_cast<uint8_t>(g.count);
    for (size_t i = 0; i < g.count; ++i, ++k) {
      const Operand& o = g.ops[i];
      p.ops[k] = PackedOperand{o.addr, o.konst, o.mode, o.name, o.mode_name, static_cast<uint8_t>(o.use),
                               static_cast<uint8_t>(o.tensor ? pool.index(shape_of(o)) + 1 : 0)};
    }
  }
  for (size_t c = 0; c < sizeof p.class_group; ++c) p.class_group[c] = group_of(static_cast<CmdClass>(c));
  return p;
}
static_assert(kOperandCount < 256 && kShapeCount < 255, "packed indices are 8-bit");
constexpr Packed kPacked = pack();

// One operand. Not inlined: one copy serves every operand of every class.
[[gnu::noinline]] Fail check_operand(const PackedOperand& o, const uint8_t* p) noexcept {
  if (o.konst.present() && get(p, o.konst) != 0) return kPass;  // the address field holds the constant
  uint32_t mode = 0;
  if (o.mode.present()) {
    mode = get(p, o.mode);
    if (mode != 0 && mode != 3) {
      return {Status::cmd_bad_field, kModeNames[o.mode_name],
          TILEFW_REASON("stride mode other than 0 (alignEU) or 3 (explicit)")};
    }
  }
  const uint32_t addr = get(p, o.addr);
  Footprint f;
  // TIU operands in SMEM: the tensor layouts are lane layouts; SMEM gets a start check.
  if (o.shape != 0 && !chip::sg2260::local_is_smem(addr)) {
    const Shape& t = kPacked.shapes[o.shape - 1];
    const uint32_t esize = tiu_esize(get(p, t.prec));
    const uint32_t n = get(p, t.n), c = get(p, t.c), h = get(p, t.h), w = get(p, t.w);
    if (mode == 0) {
      f = TILEFW_CMD_HOT(align_eu_footprint)(n, c, h, w, esize);
    } else if (t.ns.present()) {
      f = TILEFW_CMD_HOT(tensor_footprint)(n, c, h, w, get(p, t.ns), get(p, t.cs), get(p, t.hs), get(p, t.ws),
                                           esize);
    }
  }
  return TILEFW_CMD_HOT(check_local)(addr, f, kOperandNames[o.name]);
}

// The operands of a group the command uses, in table order; the first failure stops.
Fail check_group(uint8_t g, const uint8_t* p, const UseContext& u) noexcept {
  const PackedOperand* o = kPacked.ops + kPacked.first[g];
  for (const PackedOperand* end = o + kPacked.count[g]; o != end; ++o) {
    if (!used(static_cast<Use>(o->use), u)) continue;
    const Fail r = check_operand(*o, p);
    if (!r.ok()) return r;
  }
  return kPass;
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

Footprint matrix2(uint32_t rows, uint32_t cols, uint32_t esize) noexcept {
  Footprint f;
  if (esize == 0 || rows == 0 || cols == 0) return f;
  f.known = true;
  f.esize = esize;
  f.base = cols;
  f.lanes = rows;
  f.cs = align_eu(cols, esize);
  return f;
}

Fail check_mm2(const Mm2Fields& m, const uint8_t* p, uint32_t eu) noexcept {
  const uint32_t M = get(p, m.m), N = get(p, m.n);
  const uint32_t K = eu == 4 ? get(p, m.opd1_c) : get(p, m.opd1_w);
  const bool shaped = eu >= 4 && eu <= 6;
  const bool left_t = eu == 6, right_t = eu != 4;
  auto fp = [&](uint32_t rows, uint32_t cols, Fld prec) {
    return shaped ? matrix2(rows, cols, tiu_esize(get(p, prec))) : Footprint{};
  };
  auto local = [&](Fld addr, const Footprint& f, const char* name) {
    const uint32_t a = get(p, addr);
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
// opd0(n, w, h, c), lane_bc (eu 3) reads opd0(n, 0, h, w). The short form has no opd0_n/h.
struct CwFields {
  Fld rn, rc, rh, rw, oc, ow, on, oh;
};
template <size_t N>
constexpr CwFields cw_fields(const FieldDesc (&t)[N], bool is_long) {
  return CwFields{fld(t, "res0_n"), fld(t, "res0_c"), fld(t, "res0_h"), fld(t, "res0_w"),
                  fld(t, "opd0_c"), fld(t, "opd0_w"), fld(t, "opd0_n", is_long), fld(t, "opd0_h", is_long)};
}
constexpr CwFields kCwLong = cw_fields(kTiuLongFields, true);
constexpr CwFields kCwShort = cw_fields(kSCwBcFields, false);

Fail check_cw_shape(const Command& c) noexcept {
  const uint8_t* p = c.data;
  const bool is_long = c.cls == CmdClass::CW_BC;
  const CwFields& f = is_long ? kCwLong : kCwShort;
  const uint32_t rn = get(p, f.rn), rc = get(p, f.rc), rh = get(p, f.rh), rw = get(p, f.rw);
  const uint32_t oc = get(p, f.oc), ow = get(p, f.ow);
  if (is_long && (get(p, f.on) != rn || get(p, f.oh) != rh)) {
    return {Status::cmd_bad_field, "opd0_n", TILEFW_REASON("CW&BC source n/h differ from the result's")};
  }
  if (c.eu == 0 && (oc != rw || ow != rc)) {
    return {Status::cmd_bad_field, "opd0_c", TILEFW_REASON("cw_ts source must be the result with c and w swapped")};
  }
  if (c.eu == 3 && (oc != 1 || ow != rw)) {
    return {Status::cmd_bad_field, "opd0_c", TILEFW_REASON("lane_bc source must be one channel of the result's w")};
  }
  return kPass;
}

}  // namespace

Fail check_tiu(const Command& c) noexcept {
  const uint8_t* p = c.data;
  const UseContext u{c.eu,
                     static_cast<uint32_t>(c.cls == CmdClass::sAR ? read_field(p, 53, 2)
                                           : c.cls == CmdClass::AR  ? read_field(p, 51, 2) : 0),
                     c.eu == 1 || c.eu == 14 || c.eu == 19 || c.eu == 26};
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
  if (c.cls == CmdClass::sMM2) return check_mm2(kMm2Short, p, c.eu);
  if (c.cls == CmdClass::MM2) return check_mm2(kMm2Long, p, c.eu);
  if (!is_tiu_class(c.cls)) return kPass;
  const uint8_t g = kPacked.class_group[static_cast<size_t>(c.cls)];
  if (g == kNoGroup) return kPass;
  const Fail r = check_group(g, p, u);
  if (c.cls != CmdClass::CW_BC && c.cls != CmdClass::sCW_sBC) return r;
  if (r.ok() && (c.eu == 0 || c.eu == 3)) return check_cw_shape(c);
  return r;
}

}  // namespace tilefw::cmd::detail
