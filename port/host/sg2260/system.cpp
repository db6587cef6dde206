// The multi-chip event loop and the CDMA ports' threads (see sg2260/system.hpp). One clock for
// the whole system: at each cycle with work, every chip's Simulator first handles its events,
// then the CDMA events of that cycle; a CDMA event that wakes a chip's engine (a message)
// makes that chip handle the new event in the same cycle, and the other way round.
#include "sg2260/system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;
namespace regs = chip::sg2260::regs;
using cmd::CmdClass;

namespace {
constexpr uint32_t kTx = 0;
constexpr uint32_t kRx = 1;
constexpr uint32_t kPorts = sg::kCdmaPorts;
// CDMA sys sub-types (docs/sg2260-commands.md section 13.1).
constexpr uint8_t kChainEnd = 0, kTxSend = 3, kTxWait = 4, kRxSend = 5, kRxWait = 6;

uint32_t cdma_esize(uint32_t fmt) {
  switch (fmt) {
    case 0: return 1;
    case 1: case 3: case 5: return 2;
    case 2: case 4: return 4;
    default: return 0;  // FP20 has no byte size
  }
}
uint64_t count4(uint64_t n, uint64_t c, uint64_t h, uint64_t w) { return n * c * h * w; }
}  // namespace

System::System(const SystemOptions& options) : options_(options) {
  const Status t = topology_.parse(options.topology.data(), options.topology.size(), options.chips);
  if (t != Status::ok) {
    status_ = t;
    message_ = topology_.message();
    return;
  }
  ports_.resize(size_t{options.chips} * kPorts);
  const double ghz = static_cast<double>(sg::kClockHz) / 1e9;
  alpha_ = static_cast<uint64_t>(std::llround(options.c2c.alpha_ns * ghz));
  beta_ = static_cast<uint64_t>(std::llround(options.c2c.beta_ns * ghz));
  latency_ = static_cast<uint64_t>(std::llround(options.c2c.link_latency_ns * ghz));
  switch_latency_ = static_cast<uint64_t>(std::llround(options.c2c.switch_latency_ns * ghz));
  bw_ = options.c2c.link_gbytes_per_s / ghz;
  route_hops_.assign(size_t{options.chips} * options.chips, -1);
  route_links_.assign(size_t{options.chips} * options.chips * cmd::Topology::kMaxHops, 0);
  chip_epoch_.assign(options.chips, UINT64_MAX);
  chip_next_.assign(options.chips, UINT64_MAX);
  link_active_.assign(topology_.directed_link_count(), 0);
  link_since_.assign(topology_.directed_link_count(), 0);
  link_stats_.assign(topology_.directed_link_count(), LinkStats{});
  for (uint32_t k = 0; k < options.chips; ++k) {
    auto c = std::make_unique<Chip>();
    c->machine = std::make_unique<Machine>(kProfileSg2260);
    for (const chip::MemoryRegion& r : options.ddr) {
      if (c->machine->add_region(r) != Status::ok) {
        status_ = Status::invalid_argument;
        message_ = "a DDR region overlaps another";
      }
    }
    c->sim = std::make_unique<Simulator>(*c->machine, options.sim);
    c->sim->set_message_hook([this, k](uint32_t) { wake_all_threads(k, now_); });
    if (options.sim.functional && options.sim.check_hazards) {
      cross_.push_back(std::make_unique<CrossChipChecker>(k));
      CrossChipChecker* x = cross_.back().get();
      Simulator::SyncObserver o;
      o.on_start = [x](uint32_t e) { x->on_start(e); };
      o.on_issue = [x](uint32_t e, uint32_t id, uint32_t de, uint32_t d, int w, bool r) { x->on_issue(e, id, de, d, w, r); };
      o.on_executed = [x](uint32_t e, const AccessLog& log) { x->on_executed(e, log); };
      o.on_complete = [x](uint32_t e, int m) { x->on_complete(e, m); };
      c->sim->set_sync_observer(std::move(o));
    }
    Machine& m = *c->machine;
    for (uint32_t p = 0; p < kPorts; ++p) {
      Port& pt = port(k, p);
      pt.chip = k;
      pt.index = p;
      m.on_write(regs::cdma_port_reg(p, regs::kDoorbell), [this, k, p, &m](uint64_t, uint64_t v) {
        if ((v & 1) == 0) return;
        const uint64_t lo = m.read32(regs::cdma_port_reg(p, regs::kQueueBaseLo));
        const uint64_t hi = m.read32(regs::cdma_port_reg(p, regs::kQueueBaseHi));
        start_port(k, p, m.read32(regs::cdma_port_reg(p, regs::kCdmaPeer)), (hi << 32) | lo,
                   m.read32(regs::cdma_port_reg(p, regs::kQueueBytes)), m.read32(regs::cdma_port_reg(p, regs::kQueueTag)));
      });
      m.on_write(regs::cdma_port_reg(p, regs::kReset), [this, k, p](uint64_t, uint64_t v) {
        if ((v & 1) != 0) reset_port(k, p);
      });
    }
    m.set_poll_hook([this] { poll_step(); });
    chips_.push_back(std::move(c));
  }
}

