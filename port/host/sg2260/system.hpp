// The multi-chip SG2260 simulator: N chips (each a Machine with the sg2260 profile and its own
// Simulator, so TIU/GDMA/SDMA/HAU behave exactly as on one chip) joined by C2C links, and the
// CDMA ports that move data between them, in ONE event loop of simulated cycles (every
// machine clock moves together). Semantics (docs/sg2260-commands.md section 13.6):
//   Rule: CDMA threads   one stream per (chip, peer); recv and rx_* sys run on the port's RX
//                        thread, everything else on TX; in order; a thread keeps at most
//                        `credits` commands in flight; tx/rx_send_msg add 1 to the chip-wide
//                        counter once every earlier command of their thread completed;
//                        tx/rx_wait_msg block only their thread, under the engines' wait rule;
//                        chain_end ends the port when both threads drained.
//   Rule: CDMA pairing   the k-th send (or lossy) on A's stream for B pairs with the k-th recv
//                        on B's stream for A; a recv posts its credit at the head of RX (it
//                        arrives after hops x link latency); a send starts at the head of TX
//                        once a credit is there; both complete when the last byte is written.
//   Rule: CDMA timing v1 alpha + hops x latency (+ switch latency per switch crossed), then a
//                        data phase at min over the route's directed links of bw / n (n
//                        transfers in their data phase on the link, recomputed at each start
//                        and end); sys 1 cycle plus waits; fakes timed only.
// Data moves when a transfer completes (read of the source, write or reduce of the
// destination, each on the chip owning that side). Functional runs with check_hazards also
// check CDMA writes against unordered local accesses, before and after them, on both chips
// (sg2260/cross_hazard.hpp). Host-only,
// single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/cross_hazard.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/cmd/topology.hpp"

namespace tilefw::port::host::sg2260 {

struct SystemOptions {
  uint32_t chips = 2;
  /// A cmd::Topology preset ("ring:N", "sg2260-8", "mesh:N", "edges:[...]", ...).
  std::string topology = "ring:2";
  cmd::C2cFigures c2c{};
  /// Each chip's Simulator options; `functional` and `trace` also govern the CDMA.
  SimOptions sim{};
  /// DDR regions every chip's machine backs (each chip has its own memory at the same
  /// device addresses).
  std::vector<chip::MemoryRegion> ddr{};
  /// Longest clock jump of one poll step (as SimOptions::max_advance).
  uint64_t max_advance = 256;
};

/// Per chip after a run: `cycles` the last completion of any engine or CDMA command,
/// `cdma_wait_cycles` the cycles its CDMA threads spent blocked on credits and messages
/// (summed over threads), `cdma_commands` CDMA commands completed.
struct ChipStats {
  uint64_t cycles = 0;
  uint64_t cdma_wait_cycles = 0;
  uint64_t cdma_commands = 0;
};
/// Per directed link: bytes carried, cycles with at least one transfer in its data phase.
struct LinkStats {
  uint64_t bytes = 0;
  uint64_t busy_cycles = 0;
};
/// One completed CDMA command or a transfer's data phase on a link (traces).
struct CdmaTraceRecord {
  uint32_t chip = 0;
  uint32_t peer = 0;
  uint8_t thread = 0;  // 0 TX, 1 RX, 2 a directed link's row (peer = the link id)
  uint8_t cls = 0;     // cmd::CmdClass
  uint32_t id = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t bytes = 0;
};

class System {
 public:
  explicit System(const SystemOptions& options);
  ~System();
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  /// ok, or why the system could not be built (a bad topology: invalid_argument).
  Status status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }
  uint32_t chips() const noexcept { return static_cast<uint32_t>(chips_.size()); }
  Machine& machine(uint32_t chip) { return *chips_[chip]->machine; }
  Simulator& simulator(uint32_t chip) { return *chips_[chip]->sim; }
  const cmd::Topology& topology() const noexcept { return topology_; }
  const cmd::C2cFigures& c2c() const noexcept { return options_.c2c; }

  /// The CDMA port a chip uses for a peer by default: the peer's rank among the chip's
  /// reachable chips in increasing id order; -1 when the peer is not reachable.
  int default_port(uint32_t chip, uint32_t peer) const noexcept;
  /// Starts the stream at device_addr (chip's memory) on the chip's port for `peer` (what
  /// the port's PEER + DOORBELL registers do). A stream that does not decode, a peer the chip
  /// cannot reach or a second stream for one peer faults the port.
  void start_cdma(uint32_t chip, uint32_t peer, uint64_t device_addr, uint64_t bytes, uint32_t tag = 0);
  /// What a port's DOORBELL does, on port `port` with its PEER register's peer.
  void start_port(uint32_t chip, uint32_t port, uint32_t peer, uint64_t device_addr, uint64_t bytes, uint32_t tag);
  void reset_port(uint32_t chip, uint32_t port);

