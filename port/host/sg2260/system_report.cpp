// What a System run reports (see sg2260/system.hpp): stuck threads, per-chip and per-link
// figures, port registers' values, and the system's Perfetto trace.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "sg2260/system.hpp"
#include "sg2260/trace.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
namespace regs = chip::sg2260::regs;
constexpr uint32_t kPorts = chip::sg2260::kCdmaPorts;
const char* const kThreadNames[] = {"tx", "rx"};
}  // namespace

// What the thread's head command waits for, from the state it is in (the same tests issue()
// makes).
std::string System::thread_report(const Port& p, uint32_t th) const {
  const Thread& x = p.thread[th];
  if (x.next >= x.ops.size() && x.in_flight == 0) return "";
  char line[200];
  const uint32_t peer = static_cast<uint32_t>(p.peer);
  std::string head = "chip " + std::to_string(p.chip) + " cdma port->" + std::to_string(peer) + " " + kThreadNames[th];
  if (x.next >= x.ops.size()) {
    return head + ": " + std::to_string(x.in_flight) + " transfers in flight\n";
  }
  const CdmaOp& op = p.ops[x.ops[x.next]];
  const auto cls = static_cast<cmd::CmdClass>(op.cls);
  std::snprintf(line, sizeof line, " command %u: ", op.id);
  head += line;
  if (cls == cmd::CmdClass::cdma_sys) {
    if (op.sp == 4 || op.sp == 6) {
      std::snprintf(line, sizeof line, "waits for message %u (count %u of %u)", op.msg_id,
                    chips_[p.chip]->sim->message_count(op.msg_id), op.msg_cnt);
      return head + line + "\n";
    }
    if (op.sp == 0) return head + "waits for both threads to drain (chain_end)\n";
    return head + "waits for the earlier commands of its thread to complete (send_msg)\n";
  }
  if (x.in_flight >= options_.c2c.credits) return head + "waits for a transfer in flight to complete\n";
  if (cls == cmd::CmdClass::cdma_send) {
    std::snprintf(line, sizeof line, "waits for a credit from chip %u (send; no recv for it on chip %u's port yet)", peer,
                  peer);
    return head + line + "\n";
  }
  return head + std::string("not started (") + cmd::class_name(cls) + ")\n";
}

std::string System::blocked_report() const {
  std::string out;
  for (uint32_t k = 0; k < chips(); ++k) {
    const std::string engines = chips_[k]->sim->blocked_report();
    size_t at = 0;
    while (at < engines.size()) {
      const size_t end = engines.find('\n', at);
      out += "chip " + std::to_string(k) + " " + engines.substr(at, end - at) + "\n";
      at = end == std::string::npos ? engines.size() : end + 1;
    }
  }
  for (const Port& p : ports_) {
    if (p.state == regs::kIdle) continue;
    if (p.state == regs::kFault) {
      out += p.fault_message.rfind("chip ", 0) == 0 ? p.fault_message
                                                     : "chip " + std::to_string(p.chip) + " cdma: " + p.fault_message;
      out += std::string(" (") + status_name(p.fault_code) + ")\n";
      continue;
    }
    for (uint32_t th = 0; th < 2; ++th) out += thread_report(p, th);
  }
  return out;
}

ChipStats System::chip_stats(uint32_t chip) const noexcept {
  ChipStats s;
  for (uint32_t core = 0; core < chip::sg2260::kCores; ++core) {
    s.cycles = std::max(s.cycles, chips_[chip]->sim->core_cycles(core));
  }
  for (uint32_t p = 0; p < kPorts; ++p) {
    const Port& q = ports_[chip * kPorts + p];
    s.cycles = std::max(s.cycles, q.last_end);
    s.cdma_wait_cycles += q.wait_cycles;
    s.cdma_commands += q.completed;
  }
  return s;
}

uint64_t System::cross_hazard_count() const noexcept {
  uint64_t n = 0;
  for (const auto& x : cross_) n += x->count();
  return n;
}

std::vector<std::string> System::cross_hazard_messages() const {
  std::vector<std::string> out;
  for (const auto& x : cross_) out.insert(out.end(), x->messages().begin(), x->messages().end());
  return out;
}

LinkStats System::link_stats(uint32_t directed_link) const noexcept {
  return directed_link < link_stats_.size() ? link_stats_[directed_link] : LinkStats{};
}

