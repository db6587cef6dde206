// The SG2260 scheduler: engines are in-order processes; an event is "engine e at cycle t"
// (complete the command in flight, then try to issue the next). Dependencies read the other
// engine's completed count (docs/sg2260-commands.md section 9, Rule: dependency encoding),
// barriers one chip-wide counter per msg id (Rule: chip-wide barrier counters). Data moves when a
// command issues; its completion is what others observe.
// Timing model v2 (chip profile timing_v2): a DMA command with bytes to move has two phases,
// its startup (a fixed delay, an event of its engine) and its flow, when its bytes go through
// the shared servers at rates set by max-min fair sharing (reshare()) among the flows active
// at that cycle; the rates change only at cycles where a flow starts or ends, and each
// flowing engine's completion event is moved to the first whole cycle by which its bytes
// have gone. The rates depend only on the set of active flows (kept sorted by engine), so
// the result does not depend on the order among engines ready at the same cycle.
#include "sg2260/sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;
namespace regs = chip::sg2260::regs;

namespace {

constexpr uint32_t kMsgIds = 1u << sg::kMsgIdBits;
constexpr uint32_t kEngineCount = sg::kCores * regs::kEngines;
namespace t2 = chip::sg2260::timing_v2;
// Floating tolerance of the flow accounting, in bytes (far below one byte: the servers'
// bandwidth can be exceeded by at most this much per transfer).
constexpr double kFlowEps = 1e-6;

}  // namespace

