// The descriptor of the a2a3 vector pipe's element gather (vgather). Data only: the rules that
// accept it are in tilefw/desc/validate_vector_gather.hpp.
#pragma once

#include <cstdint>

#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::desc {

/// vgather(dst, offsets, base, dstRepeatStride, repeat), b16 and b32 elements: repeat r reads N
/// = 256 / sizeof(T) u32 byte offsets, contiguous, from `offsets` + r * N * 4 (128 offsets,
/// 512 B, for b16; 64, 256 B, for b32) and writes lane k of dst repeat r (the 256 B at dst +
/// r * dst_repeat_stride * 32) with the element at UB byte `base` + offset[k], for the lanes
/// MASK (or the counter) selects; other lanes keep their bytes. The offsets may repeat.
/// Fields: repeat 1..255 (normal) or 0 (count mode: vector_count elements), dst_repeat_stride
/// 0..4095 (32 B units), base 0..2^32-1 (bytes). tilefw rules beyond the ISA's page: dst,
/// offsets 32 B aligned and inside UB; the offsets read and the bytes written are disjoint;
/// `base` aligned to the element size. The unit (not this descriptor) checks each gathered
/// address when the issue runs: base + offset must be element aligned and inside UB, or the
/// issue faults and writes nothing (docs/a2a3-vector-semantics.md section 13).
struct GatherDesc {
  uint32_t repeat = 1;
  uint32_t dst_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  uint32_t base = 0;
  Operand dst{};
  Operand offsets{};
};

}  // namespace tilefw::desc
