// What a GDMA/SDMA command touches outside local memory: the element size of a DMA data format,
// the extent of a strided N x C x H x W shape, and each operand's linear byte range. One rule,
// used by validation (validate_stream checks these ranges against the memory map), by the
// runtime through validation, and by the host tools that size a model's DDR regions, so a
// region built from these ranges is exactly one that validation accepts.
#pragma once

#include <cstdint>

namespace tilefw::cmd {

struct Command;

/// dma_element_bytes of a format code above 9 (the 4-bit field has no meaning there).
inline constexpr uint32_t kBadDmaFormat = 0xFFFFFFFFu;

/// Bytes per element of a DMA data format, the GDMA/SDMA src_data_format code (the DMA never
/// converts, so it sizes both sides): 0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16,
/// 6 FP20, 7 FP8 E4M3, 8 FP8 E5M2; 9 is named by no format and is sized as the widest (4).
/// FP20 gives 0: its 20-bit elements are not byte-addressable, so its operands have no byte
/// footprint (only their start address is checked). kBadDmaFormat above 9.
constexpr uint32_t dma_element_bytes(uint32_t format) noexcept {
  constexpr uint8_t kBytes[10] = {1, 2, 4, 2, 4, 2, 0, 1, 1, 4};
  return format < 10 ? kBytes[format] : kBadDmaFormat;
}

/// Elements from the first element of an N x C x H x W shape to its last, inclusive, with
/// strides in elements: (n-1)*ns + (c-1)*cs + (h-1)*hs + (w-1)*ws + 1. 0 when a dimension is 0.
/// Sixteen-bit sizes and 32-bit strides keep it far below 2^64.
constexpr uint64_t strided_span(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                                uint64_t hs, uint64_t ws) noexcept {
  if (n == 0 || c == 0 || h == 0 || w == 0) return 0;
  return (n - 1) * ns + (c - 1) * cs + (h - 1) * hs + (w - 1) * ws + 1;
}

/// One operand of a DMA command: its 45-bit DMA address and the bytes it spans from there when
/// the operand is linear (DDR, L2, SMEM; an LMEM operand's lanes are checked by validation).
/// `bytes` 0: only the start address is known (a data-dependent size, an FP20 or degenerate
/// shape, a layout the command set leaves open).
struct DmaOperand {
  bool used = false;
  uint64_t addr = 0;
  uint64_t bytes = 0;
};

/// The operands a DMA command reads or writes: source, destination and the extra operand of
/// gather/scatter (the uint32 index tensor) and masked_select (the mask, start only). A
/// tensor or general source replaced by fill_constant_en is not used. Only DMA classes have
/// operands (sys, compress and the lossy classes: none).
struct DmaOperands {
  DmaOperand src, dst, extra;
};

/// The operands of one GDMA/SDMA command, sized exactly as validate_stream sizes them. A
/// command validation would refuse for a field (data format above 9, a matrix section width
/// of 0, a tensor copy whose sides differ in element count) gets its start addresses only.
DmaOperands dma_operands(const Command& c) noexcept;

}  // namespace tilefw::cmd
