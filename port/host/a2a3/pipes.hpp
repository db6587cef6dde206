// The a2a3 pipes in the simulator: per-pipe instruction counters, the sync unit (event wait,
// barrier) and the hazard checker that reports a read of data whose producing pipe was not
// waited for. Host-only (uses the standard library).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "a2a3/timing.hpp"
#include "machine.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::port::host {

/// One unsynchronised read: `reader` (its instruction `reader_seq`) read the 32 B granule at
/// `offset` of `space`, last written by instruction `writer_seq` of `writer`, without having
/// waited for that instruction (directly or through a chain of events).
struct Hazard {
  chip::a2a3::Pipe reader = chip::a2a3::Pipe::V;
  uint32_t reader_seq = 0;
  chip::a2a3::Pipe writer = chip::a2a3::Pipe::V;
  uint32_t writer_seq = 0;
  chip::MemSpace space = chip::MemSpace::none;
  uint64_t offset = 0;
};

/// Model: the pipes run concurrently on hardware, so the simulator (which executes every
/// instruction at once, in program order) checks the order hardware would guarantee. Each pipe
/// keeps a vector clock: clock[p][q] = the last instruction of pipe q that p has waited for
/// (directly, or through an event of a pipe that had); clock[p][p] is p's own count. A WAIT
/// (producer q, seq s, waiter p) merges into p's clock q's clock as it was at instruction s.
/// Memory keeps, per 32 B granule of each a2a3 space, the last writing (pipe, instruction). A
/// read by pipe p of a granule last written by (q, s) with q != p and clock[p][q] < s is a
/// hazard: on hardware p could read the bytes before q wrote them.
class PipeTracker {
 public:
  /// Hooks the sync unit's WAIT, BARRIER and CYCLE_LATCH registers at `sync_base` on `machine`.
  explicit PipeTracker(Machine& machine, uint64_t sync_base = chip::a2a3::kSyncRegisters.base);
  PipeTracker(const PipeTracker&) = delete;
  PipeTracker& operator=(const PipeTracker&) = delete;

  /// An engine of pipe `p` takes an instruction (every doorbell, faulting ones included):
  /// counts it, publishes PIPE_COUNT and returns its number (1-based).
  uint32_t begin(chip::a2a3::Pipe p) noexcept;
  /// The current instruction of `p` reads / writes [offset, offset + bytes) of `space`
  /// (offsets inside the space). Reads are checked against the writers recorded so far.
  void read(chip::a2a3::Pipe p, chip::MemSpace space, uint64_t offset, uint64_t bytes);
  void write(chip::a2a3::Pipe p, chip::MemSpace space, uint64_t offset, uint64_t bytes);

  uint32_t count(chip::a2a3::Pipe p) const noexcept { return count_[index(p)]; }
  /// Unsynchronised reads found: one per pair of reading and writing instructions.
  uint64_t hazard_count() const noexcept { return hazard_count_; }
  /// The first kMaxLoggedHazards hazards, in order.
  const std::vector<Hazard>& hazards() const noexcept { return hazards_; }
  void clear_hazards() noexcept;
  /// Waits and barriers also order the pipes on `timer` (optional).
  void set_timer(timing::PipeTimer* timer) noexcept { timer_ = timer; }
  static constexpr size_t kMaxLoggedHazards = 64;

 private:
  using Clock = std::array<uint32_t, chip::a2a3::kPipeCount>;
  // Pipe q's clock entries for the other pipes change only at waits: a segment holds the
  // clock from instruction `first` on (until the next segment), so the history costs one
  // entry per wait, not per instruction.
  struct Segment {
    uint32_t first = 0;
    Clock clock{};
  };
  // Per space, the last writer of each 32 B granule as (pipe + 1) << 32 | instruction (0 = not
  // written by a pipe: host data). Tiles are written whole, so granules are grouped in 1 KB
  // pages: a page entry other than kMixedPage is the tag of every granule of the page (the
  // granule entries are then stale), which makes a 64 KB write 64 stores, not 2048.
  struct Shadow {
    uint64_t size = 0;  // granules of the space
    std::vector<uint64_t> granules;
    std::vector<uint64_t> pages;
  };
  static constexpr uint64_t kPageGranules = 32;
  static constexpr uint64_t kMixedPage = ~uint64_t{0};
  static constexpr uint32_t index(chip::a2a3::Pipe p) noexcept { return static_cast<uint32_t>(p); }
  Clock clock_at(uint32_t q, uint32_t seq) const noexcept;
  // Whether pipe i has waited for every instruction of every other pipe: O(1) while known
  // (synced_), else a scan of the clocks whose result is kept until another pipe begins one.
  bool waited_for_all(uint32_t i) noexcept;
  void on_wait() noexcept;
  void on_barrier() noexcept;
  void on_cycle_latch() noexcept;
  Shadow* shadow(chip::MemSpace space, bool create);
  // Granules [from, to) of one page get `tag`.
  static void write_granules(Shadow& sh, uint64_t from, uint64_t to, uint64_t tag) noexcept;
  void report(chip::a2a3::Pipe p, uint32_t i, uint64_t tag, chip::MemSpace space, uint64_t granule);

  Machine& machine_;
  uint64_t base_;
  std::array<uint32_t, chip::a2a3::kPipeCount> count_{};
  std::array<Clock, chip::a2a3::kPipeCount> clock_{};
  // Bit i: waited_for_all(i) is known true. Only a new instruction of another pipe (begin) can
  // make it false; waits and barriers only raise clocks.
  uint32_t synced_ = 0;
  std::array<std::vector<Segment>, chip::a2a3::kPipeCount> history_{};
  std::array<Shadow, 16> shadow_{};  // indexed by MemSpace code
  std::vector<Hazard> hazards_;
  Hazard last_{};
  uint64_t hazard_count_ = 0;
  timing::PipeTimer* timer_ = nullptr;
};

}  // namespace tilefw::port::host
