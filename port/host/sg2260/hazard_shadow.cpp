// The SG2260 hazard checker's shadow memory (see sg2260/hazard.hpp): FastTrack states of byte
// intervals (runs) in 4 KiB pages, a page of too many runs kept one state per byte (palette
// indexes or cells), the walks of a command's ranges over them, the transition of one state and
// the shared read clocks.
#include <algorithm>
#include <cstring>
#include <memory>

#include "sg2260/hazard_shadow.hpp"

namespace tilefw::port::host::sg2260 {

using hazard_shadow::epoch_clock;
using hazard_shadow::epoch_engine;
using hazard_shadow::epoch_of;
using hazard_shadow::kFlag;

namespace {
constexpr uint64_t kPageShift = 12;
constexpr uint64_t kPageBytes = uint64_t{1} << kPageShift;
// Runs a page may hold before it keeps one state per byte: a split inserts into the page's
// sorted list (a move of up to this many runs), so a fine strided pattern cannot make every
// access cost a page's worth of runs.
constexpr size_t kMaxRuns = 256;

// The palette memo (index `in` -> `out`) repeated over the ranges of `bytes` from `a`, `stride`
// apart, at most `count`, while every byte of a range is `in`: the number of ranges taken. A
// stride dividing eight takes eight bytes at a time (their other bytes stay as they are).
uint64_t repeat_palette_strided(uint8_t* index, uint64_t a, uint64_t bytes, uint64_t stride, uint64_t count,
                                uint8_t in, uint8_t out) {
  uint64_t j = 0;
  if (stride <= 8 && 8 % stride == 0) {
    uint8_t m[8];
    for (uint64_t i = 0; i < 8; ++i) m[i] = i % stride < bytes ? 0xFF : 0;
    uint64_t mask;
    std::memcpy(&mask, m, 8);
    const uint64_t in8 = 0x0101010101010101ull * in, out8 = 0x0101010101010101ull * out;
    const uint64_t per = 8 / stride;
    for (uint64_t v; j + per <= count && a + 8 <= kPageBytes; j += per, a += 8) {
      std::memcpy(&v, index + a, 8);
      if (((v ^ in8) & mask) != 0) break;
      v = (v & ~mask) | (out8 & mask);
      std::memcpy(index + a, &v, 8);
    }
  }
  for (; j < count; ++j, a += stride) {
    uint64_t x = 0;
    while (x < bytes && index[a + x] == in) ++x;
    if (x < bytes) break;
    for (x = 0; x < bytes; ++x) index[a + x] = out;
  }
  return j;
}
}  // namespace

bool HazardChecker::ordered(uint32_t epoch) const noexcept {
  return epoch_clock(epoch) <= (*cur_vc_)[epoch_engine(epoch)];
}

// ---- shadow --------------------------------------------------------------------------------

HazardChecker::Page& HazardChecker::page_at(uint64_t index) {
  if (index == last_page_index_) return *last_page_;
  const uint64_t chunk = index >> kChunkBits;
  if (chunk != last_chunk_index_) {
    ChunkSlot& slot = chunk_slots_[(chunk * 0x9E3779B97F4A7C15ull) >> (64 - kChunkSlotBits)];
    if (slot.index != chunk) {
      std::unique_ptr<PageChunk>& c = chunks_[chunk];
      if (!c) c = std::make_unique<PageChunk>();
      slot = ChunkSlot{chunk, c.get()};
    }
    last_chunk_index_ = chunk;
    last_chunk_ = slot.chunk;
  }
  std::unique_ptr<Page>& p = last_chunk_->pages[index & ((uint64_t{1} << kChunkBits) - 1)];
  if (!p) {
    p = std::make_unique<Page>();
    p->runs.push_back(Run{0, Cell{}});
  }
  last_page_index_ = index;
  last_page_ = p.get();
  return *p;
}

// A range inside the page of the last access, kept one state per byte (a strided row: one
// short range per element) goes straight to the byte loop; any other through access.
void HazardChecker::access_range(const AccessLog::Range& r, bool write) {
  const uint64_t index = r.begin >> kPageShift;
  if (index == last_page_index_ && ((r.end - 1) >> kPageShift) == index && last_page_->runs.empty()) {
    const uint64_t page_addr = index << kPageShift;
    const auto b = static_cast<uint32_t>(r.begin - page_addr), e = static_cast<uint32_t>(r.end - page_addr);
    if (!last_page_->index.empty()) access_palette(*last_page_, page_addr, b, e, write);
    else access_dense(*last_page_, page_addr, b, e, write);
    return;
  }
  access(r.begin, r.end, write);
}

// The ranges of a strided entry one after another, as access_range would take them: those
// inside one page as one walk of that page.
void HazardChecker::access_strided(const AccessLog::Strided& s, bool write) {
  const uint64_t bytes = s.end - s.begin;
  for (uint64_t k = 0; k < s.count;) {
    const uint64_t b = s.begin + k * s.stride;
    const uint64_t page_addr = b & ~(kPageBytes - 1);
    if (bytes == 0 || bytes >= kPageBytes || s.stride == 0 || b + bytes > page_addr + kPageBytes) {
      access_range(AccessLog::Range{b, b + bytes}, write);  // a range across pages, or a whole page
      ++k;
      continue;
    }
    const uint64_t n = std::min(s.count - k, (page_addr + kPageBytes - bytes - b) / s.stride + 1);
    access_page_strided(page_at(page_addr >> kPageShift), page_addr, b - page_addr, bytes, s.stride, n, write);
    k += n;
  }
}

// `count` ranges of `bytes` (less than a page) from `begin`, `stride` apart, all inside the page:
// each through the access of the page's form (which may change on the way), the memoised
// transition of a palette or cell page repeated inline while every byte of a range is its key
// (a strided element's bytes cost a compare and a store, not a call per range).
void HazardChecker::access_page_strided(Page& page, uint64_t page_addr, uint64_t begin, uint64_t bytes,
                                        uint64_t stride, uint64_t count, bool write) {
  uint64_t a = begin;
  for (uint64_t j = 0; j < count; ++j, a += stride) {
    if (!page.index.empty() && palette_memo_ && palette_page_ == &page) {
      const uint64_t done = repeat_palette_strided(page.index.data(), a, bytes, stride, count - j, palette_in_,
                                                   palette_out_);
      j += done;
      a += done * stride;
      if (j == count) return;
    } else if (!page.bytes.empty() && memo_ && ((memo_in_.r | memo_out_.r) & kFlag) == 0) {
      Cell* const cells = page.bytes.data();  // no read clock: no references to keep
      const Cell in = memo_in_, out = memo_out_;
      for (; j < count; ++j, a += stride) {
        uint64_t x = 0;
        while (x < bytes && cells[a + x] == in) ++x;
        if (x < bytes) break;
        std::fill(cells + a, cells + a + bytes, out);
      }
      if (j == count) return;
    }
    const auto b = static_cast<uint32_t>(a), e = static_cast<uint32_t>(a + bytes);
    if (!page.runs.empty()) access_runs(page, page_addr, b, e, write);
    else if (!page.index.empty()) access_palette(page, page_addr, b, e, write);
    else access_dense(page, page_addr, b, e, write);
  }
}

void HazardChecker::access(uint64_t begin, uint64_t end, bool write) {
  while (begin < end) {
    const uint64_t page_addr = begin & ~(kPageBytes - 1);
    const uint64_t stop = std::min(end, page_addr + kPageBytes);
    Page& p = page_at(page_addr >> kPageShift);
    const auto b = static_cast<uint32_t>(begin - page_addr), e = static_cast<uint32_t>(stop - page_addr);
    if (!p.runs.empty()) access_runs(p, page_addr, b, e, write);
    else if (!p.index.empty()) access_palette(p, page_addr, b, e, write);
    else access_dense(p, page_addr, b, e, write);
    begin = stop;
  }
}

// Equal states: the same epochs, or read clocks of equal contents (so runs that each copied
// a shared clock before changing it join again).
bool HazardChecker::same(const Cell& a, const Cell& b) const noexcept {
  if (a == b) return true;
  if (a.w != b.w || (a.r & kFlag) == 0 || (b.r & kFlag) == 0) return false;
  return read_vcs_[a.r & ~kFlag] == read_vcs_[b.r & ~kFlag];
}

// [begin, end) of a page in runs: split the runs at both ends, one transition per run inside
// (in address order, so the reports grow as byte by byte), then join equal neighbours.
void HazardChecker::access_runs(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write) {
  std::vector<Run>& runs = page.runs;
  size_t i = static_cast<size_t>(
      std::upper_bound(runs.begin(), runs.end(), begin, [](uint32_t v, const Run& r) { return v < r.begin; }) -
      runs.begin() - 1);
  if (runs[i].begin < begin) {
    runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(i) + 1, Run{begin, runs[i].cell});
    share(runs[i].cell.r, 1);
    ++i;
  }
  const size_t first = i;
  for (; i < runs.size() && runs[i].begin < end; ++i) {
    uint32_t run_end = i + 1 < runs.size() ? runs[i + 1].begin : static_cast<uint32_t>(kPageBytes);
    if (run_end > end) {
      runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(i) + 1, Run{end, runs[i].cell});
      share(runs[i].cell.r, 1);
      run_end = end;
    }
    access_cell(runs[i].cell, page_addr + runs[i].begin, run_end - runs[i].begin, write);
  }
  // join: the changed runs [first, i) with each other and with the run before and after
  const size_t lo = first > 0 ? first - 1 : 0;
  const size_t hi = std::min(i + 1, runs.size());
  size_t out = lo;
  for (size_t k = lo + 1; k < hi; ++k) {
    if (same(runs[out].cell, runs[k].cell)) {
      release(runs[k].cell.r);
    } else {
      runs[++out] = runs[k];
    }
  }
  runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(out) + 1, runs.begin() + static_cast<std::ptrdiff_t>(hi));
  if (runs.size() > kMaxRuns) make_dense(page);
}

