// TSELS (whole-tile select by a scalar mode) and TFILLPAD (copy the valid region, pad the rest).
//
// TSELS (a2a3: f16, f32; A5: any 2- or 4-byte type) — tilefw's choice: dst = src0 when
//  selectMode == 1, else src1, as one UB-to-UB copy of the chosen source's valid rows
//  (copy_ubuf_to_ubuf, ceil(vc * elem / 32) whole 32 B blocks a row, rows split at 4095 bursts).
//  Nothing is computed, so every bit (NaN payloads, -0) is the source's. Like TCOLEXPAND's
//  copies, bytes past vc up to the end of their 32 B block may be written (inside the row's
//  capacity, outside the valid region). A dst that is the chosen source plans no issue.
// TFILLPAD (any 2- or 4-byte type; dst and src of one capacity): VR, VC = src's valid region.
//  1. unless dst is src (in place): copy src rows [0, VR) to dst as TSELS does;
//  2. rows [0, VR), columns [VC, Cols): vector_dup of the pad value; per EPR-lane column chunk
//     from the 32 B block holding column VC one issue over the rows (repeat = rows, split at
//     255, repeat stride = one row), the first chunk's MASK starting at lane VC % BSE (this
//     also rewrites the bytes step 1 copied past VC), the last chunk's ending at Cols;
//  3. rows [VR, Rows): one counter-mode vector_dup over the (Rows - VR) * Cols contiguous
//     elements.
//  Every element of dst outside [0, VR) x [0, VC) ends as the pad; dst's own valid region is
//  not consulted (the pad fills the whole capacity).

#include "planner.hpp"

