// #include <pto/pto-inst.hpp>: PTO Tile Lib's spellings in namespace pto over tilefw's tile layer
// (docs/pto-api.md): Tile, TileType, BLayout, SLayout, PadValue, TileConfig, GlobalTensor,
// TASSIGN as a statement, the tile instructions tilefw implements under their PTO signatures
// returning RecordEvent, Event<Src, Dst>, set_flag / wait_flag, TBIN_INTRIN with
// BinIntrinsicDesc. The AI Core is the thread's current pto::Context (pto::host::Core on the
// simulator). Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>

#include "pto/bin_intrin.hpp"
#include "pto/context.hpp"
#include "pto/forward.hpp"
#include "pto/global.hpp"
#include "pto/instr.hpp"
#include "pto/instr_compare.hpp"
#include "pto/instr_layout.hpp"
#include "pto/instr_select.hpp"
#include "pto/sync.hpp"
#include "pto/types.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/plan/plan.hpp"

namespace pto {

/// TASSIGN(tile, addr): binds the tile to byte offset `addr` of its TileType's space (manual
/// placement). A misaligned or out-of-space address (tile_misaligned, tile_out_of_bounds), or
/// bytes an Auto-placed tile already holds (illegal_overlap), is a failure of the kernel and
/// leaves the tile unplaced. Preferred over tilefw::tile::TASSIGN (found by argument-dependent
/// lookup too) because it is constrained to tiles.
template <class T>
  requires detail::kIsTile<T>
void TASSIGN(T& tile, uint64_t addr) noexcept {
  constexpr tilefw::chip::MemSpace space = tilefw::tile::space_of(T::Loc);
  Context* c = detail::usable();
  // The current core's profile bounds the space (an A5 core's UB is 256 KB).
  const tilefw::chip::Chip on = c != nullptr ? c->tile.chip : tilefw::chip::kBuildChip;
  const tilefw::Status s = tilefw::plan::check_placement(space, addr, T::Bytes, on);
  if (s != tilefw::Status::ok) {
    if (c != nullptr) {
      tilefw::desc::DescReport r{};
      r.status = s;
      r.field = "tile";
      // What the tile asked (its bytes), where (the address) and, out of bounds, what the
      // space has left from there.
      const uint64_t size = tilefw::chip::region_size(on, space);
      const uint64_t left = addr >= size ? 0 : size - addr;
      r.value = static_cast<uint32_t>(T::Bytes);
      r.byte_offset = addr;
      r.limit = s == tilefw::Status::tile_out_of_bounds ? static_cast<uint32_t>(left > UINT32_MAX ? UINT32_MAX : left) : 0;
      detail::fail(*c, "TASSIGN", r, space);
    }
    return;
  }
  if (c != nullptr && !detail::note_manual(*c, space, addr, T::Bytes)) return;
  (void)tilefw::tile::assign_checked(tile, addr, on);
}

}  // namespace pto
