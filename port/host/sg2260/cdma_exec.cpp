// The data of a completed CDMA transfer (Rule: CDMA pairing, Rule: CDMA reduce, Rule: CDMA
// address spaces): element k of the source (row-major n, c, h, w over its sizes and strides,
// in elements) goes to element k of the destination, each side resolved on the chip that owns
// it. LMEM (tag 31) is addressed flat and lane-major, as the GDMA general copy does, in core
// 0's LMEM (a CDMA engine belongs to the chip, and tilefw gives it core 0's local memory).
#include <cmath>
#include <cstring>
#include <limits>

#include "sg2260/exec_common.hpp"
#include "sg2260/system.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260 {

namespace {

using cmd::CmdClass;
using namespace exec;  // the DMA operand resolution and helpers the GDMA shares

// One side of a transfer: a linear byte range and a 4-D walk over it (w stride 1).
struct Tensor {
  uint8_t* base = nullptr;
  uint64_t device_base = 0;  // device address of base (the hazard check's log)
  uint64_t limit = 0;
  uint64_t start = 0;
  uint64_t size[4] = {1, 1, 1, 1};
  uint64_t stride[3] = {0, 0, 0};
  uint32_t esize = 0;
  uint64_t idx[4] = {0, 0, 0, 0};
  // The byte offset of the current element, then moves to the next (row-major).
  uint64_t offset_and_next() {
    const uint64_t off = start + (idx[0] * stride[0] + idx[1] * stride[1] + idx[2] * stride[2] + idx[3]) * esize;
    for (int d = 3; d >= 0; --d) {
      if (++idx[d] < size[d]) break;
      idx[d] = 0;
    }
    return off;
  }
};

Status resolve(Machine& m, uint64_t addr, bool allow_lmem, const char* side, Tensor& t, std::string& msg) {
  if (sg::dma_tag(addr) == sg::kTagLmem) {
    if (sg::local_is_smem(sg::dma_offset(addr))) {
      return fail(msg, Status::cmd_bad_address_tag, std::string(side) + " in SMEM: never a CDMA side");
    }
    if (!allow_lmem) {
      return fail(msg, Status::cmd_bad_address_tag, std::string(side) + " in LMEM: only a send's source or a recv's destination");
    }
  }
  Side s;
  Ctx x{m, 0, nullptr};
  const Status st = resolve_dma(x, addr, s, msg);
  if (st != Status::ok) {
    msg = std::string(side) + ": " + msg;
    return st;
  }
  t.base = s.base;
  t.device_base = s.device_base;
  t.start = s.lmem ? s.lane0 * uint64_t{sg::kLaneBytes} + s.start : s.start;
  t.limit = s.lmem ? sg::kLmemBytesPerCore : s.limit;
  return Status::ok;
}

// The footprint's last byte must lie inside the side's memory (strides are non-negative).
Status check_extent(const Tensor& t, const char* side, std::string& msg) {
  uint64_t last = 0;
  for (int d = 0; d < 3; ++d) last += (t.size[d] - 1) * t.stride[d];
  last += t.size[3] - 1;
  if (t.start + (last + 1) * t.esize > t.limit) {
    return fail(msg, Status::cmd_footprint_out_of_range, std::string(side) + " runs outside its memory");
  }
  return Status::ok;
}

float f32_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// max / min: a quiet NaN if either is NaN; max(+0, -0) = +0, min(+0, -0) = -0.
float max_min(float a, float b, bool is_max) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  if (a == 0 && b == 0) return (std::signbit(a) == std::signbit(b)) ? a : (is_max ? 0.0f : -0.0f);
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

float apply_f32(uint32_t op, float d, float s) {
  switch (op) {
    case 1: return d * s;
    case 2: return max_min(d, s, true);
    case 3: return max_min(d, s, false);
    default: return d + s;
  }
}

// dst = op(dst, incoming) in the pair's format; the op was checked against the format.
void reduce_element(uint32_t fmt, uint32_t op, uint8_t* dst, const uint8_t* src) {
  if (fmt == 2) {
    uint32_t d, s;
    std::memcpy(&d, dst, 4);
    std::memcpy(&s, src, 4);
    const uint32_t r = bits_of(apply_f32(op, f32_of(d), f32_of(s)));
    std::memcpy(dst, &r, 4);
  } else if (fmt == 1 || fmt == 5) {
    uint16_t d, s;
    std::memcpy(&d, dst, 2);
    std::memcpy(&s, src, 2);
    const bool half = fmt == 1;
    const float fd = f32_of(half ? half_bits_to_float_bits(d) : bf16_bits_to_float_bits(d));
    const float fs = f32_of(half ? half_bits_to_float_bits(s) : bf16_bits_to_float_bits(s));
    const uint32_t r = bits_of(apply_f32(op, fd, fs));  // exact in f32 for max/min; rounded once below
    const uint16_t out = half ? float_bits_to_half_bits(r) : float_bits_to_bf16_bits(r);
    std::memcpy(dst, &out, 2);
  } else {  // INT32 (add wraps, max, min)
    int32_t d, s;
    std::memcpy(&d, dst, 4);
    std::memcpy(&s, src, 4);
    int32_t r;
    if (op == 2) r = d > s ? d : s;
    else if (op == 3) r = d < s ? d : s;
    else r = static_cast<int32_t>(static_cast<uint32_t>(d) + static_cast<uint32_t>(s));
    std::memcpy(dst, &r, 4);
  }
}

// Which reduce ops a format allows (docs/sg2260-commands.md section 13.1).
bool reduce_allowed(uint32_t fmt, uint32_t op) {
  if (op == 0) return true;
  if (op > 4) return false;
  if (fmt == 2 || fmt == 1 || fmt == 5) return true;
  return fmt == 4 && op != 1;
}

Status copy(Tensor& src, Tensor& dst, uint64_t elements, uint32_t fmt, uint32_t reduce, const uint32_t* fill,
            AccessLog* written, AccessLog* read) {
  const uint32_t es = dst.esize;
  for (uint64_t k = 0; k < elements; ++k) {
    const uint64_t off = dst.offset_and_next();
    uint8_t* d = dst.base + off;
    if (written != nullptr) written->write(dst.device_base + off, es);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(fill);
    if (fill == nullptr) {
      const uint64_t from = src.offset_and_next();
      if (read != nullptr) read->read(src.device_base + from, es);
      s = src.base + from;
    }
    if (reduce != 0) reduce_element(fmt, reduce, d, s);
    else std::memmove(d, s, es);
  }
  return Status::ok;
}

void set_shape(Tensor& t, uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs, uint64_t hs,
               uint32_t esize) {
  t.size[0] = n;
  t.size[1] = c;
  t.size[2] = h;
  t.size[3] = w;
  t.stride[0] = ns;
  t.stride[1] = cs;
  t.stride[2] = hs;
  t.esize = esize;
}

}  // namespace

