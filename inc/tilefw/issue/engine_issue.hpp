// Single-issue emission for the a2a3 engines beside the vector unit: a tile move on a move pipe
// (MTE2/MTE1/MTE3/FIX), a matmul on the cube, and the sync unit's event wait and barrier.
#pragma once

#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/desc/validate_tile_move.hpp"
#include "tilefw/desc/validated.hpp"

namespace tilefw::issue {

/// Validates `d` completely; on failure returns its status having written nothing. Otherwise
/// writes the move registers of d.pipe's window (chip::a2a3::dreg), rings its doorbell once and
/// returns the STATUS the engine reports. `on`: the chip profile whose space sizes bound the
/// operands (the build's by default).
[[nodiscard]] Status issue_once(const desc::MoveDesc& d, desc::DescReport* report = nullptr,
                                chip::Chip on = chip::kBuildChip) noexcept;

/// The same for one cube matmul (chip::a2a3::creg).
[[nodiscard]] Status issue_once(const desc::MatmulDesc& d, desc::DescReport* report = nullptr,
                                chip::Chip on = chip::kBuildChip) noexcept;

/// The trusted path: a move or matmul validated once before (desc::Validator::check) becomes
/// its register writes and one doorbell, without validating again.
[[nodiscard]] Status emit(const desc::Validated<desc::MoveDesc>& v) noexcept;
[[nodiscard]] Status emit(const desc::Validated<desc::MatmulDesc>& v) noexcept;

/// Pipe `waiter` waits until pipe `producer` has completed its instruction number `seq` (an
/// event). Returns the sync unit's STATUS: ok, or sim_wait_never_signalled when `producer` has
/// not issued that many instructions. A wait on the waiter's own pipe is a no-op (pipes are in
/// order) and writes nothing.
[[nodiscard]] Status wait_event(chip::a2a3::Pipe producer, uint32_t seq, chip::a2a3::Pipe waiter) noexcept;

/// pipe_barrier(PIPE_ALL): every pipe waits for everything issued so far.
void barrier_all() noexcept;

/// Instructions pipe `p` has taken (its engine's doorbells since reset): the sequence number of
/// the pipe's latest instruction, i.e. the event of that instruction.
uint32_t pipe_count(chip::a2a3::Pipe p) noexcept;

/// One snapshot of the core's cycle counters (the sync unit's CYCLES and PIPE_BUSY): the cycle
/// at which everything issued so far completes and, per pipe (Pipe codes, then S), the cycles
/// it was occupied. All 0 on a core without a clock.
struct CycleCounters {
  uint64_t cycles = 0;
  uint64_t busy[chip::a2a3::sreg::kCounterPipes] = {};
};
/// Latches the counters (CYCLE_LATCH) and reads them.
CycleCounters read_cycle_counters() noexcept;
/// What the work between two snapshots cost (`to` minus `from`, per field; 0 where `to` is
/// not later).
constexpr CycleCounters elapsed(const CycleCounters& from, const CycleCounters& to) noexcept {
  CycleCounters d{};
  d.cycles = to.cycles > from.cycles ? to.cycles - from.cycles : 0;
  for (uint32_t i = 0; i < chip::a2a3::sreg::kCounterPipes; ++i) {
    d.busy[i] = to.busy[i] > from.busy[i] ? to.busy[i] - from.busy[i] : 0;
  }
  return d;
}

}  // namespace tilefw::issue
