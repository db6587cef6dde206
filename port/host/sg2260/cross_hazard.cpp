// The cross-chip hazard check (see sg2260/cross_hazard.hpp).
#include "sg2260/cross_hazard.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "tilefw/chip/sg2260.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};

// Ranges keyed by start, never overlapping: [b, e) takes `v`, trimming or replacing the older
// ranges it covers (the newest state of each byte is kept).
template <typename V>
void replace_range(std::map<uint64_t, V>& m, uint64_t b, uint64_t e, V v) {
  auto it = m.upper_bound(b);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first < e) {
    const uint64_t start = it->first;
    const V old = it->second;
    if (old.end <= b) {
      ++it;
      continue;
    }
    it = m.erase(it);
    if (start < b) {
      V head = old;
      head.end = b;
      m[start] = head;
    }
    if (old.end > e) m[e] = old;
  }
  v.end = e;
  m[b] = v;
}
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

void CrossChipChecker::report(const char* what) {
  ++count_;
  if (messages_.size() < kMaxMessages) messages_.push_back(what);
}

void CrossChipChecker::on_executed(uint32_t engine, const AccessLog& log) {
  const Agent& a = agents_[engine];
  if (a.clock == 0) return;
  for (int kind = 0; kind < 2 && !writes_.empty(); ++kind) {
    auto check = [&](const AccessLog::Range& r) {
      auto it = writes_.upper_bound(r.begin);
      if (it != writes_.begin()) --it;
      for (; it != writes_.end() && it->first < r.end; ++it) {
        const Write& w = it->second;
        if (w.end <= r.begin || a.vc[w.agent] >= w.clock) continue;
        char buf[320];
        const uint64_t b = std::max(r.begin, it->first);
        const uint64_t e = std::min(r.end, w.end);
        std::snprintf(buf, sizeof buf,
                      "hazard: chip %u core %u %s command %u %s device bytes 0x%" PRIx64 "..0x%" PRIx64
                      " written by %s with no message ordering them",
                      chip_, engine / 4, kEngineNames[engine % 4], a.ids[a.clock - 1], kind == 0 ? "reads" : "writes",
                      b, e, who(w.agent, w.id, w.peer).c_str());
        report(buf);
      }
    };
    if (kind == 0) log.for_each_read(check);
    else log.for_each_write(check);
  }
  record_local(engine, a, log);
}

// The engine's accesses become the newest of their bytes, for the CDMA writes that land later.
void CrossChipChecker::record_local(uint32_t engine, const Agent& a, const AccessLog& log) {
  log.for_each_read([&](const AccessLog::Range& r) {
    replace_range(locals_, r.begin, r.end, Local{0, engine, a.clock, a.ids[a.clock - 1], false});
  });
  log.for_each_write([&](const AccessLog::Range& r) {
    replace_range(locals_, r.begin, r.end, Local{0, engine, a.clock, a.ids[a.clock - 1], true});
  });
}

uint32_t CrossChipChecker::cdma_issue(uint32_t agent, uint32_t /*id: the op keeps it*/, int wait_msg, bool reset) {
  Agent& a = agents_[agent];
  if (wait_msg >= 0) {
    join(a.vc, msg_vc_[static_cast<size_t>(wait_msg)]);
    if (reset) std::fill(msg_vc_[static_cast<size_t>(wait_msg)].begin(), msg_vc_[static_cast<size_t>(wait_msg)].end(), 0);
  }
  a.vc[agent] = ++a.clock;
  a.snapshots.push_back(a.vc);
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
  for (uint32_t t = kEngines; t < kAgents; ++t) {  // ports that ended before this one started
    if (t != agent && !drained_[t].empty()) join(agents_[agent].vc, drained_[t]);
  }
}

// A send's source against the CDMA landings before it (as on_executed checks an engine's).
void CrossChipChecker::cdma_read(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log) {
  if (clock == 0 || writes_.empty()) return;
  const Clock& at = agents_[agent].snapshots[clock - 1];
  log.for_each_read([&](const AccessLog::Range& r) {
    auto it = writes_.upper_bound(r.begin);
    if (it != writes_.begin()) --it;
    for (; it != writes_.end() && it->first < r.end; ++it) {
      const Write& w = it->second;
      if (w.end <= r.begin || w.agent == agent || at[w.agent] >= w.clock) continue;
      char buf[320];
      std::snprintf(buf, sizeof buf, "hazard: %s reads device bytes 0x%" PRIx64 "..0x%" PRIx64 " written by %s with no message ordering them",
                    who(agent, id, peer).c_str(), std::max(r.begin, it->first), std::min(r.end, w.end),
                    who(w.agent, w.id, w.peer).c_str());
      report(buf);
    }
  });
}

