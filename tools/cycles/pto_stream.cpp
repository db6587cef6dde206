// pto-isa's a2a3 issue streams (facts of its public backend, restated in docs/a2a3-timing.md):
// which vector intrinsics an instruction issues, with how many repeats, and where it puts
// pipe barriers and V<->S flags. Tiles are taken with run-time valid shapes, as pto-isa's
// cost-model tests declare them.
#include "cycles/pto_stream.hpp"

#include <algorithm>
#include <cstdint>

namespace tilefw::tools::cycles {

namespace {

namespace t = port::host::timing;
using t::VecClass;
constexpr uint32_t kRepeatMax = 255;
constexpr uint32_t kRepeatBytes = 256;
constexpr uint32_t kBlockBytes = 32;

uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

struct Stream {
  t::PipeTimer& timer;
  VecClass cls;
  const char* what;
  bool f32 = false;
  void v(uint64_t repeats) { timer.vector(cls, repeats, what, f32); }
  void barrier() { timer.pipe_barrier(t::kPipeV); }
};

// The row-by-row forms (two-level loops) of the elementwise families: tiles whose valid
// columns do not cover the row. R, C: the tile's capacity; epr, eb: elements per repeat/block.
void two_level(Stream& s, uint32_t R, uint32_t C, uint32_t vr, uint32_t vc, uint32_t epr, uint32_t eb) {
  const uint32_t per_row = C / epr;
  if (per_row > 1 && R * per_row < 4) {
    for (uint32_t i = 0; i < vr; ++i) s.v(ceil_div(vc, epr));  // count mode, one issue per row
    return;
  }
  if (R < per_row + 1) {
    for (uint32_t i = 0; i < vr; ++i) s.v(vc % epr != 0 ? ceil_div(vc, epr) : vc / epr);
    return;
  }
  const uint32_t stride_blocks = C / eb;
  if (R <= kRepeatMax && stride_blocks <= kRepeatMax) {
    for (uint32_t i = 0; i < vc / epr; ++i) s.v(vr);  // one issue per repeat-wide column strip
    if (vc % epr != 0) s.v(vr);
    return;
  }
  if (R > epr) {
    const uint32_t head = vc / epr;
    for (uint32_t i = 0; i < vr && head > 0; ++i) {
      for (uint32_t j = 0; j < head / kRepeatMax; ++j) s.v(kRepeatMax);
      if (head % kRepeatMax != 0) s.v(head % kRepeatMax);
    }
  }
  if (vc % epr == 0) return;
  if (stride_blocks > kRepeatMax) {
    for (uint32_t i = 0; i < vr; ++i) s.v(1);
    return;
  }
  for (uint32_t i = 0; i < vr / kRepeatMax; ++i) s.v(kRepeatMax);
  if (vr % kRepeatMax != 0) s.v(vr % kRepeatMax);
}

// A contiguous run of n elements: head repeats, then a masked tail repeat; count mode (one
// issue) when the run needs more than 255 repeats or `count_mode` is asked.
void one_level(Stream& s, uint64_t n, uint32_t epr, bool count_mode) {
  const uint64_t total = (n + epr - 1) / epr;
  if (count_mode || total > kRepeatMax) {
    s.v(total);
    return;
  }
  s.v(n / epr);  // issued even with 0 repeats
  if (n % epr != 0) s.v(1);
}

void binary(Stream& s, const Operand& d, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize, eb = kBlockBytes / esize;
  if (d.rows <= kRepeatMax && d.cols < epr) {
    s.v(d.valid_rows);  // small tiles: one repeat per row under a column mask
  } else if (d.cols == d.valid_cols || d.valid_rows == 1) {
    const bool unaligned = d.valid_cols > epr && d.valid_cols % epr != 0;
    one_level(s, uint64_t{d.valid_rows} * d.valid_cols, epr, unaligned);
  } else {
    two_level(s, d.rows, d.cols, d.valid_rows, d.valid_cols, epr, eb);
  }
}

void unary(Stream& s, const Operand& d, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize, eb = kBlockBytes / esize;
  if (d.cols == d.valid_cols || d.valid_rows == 1) {
    one_level(s, uint64_t{d.valid_rows} * d.valid_cols, epr, false);
  } else {
    two_level(s, d.rows, d.cols, d.valid_rows, d.valid_cols, epr, eb);
  }
}

// Normal-mode issues over `rows` rows, at most 255 repeats an issue, as pto-isa's do-while
// loops count them: rows / 255 full issues, then one of rows % 255 (issued even when 0).
template <typename Each>
void row_chunks(uint32_t rows, Each each) {
  for (int32_t left = static_cast<int32_t>(rows / kRepeatMax); left >= 0; --left) {
    each(left == 0 ? rows % kRepeatMax : kRepeatMax);
  }
}

void row_reduce(Stream& s, t::PipeTimer& tm, const Operand& src, uint32_t esize, VecClass combine) {
  const uint32_t epr = kRepeatBytes / esize;
  const uint32_t vr = src.valid_rows, vc = src.valid_cols;
  Stream r{tm, VecClass::reduce, s.what, s.f32};
  if (vc == epr) {  // one counter-mode reduction over every row
    r.v(vr);
    r.barrier();
    return;
  }
  if (vc < epr) {  // masked rows: a reduction of up to 255 rows, a barrier after each
    row_chunks(vr, [&](uint32_t n) {
      r.v(n);
      r.barrier();
    });
    return;
  }
  // Wider rows: fold each row's repeats into tmp with elementwise ops (counter mode, one issue
  // per fold step over every row; TROWSUM pairs them as a tree, TROWMAX/TROWMIN in a line,
  // both per_row - 1 steps), the masked tail in row chunks, then reduce tmp.
  Stream c{tm, combine, s.what, s.f32};
  const uint32_t per_row = vc / epr;
  if (vc < 2 * epr) {
    tm.vector(VecClass::copy, uint64_t{vr} * (kRepeatBytes / kBlockBytes), "copy_ubuf_to_ubuf");
    c.barrier();
  }
  for (uint32_t i = 1; i < per_row; ++i) {
    c.v(vr);
    c.barrier();
  }
  if (vc % epr != 0) {
    row_chunks(vr, [&](uint32_t n) { c.v(n); });
    c.barrier();
  }
  r.v(vr);
  r.barrier();
}

// TCOLMAX / TCOLMIN: row 0 copied, then per further row one counter-mode issue over the whole
// repeats of the row, and a second loop of one masked repeat per row for a partial last repeat
// (each issue followed by a barrier).
void col_reduce(Stream& s, t::PipeTimer& tm, const Operand& src, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize;
  const uint32_t vr = src.valid_rows, vc = src.valid_cols;
  tm.vector(VecClass::copy, ceil_div(uint64_t{vc} * esize, kBlockBytes), "copy_ubuf_to_ubuf");
  s.barrier();
  for (uint32_t i = 1; i < vr && vc / epr > 0; ++i) {
    s.v(vc / epr);
    s.barrier();
  }
  for (uint32_t i = 1; i < vr && vc % epr != 0; ++i) {
    s.v(1);
    s.barrier();
  }
}

// TCOLSUM's sequential form: row 0 copied, then per further row one counter-mode vadd over the
// valid columns and a barrier.
void col_sum_sequential(Stream& s, t::PipeTimer& tm, const Operand& src, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize;
  const uint32_t vr = src.valid_rows, vc = src.valid_cols;
  tm.vector(VecClass::copy, ceil_div(uint64_t{vc} * esize, kBlockBytes), "copy_ubuf_to_ubuf");
  s.barrier();
  for (uint32_t i = 1; i < vr; ++i) {
    s.v(ceil_div(vc, epr));
    s.barrier();
  }
}

void col_sum_binary(Stream& s, t::PipeTimer& tm, const Operand& src, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize;
  const uint32_t vr = src.valid_rows, vc = src.valid_cols;
  const uint32_t reps = ceil_div(vc, epr);
  auto level = [&](uint32_t n) {
    for (uint32_t i = 0; i < n / 2; ++i) s.v(reps);
    s.barrier();
    if (n % 2 == 1) {
      s.v(reps);
      s.barrier();
    }
  };
  level(vr);
  for (uint32_t cnt = vr / 2; cnt > 1; cnt /= 2) {
    level(cnt);
    s.barrier();
  }
  tm.vector(VecClass::copy, ceil_div(uint64_t{vc} * esize, kBlockBytes), "copy_ubuf_to_ubuf");
  s.barrier();
}

// TROWEXPAND of a row-major source: per row, a V->S flag, a scalar read of src[i][0], an S->V
// flag and one vector_dup of the row in count mode.
void row_expand(t::PipeTimer& tm, const Operand& d, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize;
  for (uint32_t i = 0; i < d.valid_rows; ++i) {
    tm.flag(t::kPipeV, t::kPipeS);
    tm.scalar_read();
    tm.flag(t::kPipeS, t::kPipeV);
    tm.vector(VecClass::dup, ceil_div(d.valid_cols, epr), "vector_dup", d.dtype == DType::f32);
  }
}

// TROWEXPANDADD/SUB/MUL/DIV with the per-row values as an Nx1 tile: vbrcb spreads 8 row values
// a repeat into a temporary block per row, a barrier, then the elementwise op: one issue per
// row in counter mode when the row strides overflow or the rows are fewer than a row's repeats,
// else row-strip issues (one per repeat-wide column strip, rows as repeats). Rows beyond 255 go
// in chunks of 240 (the temporary buffer holds 30 vbrcb repeats).
void row_expand_binary(Stream& s, t::PipeTimer& tm, const Operand& d, uint32_t esize) {
  const uint32_t epr = kRepeatBytes / esize, eb = kBlockBytes / esize;
  const uint32_t vc = d.valid_cols;
  const bool count_mode = d.cols / eb > kRepeatMax || vc / epr > d.valid_rows;
  for (uint32_t done = 0; done < d.valid_rows;) {
    const uint32_t rows = d.valid_rows - done < 256 ? d.valid_rows - done : 240;
    tm.vector(VecClass::dup, ceil_div(rows, 8), "vbrcb", false);
    s.barrier();
    if (count_mode) {
      for (uint32_t i = 0; i < rows; ++i) s.v(ceil_div(vc, epr));
    } else if (d.cols < epr) {
      s.v(rows);
    } else {
      for (uint32_t i = 0; i < vc / epr; ++i) s.v(rows);
      if (vc % epr != 0) s.v(rows);
    }
    done += rows;
  }
}

struct OpEntry {
  const char* name;
  enum Kind { bin, scal, un, rowred, colmax, colsum, cvt, rowexpand, rowexpand_bin, expands, load, store } kind;
  VecClass cls;
  const char* intrinsic;
};

constexpr OpEntry kOps[] = {
    {"TADD", OpEntry::bin, VecClass::binary, "vadd"},         {"TSUB", OpEntry::bin, VecClass::binary, "vsub"},
    {"TMUL", OpEntry::bin, VecClass::binary, "vmul"},         {"TMAX", OpEntry::bin, VecClass::binary, "vmax"},
    {"TMIN", OpEntry::bin, VecClass::binary, "vmin"},         {"TDIV", OpEntry::bin, VecClass::div, "vdiv"},
    {"TADDS", OpEntry::scal, VecClass::scalar, "vadds"},      {"TMULS", OpEntry::scal, VecClass::scalar, "vmuls"},
    {"TMAXS", OpEntry::scal, VecClass::scalar, "vmaxs"},      {"TMINS", OpEntry::scal, VecClass::scalar, "vmins"},
    {"TABS", OpEntry::un, VecClass::unary, "vabs"},           {"TRELU", OpEntry::un, VecClass::unary, "vrelu"},
    {"TEXP", OpEntry::un, VecClass::math, "vexp"},            {"TLOG", OpEntry::un, VecClass::math, "vln"},
    {"TSQRT", OpEntry::un, VecClass::math, "vsqrt"},          {"TRSQRT", OpEntry::un, VecClass::math, "vrsqrt"},
    {"TRECIP", OpEntry::un, VecClass::math, "vrec"},          {"TROWSUM", OpEntry::rowred, VecClass::binary, "vcadd"},
    {"TROWMAX", OpEntry::rowred, VecClass::binary, "vcmax"},  {"TROWMIN", OpEntry::rowred, VecClass::binary, "vcmin"},
    {"TCOLMAX", OpEntry::colmax, VecClass::binary, "vmax"},   {"TCOLMIN", OpEntry::colmax, VecClass::binary, "vmin"},
    {"TCOLSUM", OpEntry::colsum, VecClass::binary, "vadd"},   {"TCVT", OpEntry::cvt, VecClass::cvt, "vconv"},
    {"TROWEXPAND", OpEntry::rowexpand, VecClass::dup, "vector_dup"},
    {"TEXPANDS", OpEntry::expands, VecClass::dup, "vector_dup"},
    {"TLOAD", OpEntry::load, VecClass::copy, "MTE2 move"},
    {"TSTORE", OpEntry::store, VecClass::copy, "MTE3 move"},
    {"TROWEXPANDADD", OpEntry::rowexpand_bin, VecClass::binary, "vadd"},
    {"TROWEXPANDSUB", OpEntry::rowexpand_bin, VecClass::binary, "vsub"},
    {"TROWEXPANDMUL", OpEntry::rowexpand_bin, VecClass::binary, "vmul"},
    {"TROWEXPANDDIV", OpEntry::rowexpand_bin, VecClass::div, "vdiv"},
};

}  // namespace

bool issue_case(const CycleCase& k, t::PipeTimer& tm, std::string& reason) {
  const OpEntry* e = nullptr;
  for (const OpEntry& o : kOps) {
    if (k.instruction == o.name) e = &o;
  }
  if (e == nullptr) {
    reason = "no issue stream for instruction " + k.instruction;
    return false;
  }
  const Operand& d = *k.find("dst");
  const Operand* src = k.find("src") != nullptr ? k.find("src") : k.find("src0");
  if (e->kind != OpEntry::expands && src == nullptr) {
    reason = "operands: no src operand";
    return false;
  }
  if (e->kind != OpEntry::load && e->kind != OpEntry::store && d.space != "UB") {
    reason = "operands: dst must be in UB";
    return false;
  }
  tm.set_label(k.instruction);
  const uint32_t esize = dtype_size(d.dtype);
  // vconv: the f32 side of the conversion counts.
  const bool f32 = d.dtype == DType::f32 || (e->kind == OpEntry::cvt && k.src_dtype == DType::f32);
  Stream s{tm, e->cls, e->intrinsic, f32};
  switch (e->kind) {
    case OpEntry::bin: binary(s, d, esize); break;
    case OpEntry::scal: two_level(s, d.rows, d.cols, d.valid_rows, d.valid_cols, kRepeatBytes / esize, kBlockBytes / esize); break;
    case OpEntry::un: unary(s, d, esize); break;
    case OpEntry::expands: unary(s, d, esize); break;
    case OpEntry::cvt: {
      // vconv takes 64 lanes a repeat for a 32-bit side (8 blocks of the wider type).
      const uint32_t wide = std::max(esize, dtype_size(k.src_dtype.value_or(src->dtype)));
      unary(s, d, wide);
      break;
    }
    case OpEntry::rowred:
      row_reduce(s, tm, *src, dtype_size(src->dtype), e->cls);
      break;
    case OpEntry::colmax: col_reduce(s, tm, *src, dtype_size(src->dtype)); break;
    case OpEntry::colsum:
      if (src->valid_rows == 1) {
        tm.vector(VecClass::copy, ceil_div(uint64_t{src->valid_cols} * esize, kBlockBytes), "copy_ubuf_to_ubuf");
      } else if (k.is_binary) {
        col_sum_binary(s, tm, *src, dtype_size(src->dtype));
      } else {
        col_sum_sequential(s, tm, *src, dtype_size(src->dtype));
      }
      break;
    case OpEntry::rowexpand: row_expand(tm, d, esize); break;
    case OpEntry::rowexpand_bin: row_expand_binary(s, tm, d, esize); break;
    case OpEntry::store: {
      if (src->space != "UB" || d.space != "GM") {
        reason = "operands: TSTORE moves a UB src to a GM dst";
        return false;
      }
      // One DMA move: a burst per valid row of the tile, rounded up to whole 32 B blocks.
      const uint64_t row_blocks = ceil_div(uint64_t{src->valid_cols} * dtype_size(src->dtype), kBlockBytes);
      tm.move(t::kPipeMte3, uint64_t{src->valid_rows} * row_blocks, "copy_ubuf_to_gm");
      break;
    }
    case OpEntry::load: {
      if (src->space != "GM") {
        reason = "operands: TLOAD's src must be in GM";
        return false;
      }
      // One DMA move: a burst per row, each rounded up to whole 32 B blocks.
      const uint64_t row_blocks = ceil_div(uint64_t{src->cols} * dtype_size(src->dtype), kBlockBytes);
      tm.move(t::kPipeMte2, uint64_t{src->rows} * row_blocks, "copy_gm_to_ubuf");
      break;
    }
  }
  return true;
}

}  // namespace tilefw::tools::cycles
