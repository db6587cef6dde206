// The SG2260 command-buffer runtime: validation before any doorbell, register programming,
// and the scan that turns engine registers into ok / fault / deadlock / timeout.
#include "tilefw/rt/runtime.hpp"

#include "tilefw/port/port.hpp"

namespace tilefw::rt {

namespace sg = chip::sg2260;
namespace regs = chip::sg2260::regs;

namespace {
const EngineStream& stream_of(const CoreSubmission& s, uint32_t engine) noexcept {
  return engine == 0 ? s.tiu : engine == 1 ? s.gdma : engine == 2 ? s.sdma : s.hau;
}
}  // namespace

const char* engine_state_name(uint32_t state) noexcept {
  switch (state) {
    case regs::kIdle: return "idle";
    case regs::kRunning: return "running";
    case regs::kBlockedDep: return TILEFW_REASON("blocked on dep");
    case regs::kBlockedMsg: return TILEFW_REASON("blocked on msg");
    case regs::kFault: return "fault";
    default: return "unknown";
  }
}

bool Runtime::busy() const noexcept {
  for (const auto& core : slots_) {
    for (const Slot& s : core) {
      if (s.active && !s.finished) return true;
    }
  }
  for (const Slot& s : cdma_) {
    if (s.active && !s.finished) return true;
  }
  return false;
}

uint64_t Runtime::slot_reg(uint32_t i, uint64_t offset) noexcept {
  if (i < kCoreSlots) return regs::engine_reg(i / regs::kEngines, i % regs::kEngines, offset);
  return regs::cdma_port_reg(i - kCoreSlots, offset);
}

void Runtime::hook(uint32_t i, HookEvent e, uint32_t completed) noexcept {
  if (config_.hook == nullptr) return;
  const bool core = i < kCoreSlots;
  config_.hook(config_.hook_context, core ? i / regs::kEngines : i - kCoreSlots,
               core ? static_cast<cmd::Engine>(i % regs::kEngines) : cmd::Engine::cdma, e, completed, now());
}

Status Runtime::fail(Status s, uint32_t i, uint32_t id, Status device_code, uint32_t state,
                     const char* message) noexcept {
  const bool core = i < kCoreSlots;
  report_ = Report{};
  report_.status = s;
  report_.core = core ? i / regs::kEngines : i - kCoreSlots;
  report_.peer = core ? 0 : cdma_peer_[i - kCoreSlots];
  report_.engine = core ? static_cast<cmd::Engine>(i % regs::kEngines) : cmd::Engine::cdma;
  report_.command_id = id;
  report_.device_code = device_code;
  report_.engine_state = state;
  report_.message = message;
  return s;
}

Status Runtime::refuse(uint32_t i, const cmd::ValidationReport& r) noexcept {
  (void)fail(r.status, i, r.command_id, Status::ok, 0, r.message);
  report_.offset = r.offset;
  report_.field = r.field;
  report_.refused = true;
  return r.status;
}

// The cores' part of a submission: range, duplicates, required streams, busy engines, then
// validation (which counts the commands each queue is programmed with).
Status Runtime::check_cores(Span<const CoreSubmission> cores, cmd::CoreCommandCounts* counts) noexcept {
  bool seen[sg::kCores] = {};
  for (const CoreSubmission& s : cores) {
    const uint32_t first = s.core * regs::kEngines;
    if (s.core >= sg::kCores || seen[s.core]) {
      return fail(Status::invalid_argument, s.core < sg::kCores ? first : 0, 0, Status::ok, 0,
                  TILEFW_REASON("core out of range or submitted twice"));
    }
    seen[s.core] = true;
    if (s.tiu.bytes.empty() || s.gdma.bytes.empty()) {
      return fail(Status::invalid_argument, first + (s.tiu.bytes.empty() ? 0 : 1), 0, Status::ok, 0,
                  TILEFW_REASON("a TIU and a GDMA stream are required"));
    }
    for (const Slot& slot : slots_[s.core]) {
      if (slot.active && !slot.finished) {
        return fail(Status::rt_busy, first, 0, Status::ok, 0, TILEFW_REASON("core still runs an earlier submission"));
      }
    }
    const cmd::ValidationReport r = cmd::validate_core(
        cmd::CoreStreams{s.tiu.bytes, s.gdma.bytes, s.sdma.bytes, s.hau.bytes, s.tiu.checked_copies,
                         s.gdma.checked_copies}, config_.validate, counts[s.core]);
    if (!r.ok()) return refuse(first + static_cast<uint32_t>(r.engine), r);  // a core engine: tiu .. hau
  }
  return Status::ok;
}

// The CDMA part: at most one stream per peer and per port, none to this chip itself, the
// ports free, every stream valid for (this chip, its peer).
Status Runtime::check_cdma(Span<const CdmaSubmission> cdma, uint32_t* counts) noexcept {
  if (cdma.size() > sg::kCdmaPorts) {
    return fail(Status::invalid_argument, kCoreSlots, 0, Status::ok, 0,
        TILEFW_REASON("more CDMA streams than the chip has ports"));
  }
  for (uint32_t p = 0; p < cdma.size(); ++p) {
    const CdmaSubmission& c = cdma[p];
    cdma_peer_[p] = c.peer;
    if (c.peer == config_.chip || c.stream.bytes.empty()) {
      return fail(Status::invalid_argument, kCoreSlots + p, 0, Status::ok, 0,
                  c.stream.bytes.empty() ? TILEFW_REASON("an empty CDMA stream") :
                      TILEFW_REASON("a CDMA stream to the chip itself"));
    }
    for (uint32_t q = 0; q < p; ++q) {
      if (cdma[q].peer == c.peer) {
        return fail(Status::invalid_argument, kCoreSlots + p, 0, Status::ok, 0,
            TILEFW_REASON("two CDMA streams for one peer"));
      }
    }
    if (cdma_[p].active && !cdma_[p].finished) {
      return fail(Status::rt_busy, kCoreSlots + p, 0, Status::ok, 0,
          TILEFW_REASON("CDMA port still runs an earlier submission"));
    }
    cmd::ValidateOptions o = config_.validate;
    o.cdma.chip = config_.chip;
    o.cdma.peer = c.peer;
    o.cdma.peer_use_memory_map = c.peer_use_memory_map;
    o.cdma.peer_ddr_regions = c.peer_ddr_regions;
    const cmd::ValidationReport r = cmd::validate_stream(cmd::Engine::cdma, c.stream.bytes, o);
    if (!r.ok()) return refuse(kCoreSlots + p, r);
    counts[p] = r.commands;
  }
  return Status::ok;
}

void Runtime::program(uint32_t i, const EngineStream& st, uint32_t commands) noexcept {
  Slot& s = slot(i);
  s = Slot{};
  s.active = true;
  s.expected = commands;
  last_tag_ = last_tag_ >= regs::kQueueTagMask ? 1 : last_tag_ + 1;
  s.tag = last_tag_;
  port::clean_dcache(st.bytes.data(), st.bytes.size());
  port::reg_write32(slot_reg(i, regs::kReset), 1);
  port::reg_write32(slot_reg(i, regs::kQueueBaseLo), static_cast<uint32_t>(st.device_addr));
  port::reg_write32(slot_reg(i, regs::kQueueBaseHi), static_cast<uint32_t>(st.device_addr >> 32));
  port::reg_write32(slot_reg(i, regs::kQueueBytes), static_cast<uint32_t>(st.bytes.size()));
  port::reg_write32(slot_reg(i, regs::kQueueCount), s.expected);
  port::reg_write32(slot_reg(i, regs::kQueueTag), s.tag);
  if (i >= kCoreSlots) port::reg_write32(slot_reg(i, regs::kCdmaPeer), cdma_peer_[i - kCoreSlots]);
}

Status Runtime::submit(Span<const CoreSubmission> cores) noexcept {
  return submit(cores, Span<const CdmaSubmission>());
}

Status Runtime::submit(Span<const CoreSubmission> cores, Span<const CdmaSubmission> cdma) noexcept {
  report_ = Report{};
  // 1. Everything is checked before the first doorbell (atomic submission).
  cmd::CoreCommandCounts counts[sg::kCores];
  uint32_t cdma_counts[sg::kCdmaPorts] = {};
  if (cores.empty() && cdma.empty()) {
    return fail(Status::invalid_argument, 0, 0, Status::ok, 0, TILEFW_REASON("nothing to submit"));
  }
  if (const Status s = check_cores(cores, counts); s != Status::ok) return s;
  if (const Status s = check_cdma(cdma, cdma_counts); s != Status::ok) return s;
  // 2. Program the queues, then ring the doorbells.
  bool rung[kSlots] = {};
  for (const CoreSubmission& s : cores) {
    for (uint32_t e = 0; e < regs::kEngines; ++e) {
      const uint32_t i = s.core * regs::kEngines + e;
      slot(i) = Slot{};
      const EngineStream& st = stream_of(s, e);
      if (st.bytes.empty()) continue;
      program(i, st, counts[s.core].by_engine[e]);
      rung[i] = true;
    }
  }
  for (uint32_t p = 0; p < cdma.size(); ++p) {
    program(kCoreSlots + p, cdma[p].stream, cdma_counts[p]);
    rung[kCoreSlots + p] = true;
  }
  start_ticks_ = now();
  quiet_scans_ = 0;
  for (uint32_t i = 0; i < kSlots; ++i) {
    if (!rung[i]) continue;
    hook(i, HookEvent::begin, 0);
    port::ring_doorbell(slot_reg(i, regs::kDoorbell), 1);
  }
  return Status::ok;
}

uint64_t Runtime::now() const noexcept {
  return config_.clock != nullptr ? config_.clock(config_.clock_context) : port::now_ticks();
}

void Runtime::reset() noexcept {
  for (uint32_t i = 0; i < kSlots; ++i) {
    Slot& s = slot(i);
    if (!s.active) continue;
    if (!s.finished) hook(i, HookEvent::end, s.completed);
    port::reg_write32(slot_reg(i, regs::kReset), 1);
    s = Slot{};
  }
}

Status Runtime::poll() noexcept {
  bool progress = false;
  bool any_unfinished = false;
  bool all_blocked = true;
  // First blocked / running engine, for the deadlock and timeout reports.
  uint32_t first = 0, first_state = 0;
  bool have_first = false;
  for (uint32_t i = 0; i < kSlots; ++i) {
    Slot& s = slot(i);
    if (!s.active || s.finished) continue;
    const uint32_t raw = port::reg_read32(slot_reg(i, regs::kCompleted));
    const uint32_t state = port::reg_read32(slot_reg(i, regs::kStatus));
    if ((raw >> regs::kCompletedTagShift) != s.tag) {
      // Not this submission's count: the doorbell is not picked up yet, or a completion of
      // work reset earlier landed late. Neither is progress, a finish or a block.
      any_unfinished = true;
      all_blocked = false;
      if (!have_first) {
        first = i;
        first_state = regs::kIdle;
        have_first = true;
      }
      continue;
    }
    const uint32_t done = raw & regs::kCompletedCountMask;
    if (done != s.completed) progress = true;
    s.completed = done;
    if (state == regs::kFault) {
      const uint32_t id = port::reg_read32(slot_reg(i, regs::kFaultCmd));
      const Status code = static_cast<Status>(port::reg_read32(slot_reg(i, regs::kFaultCode)));
      if (config_.reset_on_error) reset();
      return fail(Status::rt_engine_fault, i, id, code, state, TILEFW_REASON("engine reported a fault"));
    }
    if (state == regs::kIdle && done >= s.expected) {
      s.finished = true;
      hook(i, HookEvent::end, done);
      continue;
    }
    // Idle before the end: the device has not picked the doorbell up yet (an engine that
    // never does is caught by the timeout). It counts as making progress, not as blocked. A
    // CDMA port waiting for its peer chip reports running: only the chip's own engines can
    // be seen deadlocked from here (the peer's progress is not visible).
    any_unfinished = true;
    if (state != regs::kBlockedDep && state != regs::kBlockedMsg) all_blocked = false;
    if (!have_first || (first_state != regs::kRunning && state == regs::kRunning)) {
      first = i;
      first_state = state;
      have_first = true;
    }
  }
  if (!any_unfinished) return Status::ok;
  quiet_scans_ = (all_blocked && !progress) ? quiet_scans_ + 1 : 0;
  if (quiet_scans_ >= config_.deadlock_scans) {
    const uint32_t id = slot(first).completed + 1;
    if (config_.reset_on_error) reset();
    return fail(Status::rt_deadlock, first, id, Status::ok, first_state,
                TILEFW_REASON("every unfinished engine is blocked on a dependency or a message barrier"));
  }
  if (now() - start_ticks_ >= config_.timeout_ticks) {
    const uint32_t id = slot(first).completed + 1;
    reset();
    return fail(Status::rt_timeout, first, id, Status::ok, first_state,
                TILEFW_REASON("no completion before the timeout; engines reset"));
  }
  return Status::rt_busy;
}

Status Runtime::wait() noexcept { return wait_until(nullptr, nullptr); }

Status Runtime::wait_until(bool (*reached)(const Runtime&, void*), void* context) noexcept {
  for (;;) {
    const Status s = poll();
    if (s != Status::rt_busy) return s;
    if (reached != nullptr && reached(*this, context)) return Status::ok;
    if (config_.poll != nullptr) config_.poll(config_.poll_context);
    // Watch one unfinished engine: on hardware this is a bounded spin, on the host the port
    // runs the simulator while it polls.
    for (uint32_t i = 0; i < kSlots; ++i) {
      const Slot& sl = slot(i);
      if (!sl.active || sl.finished) continue;
      const uint64_t elapsed = now() - start_ticks_;
      const uint64_t left = elapsed >= config_.timeout_ticks ? 1 : config_.timeout_ticks - elapsed;
      const uint64_t slice = left < config_.poll_slice_ticks ? left : config_.poll_slice_ticks;
      (void)port::poll_register(slot_reg(i, regs::kStatus), 0xFFFFFFFFu, regs::kIdle, slice == 0 ? 1 : slice);
      break;
    }
  }
}

}  // namespace tilefw::rt
