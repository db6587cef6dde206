// The a2a3 AI Core of the simulator: engines wired to one pipe tracker.
#include "a2a3/core.hpp"

#include "a2a3/chip_of.hpp"

namespace tilefw::port::host {

A2a3Core::A2a3Core(Machine& machine)
    : pipes_(machine),
      vector_(machine, 0, &pipes_),
      cube_(machine, &pipes_),
      mte2_(machine, chip::a2a3::Pipe::MTE2, &pipes_),
      mte1_(machine, chip::a2a3::Pipe::MTE1, &pipes_),
      mte3_(machine, chip::a2a3::Pipe::MTE3, &pipes_),
      fix_(machine, chip::a2a3::Pipe::FIX, &pipes_),
      chip_(chip_of(machine)) {
  pipes_.set_timer(&timer_);
  vector_.set_timer(&timer_);
  cube_.set_timer(&timer_);
  for (A2a3MoveEngine* e : {&mte2_, &mte1_, &mte3_, &fix_}) e->set_timer(&timer_);
}

}  // namespace tilefw::port::host
