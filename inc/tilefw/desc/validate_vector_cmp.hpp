// Pure, constexpr validation of tilefw's compare (CmpDesc) and select (SelDesc) issues, in this
// order: op fields, dtype, repeat, lanes, strides, spaces, alignment, UB bounds, overlap. Each
// operand's footprint is one span (first byte of repeat 0 to the last byte of the last repeat):
// bounds and the overlap rule are checked on spans (tilefw's rule: conservative, exact for the
// contiguous streams the planner makes).
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/data/vector_cmp_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

constexpr bool supports_cmp(DType t) noexcept {
  return t == DType::f16 || t == DType::f32 || t == DType::i16 || t == DType::u16 || t == DType::i32;
}
constexpr bool supports_sel(DType t) noexcept { return dtype_size(t) == 2 || dtype_size(t) == 4; }

namespace detail {

/// One operand's bytes: [begin, end).
struct Span {
  const char* name;
  uint64_t begin;
  uint64_t end;
};

// A source read by lanes [0, lanes) of each repeat, whole 32 B blocks.
constexpr Span lane_span(const char* name, uint32_t off, uint32_t repeat, uint32_t rep_blocks, uint32_t lanes,
                         uint32_t elem) noexcept {
  const uint64_t bytes = (uint64_t{lanes} * elem + chip::a2a3::kBlockBytes - 1) / chip::a2a3::kBlockBytes *
                         chip::a2a3::kBlockBytes;
  return Span{name, off, off + uint64_t{repeat - 1} * rep_blocks * chip::a2a3::kBlockBytes + bytes};
}
// A predicate area: ceil(lanes / 8) bytes a repeat, `rep_bytes` apart.
constexpr Span bit_span(const char* name, uint32_t off, uint32_t repeat, uint32_t rep_bytes, uint32_t lanes) noexcept {
  return Span{name, off, off + uint64_t{repeat - 1} * rep_bytes + (lanes + 7) / 8};
}

constexpr bool span_bounds(DescReport& r, const Span& s, uint64_t ub) noexcept {
  if (s.end <= ub) return false;
  r.byte_offset = s.begin;
  return fail(r, Status::out_of_bounds, s.name, sat32(s.end), sat32(ub));
}
constexpr bool span_overlap(DescReport& r, const Span& d, const Span& s) noexcept {
  if (d.end <= s.begin || s.end <= d.begin) return false;
  const uint64_t at = d.begin > s.begin ? d.begin : s.begin;
  r.byte_offset = at;
  r.other = s.name;
  r.other_offset = s.begin;
  return fail(r, Status::illegal_overlap, d.name, sat32(at));
}
constexpr bool check_aligned(DescReport& r, const char* field, uint32_t off) noexcept {
  if (off % chip::a2a3::kBlockBytes == 0) return false;
  r.byte_offset = off;
  return fail(r, Status::misaligned, field, off, chip::a2a3::kBlockBytes);
}
// repeat, lanes: the rules both kinds share.
constexpr bool check_repeat_lanes(DescReport& r, uint32_t repeat, uint32_t lanes, uint32_t elem) noexcept {
  if (repeat == 0 || repeat > chip::a2a3::kMaxRepeat) {
    return fail(r, Status::desc_repeat_out_of_range, "repeat", repeat, chip::a2a3::kMaxRepeat);
  }
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  if (lanes == 0 || lanes > epr) return fail(r, Status::desc_tail_out_of_range, "lanes", lanes, epr);
  return false;
}

}  // namespace detail

