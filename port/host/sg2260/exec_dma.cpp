// SG2260 execution, DMA engines (GDMA, SDMA): tensor copy/fill and NC-transpose, matrix
// (one LMEM side), general (1-D), sys; gather/scatter: sg2260/exec_gather.cpp. Semantics:
// sg2260/sim.hpp (execute_command).
#include <cstring>
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

// One row of `count` elements: logged as one strided entry a side (the hazard checker's ranges,
// as one per element) and moved element by element in order, or filled with `cv` (p unused).
void move_row(const Side& dst, uint8_t* d, uint64_t dws, const Side& src, const uint8_t* p, uint64_t sws,
              uint64_t count, uint32_t esize, bool fill, uint32_t cv) {
  note_write_strided(dst, d, esize, dws * esize, count);
  if (fill) {
    for (uint64_t k = 0; k < count; ++k) std::memcpy(d + k * dws * esize, &cv, esize);
    return;
  }
  note_read_strided(src, p, esize, sws * esize, count);
  for (uint64_t k = 0; k < count; ++k) std::memmove(d + k * dws * esize, p + k * sws * esize, esize);
}

// The first element of the row of `count` (> 0) elements from (n, c, h, w), w growing, when the
// row lies inside its memory, else nullptr. Strides and sizes are unsigned fields (32 and 16
// bits), so an element's offset never falls as w grows and stays far below 2^64: a row whose
// first and last elements are inside is inside throughout.
uint8_t* row_inside(const Side& s, uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t count, uint64_t ns,
                    uint64_t cs, uint64_t hs, uint64_t ws, uint32_t esize) {
  uint8_t* first = element(s, n, c, h, w, ns, cs, hs, ws, esize);
  if (first == nullptr || element(s, n, c, h, w + count - 1, ns, cs, hs, ws, esize) == nullptr) return nullptr;
  return first;
}

// NC-transpose (tensor sp_func 1): dst(c, n, h, w) = src(n, c, h, w) over the src sizes; the
// dst size fields are not read (validation checks the same transposed footprint).
Status dma_nc_transpose(const cmd::DmaTensorView& v, const Side& src, const Side& dst, bool fill, uint32_t esize,
                        std::string& msg) {
  const uint64_t sn = v.src_nsize(), sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const uint64_t mask = v.localmem_mask();
  const uint32_t cv = v.constant_value();
  const uint64_t dns = v.dst_nstride(), dcs = v.dst_cstride(), dhs = v.dst_hstride(), dws = v.dst_wstride();
  const uint64_t sns = v.src_nstride(), scs = v.src_cstride(), shs = v.src_hstride(), sws = v.src_wstride();
  for (uint64_t n = 0; n < sn; ++n) {
    if (dst.lmem && ((mask >> ((dst.lane0 + n) % sg::kLanes)) & 1) == 0) continue;
    for (uint64_t c = 0; c < sc; ++c) {
      for (uint64_t h = 0; h < sh && sw > 0; ++h) {
        uint8_t* d = row_inside(dst, c, n, h, 0, sw, dns, dcs, dhs, dws, esize);
        if (d == nullptr) {
          return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor NC-transpose: dst element outside its memory");
        }
        const uint8_t* p = fill ? nullptr : row_inside(src, n, c, h, 0, sw, sns, scs, shs, sws, esize);
        if (!fill && p == nullptr) {
          return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor NC-transpose: src element outside its memory");
        }
        move_row(dst, d, dws, src, p, sws, sw, esize, fill, cv);
      }
    }
  }
  return Status::ok;
}

