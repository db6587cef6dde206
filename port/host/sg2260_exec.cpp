// Functional execution and timing-model-v1 costs of SG2260 commands on the host machine.
// Layout rules are those of vectors/sg2260-mm0/README.md (they reproduce the real reference
// output): strides in elements, LMEM c spread over lanes from the start lane, alignEU and
// "matrix2" TIU operands. Anything the spec does not pin down returns sim_unsupported_op
// with a message naming the class and eu (the list: sg2260_sim.hpp, execute_command).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260_sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;
namespace tv = chip::sg2260::timing_v1;
using cmd::CmdClass;

namespace {

// ---- element formats ---------------------------------------------------------------------
// DMA src_data_format: 0 i8, 1 f16, 2 f32, 3 i16, 4 i32, 5 bf16, 6 i4, 7 fp8, 8 fp20, 9 tf32.
uint32_t dma_esize(uint32_t fmt) {
  switch (fmt) {
    case 0: case 7: return 1;
    case 1: case 3: case 5: return 2;
    case 2: case 4: case 9: return 4;
    default: return 0;  // int4 / fp20: not byte-addressable elements
  }
}
// Bytes for `elements` of a DMA format (timing): int4 half a byte, fp20 2.5 bytes.
uint64_t dma_bytes(uint64_t elements, uint32_t fmt) {
  if (fmt == 6) return (elements + 1) / 2;
  if (fmt == 8) return (elements * 5 + 1) / 2;
  return elements * dma_esize(fmt);
}
// TIU precision: 0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16, 6 INT4, 7 FP8.
uint32_t tiu_esize(uint32_t prec) {
  switch (prec) {
    case 0: return 1;
    case 1: case 3: case 5: return 2;
    case 2: case 4: return 4;
    default: return 0;
  }
}
bool prec_is_float(uint32_t prec) { return prec == 1 || prec == 2 || prec == 5; }
const char* prec_name(uint32_t prec) {
  static const char* const kNames[] = {"INT8", "FP16", "FP32", "INT16", "INT32", "BF16", "INT4", "FP8"};
  return prec < 8 ? kNames[prec] : "?";
}

// SFU taylor: the longest coefficient table (a tilefw decision: longer tables are faults).
constexpr uint64_t kMaxTaylorTerms = 32;

bool is_ddr_tag(uint32_t tag) { return tag <= sg::kMaxDdrTag; }

Status unsupported(std::string& message, const std::string& what) {
  message = what;
  return Status::sim_unsupported_op;
}
Status fail(std::string& message, Status s, const std::string& what) {
  message = what;
  return s;
}

// ---- memory sides ------------------------------------------------------------------------
// A DMA operand: LMEM of the issuing core (lane rule) or a linear space (SMEM, L2, DDR).
struct Side {
  bool lmem = false;
  bool ddr = false;
  uint8_t* base = nullptr;  // LMEM: the core's 16 MiB lane-major block; linear: the region
  uint64_t limit = 0;       // linear: region bytes
  uint64_t start = 0;       // linear: byte offset; LMEM: offset inside the lane
  uint32_t lane0 = 0;
};

Status resolve_local(Machine& m, uint32_t core, uint64_t local, Side& s, std::string& msg) {
  // Checked first: bits above 26 would otherwise alias LMEM lane 0 (validation rejects them).
  if ((local >> 27) != 0) {
    return fail(msg, Status::cmd_lmem_out_of_range, "local address bits above 26 set: no memory there");
  }
  if (sg::local_is_smem(local)) {
    const chip::MemoryRegion r = sg::smem_region(core);
    Result<uint8_t*> p = m.translate(r.device_base, r.size);
    if (!p.ok()) return fail(msg, p.status(), "SMEM not mapped");
    s.base = p.value();
    s.limit = r.size;
    s.start = local & ((1u << sg::kSmemSelectBit) - 1);
    if (s.start >= r.size) return fail(msg, Status::cmd_lmem_out_of_range, "SMEM offset beyond 64 KiB");
    return Status::ok;
  }
  if ((local >> 24) & 3) return fail(msg, Status::cmd_lmem_out_of_range, "local address bits 25:24 set: lane beyond 63");
  const chip::MemoryRegion r = sg::lmem_region(core);
  Result<uint8_t*> p = m.translate(r.device_base, r.size);
  if (!p.ok()) return fail(msg, p.status(), "LMEM not mapped");
  s.lmem = true;
  s.base = p.value();
  s.lane0 = sg::local_lane(local);
  s.start = sg::local_offset(local);
  return Status::ok;
}

Status resolve_dma(Machine& m, uint32_t core, uint64_t addr, Side& s, std::string& msg) {
  const uint32_t tag = sg::dma_tag(addr);
  if (tag == sg::kTagLmem) return resolve_local(m, core, sg::dma_offset(addr), s, msg);
  if (tag == sg::kTagL2) {
    const uint64_t off = sg::dma_offset(addr);
    if (off < sg::kL2Base || off - sg::kL2Base >= sg::kL2Bytes) {
      return fail(msg, Status::cmd_bad_address_tag, "L2 address outside L2");
    }
    Result<uint8_t*> p = m.translate(sg::kL2Base, sg::kL2Bytes);
    if (!p.ok()) return fail(msg, p.status(), "L2 not mapped");
    s.base = p.value();
    s.limit = sg::kL2Bytes;
    s.start = off - sg::kL2Base;
    return Status::ok;
  }
  const uint64_t dev = sg::kDdrWindowBase + addr;
  const chip::MemoryRegion* r = m.region_at(dev);
  if (r == nullptr) return fail(msg, Status::unmapped_address, "DDR address in no region of the memory map");
  Result<uint8_t*> p = m.translate(r->device_base, r->size);
  if (!p.ok()) return fail(msg, p.status(), "DDR region not mapped");
  s.ddr = true;
  s.base = p.value();
  s.limit = r->size;
  s.start = dev - r->device_base;
  return Status::ok;
}

// Pointer to element (n, c, h, w) of a 4-D operand (strides in elements), or nullptr.
uint8_t* element(const Side& s, uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns,
                 uint64_t cs, uint64_t hs, uint64_t ws, uint32_t esize) {
  if (s.lmem) {
    const uint64_t lane_abs = s.lane0 + c;
    const uint64_t off = s.start + (n * ns + (lane_abs / sg::kLanes) * cs + h * hs + w * ws) * esize;
    if (off + esize > sg::kLaneBytes) return nullptr;
    return s.base + (lane_abs % sg::kLanes) * sg::kLaneBytes + off;
  }
  const uint64_t off = s.start + (n * ns + c * cs + h * hs + w * ws) * esize;
  if (off + esize > s.limit) return nullptr;
  return s.base + off;
}

// ---- DMA ---------------------------------------------------------------------------------
// NC-transpose (tensor sp_func 1): dst(c, n, h, w) = src(n, c, h, w) over the src sizes; the
// dst size fields are not read (validation checks the same transposed footprint).
Status dma_nc_transpose(const cmd::DmaTensorView& v, const Side& src, const Side& dst, bool fill, uint32_t esize,
                        std::string& msg) {
  const uint64_t sn = v.src_nsize(), sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const uint64_t mask = v.localmem_mask();
  const uint32_t cv = v.constant_value();
  for (uint64_t n = 0; n < sn; ++n) {
    if (dst.lmem && ((mask >> ((dst.lane0 + n) % sg::kLanes)) & 1) == 0) continue;
    for (uint64_t c = 0; c < sc; ++c) {
      for (uint64_t h = 0; h < sh; ++h) {
        for (uint64_t w = 0; w < sw; ++w) {
          uint8_t* d = element(dst, c, n, h, w, v.dst_nstride(), v.dst_cstride(), v.dst_hstride(), v.dst_wstride(), esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor NC-transpose: dst element outside its memory");
          if (fill) {
            std::memcpy(d, &cv, esize);
            continue;
          }
          const uint8_t* p = element(src, n, c, h, w, v.src_nstride(), v.src_cstride(), v.src_hstride(), v.src_wstride(), esize);
          if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, "DMA tensor NC-transpose: src element outside its memory");
          std::memmove(d, p, esize);
        }
      }
    }
  }
  return Status::ok;
}

Status dma_tensor(Machine& m, uint32_t core, const uint8_t* data, std::string& msg) {
  const cmd::DmaTensorView v(data);
  const uint32_t sp = v.cmd_special_function();
  if (sp > 1) {
    static const char* const kNames[] = {"", "", "collect", "broadcast", "distribute"};
    return unsupported(msg, "DMA tensor sp_func " + std::to_string(sp) + " (" + (sp < 5 ? kNames[sp] : "?") +
                                "): the spec names it without its semantics");
  }
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == 0) return unsupported(msg, "GDMA tensor with data format " + std::to_string(v.src_data_format()));
  const bool fill = v.fill_constant_en() != 0;
  Side src, dst;
  Status s = Status::ok;
  if (!fill && (s = resolve_dma(m, core, v.src_start_addr(), src, msg)) != Status::ok) return s;
  if ((s = resolve_dma(m, core, v.dst_start_addr(), dst, msg)) != Status::ok) return s;
  const uint64_t sn = v.src_nsize(), sc = v.src_csize(), sh = v.src_hsize(), sw = v.src_wsize();
  const bool same = v.nchw_copy() != 0;
  const uint64_t dn = same ? sn : v.dst_nsize(), dc = same ? sc : v.dst_csize();
  const uint64_t dh = same ? sh : v.dst_hsize(), dw = same ? sw : v.dst_wsize();
  if (sp == 1) return dma_nc_transpose(v, src, dst, fill, esize, msg);
  if (!fill && sn * sc * sh * sw != dn * dc * dh * dw) {
    return fail(msg, Status::cmd_bad_field, "GDMA tensor: src and dst element counts differ");
  }
  const uint64_t mask = v.localmem_mask();
  const uint32_t cv = v.constant_value();
  // Fields are decoded once: the loops below run per element.
  const uint64_t dns = v.dst_nstride(), dcs = v.dst_cstride(), dhs = v.dst_hstride(), dws = v.dst_wstride();
  const uint64_t sns = v.src_nstride(), scs = v.src_cstride(), shs = v.src_hstride(), sws = v.src_wstride();
  if (!fill && sn == dn && sc == dc && sh == dh && sw == dw) {  // same shape: no index maths
    for (uint64_t n = 0; n < dn; ++n) {
      for (uint64_t c = 0; c < dc; ++c) {
        if (dst.lmem && ((mask >> ((dst.lane0 + c) % sg::kLanes)) & 1) == 0) continue;
        for (uint64_t h = 0; h < dh; ++h) {
          for (uint64_t w = 0; w < dw; ++w) {
            uint8_t* d = element(dst, n, c, h, w, dns, dcs, dhs, dws, esize);
            const uint8_t* p = element(src, n, c, h, w, sns, scs, shs, sws, esize);
            if (d == nullptr || p == nullptr) {
              return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: element outside its memory");
            }
            std::memmove(d, p, esize);
          }
        }
      }
    }
    return Status::ok;
  }
  const uint64_t total = dn * dc * dh * dw;
  for (uint64_t i = 0; i < total; ++i) {
    uint64_t r = i;
    const uint64_t w = r % dw; r /= dw;
    const uint64_t h = r % dh; r /= dh;
    const uint64_t c = r % dc; r /= dc;
    const uint64_t n = r;
    uint8_t* d = element(dst, n, c, h, w, dns, dcs, dhs, dws, esize);
    if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: dst element outside its memory");
    if (dst.lmem && ((mask >> ((dst.lane0 + c) % sg::kLanes)) & 1) == 0) continue;
    if (fill) {
      std::memcpy(d, &cv, esize);
      continue;
    }
    uint64_t q = i;
    const uint64_t x = q % sw; q /= sw;
    const uint64_t y = q % sh; q /= sh;
    const uint64_t z = q % sc; q /= sc;
    const uint8_t* p = element(src, q, z, y, x, sns, scs, shs, sws, esize);
    if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, "GDMA tensor: src element outside its memory");
    std::memmove(d, p, esize);
  }
  return Status::ok;
}

