// The rules an a2a3 vgather descriptor (desc/data/vector_gather_desc.hpp) must pass before it
// is issued; the same report conventions as the other vector validators.
#pragma once

#include "tilefw/desc/data/vector_gather_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

/// vgather's element types: the 2- and 4-byte ones.
constexpr bool supports_gather(DType t) noexcept { return dtype_size(t) == 2 || dtype_size(t) == 4; }

/// Most dst repeat stride vgather's field holds (uint16 prototype, 0..4095 documented).
inline constexpr uint32_t kMaxGatherRepeatStride = 4095;

/// Rules in order: repeat/count/tail (as the arithmetic issues), dst_repeat_stride, dtype,
/// spaces, base alignment, NOP, then alignment, bounds and overlap of dst (the blocks the
/// lanes in effect write) and the offsets (every offset of every repeat, 4 B each).
[[nodiscard]] constexpr DescReport validate(const GatherDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
  DescReport r{};
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements, false, false};
  if (detail::check_common(r, c, dt)) return r;
  if (detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, kMaxGatherRepeatStride)) return r;
  if (!supports_gather(dt)) {
    detail::fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "offsets.space", d.offsets)) return r;
  if (d.base % dtype_size(dt) != 0) {
    r.byte_offset = d.base;
    detail::fail(r, Status::misaligned, "base", d.base, dtype_size(dt));
    return r;
  }
  detail::Lanes l{};
  if (!detail::plan_lanes(l, c, dt, live_mask)) {
    r.nop = true;
    return r;
  }
  detail::View v[2]{};
  detail::elementwise_view(v[0], "dst", "dst.offset", d.dst, 1, d.dst_repeat_stride, l);
  const uint32_t offset_bytes = l.epr * 4;  // one u32 per lane, whatever the mask
  v[1].name = "offsets";
  v[1].offset_field = "offsets.offset";
  v[1].base = d.offsets.offset;
  v[1].rep_bytes = offset_bytes;
  v[1].body.add(0, offset_bytes, 0);
  v[1].last.add(0, offset_bytes, 0);
  detail::memory_rules(r, v, 2, l.repeats, 0, detail::ub_bounds(on));
  if (!r.ok()) return r;
  // tilefw rule: no dst block written may share a byte with the offsets the issue reads (any
  // repeat, any block: the offsets are not elementwise with dst). The earliest repeat, then block.
  constexpr int64_t kB = chip::a2a3::kBlockBytes;
  const int64_t s0 = d.offsets.offset;
  const int64_t send = s0 + static_cast<int64_t>(l.repeats) * offset_bytes;
  const int64_t rep = int64_t{d.dst_repeat_stride} * kB;
  const int64_t last = static_cast<int64_t>(l.repeats) - 1;
  const uint32_t bits[2] = {detail::block_bits(l.body, l.per_block), detail::block_bits(l.last, l.per_block)};
  bool found = false;
  int64_t best_r = 0;
  uint32_t best_k = 0;
  for (uint32_t k = 0; k < chip::a2a3::kBlocksPerRepeat; ++k) {
    const int64_t c = static_cast<int64_t>(d.dst.offset) + k * kB;
    for (int part = 0; part < 2; ++part) {
      if (((bits[part] >> k) & 1u) == 0) continue;
      const int64_t r0 = part == 0 ? 0 : last;
      const int64_t r1 = part == 0 ? last - 1 : last;
      const detail::Hit h = detail::hit_range(c, rep, r0, r1, s0 - kB, send);
      if (!h.empty() && (!found || h.first < best_r || (h.first == best_r && k < best_k))) {
        found = true;
        best_r = h.first;
        best_k = k;
      }
    }
  }
  if (found) {
    const uint64_t p = d.dst.offset + static_cast<uint64_t>(best_r * rep) + best_k * kB;
    r.byte_offset = p;
    r.repeat_index = static_cast<uint64_t>(best_r);
    r.block_index = best_k;
    r.other = "offsets";
    r.other_offset = p > d.offsets.offset ? p : d.offsets.offset;
    detail::fail(r, Status::illegal_overlap, "dst", detail::sat32(p));
  }
  return r;
}

}  // namespace tilefw::desc
