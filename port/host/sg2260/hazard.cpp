// The SG2260 hazard checker (see sg2260/hazard.hpp): vector clocks over the 24 engines and a
// FastTrack shadow of 4-byte granules in 4 KiB pages.
#include "sg2260/hazard.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;

namespace {
constexpr uint32_t kFlag = 1u << 31;          // Cell::w: split; Cell::r: shared read clock
constexpr uint32_t kEngineBits = 5;           // epoch = clock << 5 | engine
constexpr uint32_t kMaxClock = 1u << 26;      // epochs stay below kFlag
constexpr uint64_t kPageShift = 12;
constexpr uint64_t kPageBytes = uint64_t{1} << kPageShift;
constexpr uint64_t kCellsPerPage = kPageBytes / 4;
const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};

uint32_t epoch_of(uint32_t engine, uint32_t clock) { return (clock << kEngineBits) | engine; }
uint32_t epoch_engine(uint32_t e) { return e & ((1u << kEngineBits) - 1); }
uint32_t epoch_clock(uint32_t e) { return e >> kEngineBits; }
}  // namespace

struct HazardChecker::Page {
  bool uniform = true;  // every cell equals `whole` (cells not allocated)
  Cell whole;
  std::vector<Cell> cells;
};

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
  for (const AccessLog::Range& r : log.reads()) access(r.begin, r.end, false);
  for (const AccessLog::Range& r : log.writes()) access(r.begin, r.end, true);
  report_pending();
  log.clear();
}

bool HazardChecker::ordered(uint32_t epoch) const noexcept {
  return epoch_clock(epoch) <= (*cur_vc_)[epoch_engine(epoch)];
}

// ---- shadow --------------------------------------------------------------------------------

void HazardChecker::access(uint64_t begin, uint64_t end, bool write) {
  while (begin < end) {
    const uint64_t page_addr = begin & ~(kPageBytes - 1);
    const uint64_t stop = std::min(end, page_addr + kPageBytes);
    std::unique_ptr<Page>& p = pages_[page_addr >> kPageShift];
    if (!p) p = std::make_unique<Page>();
    access_page(*p, page_addr, begin, stop, write);
    begin = stop;
  }
}

void HazardChecker::access_page(Page& page, uint64_t page_addr, uint64_t begin, uint64_t end, bool write) {
  const bool whole = begin == page_addr && end == page_addr + kPageBytes;
  if (whole && page.uniform) {
    access_cell(page.whole, begin, end - begin, write);
    return;
  }
  if (page.uniform) {  // materialise: every cell takes the summary (and a share of its reads)
    page.cells.assign(kCellsPerPage, page.whole);
    if ((page.whole.r & kFlag) != 0) page.whole.r = share(page.whole.r, kCellsPerPage - 1);
    page.uniform = false;
  }
  // Runs of equal cells (a buffer written by one command) repeat one transition.
  Cell memo_in, memo_out;
  bool memo = false;
  for (uint64_t a = begin; a < end;) {
    const uint64_t g = a & ~uint64_t{3};
    const uint64_t stop = std::min(end, g + 4);
    Cell& c = page.cells[(g - page_addr) >> 2];
    if (stop - a == 4 && (c.w & kFlag) == 0) {
      if (memo && c == memo_in) {
        // the run goes on: every following whole granule equal to memo_in takes memo_out (a
        // cell equal to memo_in is not split: the memo is only set from whole cells)
        Cell* run = &c;
        const uint64_t whole_granules = (end - g) >> 2;
        uint64_t n = 0;
        do {
          run[n] = memo_out;
          ++n;
        } while (n < whole_granules && run[n] == memo_in);
        a = g + 4 * n;
        continue;
      } else {
        const Cell before = c;
        const uint64_t conflicts = conflicts_;
        access_cell(c, a, 4, write);
        // Only conflict-free transitions repeat (each conflicting cell extends its report).
        memo = ((before.r | c.r) & kFlag) == 0 && conflicts_ == conflicts;
        memo_in = before;
        memo_out = c;
      }
    } else {
      if ((c.w & kFlag) == 0) split(c);
      std::array<Cell, 4>& b = bytes_[c.w & ~kFlag];
      for (uint64_t x = a; x < stop; ++x) access_byte(b[x - g], x, write);
      if (stop - a == 4 && write) {  // the whole granule written: one cell again
        bytes_free_.push_back(c.w & ~kFlag);
        c = b[0];
      }
      memo = false;
    }
    a = stop;
  }
  if (whole && write) {  // every cell is now (this epoch, no reads): one summary again
    page.whole = page.cells[0];
    page.cells.clear();
    page.cells.shrink_to_fit();
    page.uniform = true;
  }
}