System::~System() {
  for (auto& c : chips_) c->machine->set_poll_hook(nullptr);
}

int System::default_port(uint32_t chip, uint32_t peer) const noexcept {
  if (chip >= chips() || peer >= chips() || !topology_.reachable(chip, peer)) return -1;
  int rank = 0;
  for (uint32_t j = 0; j < peer; ++j) rank += (j != chip && topology_.reachable(chip, j)) ? 1 : 0;
  return rank < static_cast<int>(kPorts) ? rank : -1;
}

int System::port_for_peer(uint32_t chip, uint32_t peer) const noexcept {
  for (uint32_t p = 0; p < kPorts; ++p) {
    const Port& q = ports_[chip * kPorts + p];
    if (q.peer == static_cast<int32_t>(peer) && q.state != regs::kIdle) return static_cast<int>(chip * kPorts + p);
  }
  for (uint32_t p = 0; p < kPorts; ++p) {  // a finished stream still holds its credits' history
    const Port& q = ports_[chip * kPorts + p];
    if (q.peer == static_cast<int32_t>(peer)) return static_cast<int>(chip * kPorts + p);
  }
  return -1;
}

void System::start_cdma(uint32_t chip, uint32_t peer, uint64_t device_addr, uint64_t bytes, uint32_t tag) {
  if (chip >= chips()) return;
  int p = default_port(chip, peer);
  // Beyond the first 10 reachable peers (a switch reaches more), or a peer not reachable (the
  // port then faults saying so): the port already bound to the peer, else the first idle one.
  for (uint32_t q = 0; q < kPorts && p < 0; ++q) {
    if (port(chip, q).peer == static_cast<int32_t>(peer)) p = static_cast<int>(q);
  }
  for (uint32_t q = 0; q < kPorts && p < 0; ++q) {
    if (port(chip, q).state == regs::kIdle) p = static_cast<int>(q);
  }
  if (p < 0) p = 0;  // every port busy: start_port refuses on port 0 (it talks to another chip)
  start_port(chip, static_cast<uint32_t>(p), peer, device_addr, bytes, tag);
}

void System::reset_port(uint32_t chip, uint32_t index) {
  Port& p = port(chip, index);
  const uint32_t generation = p.generation + 1;
  p = Port{};
  p.chip = chip;
  p.index = index;
  p.generation = generation;
  p.dirty = true;
  publish();
}

