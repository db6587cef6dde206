// The tile transpose TTRANS: dst[i, j] = src[j, i] over src's valid region (H rows, W cols),
// dst's valid region W x H.
//
// TTRANS (any 16- or 32-bit element type; 8-bit types are refused, plan_unsupported_dtype) —
//  tilefw's choice, built from the unit's vbrcb and vadds only (no transpose instruction is
//  modelled): an element can change its lane only through vbrcb, which fills a whole 32 B block
//  with one source element; a vadds of integer zero under a one-lane MASK then moves that value
//  into one lane of a dst block and leaves the block's other lanes as they were. The add is done
//  on the raw bits (i32 for 4-byte types, i16 for 2-byte types): x + 0 is exact for every bit
//  pattern, so NaN payloads, -0 and infinities of float data pass through unchanged, and CTRL's
//  saturation mode (which concerns f16 results) never applies.
//  With BSE = 32 / sizeof(T) lanes per block and W8 = W rounded up to 8, per lane l of a block
//  (0 <= l < min(BSE, H)), over the source rows j = l + BSE * m (m = 0, 1, ...):
//   1. vbrcb src row j -> tmp group m: W8 blocks, block i all src[j, i] (repeat W8 / 8, split
//      at 255 repeats, b16 at 254 so a continuation's source stays 32 B aligned). It reads W8
//      elements of row j: inside the row, whose capacity is a multiple of 32 B.
//   2. MASK = lane l alone (normal mode).
//   3. vadds (dst, tmp group m, 0) over the dst rows i = 0 .. W-1, one repeat per row: src
//      repeat stride 1 block, dst repeat stride = dst row / 32 B, dst block m of the row, so
//      lane l of dst row i block m (column l + BSE * m = j) receives src[j, i]. Rows split at
//      255 repeats.
//  The steps of one lane are one segment each (outer loop m), so a plan has 3 * min(BSE, H) + 1
//  segments (49 for 16-bit types). Then MASK all ones again.
//  tmp: any element type, UB, at least ceil(H / BSE) * W8 * 32 bytes (no more than PTO's TTRANS
//  scratch W * ceil(H / 16) * 16 * sizeof(T) when W is a multiple of 8, at most W8 / W times it
//  otherwise); smaller: plan_tmp_too_small. dst, src and
//  tmp must not share a byte (plan_operands_overlap): the transpose is not done in place.
//  Only the valid region of dst is written; its other elements keep their bytes.

#include "planner.hpp"

