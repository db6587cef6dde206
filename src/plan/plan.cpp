// The a2a3 tile planner's core: names, the compact Plan and its cursor, tile checks, whole-plan
// validation and plan_tile's dispatch. Each stream family lives in its own file (see
// inc/tilefw/plan/plan.hpp).

#include "tilefw/plan/plan.hpp"

#include "planner.hpp"

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
    case TileOp::TCOLPROD: return "TCOLPROD";
    case TileOp::TTRANS: return "TTRANS";
    case TileOp::TGATHER: return "TGATHER";
    case TileOp::TSELS: return "TSELS";
    case TileOp::TFILLPAD: return "TFILLPAD";
    case TileOp::TCMP: return "TCMP";
    case TileOp::TCMPS: return "TCMPS";
    case TileOp::TSEL: return "TSEL";
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
    case StepKind::gather: return "gather";
    case StepKind::cmp: return "cmp";
    case StepKind::sel: return "sel";
  }
  return "?";
}

// ---- operand slot access ---------------------------------------------------------------------
// Slot 0 is the destination, 1 the (first) source, 2 src1 of a binary issue.
namespace detail {

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
    case StepKind::gather: return k == 0 ? &s.gather.dst : k == 1 ? &s.gather.offsets : nullptr;
    case StepKind::cmp: return k == 0 ? &s.cmp.dst : k == 1 ? &s.cmp.src0 : &s.cmp.src1;
    case StepKind::sel: return k == 0 ? &s.sel.dst : k == 1 ? &s.sel.src0 : k == 2 ? &s.sel.src1 : &s.sel.mask;
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
    case StepKind::gather: s.gather.repeat = repeat; break;
    case StepKind::cmp: s.cmp.repeat = repeat; break;
    case StepKind::sel: s.sel.repeat = repeat; break;
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
    case StepKind::gather: s.gather.mask_mode = m; s.gather.vector_count = count; break;
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
    case StepKind::gather:
      if (k == 0) s.gather.dst_repeat_stride = rep;
      break;
    default: break;
  }
}

int slot_count(StepKind k) noexcept {
  switch (k) {
    case StepKind::binary:
    case StepKind::cmp: return 3;
    case StepKind::sel: return 4;
    case StepKind::dup: return 1;
    case StepKind::unary:
    case StepKind::scalar:
    case StepKind::reduce:
    case StepKind::copy:
    case StepKind::cvt:
    case StepKind::brcb:
    case StepKind::gather: return 2;
    default: return 0;
  }
}

int slot_count_of(const Step& s) noexcept { return slot_count(s.kind); }

}  // namespace detail

using detail::set_repeat;
using detail::slot;
using detail::slot_count;

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
    case StepKind::gather: return gather.repeat;
    case StepKind::cmp: return cmp.repeat;
    case StepKind::sel: return sel.repeat;
    default: return 0;
  }
}

desc::DescReport validate_step(const Step& s, chip::Chip on) noexcept {
  switch (s.kind) {
    case StepKind::binary: return desc::validate(s.binary, s.dtype, s.mask, on);
    case StepKind::unary: return desc::validate(s.unary, s.dtype, s.mask, on);
    case StepKind::scalar: return desc::validate(s.scalar, s.dtype, s.mask, on);
    case StepKind::reduce: return desc::validate(s.reduce, s.dtype, s.mask, on);
    case StepKind::copy: return desc::validate(s.copy, on);
    case StepKind::dup: return desc::validate(s.dup, s.dtype, s.mask, on);
    case StepKind::cvt: return desc::validate(s.cvt, s.mask, on);
    case StepKind::brcb: return desc::validate(s.brcb, s.dtype, on);
    case StepKind::gather: return desc::validate(s.gather, s.dtype, s.mask, on);
    case StepKind::cmp: return desc::validate(s.cmp, s.dtype, on);
    case StepKind::sel: return desc::validate(s.sel, s.dtype, on);
    default: return desc::DescReport{};
  }
}

// ---- Plan ---------------------------------------------------------------------------------------
Status Plan::append(const Segment& s) noexcept {
  validated_ = false;
  keyed_ = false;
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
  Step s;
  materialize_into(seg, o, i, s);
  return s;
}

void Plan::materialize_into(uint32_t seg, uint32_t o, uint32_t i, Step& s) const noexcept {
  const Segment& g = segs_[seg];
  s = g.step;
  const int n = slot_count(s.kind);
  for (int k = 0; k < n; ++k) {
    desc::Operand* op = slot(s, k);
    op->offset += o * g.outer_delta[k] + i * g.inner_delta[k];
  }
  if (g.last_inner_repeat != 0 && i + 1 == g.inner) set_repeat(s, g.last_inner_repeat);
}