void System::start_port(uint32_t chip, uint32_t index, uint32_t peer, uint64_t device_addr, uint64_t bytes,
                        uint32_t tag) {
  reset_port(chip, index);
  Port& p = port(chip, index);
  p.tag = tag & regs::kQueueTagMask;
  p.state = regs::kRunning;
  p.dirty = true;
  char text[160];
  if (peer >= chips() || peer == chip || !topology_.reachable(chip, peer)) {
    std::snprintf(text, sizeof text, "chip %u cdma port %u: chip %u is not linked to chip %u", chip, index, peer, chip);
    port_fault_set(p, 1, Status::cmd_bad_field, text);
    publish();
    return;
  }
  for (uint32_t q = 0; q < kPorts; ++q) {
    const Port& other = port(chip, q);
    if (q != index && other.peer == static_cast<int32_t>(peer) && other.state != regs::kIdle) {
      std::snprintf(text, sizeof text, "chip %u cdma port %u: port %u already talks to chip %u", chip, index, q, peer);
      port_fault_set(p, 1, Status::cmd_bad_field, text);
      publish();
      return;
    }
  }
  p.peer = static_cast<int32_t>(peer);
  Result<uint8_t*> data = machine(chip).translate(device_addr, bytes);
  if (!data.ok()) {
    std::snprintf(text, sizeof text, "chip %u cdma port->%u: stream not in device memory", chip, peer);
    port_fault_set(p, 1, data.status(), text);
  } else if (decode_port(p, data.value(), bytes) == Status::ok) {
    if (!cross_.empty()) {
      cross_[chip]->cdma_start(agent(p, kTx));
      cross_[chip]->cdma_start(agent(p, kRx));
    }
    const uint32_t gi = chip * kPorts + index;
    wake(gi, kTx, now_);
    wake(gi, kRx, now_);
  }
  publish();
}

Status System::decode_port(Port& p, const uint8_t* data, uint64_t bytes) {
  p.stream = data;
  cmd::Walker w(cmd::Engine::cdma, ConstByteSpan(data, static_cast<size_t>(bytes)));
  cmd::Command c;
  while (w.next(c)) {
    CdmaOp op;
    op.id = c.id;
    op.offset = static_cast<uint32_t>(c.offset);
    op.cls = static_cast<uint8_t>(c.cls);
    uint32_t th = kTx;
    switch (c.cls) {
      case CmdClass::cdma_send:
      case CmdClass::cdma_lossy_compress:
      case CmdClass::cdma_lossy_decompress:
      case CmdClass::cdma_fake_all_reduce:
      case CmdClass::cdma_fake_p2p: {
        const cmd::CdmaSendView v = c.as<cmd::CdmaSendView>();
        op.fmt = static_cast<uint8_t>(c.cls == CmdClass::cdma_fake_all_reduce || c.cls == CmdClass::cdma_fake_p2p
                                          ? v.src_data_format() & 7 : v.src_data_format());
        op.elements = count4(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize());
        break;
      }
      case CmdClass::cdma_recv: {
        const cmd::CdmaRecvView v = c.as<cmd::CdmaRecvView>();
        op.fmt = static_cast<uint8_t>(v.data_format());
        op.reduce = static_cast<uint8_t>(v.reduce_op());
        op.elements = count4(v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize());
        th = kRx;
        break;
      }
      case CmdClass::cdma_read:
      case CmdClass::cdma_write: {
        const cmd::CdmaReadWriteView v = c.as<cmd::CdmaReadWriteView>();
        op.fmt = static_cast<uint8_t>(v.src_data_format());
        op.elements = count4(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize());
        break;
      }
      case CmdClass::cdma_general: {
        const cmd::CdmaGeneralView v = c.as<cmd::CdmaGeneralView>();
        op.fmt = static_cast<uint8_t>(v.src_data_format());
        op.elements = v.cmd_length();
        break;
      }
      case CmdClass::cdma_sys: {
        const cmd::CdmaSysView v = c.as<cmd::CdmaSysView>();
        op.sp = static_cast<uint8_t>(c.eu);
        op.msg_id = static_cast<uint16_t>(v.msg_id());
        op.msg_cnt = static_cast<uint8_t>(v.msg_cnt());
        if (op.sp == kRxSend || op.sp == kRxWait) th = kRx;
        break;
      }
      default: break;  // tcp: refused when it reaches the head of TX
    }
    op.bytes = op.elements * cdma_esize(op.fmt);
    if (op.fmt == 6) op.bytes = (op.elements * 5 + 1) / 2;  // FP20: 2.5 bytes (timing only)
    p.thread[th].ops.push_back(static_cast<uint32_t>(p.ops.size()));
    p.ops.push_back(op);
  }
  if (w.status() != Status::ok) {
    port_fault_set(p, w.error_id(), w.status(),
                   "chip " + std::to_string(p.chip) + " cdma port->" + std::to_string(p.peer) +
                       ": stream does not decode: " + w.message());
    return w.status();
  }
  return Status::ok;
}

