// SG2260 execution, DMA gather (cmd_type 7) and scatter (cmd_type 8, inplace / add): tilefw
// decisions (the spec gives the BM1690 layout only). Semantics: sg2260/sim.hpp
// (execute_command); every byte read (index tensor included) or written is logged for the
// hazard checker.
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace {

// One gather/scatter: the three sides and the decoded fields. The row side (gather: src,
// scatter: dst) is the table indexed by idx - start_pos; the other is walked row by row.
struct Gs {
  bool scatter = false;
  bool add = false;
  uint32_t fmt = 0, esize = 0;
  uint64_t c = 0, rows = 0, w = 0;  // walked shape: gather dst (c, h, w), scatter src
  uint64_t table_rows = 0;          // rows of the indexed side (gather src_hsize, scatter dst_hsize)
  uint64_t start_pos = 0;
  uint64_t idx_c = 0, idx_cs = 0;
  uint64_t scs = 0, shs = 0, dcs = 0, dhs = 0;
  uint64_t mask = 0;
  uint32_t constant = 0;
  Side src, dst, idx;
};

const char* gs_name(const Gs& g) { return g.scatter ? (g.add ? "DMA scatter add" : "DMA scatter") : "DMA gather"; }

// Shapes: the walked side and the table agree on c and w; the index tensor covers the walked
// rows with one row per c (or one row for every c when index_csize = 1).
Status gs_decode(const Ctx& x, const cmd::DmaGatherScatterView& v, Gs& g, std::string& msg) {
  const std::string name = gs_name(g);
  g.fmt = v.src_data_format();
  g.esize = dma_esize(g.fmt);
  if (g.esize == 0) return unsupported(msg, name + " with data format " + std::to_string(g.fmt));
  if (g.add && g.fmt != 0 && g.fmt != 1 && g.fmt != 2 && g.fmt != 3 && g.fmt != 4 && g.fmt != 5) {
    return unsupported(msg, name + " with data format " + std::to_string(g.fmt) +
                                " (add is defined for int8/int16/int32/f16/bf16/f32)");
  }
  const uint64_t sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const uint64_t dc = v.dst_csize(), dh = v.dst_hsize(), dw = v.dst_wsize();
  g.c = g.scatter ? sc : dc;
  g.rows = g.scatter ? sh : dh;
  g.w = g.scatter ? sw : dw;
  g.table_rows = g.scatter ? dh : sh;
  if (sc != dc) return fail(msg, Status::cmd_bad_field, name + ": src_csize and dst_csize differ");
  if (sw != dw) return fail(msg, Status::cmd_bad_field, name + ": src_wsize and dst_wsize differ");
  if (v.index_hsize() != g.rows) {
    return fail(msg, Status::cmd_bad_field, name + ": index_hsize differs from the " +
                                                (g.scatter ? "src_hsize" : "dst_hsize"));
  }
  g.idx_c = v.index_csize();
  if (g.idx_c != 1 && g.idx_c != g.c) {
    return fail(msg, Status::cmd_bad_field, name + ": index_csize is neither 1 nor the c size");
  }
  g.start_pos = v.start_pos();
  g.idx_cs = v.index_cstride();
  g.scs = v.src_cstride(); g.shs = v.src_hstride();
  g.dcs = v.dst_cstride(); g.dhs = v.dst_hstride();
  g.mask = v.localmem_mask();
  g.constant = v.constant_value();
  Status s = Status::ok;
  if ((s = resolve_dma(x, v.src_start_addr(), g.src, msg)) != Status::ok) return s;
  if ((s = resolve_dma(x, v.dst_start_addr(), g.dst, msg)) != Status::ok) return s;
  return resolve_dma(x, v.index_start_addr(), g.idx, msg);
}

// Reads the whole index tensor (uint32, h contiguous) before any write: an index tensor the
// command overwrites is seen as it was. idx[c * rows + h] for c < index_csize.
Status gs_indices(const Gs& g, std::vector<uint32_t>& idx, std::string& msg) {
  idx.resize(g.idx_c * g.rows);
  for (uint64_t c = 0; c < g.idx_c; ++c) {
    for (uint64_t h = 0; h < g.rows; ++h) {
      const uint8_t* p = element(g.idx, 0, c, h, 0, 0, g.idx_cs, 1, 1, 4);
      if (p == nullptr) {
        return fail(msg, Status::cmd_footprint_out_of_range, std::string(gs_name(g)) + ": index element outside its memory");
      }
      note_read(g.idx, p, 4);
      std::memcpy(&idx[c * g.rows + h], p, 4);
    }
  }
  return Status::ok;
}

// A whole row (w contiguous) of a side, or nullptr when any of it lies outside its memory.
uint8_t* gs_row(const Side& s, uint64_t c, uint64_t h, uint64_t cs, uint64_t hs, uint64_t w, uint32_t esize) {
  uint8_t* first = element(s, 0, c, h, 0, 0, cs, hs, 1, esize);
  if (first == nullptr || element(s, 0, c, h, w - 1, 0, cs, hs, 1, esize) == nullptr) return nullptr;
  return first;
}

// dst += src element-wise in the data format: integers wrap (two's complement, so the sign
// does not matter); f16/bf16/f32 are added in f32 (RNE) and rounded to the format (RNE).
void add_row(uint8_t* d, const uint8_t* s, uint64_t w, uint32_t fmt, uint32_t esize) {
  for (uint64_t i = 0; i < w; ++i, d += esize, s += esize) {
    if (fmt == 0 || fmt == 3 || fmt == 4) {
      uint32_t a = 0, b = 0;
      std::memcpy(&a, d, esize);
      std::memcpy(&b, s, esize);
      a += b;
      std::memcpy(d, &a, esize);  // low bytes (little-endian)
      continue;
    }
    const uint32_t prec = fmt;  // DMA 1 f16, 2 f32, 5 bf16 = the TIU precision codes
    const float sum = static_cast<float>(read_value(d, prec, true)) + static_cast<float>(read_value(s, prec, true));
    if (fmt == 2) {
      std::memcpy(d, &sum, 4);
      continue;
    }
    const uint32_t fb = std::bit_cast<uint32_t>(sum);
    const uint16_t b = fmt == 1 ? float_bits_to_half_bits(fb) : float_bits_to_bf16_bits(fb);
    std::memcpy(d, &b, 2);
  }
}

// One walked row h of channel c with table row r (or none: r = ~0). Gather: dst[c, h] =
// src[c, r] or the fill; scatter: dst[c, r] = / += src[c, h].
Status gs_row_op(const Gs& g, uint64_t c, uint64_t h, uint64_t r, std::string& msg) {
  const bool in = r != ~uint64_t{0};
  if (g.scatter && !in) return Status::ok;  // skipped
  const uint64_t dh = g.scatter ? r : h, sh = g.scatter ? h : r;
  if (g.dst.lmem && ((g.mask >> ((g.dst.lane0 + c) % sg::kLanes)) & 1) == 0) return Status::ok;
  const uint64_t bytes = g.w * g.esize;
  uint8_t* d = gs_row(g.dst, c, dh, g.dcs, g.dhs, g.w, g.esize);
  if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, std::string(gs_name(g)) + ": dst row outside its memory");
  if (!in) {  // gather fill
    note_write(g.dst, d, bytes);
    for (uint64_t i = 0; i < bytes; i += g.esize) std::memcpy(d + i, &g.constant, g.esize);
    return Status::ok;
  }
  const uint8_t* s = gs_row(g.src, c, sh, g.scs, g.shs, g.w, g.esize);
  if (s == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, std::string(gs_name(g)) + ": src row outside its memory");
  note_read(g.src, s, bytes);
  if (g.add) {
    note_read(g.dst, d, bytes);
    note_write(g.dst, d, bytes);
    add_row(d, s, g.w, g.fmt, g.esize);
    return Status::ok;
  }
  note_write(g.dst, d, bytes);
  std::memmove(d, s, bytes);
  return Status::ok;
}

}  // namespace

Status dma_gather_scatter(const Ctx& x, const uint8_t* data, std::string& msg) {
  const cmd::DmaGatherScatterView v(data);
  Gs g;
  g.scatter = v.cmd_type() == 8;
  g.add = g.scatter && v.cmd_special_function() == 1;
  Status s = gs_decode(x, v, g, msg);
  if (s != Status::ok) return s;
  if (g.c == 0 || g.rows == 0 || g.w == 0) return Status::ok;
  std::vector<uint32_t> idx;
  if ((s = gs_indices(g, idx, msg)) != Status::ok) return s;
  for (uint64_t c = 0; c < g.c; ++c) {
    const uint32_t* row_idx = idx.data() + (g.idx_c == 1 ? 0 : c * g.rows);
    for (uint64_t h = 0; h < g.rows; ++h) {
      const uint64_t i = row_idx[h];
      const uint64_t r = (i >= g.start_pos && i - g.start_pos < g.table_rows) ? i - g.start_pos : ~uint64_t{0};
      if ((s = gs_row_op(g, c, h, r, msg)) != Status::ok) return s;
    }
  }
  return Status::ok;
}

}  // namespace tilefw::port::host::sg2260::exec