using namespace exec;

Status System::move_data(const Transfer& x, std::string& msg, AccessLog* written, AccessLog* read) {
  const Port& p = ports_[x.send_port];
  const uint8_t* data = p.stream + p.ops[x.send_op].offset;
  const auto cls = static_cast<CmdClass>(p.ops[x.send_op].cls);
  Machine& from = machine(x.from_chip);
  Machine& to = machine(x.to_chip);
  Tensor src;
  Tensor dst;
  uint32_t fmt = 0;
  uint32_t reduce = 0;
  uint32_t constant = 0;
  const uint32_t* fill = nullptr;
  uint64_t elements = 0;
  if (cls == CmdClass::cdma_send) {
    const cmd::CdmaSendView s(data);
    const Port& q = ports_[static_cast<size_t>(x.recv_port)];
    const cmd::CdmaRecvView r(q.stream + q.ops[x.recv_op].offset);
    fmt = s.src_data_format();
    reduce = r.reduce_op();
    const uint32_t es = dma_esize(fmt);
    if (!reduce_allowed(fmt, reduce)) {
      return fail(msg, Status::cmd_bad_field, "reduce op " + std::to_string(reduce) + " is not defined for format " +
                                                  std::to_string(fmt));
    }
    set_shape(src, s.src_nsize(), s.src_csize(), s.src_hsize(), s.src_wsize(), s.src_nstride(), s.src_cstride(),
              s.src_hstride(), es);
    set_shape(dst, r.dst_nsize(), r.dst_csize(), r.dst_hsize(), r.dst_wsize(), r.dst_nstride(), r.dst_cstride(),
              r.dst_hstride(), es);
    TILEFW_TRY(resolve(from, s.src_start_addr(), true, "send source", src, msg));
    TILEFW_TRY(resolve(to, r.dst_start_addr(), true, "recv destination", dst, msg));
    elements = p.ops[x.send_op].elements;
  } else if (cls == CmdClass::cdma_read || cls == CmdClass::cdma_write) {
    const cmd::CdmaReadWriteView v(data);
    fmt = v.src_data_format();
    const uint32_t es = dma_esize(fmt);
    const bool nchw = v.nchw_copy() != 0;
    set_shape(src, v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.src_nstride(), v.src_cstride(),
              v.src_hstride(), es);
    if (nchw) {
      set_shape(dst, v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.dst_nstride(), v.dst_cstride(),
                v.dst_hstride(), es);
    } else {
      set_shape(dst, v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(), v.dst_nstride(), v.dst_cstride(),
                v.dst_hstride(), es);
    }
    elements = p.ops[x.send_op].elements;
    if (dst.size[0] * dst.size[1] * dst.size[2] * dst.size[3] != elements) {
      return fail(msg, Status::cmd_bad_field, "source and destination element counts differ");
    }
    if (cls == CmdClass::cdma_write && v.fill_constant_en() != 0) {
      constant = v.src_nstride();
      fill = &constant;
    } else {
      TILEFW_TRY(resolve(from, v.src_start_addr(), false, cls == CmdClass::cdma_read ? "read source" : "write source",
                         src, msg));
    }
    TILEFW_TRY(resolve(to, v.dst_start_addr(), false, cls == CmdClass::cdma_read ? "read destination" : "write destination",
                       dst, msg));
  } else if (cls == CmdClass::cdma_general) {
    const cmd::CdmaGeneralView v(data);
    fmt = v.src_data_format();
    const uint32_t es = dma_esize(fmt);
    elements = v.cmd_length();
    set_shape(src, 1, 1, 1, elements, 0, 0, 0, es);
    set_shape(dst, 1, 1, 1, elements, 0, 0, 0, es);
    if (v.fill_constant_en() != 0) {
      constant = v.src_start_addr_l32();
      fill = &constant;
    } else {
      TILEFW_TRY(resolve(from, v.src_start_addr(), false, "general source", src, msg));
    }
    TILEFW_TRY(resolve(to, v.dst_start_addr(), false, "general destination", dst, msg));
  } else {
    return unsupported(msg, std::string(cmd::class_name(cls)) + " is unsupported");
  }
  if (dst.esize == 0 || fmt > 5) return unsupported(msg, "data format " + std::to_string(fmt) + " is unsupported");
  if (fill == nullptr) TILEFW_TRY(check_extent(src, "source", msg));
  TILEFW_TRY(check_extent(dst, "destination", msg));
  // The source is this chip's own memory for a send, write or general (a read's is the peer's).
  return copy(src, dst, elements, fmt, reduce, fill, written, cls == CmdClass::cdma_read ? nullptr : read);
}

}  // namespace tilefw::port::host::sg2260