bool Plan::Cursor::next(Step& out) noexcept {
  while (seg_ < p_->n_) {
    const Segment& g = p_->segs_[seg_];
    if (outer_ < g.outer && inner_ < g.inner) {
      p_->materialize_into(seg_, outer_, inner_, out);
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
Status check_placement(chip::MemSpace space, uint64_t offset, uint64_t bytes, chip::Chip on) noexcept {
  const chip::MemoryRegion* r = chip::region_of(on, space);
  if (r == nullptr) return Status::plan_tile_wrong_space;
  if (offset % r->alignment != 0) return Status::tile_misaligned;
  if (bytes > r->size || offset > r->size - bytes) return Status::tile_out_of_bounds;
  return Status::ok;
}

Status check_tile(const TileDesc& t, chip::Chip on) noexcept {
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
  return check_placement(t.space, t.offset, t.bytes(), on);
}

// ---- validation ---------------------------------------------------------------------------------
namespace detail {

// The verdict on one issue step, as validate_step gives it: binary, unary and scalar issues the
// desc layer's quick path proves valid are accepted without building a report (it accepts only
// issues the full rules accept); everything else gets the full rules. kBinaryOnly: a plan of
// plan_tile_binary (validated once, then reused while its request repeats: size over speed),
// where any other issue kind is a broken plan.
template <bool kBinaryOnly>
desc::DescReport check_step(const Step& s, chip::Chip on) noexcept {
  if constexpr (kBinaryOnly) {  // the full rules only: the fast path's code is not linked
    if (s.kind == StepKind::binary) return desc::detail::validate_binary_full(s.binary, s.dtype, s.mask, on);
    desc::DescReport r{};
    r.status = Status::invalid_argument;
    r.field = "kind";
    r.value = static_cast<uint32_t>(s.kind);
    return r;
  } else {
    if (s.kind == StepKind::binary && desc::quick_valid(s.binary, s.dtype, s.mask, on)) return desc::DescReport{};
    if (s.kind == StepKind::unary && desc::quick_valid(s.unary, s.dtype, s.mask, on)) return desc::DescReport{};
    if (s.kind == StepKind::scalar && desc::quick_valid(s.scalar, s.dtype, s.mask, on)) return desc::DescReport{};
    return validate_step(s, on);
  }
}

// Replays the plan from normal mode / MASK all ones, validating every issue against the state.
template <bool kBinaryOnly>
Status replay_validate(const Plan& p, desc::DescReport* report) noexcept {
  MaskMode mode = MaskMode::normal;
  Mask128 mask = Mask128::all();
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
    const desc::DescReport r = check_step<kBinaryOnly>(s, p.chip());
    if (!r.ok()) {
      if (report != nullptr) *report = r;
      return r.status;
    }
    if (s.uses_mask() && mode == MaskMode::count && s.count != mask.lo) return Status::invalid_argument;
  }
  if (mode != MaskMode::normal || !(mask == Mask128::all())) return Status::invalid_argument;
  return Status::ok;
}

struct Sealer {
  template <bool kBinaryOnly>
  static Status seal(Plan& p, desc::DescReport* report) noexcept {
    p.validated_ = false;
    p.keyed_ = false;
    const Status st = replay_validate<kBinaryOnly>(p, report);
    p.validated_ = st == Status::ok;
    return st;
  }
  // A sealed plan made by the planner for `req` (see Plan::planned_for).
  static void key(Plan& p, const Request& req) noexcept {
    p.request_ = req;
    p.keyed_ = p.validated_;
  }
};

}  // namespace detail

Status plan_validate(const Plan& p, desc::DescReport* report) noexcept {
  return detail::replay_validate<false>(p, report);
}

Status plan_seal(Plan& p, desc::DescReport* report) noexcept { return detail::Sealer::seal<false>(p, report); }

// ---- checks shared by the streams ------------------------------------------------------------
namespace detail {

Status check_vec(const TileDesc& t, chip::Chip on) noexcept {
  if (t.space != chip::MemSpace::UB) {
    const Status s = check_tile(t, on);
    return s != Status::ok ? s : Status::plan_tile_wrong_space;
  }
  return check_tile(t, on);
}

Status same_valid(const TileDesc& a, const TileDesc& b) noexcept {
  return a.valid_rows == b.valid_rows && a.valid_cols == b.valid_cols ? Status::ok
                                                                      : Status::plan_valid_shape_mismatch;
}

Status nonempty(const TileDesc& t) noexcept {
  return t.valid_rows == 0 || t.valid_cols == 0 ? Status::plan_empty_valid_region : Status::ok;
}

uint32_t lanes(DType t) noexcept { return chip::a2a3::lanes_per_repeat(dtype_size(t)); }

}  // namespace detail

using detail::plan_col;
using detail::plan_elementwise;
using detail::plan_row_expand;
using detail::plan_row_reduce;

namespace {
// A Tile<> never placed by TASSIGN would alias offset 0 silently: refuse it, naming it.
Status check_assigned(const Request& req, desc::DescReport* report) noexcept {
  const char* unplaced = !req.dst.assigned ? "dst" : !req.src0.assigned ? "src0"
                         : !req.src1.assigned ? "src1" : !req.tmp.assigned ? "tmp" : nullptr;
  if (unplaced == nullptr) return Status::ok;
  if (report != nullptr) {
    *report = desc::DescReport{};
    report->status = Status::tile_unassigned;
    report->field = unplaced;
  }
  return Status::tile_unassigned;
}

// A placement the planner refused (tile_out_of_bounds, tile_misaligned) names the first operand
// placed badly, its offset and what the space of the request's profile allows (its size, or its
// alignment): a2a3's 192 KB UB and A5's 256 KB tell apart in the report.
void describe_placement(const Request& req, Status st, desc::DescReport* report) noexcept {
  if (report == nullptr || (st != Status::tile_out_of_bounds && st != Status::tile_misaligned)) return;
  const TileDesc* const ops[4] = {&req.dst, &req.src0, &req.src1, &req.tmp};
  const char* const names[4] = {"dst", "src0", "src1", "tmp"};
  for (int k = 0; k < 4; ++k) {
    const TileDesc& t = *ops[k];
    if (t.rows == 0 || check_placement(t.space, t.offset, t.bytes(), req.chip) != st) continue;
    const chip::MemoryRegion* r = chip::region_of(req.chip, t.space);
    *report = desc::DescReport{};
    report->status = st;
    report->field = names[k];
    report->value = t.offset;
    report->byte_offset = t.offset;
    report->limit = st == Status::tile_misaligned ? r->alignment
                    : r->size > 0xFFFFFFFFu     ? 0xFFFFFFFFu
                                                : static_cast<uint32_t>(r->size);
    return;
  }
}
}  // namespace

Status plan_tile(const Request& req, Plan& out, desc::DescReport* report) noexcept {
  if (out.planned_for(req)) return Status::ok;  // planned and validated before, unchanged since
  out.clear();
  out.set_chip(req.chip);
  TILEFW_TRY(check_assigned(req, report));
  Status st = Status::plan_unknown_op;
  switch (req.op) {
    case TileOp::TROWSUM:
    case TileOp::TROWMAX:
    case TileOp::TROWMIN: st = plan_row_reduce(req, out); break;
    case TileOp::TCOLSUM:
    case TileOp::TCOLMAX:
    case TileOp::TCOLMIN:
    case TileOp::TCOLPROD:
    case TileOp::TCOLEXPAND: st = plan_col(req, out); break;
    case TileOp::TTRANS: st = detail::plan_transpose(req, out, report); break;
    case TileOp::TGATHER: st = detail::plan_gather(req, out, report); break;
    case TileOp::TROWEXPAND:
    case TileOp::TROWEXPANDADD:
    case TileOp::TROWEXPANDSUB:
    case TileOp::TROWEXPANDMUL:
    case TileOp::TROWEXPANDDIV: st = plan_row_expand(req, out); break;
    case TileOp::TSELS:
    case TileOp::TFILLPAD: st = detail::plan_select_pad(req, out, report); break;
    case TileOp::TCMP:
    case TileOp::TCMPS:
    case TileOp::TSEL: st = detail::plan_compare(req, out, report); break;
    default: st = plan_elementwise(req, out); break;
  }
  describe_placement(req, st, report);
  if (st == Status::ok) st = plan_seal(out, report);
  if (st != Status::ok) out.clear();
  if (st == Status::ok) detail::Sealer::key(out, req);
  return st;
}

Status plan_tile_binary(const Request& req, Plan& out, desc::DescReport* report) noexcept {
  if (out.planned_for(req)) return Status::ok;  // planned and validated before, unchanged since
  out.clear();
  out.set_chip(req.chip);
  TILEFW_TRY(check_assigned(req, report));
  Status st = Status::plan_unknown_op;
  switch (req.op) {
    case TileOp::TADD:
    case TileOp::TSUB:
    case TileOp::TMUL:
    case TileOp::TDIV:
    case TileOp::TMAX:
    case TileOp::TMIN: st = detail::plan_elementwise_binary(req, out); break;
    default: break;
  }
  describe_placement(req, st, report);
  if (st == Status::ok) st = detail::Sealer::seal<true>(out, report);
  if (st != Status::ok) out.clear();
  if (st == Status::ok) detail::Sealer::key(out, req);
  return st;
}

}  // namespace tilefw::plan
