// Command-buffer runtime for SG2260: submits per-core TIU/GDMA/SDMA (and HAU) streams and the
// chip's CDMA port streams (validated completely first; commands a generator marks as checked
// copies skip their operand checks, EngineStream::checked_copies), drives the engines through the port
// and tilefw's engine registers, and waits with timeouts, reporting faults, timeouts and
// deadlocks by core (or CDMA port and peer chip), engine and command id.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::rt {

/// One engine's stream: where the device reads it (QUEUE_BASE, a port::map_memory address,
/// normally DDR) and the CPU view of the same bytes, which the runtime validates. An empty
/// `bytes` means "this engine is not used" (allowed for SDMA and HAU only).
struct EngineStream {
  uint64_t device_addr = 0;
  ConstByteSpan bytes{};
  /// TIU and GDMA: commands a generator copied with their moved operands checked
  /// (cmd::ValidateOptions::checked_copies); validation skips their operand and field checks.
  /// Empty: none. A trust input: only firmware code that generated the stream itself may set it
  /// (fw::generate_experts_phase does); the runtime cannot tell a wrong mark.
  Span<const uint8_t> checked_copies{};
};

/// The streams of one core.
struct CoreSubmission {
  uint32_t core = 0;
  EngineStream tiu{};
  EngineStream gdma{};
  EngineStream sdma{};
  EngineStream hau{};  // message syncs only (tilefw/cmd/hau.hpp); multi-core models count it
};

/// One CDMA port stream of this chip: what the port bound to chip `peer` runs (one stream per
/// peer; Rule: CDMA threads). The runtime gives the ports numbers 0..9 in submission order and
/// writes the peer into the port's PEER register before its doorbell.
struct CdmaSubmission {
  uint32_t peer = 0;
  EngineStream stream{};
  /// The peer chip's DDR, for the addresses the stream names there (a write's destination, a
  /// read's source, a general's destination): validated like the local ones when
  /// `peer_use_memory_map`, else any offset of a DDR tag.
  bool peer_use_memory_map = false;
  Span<const cmd::DdrRegion> peer_ddr_regions{};
};

enum class HookEvent : uint8_t {
  begin,  // the doorbell was rung
  end,    // the engine completed its stream (or stopped: fault, timeout, deadlock)
};
/// Profiling hook: no virtuals, a function pointer and the caller's context.
using ProfileHook = void (*)(void* context, uint32_t core, cmd::Engine engine, HookEvent event,
                             uint32_t completed, uint64_t ticks);
/// Called on every iteration of wait(): lets a device model without its own clock make
/// progress (the QEMU tests' deterministic completion model). nullptr on real hardware and
/// on the host simulator, which advances inside port::poll_register.
using PollCallback = void (*)(void* context);
/// Tick source for timeouts and hook timestamps. nullptr: port::now_ticks(). Firmware with
/// its own timebase passes one; the tests pass the device model's step count, so timeouts
/// do not depend on how fast the host running QEMU happens to be.
using ClockCallback = uint64_t (*)(void* context);

struct Config {
  /// wait() gives up after this many port ticks (host: simulated cycles).
  uint64_t timeout_ticks = 1'000'000'000ull;
  /// Longest single port::poll_register call inside wait().
  uint64_t poll_slice_ticks = 1024;
  /// A deadlock is declared when every unfinished engine is blocked, none completed a
  /// command, for this many consecutive scans (registers are read one by one, so a single
  /// scan can see a transient picture).
  uint32_t deadlock_scans = 3;
  /// On a fault, deadlock or timeout, reset every engine in use (so the runtime is ready for
  /// the next submission). false leaves them as they stopped, for a post-mortem (the caller
  /// then calls reset()); a timeout always resets.
  bool reset_on_error = true;
  PollCallback poll = nullptr;
  void* poll_context = nullptr;
  ProfileHook hook = nullptr;
  void* hook_context = nullptr;
  ClockCallback clock = nullptr;
  void* clock_context = nullptr;
  /// Options of cmd::validate_core (memory map, stream limit).
  cmd::ValidateOptions validate{};
  /// This chip's id in its system (CDMA streams name their peers by chip id; a non-zero
  /// chip id in a CDMA command's cmodel fields must match it).
  uint32_t chip = 0;
};

/// What went wrong, for the caller's message: "core 3 gdma command 17: ...".
struct Report {
  Status status = Status::ok;
  /// The core; for engine cdma, the port (its peer is `peer`).
  uint32_t core = 0;
  uint32_t peer = 0;
  cmd::Engine engine = cmd::Engine::tiu;
  /// The 1-based id of the command at fault (the one that faulted, or the one that could
  /// not complete: COMPLETED + 1).
  uint32_t command_id = 0;
  /// Validation failures: byte offset in the stream; engine faults: the device's FAULT_CODE.
  size_t offset = 0;
  Status device_code = Status::ok;
  /// STATUS register of the engine when the error was declared (regs::EngineState).
  uint32_t engine_state = 0;
  const char* message = "";
  /// Validation failures (submit refused the streams): the field at fault, as
  /// cmd::ValidationReport names it ("" when no single field is), so a caller reports what
  /// `tilefw validate` reports without validating again.
  const char* field = "";
  bool refused = false;
};

