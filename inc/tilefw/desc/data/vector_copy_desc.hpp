// Descriptors of the a2a3 vector pipe's copies: UB-to-UB copy (copy_ubuf_to_ubuf), block
// broadcast (vbrcb) and duplicate of a scalar (vector_dup). Data only: the rules that accept
// them are in tilefw/desc/validate_vector_copy.hpp.
#pragma once

#include <cstdint>

#include "tilefw/desc/data/vector_desc.hpp"

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

// ---- duplicate --------------------------------------------------------------------------------
/// vector_dup: every participating dst lane receives the scalar (raw bits of T, low 16 bits for
/// 16-bit types). Same repeat / mask / count rules as the arithmetic issues; dst strides are
/// uint16. Types (docs/a2a3-vector-semantics.md section 6.1 Duplicate): i16, u16, f16, bf16, i32,
/// u32, f32.
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

}  // namespace tilefw::desc