// A page of too many runs: one palette index per byte when no run holds a shared read clock
// (at most kMaxRuns + 1 runs: at most 257 states, 256 fit), else one cell per byte.
void HazardChecker::make_dense(Page& page) {
  bool flat = true;
  for (const Run& r : page.runs) flat = flat && (r.cell.r & kFlag) == 0;
  if (flat) {
    page.index.resize(kPageBytes);
    for (size_t k = 0; k < page.runs.size() && flat; ++k) {
      const auto it = std::find(page.palette.begin(), page.palette.end(), page.runs[k].cell);
      if (it == page.palette.end() && page.palette.size() == 256) flat = false;
      const auto i = static_cast<uint8_t>(it != page.palette.end() ? it - page.palette.begin() : page.palette.size());
      if (it == page.palette.end()) page.palette.push_back(page.runs[k].cell);
      const uint32_t b = page.runs[k].begin;
      const uint32_t e = k + 1 < page.runs.size() ? page.runs[k + 1].begin : static_cast<uint32_t>(kPageBytes);
      std::fill(page.index.begin() + b, page.index.begin() + e, i);
    }
    if (flat) {
      page.runs.clear();
      page.runs.shrink_to_fit();
      palette_memo_ = false;
      return;
    }
    page.index.clear();
    page.palette.clear();
  }
  make_cells(page);
}