namespace tilefw::plan {

bool fillpad_bits(DType dt, FillPad pad, uint32_t& bits) noexcept {
  if (pad == FillPad::null || dtype_size(dt) < 2) return false;
  const bool max = pad == FillPad::max;
  switch (pad == FillPad::zero ? DType::u8 : dt) {
    case DType::u8: bits = 0; return true;  // Zero: all-zero bits in every type
    case DType::f32: bits = max ? 0x7F800000u : 0xFF800000u; return true;
    case DType::f16: bits = max ? 0x7C00u : 0xFC00u; return true;
    case DType::bf16: bits = max ? 0x7F80u : 0xFF80u; return true;
    case DType::i16: bits = max ? 0x7FFFu : 0x8000u; return true;
    case DType::u16: bits = max ? 0xFFFFu : 0u; return true;
    case DType::i32: bits = max ? 0x7FFFFFFFu : 0x80000000u; return true;
    case DType::u32: bits = max ? 0xFFFFFFFFu : 0u; return true;
    default: return false;
  }
}

namespace detail {

namespace {

inline constexpr uint32_t kMaxBursts = 4095;

Status refuse(desc::DescReport* report, Status st, const char* field, uint32_t value = 0, uint32_t limit = 0) noexcept {
  if (report != nullptr) {
    *report = desc::DescReport{};
    report->status = st;
    report->field = field;
    report->value = value;
    report->limit = limit;
  }
  return st;
}

// Lanes [from, to) of one repeat (to <= 128).
Mask128 lane_range(uint32_t from, uint32_t to) noexcept {
  const Mask128 hi = Mask128::continuous(to);
  const Mask128 lo = Mask128::continuous(from);
  return Mask128{hi.hi & ~lo.hi, hi.lo & ~lo.lo};
}

// Copies rows [0, vr) of `src` into `dst`: ceil(vc * elem / 32) blocks a row.
void copy_rows(Builder& b, const TileDesc& dst, const TileDesc& src, uint32_t vr, uint32_t vc) noexcept {
  const uint32_t len = (vc * dst.elem_bytes() + kB - 1) / kB;
  const uint32_t src_row = src.row_bytes() / kB;
  const uint32_t dst_row = dst.row_bytes() / kB;
  if (len == src_row && len == dst_row) {  // whole rows: one contiguous burst
    b.push(copy_segment(dst.dtype, dst.offset, src.offset, 1, vr * len, 0, 0, b));
    return;
  }
  Segment g = copy_segment(dst.dtype, dst.offset, src.offset, vr < kMaxBursts ? vr : kMaxBursts, len,
                           src_row - len, dst_row - len, b);
  g.inner = (vr + kMaxBursts - 1) / kMaxBursts;
  g.inner_delta[0] = kMaxBursts * dst.row_bytes();
  g.inner_delta[1] = kMaxBursts * src.row_bytes();
  const uint32_t last = vr - (g.inner - 1) * kMaxBursts;
  if (g.inner > 1 && last != kMaxBursts) g.last_inner_repeat = last;
  b.push(g);
}

Segment dup_segment(const TileDesc& dst, uint32_t bits, uint32_t offset, uint32_t rep_stride) noexcept {
  Segment g{};
  g.step.kind = StepKind::dup;
  g.step.dtype = dst.dtype;
  g.step.dup = desc::DupDesc{};
  g.step.dup.scalar_bits = bits;
  g.step.dup.dst = desc::Operand{chip::MemSpace::UB, offset};
  g.step.dup.dst_block_stride = 1;
  g.step.dup.dst_repeat_stride = rep_stride;
  return g;
}

// Column chunks `first`.. (`count` of them, EPR lanes apart) of rows [0, vr) under the current MASK.
void dup_rows(Builder& b, const TileDesc& dst, uint32_t bits, uint32_t first_col, uint32_t count,
              uint32_t vr) noexcept {
  const uint32_t epr = lanes(dst.dtype);
  Segment g = dup_segment(dst, bits, dst.offset + first_col * dst.elem_bytes(), dst.row_bytes() / kB);
  g.outer = count;
  g.outer_delta[0] = epr * dst.elem_bytes();
  g.inner = (vr + kMaxRep - 1) / kMaxRep;
  g.inner_delta[0] = kMaxRep * dst.row_bytes();
  set_repeat(g.step, vr < kMaxRep ? vr : kMaxRep);
  const uint32_t last = vr - (g.inner - 1) * kMaxRep;
  if (g.inner > 1 && last != kMaxRep) g.last_inner_repeat = last;
  b.issue(g);
}

void pad_columns(Builder& b, const TileDesc& dst, uint32_t bits, uint32_t vr, uint32_t vc) noexcept {
  const uint32_t epr = lanes(dst.dtype);
  const uint32_t bse = kB / dst.elem_bytes();
  const uint32_t c0 = vc / bse * bse;  // the block holding column vc
  const uint32_t width = dst.cols - c0;
  const uint32_t chunks = (width + epr - 1) / epr;
  b.use_mask(lane_range(vc - c0, width < epr ? width : epr));
  dup_rows(b, dst, bits, c0, 1, vr);
  if (chunks == 1) return;
  const uint32_t rem = width % epr;
  const uint32_t full = chunks - 1 - (rem != 0 ? 1 : 0);
  if (full != 0) {
    b.use_mask(Mask128::all());
    dup_rows(b, dst, bits, c0 + epr, full, vr);
  }
  if (rem != 0) {
    b.use_mask(Mask128::continuous(rem));
    dup_rows(b, dst, bits, c0 + (chunks - 1) * epr, 1, vr);
  }
}

Status plan_fillpad(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  uint32_t bits = 0;
  if (q.scalar_bits == static_cast<uint32_t>(FillPad::null) || q.scalar_bits > static_cast<uint32_t>(FillPad::min)) {
    return refuse(report, Status::invalid_argument, "dst.pad", q.scalar_bits, static_cast<uint32_t>(FillPad::min));
  }
  if (!fillpad_bits(dst.dtype, static_cast<FillPad>(q.scalar_bits), bits)) {
    return refuse(report, Status::plan_unsupported_dtype, "dst.dtype", static_cast<uint32_t>(dst.dtype));
  }
  if (dtype_size(src.dtype) != dtype_size(dst.dtype)) {
    return refuse(report, Status::plan_unsupported_dtype, "src.dtype", static_cast<uint32_t>(src.dtype));
  }
  if (dst.rows != src.rows) return refuse(report, Status::plan_valid_shape_mismatch, "src.rows", src.rows, dst.rows);
  if (dst.cols != src.cols) return refuse(report, Status::plan_valid_shape_mismatch, "src.cols", src.cols, dst.cols);
  Builder b{out};
  const bool in_place = dst.offset == src.offset;
  const uint32_t vr = src.valid_rows;
  const uint32_t vc = src.valid_cols;
  if (!in_place && vr != 0 && vc != 0) copy_rows(b, dst, src, vr, vc);
  if (vr != 0 && vc < dst.cols) pad_columns(b, dst, bits, vr, vc);
  if (vr < dst.rows) {
    b.use_count((dst.rows - vr) * dst.cols);
    b.issue(dup_segment(dst, bits, dst.offset + vr * dst.row_bytes(), lanes(dst.dtype) * dst.elem_bytes() / kB));
  }
  b.finish();
  return b.err;
}

Status plan_sels(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const DType dt = q.dst.dtype;
  const bool a5 = q.chip == chip::Chip::a5;
  if (dt != DType::f16 && dt != DType::f32 && !(a5 && dtype_size(dt) >= 2)) {
    return refuse(report, Status::plan_unsupported_dtype, "dst.dtype", static_cast<uint32_t>(dt));
  }
  if (q.src0.dtype != dt) {
    return refuse(report, Status::plan_unsupported_dtype, "src0.dtype", static_cast<uint32_t>(q.src0.dtype));
  }
  if (q.src1.dtype != dt) {
    return refuse(report, Status::plan_unsupported_dtype, "src1.dtype", static_cast<uint32_t>(q.src1.dtype));
  }
  const TileDesc* const srcs[2] = {&q.src0, &q.src1};
  const char* const rows_field[2] = {"src0.valid_rows", "src1.valid_rows"};
  const char* const cols_field[2] = {"src0.valid_cols", "src1.valid_cols"};
  for (int k = 0; k < 2; ++k) {
    const TileDesc& s = *srcs[k];
    if (s.valid_rows != q.dst.valid_rows) {
      return refuse(report, Status::plan_valid_shape_mismatch, rows_field[k], s.valid_rows, q.dst.valid_rows);
    }
    if (s.valid_cols != q.dst.valid_cols) {
      return refuse(report, Status::plan_valid_shape_mismatch, cols_field[k], s.valid_cols, q.dst.valid_cols);
    }
  }
  const TileDesc& from = q.scalar_bits == 1 ? q.src0 : q.src1;
  Builder b{out};
  if (from.offset != q.dst.offset && q.dst.valid_rows != 0 && q.dst.valid_cols != 0) {
    copy_rows(b, q.dst, from, q.dst.valid_rows, q.dst.valid_cols);
  }
  b.finish();
  return b.err;
}

}  // namespace

Status plan_select_pad(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const TileDesc* const t[3] = {&q.dst, &q.src0, &q.src1};
  const char* const names[3] = {"dst", "src0", "src1"};
  const int n = q.op == TileOp::TSELS ? 3 : 2;
  for (int k = 0; k < n; ++k) {
    const Status s = check_vec(*t[k], q.chip);
    if (s != Status::ok) return refuse(report, s, names[k], t[k]->offset);
    if (t[k]->layout != Layout::row_major) return refuse(report, Status::plan_layout_unsupported, names[k]);
  }
  if (q.op == TileOp::TSELS) return plan_sels(q, out, report);
  if (q.op == TileOp::TFILLPAD) return plan_fillpad(q, out, report);
  return Status::plan_unknown_op;
}

}  // namespace detail

}  // namespace tilefw::plan
