// The a2a3 tile planner: tile checks, path selection and plan validation (streams documented
// in inc/tilefw/plan/plan.hpp).

#include "tilefw/plan/plan.hpp"

#include "tilefw/base/result.hpp"

namespace tilefw::plan {

using desc::Mask128;
using desc::MaskMode;

const char* tile_op_name(TileOp op) noexcept {
  switch (op) {
    case TileOp::TADD: return "TADD";
    case TileOp::TSUB: return "TSUB";
    case TileOp::TMUL: return "TMUL";
    case TileOp::TDIV: return "TDIV";
    case TileOp::TMAX: return "TMAX";
    case TileOp::TMIN: return "TMIN";
    case TileOp::TADDS: return "TADDS";
    case TileOp::TMULS: return "TMULS";
    case TileOp::TMAXS: return "TMAXS";
    case TileOp::TMINS: return "TMINS";
    case TileOp::TABS: return "TABS";
    case TileOp::TEXP: return "TEXP";
    case TileOp::TLOG: return "TLOG";
    case TileOp::TSQRT: return "TSQRT";
    case TileOp::TRSQRT: return "TRSQRT";
    case TileOp::TRECIP: return "TRECIP";
    case TileOp::TRELU: return "TRELU";
    case TileOp::TROWSUM: return "TROWSUM";
    case TileOp::TROWMAX: return "TROWMAX";
    case TileOp::TROWMIN: return "TROWMIN";
    case TileOp::TCOLSUM: return "TCOLSUM";
    case TileOp::TCOLMAX: return "TCOLMAX";
    case TileOp::TCOLMIN: return "TCOLMIN";
    case TileOp::TCOLEXPAND: return "TCOLEXPAND";
    case TileOp::TEXPANDS: return "TEXPANDS";
    case TileOp::TCVT: return "TCVT";
    case TileOp::TROWEXPAND: return "TROWEXPAND";
    case TileOp::TROWEXPANDADD: return "TROWEXPANDADD";
    case TileOp::TROWEXPANDSUB: return "TROWEXPANDSUB";
    case TileOp::TROWEXPANDMUL: return "TROWEXPANDMUL";
    case TileOp::TROWEXPANDDIV: return "TROWEXPANDDIV";
  }
  return "?";
}

const char* step_kind_name(StepKind k) noexcept {
  switch (k) {
    case StepKind::set_mask: return "set_mask";
    case StepKind::set_mask_count: return "set_mask_count";
    case StepKind::set_mask_norm: return "set_mask_norm";
    case StepKind::binary: return "binary";
    case StepKind::unary: return "unary";
    case StepKind::scalar: return "scalar";
    case StepKind::reduce: return "reduce";
    case StepKind::copy: return "copy";
    case StepKind::dup: return "dup";
    case StepKind::cvt: return "cvt";
    case StepKind::brcb: return "brcb";
  }
  return "?";
}

// ---- operand slot access ---------------------------------------------------------------------
// Slot 0 is the destination, 1 the (first) source, 2 src1 of a binary issue.
namespace {

desc::Operand* slot(Step& s, int k) noexcept {
  switch (s.kind) {
    case StepKind::binary: return k == 0 ? &s.binary.dst : k == 1 ? &s.binary.src0 : &s.binary.src1;
    case StepKind::unary: return k == 0 ? &s.unary.dst : k == 1 ? &s.unary.src : nullptr;
    case StepKind::scalar: return k == 0 ? &s.scalar.dst : k == 1 ? &s.scalar.src : nullptr;
    case StepKind::reduce: return k == 0 ? &s.reduce.dst : k == 1 ? &s.reduce.src : nullptr;
    case StepKind::copy: return k == 0 ? &s.copy.dst : k == 1 ? &s.copy.src : nullptr;
    case StepKind::dup: return k == 0 ? &s.dup.dst : nullptr;
    case StepKind::cvt: return k == 0 ? &s.cvt.dst : k == 1 ? &s.cvt.src : nullptr;
    case StepKind::brcb: return k == 0 ? &s.brcb.dst : k == 1 ? &s.brcb.src : nullptr;
    default: return nullptr;
  }
}

void set_repeat(Step& s, uint32_t repeat) noexcept {
  switch (s.kind) {
    case StepKind::binary: s.binary.repeat = repeat; break;
    case StepKind::unary: s.unary.repeat = repeat; break;
    case StepKind::scalar: s.scalar.repeat = repeat; break;
    case StepKind::reduce: s.reduce.repeat = repeat; break;
    case StepKind::copy: s.copy.nburst = repeat; break;
    case StepKind::dup: s.dup.repeat = repeat; break;
    case StepKind::cvt: s.cvt.repeat = repeat; break;
    case StepKind::brcb: s.brcb.repeat = repeat; break;
    default: break;
  }
}

void set_mode(Step& s, MaskMode m, uint32_t count) noexcept {
  switch (s.kind) {
    case StepKind::binary: s.binary.mask_mode = m; s.binary.vector_count = count; break;
    case StepKind::unary: s.unary.mask_mode = m; s.unary.vector_count = count; break;
    case StepKind::scalar: s.scalar.mask_mode = m; s.scalar.vector_count = count; break;
    case StepKind::reduce: s.reduce.mask_mode = m; s.reduce.vector_count = count; break;
    case StepKind::dup: s.dup.mask_mode = m; s.dup.vector_count = count; break;
    case StepKind::cvt: s.cvt.mask_mode = m; s.cvt.vector_count = count; break;
    default: break;
  }
}

// Block and repeat strides of slot k (reduce dst: repeat stride only, in its own unit).
void set_strides(Step& s, int k, uint32_t blk, uint32_t rep) noexcept {
  switch (s.kind) {
    case StepKind::binary:
      if (k == 0) { s.binary.dst_block_stride = blk; s.binary.dst_repeat_stride = rep; }
      if (k == 1) { s.binary.src0_block_stride = blk; s.binary.src0_repeat_stride = rep; }
      if (k == 2) { s.binary.src1_block_stride = blk; s.binary.src1_repeat_stride = rep; }
      break;
    case StepKind::unary:
      if (k == 0) { s.unary.dst_block_stride = blk; s.unary.dst_repeat_stride = rep; }
      if (k == 1) { s.unary.src_block_stride = blk; s.unary.src_repeat_stride = rep; }
      break;
    case StepKind::scalar:
      if (k == 0) { s.scalar.dst_block_stride = blk; s.scalar.dst_repeat_stride = rep; }
      if (k == 1) { s.scalar.src_block_stride = blk; s.scalar.src_repeat_stride = rep; }
      break;
    case StepKind::reduce:
      if (k == 0) { s.reduce.dst_repeat_stride = rep; }
      if (k == 1) { s.reduce.src_block_stride = blk; s.reduce.src_repeat_stride = rep; }
      break;
    case StepKind::dup:
      if (k == 0) { s.dup.dst_block_stride = blk; s.dup.dst_repeat_stride = rep; }
      break;
    case StepKind::cvt:
      if (k == 0) { s.cvt.dst_block_stride = blk; s.cvt.dst_repeat_stride = rep; }
      if (k == 1) { s.cvt.src_block_stride = blk; s.cvt.src_repeat_stride = rep; }
      break;
    default: break;
  }
}

int slot_count(StepKind k) noexcept {
  switch (k) {
    case StepKind::binary: return 3;
    case StepKind::dup: return 1;
    case StepKind::unary:
    case StepKind::scalar:
    case StepKind::reduce:
    case StepKind::copy:
    case StepKind::cvt:
    case StepKind::brcb: return 2;
    default: return 0;
  }
}

}  // namespace

desc::Operand Step::dst_operand() const noexcept {
  Step copy_of = *this;
  const desc::Operand* o = slot(copy_of, 0);
  return o != nullptr ? *o : desc::Operand{};
}

uint32_t Step::repeat() const noexcept {
  switch (kind) {
    case StepKind::binary: return binary.repeat;
    case StepKind::unary: return unary.repeat;
    case StepKind::scalar: return scalar.repeat;
    case StepKind::reduce: return reduce.repeat;
    case StepKind::copy: return copy.nburst;
    case StepKind::dup: return dup.repeat;
    case StepKind::cvt: return cvt.repeat;
    case StepKind::brcb: return brcb.repeat;
    default: return 0;
  }
}

desc::DescReport validate_step(const Step& s) noexcept {
  switch (s.kind) {
    case StepKind::binary: return desc::validate(s.binary, s.dtype, s.mask);
    case StepKind::unary: return desc::validate(s.unary, s.dtype, s.mask);
    case StepKind::scalar: return desc::validate(s.scalar, s.dtype, s.mask);
    case StepKind::reduce: return desc::validate(s.reduce, s.dtype, s.mask);
    case StepKind::copy: return desc::validate(s.copy);
    case StepKind::dup: return desc::validate(s.dup, s.dtype, s.mask);
    case StepKind::cvt: return desc::validate(s.cvt, s.mask);
    case StepKind::brcb: return desc::validate(s.brcb, s.dtype);
    default: return desc::DescReport{};
  }
}

// ---- Plan ---------------------------------------------------------------------------------------
Status Plan::append(const Segment& s) noexcept {
  if (n_ >= kMaxSegments) return Status::plan_too_long;
  segs_[n_++] = s;
  return Status::ok;
}

uint64_t Plan::step_count() const noexcept {
  uint64_t n = 0;
  for (uint32_t i = 0; i < n_; ++i) n += uint64_t{segs_[i].outer} * segs_[i].inner;
  return n;
}

uint64_t Plan::issue_count() const noexcept {
  uint64_t n = 0;
  for (uint32_t i = 0; i < n_; ++i) {
    if (segs_[i].step.is_issue()) n += uint64_t{segs_[i].outer} * segs_[i].inner;
  }
  return n;
}

Step Plan::materialize(uint32_t seg, uint32_t o, uint32_t i) const noexcept {
  const Segment& g = segs_[seg];
  Step s = g.step;
  const int n = slot_count(s.kind);
  for (int k = 0; k < n; ++k) {
    desc::Operand* op = slot(s, k);
    op->offset += o * g.outer_delta[k] + i * g.inner_delta[k];
  }
  if (g.last_inner_repeat != 0 && i + 1 == g.inner) set_repeat(s, g.last_inner_repeat);
  return s;
}

bool Plan::Cursor::next(Step& out) noexcept {
  while (seg_ < p_->n_) {
    const Segment& g = p_->segs_[seg_];
    if (outer_ < g.outer && inner_ < g.inner) {
      out = p_->materialize(seg_, outer_, inner_);
      if (++inner_ == g.inner) {
        inner_ = 0;
        ++outer_;
      }
      return true;
    }
    ++seg_;
    outer_ = 0;
    inner_ = 0;
  }
  return false;
}

// ---- checks ---------------------------------------------------------------------------------------
Status check_placement(chip::MemSpace space, uint64_t offset, uint64_t bytes) noexcept {
  const chip::MemoryRegion* r = chip::a2a3::region_of(space);
  if (r == nullptr) return Status::plan_tile_wrong_space;
  if (offset % r->alignment != 0) return Status::tile_misaligned;
  if (bytes > r->size || offset > r->size - bytes) return Status::tile_out_of_bounds;
  return Status::ok;
}

Status check_tile(const TileDesc& t) noexcept {
  const uint32_t e = t.elem_bytes();
  if (e == 0 || t.rows == 0 || t.cols == 0 || t.valid_rows > t.rows || t.valid_cols > t.cols) {
    return Status::plan_tile_constraint;
  }
  if (t.layout == Layout::row_major && (uint64_t{t.cols} * e) % chip::a2a3::kBlockBytes != 0) {
    return Status::plan_tile_constraint;
  }
  if (t.layout == Layout::col_major && (uint64_t{t.rows} * e) % chip::a2a3::kBlockBytes != 0) {
    return Status::plan_tile_constraint;
  }
  if (t.layout != Layout::row_major && t.layout != Layout::col_major) return Status::plan_tile_constraint;
  return check_placement(t.space, t.offset, t.bytes());
}

// ---- validation ---------------------------------------------------------------------------------
Status plan_validate(const Plan& p, desc::DescReport* report) noexcept {
  MaskMode mode = MaskMode::normal;
  Mask128 mask = Mask128::all();
  Status st = Status::ok;
  Step s{};
  for (Plan::Cursor c = p.begin(); c.next(s);) {
    switch (s.kind) {
      case StepKind::set_mask: mask = s.mask; continue;
      case StepKind::set_mask_count:
        mode = MaskMode::count;
        mask = Mask128{0, s.count};
        continue;
      case StepKind::set_mask_norm: mode = MaskMode::normal; continue;
      default: break;
    }
    // The state recorded in the step must be the replayed state.
    if (s.uses_mask() && (s.mode != mode || !(s.mask == mask))) return Status::invalid_argument;
    const desc::DescReport r = validate_step(s);
    if (!r.ok()) {
      if (report != nullptr) *report = r;
      st = r.status;
      return st;
    }
    if (s.uses_mask() && mode == MaskMode::count && s.count != mask.lo) return Status::invalid_argument;
  }
  if (mode != MaskMode::normal || !(mask == Mask128::all())) return Status::invalid_argument;
  return st;
}

// ---- builder ---------------------------------------------------------------------------------
namespace {

constexpr uint32_t kB = chip::a2a3::kBlockBytes;
constexpr uint32_t kMaxRep = chip::a2a3::kMaxRepeat;

struct Builder {
  Plan& p;
  Status err = Status::ok;
  MaskMode mode = MaskMode::normal;
  Mask128 mask = Mask128::all();
  uint32_t count = 0;

