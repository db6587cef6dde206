// TCMP, TCMPS (compare into a predicate tile) and TSEL (select by one).
//
// The predicate tile (tilefw's rule; the hardware's layout is not public): a u8 row-major tile
// whose row i holds the results of row i, element j as bit j % 8 of byte j / 8 (least
// significant bit first). Its valid region is VR rows by ceil(VC / 8) bytes, VR x VC being the
// compared region; a compare writes exactly those bytes (bits past VC in the last byte are 0).
//
// Stream (EPR = 256 / sizeof(T) lanes per repeat), one family for all three: the valid columns
// are cut into EPR-lane chunks; each chunk is one issue over the rows (repeat = VR, split at
// 255, repeat strides one row of each operand), the full chunks as one segment stepping EPR
// lanes (EPR / 8 predicate bytes), the last partial chunk with its own lane count.
// TCMP (a2a3: f16, f32, i32): vcmpv lane by lane; for i32 the compare is EQ whatever the mode
//  (as a2a3's PTO implementation does). TCMPS (f16, f32, i16, u16, i32; i32 as TCMP): vcmpvs
//  with the scalar, or with src1's first element (the tile form). A5: both refused
//  (`unsupported`, field "chip": A5's TCMP writes a u32 predicate, not modelled).
// TSEL (any 2- or 4-byte type, a2a3 and A5): vsel over dst's valid region; src0 and src1 have
//  dst's valid region; the mask is a predicate tile as above (VR rows, ceil(VC / 8) bytes).

#include "planner.hpp"

