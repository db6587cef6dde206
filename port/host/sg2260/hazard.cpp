// The SG2260 hazard checker (see sg2260/hazard.hpp): vector clocks over the engines, each
// command's accesses handed to the FastTrack shadow of byte intervals (runs) in 4 KiB pages
// (sg2260/hazard_shadow.cpp), and the reports of the conflicts it finds.
#include "sg2260/hazard.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "sg2260/hazard_shadow.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;

using hazard_shadow::epoch_clock;
using hazard_shadow::epoch_engine;
using hazard_shadow::epoch_of;

namespace {
constexpr uint32_t kMaxClock = 1u << 26;  // epochs stay below kFlag
const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};
}  // namespace

struct HazardChecker::Pending {
  uint32_t epoch;      // the other command
  bool prior_write;    // it wrote (else read)
  bool write;          // this command writes (else reads)
  bool open;           // the range below still grows
  uint64_t begin, end;
};

HazardChecker::HazardChecker() : msg_vc_(size_t{1} << sg::kMsgIdBits) {}
HazardChecker::~HazardChecker() = default;

void HazardChecker::on_start(uint32_t engine) {
  EngineState& s = engines_[engine];
  s.base = s.clock;
  for (uint32_t f = 0; f < kEngines; ++f) {
    const EngineState& o = engines_[f];
    if (f == engine || o.last_completed == 0) continue;
    const Clock& c = o.snapshots[o.last_completed - 1];
    for (uint32_t i = 0; i < kEngines; ++i) s.vc[i] = std::max(s.vc[i], c[i]);
  }
}

void HazardChecker::on_issue(uint32_t engine, uint32_t id, uint8_t cls, uint32_t dep_engine, uint32_t dep,
                             int wait_msg, bool barrier_reset) {
  EngineState& s = engines_[engine];
  auto join = [&s](const Clock& c) {
    for (uint32_t i = 0; i < kEngines; ++i) s.vc[i] = std::max(s.vc[i], c[i]);
  };
  if (dep != 0) {
    const EngineState& peer = engines_[dep_engine];
    const uint64_t at = uint64_t{peer.base} + dep;  // its dep-th command of the current stream
    if (at <= peer.last_completed) join(peer.snapshots[at - 1]);
  }
  if (wait_msg >= 0) {
    join(msg_vc_[static_cast<size_t>(wait_msg)]);
    if (barrier_reset) msg_vc_[static_cast<size_t>(wait_msg)] = Clock{};
  }
  if (s.clock + 1 >= kMaxClock) return;  // epochs exhausted: later commands are not checked
  s.vc[engine] = ++s.clock;
  s.snapshots.push_back(s.vc);
  s.ids.push_back(id);
  s.classes.push_back(cls);
}

void HazardChecker::on_complete(uint32_t engine, int send_msg) {
  EngineState& s = engines_[engine];
  s.last_completed = s.clock;  // in order, one command in flight: the last one issued
  if (send_msg >= 0 && s.clock != 0) {
    Clock& m = msg_vc_[static_cast<size_t>(send_msg)];
    const Clock& c = s.snapshots[s.clock - 1];
    for (uint32_t i = 0; i < kEngines; ++i) m[i] = std::max(m[i], c[i]);
  }
}

void HazardChecker::on_executed(uint32_t engine, AccessLog& log) {
  const EngineState& s = engines_[engine];
  if (s.clock == 0 || s.clock + 1 >= kMaxClock) {
    log.clear();
    return;
  }
  cur_engine_ = engine;
  cur_epoch_ = epoch_of(engine, s.clock);
  cur_vc_ = &s.vc;
  forget_memo();
  palette_memo_ = false;
  log.for_each_read_entry([this](const AccessLog::Range& r) { access_range(r, false); },
                          [this](const AccessLog::Strided& r) { access_strided(r, false); });
  forget_memo();
  palette_memo_ = false;
  log.for_each_write_entry([this](const AccessLog::Range& r) { access_range(r, true); },
                           [this](const AccessLog::Strided& r) { access_strided(r, true); });
  forget_memo();
  report_pending();
  log.clear();
}

