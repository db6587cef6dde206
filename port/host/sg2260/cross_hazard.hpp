// The cross-chip hazard check of a System (functional runs with check_hazards). On each chip,
// with no ordering between them:
// - a local engine command that reads or writes bytes a CDMA recv or read of that chip wrote
//   (the data may not have arrived yet);
// - a CDMA recv or read of that chip writing bytes a local engine command read or wrote before
//   (the landing may overtake that access);
// - a local engine command that reads or writes bytes a CDMA write or general of another chip
//   pushed into this chip's memory;
// - a CDMA write or general of another chip landing on bytes a local engine command of this
//   chip read or wrote before it (the push may overtake that access);
// - a CDMA send, write or general of this chip reading bytes a CDMA recv, read or push wrote
//   here (a chip forwarding what it received before it landed).
// Happens-before over the chip's 32 engines, its 20 CDMA threads and two slots per other chip
// (the epochs of its TX thread on its port to this chip known completed, and known issued
// through a paired send) with vector clocks: program order, cmd_id_dep between TIU and GDMA,
// the chip's message barriers (a wait that passes is ordered after every send counted for it; a
// CDMA send_msg follows every earlier command of its thread), a stream started after others
// completed or a port ended, and across chips only what SG2260 has: a recv completes after its
// paired send started, and a send started with none of its thread's commands in flight follows
// the completion of every earlier command of that thread (so "write; tx_send_msg; tx_wait;
// send" on one chip, "recv; rx_send_msg" and a wait on the other order the write before the
// other chip's engines). The last rule needs happens-before from this chip to the writer: a recv
// also learns the epoch of its paired send (the sender's TX thread had issued it, with every wait
// before it passed), that knowledge travels through the receiving chip's clocks like any other
// (messages, waits, the TX thread's program order) and arrives with the write; the landing is
// ordered after a local access when this chip's TX thread (its port to the writer) had, at that
// send, a clock covering the access ("read; send_msg; tx_wait; send" here, "recv; rx_send_msg" and
// "tx_wait; write" there). Only direct chains are followed: an order that reaches the writer
// through a third chip is not seen (the write is reported). The single-chip checker
// (sg2260/hazard.hpp) keeps checking the engines among themselves. Host-only.
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
  static constexpr uint32_t kPortAgents = 20;   // 10 ports x (TX, RX)
  static constexpr uint32_t kRemoteBase = kEngines + kPortAgents;
  static constexpr uint32_t kMaxChips = 64;     // one slot per other chip's port to this one
  // One slot per other chip: the epoch of its TX thread (its port to this chip) whose send a
  // recv here has paired with (every command before that send issued, its waits passed).
  static constexpr uint32_t kStartedBase = kRemoteBase + kMaxChips;
  static constexpr uint32_t kAgents = kStartedBase + kMaxChips;
  static constexpr uint32_t kNoAgent = kAgents;
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
  /// Bytes its command with epoch `clock` wrote on this chip (device addresses); local accesses
  /// not ordered before that command are hazards.
  void cdma_wrote(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log);
  /// Bytes of this chip a send, write or general of `agent` (a TX thread, its command at epoch
  /// `clock`) read as its source: a CDMA recv, read or push that wrote them and is not ordered
  /// before that command is a hazard (the data may not have landed when the send reads it).
  void cdma_read(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log);
  /// A write or general of chip `from` (its TX thread's epoch `clock`, command `id`) wrote these
  /// bytes of this chip. `started` is the epoch of this chip's TX thread `tx` (its port to
  /// `from`; kNoAgent when it has none) whose send that write is ordered after (0: none, see
  /// known_started): local accesses that thread had not seen by then are hazards.
  void remote_wrote(uint32_t from, uint32_t clock, uint32_t id, const AccessLog& log, uint32_t tx, uint32_t started);
  /// A recv of thread `agent` (from chip `from`) completed: its send started once chip `from`'s
  /// TX thread had completed every command up to epoch `done_through`; the send itself was
  /// that thread's epoch `send_epoch`.
  void remote_done(uint32_t agent, uint32_t from, uint32_t done_through, uint32_t send_epoch);
  /// The newest epoch of chip `of_chip`'s TX thread (its port to this chip) whose send the
  /// command of `agent` at epoch `clock` is ordered after (0: none).
  uint32_t known_started(uint32_t agent, uint32_t clock, uint32_t of_chip) const noexcept {
    return clock == 0 || of_chip >= kMaxChips ? 0 : agents_[agent].snapshots[clock - 1][kStartedBase + of_chip];
  }
  /// Chip `from`'s port to this chip ended with its TX thread at epoch `clock`.
  void remote_drained(uint32_t from, uint32_t clock);
  /// The epoch a thread of this chip has reached.
  uint32_t clock_of(uint32_t agent) const noexcept { return agents_[agent].clock; }
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
  // The newest local engine access of a run of bytes.
  struct Local {
    uint64_t end;
    uint32_t engine;
    uint32_t clock;
    uint32_t id;
    bool write;
  };
  void join(Clock& into, const Clock& from);
  std::string who(uint32_t agent, uint32_t id, uint32_t peer) const;
  void record_write(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log);
  void record_local(uint32_t engine, const Agent& a, const AccessLog& log);
  void report(const char* what);
  /// A CDMA landing on bytes of the local access `l` with nothing ordering them.
  void report_landing(const std::string& writer, uint64_t b, uint64_t e, const Local& l);

  uint32_t chip_;
  std::vector<Agent> agents_;
  std::vector<Clock> msg_vc_;
  std::vector<Clock> drained_ = std::vector<Clock>(kAgents);  // CDMA threads: vc when their port ended
  std::map<uint64_t, Write> writes_;  // non-overlapping ranges by start
  std::map<uint64_t, Local> locals_;  // non-overlapping ranges by start
  uint64_t count_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace tilefw::port::host::sg2260
