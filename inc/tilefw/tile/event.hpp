// Events and the caller-owned tile context: every tile instruction returns the Event of its
// last issue and takes Events to wait on (PTO's RecordEvent / WaitEvents), through the sync unit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"

namespace tilefw::tile {

using chip::a2a3::Pipe;

/// "Instruction `seq` of `pipe` is done": what a consumer on another pipe waits for before it
/// reads that instruction's output. seq 0 means nothing to wait for (an instruction that issued
/// nothing, or a default Event).
struct Event {
  Pipe pipe = Pipe::V;
  uint32_t seq = 0;
};

/// Caller-owned state of the tile instructions on one AI Core: the vector unit's mask shadow,
/// the planner's scratch (a few KB: firmware keeps one per core) and the report of the last
/// failure (which field or operand a planner or descriptor rule rejected).
struct Core {
  issue::VectorUnit vu{};
  plan::Plan plan{};
  desc::DescReport last_report{};
  /// The chip profile this core follows where a2a3 and A5 differ (docs/a5-profile.md).
  chip::Chip chip = chip::kBuildChip;
};

/// Makes pipe `waiter` wait for each event of another pipe (same-pipe events are already
/// ordered and cost nothing). ok, or the sync unit's status for the first wait that failed
/// (sim_wait_never_signalled).
[[nodiscard]] Status wait_events(Pipe waiter, const Event* events, size_t count) noexcept;

/// The event of `pipe`'s latest instruction.
Event latest_event(Pipe pipe) noexcept;

/// TSYNC: pipe `waiter` waits for `events` (instructions on `waiter` issued afterwards see
/// their results).
template <class... W>
[[nodiscard]] Status TSYNC(Core&, Pipe waiter, const W&... events) noexcept {
  static_assert((std::is_same_v<W, Event> && ...), "Fix: TSYNC waits on tile::Event values");
  const Event list[sizeof...(W) + 1] = {events..., Event{}};
  return wait_events(waiter, list, sizeof...(W));
}

/// pipe_barrier(PIPE_ALL): every pipe waits for everything issued so far.
void pipe_barrier(Core&) noexcept;

}  // namespace tilefw::tile