uint64_t Simulator::stream_hash(const uint8_t* data, uint64_t bytes) noexcept {
  // 64-bit FNV-1a over 8-byte words (then the tail bytes): about 1 ns per word.
  uint64_t h = 0xcbf29ce484222325ull;
  uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
  }
  for (; i < bytes; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

Simulator::Simulator(Machine& machine, const SimOptions& options)
    : machine_(machine), options_(options), engines_(kEngineCount), event_key_(kEngineCount, kNoEvent),
      msg_count_(kMsgIds, 0),
      msg_passed_(kMsgIds, 0), rng_(options.tie.seed == 0 ? 0x9E3779B97F4A7C15ull : options.tie.seed) {
  for (uint32_t i = 0; i < kEngineCount; ++i) {
    const uint32_t core = i / regs::kEngines;
    const uint32_t kind = i % regs::kEngines;
    engines_[i].core = core;
    engines_[i].kind = kind;
    machine_.on_write(regs::engine_reg(core, kind, regs::kDoorbell), [this, core, kind](uint64_t, uint64_t v) {
      if ((v & 1) == 0) return;
      const uint64_t lo = machine_.read32(regs::engine_reg(core, kind, regs::kQueueBaseLo));
      const uint64_t hi = machine_.read32(regs::engine_reg(core, kind, regs::kQueueBaseHi));
      const uint64_t bytes = machine_.read32(regs::engine_reg(core, kind, regs::kQueueBytes));
      const uint32_t tag = machine_.read32(regs::engine_reg(core, kind, regs::kQueueTag));
      start(core, kind, (hi << 32) | lo, bytes, tag);
    });
    machine_.on_write(regs::engine_reg(core, kind, regs::kReset), [this, core, kind](uint64_t, uint64_t v) {
      if ((v & 1) != 0) reset(core, kind);
    });
  }
  for (uint32_t core = 0; core < sg::kCores; ++core) load_static_tables(machine_, core);
  machine_.set_poll_hook([this] { poll_step(); });
}

Simulator::~Simulator() { machine_.set_poll_hook(nullptr); }

void Simulator::schedule(uint32_t index, uint64_t time) {
  static_assert(kEngineCount < (1u << kTieBits), "every engine needs its own tie rank");
  Engine& en = engines_[index];
  uint64_t tie = 0;
  switch (options_.tie.kind) {
    case TiePolicy::core_major: tie = index; break;
    case TiePolicy::reverse: tie = kEngineCount - index; break;
    case TiePolicy::random:  // a random rank; equal ranks go by engine index
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      tie = rng_ >> (64 - kTieBits);
      break;
  }
  // One live event per engine: a newer one (a second wake-up in the same cycle) supersedes it.
  // With at most 32 engines a scan for the first one is cheaper than a heap, which also kept
  // every superseded event until it surfaced (a flow's completion moves at every reshare).
  event_key_[index] = (std::min(time, kLatestEvent) << kTieBits) | tie;
  ++event_epoch_;
  ++en.generation;
}

int Simulator::next_event() const noexcept {
  uint64_t best = kNoEvent;
  int index = -1;
  for (size_t i = 0; i < kEngineCount; ++i) {
    const uint64_t k = event_key_[i];
    if (k >= best) continue;  // mostly engines without an event: a branch predicted well
    best = k;
    index = static_cast<int>(i);
  }
  return index;
}

void Simulator::fault(Engine& en, uint32_t cmd_id, Status code, std::string message) {
  en.state = regs::kFault;
  en.in_flight = false;
  en.fault_cmd = cmd_id;
  en.fault_code = code;
  en.fault_message = std::move(message);
  en.dirty = true;
}

bool Simulator::step() {
  int i = next_event();
  if (i < 0) return false;
  const uint64_t t = event_time(static_cast<size_t>(i));
  if (machine_.now() < t) machine_.advance(t - machine_.now());
  while (i >= 0 && event_time(static_cast<size_t>(i)) == t) {
    const size_t k = static_cast<size_t>(i);
    const uint64_t tie = event_key_[k] & ((uint64_t{1} << kTieBits) - 1);
    event_key_[k] = kNoEvent;
    ++event_epoch_;
    handle(Event{t, tie, static_cast<uint32_t>(i), engines_[k].generation});
    i = next_event();
  }
  return true;
}

void Simulator::poll_step() {
  const int i = next_event();
  if (i < 0) return;
  const uint64_t next = event_time(static_cast<size_t>(i));
  const uint64_t now = machine_.now();
  if (next > now) {
    machine_.advance(std::min(next - now, std::max<uint64_t>(1, options_.max_advance)));
    if (next > machine_.now()) return;
  }
  (void)step();
  publish();  // registers change only when a polling core can see them
}

Status Simulator::run() {
  // step()'s loop without its last search: the event found after handling one is the next to
  // handle (one scan per event instead of one more per simulated cycle with events).
  for (int i = next_event(); i >= 0; i = next_event()) {
    const size_t k = static_cast<size_t>(i);
    const uint64_t t = event_time(k);
    if (machine_.now() < t) machine_.advance(t - machine_.now());
    const uint64_t tie = event_key_[k] & ((uint64_t{1} << kTieBits) - 1);
    event_key_[k] = kNoEvent;
    ++event_epoch_;
    handle(Event{t, tie, static_cast<uint32_t>(i), engines_[k].generation});
  }
  publish();
  return outcome();
}

void Simulator::handle(const Event& e) {
  Engine& en = engines_[e.engine];
  if (e.generation != en.generation) return;  // superseded, or reset since (a late completion)
  if (en.in_flight && en.ops[en.next].flow) {
    advance_flows(e.time);
    if (!en.flowing) {  // end of the startup: the bytes start to flow
      en.flowing = true;
      en.remaining = static_cast<double>(en.ops[en.next].bytes);
      en.rate = 0;
      en.finish = UINT64_MAX;
      const uint32_t index = e.engine;
      active_.insert(std::lower_bound(active_.begin(), active_.end(), index), index);
      reshare(e.time);
      return;
    }
    drop_flow(en, e.time);  // the bytes have gone: the others share the servers again
  }
  if (en.in_flight) complete(en, e.time);
  try_issue(en, e.time);
}

void Simulator::advance_flows(uint64_t t) {
  if (t <= flow_time_) return;
  const double dt = static_cast<double>(t - flow_time_);
  for (uint32_t i : active_) {
    Engine& f = engines_[i];
    f.remaining = std::max(0.0, f.remaining - f.rate * dt);
  }
  flow_time_ = t;
}

void Simulator::drop_flow(Engine& en, uint64_t t) {
  if (!en.flowing) return;
  advance_flows(t);
  en.flowing = false;
  const uint32_t index = static_cast<uint32_t>(&en - engines_.data());
  active_.erase(std::find(active_.begin(), active_.end(), index));
  reshare(t);
}

// Max-min fair rates (progressive filling): all unfrozen flows rise together; a flow freezes
// at its engine cap, or when a server it uses is full (sum of weight x rate = capacity).
// Every frozen rate leaves each server's sum at or below its capacity, so no server ever
// carries more than its bandwidth. Then each flow's completion is moved to
// t + ceil(remaining / rate).
void Simulator::reshare(uint64_t t) {
  advance_flows(t);
  if (active_.empty()) return;
  const double capacity[2] = {
      options_.ddr_bytes_per_cycle > 0 ? options_.ddr_bytes_per_cycle : static_cast<double>(t2::kDdrBytesPerCycle),
      options_.l2_bytes_per_cycle > 0 ? options_.l2_bytes_per_cycle : static_cast<double>(t2::kL2BytesPerCycle)};
  double used[2] = {0, 0};
  const size_t n = active_.size();
  uint8_t frozen[kEngineCount] = {};  // n <= the engine count: no allocation per reshare
  size_t left = n;
  while (left > 0) {
    double weight[2] = {0, 0};
    double level = 1e300;
    for (size_t j = 0; j < n; ++j) {
      if (frozen[j] != 0) continue;
      const Op& op = engines_[active_[j]].ops[engines_[active_[j]].next];
      weight[0] += op.ddr;
      weight[1] += op.l2;
      level = std::min(level, static_cast<double>(op.cap));
    }
    double share[2] = {1e300, 1e300};
    for (int s = 0; s < 2; ++s) {
      if (weight[s] > 0) share[s] = std::max(0.0, capacity[s] - used[s]) / weight[s];
      level = std::min(level, share[s]);
    }
    for (size_t j = 0; j < n; ++j) {
      if (frozen[j] != 0) continue;
      Engine& f = engines_[active_[j]];
      const Op& op = f.ops[f.next];
      const bool full = (op.ddr != 0 && share[0] <= level) || (op.l2 != 0 && share[1] <= level);
      if (!full && static_cast<double>(op.cap) > level) continue;
      f.rate = level;
      used[0] += op.ddr * level;
      used[1] += op.l2 * level;
      frozen[j] = 1;
      --left;
    }
  }
  for (uint32_t i : active_) {
    Engine& f = engines_[i];
    uint64_t finish = t;
    if (f.remaining > kFlowEps) {
      finish = t + static_cast<uint64_t>(std::ceil((f.remaining - kFlowEps) / std::max(f.rate, 1e-9)));
    }
    if (finish != f.finish) {
      f.finish = finish;
      schedule(i, finish);
    }
  }
}

void Simulator::complete(Engine& en, uint64_t t) {
  const Op& op = en.ops[en.next];
  en.in_flight = false;
  en.next++;
  en.completed++;
  en.count++;
  en.busy += t - en.start;
  en.last_end = t;
  en.dirty = true;
  executed_++;
  if (options_.trace) {
    trace_.push_back(TraceRecord{static_cast<uint16_t>(en.core), static_cast<uint8_t>(en.kind), op.cls,
                                 en.completed, en.start, t, op.bytes, op.ops});
  }
  if (checking()) hazards_.on_complete(en.core * regs::kEngines + en.kind, op.sync == 1 ? op.msg_id : -1);
  if (checking() && observer_.on_complete) {
    observer_.on_complete(en.core * regs::kEngines + en.kind, op.sync == 1 ? op.msg_id : -1);
  }
  if (op.sync == 1) {
    msg_count_[op.msg_id]++;
    wake_msg(op.msg_id, t);
    if (message_hook_) message_hook_(op.msg_id);
  }
  if (has_dep_peer(en.kind)) {
    Engine& peer = engine(en.core, dep_peer(en.kind));
    if (peer.state == regs::kBlockedDep) schedule(en.core * regs::kEngines + peer.kind, t);
  }
}

void Simulator::wake_msg(uint32_t msg_id, uint64_t t) {
  for (uint32_t i = 0; i < kEngineCount; ++i) {
    Engine& w = engines_[i];
    if (w.state == regs::kBlockedMsg && w.next < w.ops.size() && w.ops[w.next].msg_id == msg_id) {
      schedule(i, t);
    }
  }
}

void Simulator::try_issue(Engine& en, uint64_t t) {
  if (en.state == regs::kFault) return;
  if (en.next >= en.ops.size()) {
    if (en.state != regs::kIdle) en.dirty = true;
    en.state = regs::kIdle;
    return;
  }
  const Op& op = en.ops[en.next];
  const uint32_t id = static_cast<uint32_t>(en.next) + 1;
  // cmd_id_dep: TIU waits on GDMA, GDMA on TIU; SDMA dependencies have no documented peer
  // (HAU syncs have no cmd_id_dep).
  if (op.dep != 0 && has_dep_peer(en.kind) && engine(en.core, dep_peer(en.kind)).completed < op.dep) {
    if (en.state != regs::kBlockedDep) en.dirty = true;
    en.state = regs::kBlockedDep;
    return;
  }
  bool barrier_reset = false;
  if (op.sync == 2) {
    if (msg_count_[op.msg_id] < op.msg_cnt) {
      if (en.state != regs::kBlockedMsg) en.dirty = true;
      en.state = regs::kBlockedMsg;
      return;
    }
    if (++msg_passed_[op.msg_id] >= op.msg_cnt) {  // the last of cnt waiters resets the barrier
      msg_passed_[op.msg_id] = 0;
      msg_count_[op.msg_id] = 0;
      barrier_reset = true;
    }
  }
  uint64_t extra = 0;
  for (const Injection& inj : injections_) {
    if (inj.core != en.core || inj.engine != en.kind || inj.command_id != id) continue;
    if (inj.kind == InjectKind::error) {
      fault(en, id, inj.code, "injected error");
      return;
    }
    if (inj.kind == InjectKind::hang) {
      en.in_flight = true;
      en.hung = true;
      en.start = t;
      en.state = regs::kRunning;
      en.dirty = true;
      return;
    }
    extra += inj.extra_cycles;
  }
  if (op.unreachable) {
    fault(en, id, Status::cmd_bad_address_tag, "the SDMA reaches DDR and L2 only: this transfer has a side in local memory");
    return;
  }
  const uint32_t index = en.core * regs::kEngines + en.kind;
  if (checking()) {
    // cmd_id_dep orders TIU after GDMA and GDMA after TIU (SDMA has no documented peer).
    const bool dep = op.dep != 0 && has_dep_peer(en.kind);
    hazards_.on_issue(index, id, op.cls, en.core * regs::kEngines + dep_peer(en.kind), dep ? op.dep : 0,
                      op.sync == 2 ? op.msg_id : -1, barrier_reset);
    if (observer_.on_issue) {
      observer_.on_issue(index, id, en.core * regs::kEngines + dep_peer(en.kind), dep ? op.dep : 0,
                         op.sync == 2 ? op.msg_id : -1, barrier_reset);
    }
  }
  if (options_.functional && op.sync == 0) {
    std::string message;
    const Status s = execute(en, op, message);
    if (checking() && observer_.on_executed) observer_.on_executed(index, access_log_);
    if (checking()) hazards_.on_executed(index, access_log_);
    if (s != Status::ok) {
      fault(en, id, s, std::move(message));
      return;
    }
  }
  en.in_flight = true;
  en.start = t;
  if (en.state != regs::kRunning) en.dirty = true;
  en.state = regs::kRunning;
  // v2 DMA with bytes: this event ends the startup (handle() then starts the flow)
  schedule(en.core * regs::kEngines + en.kind, t + (op.flow ? op.startup : op.cycles) + extra);
}

Status Simulator::execute(Engine& en, const Op& op, std::string& message) {
  uint64_t work = 0;
  const Status s = command_extent(machine_, en.kind, en.stream + op.offset, work, message);
  if (s != Status::ok) return s;
  if (options_.max_work != 0 && (work > options_.max_work || work_ > options_.max_work - work)) {
    message = "work budget: this command's " + std::to_string(work) + " element operations would bring the run to " +
              std::to_string(work_ + work) + ", above the budget of " + std::to_string(options_.max_work) +
              " (tilefw run --max-work raises it)";
    return Status::capacity_exceeded;
  }
  work_ += work;
  return execute_command(machine_, en.core, en.kind, en.stream + op.offset, message,
                         checking() ? &access_log_ : nullptr);
}

}  // namespace tilefw::port::host::sg2260