uint32_t System::port_state(uint32_t chip, uint32_t peer) const noexcept {
  const int i = port_for_peer(chip, peer);
  return i < 0 ? regs::kIdle : ports_[static_cast<size_t>(i)].state;
}
uint32_t System::port_completed(uint32_t chip, uint32_t peer) const noexcept {
  const int i = port_for_peer(chip, peer);
  return i < 0 ? 0 : ports_[static_cast<size_t>(i)].completed;
}
Status System::port_fault(uint32_t chip, uint32_t peer) const noexcept {
  const int i = port_for_peer(chip, peer);
  if (i >= 0) return ports_[static_cast<size_t>(i)].fault_code;
  for (uint32_t p = 0; p < kPorts; ++p) {  // a port refused before it had a peer
    if (ports_[chip * kPorts + p].state == regs::kFault) return ports_[chip * kPorts + p].fault_code;
  }
  return Status::ok;
}
std::string System::port_fault_message(uint32_t chip, uint32_t peer) const {
  const int i = port_for_peer(chip, peer);
  if (i >= 0) return ports_[static_cast<size_t>(i)].fault_message;
  for (uint32_t p = 0; p < kPorts; ++p) {
    if (ports_[chip * kPorts + p].state == regs::kFault) return ports_[chip * kPorts + p].fault_message;
  }
  return "";
}

// Processes: chip K is pid K + 1 (threads: its cores' engines as the single-chip trace names
// them, then "cdma->J tx/rx"); the c2c links are one more process, one row per directed link.
std::string System::trace_json() const {
  std::string out = "{\"traceEvents\": [\n";
  char buf[512];
  bool first = true;
  auto emit = [&](const char* s) {
    if (!first) out += ",\n";
    first = false;
    out += s;
  };
  const uint32_t c2c_pid = chips() + 1;
  for (uint32_t k = 0; k < chips(); ++k) {
    std::snprintf(buf, sizeof buf, R"({"name": "process_name", "ph": "M", "pid": %u, "args": {"name": "chip %u"}})",
                  k + 1, k);
    emit(buf);
    for (const TraceRecord& r : chips_[k]->sim->trace()) {
      std::snprintf(buf, sizeof buf,
                    R"({"name": "%s #%u", "ph": "X", "pid": %u, "tid": %u, "ts": %.3f, "dur": %.3f, "args": {"core": %u}})",
                    r.engine == kHau ? "sync" : cmd::class_name(static_cast<cmd::CmdClass>(r.cls)), r.id, k + 1,
                    r.core * 8u + r.engine, static_cast<double>(r.start) / 1000.0,
                    static_cast<double>(r.end - r.start) / 1000.0, r.core);
      emit(buf);
    }
  }
  for (const Port& p : ports_) {  // the CDMA threads' rows of each chip
    if (p.peer < 0) continue;
    for (uint32_t th = 0; th < 2; ++th) {
      std::snprintf(buf, sizeof buf,
                    R"({"name": "thread_name", "ph": "M", "pid": %u, "tid": %u, "args": {"name": "cdma->%d %s"}})",
                    p.chip + 1, 1000 + static_cast<uint32_t>(p.peer) * 2 + th, p.peer, kThreadNames[th]);
      emit(buf);
    }
  }
  std::snprintf(buf, sizeof buf, R"({"name": "process_name", "ph": "M", "pid": %u, "args": {"name": "c2c"}})", c2c_pid);
  emit(buf);
  for (uint32_t l = 0; l < topology_.directed_link_count(); ++l) {
    std::snprintf(buf, sizeof buf,
                  R"({"name": "thread_name", "ph": "M", "pid": %u, "tid": %u, "args": {"name": "c2c %u->%u"}})",
                  c2c_pid, l, topology_.directed_source(l), topology_.directed_target(l));
    emit(buf);
  }
  for (const CdmaTraceRecord& r : trace_) {
    if (r.thread == 2) {
      std::snprintf(buf, sizeof buf, R"({"name": "busy", "ph": "X", "pid": %u, "tid": %u, "ts": %.3f, "dur": %.3f})",
                    c2c_pid, r.peer, static_cast<double>(r.start) / 1000.0,
                    static_cast<double>(r.end - r.start) / 1000.0);
    } else {
      std::snprintf(buf, sizeof buf,
                    R"({"name": "%s #%u", "ph": "X", "pid": %u, "tid": %u, "ts": %.3f, "dur": %.3f, "args": {"bytes": %)" PRIu64 "}}",
                    cmd::class_name(static_cast<cmd::CmdClass>(r.cls)), r.id, r.chip + 1, 1000 + r.peer * 2 + r.thread,
                    static_cast<double>(r.start) / 1000.0, static_cast<double>(r.end - r.start) / 1000.0, r.bytes);
    }
    emit(buf);
  }
  out += "\n], \"displayTimeUnit\": \"ns\"}\n";
  return out;
}

}  // namespace tilefw::port::host::sg2260
