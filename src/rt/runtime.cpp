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
    case regs::kBlockedDep: return "blocked on dep";
    case regs::kBlockedMsg: return "blocked on msg";
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
  return false;
}

void Runtime::hook(uint32_t core, uint32_t engine, HookEvent e, uint32_t completed) noexcept {
  if (config_.hook != nullptr) {
    config_.hook(config_.hook_context, core, static_cast<cmd::Engine>(engine), e, completed, now());
  }
}

Status Runtime::fail(Status s, uint32_t core, uint32_t engine, uint32_t id, Status device_code,
                     uint32_t state, const char* message) noexcept {
  report_ = Report{s, core, static_cast<cmd::Engine>(engine), id, 0, device_code, state, message};
  return s;
}

Status Runtime::submit(Span<const CoreSubmission> cores) noexcept {
  report_ = Report{};
  // 1. Everything is checked before the first doorbell (atomic submission); validation counts
  // the commands each queue is programmed with.
  bool seen[sg::kCores] = {};
  cmd::CoreCommandCounts counts[sg::kCores];
  for (const CoreSubmission& s : cores) {
    if (s.core >= sg::kCores || seen[s.core]) {
      return fail(Status::invalid_argument, s.core, 0, 0, Status::ok, 0, "core out of range or submitted twice");
    }
    seen[s.core] = true;
    if (s.tiu.bytes.empty() || s.gdma.bytes.empty()) {
      return fail(Status::invalid_argument, s.core, s.tiu.bytes.empty() ? 0 : 1, 0, Status::ok, 0,
                  "a TIU and a GDMA stream are required");
    }
    for (const Slot& slot : slots_[s.core]) {
      if (slot.active && !slot.finished) {
        return fail(Status::rt_busy, s.core, 0, 0, Status::ok, 0, "core still runs an earlier submission");
      }
    }
    const cmd::ValidationReport r = cmd::validate_core(
        cmd::CoreStreams{s.tiu.bytes, s.gdma.bytes, s.sdma.bytes, s.hau.bytes}, config_.validate, counts[s.core]);
    if (!r.ok()) {
      report_ = Report{r.status, s.core, r.engine, r.command_id, r.offset, Status::ok, 0, r.message, r.field, true};
      return r.status;
    }
  }
  // 2. Program the queues and ring the doorbells.
  for (const CoreSubmission& s : cores) {
    for (uint32_t e = 0; e < regs::kEngines; ++e) {
      Slot& slot = slots_[s.core][e];
      const EngineStream& st = stream_of(s, e);
      slot = Slot{};
      if (st.bytes.empty()) continue;
      slot.active = true;
      slot.expected = counts[s.core].by_engine[e];
      last_tag_ = last_tag_ >= regs::kQueueTagMask ? 1 : last_tag_ + 1;
      slot.tag = last_tag_;
      port::clean_dcache(st.bytes.data(), st.bytes.size());
      port::reg_write32(regs::engine_reg(s.core, e, regs::kReset), 1);
      port::reg_write32(regs::engine_reg(s.core, e, regs::kQueueBaseLo), static_cast<uint32_t>(st.device_addr));
      port::reg_write32(regs::engine_reg(s.core, e, regs::kQueueBaseHi), static_cast<uint32_t>(st.device_addr >> 32));
      port::reg_write32(regs::engine_reg(s.core, e, regs::kQueueBytes), static_cast<uint32_t>(st.bytes.size()));
      port::reg_write32(regs::engine_reg(s.core, e, regs::kQueueCount), slot.expected);
      port::reg_write32(regs::engine_reg(s.core, e, regs::kQueueTag), slot.tag);
    }
  }
  start_ticks_ = now();
  quiet_scans_ = 0;
  for (const CoreSubmission& s : cores) {
    for (uint32_t e = 0; e < regs::kEngines; ++e) {
      if (!slots_[s.core][e].active) continue;
      hook(s.core, e, HookEvent::begin, 0);
      port::ring_doorbell(regs::engine_reg(s.core, e, regs::kDoorbell), 1);
    }
  }
  return Status::ok;
}

uint64_t Runtime::now() const noexcept {
  return config_.clock != nullptr ? config_.clock(config_.clock_context) : port::now_ticks();
}

void Runtime::reset() noexcept {
  for (uint32_t c = 0; c < sg::kCores; ++c) {
    for (uint32_t e = 0; e < regs::kEngines; ++e) {
      Slot& slot = slots_[c][e];
      if (!slot.active) continue;
      if (!slot.finished) hook(c, e, HookEvent::end, slot.completed);
      port::reg_write32(regs::engine_reg(c, e, regs::kReset), 1);
      slot = Slot{};
    }
  }
}

