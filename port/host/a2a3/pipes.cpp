// Pipe counters, event waits and the read-after-write hazard check of the a2a3 simulator.
#include "a2a3/pipes.hpp"

#include "a2a3/chip_of.hpp"

#include <algorithm>

#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host {

namespace {
namespace a2a3 = chip::a2a3;
// The timer's pipe order is the counters' order (Pipe codes, then S).
static_assert(timing::kPipes == a2a3::sreg::kCounterPipes && timing::kPipeS == a2a3::sreg::kCounterPipeS);
constexpr uint64_t kGranule = 32;
}  // namespace

PipeTracker::PipeTracker(Machine& machine, uint64_t sync_base) : machine_(machine), base_(sync_base) {
  for (uint32_t p = 0; p < a2a3::kPipeCount; ++p) history_[p].push_back(Segment{1, Clock{}});
  machine_.on_write(base_ + a2a3::sreg::kWait, [this](uint64_t, uint64_t) { on_wait(); });
  machine_.on_write(base_ + a2a3::sreg::kBarrier, [this](uint64_t, uint64_t v) {
    if ((v & 1u) != 0) on_barrier();
  });
  machine_.on_write(base_ + a2a3::sreg::kCycleLatch, [this](uint64_t, uint64_t v) {
    if ((v & 1u) != 0) on_cycle_latch();
  });
}

// CYCLE_LATCH: the timer's clock as the core's performance counters (0 without a timer).
void PipeTracker::on_cycle_latch() noexcept {
  machine_.write64(base_ + a2a3::sreg::kCycles, timer_ != nullptr ? timer_->total() : 0);
  for (uint32_t i = 0; i < a2a3::sreg::kCounterPipes; ++i) {
    machine_.write64(base_ + a2a3::sreg::pipe_busy(i), timer_ != nullptr ? timer_->busy(i) : 0);
  }
}

uint32_t PipeTracker::begin(a2a3::Pipe p) noexcept {
  const uint32_t i = index(p);
  const uint32_t seq = ++count_[i];
  clock_[i][i] = seq;
  synced_ &= 1u << i;  // every other pipe has one more instruction of p to wait for
  machine_.write32(base_ + a2a3::sreg::pipe_count(p), seq);
  return seq;
}

PipeTracker::Clock PipeTracker::clock_at(uint32_t q, uint32_t seq) const noexcept {
  const std::vector<Segment>& h = history_[q];
  // The last segment starting at or before `seq` (segments are in increasing order).
  auto it = std::upper_bound(h.begin(), h.end(), seq, [](uint32_t s, const Segment& g) { return s < g.first; });
  Clock c = it == h.begin() ? Clock{} : std::prev(it)->clock;
  c[q] = seq;
  return c;
}

void PipeTracker::on_wait() noexcept {
  const uint32_t word = machine_.read32(base_ + a2a3::sreg::kWait);
  const uint32_t seq = machine_.read32(base_ + a2a3::sreg::kWaitSeq);
  const uint32_t q = word & 0xFu;
  const uint32_t p = (word >> 4) & 0xFu;
  Status s = Status::ok;
  if (q >= a2a3::kPipeCount || p >= a2a3::kPipeCount) {
    s = Status::invalid_argument;
  } else if (seq > count_[q]) {
    s = Status::sim_wait_never_signalled;
  } else if (seq > 0 && p != q) {
    if (timer_ != nullptr) timer_->wait(p, q, seq);
    const Clock theirs = clock_at(q, seq);
    bool changed = false;
    for (uint32_t k = 0; k < a2a3::kPipeCount; ++k) {
      if (k != p && theirs[k] > clock_[p][k]) {
        clock_[p][k] = theirs[k];
        changed = true;
      }
    }
    // From p's next instruction on, this is what p knows of the others.
    if (changed) history_[p].push_back(Segment{count_[p] + 1, clock_[p]});
  }
  machine_.write32(base_ + a2a3::sreg::kStatus, static_cast<uint32_t>(s));
}

void PipeTracker::on_barrier() noexcept {
  if (timer_ != nullptr) timer_->barrier_all();
  for (uint32_t p = 0; p < a2a3::kPipeCount; ++p) {
    clock_[p] = count_;
    history_[p].push_back(Segment{count_[p] + 1, clock_[p]});
  }
  machine_.write32(base_ + a2a3::sreg::kStatus, static_cast<uint32_t>(Status::ok));
}

PipeTracker::Shadow* PipeTracker::shadow(chip::MemSpace space, bool create) {
  const auto code = static_cast<uint32_t>(space);
  if (code >= shadow_.size()) return nullptr;
  Shadow& sh = shadow_[code];
  if (sh.granules.empty()) {
    const uint64_t size = chip::region_size(chip_of(machine_), space);
    if (!create || size == 0) return nullptr;
    sh.size = (size + kGranule - 1) / kGranule;
    sh.pages.assign((sh.size + kPageGranules - 1) / kPageGranules, 0);
    sh.granules.assign(sh.pages.size() * kPageGranules, 0);  // whole pages (the tail is unused)
  }
  return &sh;
}

