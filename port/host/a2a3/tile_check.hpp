// The a2a3 tile engines' own decode checks (tile-move DMAs of MTE2/MTE1/MTE3/FIX, the cube):
// what each engine refuses, decided from the registers it decoded.
//
// Who is the oracle: this file, not the core (docs/ARCHITECTURE.md, "Who is the oracle"). The
// core validates a move or matmul before it writes a register (desc::validate of
// validate_tile_move.hpp / validate_matmul.hpp); raw register writes bypass that, and if the engines
// called the same code a bug in it would hide on both sides. So these checks are written from
// docs/a2a3-tile-model.md (2.1 boxes, 2.2 the matrix aliases' layouts, 4 the compile-time rules,
// 7.2 the TMATMUL shape rules) and the chip profile (space sizes and alignments, the move routes of
// chip/a2a3_engines.hpp), by a different method: the routes, element types, space layouts and
// cube type triples are tables, and an operand's bounds are found by walking the byte runs
// the engine touches (one per row or column, or the whole capacity when boxed) where the core
// uses a closed form. The statuses, the failing field and FAULT_OFFSET are the conformance
// ones, so registers the core would refuse fault here the same way
// (test/sim/a2a3/test_tile_check.cpp holds the two to the same verdict on random descriptors).
// Host-only.
#pragma once

#include <cstdint>

#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/data/matmul_desc.hpp"
#include "tilefw/desc/data/tile_move_desc.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host::tile_check {

/// ok (repeats = 1) or the first rule the move breaks, in this order: pipe and route, element
/// types, extent, each operand's layout and shape (src, then dst), then alignment and bounds
/// (src, then dst). Space sizes and alignments are the profile `on`'s.
desc::DescReport check_move(const desc::MoveDesc& d, chip::Chip on = chip::Chip::a2a3) noexcept;

/// ok (repeats = 1) or the first rule the cube issue breaks, in this order: kind, type triple,
/// m/k/n range, operand shapes against m/k/n, each operand's boxes, alignment and bounds (A,
/// B, C), then the bias row (TMATMUL_BIAS). Space sizes and alignments are the profile `on`'s.
desc::DescReport check_matmul(const desc::MatmulDesc& d, chip::Chip on = chip::Chip::a2a3) noexcept;

}  // namespace tilefw::port::host::tile_check