// broadcast (tensor sp_func 3, tilefw decision): dst(n, c, h, w) = src(n, 0, h, w) for n, h, w
// over the src sizes and c < dst_csize (src_csize must be 1); LMEM dst lanes whose
// localmem_mask bit is 0 are not written; a fill writes constant_value instead.
Status dma_broadcast(const cmd::DmaTensorView& v, const Side& src, const Side& dst, bool fill, uint32_t esize,
                     std::string& msg) {
  if (!fill && v.src_csize() != 1) return fail(msg, Status::cmd_bad_field, "DMA tensor broadcast: src_csize is not 1");
  const uint64_t sn = v.src_nsize(), dc = v.dst_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const uint64_t mask = v.localmem_mask();
  const uint32_t cv = v.constant_value();
  const uint64_t dns = v.dst_nstride(), dcs = v.dst_cstride(), dhs = v.dst_hstride(), dws = v.dst_wstride();
  const uint64_t sns = v.src_nstride(), scs = v.src_cstride(), shs = v.src_hstride(), sws = v.src_wstride();
  for (uint64_t n = 0; n < sn; ++n) {
    for (uint64_t c = 0; c < dc; ++c) {
      if (dst.lmem && ((mask >> ((dst.lane0 + c) % sg::kLanes)) & 1) == 0) continue;
      for (uint64_t h = 0; h < sh && sw > 0; ++h) {
        uint8_t* d = row_inside(dst, n, c, h, 0, sw, dns, dcs, dhs, dws, esize);
        if (d == nullptr) {
          return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor broadcast: dst element outside its memory");
        }
        const uint8_t* p = fill ? nullptr : row_inside(src, n, 0, h, 0, sw, sns, scs, shs, sws, esize);
        if (!fill && p == nullptr) {
          return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor broadcast: src element outside its memory");
        }
        move_row(dst, d, dws, src, p, sws, sw, esize, fill, cv);
      }
    }
  }
  return Status::ok;
}