  void push(const Segment& g) noexcept {
    if (err != Status::ok) return;
    err = p.append(g);
  }
  void mode_step(StepKind k, Mask128 m, uint32_t n) noexcept {
    Segment g{};
    g.step.kind = k;
    g.step.mask = m;
    g.step.count = n;
    push(g);
  }
  // Normal mode with MASK m (emits only the changes).
  void use_mask(Mask128 m) noexcept {
    if (mode == MaskMode::count) {
      mode_step(StepKind::set_mask_norm, mask, 0);
      mode = MaskMode::normal;
    }
    if (!(mask == m)) {
      mode_step(StepKind::set_mask, m, 0);
      mask = m;
    }
  }
  void use_count(uint32_t n) noexcept {
    if (mode != MaskMode::count || count != n) {
      mode_step(StepKind::set_mask_count, Mask128{0, n}, n);
      mode = MaskMode::count;
      count = n;
      mask = Mask128{0, n};
    }
  }
  void finish() noexcept { use_mask(Mask128::all()); }

  // Emits `g` with the current state recorded (normal: repeat as given; count: repeat 0).
  void issue(Segment g) noexcept {
    g.step.mode = mode;
    g.step.mask = mask;
    g.step.count = mode == MaskMode::count ? count : 0;
    set_mode(g.step, mode, g.step.count);
    if (mode == MaskMode::count) {
      set_repeat(g.step, 0);
      g.last_inner_repeat = 0;
    }
    push(g);
  }
};

// Operand geometry for the elementwise scheduler.
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

Status check_vec(const TileDesc& t) noexcept {
  if (t.space != chip::MemSpace::UB) {
    const Status s = check_tile(t);
    return s != Status::ok ? s : Status::plan_tile_wrong_space;
  }
  return check_tile(t);
}

Status same_valid(const TileDesc& a, const TileDesc& b) noexcept {
  return a.valid_rows == b.valid_rows && a.valid_cols == b.valid_cols ? Status::ok
                                                                      : Status::plan_valid_shape_mismatch;
}

Status nonempty(const TileDesc& t) noexcept {
  return t.valid_rows == 0 || t.valid_cols == 0 ? Status::plan_empty_valid_region : Status::ok;
}

uint32_t lanes(DType t) noexcept { return chip::a2a3::lanes_per_repeat(dtype_size(t)); }

// ---- elementwise ops ---------------------------------------------------------------------------
Status plan_elementwise(const Request& q, Plan& out) noexcept {
  Step proto{};
  int n = 2;
  uint32_t rep_max = chip::a2a3::kMaxWideStride;
  const DType dt = q.dst.dtype;
  desc::BinaryOp bop{};
  desc::ScalarOp sop{};
  desc::UnaryOp uop{};
  if (binary_op(q.op, bop)) {
    proto.kind = StepKind::binary;
    proto.binary = desc::BinIntrinsicDesc{};
    proto.binary.op = bop;
    n = 3;
    rep_max = chip::a2a3::kMaxBinaryStride;
    if (!desc::supports(bop, dt)) return Status::plan_unsupported_dtype;
  } else if (scalar_op(q.op, sop)) {
    proto.kind = StepKind::scalar;
    proto.scalar = desc::ScalarDesc{};
    proto.scalar.op = sop;
    proto.scalar.scalar_bits = q.scalar_bits;
    if (!desc::supports(sop, dt)) return Status::plan_unsupported_dtype;
  } else if (unary_op(q.op, uop)) {
    proto.kind = StepKind::unary;
    proto.unary = desc::UnaryDesc{};
    proto.unary.op = uop;
    if (!desc::supports(uop, dt)) return Status::plan_unsupported_dtype;
  } else if (q.op == TileOp::TEXPANDS) {
    proto.kind = StepKind::dup;
    proto.dup = desc::DupDesc{};
    proto.dup.scalar_bits = q.scalar_bits;
    n = 1;
    if (!desc::supports_dup(dt)) return Status::plan_unsupported_dtype;
  } else if (q.op == TileOp::TCVT) {
    proto.kind = StepKind::cvt;
    proto.cvt = desc::CvtDesc{};
    proto.cvt.dst_type = dt;
    proto.cvt.src_type = q.src0.dtype;
    proto.cvt.round = q.round;
    rep_max = chip::a2a3::kMaxBinaryStride;
    if (!desc::supports_cvt(q.src0.dtype, dt, q.round)) return Status::plan_unsupported_dtype;
  } else {
    return Status::plan_unknown_op;
  }
  proto.dtype = dt;
  const TileDesc* t[3] = {&q.dst, &q.src0, &q.src1};
  for (int k = 0; k < n; ++k) TILEFW_TRY(check_vec(*t[k]));
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

// ---- row reductions -----------------------------------------------------------------------------
struct RowGeom {
  uint32_t vr = 0;
  uint32_t epr = 0;
  uint32_t elem = 0;
};

// One "row-parallel" issue: one repeat per row over vr rows. Slots: offsets, row byte
// strides, repeat strides (in each slot's unit) and their field limits. Full: counter mode
// with count vr*EPR; masked: normal mode with `m`, rows split at 255. A repeat stride beyond
// its field: one repeat-1 issue per row (normal mode, MASK m or all).
void row_parallel(Builder& b, const Step& proto, int n, const uint32_t off[3], const uint32_t row_bytes[3],
                  const uint32_t rep[3], const uint32_t rep_max[3], const RowGeom& g, bool full, Mask128 m) noexcept {
  bool ok = true;
  for (int k = 0; k < n; ++k) ok = ok && rep[k] <= rep_max[k];
  Segment s{};
  s.step = proto;
  for (int k = 0; k < n; ++k) {
    slot(s.step, k)->offset = off[k];
    set_strides(s.step, k, 1, rep[k]);
  }
  if (!ok) {
    b.use_mask(full ? Mask128::all() : m);
    for (int k = 0; k < n; ++k) {
      set_strides(s.step, k, 1, 0);
      s.inner_delta[k] = row_bytes[k];
    }
    s.inner = g.vr;
    set_repeat(s.step, 1);
    b.issue(s);
    return;
  }
  if (full) {
    b.use_count(g.vr * g.epr);
    b.issue(s);
    return;
  }
  b.use_mask(m);
  const uint32_t pieces = (g.vr + kMaxRep - 1) / kMaxRep;
  const uint32_t last = g.vr - (pieces - 1) * kMaxRep;
  for (int k = 0; k < n; ++k) s.inner_delta[k] = kMaxRep * row_bytes[k];
  s.inner = pieces;
  set_repeat(s.step, g.vr < kMaxRep ? g.vr : kMaxRep);
  if (pieces > 1 && last != kMaxRep) s.last_inner_repeat = last;
  b.issue(s);
}

// One plain issue (fast paths): normal mode, full MASK.
void plain(Builder& b, Step s) noexcept {
  b.use_mask(Mask128::all());
  Segment g{};
  g.step = s;
  b.issue(g);
}

Status plan_fp32_fast(Builder& b, const Request& q) noexcept {
  const uint32_t rows = q.src0.valid_rows;
  const uint32_t cols = q.src0.valid_cols;
  const uint32_t tmp = q.tmp.offset;
  const uint32_t src = q.src0.offset;
  const uint32_t dst = q.dst.offset;
  auto vcgadd = [&](uint32_t d, uint32_t s, uint32_t repeat) {
    Step st{};
    st.kind = StepKind::reduce;
    st.dtype = DType::f32;
    st.reduce = desc::ReduceDesc{};
    st.reduce.op = desc::ReduceOp::vcgadd;
    st.reduce.repeat = repeat;
    st.reduce.dst_repeat_stride = 1;
    st.reduce.src_block_stride = 1;
    st.reduce.src_repeat_stride = 8;
    st.reduce.dst = desc::Operand{chip::MemSpace::UB, d};
    st.reduce.src = desc::Operand{chip::MemSpace::UB, s};
    plain(b, st);
  };
  auto pairs = [&](uint32_t repeat) {  // [R, 2k] partials -> [R, k]: block j = block 2j + block 2j+1
    Step st{};
    st.kind = StepKind::binary;
    st.dtype = DType::f32;
    st.binary = desc::BinIntrinsicDesc{};
    st.binary.op = desc::BinaryOp::vadd;
    st.binary.repeat = repeat;
    st.binary.dst_block_stride = 1;
    st.binary.src0_block_stride = 2;
    st.binary.src1_block_stride = 2;
    st.binary.dst_repeat_stride = 8;
    st.binary.src0_repeat_stride = 16;
    st.binary.src1_repeat_stride = 16;
    st.binary.dst = desc::Operand{chip::MemSpace::UB, tmp};
    st.binary.src0 = desc::Operand{chip::MemSpace::UB, tmp};
    st.binary.src1 = desc::Operand{chip::MemSpace::UB, tmp + 32};
    plain(b, st);
  };
  const uint32_t first = rows * cols / 64;  // repeats of the first vcgadd (always 128)
  vcgadd(tmp, src, first);
  if (cols == 128) {  // [64,128] -> [64,16] -> [64,8] -> [64,1]
    pairs(rows / 8);
  } else if (cols == 256) {  // [32,256] -> [32,32] -> [32,16] -> [32,8] -> [32,1]
    pairs(rows / 4);
    pairs(rows / 8);
  } else if (cols == 512) {  // [16,512] -> [16,64] -> [16,8] -> [16,1]
    vcgadd(tmp, tmp, rows);
  } else {  // [8,1024] -> [8,128] -> [8,16] -> [8,8] -> [8,1]
    vcgadd(tmp, tmp, rows * 2);
    pairs(rows / 8);
  }
  vcgadd(dst, tmp, rows / 8);
  b.finish();
  return b.err;
}

bool is_fp32_fast_shape(const Request& q) noexcept {
  const TileDesc& s = q.src0;
  if (q.op != TileOp::TROWSUM || s.dtype != DType::f32) return false;
  if (q.dst.layout != Layout::col_major || q.dst.cols != 1 || q.dst.valid_cols != 1) return false;
  if (s.rows != s.valid_rows || s.cols != s.valid_cols) return false;
  return (s.rows == 64 && s.cols == 128) || (s.rows == 32 && s.cols == 256) ||
         (s.rows == 16 && s.cols == 512) || (s.rows == 8 && s.cols == 1024);
}

Status plan_row_reduce(const Request& q, Plan& out) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  const TileDesc& tmp = q.tmp;
  TILEFW_TRY(check_vec(dst));
  TILEFW_TRY(check_vec(src));
  TILEFW_TRY(check_vec(tmp));
  const DType dt = src.dtype;
  if (dt != DType::f16 && dt != DType::f32) return Status::plan_unsupported_dtype;
  if (dst.dtype != dt) return Status::plan_unsupported_dtype;
  if (src.layout != Layout::row_major) return Status::plan_layout_unsupported;
  if (dst.layout == Layout::col_major && dst.cols != 1) return Status::plan_layout_unsupported;
  if (dst.valid_rows != src.valid_rows) return Status::plan_valid_shape_mismatch;
  TILEFW_TRY(nonempty(src));
  if (dst.valid_cols == 0) return Status::plan_empty_valid_region;

  Builder b{out};
  const uint32_t e = dtype_size(dt);
  const uint32_t epr = lanes(dt);
  const uint32_t bse = kB / e;
  const uint32_t vr = src.valid_rows;
  const uint32_t vc = src.valid_cols;
  if (is_fp32_fast_shape(q)) {
    if (tmp.dtype != dt || tmp.bytes() < uint64_t{vr} * vc * e / 8) return Status::plan_tmp_too_small;
    return plan_fp32_fast(b, q);
  }
  const bool sum = q.op == TileOp::TROWSUM;
  const desc::BinaryOp fold = sum ? desc::BinaryOp::vadd : q.op == TileOp::TROWMAX ? desc::BinaryOp::vmax
                                                                                    : desc::BinaryOp::vmin;
  Step red{};
  red.kind = StepKind::reduce;
  red.dtype = dt;
  red.reduce = desc::ReduceDesc{};
  red.reduce.op = sum ? desc::ReduceOp::vcadd : q.op == TileOp::TROWMAX ? desc::ReduceOp::vcmax
                                                                        : desc::ReduceOp::vcmin;
  red.reduce.order = desc::ReduceOrder::only_value;
  Step bin{};
  bin.kind = StepKind::binary;
  bin.dtype = dt;
  bin.binary = desc::BinIntrinsicDesc{};
  bin.binary.op = fold;

  const uint32_t dst_rs = dst.layout == Layout::col_major ? 1 : dst.cols;  // vcadd unit: elements
  const uint32_t dst_rb = dst_rs * e;
  const uint32_t src_rs = src.cols / bse;
  const uint32_t tmp_rs = tmp.cols / bse;
  const RowGeom g{vr, epr, e};
  const uint32_t wide[3] = {chip::a2a3::kMaxWideStride, chip::a2a3::kMaxWideStride, 0};
  const uint32_t narrow[3] = {chip::a2a3::kMaxBinaryStride, chip::a2a3::kMaxBinaryStride,
                              chip::a2a3::kMaxBinaryStride};

  auto reduce_into_dst = [&](uint32_t s_off, uint32_t s_rb, uint32_t s_rs, bool full, Mask128 m) {
    const uint32_t off[3] = {dst.offset, s_off, 0};
    const uint32_t rb[3] = {dst_rb, s_rb, 0};
    const uint32_t rep[3] = {dst_rs, s_rs, 0};
    row_parallel(b, red, 2, off, rb, rep, wide, g, full, m);
  };
  if (vc <= epr) {  // A: one vcadd, tmp untouched
    if (vc == epr) {
      reduce_into_dst(src.offset, src.row_bytes(), src_rs, true, Mask128::all());
    } else {
      reduce_into_dst(src.offset, src.row_bytes(), src_rs, false, Mask128::continuous(vc));
    }
    b.finish();
    return b.err;
  }
  // B: tmp holds max(1, P/2) chunks of EPR lanes per row.
  const uint32_t P = vc / epr;
  const uint32_t rem = vc % epr;
  const uint32_t need = (P / 2 > 1 ? P / 2 : 1) * epr;
  if (tmp.dtype != dt || tmp.layout != Layout::row_major || tmp.rows < vr || tmp.cols < need) {
    return Status::plan_tmp_too_small;
  }
  const uint32_t cb = epr * e;  // bytes of one chunk
  auto fold3 = [&](uint32_t d, uint32_t d_rb, uint32_t d_rs, uint32_t a, uint32_t a_rb, uint32_t a_rs,
                   uint32_t c, uint32_t c_rb, uint32_t c_rs, bool full, Mask128 m) {
    const uint32_t off[3] = {d, a, c};
    const uint32_t rb[3] = {d_rb, a_rb, c_rb};
    const uint32_t rep[3] = {d_rs, a_rs, c_rs};
    row_parallel(b, bin, 3, off, rb, rep, narrow, g, full, m);
  };
  const uint32_t t_rb = tmp.row_bytes();
  const uint32_t s_rb = src.row_bytes();
  auto tmp_at = [&](uint32_t i) { return tmp.offset + i * cb; };
  auto src_at = [&](uint32_t i) { return src.offset + i * cb; };
  if (P == 1) {  // step 1: chunk 0 of every row into tmp
    Segment s{};
    s.step.kind = StepKind::copy;
    s.step.dtype = dt;
    s.step.copy = desc::CopyDesc{};
    s.step.copy.nburst = vr;
    s.step.copy.burst_len = chip::a2a3::kBlocksPerRepeat;
    s.step.copy.src_gap = src_rs - chip::a2a3::kBlocksPerRepeat;
    s.step.copy.dst_gap = tmp_rs - chip::a2a3::kBlocksPerRepeat;
    s.step.copy.dst = desc::Operand{chip::MemSpace::UB, tmp.offset};
    s.step.copy.src = desc::Operand{chip::MemSpace::UB, src.offset};
    s.step.mode = b.mode;
    s.step.mask = b.mask;
    b.push(s);
  }
  // step 2: FillTmp, tmp_i = s_2i + s_2i+1 (one segment when the strides fit).
  for (uint32_t i = 0; i < P / 2; ++i) {
    fold3(tmp_at(i), t_rb, tmp_rs, src_at(2 * i), s_rb, src_rs, src_at(2 * i + 1), s_rb, src_rs, true,
          Mask128::all());
  }
  if (P % 2 == 1 && P != 1) {  // step 3
    fold3(tmp_at(0), t_rb, tmp_rs, tmp_at(0), t_rb, tmp_rs, src_at(P - 1), s_rb, src_rs, true, Mask128::all());
  }
  if (rem > 0) {  // step 4: masked tail into tmp_0
    fold3(tmp_at(0), t_rb, tmp_rs, tmp_at(0), t_rb, tmp_rs, src_at(P), s_rb, src_rs, false,
          Mask128::continuous(rem));
  }
  for (uint32_t len = P / 2; len > 1; len /= 2) {  // step 5: TmpProc
    for (uint32_t i = 0; i < len / 2; ++i) {
      fold3(tmp_at(i), t_rb, tmp_rs, tmp_at(2 * i), t_rb, tmp_rs, tmp_at(2 * i + 1), t_rb, tmp_rs, true,
            Mask128::all());
    }
    if (len % 2 == 1) {
      const uint32_t d = len / 2 - 1;
      fold3(tmp_at(d), t_rb, tmp_rs, tmp_at(d), t_rb, tmp_rs, tmp_at(len - 1), t_rb, tmp_rs, true,
            Mask128::all());
    }
  }
  reduce_into_dst(tmp.offset, t_rb, tmp_rs, true, Mask128::all());  // step 6
  b.finish();
  return b.err;
}

// ---- column reductions and expansion --------------------------------------------------------------
Segment copy_segment(DType dt, uint32_t dst, uint32_t src, uint32_t nburst, uint32_t len, uint32_t src_gap,
                     uint32_t dst_gap, const Builder& b) noexcept {
  Segment s{};
  s.step.kind = StepKind::copy;
  s.step.dtype = dt;
  s.step.copy = desc::CopyDesc{};
  s.step.copy.nburst = nburst;
  s.step.copy.burst_len = len;
  s.step.copy.src_gap = src_gap;
  s.step.copy.dst_gap = dst_gap;
  s.step.copy.dst = desc::Operand{chip::MemSpace::UB, dst};
  s.step.copy.src = desc::Operand{chip::MemSpace::UB, src};
  s.step.mode = b.mode;
  s.step.mask = b.mask;
  return s;
}

Status plan_col(const Request& q, Plan& out) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  TILEFW_TRY(check_vec(dst));
  TILEFW_TRY(check_vec(src));
  if (q.op == TileOp::TCOLSUM) TILEFW_TRY(check_vec(q.tmp));
  const DType dt = src.dtype;
  const bool expand = q.op == TileOp::TCOLEXPAND;
  if (dst.dtype != dt) return Status::plan_unsupported_dtype;
  if (expand) {
    if (dtype_size(dt) < 2) return Status::plan_unsupported_dtype;
  } else if (dt != DType::f16 && dt != DType::f32 && dt != DType::i32) {
    return Status::plan_unsupported_dtype;
  }
  if (src.layout != Layout::row_major || dst.layout != Layout::row_major) return Status::plan_layout_unsupported;
  if (dst.valid_cols != src.valid_cols) return Status::plan_valid_shape_mismatch;
  TILEFW_TRY(nonempty(src));
  TILEFW_TRY(nonempty(dst));
  const uint32_t e = dtype_size(dt);
  const uint32_t vc = src.valid_cols;
  const uint32_t len = (vc * e + kB - 1) / kB;  // blocks of the valid part of a row
  Builder b{out};
  if (expand) {
    const uint32_t vr = dst.valid_rows;
    const uint32_t rb = dst.row_bytes() / kB;
    b.push(copy_segment(dt, dst.offset, src.offset, 1, len, 0, 0, b));
    for (uint32_t k = 1; k < vr; k *= 2) {
      const uint32_t n = k < vr - k ? k : vr - k;
      b.push(copy_segment(dt, dst.offset + k * dst.row_bytes(), dst.offset, n, len, rb - len, rb - len, b));
    }
    b.finish();
    return b.err;
  }
  const uint32_t vr = src.valid_rows;
  b.push(copy_segment(dt, dst.offset, src.offset, 1, len, 0, 0, b));
  if (vr > 1) {
    Step acc{};
    acc.kind = StepKind::binary;
    acc.dtype = dt;
    acc.binary = desc::BinIntrinsicDesc{};
    acc.binary.op = q.op == TileOp::TCOLSUM ? desc::BinaryOp::vadd
                    : q.op == TileOp::TCOLMAX ? desc::BinaryOp::vmax
                                              : desc::BinaryOp::vmin;
    const uint32_t epr = lanes(dt);
    const uint32_t full = vc / epr;
    const uint32_t rem = vc % epr;
    const uint32_t rows = vr - 1;
    const uint32_t src_rs = src.row_bytes() / kB;
    const bool stride_ok = src_rs <= chip::a2a3::kMaxBinaryStride;
    const uint32_t per = stride_ok ? kMaxRep : 1;  // rows per issue
    const uint32_t pieces = (rows + per - 1) / per;
    const uint32_t last = rows - (pieces - 1) * per;
    auto chunk_segment = [&](uint32_t first_chunk, uint32_t chunks) {
      Segment s{};
      s.step = acc;
      const uint32_t col = first_chunk * epr * e;
      s.step.binary.dst = desc::Operand{chip::MemSpace::UB, dst.offset + col};
      s.step.binary.src0 = desc::Operand{chip::MemSpace::UB, src.offset + src.row_bytes() + col};
      s.step.binary.src1 = desc::Operand{chip::MemSpace::UB, dst.offset + col};
      s.step.binary.dst_repeat_stride = 0;
      s.step.binary.src1_repeat_stride = 0;
      s.step.binary.src0_repeat_stride = stride_ok ? src_rs : 0;
      for (int k = 0; k < 3; ++k) s.outer_delta[k] = epr * e;
      s.inner_delta[1] = per * src.row_bytes();
      s.outer = chunks;
      s.inner = pieces;
      s.step.binary.repeat = rows < per ? rows : per;
      if (pieces > 1 && last != per) s.last_inner_repeat = last;
      b.issue(s);
    };
    if (full != 0) {
      b.use_mask(Mask128::all());
      chunk_segment(0, full);
    }
    if (rem != 0) {
      b.use_mask(Mask128::continuous(rem));
      chunk_segment(full, 1);
    }
  }
  b.finish();
  return b.err;
}

// ---- row broadcast ------------------------------------------------------------------------------
// Byte extents of two tiles meet (tiles in one space; the planner checks UB before).
bool extents_meet(const TileDesc& a, const TileDesc& b) noexcept {
  return uint64_t{a.offset} < uint64_t{b.offset} + b.bytes() && uint64_t{b.offset} < uint64_t{a.offset} + a.bytes();
}

// `rows` copies of `len` blocks, one per row (byte strides), nburst split at kMaxCopyBursts.
void copy_rows(Builder& b, DType dt, uint32_t dst, uint32_t src, uint32_t rows, uint32_t len,
               uint32_t dst_row_blocks, uint32_t src_row_blocks) noexcept {
  constexpr uint32_t kPer = desc::kMaxCopyBursts;
  Segment s = copy_segment(dt, dst, src, rows < kPer ? rows : kPer, len, src_row_blocks - len,
                           dst_row_blocks - len, b);
  const uint32_t pieces = (rows + kPer - 1) / kPer;
  const uint32_t last = rows - (pieces - 1) * kPer;
  s.inner = pieces;
  s.inner_delta[0] = kPer * dst_row_blocks * kB;
  s.inner_delta[1] = kPer * src_row_blocks * kB;
  if (pieces > 1 && last != kPer) s.last_inner_repeat = last;
  b.push(s);
}

Status plan_row_expand(const Request& q, Plan& out) noexcept {
  const bool expand_only = q.op == TileOp::TROWEXPAND;
  const TileDesc& dst = q.dst;
  const TileDesc& a = q.src0;                        // TROWEXPANDop's src0
  const TileDesc& v = expand_only ? q.src0 : q.src1;  // the per-row vector
  const bool has_tmp = q.tmp.rows != 0;
  TILEFW_TRY(check_vec(dst));
  if (!expand_only) TILEFW_TRY(check_vec(a));
  TILEFW_TRY(check_vec(v));
  if (has_tmp) TILEFW_TRY(check_vec(q.tmp));
  const DType dt = dst.dtype;
  if (dt != DType::f16 && dt != DType::f32) return Status::plan_unsupported_dtype;
  if (v.dtype != dt || (!expand_only && a.dtype != dt)) return Status::plan_unsupported_dtype;
  if (dst.layout != Layout::row_major || (!expand_only && a.layout != Layout::row_major)) {
    return Status::plan_layout_unsupported;
  }
  const bool v_dense = v.layout == Layout::col_major;
  if (v_dense && v.cols != 1) return Status::plan_layout_unsupported;
  TILEFW_TRY(nonempty(dst));
  if (!expand_only) TILEFW_TRY(same_valid(dst, a));
  if (v.valid_rows != dst.valid_rows || v.valid_cols != 1) return Status::plan_valid_shape_mismatch;

  const uint32_t e = dtype_size(dt);
  const uint32_t vr = dst.valid_rows;
  const uint32_t vc = dst.valid_cols;
  const uint32_t rb = dst.row_bytes() / kB;
  const uint32_t groups = (vr + 7) / 8;
  // Where the slots live (see the header): dst when nothing read later shares its bytes and
  // vbrcb's writes stay inside it, else tmp.
  const bool in_dst = !extents_meet(dst, v) && (expand_only || !extents_meet(dst, a)) &&
                      (v_dense ? dst.rows >= groups * 8 : rb >= chip::a2a3::kBlocksPerRepeat);
  uint32_t area = dst.offset;
  uint32_t slot = rb;  // slot stride in blocks
  if (!in_dst) {
    const uint64_t need = (v_dense ? uint64_t{groups} * 8 : uint64_t{vr} * 8) * kB;
    if (!has_tmp || q.tmp.bytes() < need) return Status::plan_tmp_too_small;
    if (extents_meet(q.tmp, dst) || extents_meet(q.tmp, v) || (!expand_only && extents_meet(q.tmp, a))) {
      return Status::plan_operands_overlap;
    }
    area = q.tmp.offset;
    slot = v_dense ? 1 : chip::a2a3::kBlocksPerRepeat;
  }

  Builder b{out};
  Segment g{};
  g.step.kind = StepKind::brcb;
  g.step.dtype = dt;
  g.step.brcb = desc::BrcbDesc{};
  g.step.mode = b.mode;
  g.step.mask = b.mask;
  g.step.brcb.dst = desc::Operand{chip::MemSpace::UB, area};
  g.step.brcb.src = desc::Operand{chip::MemSpace::UB, v.offset};
  if (v_dense) {
    // A b16 repeat reads 16 B: split at an even repeat so the next piece's source is 32 B aligned.
    const uint32_t per = e == 4 ? kMaxRep : kMaxRep - 1;
    const uint32_t pieces = (groups + per - 1) / per;
    const uint32_t last = groups - (pieces - 1) * per;
    g.step.brcb.dst_block_stride = slot;
    g.step.brcb.dst_repeat_stride = 8 * slot;
    g.step.brcb.repeat = groups < per ? groups : per;
    g.inner = pieces;
    g.inner_delta[0] = per * 8 * slot * kB;
    g.inner_delta[1] = per * 8 * e;
    if (pieces > 1 && last != per) g.last_inner_repeat = last;
  } else {
    g.step.brcb.dst_block_stride = 1;
    g.step.brcb.dst_repeat_stride = chip::a2a3::kBlocksPerRepeat;
    g.step.brcb.repeat = 1;
    g.inner = vr;
    g.inner_delta[0] = slot * kB;
    g.inner_delta[1] = v.row_bytes();
  }
  b.push(g);

  if (expand_only) {
    if (!in_dst) copy_rows(b, dt, dst.offset, area, vr, 1, rb, slot);
    const uint32_t nb = (vc * e + kB - 1) / kB;  // blocks of the valid part of a row
    for (uint32_t k = 1; k < nb; k *= 2) {
      const uint32_t n = k < nb - k ? k : nb - k;
      copy_rows(b, dt, dst.offset + k * kB, dst.offset, vr, n, rb, rb);
    }
    b.finish();
    return b.err;
  }

  Step proto{};
  proto.kind = StepKind::binary;
  proto.dtype = dt;
  proto.binary = desc::BinIntrinsicDesc{};
  proto.binary.op = q.op == TileOp::TROWEXPANDADD   ? desc::BinaryOp::vadd
                    : q.op == TileOp::TROWEXPANDSUB ? desc::BinaryOp::vsub
                    : q.op == TileOp::TROWEXPANDMUL ? desc::BinaryOp::vmul
                                                    : desc::BinaryOp::vdiv;
  const uint32_t epr = lanes(dt);
  const uint32_t full = vc / epr;
  const uint32_t rem = vc % epr;
  const uint32_t ra = a.row_bytes() / kB;
  constexpr uint32_t kMaxStride = chip::a2a3::kMaxBinaryStride;
  const bool stride_ok = rb <= kMaxStride && ra <= kMaxStride && slot <= kMaxStride;
  const uint32_t per = stride_ok ? kMaxRep : 1;  // rows per issue
  const uint32_t pieces = (vr + per - 1) / per;
  const uint32_t last = vr - (pieces - 1) * per;
  auto chunk_segment = [&](uint32_t first_chunk, uint32_t chunks) {
    Segment s{};
    s.step = proto;
    const uint32_t col = first_chunk * epr * e;
    auto& d = s.step.binary;
    d.dst = desc::Operand{chip::MemSpace::UB, dst.offset + col};
    d.src0 = desc::Operand{chip::MemSpace::UB, a.offset + col};
    d.src1 = desc::Operand{chip::MemSpace::UB, area};
    d.src1_block_stride = 0;  // every lane of a row reads its slot
    d.dst_repeat_stride = stride_ok ? rb : 0;
    d.src0_repeat_stride = stride_ok ? ra : 0;
    d.src1_repeat_stride = stride_ok ? slot : 0;
    d.repeat = vr < per ? vr : per;
    s.outer = chunks;
    s.outer_delta[0] = epr * e;
    s.outer_delta[1] = epr * e;
    s.inner = pieces;
    s.inner_delta[0] = per * rb * kB;
    s.inner_delta[1] = per * ra * kB;
    s.inner_delta[2] = per * slot * kB;
    if (pieces > 1 && last != per) s.last_inner_repeat = last;
    b.issue(s);
  };
  if (rem != 0) {
    b.use_mask(Mask128::continuous(rem));
    chunk_segment(full, 1);
  }
  if (full > 1) {
    b.use_mask(Mask128::all());
    chunk_segment(1, full - 1);
  }
  if (full > 0) {
    b.use_mask(Mask128::all());
    chunk_segment(0, 1);  // last: reads the slots it overwrites (dst-slot mode)
  }
  b.finish();
  return b.err;
}

}  // namespace

Status plan_tile(const Request& req, Plan& out, desc::DescReport* report) noexcept {
  out.clear();
  Status st = Status::plan_unknown_op;
  switch (req.op) {
    case TileOp::TROWSUM:
    case TileOp::TROWMAX:
    case TileOp::TROWMIN: st = plan_row_reduce(req, out); break;
    case TileOp::TCOLSUM:
    case TileOp::TCOLMAX:
    case TileOp::TCOLMIN:
    case TileOp::TCOLEXPAND: st = plan_col(req, out); break;
    case TileOp::TROWEXPAND:
    case TileOp::TROWEXPANDADD:
    case TileOp::TROWEXPANDSUB:
    case TileOp::TROWEXPANDMUL:
    case TileOp::TROWEXPANDDIV: st = plan_row_expand(req, out); break;
    default: st = plan_elementwise(req, out); break;
  }
  if (st == Status::ok) st = plan_validate(out, report);
  if (st != Status::ok) out.clear();
  return st;
}

}  // namespace tilefw::plan