/// The runtime. Caller-owned storage, no heap; one instance drives the 8 cores of a chip.
class Runtime {
 public:
  explicit Runtime(const Config& config = {}) noexcept : config_(config) {}

  /// Validates every submission (cmd::validate_core, which also counts the commands), and only
  /// when all are valid programs the queue registers and rings the doorbells. Errors: a cmd_*
  /// validation Status (nothing started; report() names core, engine, id, offset, field and
  /// sets `refused`),
  /// invalid_argument (core out of range, twice in `cores`, missing TIU/GDMA stream),
  /// rt_busy (a core still runs an earlier submission).
  [[nodiscard]] Status submit(Span<const CoreSubmission> cores) noexcept;
  [[nodiscard]] Status submit(const CoreSubmission& core) noexcept {
    return submit(Span<const CoreSubmission>(&core, 1));
  }
  /// The cores' streams and the chip's CDMA port streams, as one atomic submission: every
  /// stream is validated (the CDMA ones by cmd::validate_stream(Engine::cdma) with this chip
  /// and the peer) before any doorbell. `cores` may be empty (a chip that only forwards).
  /// Errors as above, plus invalid_argument for more than kCdmaPorts streams, a peer named
  /// twice or equal to Config::chip, and rt_busy for a port still running.
  [[nodiscard]] Status submit(Span<const CoreSubmission> cores, Span<const CdmaSubmission> cdma) noexcept;

  /// One scan of the engines in use: ok when all finished, rt_busy while work remains, or
  /// rt_engine_fault / rt_deadlock / rt_timeout (engines reset per Config::reset_on_error).
  [[nodiscard]] Status poll() noexcept;
  /// Scans until ok or an error (see poll()).
  [[nodiscard]] Status wait() noexcept;
  /// As wait(), but also returns ok (work still running) as soon as `reached(*this, context)`
  /// holds after a scan, e.g. once completed() shows that some command has finished.
  [[nodiscard]] Status wait_until(bool (*reached)(const Runtime&, void*), void* context) noexcept;
  /// Resets every engine in use (RESET register). A completion of the reset work that still
  /// lands later carries the old submission's tag in COMPLETED and is ignored, also once a new
  /// submission runs on that engine.
  void reset() noexcept;

  const Report& report() const noexcept { return report_; }
  bool busy() const noexcept;
  /// Completed commands of an engine at the last scan (0 for Engine::cdma: a chip port, not
  /// an engine of the core's register window).
  uint32_t completed(uint32_t core, cmd::Engine engine) const noexcept {
    return cmd::is_core_engine(engine) ? slots_[core][static_cast<uint32_t>(engine)].completed : 0;
  }
  /// Completed commands of CDMA port `port` at the last scan, and the peer it was bound to.
  uint32_t cdma_completed(uint32_t port) const noexcept { return cdma_[port].completed; }
  uint32_t cdma_peer(uint32_t port) const noexcept { return cdma_peer_[port]; }
  const Config& config() const noexcept { return config_; }

 private:
  struct Slot {
    bool active = false;
    bool finished = false;
    uint32_t tag = 0;        // QUEUE_TAG of this submission: COMPLETED must carry it
    uint32_t expected = 0;   // commands in the stream
    uint32_t completed = 0;  // at the last scan
  };
  // Every engine slot the runtime drives, by one index: the cores' engines first (core *
  // kEngines + engine), then the CDMA ports.
  static constexpr uint32_t kCoreSlots = chip::sg2260::kCores * chip::sg2260::regs::kEngines;
  static constexpr uint32_t kSlots = kCoreSlots + chip::sg2260::kCdmaPorts;
  Slot& slot(uint32_t i) noexcept {
    constexpr uint32_t kE = chip::sg2260::regs::kEngines;
    return i < kCoreSlots ? slots_[i / kE][i % kE] : cdma_[i - kCoreSlots];
  }
  static uint64_t slot_reg(uint32_t i, uint64_t offset) noexcept;
  Status fail(Status s, uint32_t slot_index, uint32_t id, Status device_code, uint32_t state,
              const char* message) noexcept;
  // A submission refused by validation: the report names the slot's engine and r's facts.
  Status refuse(uint32_t slot_index, const cmd::ValidationReport& r) noexcept;
  void hook(uint32_t slot_index, HookEvent e, uint32_t completed) noexcept;
  uint64_t now() const noexcept;
  Status check_cores(Span<const CoreSubmission> cores, cmd::CoreCommandCounts* counts) noexcept;
  Status check_cdma(Span<const CdmaSubmission> cdma, uint32_t* counts) noexcept;
  void program(uint32_t slot_index, const EngineStream& stream, uint32_t commands) noexcept;

  Config config_;
  Slot slots_[chip::sg2260::kCores][chip::sg2260::regs::kEngines]{};
  Slot cdma_[chip::sg2260::kCdmaPorts]{};
  uint32_t cdma_peer_[chip::sg2260::kCdmaPorts]{};
  Report report_{};
  uint64_t start_ticks_ = 0;
  uint32_t quiet_scans_ = 0;
  uint32_t last_tag_ = 0;  // tags cycle through 1..4095 (regs::kQueueTagMask), never 0
};

/// "idle", "running", "blocked on dep", "blocked on msg", "fault" (regs::EngineState).
const char* engine_state_name(uint32_t state) noexcept;

}  // namespace tilefw::rt