// ---- reports -------------------------------------------------------------------------------

void HazardChecker::conflict(uint32_t epoch, bool prior_write, uint64_t addr, uint64_t bytes, bool write) {
  ++conflicts_;
  for (Pending& p : pending_) {
    if (p.epoch != epoch || p.prior_write != prior_write || p.write != write) continue;
    // As if the bytes came one by one: those inside the range change nothing, the first
    // past its end extends it while it is open, any other closes it (the message names the
    // first contiguous range).
    if (addr >= p.begin && addr <= p.end) {
      if (p.open && addr + bytes > p.end) p.end = addr + bytes;
    } else {
      p.open = false;
    }
    return;
  }
  pending_.push_back(Pending{epoch, prior_write, write, true, addr, addr + bytes});
}

namespace {
std::string describe_bytes(uint64_t begin, uint64_t end) {
  char buf[128];
  const uint64_t lmem_end = sg::kLmemWindowBase + sg::kCores * sg::kLmemBytesPerCore;
  const uint64_t smem_end = sg::kSmemWindowBase + uint64_t{sg::kCores} * sg::kSmemBytes;
  if (begin >= sg::kLmemWindowBase && begin < lmem_end) {
    const uint64_t off = (begin - sg::kLmemWindowBase) % sg::kLmemBytesPerCore;
    const uint64_t in_lane = off % sg::kLaneBytes;
    std::snprintf(buf, sizeof buf, "LMEM lane %" PRIu64 " offset 0x%" PRIx64 "..0x%" PRIx64, off / sg::kLaneBytes,
                  in_lane, in_lane + (end - begin));
  } else if (begin >= sg::kSmemWindowBase && begin < smem_end) {
    const uint64_t off = (begin - sg::kSmemWindowBase) % sg::kSmemBytes;
    std::snprintf(buf, sizeof buf, "SMEM offset 0x%" PRIx64 "..0x%" PRIx64, off, off + (end - begin));
  } else if (begin >= sg::kL2Base && begin < sg::kL2Base + sg::kL2Bytes) {
    const uint64_t off = begin - sg::kL2Base;
    std::snprintf(buf, sizeof buf, "L2 offset 0x%" PRIx64 "..0x%" PRIx64, off, off + (end - begin));
  } else {
    const uint64_t a = begin - sg::kDdrWindowBase;  // the DMA address (tag in bits 44:40)
    std::snprintf(buf, sizeof buf, "DDR 0x%" PRIx64 "..0x%" PRIx64, a, a + (end - begin));
  }
  return buf;
}
}  // namespace

std::string HazardChecker::describe(uint32_t engine, uint32_t epoch_clock_value) const {
  const EngineState& s = engines_[engine];
  const size_t i = epoch_clock_value - 1;
  char buf[96];
  std::snprintf(buf, sizeof buf, "core %u %s command %u (%s)", engine / 4, kEngineNames[engine % 4], s.ids[i],
                cmd::class_name(static_cast<cmd::CmdClass>(s.classes[i])));
  return buf;
}

void HazardChecker::report_pending() {
  for (const Pending& p : pending_) {
    ++count_;
    if (messages_.size() >= kMaxMessages) continue;
    messages_.push_back("hazard: " + describe(cur_engine_, epoch_clock(cur_epoch_)) +
                        (p.write ? " writes " : " reads ") + describe_bytes(p.begin, p.end) +
                        (p.prior_write ? " written by " : " read by ") +
                        describe(epoch_engine(p.epoch), epoch_clock(p.epoch)) +
                        " with no dependency or barrier ordering them");
  }
  pending_.clear();
}

}  // namespace tilefw::port::host::sg2260