  /// Processes every event at the earliest pending cycle. false when nothing is pending.
  bool step();
  /// Every machine's poll hook: moves all clocks towards the next event by at most
  /// max_advance and processes the events due.
  void poll_step();
  /// Runs until nothing is pending: ok, the first fault (chips' engines, then CDMA ports),
  /// or rt_deadlock with blocked_report() naming every stuck thread.
  Status run();
  uint64_t now() const noexcept { return now_; }

  /// One line per stuck or faulted engine and CDMA thread, each prefixed "chip K ":
  /// "chip 0 cdma port->1 tx command 2: waits for a credit from chip 1".
  std::string blocked_report() const;
  ChipStats chip_stats(uint32_t chip) const noexcept;
  LinkStats link_stats(uint32_t directed_link) const noexcept;
  /// CDMA commands completed since construction (all chips).
  uint64_t cdma_commands_executed() const noexcept { return cdma_executed_; }
  /// The state of a chip's port for `peer` (regs::EngineState), completed count, fault.
  uint32_t port_state(uint32_t chip, uint32_t peer) const noexcept;
  uint32_t port_completed(uint32_t chip, uint32_t peer) const noexcept;
  Status port_fault(uint32_t chip, uint32_t peer) const noexcept;
  std::string port_fault_message(uint32_t chip, uint32_t peer) const;
  const std::vector<CdmaTraceRecord>& cdma_trace() const noexcept { return trace_; }
  /// Cross-chip hazards (functional runs with check_hazards; sg2260/cross_hazard.hpp): a local
  /// engine touching bytes a CDMA recv or read of its chip, or a write or general of its peer,
  /// wrote; a recv or read landing on bytes a local engine touched; each with no ordering
  /// between them. Counted over all chips; the first messages of each chip.
  uint64_t cross_hazard_count() const noexcept;
  std::vector<std::string> cross_hazard_messages() const;
  /// Chrome/Perfetto JSON of the whole system: one process per chip (its cores' engines and
  /// CDMA ports as threads), and a `c2c` process with one row per directed link.
  std::string trace_json() const;
  /// An SVG Gantt chart of the run (system_svg.cpp): one band per chip (a row per core engine
  /// and per CDMA port thread that ran a command, each with its busy share), then a c2c band
  /// with a row per directed link that carried data; needs SimOptions::trace.
  std::string svg_gantt() const;

  // ---- internal types (cdma_exec.cpp, links.cpp) ----
  struct CdmaOp {
    uint32_t id = 0;       // 1-based in buffer order
    uint32_t offset = 0;
    uint8_t cls = 0;       // cmd::CmdClass
    uint8_t sp = 0;        // sys sp_func
    uint8_t fmt = 0;       // the send-side data format
    uint8_t reduce = 0;    // recv reduce_op
    uint16_t msg_id = 0;
    uint8_t msg_cnt = 0;
    uint64_t elements = 0;
    uint64_t bytes = 0;    // elements x send-side element size
    uint32_t epoch = 0;    // its clock in the cross-chip hazard check
    uint32_t done_through = 0;  // the thread's epochs all completed when it started
  };
  struct Thread {
    std::vector<uint32_t> ops;  // indices into Port::ops
    size_t next = 0;
    uint32_t in_flight = 0;
    uint32_t completed = 0;
    bool held = false;     // a sys command holds the head for its cycle
    bool blocked = false;  // waiting (credit, message, drain): counted in cdma_wait_cycles
    uint64_t blocked_since = 0;
    uint64_t wake = UINT64_MAX;  // pending wake-up cycle
    uint32_t done_through = 0;   // cross-chip check: epochs known completed (a start with none in flight)
  };
  struct Port {
    uint32_t chip = 0;
    uint32_t index = 0;
    int32_t peer = -1;
    std::vector<CdmaOp> ops;
    const uint8_t* stream = nullptr;
    Thread thread[2];            // 0 TX, 1 RX
    uint32_t sends_started = 0;  // send-class commands that found their credit
    uint32_t credits_posted = 0; // recvs that posted their credit
    std::vector<uint64_t> credit_arrival;  // per recv k posted: cycle its credit reaches the sender
    std::vector<uint32_t> recv_ops;        // op index of the k-th recv (posted order)
    uint32_t completed = 0;
    uint32_t state = 0;   // regs::EngineState
    uint32_t tag = 0;
    uint32_t generation = 0;
    uint32_t fault_cmd = 0;
    Status fault_code = Status::ok;
    std::string fault_message;
    uint64_t last_end = 0;
    uint64_t wait_cycles = 0;
    bool ended = false;
    bool dirty = false;
  };
  struct Transfer {
    uint32_t send_port = 0;  // global port index of the TX side (sender or the issuing port)
    uint32_t send_op = 0;
    int32_t recv_port = -1;  // paired recv, -1 for read/write/general/fake
    uint32_t recv_op = 0;
    uint32_t generation = 0;
    uint32_t send_port_generation = 0;  // a port reset since drops its side of the transfer
    uint32_t recv_port_generation = 0;
    uint64_t start = 0;
    uint64_t data_start = 0;
    uint64_t bytes = 0;
    double remaining = 0;
    double rate = 0;
    uint64_t updated = 0;  // cycle up to which `remaining` is counted
    uint64_t finish = UINT64_MAX;
    bool flowing = false;
    bool done = false;
    bool fixed = false;  // a fake: a fixed cost, no links, no data
    uint32_t from_chip = 0;
    uint32_t to_chip = 0;
    uint32_t hops = 0;
    uint32_t links[cmd::Topology::kMaxHops] = {};
  };

