// Column reductions TCOLSUM / TCOLMAX / TCOLMIN / TCOLPROD and the column broadcast TCOLEXPAND.
//
// TCOLSUM / TCOLMAX / TCOLMIN (half, float, int32) — tilefw's choice: copy src row 0 to dst
//  row 0 (copy_ubuf_to_ubuf, whole 32 B blocks), then per EPR-lane column chunk one
//  accumulator issue vadd/vmax/vmin(dst, src rows 1.., dst) with dst and src1 repeat stride 0
//  and src0 repeat stride = src row (docs/a2a3-vector-semantics.md section 5 accumulator case;
// rows in order,
//  split at 255), the tail chunk under MASK continuous(vc % EPR). Rows are combined
//  sequentially: ((r0 + r1) + r2) + ... TCOLSUM's tmp is accepted and not used.
// TCOLPROD (half, float, int32) — the same stream with vmul: ((r0 * r1) * r2) * ..., each
//  product rounded to T (int32 wraps). PTO lists int16 too on a2a3; the accumulator form the
//  stream relies on (dst overlapping src1 across repeats) is not legal for i16, so int16 is
//  refused (plan_unsupported_dtype).
// TCOLEXPAND (any 16/32-bit type) — tilefw's choice: dst[i, j] = src[0, j] by copies: src row 0
//  to dst row 0, then doubling copies dst rows [0, k) -> [k, 2k) until vr rows are filled.
// Copies move whole 32 B blocks: bytes past vc up to the block end of a row (inside the row's
// capacity) may be written; they lie outside the valid region and are unspecified
// (docs/a2a3-tile-model.md section 3).

#include "planner.hpp"

namespace tilefw::plan::detail {

using desc::Mask128;
using desc::MaskMode;

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

namespace {



}  // namespace

Status plan_col(const Request& q, Plan& out) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  TILEFW_TRY(check_vec(dst, q.chip));
  TILEFW_TRY(check_vec(src, q.chip));
  if (q.op == TileOp::TCOLSUM) TILEFW_TRY(check_vec(q.tmp, q.chip));
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
    acc.binary.op = q.op == TileOp::TCOLSUM    ? desc::BinaryOp::vadd
                    : q.op == TileOp::TCOLMAX  ? desc::BinaryOp::vmax
                    : q.op == TileOp::TCOLPROD ? desc::BinaryOp::vmul
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

}  // namespace tilefw::plan::detail