namespace tilefw::plan::detail {

namespace {

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

// Issues rows [0, vr) of `count` chunks from the step's offsets; `chunk[k]`: the byte
// advance of slot k per EPR-lane chunk, `row[k]`: per row.
void chunk_rows(Builder& b, Step st, uint32_t count, const uint32_t (&chunk)[4], const uint32_t (&row)[4],
                uint32_t vr) noexcept {
  Segment g{};
  g.step = st;
  g.outer = count;
  g.inner = (vr + kMaxRep - 1) / kMaxRep;
  for (int k = 0; k < 4; ++k) {
    g.outer_delta[k] = chunk[k];
    g.inner_delta[k] = kMaxRep * row[k];
  }
  set_repeat(g.step, vr < kMaxRep ? vr : kMaxRep);
  const uint32_t last = vr - (g.inner - 1) * kMaxRep;
  if (g.inner > 1 && last != kMaxRep) g.last_inner_repeat = last;
  b.push(g);
}

void set_lanes(Step& s, uint32_t n) noexcept {
  if (s.kind == StepKind::cmp) s.cmp.lanes = n;
  else s.sel.lanes = n;
}

// The chunks of columns [0, vc): full ones, then the partial one.
void chunks(Builder& b, Step st, uint32_t vc, uint32_t vr, const uint32_t (&chunk)[4],
            const uint32_t (&row)[4]) noexcept {
  const uint32_t epr = lanes(st.dtype);
  const uint32_t full = vc / epr;
  const uint32_t rem = vc % epr;
  if (full != 0) {
    set_lanes(st, epr);
    chunk_rows(b, st, full, chunk, row, vr);
  }
  if (rem != 0) {
    Step t = st;
    for (int k = 0; k < slot_count_of(t); ++k) slot(t, k)->offset += full * chunk[k];
    set_lanes(t, rem);
    chunk_rows(b, t, 1, chunk, row, vr);
  }
  b.finish();
}

Status check_predicate(const TileDesc& m, uint32_t vr, uint32_t vc, const char* rows_field, const char* cols_field,
                       const char* dtype_field, desc::DescReport* report) noexcept {
  if (m.dtype != DType::u8) {
    return refuse(report, Status::plan_unsupported_dtype, dtype_field, static_cast<uint32_t>(m.dtype));
  }
  if (m.valid_rows != vr) return refuse(report, Status::plan_valid_shape_mismatch, rows_field, m.valid_rows, vr);
  if (m.valid_cols != (vc + 7) / 8) {
    return refuse(report, Status::plan_valid_shape_mismatch, cols_field, m.valid_cols, (vc + 7) / 8);
  }
  return Status::ok;
}

Status plan_cmp(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const DType dt = q.src0.dtype;
  if (q.chip == chip::Chip::a5) return refuse(report, Status::unsupported, "chip", static_cast<uint32_t>(q.chip));
  const bool tcmp = q.op == TileOp::TCMP;
  const bool ok_type = dt == DType::f16 || dt == DType::f32 || dt == DType::i32 ||
                       (!tcmp && (dt == DType::i16 || dt == DType::u16));
  if (!ok_type) return refuse(report, Status::plan_unsupported_dtype, "src0.dtype", static_cast<uint32_t>(dt));
  const uint32_t vr = q.src0.valid_rows;
  const uint32_t vc = q.src0.valid_cols;
  const bool tile_rhs = tcmp || q.cmp_first;
  if (tile_rhs && q.src1.dtype != dt) {
    return refuse(report, Status::plan_unsupported_dtype, "src1.dtype", static_cast<uint32_t>(q.src1.dtype));
  }
  if (tcmp && q.src1.valid_rows != vr) {
    return refuse(report, Status::plan_valid_shape_mismatch, "src1.valid_rows", q.src1.valid_rows, vr);
  }
  if (tcmp && q.src1.valid_cols != vc) {
    return refuse(report, Status::plan_valid_shape_mismatch, "src1.valid_cols", q.src1.valid_cols, vc);
  }
  if (q.cmp_first && (q.src1.valid_rows == 0 || q.src1.valid_cols == 0)) {
    return refuse(report, Status::plan_empty_valid_region, "src1.valid_cols", q.src1.valid_cols);
  }
  TILEFW_TRY(check_predicate(q.dst, vr, vc, "dst.valid_rows", "dst.valid_cols", "dst.dtype", report));
  const uint32_t mode_raw = tcmp ? q.scalar_bits : static_cast<uint32_t>(q.cmp_mode);
  if (mode_raw > static_cast<uint32_t>(desc::CmpMode::le)) {
    return refuse(report, Status::invalid_argument, "cmpMode", mode_raw, static_cast<uint32_t>(desc::CmpMode::le));
  }
  Builder b{out};
  if (vr == 0 || vc == 0) {
    b.finish();
    return b.err;
  }
  Step st{};
  st.kind = StepKind::cmp;
  st.dtype = dt;
  st.cmp = desc::CmpDesc{};
  // a2a3's PTO compares i32 with EQ whatever the mode asked for.
  st.cmp.mode = dt == DType::i32 ? desc::CmpMode::eq : static_cast<desc::CmpMode>(mode_raw);
  st.cmp.rhs = tcmp ? desc::CmpRhs::tile : q.cmp_first ? desc::CmpRhs::first : desc::CmpRhs::scalar;
  st.cmp.scalar_bits = tcmp || q.cmp_first ? 0u : q.scalar_bits;
  st.cmp.dst = desc::Operand{chip::MemSpace::UB, q.dst.offset};
  st.cmp.src0 = desc::Operand{chip::MemSpace::UB, q.src0.offset};
  st.cmp.src1 = desc::Operand{chip::MemSpace::UB, tile_rhs ? q.src1.offset : 0u};
  st.cmp.dst_repeat_stride = q.dst.row_bytes();
  st.cmp.src0_repeat_stride = q.src0.row_bytes() / kB;
  st.cmp.src1_repeat_stride = tcmp ? q.src1.row_bytes() / kB : 0u;
  const uint32_t epr = lanes(dt);
  const uint32_t e = dtype_size(dt);
  const uint32_t chunk[4] = {epr / 8, epr * e, tcmp ? epr * e : 0u, 0};
  const uint32_t row[4] = {q.dst.row_bytes(), q.src0.row_bytes(), tcmp ? q.src1.row_bytes() : 0u, 0};
  chunks(b, st, vc, vr, chunk, row);
  return b.err;
}

Status plan_sel(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const DType dt = q.dst.dtype;
  const uint32_t sz = dtype_size(dt);
  if (sz != 2 && sz != 4) return refuse(report, Status::plan_unsupported_dtype, "dst.dtype", static_cast<uint32_t>(dt));
  const TileDesc* const srcs[2] = {&q.src0, &q.src1};
  const char* const type_field[2] = {"src0.dtype", "src1.dtype"};
  for (int k = 0; k < 2; ++k) {
    if (srcs[k]->dtype != dt) {
      return refuse(report, Status::plan_unsupported_dtype, type_field[k], static_cast<uint32_t>(srcs[k]->dtype));
    }
  }
  const uint32_t vr = q.dst.valid_rows;
  const uint32_t vc = q.dst.valid_cols;
  const char* const rows_field[2] = {"src0.valid_rows", "src1.valid_rows"};
  const char* const cols_field[2] = {"src0.valid_cols", "src1.valid_cols"};
  for (int k = 0; k < 2; ++k) {
    const TileDesc& t = *srcs[k];
    if (t.valid_rows != vr) return refuse(report, Status::plan_valid_shape_mismatch, rows_field[k], t.valid_rows, vr);
    if (t.valid_cols != vc) return refuse(report, Status::plan_valid_shape_mismatch, cols_field[k], t.valid_cols, vc);
  }
  TILEFW_TRY(check_predicate(q.tmp, vr, vc, "mask.valid_rows", "mask.valid_cols", "mask.dtype", report));
  Builder b{out};
  if (vr == 0 || vc == 0) {
    b.finish();
    return b.err;
  }
  Step st{};
  st.kind = StepKind::sel;
  st.dtype = dt;
  st.sel = desc::SelDesc{};
  st.sel.dst = desc::Operand{chip::MemSpace::UB, q.dst.offset};
  st.sel.src0 = desc::Operand{chip::MemSpace::UB, q.src0.offset};
  st.sel.src1 = desc::Operand{chip::MemSpace::UB, q.src1.offset};
  st.sel.mask = desc::Operand{chip::MemSpace::UB, q.tmp.offset};
  st.sel.dst_repeat_stride = q.dst.row_bytes() / kB;
  st.sel.src0_repeat_stride = q.src0.row_bytes() / kB;
  st.sel.src1_repeat_stride = q.src1.row_bytes() / kB;
  st.sel.mask_repeat_stride = q.tmp.row_bytes();
  const uint32_t epr = lanes(dt);
  const uint32_t chunk[4] = {epr * sz, epr * sz, epr * sz, epr / 8};
  const uint32_t row[4] = {q.dst.row_bytes(), q.src0.row_bytes(), q.src1.row_bytes(), q.tmp.row_bytes()};
  chunks(b, st, vc, vr, chunk, row);
  return b.err;
}

}  // namespace

Status plan_compare(const Request& q, Plan& out, desc::DescReport* report) noexcept {
  const bool sel = q.op == TileOp::TSEL;
  const bool two = q.op == TileOp::TCMP || sel || q.cmp_first;
  const TileDesc* const t[4] = {&q.dst, &q.src0, &q.src1, &q.tmp};
  const char* const names[4] = {"dst", "src0", "src1", "mask"};
  for (int k = 0; k < 4; ++k) {
    if ((k == 2 && !two) || (k == 3 && !sel)) continue;
    const Status s = check_vec(*t[k], q.chip);
    if (s != Status::ok) return refuse(report, s, names[k], t[k]->offset);
    if (t[k]->layout != Layout::row_major) return refuse(report, Status::plan_layout_unsupported, names[k]);
  }
  if (sel) return plan_sel(q, out, report);
  if (q.op == TileOp::TCMP || q.op == TileOp::TCMPS) return plan_cmp(q, out, report);
  return Status::plan_unknown_op;
}

}  // namespace tilefw::plan::detail