// The cells of a run page, one per byte (each holding a reference to its read clock).
void HazardChecker::make_cells(Page& page) {
  page.bytes.resize(kPageBytes);
  for (size_t k = 0; k < page.runs.size(); ++k) {
    const uint32_t b = page.runs[k].begin;
    const uint32_t e = k + 1 < page.runs.size() ? page.runs[k + 1].begin : static_cast<uint32_t>(kPageBytes);
    std::fill(page.bytes.begin() + b, page.bytes.begin() + e, page.runs[k].cell);
    share(page.runs[k].cell.r, e - b - 1);
  }
  page.runs.clear();
  page.runs.shrink_to_fit();
}

// The memoised palette transition over the bytes from `a` whose index is its key, eight at a
// time while eight are: the same result as one byte after another. Returns the first byte
// not taken (end, or one whose index differs).
uint32_t HazardChecker::repeat_palette_memo(uint8_t* index, uint32_t a, uint32_t end) const noexcept {
  const uint64_t in = 0x0101010101010101ull * palette_in_, out = 0x0101010101010101ull * palette_out_;
  for (uint64_t v; a + 8 <= end; a += 8) {
    std::memcpy(&v, index + a, 8);
    if (v != in) break;
    std::memcpy(index + a, &out, 8);
  }
  for (; a < end && index[a] == palette_in_; ++a) index[a] = palette_out_;
  return a;
}

// A full palette that needs one more state: the states no byte holds any longer are dropped and
// the indexes renumbered (`key`, a byte's index, with them), when that leaves at most half of
// the palette (a strided pattern of one engine leaves a state behind per command; a page that
// keeps many states goes to cells, so a scan of the page pays for at least 128 new states).
bool HazardChecker::compact_palette(Page& page, uint8_t& key) {
  std::array<uint8_t, 256> used{};
  for (const uint8_t i : page.index) used[i] = 1;
  size_t live = 0;
  for (const uint8_t u : used) live += u;
  if (live > 128) return false;
  std::array<uint8_t, 256> to{};
  size_t n = 0;
  for (size_t i = 0; i < page.palette.size(); ++i) {
    if (used[i] == 0) continue;
    to[i] = static_cast<uint8_t>(n);
    page.palette[n++] = page.palette[i];
  }
  page.palette.resize(n);
  for (uint8_t& i : page.index) i = to[i];
  key = to[key];
  if (palette_page_ == &page) palette_memo_ = false;
  return true;
}