void System::port_fault_set(Port& p, uint32_t cmd_id, Status code, std::string message) {
  if (p.state == regs::kFault) return;
  p.state = regs::kFault;
  p.fault_cmd = cmd_id;
  p.fault_code = code;
  p.fault_message = std::move(message);
  p.dirty = true;
}

void System::push(uint64_t time, uint32_t kind, uint32_t target, uint32_t aux, uint32_t gen) {
  events_.push_back(Event{time, seq_++, kind, target, aux, gen});
  std::push_heap(events_.begin(), events_.end(), std::greater<Event>());
}

void System::wake(uint32_t port_index, uint32_t th, uint64_t t) {
  Thread& x = ports_[port_index].thread[th];
  if (x.wake == t) return;  // already due then; a later wake-up (a credit's arrival) still counts
  x.wake = std::min(x.wake, t);
  push(t, kWakeThread, port_index, th, ports_[port_index].generation);
}

void System::wake_all_threads(uint32_t chip, uint64_t t) {
  for (uint32_t p = 0; p < kPorts; ++p) {
    const Port& q = port(chip, p);
    if (q.state == regs::kIdle || q.state == regs::kFault) continue;
    for (uint32_t th = 0; th < 2; ++th) {
      if (q.thread[th].blocked) wake(chip * kPorts + p, th, t);
    }
  }
}

void System::block(Port& p, uint32_t th, uint64_t t) {
  Thread& x = p.thread[th];
  if (x.blocked) return;
  x.blocked = true;
  x.blocked_since = t;
}

void System::unblock(Port& p, uint32_t th, uint64_t t) {
  Thread& x = p.thread[th];
  if (!x.blocked) return;
  x.blocked = false;
  p.wait_cycles += t - x.blocked_since;
}

// Issues the thread's head commands while they can start.
void System::run_thread(uint32_t port_index, uint32_t th, uint64_t t) {
  Port& p = ports_[port_index];
  Thread& x = p.thread[th];
  if (x.wake <= t) x.wake = UINT64_MAX;
  while (!x.held && p.state != regs::kFault && p.state != regs::kIdle && x.next < x.ops.size()) {
    const CdmaOp& op = p.ops[x.ops[x.next]];
    if (!issue(p, th, op, t)) {
      // cdma_wait_cycles counts waits for a credit or a message (not for the thread's own
      // transfers or a drain).
      const auto cls = static_cast<CmdClass>(op.cls);
      const bool waits = (cls == CmdClass::cdma_send && x.in_flight < options_.c2c.credits) ||
                         (cls == CmdClass::cdma_sys && (op.sp == kTxWait || op.sp == kRxWait));
      if (p.state != regs::kFault && waits) block(p, th, t);
      return;
    }
    unblock(p, th, t);
    x.next++;
  }
  unblock(p, th, t);
}

