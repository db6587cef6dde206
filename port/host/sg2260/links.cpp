// CDMA transfers on the C2C links (Rule: CDMA timing v1): a transfer waits alpha + hops x link
// latency (+ the switch latency per switch vertex crossed), then its bytes flow through the
// directed links of its route. Each directed link is a bandwidth server shared equally among
// the transfers in their data phase on it; a transfer's rate is the minimum of its links'
// shares (a share a transfer cannot use is not given to the others). Rates change only when a
// data phase starts or ends; each flowing transfer's completion is then moved to the first
// whole cycle by which its bytes have gone, as the v2 DMA flows of sim.cpp are.
#include <algorithm>
#include <cmath>

#include "sg2260/system.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
// Floating tolerance of the flow accounting, in bytes (as sim.cpp's).
constexpr double kFlowEps = 1e-6;
}  // namespace

uint32_t System::route_of(uint32_t from, uint32_t to, const uint32_t*& links) {
  const size_t pair = size_t{from} * chips() + to;
  uint32_t* slot = &route_links_[pair * cmd::Topology::kMaxHops];
  if (route_hops_[pair] < 0) {
    const Result<uint32_t> hops = topology_.route(from, to, Span<uint32_t>(slot, cmd::Topology::kMaxHops));
    route_hops_[pair] = hops.ok() ? static_cast<int32_t>(hops.value()) : 0;
  }
  links = slot;
  return static_cast<uint32_t>(route_hops_[pair]);
}

uint32_t System::begin_transfer(uint32_t send_port, uint32_t send_op, int32_t recv_port, uint32_t recv_op,
                                uint32_t from_chip, uint32_t to_chip, uint64_t t) {
  uint32_t index;
  if (!free_transfers_.empty()) {
    index = free_transfers_.back();
    free_transfers_.pop_back();
  } else {
    index = static_cast<uint32_t>(transfers_.size());
    transfers_.emplace_back();
  }
  Transfer& x = transfers_[index];
  const uint32_t generation = x.generation + 1;
  x = Transfer{};
  x.generation = generation;
  x.send_port = send_port;
  x.send_op = send_op;
  x.recv_port = recv_port;
  x.recv_op = recv_op;
  x.from_chip = from_chip;
  x.to_chip = to_chip;
  x.send_port_generation = ports_[send_port].generation;
  x.recv_port_generation = recv_port >= 0 ? ports_[static_cast<size_t>(recv_port)].generation : 0;
  x.start = t;
  const CdmaOp& op = ports_[send_port].ops[send_op];
  x.bytes = op.bytes;
  const auto cls = static_cast<cmd::CmdClass>(op.cls);
  const double bw = bw_;
  const uint64_t alpha = alpha_;
  if (cls == cmd::CmdClass::cdma_fake_all_reduce || cls == cmd::CmdClass::cdma_fake_p2p) {
    // Timed only: 4 alpha + 3 beta + 2 bytes / bw, or alpha + bytes / bw; no link is loaded.
    x.fixed = true;
    const uint64_t beta = beta_;
    const double data = static_cast<double>(x.bytes) / bw;
    const uint64_t cost = cls == cmd::CmdClass::cdma_fake_all_reduce
                              ? 4 * alpha + 3 * beta + static_cast<uint64_t>(std::ceil(2 * data - kFlowEps))
                              : alpha + static_cast<uint64_t>(std::ceil(data - kFlowEps));
    x.finish = t + cost;
    push(x.finish, kFinish, index, x.generation);
    return index;
  }
  const uint32_t* links = nullptr;
  x.hops = route_of(from_chip, to_chip, links);
  for (uint32_t h = 0; h < x.hops; ++h) x.links[h] = links[h];
  const uint64_t lat = latency_;
  const uint64_t sw = switch_latency_;
  const uint64_t delay = alpha + x.hops * lat + (x.hops > 0 ? (x.hops - 1) * sw : 0);
  push(t + delay, kDataPhase, index, x.generation);
  return index;
}

void System::enter_data_phase(uint32_t index, uint64_t t) {
  Transfer& x = transfers_[index];
  x.data_start = t;
  if (x.bytes == 0 || x.hops == 0) {
    push(t, kFinish, index, x.generation);
    return;
  }
  x.flowing = true;
  x.remaining = static_cast<double>(x.bytes);
  x.rate = 0;
  x.updated = t;
  x.finish = UINT64_MAX;
  for (uint32_t h = 0; h < x.hops; ++h) {
    if (link_active_[x.links[h]]++ == 0) link_since_[x.links[h]] = t;
  }
  flowing_.push_back(index);
  reshare(t, x.links, x.hops);
}

