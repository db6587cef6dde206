// Data-movement descriptors of the a2a3 vector pipe that the tile planner needs beside the
// arithmetic ones: UB-to-UB copy (copy_ubuf_to_ubuf), duplicate (vector_dup) and conversion
// (vconv), each with a pure constexpr validate() in the conformance rule order.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/validate.hpp"
#include "tilefw/desc/vector_desc.hpp"

namespace tilefw::desc {

// ---- UB-to-UB copy --------------------------------------------------------------------------
/// copy_ubuf_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap): burst b copies
/// burst_len * 32 B from src + b * (burst_len + src_gap) * 32 to dst + b * (burst_len +
/// dst_gap) * 32. Units are 32 B blocks. It has no mask and no mode: MASK and CTRL are ignored.
/// Ranges (tilefw's, from the CCE prototype widths): nburst 1..4095, burst_len 1..65535, gaps
/// 0..65535. tilefw rule: the bytes read and the bytes written are disjoint.
struct CopyDesc {
  uint32_t nburst = 1;
  uint32_t burst_len = 1;
  uint32_t src_gap = 0;
  uint32_t dst_gap = 0;
  Operand dst{};
  Operand src{};
};

inline constexpr uint32_t kMaxCopyBursts = 4095;
inline constexpr uint32_t kMaxCopyBurstLen = 65535;

// ---- duplicate --------------------------------------------------------------------------------
/// vector_dup: every participating dst lane receives the scalar (raw bits of T, low 16 bits for
/// 16-bit types). Same repeat / mask / count rules as the arithmetic issues; dst strides are
/// uint16. Types (vector-semantics 3.1 Duplicate): i16, u16, f16, bf16, i32, u32, f32.
struct DupDesc {
  uint32_t scalar_bits = 0;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t dst_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
};

constexpr bool supports_dup(DType t) noexcept {
  return t == DType::i16 || t == DType::u16 || t == DType::f16 || t == DType::bf16 ||
         t == DType::i32 || t == DType::u32 || t == DType::f32;
}

// ---- conversion -------------------------------------------------------------------------------
/// vconv rounding modes (CCE suffixes: _r rint, _a round-away, _f floor, _c ceil, _z trunc,
/// _o odd; none for exact conversions).
enum class RoundMode : uint8_t { none, rint, round, floor, ceil, trunc, odd };

constexpr const char* round_name(RoundMode m) noexcept {
  switch (m) {
    case RoundMode::none: return "none";
    case RoundMode::rint: return "rint";
    case RoundMode::round: return "round";
    case RoundMode::floor: return "floor";
    case RoundMode::ceil: return "ceil";
    case RoundMode::trunc: return "trunc";
    case RoundMode::odd: return "odd";
  }
  return "?";
}

/// One vconv issue from src_type to dst_type. A repeat processes 256 / max(element sizes) = 64
/// lanes (every supported pair has a 32-bit side); lane k of an operand with E lanes per 32 B
/// block lives in its block k / E, so the 16-bit side of a repeat touches blocks 0..3 only.
/// The MASK applies to the 64 lanes (low word only). Block strides 0..65535, repeat strides
/// 0..255 (vconv's uint16 / uint8 fields).
struct CvtDesc {
  DType dst_type = DType::f16;
  DType src_type = DType::f32;
  RoundMode round = RoundMode::rint;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t src_block_stride = 1;
  uint32_t dst_repeat_stride = 4;
  uint32_t src_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
  Operand src{};
};

/// Supported (src, dst, round) triples on a2a3 (tilefw's set): exact widenings need `none`;
/// f32->f16 any rounding but none; f32->bf16 rint; i32->f32 rint; f32/f16->i32 rint, round,
/// floor, ceil or trunc.
constexpr bool supports_cvt(DType src, DType dst, RoundMode m) noexcept {
  const bool to_int = m == RoundMode::rint || m == RoundMode::round || m == RoundMode::floor ||
                      m == RoundMode::ceil || m == RoundMode::trunc;
  if (src == DType::f16 && dst == DType::f32) return m == RoundMode::none;
  if (src == DType::bf16 && dst == DType::f32) return m == RoundMode::none;
  if (src == DType::f32 && dst == DType::f16) return m != RoundMode::none && static_cast<uint8_t>(m) <= 6;
  if (src == DType::f32 && dst == DType::bf16) return m == RoundMode::rint;
  if (src == DType::i32 && dst == DType::f32) return m == RoundMode::rint;
  if ((src == DType::f32 || src == DType::f16) && dst == DType::i32) return to_int;
  return false;
}

// ---- validation ---------------------------------------------------------------------------------
namespace detail {

// Bursts of `len` bytes every `step` bytes: do any dst and src bursts share a byte?
constexpr bool bursts_overlap(uint64_t dbase, uint64_t dstep, uint64_t sbase, uint64_t sstep,
                              uint64_t n, uint64_t len, uint64_t& di, uint64_t& sj) noexcept {
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t c = static_cast<int64_t>(sbase) - static_cast<int64_t>(dbase + i * dstep);
    const Hit h = hit_range(c, static_cast<int64_t>(sstep), 0, static_cast<int64_t>(n) - 1,
                            -static_cast<int64_t>(len), static_cast<int64_t>(len));
    if (!h.empty()) {
      di = i;
      sj = static_cast<uint64_t>(h.first);
      return true;
    }
  }
  return false;
}

}  // namespace detail

