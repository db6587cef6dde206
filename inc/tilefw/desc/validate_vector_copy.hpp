// The rules of the vector pipe's copies (UB-to-UB copy, block broadcast, duplicate): field
// ranges, supported types, and a pure constexpr validate() per descriptor in rule order.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_copy_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

/// UB-to-UB copy ranges (the CCE prototype's field widths): nburst 1..4095, burst_len 1..65535.
inline constexpr uint32_t kMaxCopyBursts = 4095;
inline constexpr uint32_t kMaxCopyBurstLen = 65535;

/// vbrcb moves b16 and b32 elements.
constexpr bool supports_brcb(DType t) noexcept { return dtype_size(t) == 2 || dtype_size(t) == 4; }

/// vector_dup's types: i16, u16, f16, bf16, i32, u32, f32.
constexpr bool supports_dup(DType t) noexcept {
  return t == DType::i16 || t == DType::u16 || t == DType::f16 || t == DType::bf16 ||
         t == DType::i32 || t == DType::u32 || t == DType::f32;
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
[[nodiscard]] constexpr DescReport validate(const CopyDesc& d, chip::Chip on = chip::kBuildChip) noexcept {
  DescReport r{};
  const detail::UbBounds ub = detail::ub_bounds(on);
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
  if (dend > ub.bytes) {
    r.byte_offset = d.dst.offset;
    detail::fail(r, Status::out_of_bounds, "dst", detail::sat32(dend), detail::sat32(ub.bytes));
    return r;
  }
  if (send > ub.bytes) {
    r.byte_offset = d.src.offset;
    detail::fail(r, Status::out_of_bounds, "src", detail::sat32(send), detail::sat32(ub.bytes));
    return r;
  }
  r.touches_reserved_ub = (dend > ub.usable) || (send > ub.usable);
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
[[nodiscard]] constexpr DescReport validate(const BrcbDesc& d, DType dt, chip::Chip on = chip::kBuildChip) noexcept {
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
  const detail::UbBounds bounds = detail::ub_bounds(on);
  const uint64_t ub = bounds.bytes;
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
    detail::fail(r, Status::out_of_bounds, "dst", detail::sat32(r.byte_offset), detail::sat32(ub));
    return r;
  }
  const uint64_t send = d.src.offset + n * src_bytes;
  if (send > ub) {
    r.repeat_index = d.src.offset >= ub ? 0 : (ub - d.src.offset) / src_bytes;  // first repeat past UB
    r.byte_offset = d.src.offset + r.repeat_index * src_bytes;
    detail::fail(r, Status::out_of_bounds, "src", detail::sat32(r.byte_offset), detail::sat32(ub));
    return r;
  }
  r.touches_reserved_ub = dend > bounds.usable || send > bounds.usable;
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
[[nodiscard]] constexpr DescReport validate(const DupDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
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
  detail::memory_rules(r, v, 1, l.repeats, 0, detail::ub_bounds(on));
  return r;
}

}  // namespace tilefw::desc
