// The index gather TGATHER(dst, src0, indices, tmp): dst[i, j] = the element of src0's storage
// numbered indices[i, j] (src0 as its bytes from its start: element k at src0 + k * sizeof(T),
// row k / Cols, column k % Cols of a row-major src0), over dst's valid region.
//
// TGATHER (dst, src0: one 2- or 4-byte type; indices and tmp: int32 or uint32, one type) — the
//  stream PTO's a2a3 page describes (a vmuls of the indices into tmp, then vgather):
//   1. vmuls (i32) tmp = indices * sizeof(T): the byte offsets, one per dst element, computed
//      modulo 2^32 as the unit's integer multiply wraps. Count mode: one issue over all
//      elements when the indices' rows are contiguous (Cols == valid cols), else one per row.
//   2. vgather (T) dst <- UB[src0 + offset], count mode over the valid elements (dst is
//      contiguous: its valid cols must equal its Cols, PTO's rule), one issue.
//  Out-of-range indices (tilefw's rule; the page leaves them to the target): the unit checks
//  every gathered address before it writes (docs/a2a3-vector-semantics.md section 13): an element
//  that would leave UB (a negative index, or one past UB's end) faults the vgather and dst is
//  left as it was (tmp already holds the offsets); one inside UB but past src0's own bytes reads
//  those UB bytes, as the hardware reads them. No byte of dst, src0 or indices may be shared
//  with tmp, and dst shares none with src0 or indices (plan_operands_overlap).
//  Checks, each naming its field: tmp's shape equal to the indices' valid region (PTO's rule:
//  tmp.rows / tmp.cols), the indices' valid region equal to dst's, row-major tiles.

#include "planner.hpp"

namespace tilefw::plan::detail {

namespace {

bool meet(const TileDesc& a, const TileDesc& b) noexcept {
  return uint64_t{a.offset} < uint64_t{b.offset} + b.bytes() && uint64_t{b.offset} < uint64_t{a.offset} + a.bytes();
}

bool index_type(DType t) noexcept { return t == DType::i32 || t == DType::u32; }

Status check_gather(const Request& q, const char*& field) noexcept {
  const TileDesc* const ops[4] = {&q.dst, &q.src0, &q.src1, &q.tmp};
  const char* const names[4] = {"dst", "src0", "src1", "tmp"};
  for (int k = 0; k < 4; ++k) {
    field = names[k];
    TILEFW_TRY(check_vec(*ops[k], q.chip));
  }
  const uint32_t e = dtype_size(q.dst.dtype);
  field = "dst.dtype";
  if (e != 2 && e != 4) return Status::plan_unsupported_dtype;
  field = "src0.dtype";
  if (q.src0.dtype != q.dst.dtype) return Status::plan_unsupported_dtype;
  field = "src1.dtype";
  if (!index_type(q.src1.dtype)) return Status::plan_unsupported_dtype;
  field = "tmp.dtype";
  if (q.tmp.dtype != q.src1.dtype) return Status::plan_unsupported_dtype;
  for (int k = 0; k < 4; ++k) {
    field = names[k];
    if (ops[k]->layout != Layout::row_major) return Status::plan_layout_unsupported;
  }
  field = "dst";
  TILEFW_TRY(nonempty(q.dst));
  field = "dst.valid_cols";
  if (q.dst.valid_cols != q.dst.cols) return Status::plan_valid_shape_mismatch;
  field = "src1.valid_rows";
  if (q.src1.valid_rows != q.dst.valid_rows) return Status::plan_valid_shape_mismatch;
  field = "src1.valid_cols";
  if (q.src1.valid_cols != q.dst.valid_cols) return Status::plan_valid_shape_mismatch;
  field = "tmp.rows";
  if (q.tmp.rows != q.src1.valid_rows) return Status::plan_valid_shape_mismatch;
  field = "tmp.cols";
  if (q.tmp.cols != q.src1.valid_cols) return Status::plan_valid_shape_mismatch;
  field = meet(q.tmp, q.dst) || meet(q.tmp, q.src0) || meet(q.tmp, q.src1) ? "tmp" : "dst";
  if (meet(q.tmp, q.dst) || meet(q.tmp, q.src0) || meet(q.tmp, q.src1) || meet(q.dst, q.src0) ||
      meet(q.dst, q.src1)) {
    return Status::plan_operands_overlap;
  }
  field = "";
  return Status::ok;
}

// Step 1: tmp = indices * sizeof(T) (i32, count mode).
void offsets(Builder& b, const Request& q) noexcept {
  const uint32_t rows = q.dst.valid_rows;
  const uint32_t vc = q.dst.valid_cols;
  const bool whole = q.src1.cols == vc;
  Segment g{};
  g.step.kind = StepKind::scalar;
  g.step.dtype = DType::i32;
  g.step.scalar = desc::ScalarDesc{};
  g.step.scalar.op = desc::ScalarOp::vmuls;
  g.step.scalar.scalar_bits = dtype_size(q.dst.dtype);
  g.step.scalar.dst = desc::Operand{chip::MemSpace::UB, q.tmp.offset};
  g.step.scalar.src = desc::Operand{chip::MemSpace::UB, q.src1.offset};
  b.use_count(whole ? rows * vc : vc);
  if (!whole) {
    g.outer = rows;
    g.outer_delta[0] = q.tmp.row_bytes();
    g.outer_delta[1] = q.src1.row_bytes();
  }
  b.issue(g);
}

// Step 2: dst = UB[src0 + tmp] (count mode over the contiguous dst).
void gather(Builder& b, const Request& q) noexcept {
  Segment g{};
  g.step.kind = StepKind::gather;
  g.step.dtype = q.dst.dtype;
  g.step.gather = desc::GatherDesc{};
  g.step.gather.base = q.src0.offset;
  g.step.gather.dst = desc::Operand{chip::MemSpace::UB, q.dst.offset};
  g.step.gather.offsets = desc::Operand{chip::MemSpace::UB, q.tmp.offset};
  g.step.gather.dst_repeat_stride = 8;
  b.use_count(q.dst.valid_rows * q.dst.valid_cols);
  b.issue(g);
}

}  // namespace

Status plan_gather(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const char* field = "";
  if (const Status st = check_gather(q, field); st != Status::ok) {
    if (report != nullptr) {
      *report = desc::DescReport{};
      report->status = st;
      report->field = field;
    }
    return st;
  }
  Builder b{out};
  offsets(b, q);
  gather(b, q);
  b.finish();
  return b.err;
}

}  // namespace tilefw::plan::detail