bool System::issue(Port& p, uint32_t th, const CdmaOp& op, uint64_t t) {
  Thread& x = p.thread[th];
  const auto cls = static_cast<CmdClass>(op.cls);
  if (cls == CmdClass::cdma_sys) return issue_sys(p, th, op, t);
  if (x.in_flight >= options_.c2c.credits) return false;  // the thread's outstanding bound
  const uint32_t peer = static_cast<uint32_t>(p.peer);
  const bool fake = cls == CmdClass::cdma_fake_all_reduce || cls == CmdClass::cdma_fake_p2p;
  if (!fake && (cls == CmdClass::cdma_tcp_send || cls == CmdClass::cdma_tcp_recv || op.fmt == 6 ||
                cls == CmdClass::cdma_lossy_compress || cls == CmdClass::cdma_lossy_decompress)) {
    const std::string who = "chip " + std::to_string(p.chip) + " cdma port->" + std::to_string(peer) + " command " +
                            std::to_string(op.id) + ": ";
    port_fault_set(p, op.id, Status::sim_unsupported_op,
                   who + cmd::class_name(cls) + (op.fmt == 6 ? " in FP20" : "") + " is unsupported");
    return false;
  }
  const uint32_t index = static_cast<uint32_t>(&op - p.ops.data());
  switch (cls) {
    case CmdClass::cdma_recv: post_credit(p, index, t); break;
    case CmdClass::cdma_send:
      if (!issue_send(p, op, t)) return false;
      break;
    case CmdClass::cdma_read:
      begin_transfer(p.chip * kPorts + p.index, index, -1, 0, peer, p.chip, t);
      break;
    default:  // write, general, the fakes: local to the peer
      begin_transfer(p.chip * kPorts + p.index, index, -1, 0, p.chip, peer, t);
      break;
  }
  const bool drained = x.in_flight == 0;
  x.in_flight++;
  if (!cross_.empty()) {
    CdmaOp& o = p.ops[index];
    o.epoch = cross_[p.chip]->cdma_issue(agent(p, th), op.id, -1, false);
    if (drained) x.done_through = o.epoch - 1;  // every earlier command of the thread completed
    o.done_through = x.done_through;
  }
  return p.state != regs::kFault;
}

bool System::issue_sys(Port& p, uint32_t th, const CdmaOp& op, uint64_t t) {
  Thread& x = p.thread[th];
  if (x.in_flight != 0 && (op.sp == kTxSend || op.sp == kRxSend)) return false;  // every earlier one completed
  if (op.sp == kChainEnd) {
    const Thread& rx = p.thread[kRx];
    if (x.in_flight != 0 || rx.in_flight != 0 || rx.next < rx.ops.size()) return false;
  }
  const bool wait = op.sp == kTxWait || op.sp == kRxWait;
  if (wait && !chips_[p.chip]->sim->pass_message(op.msg_id, op.msg_cnt)) return false;
  if (!cross_.empty()) {
    const bool reset = wait && chips_[p.chip]->sim->message_count(op.msg_id) == 0;
    const uint32_t epoch = cross_[p.chip]->cdma_issue(agent(p, th), op.id, wait ? op.msg_id : -1, reset);
    if (x.in_flight == 0) x.done_through = epoch - 1;
  }
  x.in_flight++;
  // The head stays on a sys command for its cycle: the thread goes on when it completes.
  x.held = true;
  push(t + sg::timing_v1::kSysCycles, kSysDone, p.chip * kPorts + p.index,
       static_cast<uint32_t>(&op - p.ops.data()), p.generation);
  return true;
}

