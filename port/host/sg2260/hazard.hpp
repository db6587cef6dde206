// SG2260 hazard checker of the host simulator: finds accesses to the same bytes (LMEM, SMEM,
// L2, DDR) by two engines, on the same core or on different cores, with no happens-before
// ordering between them and at least one of them a write.
//
// Happens-before, over the 24 engines (8 cores x TIU, GDMA, SDMA) with vector clocks:
//   - program order inside one engine;
//   - cmd_id_dep: a command that waits for k completed commands of the other engine of its
//     core is ordered after those k commands;
//   - send/wait barriers: a wait that passes is ordered after every send counted for it;
//   - a stream started on an engine is ordered after every command already completed (the
//     host saw them complete before it rang the doorbell).
// Shadow memory (FastTrack) in intervals: per 4 KiB page a sorted list of runs of bytes that
// share one state (the last write's epoch and the reads since: one epoch, or a vector clock
// when unordered engines read them), split where an access begins or ends and joined again
// where neighbours become equal, so a command costs one transition per run it touches, whatever
// the bytes (a DMA of megabytes: one per page), and results are exact to the byte. A page whose
// runs grow past kMaxRuns (a fine strided pattern) keeps one state per byte until a command
// writes it whole: a one-byte index into the page's palette of states while it has at most 256
// and no shared read clock (a full palette first drops the states no byte holds any more, when that frees half of it), else
// the states themselves. A strided entry of the access log (a strided row) is walked page by
// page: the ranges inside one page in one loop, a memoised transition repeated over them inline
// (eight palette bytes at a time for a stride dividing eight), the same steps in the same order
// as one range after another. Host-only, single-threaded; used by sg2260::Simulator in
// functional mode.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sg2260/access_log.hpp"

namespace tilefw::port::host::sg2260 {

class HazardChecker {
 public:
  static constexpr uint32_t kEngines = 32;  // 8 cores x (TIU, GDMA, SDMA, HAU)
  static constexpr size_t kMaxMessages = 20;

  HazardChecker();
  ~HazardChecker();
  HazardChecker(const HazardChecker&) = delete;
  HazardChecker& operator=(const HazardChecker&) = delete;

  /// A stream starts on `engine` (core * 4 + kind): its command ids restart at 1.
  void on_start(uint32_t engine);
  /// Command `id` of the current stream of `engine` issues. `dep`: it waits for `dep`
  /// completed commands of `dep_engine` (0: none). `wait_msg` >= 0: a wait that passed on that
  /// msg id; `barrier_reset`: it was the last waiter (the barrier's sends are forgotten).
  void on_issue(uint32_t engine, uint32_t id, uint8_t cls, uint32_t dep_engine, uint32_t dep, int wait_msg,
                bool barrier_reset);
  /// The accesses of the command just issued on `engine` (the log is cleared).
  void on_executed(uint32_t engine, AccessLog& log);
  /// The command in flight on `engine` completed; `send_msg` >= 0: it was a send on that msg id.
  void on_complete(uint32_t engine, int send_msg);

  uint64_t count() const noexcept { return count_; }
  /// The first kMaxMessages hazards, e.g. "hazard: core 2 tiu command 17 (sAR) reads LMEM
  /// lane 5 offset 0x1000..0x1040 written by core 2 gdma command 9 (tensor) with no
  /// dependency or barrier ordering them".
  const std::vector<std::string>& messages() const noexcept { return messages_; }

  struct Cell {
    uint32_t w = 0;  // last write epoch (0: never written)
    uint32_t r = 0;  // reads: one epoch, or kShared | index of a read vector clock
    bool operator==(const Cell& o) const noexcept { return w == o.w && r == o.r; }
  };
  struct Run {
    uint32_t begin;  // offset in the page; the run ends where the next begins (or the page)
    Cell cell;
  };
  struct Page;
  struct Pending;

