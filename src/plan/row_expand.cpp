// Row-broadcast tile instructions TROWEXPAND and TROWEXPANDADD / SUB / MUL / DIV.
//
// TROWEXPAND / TROWEXPANDADD / SUB / MUL / DIV (half, float) — tilefw's choice (PTO's a2a3
//  stream broadcasts with vbrcb into a hidden 8 KB scratch at the top of UB, then one counter-mode
//  issue per row; tilefw keeps to caller memory and issues whole row ranges): the per-row vector
//  v (an Nx1 col-major tile, or a row-major tile with one valid column) is first broadcast into
//  one 32 B "slot" per valid row, then consumed with src1 block stride 0.
//  Slots live in dst, slot i = block 0 of dst row i, when dst shares no byte with src0 or v (the
//  broadcast would clobber inputs still to be read) and dst has room for what vbrcb writes (v
//  col-major: capacity rows >= vr rounded up to 8; v row-major: rows of >= 8 blocks). Otherwise
//  they live in the request's tmp (any dtype, UB, no byte shared with dst/src0/v): slot stride 1
//  block (v col-major, round8(vr) blocks) or 8 blocks (v row-major, vr * 256 B); no tmp or a
//  smaller one is plan_tmp_too_small, an overlapping one plan_operands_overlap.
//  Broadcast: v col-major: vbrcb v -> slots, block stride = slot stride, repeat stride = 8 slots,
//  repeat = ceil(vr/8) split at 255 (b16 at 254, so a continuation starts 32 B aligned); rows
//  vr..round8(vr)-1 of the slot area are written too (outside the valid region). v row-major:
//  one repeat-1 vbrcb per row reading v's row start (element 0 is v[i]; the other 7 blocks land
//  in slot i's following blocks, inside dst row i or tmp's 8-block slot, and are overwritten or
//  unused). vbrcb ignores MASK/CTRL.
//  TROWEXPANDop: per column chunk one vadd/vsub/vmul/vdiv(dst, src0, slots) over the rows with
//  src1 block stride 0 and src1 repeat stride = slot stride (rows split at 255; strides beyond
//  255: one repeat-1 issue per row). Order: the masked tail chunk (MASK continuous(vc % EPR)),
//  then full chunks 1.., then chunk 0 last — in dst-slot mode chunk 0 reads each row's slot in
//  the same repeat that overwrites it (an identical block, reads before writes: legal by
//  docs/a2a3-vector-semantics.md section 5), and no earlier issue or repeat writes a slot still to
// be read.
//  TROWEXPAND: slots to dst row block 0 (a copy when they live in tmp), then doubling copies of
//  each row's blocks [0, k) -> [k, 2k) until ceil(vc * size / 32) blocks are filled.
// Copies move whole 32 B blocks: bytes past vc up to the block end of a row (inside the row's
// capacity) may be written; they lie outside the valid region and are unspecified
// (docs/a2a3-tile-model.md section 3).

#include "planner.hpp"

