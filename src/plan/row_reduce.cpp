// Row reductions TROWSUM / TROWMAX / TROWMIN (docs/a2a3-vector-semantics.md section 8).
//
// TROWSUM / TROWMAX / TROWMIN (half, float; vadd/vmax/vmin + vcadd/vcmax/vcmin only_value):
//  docs/a2a3-vector-semantics.md section 8 exactly: vc <= EPR one vcadd (counter mode when vc ==
// EPR, else
//  MASK continuous(vc), rows split at 255; tmp untouched); vc > EPR: P == 1 copies chunk 0 into
//  tmp (copy_ubuf_to_ubuf), FillTmp tmp_i = s_2i + s_2i+1 (counter mode, count vr*EPR), odd P
//  folds s_{P-1} into tmp_0, the tail adds MASK continuous(rem) lanes of s_P into tmp_0,
//  TmpProc halves tmp (odd leftover into chunk len/2-1), one counter-mode vcadd tmp -> dst.
//  dst repeat stride = dst Cols elements (1 for an Nx1 col-major dst). Strides beyond a
//  field (255 binary, 65535 reduce) fall back to one repeat-1 issue per row.
//  TROWSUM f32 with an Nx1 col-major dst and src exactly 64x128, 32x256, 16x512 or 8x1024
//  (all valid) takes PTO's fast path (docs/a2a3-vector-semantics.md section 8): vcgadd src -> tmp
// (packed), vadd
//  with block strides 1,2,2 / repeat strides 8,16,16 or vcgadd tmp -> tmp, then vcgadd tmp ->
//  dst; tmp needs rows*cols/8 floats. TROWMAX/TROWMIN have no fast path (there is no vcgmax
//  descriptor) and take the generic stream.
// A5 (docs/a5-profile.md section 4): a row is reduced in vector registers and tmp is never
//  touched: one folded reduce issue per row (count mode, count = valid cols, so the last
//  repeat takes the tail): each repeat's vcadd / vcmax / vcmin, folded in order into one
//  accumulator from the op's identity, written once to the row's dst element. Valid rows
//  without a valid column: each row's dst element gets the identity (vector_dup).

#include "planner.hpp"

namespace tilefw::plan::detail {

using desc::Mask128;
using desc::MaskMode;

namespace {

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

// The checks of every row reduction, before any planning.
Status check_row_reduce(const Request& q) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  TILEFW_TRY(check_vec(dst, q.chip));
  TILEFW_TRY(check_vec(src, q.chip));
  TILEFW_TRY(check_vec(q.tmp, q.chip));
  const DType dt = src.dtype;
  if (dt != DType::f16 && dt != DType::f32) return Status::plan_unsupported_dtype;
  if (dst.dtype != dt) return Status::plan_unsupported_dtype;
  if (src.layout != Layout::row_major) return Status::plan_layout_unsupported;
  if (dst.layout == Layout::col_major && dst.cols != 1) return Status::plan_layout_unsupported;
  if (!chip::row_reduce_checks_valid_region(q.chip)) {
    // A5: no valid-region assertion; src's valid rows are reduced into dst's first rows, which
    // must exist (an empty src valid region plans nothing).
    return src.valid_rows > dst.rows ? Status::plan_valid_shape_mismatch : Status::ok;
  }
  if (dst.valid_rows != src.valid_rows) return Status::plan_valid_shape_mismatch;
  TILEFW_TRY(nonempty(src));
  if (dst.valid_cols == 0) return Status::plan_empty_valid_region;
  return Status::ok;
}

// The generic stream (docs/a2a3-vector-semantics.md section 8): the reduce and fold step
// templates, the operand
// geometry, and the issues of each step.
struct RowReduce {
  Builder& b;
  const TileDesc& dst;
  const TileDesc& src;
  const TileDesc& tmp;
  Step red{};
  Step bin{};
  RowGeom g{};
  uint32_t e = 0;
  uint32_t dst_rs = 0;  // vcadd unit: elements
  uint32_t src_rs = 0;
  uint32_t tmp_rs = 0;

