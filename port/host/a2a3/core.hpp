// One simulated a2a3 AI Core on a Machine: the vector unit, the cube, the four tile-move DMAs
// and the sync unit, all sharing one pipe tracker (events and the hazard check). Host-only.
#pragma once

#include "a2a3/pipes.hpp"
#include "a2a3/tile_engines.hpp"
#include "a2a3/vector_unit.hpp"
#include "machine.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::port::host {

/// Attach one to a Machine built with kProfileA2a3 (which maps every a2a3 memory and register
/// window) and every tile instruction of tilefw::tile executes on it. Neither copyable nor
/// movable: the engines' register hooks point at it.
class A2a3Core {
 public:
  explicit A2a3Core(Machine& machine);
  /// The profile of its machine: a5 on a kProfileA5 machine (without kProfileA2a3), else
  /// a2a3. A tile::Core driving this core takes it (tile::Core::chip).
  chip::Chip chip() const noexcept { return chip_; }
  A2a3Core(const A2a3Core&) = delete;
  A2a3Core& operator=(const A2a3Core&) = delete;

  PipeTracker& pipes() noexcept { return pipes_; }
  const PipeTracker& pipes() const noexcept { return pipes_; }
  A2a3VectorUnit& vector_unit() noexcept { return vector_; }
  A2a3Cube& cube() noexcept { return cube_; }
  A2a3MoveEngine& mte2() noexcept { return mte2_; }
  A2a3MoveEngine& mte1() noexcept { return mte1_; }
  A2a3MoveEngine& mte3() noexcept { return mte3_; }
  A2a3MoveEngine& fix() noexcept { return fix_; }
  /// The pipes' clocks: every engine times its issues here.
  timing::PipeTimer& timer() noexcept { return timer_; }
  const timing::PipeTimer& timer() const noexcept { return timer_; }

 private:
  timing::PipeTimer timer_;
  PipeTracker pipes_;
  A2a3VectorUnit vector_;
  A2a3Cube cube_;
  A2a3MoveEngine mte2_;
  A2a3MoveEngine mte1_;
  A2a3MoveEngine mte3_;
  A2a3MoveEngine fix_;
  chip::Chip chip_;
};

}  // namespace tilefw::port::host