// Only the transfers on the links whose count changed get new rates; each counts its bytes
// up to t at its old rate first.
void System::reshare(uint64_t t, const uint32_t* links, uint32_t hops) {
  for (uint32_t i : flowing_) {
    Transfer& x = transfers_[i];
    bool shares = false;
    for (uint32_t h = 0; h < x.hops && !shares; ++h) {
      for (uint32_t k = 0; k < hops; ++k) shares = shares || x.links[h] == links[k];
    }
    if (!shares) continue;
    x.remaining = std::max(0.0, x.remaining - x.rate * static_cast<double>(t - x.updated));
    x.updated = t;
    double rate = bw_;
    for (uint32_t h = 0; h < x.hops; ++h) rate = std::min(rate, bw_ / link_active_[x.links[h]]);
    x.rate = rate;
    uint64_t finish = t;
    if (x.remaining > kFlowEps) finish = t + static_cast<uint64_t>(std::ceil((x.remaining - kFlowEps) / rate));
    if (finish != x.finish) {
      x.finish = finish;
      x.generation++;
      push(finish, kFinish, i, x.generation);
    }
  }
}

void System::finish_transfer(uint32_t index, uint64_t t) {
  Transfer& x = transfers_[index];
  x.done = true;
  if (x.flowing) {
    x.flowing = false;
    flowing_.erase(std::find(flowing_.begin(), flowing_.end(), index));
    for (uint32_t h = 0; h < x.hops; ++h) {
      const uint32_t l = x.links[h];
      link_stats_[l].bytes += x.bytes;
      if (--link_active_[l] == 0) {
        link_stats_[l].busy_cycles += t - link_since_[l];
        if (options_.sim.trace) {
          trace_.push_back(CdmaTraceRecord{0, l, 2, 0, 0, link_since_[l], t, 0});
        }
      }
    }
    reshare(t, x.links, x.hops);
  }
  Port& p = ports_[x.send_port];
  const bool send_live = p.generation == x.send_port_generation;
  const bool recv_live =
      x.recv_port >= 0 && ports_[static_cast<size_t>(x.recv_port)].generation == x.recv_port_generation;
  if (options_.sim.functional && !x.fixed && send_live && (x.recv_port < 0 || recv_live) &&
      p.state != chip::sg2260::regs::kFault) {
    std::string message;
    AccessLog written, read;
    const Status s = move_data(x, message, cross_.empty() ? nullptr : &written, cross_.empty() ? nullptr : &read);
    if (s == Status::ok && !cross_.empty()) {
      // The source a send, write or general read on its own chip, against the landings there.
      const CdmaOp& sop = p.ops[x.send_op];
      cross_[p.chip]->cdma_read(agent(p, 0), sop.epoch, sop.id, static_cast<uint32_t>(p.peer), read);
      // Written on the destination chip by a thread of that chip: the recv's RX, a read's TX.
      const bool recv = x.recv_port >= 0;
      const Port& w = recv ? ports_[static_cast<size_t>(x.recv_port)] : p;
      const CdmaOp& wop = recv ? w.ops[x.recv_op] : p.ops[x.send_op];
      if (recv || static_cast<cmd::CmdClass>(wop.cls) == cmd::CmdClass::cdma_read) {
        cross_[w.chip]->cdma_wrote(agent(w, recv ? 1 : 0), wop.epoch, wop.id, static_cast<uint32_t>(w.peer), written);
        // The recv completes after its send started: what that send's thread had completed.
        if (recv) {
          cross_[w.chip]->remote_done(agent(w, 1), p.chip, p.ops[x.send_op].done_through, p.ops[x.send_op].epoch);
        }
      } else {  // a write or general pushed into the peer's memory
        // Ordered after the peer's sends the writer's thread knew had started (the peer's TX
        // thread on its port back to this chip).
        const int back = port_for_peer(x.to_chip, p.chip);
        const uint32_t started = cross_[p.chip]->known_started(agent(p, 0), wop.epoch, x.to_chip);
        const uint32_t tx = back < 0 ? CrossChipChecker::kNoAgent : agent(ports_[static_cast<size_t>(back)], 0);
        cross_[x.to_chip]->remote_wrote(p.chip, wop.epoch, wop.id, written, tx, started);
      }
    }
    if (s != Status::ok) {
      const CdmaOp& op = p.ops[x.send_op];
      port_fault_set(p, op.id, s,
                     "chip " + std::to_string(p.chip) + " cdma port->" + std::to_string(p.peer) + " command " +
                         std::to_string(op.id) + ": " + message);
    }
  }
  if (send_live) complete_op(p, 0, x.send_op, x.start, t);
  if (recv_live) complete_op(ports_[static_cast<size_t>(x.recv_port)], 1, x.recv_op, x.start, t);
  free_transfers_.push_back(index);
}

}  // namespace tilefw::port::host::sg2260