  RowReduce(Builder& builder, const Request& q) noexcept
      : b(builder), dst(q.dst), src(q.src0), tmp(q.tmp) {
    const DType dt = src.dtype;
    const bool sum = q.op == TileOp::TROWSUM;
    red.kind = StepKind::reduce;
    red.dtype = dt;
    red.reduce = desc::ReduceDesc{};
    red.reduce.op = sum ? desc::ReduceOp::vcadd : q.op == TileOp::TROWMAX ? desc::ReduceOp::vcmax
                                                                          : desc::ReduceOp::vcmin;
    red.reduce.order = desc::ReduceOrder::only_value;
    bin.kind = StepKind::binary;
    bin.dtype = dt;
    bin.binary = desc::BinIntrinsicDesc{};
    bin.binary.op = sum ? desc::BinaryOp::vadd : q.op == TileOp::TROWMAX ? desc::BinaryOp::vmax
                                                                         : desc::BinaryOp::vmin;
    e = dtype_size(dt);
    g = RowGeom{src.valid_rows, lanes(dt), e};
    const uint32_t bse = kB / e;
    dst_rs = dst.layout == Layout::col_major ? 1 : dst.cols;
    src_rs = src.cols / bse;
    tmp_rs = tmp.cols / bse;
  }

  void reduce_into_dst(uint32_t s_off, uint32_t s_rb, uint32_t s_rs, bool full, Mask128 m) noexcept {
    static constexpr uint32_t kWide[3] = {chip::a2a3::kMaxWideStride, chip::a2a3::kMaxWideStride, 0};
    const uint32_t off[3] = {dst.offset, s_off, 0};
    const uint32_t rb[3] = {dst_rs * e, s_rb, 0};
    const uint32_t rep[3] = {dst_rs, s_rs, 0};
    row_parallel(b, red, 2, off, rb, rep, kWide, g, full, m);
  }
  // d = a (op) c over every row; operands given as (offset, row bytes, repeat stride).
  void fold3(uint32_t d, uint32_t d_rb, uint32_t d_rs, uint32_t a, uint32_t a_rb, uint32_t a_rs, uint32_t c,
             uint32_t c_rb, uint32_t c_rs, bool full, Mask128 m) noexcept {
    static constexpr uint32_t kNarrow[3] = {chip::a2a3::kMaxBinaryStride, chip::a2a3::kMaxBinaryStride,
                                            chip::a2a3::kMaxBinaryStride};
    const uint32_t off[3] = {d, a, c};
    const uint32_t rb[3] = {d_rb, a_rb, c_rb};
    const uint32_t rep[3] = {d_rs, a_rs, c_rs};
    row_parallel(b, bin, 3, off, rb, rep, kNarrow, g, full, m);
  }
  uint32_t tmp_at(uint32_t i) const noexcept { return tmp.offset + i * g.epr * e; }
  uint32_t src_at(uint32_t i) const noexcept { return src.offset + i * g.epr * e; }
  // tmp_d = tmp_a (op) tmp_c, all full chunks.
  void fold_tmp(uint32_t d, uint32_t a, uint32_t c) noexcept {
    const uint32_t t_rb = tmp.row_bytes();
    fold3(tmp_at(d), t_rb, tmp_rs, tmp_at(a), t_rb, tmp_rs, tmp_at(c), t_rb, tmp_rs, true, Mask128::all());
  }