/// Validates one compare issue of element type `dt` against the UB of profile `on`.
constexpr DescReport validate(const CmpDesc& d, DType dt, chip::Chip on = chip::kBuildChip) noexcept {
  using namespace detail;
  DescReport r{};
  if (static_cast<uint8_t>(d.mode) > static_cast<uint8_t>(CmpMode::le)) {
    fail(r, Status::desc_unknown_op, "mode", static_cast<uint32_t>(d.mode));
    return r;
  }
  if (static_cast<uint8_t>(d.rhs) > static_cast<uint8_t>(CmpRhs::first)) {
    fail(r, Status::desc_unknown_op, "rhs", static_cast<uint32_t>(d.rhs));
    return r;
  }
  if (!supports_cmp(dt)) {
    fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  const uint32_t elem = dtype_size(dt);
  const bool tile = d.rhs == CmpRhs::tile;
  if (check_repeat_lanes(r, d.repeat, d.lanes, elem) ||
      check_stride(r, "src0_repeat_stride", d.src0_repeat_stride, 65535) ||
      (tile && check_stride(r, "src1_repeat_stride", d.src1_repeat_stride, 65535)) ||
      check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, 65535) || check_space(r, "dst.space", d.dst) ||
      check_space(r, "src0.space", d.src0) || (d.rhs != CmpRhs::scalar && check_space(r, "src1.space", d.src1)) ||
      check_aligned(r, "src0.offset", d.src0.offset) ||
      (d.rhs != CmpRhs::scalar && check_aligned(r, "src1.offset", d.src1.offset))) {
    return r;
  }
  const uint64_t ub = ub_bounds(on).bytes;
  const Span dst = bit_span("dst", d.dst.offset, d.repeat, d.dst_repeat_stride, d.lanes);
  const Span s0 = lane_span("src0", d.src0.offset, d.repeat, d.src0_repeat_stride, d.lanes, elem);
  const Span s1 = tile ? lane_span("src1", d.src1.offset, d.repeat, d.src1_repeat_stride, d.lanes, elem)
                       : Span{"src1", d.src1.offset, uint64_t{d.src1.offset} + elem};
  const bool has_s1 = d.rhs != CmpRhs::scalar;
  if (span_bounds(r, dst, ub) || span_bounds(r, s0, ub) || (has_s1 && span_bounds(r, s1, ub)) ||
      span_overlap(r, dst, s0) || (has_s1 && span_overlap(r, dst, s1))) {
    return r;
  }
  r.repeats = d.repeat;
  return r;
}

/// Validates one select issue of element type `dt` against the UB of profile `on`.
constexpr DescReport validate(const SelDesc& d, DType dt, chip::Chip on = chip::kBuildChip) noexcept {
  using namespace detail;
  DescReport r{};
  if (!supports_sel(dt)) {
    fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  const uint32_t elem = dtype_size(dt);
  if (check_repeat_lanes(r, d.repeat, d.lanes, elem) ||
      check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, 65535) ||
      check_stride(r, "src0_repeat_stride", d.src0_repeat_stride, 65535) ||
      check_stride(r, "src1_repeat_stride", d.src1_repeat_stride, 65535) ||
      check_stride(r, "mask_repeat_stride", d.mask_repeat_stride, 65535) || check_space(r, "dst.space", d.dst) ||
      check_space(r, "src0.space", d.src0) || check_space(r, "src1.space", d.src1) ||
      check_space(r, "mask.space", d.mask) || check_aligned(r, "dst.offset", d.dst.offset) ||
      check_aligned(r, "src0.offset", d.src0.offset) || check_aligned(r, "src1.offset", d.src1.offset)) {
    return r;
  }
  const uint64_t ub = ub_bounds(on).bytes;
  const Span dst = lane_span("dst", d.dst.offset, d.repeat, d.dst_repeat_stride, d.lanes, elem);
  const Span s0 = lane_span("src0", d.src0.offset, d.repeat, d.src0_repeat_stride, d.lanes, elem);
  const Span s1 = lane_span("src1", d.src1.offset, d.repeat, d.src1_repeat_stride, d.lanes, elem);
  const Span mk = bit_span("mask", d.mask.offset, d.repeat, d.mask_repeat_stride, d.lanes);
  if (span_bounds(r, dst, ub) || span_bounds(r, s0, ub) || span_bounds(r, s1, ub) || span_bounds(r, mk, ub) ||
      span_overlap(r, dst, mk)) {
    return r;
  }
  // A source that is dst exactly is read and written lane by lane in place: allowed.
  const bool same0 = d.src0.offset == d.dst.offset && d.src0_repeat_stride == d.dst_repeat_stride;
  const bool same1 = d.src1.offset == d.dst.offset && d.src1_repeat_stride == d.dst_repeat_stride;
  if ((!same0 && span_overlap(r, dst, s0)) || (!same1 && span_overlap(r, dst, s1))) return r;
  r.repeats = d.repeat;
  return r;
}

}  // namespace tilefw::desc
