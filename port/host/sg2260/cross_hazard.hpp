// The cross-chip hazard check of a System (functional runs with check_hazards): on each chip,
// a local engine command that reads or writes bytes a CDMA recv or read of that chip wrote,
// with no message ordering the two, is a hazard (the data may not have arrived). Happens-
// before over the chip's 32 engines and its 20 CDMA threads with vector clocks: program order,
// cmd_id_dep between TIU and GDMA, and the chip's message barriers (a wait that passes is
// ordered after every send counted for it; a CDMA send_msg follows every earlier command of
// its thread). The single-chip checker (sg2260/hazard.hpp) keeps checking the engines among
// themselves; this one only adds CDMA writes against later local accesses. Host-only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sg2260/hazard.hpp"

namespace tilefw::port::host::sg2260 {

class CrossChipChecker {
 public:
  static constexpr uint32_t kEngines = 32;      // 8 cores x (TIU, GDMA, SDMA, HAU)
  static constexpr uint32_t kAgents = kEngines + 20;  // + 10 ports x (TX, RX)
  static constexpr size_t kMaxMessages = 20;

  explicit CrossChipChecker(uint32_t chip);
  /// A local engine's events (Simulator::SyncObserver).
  void on_start(uint32_t engine);
  void on_issue(uint32_t engine, uint32_t id, uint32_t dep_engine, uint32_t dep, int wait_msg, bool reset);
  void on_executed(uint32_t engine, const AccessLog& log);
  void on_complete(uint32_t engine, int send_msg);
  /// A CDMA thread (agent kEngines + port * 2 + thread) issues command `id` (a new epoch,
  /// returned); `wait_msg` >= 0 when it is a wait that passed.
  uint32_t cdma_issue(uint32_t agent, uint32_t id, int wait_msg, bool reset);
  /// Its send_msg completed (every earlier command of the thread has).
  void cdma_send(uint32_t agent, int msg);
  /// Bytes its command with epoch `clock` wrote on this chip (device addresses).
  void cdma_wrote(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log);
  /// The port restarts: its threads' command ids restart.
  void cdma_start(uint32_t agent);
  /// The port's stream ended (chain_end: both threads drained). An engine the host starts
  /// later is ordered after every command of the thread: the write has landed before the
  /// doorbell (the host saw the port idle, as a runtime's poll does between two submissions).
  void cdma_drained(uint32_t agent);

  uint64_t count() const noexcept { return count_; }
  const std::vector<std::string>& messages() const noexcept { return messages_; }

 private:
  using Clock = std::vector<uint32_t>;
  struct Agent {
    Clock vc = Clock(kAgents, 0);
    uint32_t clock = 0;
    uint32_t base = 0;
    uint32_t last_completed = 0;
    std::vector<Clock> snapshots;  // engines: vc of each issued command (cmd_id_dep, sends)
    std::vector<uint32_t> ids;
  };
  struct Write {
    uint64_t end;
    uint32_t agent;
    uint32_t clock;
    uint32_t id;
    uint32_t peer;
  };
  void join(Clock& into, const Clock& from);
  std::string who(uint32_t agent, uint32_t id, uint32_t peer) const;

  uint32_t chip_;
  std::vector<Agent> agents_;
  std::vector<Clock> msg_vc_;
  std::vector<Clock> drained_ = std::vector<Clock>(kAgents);  // CDMA threads: vc when their port ended
  std::map<uint64_t, Write> writes_;  // non-overlapping ranges by start
  uint64_t count_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace tilefw::port::host::sg2260