Status dma_matrix(Machine& m, uint32_t core, const uint8_t* data, std::string& msg) {
  const cmd::DmaCommonView v(data);
  if (v.cmd_special_function() != 0) return unsupported(msg, "GDMA matrix sp_func 1 (transpose)");
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == 0) return unsupported(msg, "GDMA matrix with data format " + std::to_string(v.src_data_format()));
  Side src, dst;
  Status s = Status::ok;
  if ((s = resolve_dma(m, core, v.src_start_addr(), src, msg)) != Status::ok) return s;
  if ((s = resolve_dma(m, core, v.dst_start_addr(), dst, msg)) != Status::ok) return s;
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
Status dma_general(Machine& m, uint32_t core, const uint8_t* data, std::string& msg) {
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
    const Status s = resolve_dma(m, core, addrs[i], sides[i], msg);
    if (s != Status::ok) return s;
    const uint64_t off = sides[i].lmem ? sides[i].lane0 * uint64_t{sg::kLaneBytes} + sides[i].start : sides[i].start;
    const uint64_t limit = sides[i].lmem ? sg::kLmemBytesPerCore : sides[i].limit;
    if (off + bytes > limit) return fail(msg, Status::cmd_footprint_out_of_range, "GDMA general: copy runs outside its memory");
    ptr[i] = sides[i].base + off;
  }
  if (v.fill_constant_en() != 0) {
    const uint32_t cv = v.constant_value();
    for (uint64_t i = 0; i < bytes; i += esize) std::memcpy(ptr[1] + i, &cv, esize);
  } else {
    std::memmove(ptr[1], ptr[0], bytes);
  }
  return Status::ok;
}

