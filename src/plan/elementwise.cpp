// Elementwise tile instructions: the single issues of binary, scalar, unary, TEXPANDS and TCVT.
//
// Elementwise (TADD TSUB TMUL TDIV TMAX TMIN -> vadd.., TADDS TMULS TMAXS TMINS -> vadds..,
// TABS TEXP TLOG TSQRT TRSQRT TRECIP TRELU -> vabs vexp vln vsqrt vrsqrt vrec vrelu, TEXPANDS
// -> vector_dup, TCVT -> vconv) follow PTO's a2a3 BinaryInstr path selection
// (docs/a2a3-tile-model.md section 8.1)
// on the runtime (DYNAMIC) branch, i.e. decided on valid sizes:
//  * operands with the same Cols:
//    - contiguous (Cols == vc, or vr == 1), n = vr*vc: counter mode (one issue, count n) when
//      ceil(n/EPR) > 255 or vc > EPR is not a multiple of EPR; else if Cols < EPR one issue with
//      MASK continuous(vc), repeat vr, repeat stride Cols/BSE (rows split at 255); else one
//      full-mask issue of n/EPR repeats plus one repeat-1 issue with MASK continuous(n % EPR);
//    - not contiguous: Cols/EPR > 1 and Rows*(Cols/EPR) < 4, or Rows < Cols/EPR + 1 with a
//      partial last chunk: counter mode count vc, one issue per row; Rows < Cols/EPR + 1 with
//      vc a multiple of EPR: one full-mask issue per row (255-repeat chunks); otherwise
//      row-repeat (below);
//  * operands with different Cols: row-repeat.
//  Row-repeat: for each full EPR-lane column chunk one issue with repeat = rows (split at
//  255), repeat strides = each operand's row in blocks; then the tail chunk with MASK
//  continuous(vc % EPR). If any row stride exceeds the op's repeat-stride field (255 binary and
//  vconv, 65535 unary/scalar/dup), one issue per row instead (full chunks, then tail chunk).
//  PTO splits rows at 255 only in its tail loop and goes per row for the head when Rows > 255;
//  tilefw splits both at 255 (same instructions per row, fewer issues).
// TEXPANDS: vector_dup of the scalar over dst through the elementwise scheduler.
// TCVT: vconv through the elementwise scheduler with 64 lanes per repeat.

#include "planner.hpp"