Status Runtime::poll() noexcept {
  bool progress = false;
  bool any_unfinished = false;
  bool all_blocked = true;
  // First blocked / running engine, for the deadlock and timeout reports.
  uint32_t first_core = 0, first_engine = 0, first_state = 0;
  bool have_first = false;
  for (uint32_t c = 0; c < sg::kCores; ++c) {
    for (uint32_t e = 0; e < regs::kEngines; ++e) {
      Slot& slot = slots_[c][e];
      if (!slot.active || slot.finished) continue;
      const uint32_t raw = port::reg_read32(regs::engine_reg(c, e, regs::kCompleted));
      const uint32_t state = port::reg_read32(regs::engine_reg(c, e, regs::kStatus));
      if ((raw >> regs::kCompletedTagShift) != slot.tag) {
        // Not this submission's count: the doorbell is not picked up yet, or a completion of
        // work reset earlier landed late. Neither is progress, a finish or a block.
        any_unfinished = true;
        all_blocked = false;
        if (!have_first) {
          first_core = c;
          first_engine = e;
          first_state = regs::kIdle;
          have_first = true;
        }
        continue;
      }
      const uint32_t done = raw & regs::kCompletedCountMask;
      if (done != slot.completed) progress = true;
      slot.completed = done;
      if (state == regs::kFault) {
        const uint32_t id = port::reg_read32(regs::engine_reg(c, e, regs::kFaultCmd));
        const Status code = static_cast<Status>(port::reg_read32(regs::engine_reg(c, e, regs::kFaultCode)));
        if (config_.reset_on_error) reset();
        return fail(Status::rt_engine_fault, c, e, id, code, state, "engine reported a fault");
      }
      if (state == regs::kIdle && done >= slot.expected) {
        slot.finished = true;
        hook(c, e, HookEvent::end, done);
        continue;
      }
      // Idle before the end: the device has not picked the doorbell up yet (an engine that
      // never does is caught by the timeout). It counts as making progress, not as blocked.
      any_unfinished = true;
      if (state != regs::kBlockedDep && state != regs::kBlockedMsg) all_blocked = false;
      if (!have_first || (first_state != regs::kRunning && state == regs::kRunning)) {
        first_core = c;
        first_engine = e;
        first_state = state;
        have_first = true;
      }
    }
  }
  if (!any_unfinished) return Status::ok;
  quiet_scans_ = (all_blocked && !progress) ? quiet_scans_ + 1 : 0;
  if (quiet_scans_ >= config_.deadlock_scans) {
    const uint32_t id = slots_[first_core][first_engine].completed + 1;
    if (config_.reset_on_error) reset();
    return fail(Status::rt_deadlock, first_core, first_engine, id, Status::ok, first_state,
                "every unfinished engine is blocked on a dependency or a message barrier");
  }
  if (now() - start_ticks_ >= config_.timeout_ticks) {
    const uint32_t id = slots_[first_core][first_engine].completed + 1;
    reset();
    return fail(Status::rt_timeout, first_core, first_engine, id, Status::ok, first_state,
                "no completion before the timeout; engines reset");
  }
  return Status::rt_busy;
}

Status Runtime::wait() noexcept {
  for (;;) {
    const Status s = poll();
    if (s != Status::rt_busy) return s;
    if (config_.poll != nullptr) config_.poll(config_.poll_context);
    // Watch one unfinished engine: on hardware this is a bounded spin, on the host the port
    // runs the simulator while it polls.
    for (uint32_t c = 0; c < sg::kCores; ++c) {
      for (uint32_t e = 0; e < regs::kEngines; ++e) {
        const Slot& slot = slots_[c][e];
        if (!slot.active || slot.finished) continue;
        const uint64_t elapsed = now() - start_ticks_;
        const uint64_t left = elapsed >= config_.timeout_ticks ? 1 : config_.timeout_ticks - elapsed;
        const uint64_t slice = left < config_.poll_slice_ticks ? left : config_.poll_slice_ticks;
        (void)port::poll_register(regs::engine_reg(c, e, regs::kStatus), 0xFFFFFFFFu, regs::kIdle,
                                  slice == 0 ? 1 : slice);
        goto scanned;
      }
    }
  scanned:;
  }
}

}  // namespace tilefw::rt