void HazardChecker::access_byte(Cell& c, uint64_t addr, bool write) { access_cell(c, addr, 1, write); }

void HazardChecker::access_cell(Cell& c, uint64_t addr, uint64_t bytes, bool write) {
  if (c.w != 0 && !ordered(c.w)) conflict(c.w, true, addr, bytes, write);
  if (write) {
    if ((c.r & kFlag) != 0) {
      const Clock& rc = read_vcs_[c.r & ~kFlag];
      for (uint32_t f = 0; f < kEngines; ++f) {
        if (rc[f] != 0 && rc[f] > (*cur_vc_)[f]) conflict(epoch_of(f, rc[f]), false, addr, bytes, true);
      }
      release(c.r);
    } else if (c.r != 0 && !ordered(c.r)) {
      conflict(c.r, false, addr, bytes, true);
    }
    c.w = cur_epoch_;
    c.r = 0;
    return;
  }
  if (c.r == 0 || c.r == cur_epoch_ || ((c.r & kFlag) == 0 && ordered(c.r))) {
    c.r = cur_epoch_;  // every earlier read happens before this one: one epoch is enough
  } else if ((c.r & kFlag) == 0) {
    c.r = shared_read(c.r, cur_epoch_);
  } else {
    if (read_refs_[c.r & ~kFlag] > 1) {  // shared by several cells: copy before changing
      const uint32_t old = c.r;
      c.r = shared_read(0, 0);
      read_vcs_[c.r & ~kFlag] = read_vcs_[old & ~kFlag];
      release(old);
    }
    read_vcs_[c.r & ~kFlag][cur_engine_] = epoch_clock(cur_epoch_);
  }
}

// A read clock holding the reads `first` and `second` (epochs; 0 = none), one reference.
uint32_t HazardChecker::shared_read(uint32_t first, uint32_t second) {
  uint32_t i;
  if (!read_free_.empty()) {
    i = read_free_.back();
    read_free_.pop_back();
    read_vcs_[i] = Clock{};
    read_refs_[i] = 1;
  } else {
    i = static_cast<uint32_t>(read_vcs_.size());
    read_vcs_.push_back(Clock{});
    read_refs_.push_back(1);
  }
  for (uint32_t e : {first, second}) {
    if (e != 0) read_vcs_[i][epoch_engine(e)] = epoch_clock(e);
  }
  return i | kFlag;
}

void HazardChecker::release(uint32_t r) {
  if ((r & kFlag) == 0) return;
  const uint32_t i = r & ~kFlag;
  if (--read_refs_[i] == 0) read_free_.push_back(i);
}

uint32_t HazardChecker::share(uint32_t r, uint32_t times) {
  if ((r & kFlag) != 0) read_refs_[r & ~kFlag] += times;
  return r;
}

// Splits a granule into 4 byte cells that each start as the granule was.
uint32_t HazardChecker::split(Cell& c) {
  uint32_t i;
  if (!bytes_free_.empty()) {
    i = bytes_free_.back();
    bytes_free_.pop_back();
  } else {
    i = static_cast<uint32_t>(bytes_.size());
    bytes_.emplace_back();
  }
  bytes_[i].fill(c);
  share(c.r, 3);
  c.w = i | kFlag;
  c.r = 0;
  return i;
}

// ---- reports -------------------------------------------------------------------------------

void HazardChecker::conflict(uint32_t epoch, bool prior_write, uint64_t addr, uint64_t bytes, bool write) {
  ++conflicts_;
  for (Pending& p : pending_) {
    if (p.epoch != epoch || p.prior_write != prior_write || p.write != write) continue;
    if (p.open && p.end == addr) {
      p.end += bytes;
    } else if (!(addr >= p.begin && addr < p.end)) {
      p.open = false;  // the message names the first contiguous range
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
