// What a multi-chip System (sg2260/system.hpp) asks of a chip's Simulator: its next event, the
// run's outcome without running, and the chip-wide message counters its CDMA threads share
// with the engines (Rule: chip-wide barrier counters). Single-chip runs reach only outcome(),
// through run().
#include <cstdint>

#include "sg2260/sim.hpp"

namespace tilefw::port::host::sg2260 {

namespace regs = chip::sg2260::regs;

Status Simulator::outcome() const noexcept {
  Status result = Status::ok;
  for (const Engine& en : engines_) {
    if (en.state == regs::kFault) return en.fault_code;
    if (en.state == regs::kBlockedDep || en.state == regs::kBlockedMsg) result = Status::rt_deadlock;
    if (en.state == regs::kRunning && en.hung && result == Status::ok) result = Status::rt_timeout;
  }
  return result;
}

uint64_t Simulator::next_event_time() const noexcept {
  const int i = next_event();
  return i < 0 ? UINT64_MAX : event_time(static_cast<size_t>(i));
}

void Simulator::signal_message(uint32_t msg_id) {
  msg_count_[msg_id]++;
  wake_msg(msg_id, machine_.now());
}

bool Simulator::pass_message(uint32_t msg_id, uint32_t cnt) {
  if (msg_count_[msg_id] < cnt) return false;
  if (++msg_passed_[msg_id] >= cnt) {
    msg_passed_[msg_id] = 0;
    msg_count_[msg_id] = 0;
  }
  return true;
}

}  // namespace tilefw::port::host::sg2260