// ---- TIU values --------------------------------------------------------------------------
double read_value(const uint8_t* p, uint32_t prec, bool sign) {
  switch (prec) {
    case 0: return sign ? static_cast<double>(static_cast<int8_t>(*p)) : static_cast<double>(*p);
    case 1: { uint16_t b; std::memcpy(&b, p, 2); return std::bit_cast<float>(half_bits_to_float_bits(b)); }
    case 2: { float f; std::memcpy(&f, p, 4); return f; }
    case 3: { uint16_t b; std::memcpy(&b, p, 2); return sign ? static_cast<double>(static_cast<int16_t>(b)) : b; }
    case 4: { uint32_t b; std::memcpy(&b, p, 4); return sign ? static_cast<double>(static_cast<int32_t>(b)) : b; }
    case 5: { uint16_t b; std::memcpy(&b, p, 2); return std::bit_cast<float>(bf16_bits_to_float_bits(b)); }
  }
  return 0;
}
double const_value(uint32_t bits, uint32_t prec, bool sign) {
  uint8_t b[4];
  std::memcpy(b, &bits, 4);
  return read_value(b, prec, sign);
}

// double -> float rounded to odd: exact when it fits, else the truncation with the last bit
// set, so a second rounding to a 16-bit format is correctly rounded (float has > 2 more bits).
uint32_t to_float_bits_odd(double d) {
  float f = static_cast<float>(d);
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return bits;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) bits -= 1;  // toward zero
  return bits | 1u;
}

void write_value(uint8_t* p, uint32_t prec, double v, RoundMode mode) {
  switch (prec) {
    case 1: { const uint16_t b = float_bits_to_half_bits(to_float_bits_odd(v), mode); std::memcpy(p, &b, 2); return; }
    case 5: { const uint16_t b = float_bits_to_bf16_bits(to_float_bits_odd(v), mode); std::memcpy(p, &b, 2); return; }
    case 2: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    default: break;
  }
  // integers: round by mode, saturate to the range (sign by the format's use: signed types
  // are the common case for the documented ops)
  double r = mode == RoundMode::nearest_even ? std::nearbyint(v) : std::round(v);
  if (std::isnan(r)) r = 0;
  const uint32_t size = tiu_esize(prec);
  const double lo = -std::ldexp(1.0, static_cast<int>(size * 8 - 1));
  const double hi = std::ldexp(1.0, static_cast<int>(size * 8 - 1)) - 1;
  const int64_t x = static_cast<int64_t>(std::clamp(r, lo, hi));
  std::memcpy(p, &x, size);  // little-endian low bytes
}

// A TIU tensor operand of res0's shape (stride mode 0 alignEU or 3 explicit).
struct TiuOperand {
  Side side;
  uint32_t prec = 0;
  uint32_t esize = 0;
  bool sign = false;
  bool is_const = false;
  uint32_t const_bits = 0;
  uint64_t ns = 0, cs = 0, hs = 0, ws = 0;
};

Status tiu_operand(Machine& m, uint32_t core, uint64_t addr, uint32_t prec, bool sign, bool is_const,
                   uint32_t mode, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                   uint64_t hs, uint64_t ws, const char* cls, const char* name, TiuOperand& o,
                   std::string& msg) {
  o.prec = prec;
  o.esize = tiu_esize(prec);
  o.sign = sign;
  o.is_const = is_const;
  if (o.esize == 0) return unsupported(msg, std::string(cls) + ": " + name + " precision " + prec_name(prec));
  if (is_const) {
    o.const_bits = static_cast<uint32_t>(addr);
    return Status::ok;
  }
  const Status s = resolve_local(m, core, addr, o.side, msg);
  if (s != Status::ok) return s;
  if (!o.side.lmem) return unsupported(msg, std::string(cls) + ": " + name + " in SMEM");
  if (mode == 0) {
    const uint64_t eu = 64 / o.esize;
    o.cs = (h * w + eu - 1) / eu * eu;
    o.hs = w;
    o.ws = 1;
    o.ns = (o.side.lane0 + c + sg::kLanes - 1) / sg::kLanes * o.cs;
  } else if (mode == 3) {
    o.ns = ns; o.cs = cs; o.hs = hs; o.ws = ws;
  } else {
    return unsupported(msg, std::string(cls) + ": " + name + " stride mode " + std::to_string(mode));
  }
  return Status::ok;
}

