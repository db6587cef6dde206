// The rules of the vector pipe's conversion (vconv): the supported (src, dst, round) triples
// and a pure constexpr validate() in rule order.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_convert_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

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

/// Rules in order: repeat/count/tail/flags (lanes of the 32-bit side), strides, dst block
/// stride 0, (src, dst, round) triple, spaces, NOP, alignment, bounds, overlap.
[[nodiscard]] constexpr DescReport validate(const CvtDesc& d, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
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
  detail::memory_rules(r, v, 2, l.repeats, 0, detail::ub_bounds(on));
  return r;
}

}  // namespace tilefw::desc
