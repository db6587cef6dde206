// The cross-chip hazard check (see sg2260/cross_hazard.hpp).
#include "sg2260/cross_hazard.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "tilefw/chip/sg2260.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};
}  // namespace

CrossChipChecker::CrossChipChecker(uint32_t chip)
    : chip_(chip), agents_(kAgents), msg_vc_(size_t{1} << chip::sg2260::kMsgIdBits, Clock(kAgents, 0)) {}

void CrossChipChecker::join(Clock& into, const Clock& from) {
  for (uint32_t i = 0; i < kAgents; ++i) into[i] = std::max(into[i], from[i]);
}

void CrossChipChecker::on_start(uint32_t engine) {
  Agent& a = agents_[engine];
  a.base = a.clock;
  for (uint32_t f = 0; f < kEngines; ++f) {  // the host saw these complete before the doorbell
    const Agent& o = agents_[f];
    if (f != engine && o.last_completed != 0) join(a.vc, o.snapshots[o.last_completed - 1]);
  }
  for (uint32_t t = kEngines; t < kAgents; ++t) {  // ports that ended before the doorbell
    if (!drained_[t].empty()) join(a.vc, drained_[t]);
  }
}

void CrossChipChecker::cdma_drained(uint32_t agent) { drained_[agent] = agents_[agent].vc; }

void CrossChipChecker::on_issue(uint32_t engine, uint32_t id, uint32_t dep_engine, uint32_t dep, int wait_msg,
                                bool reset) {
  Agent& a = agents_[engine];
  if (dep != 0) {
    const Agent& peer = agents_[dep_engine];
    const uint64_t at = uint64_t{peer.base} + dep;
    if (at <= peer.last_completed) join(a.vc, peer.snapshots[at - 1]);
  }
  if (wait_msg >= 0) {
    join(a.vc, msg_vc_[static_cast<size_t>(wait_msg)]);
    if (reset) std::fill(msg_vc_[static_cast<size_t>(wait_msg)].begin(), msg_vc_[static_cast<size_t>(wait_msg)].end(), 0);
  }
  a.vc[engine] = ++a.clock;
  a.snapshots.push_back(a.vc);
  a.ids.push_back(id);
}

void CrossChipChecker::on_complete(uint32_t engine, int send_msg) {
  Agent& a = agents_[engine];
  a.last_completed = a.clock;
  if (send_msg >= 0 && a.clock != 0) join(msg_vc_[static_cast<size_t>(send_msg)], a.snapshots[a.clock - 1]);
}

void CrossChipChecker::on_executed(uint32_t engine, const AccessLog& log) {
  const Agent& a = agents_[engine];
  if (writes_.empty() || a.clock == 0) return;
  for (int kind = 0; kind < 2; ++kind) {
    for (const AccessLog::Range& r : kind == 0 ? log.reads() : log.writes()) {
      auto it = writes_.upper_bound(r.begin);
      if (it != writes_.begin()) --it;
      for (; it != writes_.end() && it->first < r.end; ++it) {
        const Write& w = it->second;
        if (w.end <= r.begin || a.vc[w.agent] >= w.clock) continue;
        ++count_;
        if (messages_.size() >= kMaxMessages) continue;
        char buf[320];
        const uint64_t b = std::max(r.begin, it->first);
        const uint64_t e = std::min(r.end, w.end);
        std::snprintf(buf, sizeof buf,
                      "hazard: chip %u core %u %s command %u %s device bytes 0x%" PRIx64 "..0x%" PRIx64
                      " written by %s with no message ordering them",
                      chip_, engine / 4, kEngineNames[engine % 4], a.ids[a.clock - 1], kind == 0 ? "reads" : "writes",
                      b, e, who(w.agent, w.id, w.peer).c_str());
        messages_.push_back(buf);
      }
    }
  }
}

uint32_t CrossChipChecker::cdma_issue(uint32_t agent, uint32_t /*id: the op keeps it*/, int wait_msg, bool reset) {
  Agent& a = agents_[agent];
  if (wait_msg >= 0) {
    join(a.vc, msg_vc_[static_cast<size_t>(wait_msg)]);
    if (reset) std::fill(msg_vc_[static_cast<size_t>(wait_msg)].begin(), msg_vc_[static_cast<size_t>(wait_msg)].end(), 0);
  }
  a.vc[agent] = ++a.clock;
  return a.clock;
}

void CrossChipChecker::cdma_send(uint32_t agent, int msg) {
  if (msg >= 0) join(msg_vc_[static_cast<size_t>(msg)], agents_[agent].vc);
}

void CrossChipChecker::cdma_start(uint32_t agent) {
  for (uint32_t f = 0; f < kEngines; ++f) {
    const Agent& o = agents_[f];
    if (o.last_completed != 0) join(agents_[agent].vc, o.snapshots[o.last_completed - 1]);
  }
}

// The newest write of each byte is kept: a later write trims or replaces the older ranges.
void CrossChipChecker::cdma_wrote(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log) {
  for (const AccessLog::Range& r : log.writes()) {
    auto it = writes_.upper_bound(r.begin);
    if (it != writes_.begin()) --it;
    while (it != writes_.end() && it->first < r.end) {
      const uint64_t b = it->first;
      const Write w = it->second;
      if (w.end <= r.begin) {
        ++it;
        continue;
      }
      it = writes_.erase(it);
      if (b < r.begin) writes_[b] = Write{r.begin, w.agent, w.clock, w.id, w.peer};
      if (w.end > r.end) writes_[r.end] = w;
    }
    writes_[r.begin] = Write{r.end, agent, clock, id, peer};
  }
}

std::string CrossChipChecker::who(uint32_t agent, uint32_t id, uint32_t peer) const {
  const uint32_t t = agent - kEngines;
  return "chip " + std::to_string(chip_) + " cdma port->" + std::to_string(peer) + ((t & 1) != 0 ? " rx" : " tx") +
         " command " + std::to_string(id);
}

}  // namespace tilefw::port::host::sg2260