/// Rules in order: nburst, burst_len, gaps, spaces, alignment (32 B), bounds, overlap.
constexpr DescReport validate(const CopyDesc& d) noexcept {
  DescReport r{};
  if (d.nburst == 0 || d.nburst > kMaxCopyBursts) {
    detail::fail(r, Status::desc_copy_burst_out_of_range, "nburst", d.nburst, kMaxCopyBursts);
    return r;
  }
  if (d.burst_len == 0 || d.burst_len > kMaxCopyBurstLen) {
    detail::fail(r, Status::desc_copy_burst_out_of_range, "burst_len", d.burst_len, kMaxCopyBurstLen);
    return r;
  }
  if (detail::check_stride(r, "src_gap", d.src_gap, chip::a2a3::kMaxWideStride) ||
      detail::check_stride(r, "dst_gap", d.dst_gap, chip::a2a3::kMaxWideStride)) {
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "src.space", d.src)) return r;
  constexpr uint32_t kB = chip::a2a3::kBlockBytes;
  r.repeats = d.nburst;
  if (d.dst.offset % chip::a2a3::kUbAlign != 0) {
    r.byte_offset = d.dst.offset;
    detail::fail(r, Status::misaligned, "dst.offset", d.dst.offset, chip::a2a3::kUbAlign);
    return r;
  }
  if (d.src.offset % chip::a2a3::kUbAlign != 0) {
    r.byte_offset = d.src.offset;
    detail::fail(r, Status::misaligned, "src.offset", d.src.offset, chip::a2a3::kUbAlign);
    return r;
  }
  const uint64_t len = uint64_t{d.burst_len} * kB;
  const uint64_t dstep = (uint64_t{d.burst_len} + d.dst_gap) * kB;
  const uint64_t sstep = (uint64_t{d.burst_len} + d.src_gap) * kB;
  const uint64_t n = d.nburst;
  const uint64_t dend = d.dst.offset + (n - 1) * dstep + len;
  const uint64_t send = d.src.offset + (n - 1) * sstep + len;
  if (dend > chip::a2a3::kUbBytes) {
    r.byte_offset = d.dst.offset;
    detail::fail(r, Status::out_of_bounds, "dst", detail::sat32(dend), chip::a2a3::kUbBytes);
    return r;
  }
  if (send > chip::a2a3::kUbBytes) {
    r.byte_offset = d.src.offset;
    detail::fail(r, Status::out_of_bounds, "src", detail::sat32(send), chip::a2a3::kUbBytes);
    return r;
  }
  r.touches_reserved_ub = (dend > chip::a2a3::kUbUsableBytes) || (send > chip::a2a3::kUbUsableBytes);
  const bool hulls_meet = d.dst.offset < send && d.src.offset < dend;
  uint64_t i = 0;
  uint64_t j = 0;
  if (hulls_meet && detail::bursts_overlap(d.dst.offset, dstep, d.src.offset, sstep, n, len, i, j)) {
    r.byte_offset = d.dst.offset + i * dstep;
    r.repeat_index = i;
    r.other = "src";
    r.other_offset = d.src.offset + j * sstep;
    r.other_repeat = j;
    detail::fail(r, Status::illegal_overlap, "dst", detail::sat32(r.byte_offset));
  }
  return r;
}

