// The PTO chip profiles side by side: a2a3 (Ascend 910B/910C) and a5 (Ascend 950). A build
// picks one for the tile API's static checks (TILEFW_CHIP_A5 defined: a5, else a2a3); a
// simulated core and a tile::Core carry one at run time (docs/a5-profile.md section 1).
#pragma once

#include <cstdint>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a5.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::chip {

enum class Chip : uint8_t { a2a3, a5 };

/// The profile the tile API's compile-time checks use.
#if defined(TILEFW_CHIP_A5)
inline constexpr Chip kBuildChip = Chip::a5;
#else
inline constexpr Chip kBuildChip = Chip::a2a3;
#endif

/// "a2a3" or "a5".
constexpr const char* chip_name(Chip c) noexcept { return c == Chip::a5 ? "a5" : "a2a3"; }

/// The region of `space` on `c`, or nullptr when the chip has no such space.
constexpr const MemoryRegion* region_of(Chip c, MemSpace space) noexcept {
  return c == Chip::a5 ? a5::region_of(space) : a2a3::region_of(space);
}
constexpr uint64_t region_size(Chip c, MemSpace space) noexcept {
  return c == Chip::a5 ? a5::region_size(space) : a2a3::region_size(space);
}
constexpr uint32_t region_alignment(Chip c, MemSpace space) noexcept {
  return c == Chip::a5 ? a5::region_alignment(space) : a2a3::region_alignment(space);
}

/// The start of the top of UB that Ascend C reserves for itself on a2a3 (its 184 KB temporary
/// buffer offset): touching it is legal for the vector unit and draws a diagnostic. No reserved
/// top is documented for A5 (tilefw decision: none, the whole UB is usable).
constexpr uint64_t ub_usable_bytes(Chip c) noexcept {
  return c == Chip::a5 ? a5::kUbBytes : a2a3::kUbUsableBytes;
}

/// Where a Left tile's (L0A) 512 B boxes of 16 rows x 32 B lie: a2a3 orders them row-major
/// ("Zz": the boxes of a row of boxes are adjacent), A5 column-major ("Nz": the boxes of a
/// column of boxes are adjacent); inside a box the elements are row-major on both
/// (documented: PTO's TileLeft alias per architecture, A5's TMATMUL and TMOV to Left require
/// a col-major outer, row-major inner Left tile; docs/a5-profile.md section 6).
constexpr bool left_boxes_col_major(Chip c) noexcept { return c == Chip::a5; }

/// TROWSUM / TROWMAX / TROWMIN valid-region checks at run time: a2a3 refuses an empty source
/// valid region and a dst valid row count other than src's; A5 has no such assertion and
/// reduces src's valid region as it is (docs/a5-profile.md section 4).
constexpr bool row_reduce_checks_valid_region(Chip c) noexcept { return c == Chip::a2a3; }

}  // namespace tilefw::chip