 private:
  using Clock = std::array<uint32_t, kEngines>;
  struct EngineState {
    Clock vc{};
    uint32_t clock = 0;            // epochs issued so far
    uint32_t base = 0;             // clock before the current stream's first command
    uint32_t last_completed = 0;   // clock of the last completed command
    std::vector<Clock> snapshots;  // vc of each issued command, by clock - 1
    std::vector<uint32_t> ids;     // its command id in its stream
    std::vector<uint8_t> classes;  // its cmd::CmdClass
  };

  void access_range(const AccessLog::Range& r, bool write);
  void access_strided(const AccessLog::Strided& s, bool write);
  void access_page_strided(Page& page, uint64_t page_addr, uint64_t begin, uint64_t bytes, uint64_t stride,
                           uint64_t count, bool write);
  void access(uint64_t begin, uint64_t end, bool write);
  Page& page_at(uint64_t index);
  void access_runs(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write);
  void access_dense(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write);
  void access_palette(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write);
  uint32_t repeat_palette_memo(uint8_t* index, uint32_t a, uint32_t end) const noexcept;
  bool compact_palette(Page& page, uint8_t& key);
  void make_cells(Page& page);
  void access_cell(Cell& c, uint64_t addr, uint64_t bytes, bool write);
  bool same(const Cell& a, const Cell& b) const noexcept;
  void make_dense(Page& page);
  void conflict(uint32_t epoch, bool prior_write, uint64_t addr, uint64_t bytes, bool write);
  bool ordered(uint32_t epoch) const noexcept;
  uint32_t shared_read(uint32_t first, uint32_t second);
  void release(uint32_t r);
  void forget_memo();
  uint32_t share(uint32_t r, uint32_t times);
  void report_pending();
  std::string describe(uint32_t engine, uint32_t epoch_clock) const;

  std::array<EngineState, kEngines> engines_{};
  std::vector<Clock> msg_vc_;
  // The pages by index in chunks of 16 MiB of addresses (pages are never removed): a lookup is
  // one step inside the chunk of the last lookup (a DMA over the 64 LMEM lanes changes page at
  // every lane, all in one core's chunk), else through a small direct-mapped cache of chunks.
  static constexpr uint32_t kChunkBits = 12;
  struct PageChunk {
    std::array<std::unique_ptr<Page>, size_t{1} << kChunkBits> pages;
  };
  struct ChunkSlot {
    uint64_t index = ~uint64_t{0};
    PageChunk* chunk = nullptr;
  };
  static constexpr uint32_t kChunkSlotBits = 6;
  std::unordered_map<uint64_t, std::unique_ptr<PageChunk>> chunks_;
  std::array<ChunkSlot, size_t{1} << kChunkSlotBits> chunk_slots_{};
  uint64_t last_chunk_index_ = ~uint64_t{0};
  PageChunk* last_chunk_ = nullptr;
  std::vector<Clock> read_vcs_;          // shared read clocks (0 = engine did not read)
  std::vector<uint32_t> read_refs_;      // references to each (0 = free)
  std::vector<uint32_t> read_free_;
  uint64_t last_page_index_ = ~uint64_t{0};  // the page the last access touched
  Page* last_page_ = nullptr;
  std::vector<Pending> pending_;  // this command's hazards, one per (other command, kind)
  // the command being checked
  uint32_t cur_engine_ = 0;
  uint32_t cur_epoch_ = 0;
  const Clock* cur_vc_ = nullptr;
  uint64_t conflicts_ = 0;  // conflicting cell accesses (for the run memo)
  // access_dense's memo: a conflict-free transition of this command's reads (or writes)
  Cell memo_in_, memo_out_;
  bool memo_ = false;
  // access_palette's memo: palette index in -> out on one page
  const Page* palette_page_ = nullptr;
  uint8_t palette_in_ = 0, palette_out_ = 0;
  bool palette_memo_ = false;
  uint64_t count_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace tilefw::port::host::sg2260
