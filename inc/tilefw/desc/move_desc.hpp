// Data-movement descriptors of the a2a3 vector pipe that the tile planner needs beside the
// arithmetic ones: UB-to-UB copy (copy_ubuf_to_ubuf), duplicate (vector_dup), conversion
// (vconv) and block broadcast (vbrcb), each with a pure constexpr validate() in rule order.
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

// ---- block broadcast --------------------------------------------------------------------------
/// vbrcb(dst, src, dstBlockStride, dstRepeatStride, repeat), b16 and b32 elements (E = 32 /
/// sizeof(T) per block). Repeat r reads the 8 consecutive elements src[8r .. 8r+7] (32 B for
/// b32, 16 B for b16: the source advances by 8 elements per repeat, there is no source stride)
/// and writes 8 dst blocks: block k, at dst + (r * dst_repeat_stride + k * dst_block_stride) *
/// 32, receives E copies of src[8r + k]. Strides are in 32 B blocks, 0..65535 (Ascend C's
/// BrcbRepeatParams are uint16). It has no mask and no mode: MASK and CTRL are ignored, every
/// repeat writes all 8 blocks. Offsets must be 32 B aligned (so a b16 issue that continues
/// another must start at an even repeat). tilefw rules: repeat 1..255 (there is no count mode,
/// so 0 is simply out of range); dst_block_stride 0 is rejected (8 writes to one block, as
/// dstBlkStride 0 elsewhere); the bytes read and the bytes written are disjoint.
struct BrcbDesc {
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t dst_repeat_stride = 8;
  Operand dst{};
  Operand src{};
};

constexpr bool supports_brcb(DType t) noexcept { return dtype_size(t) == 2 || dtype_size(t) == 4; }

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
[[nodiscard]] constexpr DescReport validate(const CopyDesc& d) noexcept {
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

/// Rules in order: repeat, strides, dst block stride 0, dtype, spaces, alignment (32 B), bounds
/// (dst, then src), overlap. Reports name the field; memory rules give the byte offset, repeat
/// and block of the first failing dst block (overlap: and the first src byte it meets).
[[nodiscard]] constexpr DescReport validate(const BrcbDesc& d, DType dt) noexcept {
  DescReport r{};
  constexpr uint32_t kB = chip::a2a3::kBlockBytes;
  constexpr uint32_t kMaxRep = chip::a2a3::kMaxRepeat;
  if (d.repeat == 0 || d.repeat > kMaxRep) {
    detail::fail(r, Status::desc_repeat_out_of_range, "repeat", d.repeat, kMaxRep);
    return r;
  }
  if (detail::check_stride(r, "dst_block_stride", d.dst_block_stride, chip::a2a3::kMaxWideStride) ||
      detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, chip::a2a3::kMaxWideStride)) {
    return r;
  }
  if (d.dst_block_stride == 0) {
    detail::fail(r, Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
    return r;
  }
  if (!supports_brcb(dt)) {
    detail::fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "src.space", d.src)) return r;
  r.repeats = d.repeat;
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
  const uint64_t ub = chip::a2a3::kUbBytes;
  const uint64_t n = d.repeat;
  const uint64_t rep = uint64_t{d.dst_repeat_stride} * kB;
  const uint64_t blk = uint64_t{d.dst_block_stride} * kB;
  const uint64_t src_bytes = 8 * uint64_t{dtype_size(dt)};  // per repeat
  // Strides are non-negative and block 7 lies highest in a repeat: the far end is block 7 of
  // the last repeat. The first failing block: the first repeat whose block 7 leaves UB, then
  // its first block that does.
  const uint64_t dend = d.dst.offset + (n - 1) * rep + 7 * blk + kB;
  if (dend > ub) {
    const uint64_t end7 = d.dst.offset + 7 * blk + kB;  // repeat 0
    const uint64_t fr = (end7 > ub || rep == 0) ? 0 : (ub - end7) / rep + 1;
    const uint64_t start = d.dst.offset + fr * rep;
    const uint64_t fk = start + kB > ub ? 0 : (ub - start - kB) / blk + 1;
    r.byte_offset = start + fk * blk;
    r.repeat_index = fr;
    r.block_index = static_cast<uint32_t>(fk);
    detail::fail(r, Status::out_of_bounds, "dst", detail::sat32(r.byte_offset), chip::a2a3::kUbBytes);
    return r;
  }
  const uint64_t send = d.src.offset + n * src_bytes;
  if (send > ub) {
    r.repeat_index = d.src.offset >= ub ? 0 : (ub - d.src.offset) / src_bytes;  // first repeat past UB
    r.byte_offset = d.src.offset + r.repeat_index * src_bytes;
    detail::fail(r, Status::out_of_bounds, "src", detail::sat32(r.byte_offset), chip::a2a3::kUbBytes);
    return r;
  }
  r.touches_reserved_ub = dend > chip::a2a3::kUbUsableBytes || send > chip::a2a3::kUbUsableBytes;
  // Overlap: the source is one contiguous range [src, send); per dst block index k the
  // repeats whose block meets it form one range (found in O(1)); report the earliest repeat.
  const int64_t s0 = d.src.offset;
  bool found = false;
  int64_t best_r = 0;
  uint32_t best_k = 0;
  for (uint32_t k = 0; k < chip::a2a3::kBlocksPerRepeat; ++k) {
    const int64_t c = static_cast<int64_t>(d.dst.offset + k * blk) - s0;
    const detail::Hit h = detail::hit_range(c, static_cast<int64_t>(rep), 0, static_cast<int64_t>(n) - 1,
                                            -static_cast<int64_t>(kB), static_cast<int64_t>(send) - s0);
    if (!h.empty() && (!found || h.first < best_r)) {
      found = true;
      best_r = h.first;
      best_k = k;
    }
  }
  if (found) {
    const uint64_t p = d.dst.offset + static_cast<uint64_t>(best_r) * rep + best_k * blk;
    const uint64_t q = p > d.src.offset ? p : d.src.offset;  // first shared byte
    r.byte_offset = p;
    r.repeat_index = static_cast<uint64_t>(best_r);
    r.block_index = best_k;
    r.other = "src";
    r.other_offset = q;
    r.other_repeat = (q - d.src.offset) / src_bytes;
    detail::fail(r, Status::illegal_overlap, "dst", detail::sat32(p));
  }
  return r;
}

/// Rules in order: repeat/count/tail/flags (as the arithmetic issues), dst strides, dst block
/// stride 0, dtype, space, NOP, alignment, bounds.
[[nodiscard]] constexpr DescReport validate(const DupDesc& d, DType dt, Mask128 live_mask = Mask128::all()) noexcept {
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
[[nodiscard]] constexpr DescReport validate(const CvtDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
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
