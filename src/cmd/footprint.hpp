// Internal to the cmd layer: what one operand of a command touches (its footprint) and the
// checks that put it inside LMEM, SMEM, L2 or a DDR region (used by validate_tiu/validate_dma).
#pragma once

#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::cmd::detail {

/// A failed check: the Status, the field at fault (its spec name) and a short reason.
struct Fail {
  Status status;
  const char* field;
  const char* message;
  constexpr bool ok() const noexcept { return status == Status::ok; }
};
inline constexpr Fail kPass{Status::ok, "", ""};

/// Element size of a TIU precision code (spec 1.7); 0 = not byte-addressable (INT4: no footprint).
constexpr uint32_t tiu_esize(uint32_t prec) noexcept {
  constexpr uint8_t k[8] = {1, 2, 4, 2, 4, 2, 0, 1};
  return k[prec & 7];
}
inline constexpr uint32_t kBadFormat = 0xFFFFFFFFu;
/// Element size of a DMA data format (spec 2.3); 0 = no footprint (INT4, FP20); kBadFormat > 9.
constexpr uint32_t dma_esize(uint32_t format) noexcept {
  constexpr uint8_t k[10] = {1, 2, 4, 2, 4, 2, 0, 1, 0, 4};
  return format < 10 ? k[format] : kBadFormat;
}

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) noexcept { return (a + b - 1) / b; }

// What one operand touches. Linear side (DDR, L2, SMEM): `linear_bytes` from the start address.
// LMEM side, for start lane L0 and in-lane offset O (the lane rule of vectors/sg2260-mm0):
// the last byte is below
//   O + (base + ((L0 + lanes - 1) / 64) * cs + n_minus_1 * ns) * esize
// where ns = ceil((L0 + lanes) / 64) * cs in alignEU mode (`align_eu_ns`).
struct Footprint {
  bool known = false;
  uint64_t linear_bytes = 0;
  uint64_t base = 0;  // elements inside one lane row: h/w extents + 1
  uint64_t lanes = 1;
  uint64_t cs = 0;
  uint64_t n_minus_1 = 0;
  uint64_t ns = 0;
  bool align_eu_ns = false;
  bool flat_lmem = false;  // DMA general: [addr, addr + bytes) of the lane-major 16 MiB LMEM
  uint32_t esize = 0;
};

/// A 4-D tensor with explicit strides (elements): linear and LMEM views of the same shape.
/// Unknown (start address only) when a dimension or the element size is 0.
Footprint tensor_footprint(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                           uint64_t hs, uint64_t ws, uint32_t esize) noexcept;
/// The same tensor in the alignEU layout (decision 5, mode 0): cs = h*w rounded up to 64 B of
/// elements, hs = w, ws = 1, ns = ceil((L0 + c) / 64) * cs.
Footprint align_eu_footprint(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint32_t esize) noexcept;

/// A local (TIU, or tag-31 DMA) address: bits 31:27 (DMA: 39:27) name no memory, bits 25:24
/// would be lanes 64..255, SMEM (bit 26) has 64 KiB; then the footprint inside its lane
/// (LMEM) or inside SMEM (linear footprints only: TIU operands in SMEM get a start check).
Fail check_local(uint64_t local, const Footprint& f, const char* field) noexcept;
/// A 45-bit DMA address by its tag: LMEM/SMEM (31), L2 (30), DDR (1..29; 0 names no region),
/// then the footprint inside LMEM, L2, or the DDR region of the memory map (or the tag's
/// 40-bit space without a map).
Fail check_dma_addr(uint64_t addr, const Footprint& f, const char* field,
                    const ValidateOptions& o) noexcept;

}  // namespace tilefw::cmd::detail

namespace tilefw::cmd {
struct Command;
}

namespace tilefw::cmd::detail {
/// Every operand check of one TIU command (validate_tiu.cpp) or DMA command (validate_dma.cpp):
/// the operands its class uses, each address, then each footprint the layout defines.
Fail check_tiu(const Command& c) noexcept;
Fail check_dma(const Command& c, const ValidateOptions& o) noexcept;
}  // namespace tilefw::cmd::detail