// A tensor copy whose src and dst shapes are equal: no index maths. A row is logged for the
// hazard checker as one range per side where its w strides are 1 (one copy), else as one strided
// entry per side (the same ranges as one per element: a strided row is what the slowest legal
// DMA streams are made of); its elements then move one by one in order, as the hardware's walk.
// A row outside its memory faults before any of it moves (earlier rows stay written).
Status dma_tensor_same_shape(const cmd::DmaTensorView& v, const Side& src, const Side& dst, uint32_t esize,
                             std::string& msg) {
  const uint64_t dn = v.src_nsize(), dc = v.src_csize(), dh = v.src_hsize(), dw = v.src_wsize();
  const uint64_t mask = v.localmem_mask();
  const uint64_t dns = v.dst_nstride(), dcs = v.dst_cstride(), dhs = v.dst_hstride(), dws = v.dst_wstride();
  const uint64_t sns = v.src_nstride(), scs = v.src_cstride(), shs = v.src_hstride(), sws = v.src_wstride();
  for (uint64_t n = 0; n < dn; ++n) {
    for (uint64_t c = 0; c < dc; ++c) {
      if (dst.lmem && ((mask >> ((dst.lane0 + c) % sg::kLanes)) & 1) == 0) continue;
      for (uint64_t h = 0; h < dh && dw > 0; ++h) {
        uint8_t* d = row_inside(dst, n, c, h, 0, dw, dns, dcs, dhs, dws, esize);
        const uint8_t* p = row_inside(src, n, c, h, 0, dw, sns, scs, shs, sws, esize);
        if (d == nullptr || p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: element outside its memory");
        const uint64_t bytes = dw * esize;
        if (sws == 1 && dws == 1 && (d >= p + bytes || p >= d + bytes)) {
          note_read(src, p, bytes);
          note_write(dst, d, bytes);
          std::memcpy(d, p, bytes);
          continue;
        }
        move_row(dst, d, dws, src, p, sws, dw, esize, false, 0);
      }
    }
  }
  return Status::ok;
}

// A tensor copy (or fill) whose dst shape differs from its src shape: element i of the dst walk
// (n, c, h, w order) takes element i of the src walk. A dst row is taken in pieces that stay in
// one src row, each logged for the hazard checker as one strided entry a side (the same ranges
// as one per element) and moved element by element in order; a piece outside its memory faults
// before any of it moves.
Status dma_tensor_reshaped(const cmd::DmaTensorView& v, const Side& src, const Side& dst, bool fill, uint32_t esize,
                           uint64_t dn, uint64_t dc, uint64_t dh, uint64_t dw, std::string& msg) {
  const uint64_t sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const uint64_t mask = v.localmem_mask();
  const uint32_t cv = v.constant_value();
  const uint64_t dns = v.dst_nstride(), dcs = v.dst_cstride(), dhs = v.dst_hstride(), dws = v.dst_wstride();
  const uint64_t sns = v.src_nstride(), scs = v.src_cstride(), shs = v.src_hstride(), sws = v.src_wstride();
  uint64_t i = 0;  // the dst walk's index of the row's first element
  for (uint64_t n = 0; n < dn; ++n) {
    for (uint64_t c = 0; c < dc; ++c) {
      const bool masked = dst.lmem && ((mask >> ((dst.lane0 + c) % sg::kLanes)) & 1) == 0;
      for (uint64_t h = 0; h < dh; ++h, i += dw) {
        for (uint64_t w = 0; w < dw;) {
          uint64_t len = dw - w;
          const uint64_t j = i + w;  // the src walk's element (not walked by a fill)
          const uint64_t x = fill ? 0 : j % sw, y = fill ? 0 : j / sw % sh;
          const uint64_t z = fill ? 0 : j / sw / sh % sc, q = fill ? 0 : j / sw / sh / sc;
          if (!fill && !masked && sw - x < len) len = sw - x;
          // Bounds first, also on a masked lane (it moves nothing but must lie in its memory).
          uint8_t* d = row_inside(dst, n, c, h, w, len, dns, dcs, dhs, dws, esize);
          if (d == nullptr) {
            return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: dst element outside its memory");
          }
          if (masked) break;
          const uint8_t* p = fill ? nullptr : row_inside(src, q, z, y, x, len, sns, scs, shs, sws, esize);
          if (!fill && p == nullptr) {
            return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: src element outside its memory");
          }
          move_row(dst, d, dws, src, p, sws, len, esize, fill, cv);
          w += len;
        }
      }
    }
  }
  return Status::ok;
}

Status dma_tensor(const Ctx& x, const uint8_t* data, std::string& msg) {
  const cmd::DmaTensorView v(data);
  const uint32_t sp = v.cmd_special_function();
  if (sp > 1 && sp != 3) {
    static const char* const kNames[] = {"", "", "collect", "broadcast", "distribute"};
    return unsupported(msg, "DMA tensor sp_func " + std::to_string(sp) + " (" + (sp < 5 ? kNames[sp] : "?") +
                                "): the spec names it without its semantics");
  }
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == 0) return unsupported(msg, "GDMA tensor with data format " + std::to_string(v.src_data_format()));
  const bool fill = v.fill_constant_en() != 0;
  Side src, dst;
  Status s = Status::ok;
  if (!fill && (s = resolve_dma(x, v.src_start_addr(), src, msg)) != Status::ok) return s;
  if ((s = resolve_dma(x, v.dst_start_addr(), dst, msg)) != Status::ok) return s;
  const uint64_t sn = v.src_nsize(), sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const bool same = v.nchw_copy() != 0;
  const uint64_t dn = same ? sn : v.dst_nsize(), dc = same ? sc : v.dst_csize();
  const uint64_t dh = same ? sh : v.dst_hsize(), dw = same ? sw : v.dst_wsize();
  if (sp == 1) return dma_nc_transpose(v, src, dst, fill, esize, msg);
  if (sp == 3) return dma_broadcast(v, src, dst, fill, esize, msg);
  if (!fill && sn * sc * sh * sw != dn * dc * dh * dw) {
    return fail(msg, Status::cmd_bad_field, "GDMA tensor: src and dst element counts differ");
  }
  if (!fill && sn == dn && sc == dc && sh == dh && sw == dw) return dma_tensor_same_shape(v, src, dst, esize, msg);
  return dma_tensor_reshaped(v, src, dst, fill, esize, dn, dc, dh, dw, msg);
}

