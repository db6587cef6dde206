// The simulated vector unit's own rules for the compare (vcmpv / vcmpvs) and select (vsel)
// issues, as the hardware model enforces them at the doorbell: written from the ISA's
// description of the issues (docs/a2a3-vector-semantics.md, the compare and select sections),
// not from the core's validator, so the two are checked against each other rather than sharing
// a mistake (the layer rule: the simulator never includes the core's rules).
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_cmp_desc.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host::vector_cmp_check {

/// One operand's bytes in UB: [begin, end).
struct Bytes {
  const char* name;
  uint64_t begin, end;
};

/// The report of a refused issue (status, the field or operand, value and limit).
inline desc::DescReport refuse(Status s, const char* field, uint64_t value, uint64_t limit = 0,
                               uint64_t at = 0) noexcept {
  desc::DescReport r{};
  r.status = s;
  r.field = field;
  r.value = value > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(value);
  r.limit = limit > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(limit);
  r.byte_offset = at;
  return r;
}

/// Element lanes of `elem`-byte elements: a repeat covers 256 bytes, lanes round up to whole
/// 32-byte blocks; the mask (one bit a lane) is read or written in whole bytes.
inline Bytes lanes_bytes(const char* name, uint32_t off, uint32_t repeat, uint32_t stride_blocks, uint32_t lanes,
                         uint32_t elem) noexcept {
  const uint64_t block = chip::a2a3::kBlockBytes;
  const uint64_t run = (uint64_t{lanes} * elem + block - 1) / block * block;
  return Bytes{name, off, off + uint64_t{repeat - 1} * stride_blocks * block + run};
}
inline Bytes mask_bytes(const char* name, uint32_t off, uint32_t repeat, uint32_t stride_bytes, uint32_t lanes) noexcept {
  return Bytes{name, off, off + uint64_t{repeat - 1} * stride_bytes + (lanes + 7) / 8};
}

/// The first rule an issue breaks among: repeat 1..255, lanes 1..(256 / elem), 32-byte aligned
/// element operands, every operand inside UB, the written operand apart from what it reads
/// (except a source that is the destination itself, read and written lane by lane).
inline desc::DescReport common(uint32_t repeat, uint32_t lanes, uint32_t elem) noexcept {
  if (repeat == 0 || repeat > 255) return refuse(Status::desc_repeat_out_of_range, "repeat", repeat, 255);
  const uint32_t most = 256 / elem;
  if (lanes == 0 || lanes > most) return refuse(Status::desc_tail_out_of_range, "lanes", lanes, most);
  return desc::DescReport{};
}
inline bool outside(desc::DescReport& r, const Bytes& b, uint64_t ub) noexcept {
  if (b.end <= ub) return false;
  r = refuse(Status::out_of_bounds, b.name, b.end, ub, b.begin);
  return true;
}
inline bool overlaps(desc::DescReport& r, const Bytes& w, const Bytes& s) noexcept {
  if (w.end <= s.begin || s.end <= w.begin) return false;
  const uint64_t at = w.begin > s.begin ? w.begin : s.begin;
  r = refuse(Status::illegal_overlap, w.name, at, 0, at);
  r.other = s.name;
  r.other_offset = s.begin;
  return true;
}
inline bool unaligned(desc::DescReport& r, const char* field, uint32_t off) noexcept {
  if (off % chip::a2a3::kBlockBytes == 0) return false;
  r = refuse(Status::misaligned, field, off, chip::a2a3::kBlockBytes, off);
  return true;
}

/// vcmpv / vcmpvs: f16, f32, i16, u16, i32; the result one bit a lane.
inline desc::DescReport check(const desc::CmpDesc& d, DType dt, uint64_t ub) noexcept {
  if (static_cast<uint32_t>(d.mode) > static_cast<uint32_t>(desc::CmpMode::le)) {
    return refuse(Status::desc_unknown_op, "mode", static_cast<uint32_t>(d.mode));
  }
  if (static_cast<uint32_t>(d.rhs) > static_cast<uint32_t>(desc::CmpRhs::first)) {
    return refuse(Status::desc_unknown_op, "rhs", static_cast<uint32_t>(d.rhs));
  }
  if (!(dt == DType::f16 || dt == DType::f32 || dt == DType::i16 || dt == DType::u16 || dt == DType::i32)) {
    return refuse(Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
  }
  const uint32_t elem = static_cast<uint32_t>(dtype_size(dt));
  desc::DescReport r = common(d.repeat, d.lanes, elem);
  const bool has_src1 = d.rhs != desc::CmpRhs::scalar;
  if (!r.ok() || unaligned(r, "src0.offset", d.src0.offset) || (has_src1 && unaligned(r, "src1.offset", d.src1.offset))) {
    return r;
  }
  const Bytes dst = mask_bytes("dst", d.dst.offset, d.repeat, d.dst_repeat_stride, d.lanes);
  const Bytes s0 = lanes_bytes("src0", d.src0.offset, d.repeat, d.src0_repeat_stride, d.lanes, elem);
  const Bytes s1 = d.rhs == desc::CmpRhs::tile
                       ? lanes_bytes("src1", d.src1.offset, d.repeat, d.src1_repeat_stride, d.lanes, elem)
                       : Bytes{"src1", d.src1.offset, uint64_t{d.src1.offset} + elem};
  if (outside(r, dst, ub) || outside(r, s0, ub) || (has_src1 && outside(r, s1, ub)) || overlaps(r, dst, s0) ||
      (has_src1 && overlaps(r, dst, s1))) {
    return r;
  }
  r.repeats = d.repeat;
  return r;
}

/// vsel: any 2- or 4-byte element; lane j of dst is src0's where the mask bit is 1, else src1's.
inline desc::DescReport check(const desc::SelDesc& d, DType dt, uint64_t ub) noexcept {
  const uint32_t elem = static_cast<uint32_t>(dtype_size(dt));
  if (elem != 2 && elem != 4) return refuse(Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
  desc::DescReport r = common(d.repeat, d.lanes, elem);
  if (!r.ok() || unaligned(r, "dst.offset", d.dst.offset) || unaligned(r, "src0.offset", d.src0.offset) ||
      unaligned(r, "src1.offset", d.src1.offset)) {
    return r;
  }
  const Bytes dst = lanes_bytes("dst", d.dst.offset, d.repeat, d.dst_repeat_stride, d.lanes, elem);
  const Bytes s0 = lanes_bytes("src0", d.src0.offset, d.repeat, d.src0_repeat_stride, d.lanes, elem);
  const Bytes s1 = lanes_bytes("src1", d.src1.offset, d.repeat, d.src1_repeat_stride, d.lanes, elem);
  const Bytes mk = mask_bytes("mask", d.mask.offset, d.repeat, d.mask_repeat_stride, d.lanes);
  if (outside(r, dst, ub) || outside(r, s0, ub) || outside(r, s1, ub) || outside(r, mk, ub) || overlaps(r, dst, mk)) {
    return r;
  }
  const bool in_place0 = d.src0.offset == d.dst.offset && d.src0_repeat_stride == d.dst_repeat_stride;
  const bool in_place1 = d.src1.offset == d.dst.offset && d.src1_repeat_stride == d.dst_repeat_stride;
  if ((!in_place0 && overlaps(r, dst, s0)) || (!in_place1 && overlaps(r, dst, s1))) return r;
  r.repeats = d.repeat;
  return r;
}

}  // namespace tilefw::port::host::vector_cmp_check