bool PipeTracker::waited_for_all(uint32_t i) noexcept {
  if ((synced_ >> i & 1u) != 0) return true;
  for (uint32_t q = 0; q < a2a3::kPipeCount; ++q) {
    if (q != i && clock_[i][q] < count_[q]) return false;
  }
  synced_ |= 1u << i;
  return true;
}

void PipeTracker::read(a2a3::Pipe p, chip::MemSpace space, uint64_t offset, uint64_t bytes) {
  if (bytes == 0) return;
  const uint32_t i = index(p);
  // Every recorded writer (q, s) has s <= count_[q]: when p has waited for all of those, no
  // granule can be a hazard, so skip the scan (the common case: a run of one pipe, or a pipe
  // that just waited for the others).
  if (waited_for_all(i)) return;
  const Shadow* sh = shadow(space, false);
  if (sh == nullptr) return;  // never written by a pipe: host data only
  const uint64_t first = offset / kGranule;
  const uint64_t last = std::min<uint64_t>((offset + bytes - 1) / kGranule, sh->size - 1);
  const Clock& mine = clock_[i];
  // The first granule whose writer p has not waited for; a uniform page has one tag for all.
  auto unsynchronised = [&](uint64_t tag) {
    if (tag == 0) return false;
    const uint32_t q = static_cast<uint32_t>(tag >> 32) - 1;
    return q != i && mine[q] < static_cast<uint32_t>(tag);
  };
  for (uint64_t k = first; k <= last;) {
    const uint64_t page = sh->pages[k / kPageGranules];
    const uint64_t page_last = std::min(last, (k / kPageGranules + 1) * kPageGranules - 1);
    if (page != kMixedPage) {
      if (unsynchronised(page)) return report(p, i, page, space, k);
      k = page_last + 1;
      continue;
    }
    for (; k <= page_last; ++k) {
      if (unsynchronised(sh->granules[k])) return report(p, i, sh->granules[k], space, k);
    }
  }
}

void PipeTracker::report(a2a3::Pipe p, uint32_t i, uint64_t tag, chip::MemSpace space, uint64_t granule) {
  const uint32_t q = static_cast<uint32_t>(tag >> 32) - 1;
  const auto s = static_cast<uint32_t>(tag);
  // One report per (reader instruction, writer instruction): a move reads row by row.
  const Hazard h{p, count_[i], static_cast<a2a3::Pipe>(q), s, space, granule * kGranule};
  if (last_.reader == h.reader && last_.reader_seq == h.reader_seq && last_.writer == h.writer &&
      last_.writer_seq == h.writer_seq && hazard_count_ > 0) {
    return;
  }
  last_ = h;
  ++hazard_count_;
  machine_.write32(base_ + a2a3::sreg::kHazards, static_cast<uint32_t>(hazard_count_));
  if (hazards_.size() < kMaxLoggedHazards) hazards_.push_back(h);
}

void PipeTracker::write(a2a3::Pipe p, chip::MemSpace space, uint64_t offset, uint64_t bytes) {
  if (bytes == 0) return;
  Shadow* sh = shadow(space, true);
  if (sh == nullptr) return;
  const uint32_t i = index(p);
  const uint64_t tag = (uint64_t{i} + 1) << 32 | count_[i];
  uint64_t k = offset / kGranule;
  const uint64_t end = std::min<uint64_t>((offset + bytes - 1) / kGranule + 1, sh->size);
  if (k >= end) return;
  if (k % kPageGranules != 0) {  // head: part of a page
    const uint64_t to = std::min(end, (k / kPageGranules + 1) * kPageGranules);
    write_granules(*sh, k, to, tag);
    k = to;
  }
  const uint64_t whole_end = end / kPageGranules * kPageGranules;
  if (k < whole_end) {  // whole pages: one tag each
    std::fill(sh->pages.begin() + static_cast<ptrdiff_t>(k / kPageGranules),
              sh->pages.begin() + static_cast<ptrdiff_t>(whole_end / kPageGranules), tag);
    k = whole_end;
  }
  if (k < end) write_granules(*sh, k, end, tag);  // tail: part of a page
}

void PipeTracker::write_granules(Shadow& sh, uint64_t from, uint64_t to, uint64_t tag) noexcept {
  uint64_t& page = sh.pages[from / kPageGranules];
  uint64_t* g = sh.granules.data();
  if (page != kMixedPage) {  // split a uniform page into its granules first
    const uint64_t page_first = from / kPageGranules * kPageGranules;
    std::fill(g + page_first, g + page_first + kPageGranules, page);
    page = kMixedPage;
  }
  std::fill(g + from, g + to, tag);
}

void PipeTracker::clear_hazards() noexcept {
  hazards_.clear();
  hazard_count_ = 0;
  machine_.write32(base_ + a2a3::sreg::kHazards, 0);
}

}  // namespace tilefw::port::host