Status dma_matrix(const Ctx& x, const uint8_t* data, std::string& msg) {
  const cmd::DmaCommonView v(data);
  if (v.cmd_special_function() != 0) return unsupported(msg, "GDMA matrix sp_func 1 (transpose)");
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == 0) return unsupported(msg, "GDMA matrix with data format " + std::to_string(v.src_data_format()));
  Side src, dst;
  Status s = Status::ok;
  if ((s = resolve_dma(x, v.src_start_addr(), src, msg)) != Status::ok) return s;
  if ((s = resolve_dma(x, v.dst_start_addr(), dst, msg)) != Status::ok) return s;
  if (src.lmem == dst.lmem) return unsupported(msg, "GDMA matrix needs exactly one LMEM side");
  const bool s2l = dst.lmem;
  const Side& g = s2l ? src : dst;
  const Side& l = s2l ? dst : src;
  const uint64_t rows = s2l ? v.src_hsize() : v.dst_hsize();
  const uint64_t cols = s2l ? v.src_wsize() : v.dst_wsize();
  const uint64_t row_stride = s2l ? v.src_hstride() : v.dst_hstride();
  const uint64_t sec = s2l ? v.dst_wsize() : v.src_wsize();
  const uint64_t lns = s2l ? v.dst_nstride() : v.src_nstride();
  const uint64_t lcs = s2l ? v.dst_cstride() : v.src_cstride();
  if (sec == 0) return fail(msg, Status::cmd_bad_field, "GDMA matrix: LMEM-side wsize is 0");
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t j = 0; j < cols; ++j) {
      uint8_t* gp = element(g, 0, 0, r, j, 0, 0, row_stride, 1, esize);
      uint8_t* lp = element(l, r, j / sec, 0, j % sec, lns, lcs, 0, 1, esize);
      if (gp == nullptr || lp == nullptr) {
        return fail(msg, Status::cmd_footprint_out_of_range, "GDMA matrix: element outside its memory");
      }
      note_read(s2l ? g : l, s2l ? gp : lp, esize);
      note_write(s2l ? l : g, s2l ? lp : gp, esize);
      if (s2l) {
        std::memmove(lp, gp, esize);
      } else {
        std::memmove(gp, lp, esize);
      }
    }
  }
  return Status::ok;
}

// general: 1-D copy of src_cstride elements; LMEM is addressed flat (lane-major 16 MiB).
Status dma_general(const Ctx& x, const uint8_t* data, std::string& msg) {
  const cmd::DmaCommonView v(data);
  if (v.cmd_special_function() != 0) return unsupported(msg, "GDMA general sp_func 1 (broadcast)");
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == 0) return unsupported(msg, "GDMA general with data format " + std::to_string(v.src_data_format()));
  const uint64_t bytes = uint64_t{v.src_cstride()} * esize;
  Side sides[2];
  uint8_t* ptr[2] = {nullptr, nullptr};
  const uint64_t addrs[2] = {v.src_start_addr(), v.dst_start_addr()};
  for (int i = 0; i < 2; ++i) {
    if (i == 0 && v.fill_constant_en() != 0) continue;
    const Status s = resolve_dma(x, addrs[i], sides[i], msg);
    if (s != Status::ok) return s;
    const uint64_t off = sides[i].lmem ? sides[i].lane0 * uint64_t{sg::kLaneBytes} + sides[i].start : sides[i].start;
    const uint64_t limit = sides[i].lmem ? sg::kLmemBytesPerCore : sides[i].limit;
    if (off + bytes > limit) return fail(msg, Status::cmd_footprint_out_of_range, "GDMA general: copy runs outside its memory");
    ptr[i] = sides[i].base + off;
  }
  note_write(sides[1], ptr[1], bytes);
  if (v.fill_constant_en() != 0) {
    const uint32_t cv = v.constant_value();
    for (uint64_t i = 0; i < bytes; i += esize) std::memcpy(ptr[1] + i, &cv, esize);
  } else {
    note_read(sides[0], ptr[0], bytes);
    std::memmove(ptr[1], ptr[0], bytes);
  }
  return Status::ok;
}

}  // namespace

Status exec_dma(const Ctx& x, uint32_t engine, const uint8_t* data, std::string& msg) {
  const uint32_t type = data[4] & 0x1F;
  const uint32_t sp = data[4] >> 5;
  const CmdClass c = cmd::dma_class(type, sp);
  switch (c) {
    case CmdClass::dma_tensor: return dma_tensor(x, data, msg);
    case CmdClass::dma_matrix: return dma_matrix(x, data, msg);
    case CmdClass::dma_general: return dma_general(x, data, msg);
    case CmdClass::dma_gather: case CmdClass::dma_scatter: return dma_gather_scatter(x, data, msg);
    case CmdClass::dma_sys:
      if (sp == 0 || sp == 1 || sp == 3 || sp == 4) return Status::ok;
      return unsupported(msg, "DMA sys sp_func " + std::to_string(sp));
    default:
      return unsupported(msg, std::string(engine == kGdma ? "GDMA " : "SDMA ") + cmd::class_name(c) +
                                      " (class not simulated functionally)");
  }
}

}  // namespace tilefw::port::host::sg2260::exec