namespace tilefw::plan::detail {

using desc::Mask128;
using desc::MaskMode;

namespace {

struct Ew {
  int n = 0;                 // operand slots used (dst first)
  uint32_t off[3] = {};      // byte offsets
  uint32_t cols[3] = {};     // capacity columns (row stride in elements)
  uint32_t elem[3] = {};     // element bytes
  uint32_t rows = 0;         // capacity rows of dst (PTO decides on the tile type)
  uint32_t vr = 0;
  uint32_t vc = 0;
  uint32_t epr = 0;          // lanes per repeat
  uint32_t rep_max = 255;    // repeat-stride field limit
};

uint32_t row_blocks(const Ew& e, int k) noexcept { return e.cols[k] * e.elem[k] / kB; }
uint32_t chunk_blocks(const Ew& e, int k) noexcept { return e.epr * e.elem[k] / kB; }

Segment base_segment(const Step& proto, const Ew& e) noexcept {
  Segment g{};
  g.step = proto;
  for (int k = 0; k < e.n; ++k) slot(g.step, k)->offset = e.off[k];
  return g;
}

// One issue over `elems` contiguous elements starting at element `first` of every operand.
void ew_contiguous_issue(Builder& b, const Step& proto, const Ew& e, uint32_t first, uint32_t repeat) noexcept {
  Segment g = base_segment(proto, e);
  for (int k = 0; k < e.n; ++k) {
    slot(g.step, k)->offset += first * e.elem[k];
    set_strides(g.step, k, 1, chunk_blocks(e, k));
  }
  set_repeat(g.step, repeat);
  b.issue(g);
}

// Per row (inner loop over vr rows): count-mode count vc, or normal mode full repeats.
void ew_per_row_count(Builder& b, const Step& proto, const Ew& e) noexcept {
  b.use_count(e.vc);
  Segment g = base_segment(proto, e);
  for (int k = 0; k < e.n; ++k) {
    set_strides(g.step, k, 1, chunk_blocks(e, k));
    g.inner_delta[k] = e.cols[k] * e.elem[k];
  }
  g.inner = e.vr;
  b.issue(g);
}

// Column chunks [first_chunk, first_chunk + chunks) of every row, one row per issue group:
// outer = rows, inner = 255-repeat pieces of the chunks (contiguous repeats).
void ew_per_row_full(Builder& b, const Step& proto, const Ew& e, uint32_t chunks) noexcept {
  if (chunks == 0) return;
  b.use_mask(Mask128::all());
  Segment g = base_segment(proto, e);
  for (int k = 0; k < e.n; ++k) {
    set_strides(g.step, k, 1, chunk_blocks(e, k));
    g.outer_delta[k] = e.cols[k] * e.elem[k];
    g.inner_delta[k] = kMaxRep * e.epr * e.elem[k];
  }
  g.outer = e.vr;
  g.inner = (chunks + kMaxRep - 1) / kMaxRep;
  set_repeat(g.step, chunks < kMaxRep ? chunks : kMaxRep);
  const uint32_t last = chunks - (g.inner - 1) * kMaxRep;
  if (g.inner > 1 && last != kMaxRep) g.last_inner_repeat = last;
  b.issue(g);
}

// Row-repeat: per column chunk one issue over the rows (split at 255), then the tail chunk.
void ew_row_repeat(Builder& b, const Step& proto, const Ew& e) noexcept {
  const uint32_t full = e.vc / e.epr;
  const uint32_t rem = e.vc % e.epr;
  bool stride_ok = true;
  for (int k = 0; k < e.n; ++k) stride_ok = stride_ok && row_blocks(e, k) <= e.rep_max;
  if (!stride_ok) {
    ew_per_row_full(b, proto, e, full);
    if (rem != 0) {
      b.use_mask(Mask128::continuous(rem));
      Segment g = base_segment(proto, e);
      for (int k = 0; k < e.n; ++k) {
        slot(g.step, k)->offset += full * e.epr * e.elem[k];
        set_strides(g.step, k, 1, 0);
        g.inner_delta[k] = e.cols[k] * e.elem[k];
      }
      g.inner = e.vr;
      set_repeat(g.step, 1);
      b.issue(g);
    }
    return;
  }
  const uint32_t pieces = (e.vr + kMaxRep - 1) / kMaxRep;
  const uint32_t last = e.vr - (pieces - 1) * kMaxRep;
  auto rows_segment = [&](uint32_t first_chunk, uint32_t chunks) {
    Segment g = base_segment(proto, e);
    for (int k = 0; k < e.n; ++k) {
      slot(g.step, k)->offset += first_chunk * e.epr * e.elem[k];
      set_strides(g.step, k, 1, row_blocks(e, k));
      g.outer_delta[k] = e.epr * e.elem[k];
      g.inner_delta[k] = kMaxRep * e.cols[k] * e.elem[k];
    }
    g.outer = chunks;
    g.inner = pieces;
    set_repeat(g.step, e.vr < kMaxRep ? e.vr : kMaxRep);
    if (pieces > 1 && last != kMaxRep) g.last_inner_repeat = last;
    b.issue(g);
  };
  if (full != 0) {
    b.use_mask(Mask128::all());
    rows_segment(0, full);
  }
  if (rem != 0) {
    b.use_mask(Mask128::continuous(rem));
    rows_segment(full, 1);
  }
}

// PTO's BinaryInstr path selection (runtime branch), generalised to 1..3 operands.
void ew_schedule(Builder& b, const Step& proto, const Ew& e) noexcept {
  bool same_cols = true;
  for (int k = 1; k < e.n; ++k) same_cols = same_cols && e.cols[k] == e.cols[0];
  if (same_cols) {
    const uint32_t cols = e.cols[0];
    if (cols == e.vc || e.vr == 1) {
      const uint64_t n = uint64_t{e.vr} * e.vc;
      const uint64_t total = (n + e.epr - 1) / e.epr;
      const bool non_vl_aligned = e.vc > e.epr && e.vc % e.epr != 0;
      if (non_vl_aligned || total > kMaxRep) {
        b.use_count(static_cast<uint32_t>(n));
        ew_contiguous_issue(b, proto, e, 0, 0);
      } else if (cols < e.epr) {
        b.use_mask(Mask128::continuous(e.vc));
        const uint32_t pieces = (e.vr + kMaxRep - 1) / kMaxRep;
        const uint32_t last = e.vr - (pieces - 1) * kMaxRep;
        Segment g = base_segment(proto, e);
        for (int k = 0; k < e.n; ++k) {
          set_strides(g.step, k, 1, row_blocks(e, k));
          g.inner_delta[k] = kMaxRep * e.cols[k] * e.elem[k];
        }
        g.inner = pieces;
        set_repeat(g.step, e.vr < kMaxRep ? e.vr : kMaxRep);
        if (pieces > 1 && last != kMaxRep) g.last_inner_repeat = last;
        b.issue(g);
      } else {
        const uint32_t head = static_cast<uint32_t>(n / e.epr);
        const uint32_t tail = static_cast<uint32_t>(n % e.epr);
        if (head != 0) {
          b.use_mask(Mask128::all());
          ew_contiguous_issue(b, proto, e, 0, head);
        }
        if (tail != 0) {
          b.use_mask(Mask128::continuous(tail));
          ew_contiguous_issue(b, proto, e, head * e.epr, 1);
        }
      }
    } else {
      const uint32_t norm_col_repeat = cols / e.epr;
      if (norm_col_repeat > 1 && uint64_t{e.rows} * norm_col_repeat < 4) {
        ew_per_row_count(b, proto, e);
      } else if (e.rows < norm_col_repeat + 1) {
        if (e.vc % e.epr != 0) {
          ew_per_row_count(b, proto, e);
        } else {
          ew_per_row_full(b, proto, e, e.vc / e.epr);
        }
      } else {
        ew_row_repeat(b, proto, e);
      }
    }
  } else {
    ew_row_repeat(b, proto, e);
  }
  b.finish();
}

Ew make_ew(int n, const TileDesc* const t[3], uint32_t epr, uint32_t rep_max) noexcept {
  Ew e{};
  e.n = n;
  for (int k = 0; k < n; ++k) {
    e.off[k] = t[k]->offset;
    e.cols[k] = t[k]->cols;
    e.elem[k] = t[k]->elem_bytes();
  }
  e.rows = t[0]->rows;
  e.vr = t[0]->valid_rows;
  e.vc = t[0]->valid_cols;
  e.epr = epr;
  e.rep_max = rep_max;
  return e;
}

// ---- op classification ----------------------------------------------------------------------
bool binary_op(TileOp op, desc::BinaryOp& out) noexcept {
  switch (op) {
    case TileOp::TADD: out = desc::BinaryOp::vadd; return true;
    case TileOp::TSUB: out = desc::BinaryOp::vsub; return true;
    case TileOp::TMUL: out = desc::BinaryOp::vmul; return true;
    case TileOp::TDIV: out = desc::BinaryOp::vdiv; return true;
    case TileOp::TMAX: out = desc::BinaryOp::vmax; return true;
    case TileOp::TMIN: out = desc::BinaryOp::vmin; return true;
    default: return false;
  }
}
bool scalar_op(TileOp op, desc::ScalarOp& out) noexcept {
  switch (op) {
    case TileOp::TADDS: out = desc::ScalarOp::vadds; return true;
    case TileOp::TMULS: out = desc::ScalarOp::vmuls; return true;
    case TileOp::TMAXS: out = desc::ScalarOp::vmaxs; return true;
    case TileOp::TMINS: out = desc::ScalarOp::vmins; return true;
    default: return false;
  }
}
bool unary_op(TileOp op, desc::UnaryOp& out) noexcept {
  switch (op) {
    case TileOp::TABS: out = desc::UnaryOp::vabs; return true;
    case TileOp::TEXP: out = desc::UnaryOp::vexp; return true;
    case TileOp::TLOG: out = desc::UnaryOp::vln; return true;
    case TileOp::TSQRT: out = desc::UnaryOp::vsqrt; return true;
    case TileOp::TRSQRT: out = desc::UnaryOp::vrsqrt; return true;
    case TileOp::TRECIP: out = desc::UnaryOp::vrec; return true;
    case TileOp::TRELU: out = desc::UnaryOp::vrelu; return true;
    default: return false;
  }
}

}  // namespace

namespace {
// The schedule every elementwise family shares, once its step prototype is set (n operand
// slots, the op's repeat-stride field limit).
Status schedule(const Request& q, Plan& out, Step& proto, int n, uint32_t rep_max) noexcept {
  const DType dt = q.dst.dtype;
  proto.dtype = dt;
  const TileDesc* t[3] = {&q.dst, &q.src0, &q.src1};
  for (int k = 0; k < n; ++k) TILEFW_TRY(check_vec(*t[k], q.chip));
  for (int k = 0; k < n; ++k) {
    if (t[k]->layout != Layout::row_major) return Status::plan_layout_unsupported;
    if (proto.kind != StepKind::cvt && t[k]->dtype != dt) return Status::plan_unsupported_dtype;
    TILEFW_TRY(same_valid(*t[0], *t[k]));
  }
  TILEFW_TRY(nonempty(q.dst));
  uint32_t epr = lanes(dt);
  if (proto.kind == StepKind::cvt) {
    const uint32_t es = dtype_size(q.src0.dtype) > dtype_size(dt) ? dtype_size(q.src0.dtype) : dtype_size(dt);
    epr = chip::a2a3::lanes_per_repeat(es);
  }
  Builder b{out};
  ew_schedule(b, proto, make_ew(n, t, epr, rep_max));
  return b.err;
}

// The binary prototype (vadd..vmin); false when q.op is not a binary op.
bool binary_prototype(const Request& q, Step& proto, Status& st) noexcept {
  desc::BinaryOp bop{};
  if (!binary_op(q.op, bop)) return false;
  proto.kind = StepKind::binary;
  proto.binary = desc::BinIntrinsicDesc{};
  proto.binary.op = bop;
  st = desc::supports(bop, q.dst.dtype) ? Status::ok : Status::plan_unsupported_dtype;
  return true;
}
}  // namespace

Status plan_elementwise(const Request& q, Plan& out) noexcept {
  Step proto{};
  int n = 2;
  uint32_t rep_max = chip::a2a3::kMaxWideStride;
  const DType dt = q.dst.dtype;
  desc::ScalarOp sop{};
  desc::UnaryOp uop{};
  Status st = Status::ok;
  if (binary_prototype(q, proto, st)) {
    n = 3;
    rep_max = chip::a2a3::kMaxBinaryStride;
  } else if (scalar_op(q.op, sop)) {
    proto.kind = StepKind::scalar;
    proto.scalar = desc::ScalarDesc{};
    proto.scalar.op = sop;
    proto.scalar.scalar_bits = q.scalar_bits;
    if (!desc::supports(sop, dt)) st = Status::plan_unsupported_dtype;
  } else if (unary_op(q.op, uop)) {
    proto.kind = StepKind::unary;
    proto.unary = desc::UnaryDesc{};
    proto.unary.op = uop;
    if (!desc::supports(uop, dt)) st = Status::plan_unsupported_dtype;
  } else if (q.op == TileOp::TEXPANDS) {
    proto.kind = StepKind::dup;
    proto.dup = desc::DupDesc{};
    proto.dup.scalar_bits = q.scalar_bits;
    n = 1;
    if (!desc::supports_dup(dt)) st = Status::plan_unsupported_dtype;
  } else if (q.op == TileOp::TCVT) {
    proto.kind = StepKind::cvt;
    proto.cvt = desc::CvtDesc{};
    proto.cvt.dst_type = dt;
    proto.cvt.src_type = q.src0.dtype;
    proto.cvt.round = q.round;
    rep_max = chip::a2a3::kMaxBinaryStride;
    if (!desc::supports_cvt(q.src0.dtype, dt, q.round)) st = Status::plan_unsupported_dtype;
  } else {
    return Status::plan_unknown_op;
  }
  TILEFW_TRY(st);
  return schedule(q, out, proto, n, rep_max);
}

Status plan_elementwise_binary(const Request& q, Plan& out) noexcept {
  Step proto{};
  Status st = Status::ok;
  if (!binary_prototype(q, proto, st)) return Status::plan_unknown_op;
  TILEFW_TRY(st);
  return schedule(q, out, proto, 3, chip::a2a3::kMaxBinaryStride);
}

}  // namespace tilefw::plan::detail