namespace tilefw::plan::detail {

namespace {

bool extents_meet(const TileDesc& a, const TileDesc& b) noexcept {
  return uint64_t{a.offset} < uint64_t{b.offset} + b.bytes() && uint64_t{b.offset} < uint64_t{a.offset} + a.bytes();
}

// The failing operand or field goes to `field` (the report names it).
Status check_transpose(const Request& q, const char*& field) noexcept {
  field = "dst";
  TILEFW_TRY(check_vec(q.dst, q.chip));
  field = "src0";
  TILEFW_TRY(check_vec(q.src0, q.chip));
  field = "tmp";
  TILEFW_TRY(check_vec(q.tmp, q.chip));
  const uint32_t e = dtype_size(q.src0.dtype);
  field = "src0.dtype";
  if (e != 2 && e != 4) return Status::plan_unsupported_dtype;
  field = "dst.dtype";
  if (dtype_size(q.dst.dtype) != e) return Status::plan_unsupported_dtype;
  field = q.src0.layout != Layout::row_major ? "src0.layout" : "dst.layout";
  if (q.src0.layout != Layout::row_major || q.dst.layout != Layout::row_major) {
    return Status::plan_layout_unsupported;
  }
  field = "src0";
  TILEFW_TRY(nonempty(q.src0));
  field = "dst.valid_rows";
  if (q.dst.valid_rows != q.src0.valid_cols) return Status::plan_valid_shape_mismatch;
  field = "dst.valid_cols";
  if (q.dst.valid_cols != q.src0.valid_rows) return Status::plan_valid_shape_mismatch;
  const uint32_t bse = kB / e;
  const uint64_t w8 = (uint64_t{q.src0.valid_cols} + 7) / 8 * 8;
  const uint64_t groups = (uint64_t{q.src0.valid_rows} + bse - 1) / bse;
  field = "tmp";
  if (q.tmp.bytes() < groups * w8 * kB) return Status::plan_tmp_too_small;
  field = extents_meet(q.dst, q.src0) ? "dst" : "tmp";
  if (extents_meet(q.dst, q.src0) || extents_meet(q.tmp, q.dst) || extents_meet(q.tmp, q.src0)) {
    return Status::plan_operands_overlap;
  }
  field = "";
  return Status::ok;
}

// Step 1 for lane l: vbrcb of the rows l, l + BSE, ... into tmp groups 0, 1, ...
void broadcast_rows(Builder& b, const Request& q, uint32_t l, uint32_t groups, uint32_t w8) noexcept {
  const uint32_t e = dtype_size(q.src0.dtype);
  const uint32_t bse = kB / e;
  const uint32_t reps = w8 / 8;
  const uint32_t per = e == 4 ? kMaxRep : kMaxRep - 1;
  const uint32_t pieces = (reps + per - 1) / per;
  const uint32_t last = reps - (pieces - 1) * per;
  Segment g{};
  g.step.kind = StepKind::brcb;
  g.step.dtype = q.src0.dtype;
  g.step.brcb = desc::BrcbDesc{};
  g.step.mode = b.mode;
  g.step.mask = b.mask;
  g.step.brcb.dst = desc::Operand{chip::MemSpace::UB, q.tmp.offset};
  g.step.brcb.src = desc::Operand{chip::MemSpace::UB, q.src0.offset + l * q.src0.row_bytes()};
  g.step.brcb.dst_block_stride = 1;
  g.step.brcb.dst_repeat_stride = 8;
  g.step.brcb.repeat = reps < per ? reps : per;
  g.outer = groups;
  g.outer_delta[0] = w8 * kB;
  g.outer_delta[1] = bse * q.src0.row_bytes();
  g.inner = pieces;
  g.inner_delta[0] = per * 8 * kB;
  g.inner_delta[1] = per * 8 * e;
  if (pieces > 1 && last != per) g.last_inner_repeat = last;
  b.push(g);
}

// Step 3 for lane l: lane l of dst block m of every dst row from tmp group m.
void place_lane(Builder& b, const Request& q, uint32_t groups, uint32_t w8) noexcept {
  const uint32_t rows = q.dst.valid_rows;
  const uint32_t pieces = (rows + kMaxRep - 1) / kMaxRep;
  const uint32_t last = rows - (pieces - 1) * kMaxRep;
  Segment g{};
  g.step.kind = StepKind::scalar;
  g.step.dtype = dtype_size(q.src0.dtype) == 4 ? DType::i32 : DType::i16;
  g.step.scalar = desc::ScalarDesc{};
  g.step.scalar.op = desc::ScalarOp::vadds;
  g.step.scalar.scalar_bits = 0;
  g.step.scalar.dst = desc::Operand{chip::MemSpace::UB, q.dst.offset};
  g.step.scalar.src = desc::Operand{chip::MemSpace::UB, q.tmp.offset};
  g.step.scalar.dst_block_stride = 1;
  g.step.scalar.src_block_stride = 1;
  g.step.scalar.dst_repeat_stride = q.dst.row_bytes() / kB;
  g.step.scalar.src_repeat_stride = 1;
  g.step.scalar.repeat = rows < kMaxRep ? rows : kMaxRep;
  g.outer = groups;
  g.outer_delta[0] = kB;
  g.outer_delta[1] = w8 * kB;
  g.inner = pieces;
  g.inner_delta[0] = kMaxRep * q.dst.row_bytes();
  g.inner_delta[1] = kMaxRep * kB;
  if (pieces > 1 && last != kMaxRep) g.last_inner_repeat = last;
  b.issue(g);
}

}  // namespace

Status plan_transpose(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const char* field = "";
  if (const Status st = check_transpose(q, field); st != Status::ok) {
    if (report != nullptr) {
      *report = desc::DescReport{};
      report->status = st;
      report->field = field;
    }
    return st;
  }
  const uint32_t bse = kB / dtype_size(q.src0.dtype);
  const uint32_t h = q.src0.valid_rows;
  const uint32_t w8 = (q.src0.valid_cols + 7) / 8 * 8;
  // A dst repeat stride past the scalar issue's field would need one issue per row; no tile in
  // UB has rows that long (65535 blocks are 2 MB), so it is refused rather than planned.
  if (q.dst.row_bytes() / kB > 65535u) {
    if (report != nullptr) {
      *report = desc::DescReport{};
      report->status = Status::plan_tile_constraint;
      report->field = "dst.cols";
    }
    return Status::plan_tile_constraint;
  }
  Builder b{out};
  for (uint32_t l = 0; l < bse && l < h; ++l) {
    const uint32_t groups = (h - l + bse - 1) / bse;
    broadcast_rows(b, q, l, groups, w8);
    b.use_mask(Mask128{0, uint64_t{1} << l});
    place_lane(b, q, groups, w8);
  }
  b.finish();
  return b.err;
}

}  // namespace tilefw::plan::detail