/// Rules in order: repeat/count/tail/flags (as the arithmetic issues), dst strides, dst block
/// stride 0, dtype, space, NOP, alignment, bounds.
constexpr DescReport validate(const DupDesc& d, DType dt, Mask128 live_mask = Mask128::all()) noexcept {
  DescReport r{};
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  if (detail::check_common(r, c, dt)) return r;
  if (detail::check_stride(r, "dst_block_stride", d.dst_block_stride, chip::a2a3::kMaxWideStride) ||
      detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, chip::a2a3::kMaxWideStride)) {
    return r;
  }
  if (d.dst_block_stride == 0) {
    detail::fail(r, Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
    return r;
  }
  if (!supports_dup(dt)) {
    detail::fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst)) return r;
  detail::Lanes l{};
  if (!detail::plan_lanes(l, c, dt, live_mask)) {
    r.nop = true;
    return r;
  }
  detail::View v[1]{};
  detail::elementwise_view(v[0], "dst", "dst.offset", d.dst, d.dst_block_stride, d.dst_repeat_stride, l);
  detail::memory_rules(r, v, 1, l.repeats, 0);
  return r;
}

/// Rules in order: repeat/count/tail/flags (lanes of the 32-bit side), strides, dst block
/// stride 0, (src, dst, round) triple, spaces, NOP, alignment, bounds, overlap.
constexpr DescReport validate(const CvtDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  DescReport r{};
  const uint32_t ds = dtype_size(d.dst_type);
  const uint32_t ss = dtype_size(d.src_type);
  const DType wide = ds >= ss ? d.dst_type : d.src_type;
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  if (detail::check_common(r, c, wide)) return r;
  constexpr uint32_t kW = chip::a2a3::kMaxWideStride;
  constexpr uint32_t kN = chip::a2a3::kMaxBinaryStride;
  if (detail::check_stride(r, "dst_block_stride", d.dst_block_stride, kW) ||
      detail::check_stride(r, "src_block_stride", d.src_block_stride, kW) ||
      detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, kN) ||
      detail::check_stride(r, "src_repeat_stride", d.src_repeat_stride, kN)) {
    return r;
  }
  if (d.dst_block_stride == 0) {
    detail::fail(r, Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
    return r;
  }
  if (!supports_cvt(d.src_type, d.dst_type, d.round)) {
    detail::fail(r, Status::desc_conversion_unsupported, "round", static_cast<uint32_t>(d.round));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "src.space", d.src)) return r;
  detail::Lanes l{};
  if (!detail::plan_lanes(l, c, wide, live_mask)) {
    r.nop = true;
    return r;
  }
  detail::Lanes ld = l;
  ld.per_block = chip::a2a3::kBlockBytes / ds;
  detail::Lanes ls = l;
  ls.per_block = chip::a2a3::kBlockBytes / ss;
  detail::View v[2]{};
  detail::elementwise_view(v[0], "dst", "dst.offset", d.dst, d.dst_block_stride, d.dst_repeat_stride, ld);
  detail::elementwise_view(v[1], "src", "src.offset", d.src, d.src_block_stride, d.src_repeat_stride, ls);
  detail::memory_rules(r, v, 2, l.repeats, 0);
  return r;
}

}  // namespace tilefw::desc