// AR eu values the spec names without giving their semantics (sg2260-commands 1.2 lists names
// only); the simulator refuses them rather than guess. nullptr: simulated.
const char* ar_unsupported_reason(uint32_t eu) {
  switch (eu) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 7: case 8: case 9: case 12: case 14:
    case 15: case 16: case 19: case 20: case 26: case 27: return nullptr;
    case 6: return "logic_shift: the spec gives neither the shift direction nor the operand holding the amount";
    case 21: return "arith_shift: the spec gives neither the shift direction nor the operand holding the amount";
    case 22: return "rotate_shift: the spec gives neither the rotate direction nor the operand holding the amount";
    case 10: return "sel_gt: the spec does not say which operands are compared and which selected";
    case 11: return "sel_eq: the spec does not say which operands are compared and which selected";
    case 13: return "sel_lt: the spec does not say which operands are compared and which selected";
    case 18: return "mac: the spec does not say which operand accumulates";
    case 23: return "mulDHR: the spec does not define its rounding and shift";
    case 28: return "copy_mb: the spec does not define it";
    default: return "not an AR operation";
  }
}
double int_min(uint32_t esize, bool sign) { return sign ? -std::ldexp(1.0, static_cast<int>(esize * 8 - 1)) : 0.0; }
double int_max(uint32_t esize, bool sign) {
  return sign ? std::ldexp(1.0, static_cast<int>(esize * 8 - 1)) - 1 : std::ldexp(1.0, static_cast<int>(esize * 8)) - 1;
}

struct ArParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;
  uint32_t opd_num;
  uint32_t round;
  uint64_t addr[3];  // res0, opd0, opd1
  uint32_t prec[3];
  bool sign[3];
  bool is_const[3];
  uint32_t mode[3];
  uint64_t str[3][4];
};

Status run_ar(Machine& m, uint32_t core, const ArParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  const bool unary = a.eu == 1 || a.eu == 14 || a.eu == 19 || a.eu == 26;
  const char* why = ar_unsupported_reason(a.eu);
  if (why != nullptr) return unsupported(msg, cls + ": " + why);
  const bool saturating = a.eu == 15 || a.eu == 16 || a.eu == 20;
  if (saturating && prec_is_float(a.prec[0])) {
    return unsupported(msg, cls + ": saturation is defined here for integer results only");
  }
  if (a.round > 1) return unsupported(msg, cls + ": round mode " + std::to_string(a.round));
  const RoundMode mode = a.round == 1 ? RoundMode::half_away_from_zero : RoundMode::nearest_even;
  static const char* const kNames[] = {"res0", "opd0", "opd1"};
  TiuOperand o[3];
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && unary) break;
    const Status s = tiu_operand(m, core, a.addr[i], a.prec[i], a.sign[i], i > 0 && a.is_const[i], a.mode[i], a.c,
                                 a.h, a.w, a.str[i][0], a.str[i][1], a.str[i][2], a.str[i][3], a.cls,
                                 kNames[i], o[i], msg);
    if (s != Status::ok) return s;
  }
  const bool bitwise = a.eu == 1 || a.eu == 7 || a.eu == 8 || a.eu == 9;
  if (bitwise && (prec_is_float(a.prec[0]) || prec_is_float(a.prec[1]))) {
    return unsupported(msg, cls + " on floating-point operands");
  }
  const bool is_float = prec_is_float(a.prec[0]);
  for (uint64_t n = 0; n < a.n; ++n) {
    for (uint64_t c = 0; c < a.c; ++c) {
      for (uint64_t h = 0; h < a.h; ++h) {
        for (uint64_t w = 0; w < a.w; ++w) {
          double x[3] = {0, 0, 0};
          for (int i = 1; i < (unary ? 2 : 3); ++i) {
            const TiuOperand& op = o[i];
            if (op.is_const) {
              x[i] = const_value(op.const_bits, op.prec, op.sign);
              continue;
            }
            const uint8_t* p = element(op.side, n, c, h, w, op.ns, op.cs, op.hs, op.ws, op.esize);
            if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": " + kNames[i] + " outside LMEM");
            // cast: exact bit conversions between float formats (HAFZ or RNE to 16 bits)
            if (a.eu == 14 && prec_is_float(op.prec) && prec_is_float(a.prec[0])) {
              uint8_t* d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, o[0].esize);
              if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
              const float f = static_cast<float>(read_value(p, op.prec, op.sign));
              const uint32_t fb = std::bit_cast<uint32_t>(f);
              if (a.prec[0] == 2) {
                std::memcpy(d, &f, 4);
              } else if (a.prec[0] == 1) {
                const uint16_t b = float_bits_to_half_bits(fb, mode);
                std::memcpy(d, &b, 2);
              } else {
                const uint16_t b = float_bits_to_bf16_bits(fb, mode);
                std::memcpy(d, &b, 2);
              }
              goto next_element;
            }
            x[i] = read_value(p, op.prec, op.sign);
          }
          {
            double r = 0;
            const int64_t ia = static_cast<int64_t>(x[1]), ib = static_cast<int64_t>(x[2]);
            switch (a.eu) {
              case 0: r = x[1] * x[2]; break;
              case 1: r = static_cast<double>(~ia); break;
              case 2: r = x[1] + x[2]; break;
              case 3: r = x[1] - x[2]; break;
              case 4: r = std::max(x[1], x[2]); break;
              case 5: r = std::min(x[1], x[2]); break;
              case 7: r = static_cast<double>(ia & ib); break;
              case 8: r = static_cast<double>(ia | ib); break;
              case 9: r = static_cast<double>(ia ^ ib); break;
              case 12:
                if (!is_float) return unsupported(msg, cls + " (integer div)");
                r = x[1] / x[2];
                break;
              case 15: r = x[1] + x[2]; break;
              case 16: r = x[1] - x[2]; break;
              case 20: r = x[1] * x[2]; break;
              case 14: case 19: r = x[1]; break;
              case 26: r = std::fabs(x[1]); break;
              case 27: r = std::fabs(x[1] - x[2]); break;
            }
            uint8_t* d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, o[0].esize);
            if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
            if (!prec_is_float(a.prec[0]) && a.eu != 14) {
              // integer results wrap to the result width; add/sub/mul_satu clamp to its range
              // (signed when res0 is signed). Exact: |r| < 2^53 except for int32 products,
              // whose rounding in double cannot move them across the clamp bounds.
              if (saturating) r = std::clamp(r, int_min(o[0].esize, a.sign[0]), int_max(o[0].esize, a.sign[0]));
              const int64_t iv = static_cast<int64_t>(r);
              std::memcpy(d, &iv, o[0].esize);
            } else {
              write_value(d, a.prec[0], r, a.eu == 14 ? mode : RoundMode::nearest_even);
            }
          }
        next_element:;
        }
      }
    }
  }
  return Status::ok;
}

