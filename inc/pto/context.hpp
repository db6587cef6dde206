// The AI Core a PTO kernel runs on: PTO's instructions name no core, so the core is implicit, a
// Context current on the calling thread (pto::host::Core makes one for the simulator; firmware
// makes its own and installs it with ScopedContext). It owns the tile instructions' state, the
// static Auto-mode placement arenas, the set_flag table and the first failure.
// Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/chip/memory.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/tile/event.hpp"

namespace pto {

/// Events between pipes. Auto: an instruction given no events waits for the instructions on other
/// pipes that last wrote the bytes it reads, or last wrote or read the bytes it writes (the
/// context tracks every tile and GM view instructions touch); one given events waits for exactly
/// those. Manual: an instruction waits only for the events it is given (and
/// wait_flag); the context checks them against the same dependencies (sync_violations) and the
/// simulator's hazard checker sees the author's synchronisation as written.
enum class SyncMode : uint8_t { Auto, Manual };

/// The first failure of a kernel: which instruction, the Status, and the report naming the
/// operand or field (for an Auto-mode placement: the operand, the bytes asked and the bytes left
/// in `space`).
struct Failure {
  tilefw::Status status = tilefw::Status::ok;
  const char* instr = "";
  tilefw::desc::DescReport report{};
  tilefw::chip::MemSpace space = tilefw::chip::MemSpace::none;
};

/// Called on the first failure unless the context is in checked mode. A handler that returns
/// leaves the failure sticky: later instructions do nothing until clear_status().
using ErrorHandler = void (*)(const Failure&) noexcept;

/// One memory space's placement state. Auto tiles are placed upward from `auto_next`, above every
/// byte a manual TASSIGN placed before them (`manual_end`); [auto_lo, auto_end) is what Auto
/// placement has handed out.
struct Arena {
  uint64_t auto_next = 0;
  uint64_t auto_lo = ~uint64_t{0};
  uint64_t auto_end = 0;
  uint64_t manual_end = 0;
};

/// Auto sync's record of one byte range (a tile or a GM view): the latest instruction that
/// wrote it and, per pipe, the latest that read it since.
struct Tracked {
  tilefw::chip::MemSpace space = tilefw::chip::MemSpace::none;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  tilefw::tile::Event writer{};
  tilefw::tile::Event readers[tilefw::chip::a2a3::kPipeCount]{};
};
inline constexpr size_t kTrackedRanges = 32;

inline constexpr size_t kArenaCount = static_cast<size_t>(tilefw::chip::MemSpace::Fixpipe) + 1;
inline constexpr size_t kPipeSlots = tilefw::chip::a2a3::kPipeCount;
inline constexpr size_t kFlagIds = 8;

struct Context {
  tilefw::tile::Core tile{};
  SyncMode sync = SyncMode::Auto;
  /// true: a failure is only recorded (status() returns it); false: on_error is called too.
  bool checked = false;
  ErrorHandler on_error = nullptr;
  Failure failure{};
  /// Where GM offset 0 is in the caller's address space, and the GM window's size: a kernel's
  /// `__gm__ T*` is turned into a GM offset by subtracting gm_base.
  uintptr_t gm_base = 0;
  uint64_t gm_bytes = 0;
  Arena arena[kArenaCount]{};
  /// set_flag(src, dst, id) records src's latest event here; wait_flag consumes it.
  tilefw::tile::Event flags[kPipeSlots + 1][kPipeSlots + 1][kFlagIds]{};  // last row/column: PIPE_S
  /// Auto sync: the ranges instructions touched (a full table is flushed by a barrier).
  Tracked tracked[kTrackedRanges]{};
  size_t tracked_count = 0;
  /// Manual sync's check: known[q][p] = the latest instruction of pipe p that pipe q's next
  /// instruction is ordered after (by the waits the author wrote, directly or through p's).
  uint32_t known[kPipeSlots][kPipeSlots]{};
  /// Manual sync: instructions issued without a wait their operands needed, and the first.
  uint64_t sync_violations = 0;
  Failure first_violation{};
};

/// The context current on this thread, or nullptr.
Context* current() noexcept;

/// Makes `c` current for its lifetime (the previous one again afterwards).
class ScopedContext {
 public:
  explicit ScopedContext(Context& c) noexcept;
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  Context* previous_;
};

/// The current context's first failure (ok when none); no_such_engine when no context is current.
tilefw::Status status() noexcept;
/// The current context's first failure in full (an empty Failure when none or no context).
Failure last_failure() noexcept;
/// Forgets the current context's failure: instructions run again.
void clear_status() noexcept;
/// Releases every Auto-mode placement of the current context (tiles placed so far keep their
/// addresses; the next kernel's auto tiles reuse the bytes). Manual marks are kept.
void reset_auto_placement() noexcept;

namespace detail {
void set_current(Context* c) noexcept;
/// Records a failure (the first one only) and, unless checked, calls on_error.
void fail(Context& c, const char* instr, const tilefw::desc::DescReport& r,
          tilefw::chip::MemSpace space = tilefw::chip::MemSpace::none) noexcept;
void fail(Context& c, const char* instr, tilefw::Status s, const char* field) noexcept;
/// The current context when an instruction may run (one is current and nothing failed).
Context* usable() noexcept;
/// Auto placement of `bytes` in `space` aligned to `align`: the offset, or tile_out_of_bounds
/// when the rest of the space is too small (the failure names `instr`, `operand`, the space, the
/// bytes asked and the bytes left).
bool place_auto(Context& c, const char* instr, const char* operand, tilefw::chip::MemSpace space, uint64_t bytes,
                uint32_t align, uint64_t& offset) noexcept;
/// A manual TASSIGN of [offset, offset + bytes): illegal_overlap when it would share bytes with
/// an Auto-placed tile; else the space's manual mark moves up.
bool note_manual(Context& c, tilefw::chip::MemSpace space, uint64_t offset, uint64_t bytes) noexcept;

/// One operand's bytes as an instruction touches them.
struct Access {
  tilefw::chip::MemSpace space = tilefw::chip::MemSpace::none;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  bool write = false;
};
/// Auto sync: per pipe, the latest event `ops` depend on (seq 0: none). A full table is
/// flushed first (every pipe waits for everything, then nothing is pending).
void auto_waits(Context& c, const Access* ops, size_t n, tilefw::tile::Event (&out)[kPipeSlots]) noexcept;
/// Auto sync: records that the instruction `done` touched `ops`.
void record_access(Context& c, const Access* ops, size_t n, tilefw::tile::Event done) noexcept;
/// Manual sync: the events `ops` depend on, as auto_waits, but a full table is emptied without a
/// barrier (the author's synchronisation is not changed; older ranges go unchecked).
void manual_deps(Context& c, const Access* ops, size_t n, tilefw::tile::Event (&out)[kPipeSlots]) noexcept;
/// Manual sync: pipe `waiter` now waits for `e` (and for what e's pipe was known to wait for).
void note_wait(Context& c, tilefw::chip::a2a3::Pipe waiter, const tilefw::tile::Event& e) noexcept;
/// Manual sync: every pipe waited for everything issued.
void note_barrier(Context& c) noexcept;
/// Manual sync: counts (and records the first) dependency of `instr` on pipe `ran` that no
/// wait covered.
void check_deps(Context& c, const char* instr, tilefw::chip::a2a3::Pipe ran,
                const tilefw::tile::Event (&deps)[kPipeSlots]) noexcept;
}  // namespace detail

}  // namespace pto