// The landing against the local accesses before it: each must be ordered before the command
// (its epoch's clock); then the newest write of each byte is kept.
void CrossChipChecker::cdma_wrote(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log) {
  const Clock& at = agents_[agent].snapshots[clock - 1];
  log.for_each_write([&](const AccessLog::Range& r) {
    auto it = locals_.upper_bound(r.begin);
    if (it != locals_.begin()) --it;
    for (; it != locals_.end() && it->first < r.end; ++it) {
      const Local& l = it->second;
      if (l.end <= r.begin || at[l.engine] >= l.clock) continue;
      report_landing(who(agent, id, peer), std::max(r.begin, it->first), std::min(r.end, l.end), l);
    }
  });
  record_write(agent, clock, id, peer, log);
}

void CrossChipChecker::report_landing(const std::string& writer, uint64_t b, uint64_t e, const Local& l) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "hazard: %s writes device bytes 0x%" PRIx64 "..0x%" PRIx64
                " that chip %u core %u %s command %u %s with no message ordering them",
                writer.c_str(), b, e, chip_, l.engine / 4, kEngineNames[l.engine % 4], l.id,
                l.write ? "wrote" : "read");
  report(buf);
}

void CrossChipChecker::record_write(uint32_t agent, uint32_t clock, uint32_t id, uint32_t peer, const AccessLog& log) {
  log.for_each_write(
      [&](const AccessLog::Range& r) { replace_range(writes_, r.begin, r.end, Write{0, agent, clock, id, peer}); });
}

// The push against the local accesses before it: each must be covered by this chip's TX
// thread's clock at the send the writer is ordered after.
void CrossChipChecker::remote_wrote(uint32_t from, uint32_t clock, uint32_t id, const AccessLog& log, uint32_t tx,
                                    uint32_t started) {
  const Clock* at = tx < kAgents && started != 0 ? &agents_[tx].snapshots[started - 1] : nullptr;
  log.for_each_write([&](const AccessLog::Range& r) {
    auto it = locals_.upper_bound(r.begin);
    if (it != locals_.begin()) --it;
    for (; it != locals_.end() && it->first < r.end; ++it) {
      const Local& l = it->second;
      if (l.end <= r.begin || (at != nullptr && (*at)[l.engine] >= l.clock)) continue;
      report_landing(who(kRemoteBase + from, id, from), std::max(r.begin, it->first), std::min(r.end, l.end), l);
    }
  });
  record_write(kRemoteBase + from, clock, id, from, log);
}

void CrossChipChecker::remote_done(uint32_t agent, uint32_t from, uint32_t done_through, uint32_t send_epoch) {
  Clock& vc = agents_[agent].vc;
  vc[kRemoteBase + from] = std::max(vc[kRemoteBase + from], done_through);
  vc[kStartedBase + from] = std::max(vc[kStartedBase + from], send_epoch);
}

void CrossChipChecker::remote_drained(uint32_t from, uint32_t clock) {
  Clock& d = drained_[kRemoteBase + from];
  if (d.empty()) d.assign(kAgents, 0);
  d[kRemoteBase + from] = std::max(d[kRemoteBase + from], clock);
}

std::string CrossChipChecker::who(uint32_t agent, uint32_t id, uint32_t peer) const {
  if (agent >= kRemoteBase) {  // another chip's port to this one
    return "chip " + std::to_string(agent - kRemoteBase) + " cdma port->" + std::to_string(chip_) + " tx command " +
           std::to_string(id);
  }
  const uint32_t t = agent - kEngines;
  return "chip " + std::to_string(chip_) + " cdma port->" + std::to_string(peer) + ((t & 1) != 0 ? " rx" : " tx") +
         " command " + std::to_string(id);
}

}  // namespace tilefw::port::host::sg2260