namespace tilefw::plan::detail {

using desc::Mask128;
using desc::MaskMode;

namespace {

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

// The per-row vector of a row-broadcast instruction (src0 for TROWEXPAND, else src1).
const TileDesc& row_vector(const Request& q) noexcept {
  return q.op == TileOp::TROWEXPAND ? q.src0 : q.src1;
}

Status check_row_expand(const Request& q) noexcept {
  const bool expand_only = q.op == TileOp::TROWEXPAND;
  const TileDesc& dst = q.dst;
  const TileDesc& a = q.src0;  // TROWEXPANDop's src0
  const TileDesc& v = row_vector(q);
  TILEFW_TRY(check_vec(dst, q.chip));
  if (!expand_only) TILEFW_TRY(check_vec(a, q.chip));
  TILEFW_TRY(check_vec(v, q.chip));
  if (q.tmp.rows != 0) TILEFW_TRY(check_vec(q.tmp, q.chip));
  const DType dt = dst.dtype;
  if (dt != DType::f16 && dt != DType::f32) return Status::plan_unsupported_dtype;
  if (v.dtype != dt || (!expand_only && a.dtype != dt)) return Status::plan_unsupported_dtype;
  if (dst.layout != Layout::row_major || (!expand_only && a.layout != Layout::row_major)) {
    return Status::plan_layout_unsupported;
  }
  if (v.layout == Layout::col_major && v.cols != 1) return Status::plan_layout_unsupported;
  TILEFW_TRY(nonempty(dst));
  if (!expand_only) TILEFW_TRY(same_valid(dst, a));
  if (v.valid_rows != dst.valid_rows || v.valid_cols != 1) return Status::plan_valid_shape_mismatch;
  return Status::ok;
}

// Where the broadcast slots live: byte offset of slot 0 and the slot stride in blocks.
struct Slots {
  bool in_dst = true;
  uint32_t area = 0;
  uint32_t stride = 0;
};

// Slots in dst when nothing read later shares its bytes and vbrcb's writes stay inside it,
// else in tmp (see the top of this file).
Status place_slots(const Request& q, Slots& out) noexcept {
  const bool expand_only = q.op == TileOp::TROWEXPAND;
  const TileDesc& dst = q.dst;
  const TileDesc& a = q.src0;
  const TileDesc& v = row_vector(q);
  const bool v_dense = v.layout == Layout::col_major;
  const uint32_t rb = dst.row_bytes() / kB;
  const uint32_t groups = (dst.valid_rows + 7) / 8;
  out.in_dst = !extents_meet(dst, v) && (expand_only || !extents_meet(dst, a)) &&
               (v_dense ? dst.rows >= groups * 8 : rb >= chip::a2a3::kBlocksPerRepeat);
  out.area = dst.offset;
  out.stride = rb;
  if (out.in_dst) return Status::ok;
  const uint64_t need = (v_dense ? uint64_t{groups} * 8 : uint64_t{dst.valid_rows} * 8) * kB;
  if (q.tmp.rows == 0 || q.tmp.bytes() < need) return Status::plan_tmp_too_small;
  if (extents_meet(q.tmp, dst) || extents_meet(q.tmp, v) || (!expand_only && extents_meet(q.tmp, a))) {
    return Status::plan_operands_overlap;
  }
  out.area = q.tmp.offset;
  out.stride = v_dense ? 1 : chip::a2a3::kBlocksPerRepeat;
  return Status::ok;
}

// vbrcb of v into the slots: grouped by 8 rows for a dense (col-major) v, one per row else.
void broadcast(Builder& b, const TileDesc& v, uint32_t vr, DType dt, const Slots& sl) noexcept {
  const uint32_t e = dtype_size(dt);
  const uint32_t groups = (vr + 7) / 8;
  Segment g{};
  g.step.kind = StepKind::brcb;
  g.step.dtype = dt;
  g.step.brcb = desc::BrcbDesc{};
  g.step.mode = b.mode;
  g.step.mask = b.mask;
  g.step.brcb.dst = desc::Operand{chip::MemSpace::UB, sl.area};
  g.step.brcb.src = desc::Operand{chip::MemSpace::UB, v.offset};
  if (v.layout == Layout::col_major) {
    // A b16 repeat reads 16 B: split at an even repeat so the next piece's source is 32 B aligned.
    const uint32_t per = e == 4 ? kMaxRep : kMaxRep - 1;
    const uint32_t pieces = (groups + per - 1) / per;
    const uint32_t last = groups - (pieces - 1) * per;
    g.step.brcb.dst_block_stride = sl.stride;
    g.step.brcb.dst_repeat_stride = 8 * sl.stride;
    g.step.brcb.repeat = groups < per ? groups : per;
    g.inner = pieces;
    g.inner_delta[0] = per * 8 * sl.stride * kB;
    g.inner_delta[1] = per * 8 * e;
    if (pieces > 1 && last != per) g.last_inner_repeat = last;
  } else {
    g.step.brcb.dst_block_stride = 1;
    g.step.brcb.dst_repeat_stride = chip::a2a3::kBlocksPerRepeat;
    g.step.brcb.repeat = 1;
    g.inner = vr;
    g.inner_delta[0] = sl.stride * kB;
    g.inner_delta[1] = v.row_bytes();
  }
  b.push(g);
}

// TROWEXPANDop after the broadcast: per column chunk one binary issue over the rows, src1
// reading each row's slot (block stride 0). Tail chunk first, chunk 0 last (dst-slot mode).
void combine(Builder& b, const Request& q, const Slots& sl) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& a = q.src0;
  const DType dt = dst.dtype;
  const uint32_t e = dtype_size(dt);
  const uint32_t vr = dst.valid_rows;
  Step proto{};
  proto.kind = StepKind::binary;
  proto.dtype = dt;
  proto.binary = desc::BinIntrinsicDesc{};
  proto.binary.op = q.op == TileOp::TROWEXPANDADD   ? desc::BinaryOp::vadd
                    : q.op == TileOp::TROWEXPANDSUB ? desc::BinaryOp::vsub
                    : q.op == TileOp::TROWEXPANDMUL ? desc::BinaryOp::vmul
                                                    : desc::BinaryOp::vdiv;
  const uint32_t epr = lanes(dt);
  const uint32_t full = dst.valid_cols / epr;
  const uint32_t rem = dst.valid_cols % epr;
  const uint32_t rb = dst.row_bytes() / kB;
  const uint32_t ra = a.row_bytes() / kB;
  constexpr uint32_t kMaxStride = chip::a2a3::kMaxBinaryStride;
  const bool stride_ok = rb <= kMaxStride && ra <= kMaxStride && sl.stride <= kMaxStride;
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
    d.src1 = desc::Operand{chip::MemSpace::UB, sl.area};
    d.src1_block_stride = 0;  // every lane of a row reads its slot
    d.dst_repeat_stride = stride_ok ? rb : 0;
    d.src0_repeat_stride = stride_ok ? ra : 0;
    d.src1_repeat_stride = stride_ok ? sl.stride : 0;
    d.repeat = vr < per ? vr : per;
    s.outer = chunks;
    s.outer_delta[0] = epr * e;
    s.outer_delta[1] = epr * e;
    s.inner = pieces;
    s.inner_delta[0] = per * rb * kB;
    s.inner_delta[1] = per * ra * kB;
    s.inner_delta[2] = per * sl.stride * kB;
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
}

}  // namespace

Status plan_row_expand(const Request& q, Plan& out) noexcept {
  TILEFW_TRY(check_row_expand(q));
  Slots sl{};
  TILEFW_TRY(place_slots(q, sl));
  const TileDesc& dst = q.dst;
  const DType dt = dst.dtype;
  const uint32_t vr = dst.valid_rows;
  Builder b{out};
  broadcast(b, row_vector(q), vr, dt, sl);
  if (q.op != TileOp::TROWEXPAND) {
    combine(b, q, sl);
    b.finish();
    return b.err;
  }
  // TROWEXPAND: slots to row block 0, then doubling copies across the valid part of each row.
  const uint32_t rb = dst.row_bytes() / kB;
  if (!sl.in_dst) copy_rows(b, dt, dst.offset, sl.area, vr, 1, rb, sl.stride);
  const uint32_t nb = (dst.valid_cols * dtype_size(dt) + kB - 1) / kB;  // blocks of the valid part
  for (uint32_t k = 1; k < nb; k *= 2) {
    const uint32_t n = k < nb - k ? k : nb - k;
    copy_rows(b, dt, dst.offset + k * kB, dst.offset, vr, n, rb, rb);
  }
  b.finish();
  return b.err;
}

}  // namespace tilefw::plan::detail