  // B: vc > EPR, P full chunks and a tail of `rem` lanes, folded through tmp.
  void through_tmp(uint32_t P, uint32_t rem) noexcept {
    const uint32_t t_rb = tmp.row_bytes();
    const uint32_t s_rb = src.row_bytes();
    constexpr uint32_t kChunk = chip::a2a3::kBlocksPerRepeat;
    if (P == 1) {  // step 1: chunk 0 of every row into tmp
      b.push(copy_segment(src.dtype, tmp.offset, src.offset, g.vr, kChunk, src_rs - kChunk, tmp_rs - kChunk, b));
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
      for (uint32_t i = 0; i < len / 2; ++i) fold_tmp(i, 2 * i, 2 * i + 1);
      if (len % 2 == 1) fold_tmp(len / 2 - 1, len / 2 - 1, len - 1);
    }
    reduce_into_dst(tmp.offset, t_rb, tmp_rs, true, Mask128::all());  // step 6
  }
};

// A5: one folded reduce per row, dst and src advancing by a row (tmp untouched).
Status plan_a5_rows(Builder& b, const Request& q) noexcept {
  const TileDesc& dst = q.dst;
  const TileDesc& src = q.src0;
  const uint32_t e = dtype_size(src.dtype);
  Segment g{};
  g.step.kind = StepKind::reduce;
  g.step.dtype = src.dtype;
  g.step.reduce = desc::ReduceDesc{};
  g.step.reduce.op = q.op == TileOp::TROWSUM   ? desc::ReduceOp::vcadd
                     : q.op == TileOp::TROWMAX ? desc::ReduceOp::vcmax
                                               : desc::ReduceOp::vcmin;
  g.step.reduce.order = desc::ReduceOrder::only_value;
  g.step.reduce.fold = true;
  g.step.reduce.dst_repeat_stride = 0;
  g.step.reduce.src_block_stride = 1;
  g.step.reduce.src_repeat_stride = chip::a2a3::kBlocksPerRepeat;
  g.step.reduce.dst = desc::Operand{chip::MemSpace::UB, dst.offset};
  g.step.reduce.src = desc::Operand{chip::MemSpace::UB, src.offset};
  g.inner = src.valid_rows;
  g.inner_delta[0] = (dst.layout == Layout::col_major ? 1 : dst.cols) * e;
  g.inner_delta[1] = src.row_bytes();
  b.use_count(src.valid_cols);
  b.issue(g);
  b.finish();
  return b.err;
}

// A5 with valid rows and no valid column: each row's dst element gets the op's identity (+0,
// -inf, +inf), as A5's accumulator is stored without any repeat folded in. A vector_dup of that
// value: one counted run over an N x 1 col-major dst (its elements are contiguous), else one
// element per row (a row-major dst's rows start on 32 B).
Status plan_a5_identity(Builder& b, const Request& q) noexcept {
  const TileDesc& dst = q.dst;
  const bool half = q.src0.dtype == DType::f16;
  uint32_t bits = 0;  // +0
  if (q.op == TileOp::TROWMAX) bits = half ? 0xFC00u : 0xFF800000u;
  if (q.op == TileOp::TROWMIN) bits = half ? 0x7C00u : 0x7F800000u;
  Segment g{};
  g.step.kind = StepKind::dup;
  g.step.dtype = q.src0.dtype;
  g.step.dup = desc::DupDesc{};
  g.step.dup.scalar_bits = bits;
  g.step.dup.dst = desc::Operand{chip::MemSpace::UB, dst.offset};
  const bool column = dst.layout == Layout::col_major;
  if (!column) {
    g.inner = q.src0.valid_rows;
    g.inner_delta[0] = dst.row_bytes();
  }
  b.use_count(column ? q.src0.valid_rows : 1);
  b.issue(g);
  b.finish();
  return b.err;
}

}  // namespace

Status plan_row_reduce(const Request& q, Plan& out) noexcept {
  TILEFW_TRY(check_row_reduce(q));
  const TileDesc& src = q.src0;
  const TileDesc& tmp = q.tmp;
  const DType dt = src.dtype;
  Builder b{out};
  const uint32_t e = dtype_size(dt);
  const uint32_t epr = lanes(dt);
  const uint32_t vr = src.valid_rows;
  const uint32_t vc = src.valid_cols;
  if (vr == 0) {  // A5 only (a2a3 refused it above): no row to reduce
    b.finish();
    return b.err;
  }
  if (vc == 0) return plan_a5_identity(b, q);  // A5 only (a2a3 refused it above)
  if (q.chip == chip::Chip::a5) return plan_a5_rows(b, q);
  if (is_fp32_fast_shape(q)) {
    if (tmp.dtype != dt || tmp.bytes() < uint64_t{vr} * vc * e / 8) return Status::plan_tmp_too_small;
    return plan_fp32_fast(b, q);
  }
  RowReduce r(b, q);
  if (vc <= epr) {  // A: one vcadd, tmp untouched
    const uint32_t src_rs = r.src_rs;
    if (vc == epr) {
      r.reduce_into_dst(src.offset, src.row_bytes(), src_rs, true, Mask128::all());
    } else {
      r.reduce_into_dst(src.offset, src.row_bytes(), src_rs, false, Mask128::continuous(vc));
    }
    b.finish();
    return b.err;
  }
  // B: tmp holds max(1, P/2) chunks of EPR lanes per row.
  const uint32_t P = vc / epr;
  const uint32_t need = (P / 2 > 1 ? P / 2 : 1) * epr;
  if (tmp.dtype != dt || tmp.layout != Layout::row_major || tmp.rows < vr || tmp.cols < need) {
    return Status::plan_tmp_too_small;
  }
  r.through_tmp(P, vc % epr);
  b.finish();
  return b.err;
}

}  // namespace tilefw::plan::detail