bool System::issue_send(Port& p, const CdmaOp& op, uint64_t t) {
  const int qi = port_for_peer(static_cast<uint32_t>(p.peer), p.chip);
  if (qi < 0) return false;
  Port& q = ports_[static_cast<size_t>(qi)];
  const uint32_t k = p.sends_started;
  if (k >= q.credits_posted || q.credit_arrival[k] > t) return false;
  const uint32_t recv = q.recv_ops[k];
  const CdmaOp& r = q.ops[recv];
  if (r.elements != op.elements || (r.fmt != 0 && r.fmt != op.fmt)) {
    port_fault_set(p, op.id, Status::cmd_bad_field,
                   "chip " + std::to_string(p.chip) + " cdma port->" + std::to_string(p.peer) + " command " +
                       std::to_string(op.id) + ": send of " + std::to_string(op.elements) + " elements (format " +
                       std::to_string(op.fmt) + ") pairs with chip " + std::to_string(q.chip) + "'s recv command " +
                       std::to_string(r.id) + " of " + std::to_string(r.elements) + " (format " +
                       std::to_string(r.fmt) + ")");
    return false;
  }
  p.sends_started++;
  begin_transfer(p.chip * kPorts + p.index, static_cast<uint32_t>(&op - p.ops.data()), qi, recv, p.chip, q.chip, t);
  return true;
}

void System::post_credit(Port& p, uint32_t op_index, uint64_t t) {
  const uint32_t* links = nullptr;
  const uint64_t h = std::max<uint32_t>(1, route_of(p.chip, static_cast<uint32_t>(p.peer), links));
  const uint64_t arrival = t + h * latency_ + (h - 1) * switch_latency_;
  p.credit_arrival.push_back(arrival);
  p.recv_ops.push_back(op_index);
  p.credits_posted++;
  const int qi = port_for_peer(static_cast<uint32_t>(p.peer), p.chip);
  if (qi >= 0) wake(static_cast<uint32_t>(qi), kTx, arrival);
}

void System::complete_op(Port& p, uint32_t th, uint32_t op_index, uint64_t start, uint64_t t) {
  Thread& x = p.thread[th];
  const CdmaOp& op = p.ops[op_index];
  x.in_flight--;
  x.completed++;
  p.completed++;
  p.last_end = t;
  p.dirty = true;
  cdma_executed_++;
  if (options_.sim.trace) {
    trace_.push_back(CdmaTraceRecord{p.chip, static_cast<uint32_t>(p.peer), static_cast<uint8_t>(th), op.cls, op.id,
                                     start, t, op.bytes});
  }
  const uint32_t gi = p.chip * kPorts + p.index;
  if (static_cast<CmdClass>(op.cls) == CmdClass::cdma_sys) {
    if (op.sp == kTxSend || op.sp == kRxSend) {
      if (!cross_.empty()) cross_[p.chip]->cdma_send(agent(p, th), op.msg_id);
      chips_[p.chip]->sim->signal_message(op.msg_id);
      wake_all_threads(p.chip, t);
    }
    if (op.sp == kChainEnd) {
      if (!cross_.empty()) {
        cross_[p.chip]->cdma_drained(agent(p, kTx));
        cross_[p.chip]->cdma_drained(agent(p, kRx));
        // What the port pushed into its peer has landed (the thread drained).
        if (p.peer >= 0 && static_cast<uint32_t>(p.peer) < chips_.size()) {
          cross_[static_cast<size_t>(p.peer)]->remote_drained(p.chip, cross_[p.chip]->clock_of(agent(p, kTx)));
        }
      }
      p.ended = true;
      p.state = regs::kIdle;
      return;
    }
  }
  wake(gi, th, t);
  if (th == kRx) wake(gi, kTx, t);  // a chain_end waits for RX to drain
}

void System::sync_clocks(uint64_t t) {
  for (auto& c : chips_) {
    if (c->machine->now() < t) c->machine->advance(t - c->machine->now());
  }
  now_ = std::max(now_, t);
}

uint64_t System::chip_next(uint32_t chip) const noexcept {
  const Simulator& s = *chips_[chip]->sim;
  if (s.event_epoch() != chip_epoch_[chip]) {
    chip_epoch_[chip] = s.event_epoch();
    chip_next_[chip] = s.next_event_time();
  }
  return chip_next_[chip];
}