// [begin, end) of a page of palette indexes: the transitions of access_dense on the palette's
// states (memoised while conflict-free, keyed by index and page). A transition that creates a
// shared read clock, or a 257th state, turns the page into cells and access_dense goes on.
void HazardChecker::access_palette(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write) {
  for (uint32_t a = begin; a < end; ++a) {
    uint8_t k = page.index[a];
    if (palette_memo_ && k == palette_in_ && palette_page_ == &page) {
      if (end - a >= 16) {  // a long range (a short one, e.g. a strided element's, stays inline)
        a = repeat_palette_memo(page.index.data(), a, end) - 1;
        continue;
      }
      page.index[a] = palette_out_;
      continue;
    }
    Cell c = page.palette[k];
    const uint64_t conflicts = conflicts_;
    access_cell(c, page_addr + a, 1, write);
    auto it = std::find(page.palette.begin(), page.palette.end(), c);
    if ((c.r & kFlag) == 0 && it == page.palette.end() && page.palette.size() == 256 && compact_palette(page, k)) {
      it = page.palette.end();
    }
    if ((c.r & kFlag) != 0 || (it == page.palette.end() && page.palette.size() == 256)) {
      page.bytes.resize(kPageBytes);
      for (size_t i = 0; i < kPageBytes; ++i) page.bytes[i] = page.palette[page.index[i]];
      page.bytes[a] = c;  // its read clock's one reference
      page.index.clear();
      page.index.shrink_to_fit();
      page.palette.clear();
      palette_memo_ = false;
      access_dense(page, page_addr, a + 1, end, write);
      return;
    }
    if (it == page.palette.end()) it = page.palette.insert(page.palette.end(), c);
    const auto out = static_cast<uint8_t>(it - page.palette.begin());
    page.index[a] = out;
    palette_memo_ = conflicts_ == conflicts;
    palette_in_ = k;
    palette_out_ = out;
    palette_page_ = &page;
  }
  if (begin == 0 && end == kPageBytes && write) {  // every byte is now (this epoch, no reads)
    page.runs.push_back(Run{0, page.palette[page.index[0]]});
    page.index.clear();
    page.index.shrink_to_fit();
    page.palette.clear();
    palette_memo_ = false;
  }
}

void HazardChecker::access_dense(Page& page, uint64_t page_addr, uint32_t begin, uint32_t end, bool write) {
  // Bytes of equal state repeat one conflict-free transition (each conflicting byte extends its
  // report, and read clocks are counted per byte, so neither is repeated). Such a transition
  // depends only on the state, this command and the kind of access, so the memo holds across
  // the ranges of one kind of one command (a strided row: one short range per element).
  // A transition through read clocks is memoised too: the memo holds a reference to the clocks
  // on both sides, so neither is changed in place (a byte sharing one copies it first, and a
  // clock that already holds this command's read is left as it is) nor freed and reused while
  // it is the key; the bytes it repeats on share the result's clock, whose contents equal those
  // of the copy each would have made (the hazards depend only on the contents).
  for (uint32_t a = begin; a < end; ++a) {
    Cell& c = page.bytes[a];
    if (memo_ && c == memo_in_) {
      share(memo_out_.r, 1);
      release(c.r);
      c = memo_out_;
      continue;
    }
    const Cell before = c;
    const uint64_t conflicts = conflicts_;
    access_cell(c, page_addr + a, 1, write);
    if (((before.r | c.r | memo_in_.r | memo_out_.r) & kFlag) == 0) {  // no read clock: no reference held
      memo_ = conflicts_ == conflicts;
      memo_in_ = before;
      memo_out_ = c;
      continue;
    }
    forget_memo();
    // a clock the transition freed was this byte's alone: no other byte can repeat it
    const bool freed = (before.r & kFlag) != 0 && read_refs_[before.r & ~kFlag] == 0;
    if (conflicts_ == conflicts && !freed) {
      memo_ = true;
      share(before.r, 1);
      memo_in_ = before;
      memo_out_ = c;
      share(c.r, 1);
    }
  }
  if (begin == 0 && end == kPageBytes && write) {  // every byte is now (this epoch, no reads)
    page.runs.push_back(Run{0, page.bytes[0]});
    page.bytes.clear();
    page.bytes.shrink_to_fit();
  }
}

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
    // this command's read is in the clock already (a byte read twice): nothing changes
    if (read_vcs_[c.r & ~kFlag][cur_engine_] == epoch_clock(cur_epoch_)) return;
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

// Drops access_dense's memo and the references it holds.
void HazardChecker::forget_memo() {
  if (memo_) {
    release(memo_in_.r);
    release(memo_out_.r);
  }
  memo_ = false;
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

}  // namespace tilefw::port::host::sg2260