 private:
  struct Chip {
    std::unique_ptr<Machine> machine;
    std::unique_ptr<Simulator> sim;
  };
  struct Event {
    uint64_t time;
    uint64_t seq;
    uint32_t kind;    // EventKind
    uint32_t target;  // port or transfer index
    uint32_t aux;     // thread, op index (sys done), or the transfer's generation
    uint32_t gen;     // the port's generation (port events)
    bool operator>(const Event& o) const noexcept { return time != o.time ? time > o.time : seq > o.seq; }
  };
  enum EventKind : uint32_t { kWakeThread, kSysDone, kDataPhase, kFinish };

  Port& port(uint32_t chip, uint32_t index) { return ports_[chip * chip::sg2260::kCdmaPorts + index]; }
  int port_for_peer(uint32_t chip, uint32_t peer) const noexcept;
  void sync_clocks(uint64_t t);
  uint64_t next_time() const noexcept;
  void process(uint64_t t);
  void push(uint64_t time, uint32_t kind, uint32_t target, uint32_t aux, uint32_t gen = 0);
  void wake(uint32_t port_index, uint32_t thread, uint64_t t);
  void wake_all_threads(uint32_t chip, uint64_t t);
  void run_thread(uint32_t port_index, uint32_t thread, uint64_t t);
  bool issue(Port& p, uint32_t th, const CdmaOp& op, uint64_t t);
  bool issue_sys(Port& p, uint32_t th, const CdmaOp& op, uint64_t t);
  bool issue_send(Port& p, const CdmaOp& op, uint64_t t);
  void post_credit(Port& p, uint32_t op_index, uint64_t t);
  void complete_op(Port& p, uint32_t th, uint32_t op_index, uint64_t start, uint64_t t);
  void block(Port& p, uint32_t th, uint64_t t);
  void unblock(Port& p, uint32_t th, uint64_t t);
  void check_end(Port& p, uint64_t t);
  void port_fault_set(Port& p, uint32_t cmd_id, Status code, std::string message);
  Status decode_port(Port& p, const uint8_t* data, uint64_t bytes);
  void publish();
  // links.cpp: transfers and the directed-link bandwidth servers
  uint32_t begin_transfer(uint32_t send_port, uint32_t send_op, int32_t recv_port, uint32_t recv_op,
                          uint32_t from_chip, uint32_t to_chip, uint64_t t);
  void enter_data_phase(uint32_t transfer, uint64_t t);
  void finish_transfer(uint32_t transfer, uint64_t t);
  void reshare(uint64_t t, const uint32_t* links, uint32_t hops);
  /// The route's hop count (0: unreachable) and directed links, computed once per pair.
  uint32_t route_of(uint32_t from, uint32_t to, const uint32_t*& links);
  /// A chip Simulator's next event, recomputed only when its events changed.
  uint64_t chip_next(uint32_t chip) const noexcept;
  // cdma_exec.cpp: data of a completed transfer
  Status move_data(const Transfer& x, std::string& message, AccessLog* written, AccessLog* read);
  uint32_t agent(const Port& p, uint32_t th) const noexcept { return CrossChipChecker::kEngines + p.index * 2 + th; }
  std::string thread_report(const Port& p, uint32_t th) const;

  SystemOptions options_;
  Status status_ = Status::ok;
  std::string message_;
  cmd::Topology topology_;
  std::vector<std::unique_ptr<Chip>> chips_;
  std::vector<Port> ports_;
  std::vector<Transfer> transfers_;
  std::vector<uint32_t> free_transfers_;
  std::vector<uint32_t> flowing_;
  std::vector<uint32_t> link_active_;   // per directed link: transfers in their data phase
  std::vector<uint64_t> link_since_;    // per directed link: cycle it became busy
  std::vector<LinkStats> link_stats_;
  std::vector<Event> events_;           // a binary heap (std::push_heap with greater)
  uint64_t seq_ = 0;
  uint64_t now_ = 0;
  // the C2C figures in cycles and bytes per cycle (1 GHz)
  uint64_t alpha_ = 0;
  uint64_t beta_ = 0;
  uint64_t latency_ = 0;
  uint64_t switch_latency_ = 0;
  double bw_ = 1;
  std::vector<int32_t> route_hops_;     // per (from, to): -1 not computed yet
  std::vector<uint32_t> route_links_;   // per (from, to): kMaxHops directed link ids
  mutable std::vector<uint64_t> chip_epoch_;
  mutable std::vector<uint64_t> chip_next_;
  uint64_t cdma_executed_ = 0;
  std::vector<CdmaTraceRecord> trace_;
  std::vector<std::unique_ptr<CrossChipChecker>> cross_;  // per chip, when checking
};

}  // namespace tilefw::port::host::sg2260