uint64_t System::next_time() const noexcept {
  uint64_t t = events_.empty() ? UINT64_MAX : events_.front().time;
  for (uint32_t k = 0; k < chips(); ++k) t = std::min(t, chip_next(k));
  return t;
}

void System::process(uint64_t t) {
  sync_clocks(t);
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (uint32_t k = 0; k < chips(); ++k) {
      if (chip_next(k) <= t) {
        (void)chips_[k]->sim->step();
        progressed = true;
      }
    }
    while (!events_.empty() && events_.front().time <= t) {
      std::pop_heap(events_.begin(), events_.end(), std::greater<Event>());
      const Event e = events_.back();
      events_.pop_back();
      progressed = true;
      if (e.kind == kDataPhase) {
        if (transfers_[e.target].generation == e.aux && !transfers_[e.target].done) enter_data_phase(e.target, t);
      } else if (e.kind == kFinish) {
        if (transfers_[e.target].generation == e.aux && !transfers_[e.target].done) finish_transfer(e.target, t);
      } else if (e.kind == kSysDone) {
        Port& p = ports_[e.target];
        if (e.gen != p.generation || p.state == regs::kFault || p.state == regs::kIdle) continue;
        const CdmaOp& op = p.ops[e.aux];
        const uint32_t th = (op.sp == kRxSend || op.sp == kRxWait) ? kRx : kTx;
        p.thread[th].held = false;
        complete_op(p, th, e.aux, t - sg::timing_v1::kSysCycles, t);
        if (p.state != regs::kIdle) run_thread(e.target, th, t);
      } else if (e.gen == ports_[e.target].generation) {
        run_thread(e.target, e.aux, t);
      }
    }
  }
}

bool System::step() {
  const uint64_t t = next_time();
  if (t == UINT64_MAX) return false;
  process(t);
  return true;
}

void System::poll_step() {
  const uint64_t t = next_time();
  uint64_t cur = now_;
  for (const auto& c : chips_) cur = std::max(cur, c->machine->now());
  if (t == UINT64_MAX) {
    sync_clocks(cur);
    return;
  }
  if (t > cur) {
    sync_clocks(std::min(t, cur + std::max<uint64_t>(1, options_.max_advance)));
    if (t > now_) return;
  }
  process(t);
  publish();
}

Status System::run() {
  if (status_ != Status::ok) return status_;
  for (uint64_t t = next_time(); t != UINT64_MAX; t = next_time()) process(t);
  publish();
  Status result = Status::ok;
  for (const auto& c : chips_) {
    const Status s = c->sim->outcome();
    if (s != Status::ok && s != Status::rt_deadlock && s != Status::rt_timeout) return s;
    if (s != Status::ok && result == Status::ok) result = s;
  }
  for (const Port& p : ports_) {
    if (p.state == regs::kFault) return p.fault_code;
    if (p.state != regs::kIdle && result == Status::ok) result = Status::rt_deadlock;
  }
  return result;
}

void System::publish() {
  for (auto& c : chips_) c->sim->publish_registers();
  for (Port& p : ports_) {
    if (!p.dirty) continue;
    p.dirty = false;
    Machine& m = machine(p.chip);
    m.write32(regs::cdma_port_reg(p.index, regs::kCompleted), regs::completed_value(p.tag, p.completed));
    m.write32(regs::cdma_port_reg(p.index, regs::kStatus), p.state);
    m.write32(regs::cdma_port_reg(p.index, regs::kFaultCode), static_cast<uint32_t>(p.fault_code));
    m.write32(regs::cdma_port_reg(p.index, regs::kFaultCmd), p.fault_cmd);
    m.write32(regs::cdma_port_reg(p.index, regs::kCycleLo), static_cast<uint32_t>(p.last_end));
    m.write32(regs::cdma_port_reg(p.index, regs::kCycleHi), static_cast<uint32_t>(p.last_end >> 32));
  }
}

}  // namespace tilefw::port::host::sg2260