// R x C "matrix2" operand element: row r on lane (L0 + r) % 64, columns contiguous, alignEU.
uint8_t* matrix2(const Side& s, uint64_t r, uint64_t col, uint64_t cols, uint32_t esize) {
  const uint64_t eu = 64 / esize;
  const uint64_t cs = (cols + eu - 1) / eu * eu;
  return element(s, 0, r, 0, col, 0, cs, 0, 1, esize);
}

struct Mm2Params {
  const char* cls;
  uint32_t eu;
  uint64_t M, N, K;
  uint64_t addr[4];  // res0, opd0, opd1, opd2
  uint32_t prec[4];
  bool sign[4];
  bool is_const[4];
  bool res_add, relu, rq;
};

Status run_mm2(Machine& m, uint32_t core, const Mm2Params& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  if (a.rq) return unsupported(msg, cls + " with opt_rq (requantisation)");
  if (!a.is_const[3]) return unsupported(msg, cls + " with a bias tensor (opt_opd2_const = 0)");
  if (a.is_const[1] || a.is_const[2]) return unsupported(msg, cls + " with a constant matrix operand");
  for (int i = 0; i < 3; ++i) {
    if (!prec_is_float(a.prec[i])) return unsupported(msg, cls + " on " + prec_name(a.prec[i]) + " operands");
  }
  Side s[3];
  for (int i = 0; i < 3; ++i) {
    const Status st = resolve_local(m, core, a.addr[i], s[i], msg);
    if (st != Status::ok) return st;
    if (!s[i].lmem) return unsupported(msg, cls + ": operand in SMEM");
  }
  const uint32_t es[3] = {tiu_esize(a.prec[0]), tiu_esize(a.prec[1]), tiu_esize(a.prec[2])};
  const double bias = const_value(static_cast<uint32_t>(a.addr[3]), a.prec[3], a.sign[3]);
  const bool lt = a.eu == 6;   // tt: left stored K x M
  const bool rt = a.eu != 4;   // nt, tt: right stored N x K
  // Operands are read once into M x K and K x N double matrices (products of 16/32-bit
  // floats are exact in double), then multiplied.
  std::vector<double> L(a.M * a.K), R(a.K * a.N);
  for (uint64_t i = 0; i < a.M; ++i) {
    for (uint64_t k = 0; k < a.K; ++k) {
      const uint8_t* l = lt ? matrix2(s[1], k, i, a.M, es[1]) : matrix2(s[1], i, k, a.K, es[1]);
      if (l == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
      L[i * a.K + k] = read_value(l, a.prec[1], a.sign[1]);
    }
  }
  for (uint64_t k = 0; k < a.K; ++k) {
    for (uint64_t j = 0; j < a.N; ++j) {
      const uint8_t* r = rt ? matrix2(s[2], j, k, a.K, es[2]) : matrix2(s[2], k, j, a.N, es[2]);
      if (r == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd1 outside LMEM");
      R[k * a.N + j] = read_value(r, a.prec[2], a.sign[2]);
    }
  }
  for (uint64_t i = 0; i < a.M; ++i) {
    for (uint64_t j = 0; j < a.N; ++j) {
      double acc = 0;
      for (uint64_t k = 0; k < a.K; ++k) acc += L[i * a.K + k] * R[k * a.N + j];
      uint8_t* d = matrix2(s[0], i, j, a.N, es[0]);
      if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
      acc += bias;
      if (a.res_add) acc += read_value(d, a.prec[0], a.sign[0]);
      if (a.relu && acc < 0) acc = 0;
      write_value(d, a.prec[0], acc, RoundMode::nearest_even);
    }
  }
  return Status::ok;
}

// Two-operand element-wise classes (CW&BC, SFU): res0 and opd0, each with its own shape,
// precision and layout (short forms: alignEU; long forms: their stride-mode fields).
struct UnaryParams {
  const char* cls;
  uint32_t eu;
  uint64_t shape[2][4];  // res0, opd0: n, c, h, w
  uint64_t addr[2];
  uint32_t prec[2];
  uint32_t mode[2];
  uint64_t str[2][4];
  uint64_t table_addr = 0;  // SFU taylor: opd1_addr (coefficient table)
  uint64_t table_len = 0;   // SFU taylor: opd1_n
};

Status unary_operands(Machine& m, uint32_t core, const UnaryParams& a, TiuOperand (&o)[2], std::string& msg) {
  static const char* const kNames[] = {"res0", "opd0"};
  for (int i = 0; i < 2; ++i) {
    const Status s = tiu_operand(m, core, a.addr[i], a.prec[i], false, false, a.mode[i], a.shape[i][1],
                                 a.shape[i][2], a.shape[i][3], a.str[i][0], a.str[i][1], a.str[i][2],
                                 a.str[i][3], a.cls, kNames[i], o[i], msg);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

// CW&BC: cw_ts (eu 0) res0(n, c, h, w) = opd0(n, w, h, c); lane_bc (eu 3) res0(n, c, h, w) =
// opd0(n, 0, h, w). A data move: no conversion, so both precisions must agree. The source is
// read completely before the first write (an overlapping result cannot feed itself).
Status run_cw(Machine& m, uint32_t core, const UnaryParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  if (a.eu != 0 && a.eu != 3) {
    static const char* const kNames[] = {"cw_ts", "wc_ts", "lane_copy", "lane_bc", "static_bc", "static_distribute"};
    return unsupported(msg, cls + " (" + (a.eu < 6 ? kNames[a.eu] : "?") +
                                "): the spec names the operation without its semantics");
  }
  const uint64_t* r = a.shape[0];
  const uint64_t* s0 = a.shape[1];
  const bool shaped = s0[0] == r[0] && s0[2] == r[2] &&
                      (a.eu == 0 ? (s0[1] == r[3] && s0[3] == r[1]) : (s0[1] == 1 && s0[3] == r[3]));
  if (!shaped) return fail(msg, Status::cmd_bad_field, cls + ": opd0 is not shaped for the operation");
  if (tiu_esize(a.prec[0]) != tiu_esize(a.prec[1])) {
    return unsupported(msg, cls + ": result and source precisions differ (no conversion defined)");
  }
  TiuOperand o[2];
  const Status st = unary_operands(m, core, a, o, msg);
  if (st != Status::ok) return st;
  const uint32_t es = o[0].esize;
  std::vector<uint8_t> values(r[0] * r[1] * r[2] * r[3] * es);
  size_t k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    k = 0;
    for (uint64_t n = 0; n < r[0]; ++n) {
      for (uint64_t c = 0; c < r[1]; ++c) {
        for (uint64_t h = 0; h < r[2]; ++h) {
          for (uint64_t w = 0; w < r[3]; ++w, k += es) {
            if (pass == 0) {
              const uint8_t* p = a.eu == 0 ? element(o[1].side, n, w, h, c, o[1].ns, o[1].cs, o[1].hs, o[1].ws, es)
                                           : element(o[1].side, n, 0, h, w, o[1].ns, o[1].cs, o[1].hs, o[1].ws, es);
              if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
              std::memcpy(values.data() + k, p, es);
            } else {
              uint8_t* d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, es);
              if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
              std::memcpy(d, values.data() + k, es);
            }
          }
        }
      }
    }
  }
  return Status::ok;
}

// SFU rsqrt (eu 17): res0 = 1 / sqrt(x), computed in double and rounded to nearest even (the
// hardware's approximation error is not public: this is the correctly rounded function); NaN
// results are the positive quiet NaN of the format.
// SFU taylor (eu 13, a tilefw decision: the spec gives no coefficient order or evaluation
// order): res0 = sum_{j<L} coef[j] * x^j, coef[j] the L values of opd0's precision at
// local_offset(opd1_addr) of the lane holding x (each lane reads its own copy, as a 64-lane
// SIMD unit reads a table without crossing lanes), evaluated by Horner from coef[L-1] down in
// double and rounded once to res0's precision (nearest even).
void write_sfu_result(uint8_t* d, uint32_t prec, double y) {
  if (std::isnan(y)) {
    const uint32_t f32 = 0x7FC00000u;
    const uint16_t f16 = 0x7E00u, b16 = 0x7FC0u;
    if (prec == 2) std::memcpy(d, &f32, 4);
    else std::memcpy(d, prec == 1 ? &f16 : &b16, 2);
  } else {
    write_value(d, prec, y, RoundMode::nearest_even);
  }
}

// The taylor table: checks L and resolves opd1_addr to its in-lane offset (lane bits ignored).
Status taylor_table(Machine& m, uint32_t core, const UnaryParams& a, const std::string& cls, Side& t,
                    std::string& msg) {
  if (a.table_len == 0 || a.table_len > kMaxTaylorTerms) {
    return fail(msg, Status::cmd_bad_field, cls + " (taylor): opd1_n (table length) " + std::to_string(a.table_len) +
                                                " is not in 1.." + std::to_string(kMaxTaylorTerms));
  }
  const Status s = resolve_local(m, core, a.table_addr, t, msg);
  if (s != Status::ok) return s;
  if (!t.lmem) return unsupported(msg, cls + " (taylor): coefficient table in SMEM (it is read per lane)");
  if (t.start + a.table_len * tiu_esize(a.prec[1]) > sg::kLaneBytes) {
    return fail(msg, Status::cmd_footprint_out_of_range, cls + " (taylor): opd1 table runs past the end of the lane");
  }
  return Status::ok;
}

Status run_sfu(Machine& m, uint32_t core, const UnaryParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  const bool taylor = a.eu == 13;
  if (a.eu != 17 && !taylor) {
    const char* name = a.eu == 12 ? "taylor_4x" : a.eu == 15 ? "normalize" : "?";
    return unsupported(msg, cls + " (" + name + "): the spec gives no coefficient order, evaluation order or definition");
  }
  if (!prec_is_float(a.prec[0]) || !prec_is_float(a.prec[1])) {
    return unsupported(msg, cls + (taylor ? " (taylor)" : " (rsqrt)") + " on integer operands");
  }
  Side table;
  if (taylor) {
    const Status st = taylor_table(m, core, a, cls, table, msg);
    if (st != Status::ok) return st;
  }
  TiuOperand o[2];
  const Status st = unary_operands(m, core, a, o, msg);
  if (st != Status::ok) return st;
  const uint64_t* r = a.shape[0];
  const uint32_t tes = o[1].esize;
  for (uint64_t n = 0; n < r[0]; ++n) {
    for (uint64_t c = 0; c < r[1]; ++c) {
      // The lane of opd0's element (n, c, ...): its copy of the table.
      const uint8_t* coef = table.base + ((o[1].side.lane0 + c) % sg::kLanes) * sg::kLaneBytes + table.start;
      for (uint64_t h = 0; h < r[2]; ++h) {
        for (uint64_t w = 0; w < r[3]; ++w) {
          const uint8_t* p = element(o[1].side, n, c, h, w, o[1].ns, o[1].cs, o[1].hs, o[1].ws, o[1].esize);
          if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
          uint8_t* d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, o[0].esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
          const double x = read_value(p, a.prec[1], true);
          double y = 0;
          if (taylor) {
            y = read_value(coef + (a.table_len - 1) * tes, a.prec[1], true);
            for (uint64_t j = a.table_len - 1; j-- > 0;) y = y * x + read_value(coef + j * tes, a.prec[1], true);
          } else {
            y = 1.0 / std::sqrt(x);
          }
          write_sfu_result(d, a.prec[0], y);
        }
      }
    }
  }
  return Status::ok;
}

Status exec_tiu(Machine& m, uint32_t core, const uint8_t* data, std::string& msg) {
  const uint32_t tsk = (data[5] >> 1) & 0xF;
  const bool short_form = (data[0] & 1) != 0 && tsk != 7 && tsk != 12 && tsk != 15;
  const uint32_t eu = static_cast<uint32_t>(((data[5] >> 5) | (data[6] << 3)) & 0x1F);
  const CmdClass c = cmd::tiu_class(tsk, tsk == 12 ? (eu & 7) : eu, short_form);
  switch (c) {
    case CmdClass::SYS:
      if (eu == 0 || eu == 5 || eu == 30 || eu == 8 || eu == 9 || eu == 31) return Status::ok;
      return unsupported(msg, "SYS eu " + std::to_string(eu));
    case CmdClass::SYS_TR_ACC:
      return Status::ok;  // TGCR writes: only integer/requant paths read them
    case CmdClass::sAR: {
      const cmd::SArView v(data);
      ArParams a{"sAR", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.tsk_opd_num(),
                 v.opd2_n_str(),
                 {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
                 {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec()},
                 {v.opt_opd0_sign() != 0 || v.opt_opd1_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
                 {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0},
                 {v.short_res0_str(), v.short_opd0_str(), v.short_opd1_str()},
                 {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
                  {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
                  {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}}};
      return run_ar(m, core, a, msg);
    }
    case CmdClass::AR: {
      const cmd::TiuLongView v(data);
      ArParams a{"AR", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.tsk_opd_num(),
                 static_cast<uint32_t>(v.opd2_n_str() & 7),
                 {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
                 {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec()},
                 {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
                 {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0},
                 {v.short_res0_str(), v.short_opd0_str(), v.short_opd1_str()},
                 {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
                  {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
                  {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}}};
      return run_ar(m, core, a, msg);
    }
    case CmdClass::sMM2: {
      const cmd::SMm2View v(data);
      const uint64_t K = eu == 4 ? v.opd1_c() : v.opd1_w();
      Mm2Params a{"sMM2", eu, v.res0_c(), v.res0_w(), K,
                  {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
                  {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
                  {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
                  {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0},
                  v.opt_res_add() != 0, v.opt_relu() != 0, v.opt_rq() != 0};
      if (eu == 7) return unsupported(msg, "sMM2 eu 7 (tf32)");
      return run_mm2(m, core, a, msg);
    }
    case CmdClass::MM2: {
      const cmd::TiuLongView v(data);
      const uint64_t K = eu == 4 ? v.opd1_c() : v.opd1_w();
      Mm2Params a{"MM2", eu, v.res0_c(), v.res0_w(), K,
                  {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
                  {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
                  {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
                  {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0},
                  v.opt_res_add() != 0, v.opt_relu() != 0, v.opt_rq() != 0};
      if (eu == 7) return unsupported(msg, "MM2 eu 7 (tf32)");
      return run_mm2(m, core, a, msg);
    }
    case CmdClass::sCW_sBC: {
      const cmd::SCwBcView v(data);
      const uint32_t p = v.opt_res0_prec();
      UnaryParams a{"sCW&sBC", eu,
                    {{v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()}, {v.res0_n(), v.opd0_c(), v.res0_h(), v.opd0_w()}},
                    {v.res0_addr(), v.opd0_addr()}, {p, p}, {0, 0}, {}};
      return run_cw(m, core, a, msg);
    }
    case CmdClass::CW_BC: case CmdClass::SFU: {
      const cmd::TiuLongView v(data);
      const bool sfu = c == CmdClass::SFU;
      // SFU is element-wise: opd0 has res0's shape.
      UnaryParams a{sfu ? "SFU" : "CW&BC", eu,
                    {{v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()},
                     {sfu ? v.res0_n() : v.opd0_n(), sfu ? v.res0_c() : v.opd0_c(), sfu ? v.res0_h() : v.opd0_h(),
                      sfu ? v.res0_w() : v.opd0_w()}},
                    {v.res0_addr(), v.opd0_addr()},
                    {v.opt_res0_prec(), v.opt_opd0_prec()},
                    {v.short_res0_str(), v.short_opd0_str()},
                    {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
                     {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()}},
                    v.opd1_addr(), v.opd1_n()};
      if (v.opt_opd0_const() != 0) {
        return unsupported(msg, std::string(a.cls) + " eu " + std::to_string(eu) + " on a constant source");
      }
      if (!sfu) return run_cw(m, core, a, msg);
      return run_sfu(m, core, a, msg);
    }
    case CmdClass::sSFU: {
      const cmd::SSfuView v(data);
      const uint64_t sh[4] = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()};
      UnaryParams a{"sSFU", eu, {{sh[0], sh[1], sh[2], sh[3]}, {sh[0], sh[1], sh[2], sh[3]}},
                    {v.res0_addr(), v.opd0_addr()}, {v.opt_res0_prec(), v.opt_opd0_prec()}, {0, 0}, {},
                    v.opd1_addr(), v.opd1_n()};
      return run_sfu(m, core, a, msg);
    }
    case CmdClass::CMP: case CmdClass::sCMP:
      return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                                  ": the spec numbers CMP eu 22..27 but defines no operation");
    default:
      return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                                  " (class not simulated functionally: the spec gives its layout, not its semantics)");
  }
}

uint32_t bank_conflicts(uint64_t res, uint64_t opd0, bool use0, uint64_t opd1, bool use1) {
  uint32_t n = 0;
  if (use0 && sg::local_bank(opd0) == sg::local_bank(res)) n += tv::kBankConflictCycles;
  if (use1 && sg::local_bank(opd1) == sg::local_bank(res)) n += tv::kBankConflictCycles;
  return n;
}

}  // namespace

Status execute_command(Machine& machine, uint32_t core, uint32_t engine, const uint8_t* data,
                       std::string& message) {
  if (engine == 0) return exec_tiu(machine, core, data, message);
  const uint32_t type = data[4] & 0x1F;
  const uint32_t sp = data[4] >> 5;
  const CmdClass c = cmd::dma_class(type, sp);
  switch (c) {
    case CmdClass::dma_tensor: return dma_tensor(machine, core, data, message);
    case CmdClass::dma_matrix: return dma_matrix(machine, core, data, message);
    case CmdClass::dma_general: return dma_general(machine, core, data, message);
    case CmdClass::dma_sys:
      if (sp == 0 || sp == 1 || sp == 3 || sp == 4) return Status::ok;
      return unsupported(message, "DMA sys sp_func " + std::to_string(sp));
    default:
      return unsupported(message, std::string(engine == 1 ? "GDMA " : "SDMA ") + cmd::class_name(c) +
                                      " (class not simulated functionally)");
  }
}

void command_cost(uint32_t engine, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops) {
  cycles = tv::kSysCycles;
  bytes = 0;
  ops = 0;
  if (engine != 0) {
    const uint32_t type = data[4] & 0x1F;
    const uint32_t sp = data[4] >> 5;
    const CmdClass c = cmd::dma_class(type, sp);
    if (c == CmdClass::dma_sys || c == CmdClass::none) return;
    uint64_t elements = 0;
    uint64_t src = 0, dst = 0;
    uint32_t fmt = 0;
    if (c == CmdClass::dma_gather || c == CmdClass::dma_scatter) {
      const cmd::DmaGatherScatterView v(data);
      elements = uint64_t{v.dst_csize()} * v.dst_hsize() * v.dst_wsize();
      src = v.src_start_addr();
      dst = v.dst_start_addr();
      fmt = v.src_data_format();
    } else if (c == CmdClass::dma_compress || c == CmdClass::dma_decompress ||
               c == CmdClass::dma_lossy_compress || c == CmdClass::dma_lossy_decompress) {
      cycles = tv::kDmaStartupDdr;  // opaque body: startup only
      return;
    } else {
      const cmd::DmaCommonView v(data);
      src = v.src_start_addr();
      dst = v.dst_start_addr();
      fmt = v.src_data_format();
      if (c == CmdClass::dma_general) {
        elements = v.src_cstride();
      } else if (c == CmdClass::dma_matrix) {
        const bool s2l = sg::dma_tag(dst) == sg::kTagLmem;
        elements = s2l ? uint64_t{v.src_hsize()} * v.src_wsize() : uint64_t{v.dst_hsize()} * v.dst_wsize();
      } else if (v.fill_constant_en() != 0) {
        elements = uint64_t{v.dst_nsize()} * v.dst_csize() * v.dst_hsize() * v.dst_wsize();
      } else {
        elements = uint64_t{v.src_nsize()} * v.src_csize() * v.src_hsize() * v.src_wsize();
      }
    }
    bytes = dma_bytes(elements, fmt);
    const bool ddr = is_ddr_tag(sg::dma_tag(dst)) || (is_ddr_tag(sg::dma_tag(src)));
    cycles = tv::dma_cycles(bytes, ddr);
    return;
  }
  const uint32_t tsk = (data[5] >> 1) & 0xF;
  const bool short_form = (data[0] & 1) != 0 && tsk != 7 && tsk != 12 && tsk != 15;
  const uint32_t eu = static_cast<uint32_t>(((data[5] >> 5) | (data[6] << 3)) & 0x1F);
  const CmdClass c = cmd::tiu_class(tsk, tsk == 12 ? (eu & 7) : eu, short_form);
  auto wider_eu = [](uint32_t p0, uint32_t p1) {
    return std::min(tv::eu_for_prec(p0), tv::eu_for_prec(p1));
  };
  switch (c) {
    case CmdClass::sMM2: case CmdClass::MM2: {
      uint64_t M, N, K, r, o0, o1;
      uint32_t p0, pr;
      bool c0, c1;
      if (c == CmdClass::sMM2) {
        const cmd::SMm2View v(data);
        M = v.res0_c(); N = v.res0_w(); K = eu == 4 ? v.opd1_c() : v.opd1_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
        c0 = v.opt_opd0_const() != 0; c1 = v.opt_opd1_const() != 0;
      } else {
        const cmd::TiuLongView v(data);
        M = v.res0_c(); N = v.res0_w(); K = eu == 4 ? v.opd1_c() : v.opd1_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
        c0 = v.opt_opd0_const() != 0; c1 = v.opt_opd1_const() != 0;
      }
      cycles = tv::mm2_cycles(M, N, K, tv::eu_for_prec(p0), eu == 6) + bank_conflicts(r, o0, !c0, o1, !c1);
      ops = M * N * K;
      bytes = M * N * tiu_esize(pr);
      return;
    }
    case CmdClass::sAR: case CmdClass::AR: case CmdClass::sCMP: case CmdClass::CMP:
    case CmdClass::sSFU: case CmdClass::SFU: case CmdClass::sLIN: case CmdClass::LIN: {
      uint64_t n, ch, h, w, r = 0, o0 = 0, o1 = 0;
      uint32_t p0 = 0, pr = 0;
      bool u0 = false, u1 = false;
      uint64_t table = 0;
      if (c == CmdClass::sAR) {
        const cmd::SArView v(data);
        n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
        u0 = v.opt_opd0_const() == 0; u1 = v.tsk_opd_num() >= 2 && v.opt_opd1_const() == 0;
      } else if (c == CmdClass::sCMP) {
        const cmd::SCmpView v(data);
        n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = p0;
        u0 = v.opt_opd0_const() == 0; u1 = v.opt_opd1_const() == 0;
      } else if (c == CmdClass::sSFU) {
        const cmd::SSfuView v(data);
        n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
        u0 = true; table = v.opd1_n();
      } else if (c == CmdClass::sLIN) {
        const cmd::SLinView v(data);
        n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_res0_prec(); pr = p0;
        u0 = true; u1 = v.opt_opd1_const() == 0;
      } else {
        const cmd::TiuLongView v(data);
        n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w();
        r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
        u0 = v.opt_opd0_const() == 0; u1 = v.tsk_opd_num() >= 2 && v.opt_opd1_const() == 0;
        table = v.opd1_n();
      }
      if ((c == CmdClass::sSFU || c == CmdClass::SFU) && (eu == 12 || eu == 13)) {
        // taylor reads its coefficient table (opd1) from LMEM: a bank operand like any other
        o1 = c == CmdClass::sSFU ? cmd::SSfuView(data).opd1_addr() : cmd::TiuLongView(data).opd1_addr();
        u1 = true;
      }
      const uint32_t eun = wider_eu(p0, pr);
      const uint64_t body = tv::ar_body(n, ch, h, w, eun);
      const uint32_t conflicts = bank_conflicts(r, o0, u0, o1, u1);
      if (c == CmdClass::sAR || c == CmdClass::AR) {
        cycles = body + tv::kArOverhead;
      } else if (c == CmdClass::sCMP || c == CmdClass::CMP) {
        cycles = 2 * body + tv::kCmpOverhead;
      } else if (c == CmdClass::sLIN || c == CmdClass::LIN) {
        cycles = 2 * n * tv::ceil_div(ch, sg::kLanes) * h * tv::ceil_div(w, eun) + tv::kLinOverhead;
      } else {
        const uint64_t factor = (eu == 12 || eu == 13) ? (table == 0 ? 1 : 2 * table - 1) : tv::kSfuOtherFactor;
        cycles = body * factor + tv::kSfuOverhead;
      }
      cycles += conflicts;
      ops = n * ch * h * w;
      bytes = ops * tiu_esize(pr);
      return;
    }
    default:
      return;  // SYS, SYS_TR_ACC, LAR: 1 cycle; classes without a v1 formula: 1 cycle
  }
}

}  // namespace tilefw::port::host::sg2260
