// Auto sync's dependency tracking: which instruction last wrote, and which last read (per pipe),
// each byte range; an instruction waits for the writers of what it reads and the writers and
// readers of what it writes. Events of one pipe are ordered, so the latest per pipe suffices,
// and a writer that waited for earlier readers stands for them afterwards.
#include "pto/context.hpp"

#include "tilefw/tile/event.hpp"

namespace pto::detail {

namespace {
bool overlaps(const Tracked& t, const Access& a) noexcept {
  return a.space != tilefw::chip::MemSpace::none && t.space == a.space && a.offset < t.offset + t.bytes &&
         t.offset < a.offset + a.bytes;
}

void keep_latest(tilefw::tile::Event (&out)[kPipeSlots], const tilefw::tile::Event& e) noexcept {
  if (e.seq == 0) return;
  tilefw::tile::Event& slot = out[static_cast<size_t>(e.pipe)];
  if (e.seq > slot.seq) slot = e;
}

// The entry of exactly `a`'s range, made if new; nullptr when the table is full.
Tracked* exact(Context& c, const Access& a) noexcept {
  for (size_t i = 0; i < c.tracked_count; ++i) {
    Tracked& t = c.tracked[i];
    if (t.space == a.space && t.offset == a.offset && t.bytes == a.bytes) return &t;
  }
  if (c.tracked_count == kTrackedRanges) return nullptr;
  Tracked& t = c.tracked[c.tracked_count++];
  t = Tracked{a.space, a.offset, a.bytes, {}, {}};
  return &t;
}

size_t missing(const Context& c, const Access* ops, size_t n) noexcept {
  size_t m = 0;
  for (size_t k = 0; k < n; ++k) {
    if (ops[k].space == tilefw::chip::MemSpace::none) continue;
    bool found = false;
    for (size_t i = 0; i < c.tracked_count && !found; ++i) {
      const Tracked& t = c.tracked[i];
      found = t.space == ops[k].space && t.offset == ops[k].offset && t.bytes == ops[k].bytes;
    }
    if (!found) ++m;
  }
  return m;
}
}  // namespace

namespace {
void collect(const Context& c, const Access* ops, size_t n, tilefw::tile::Event (&out)[kPipeSlots]) noexcept {
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < c.tracked_count; ++i) {
      const Tracked& t = c.tracked[i];
      if (!overlaps(t, ops[k])) continue;
      keep_latest(out, t.writer);
      if (!ops[k].write) continue;
      for (const tilefw::tile::Event& r : t.readers) keep_latest(out, r);
    }
  }
}
}  // namespace

void auto_waits(Context& c, const Access* ops, size_t n, tilefw::tile::Event (&out)[kPipeSlots]) noexcept {
  for (tilefw::tile::Event& e : out) e = tilefw::tile::Event{};
  if (c.tracked_count + missing(c, ops, n) > kTrackedRanges) {
    // No room to record this instruction: order everything issued so far and start afresh.
    tilefw::tile::pipe_barrier(c.tile);
    c.tracked_count = 0;
    return;
  }
  collect(c, ops, n, out);
}

void manual_deps(Context& c, const Access* ops, size_t n, tilefw::tile::Event (&out)[kPipeSlots]) noexcept {
  for (tilefw::tile::Event& e : out) e = tilefw::tile::Event{};
  if (c.tracked_count + missing(c, ops, n) > kTrackedRanges) c.tracked_count = 0;
  collect(c, ops, n, out);
}

void note_wait(Context& c, tilefw::chip::a2a3::Pipe waiter, const tilefw::tile::Event& e) noexcept {
  const size_t q = static_cast<size_t>(waiter);
  const size_t p = static_cast<size_t>(e.pipe);
  if (e.seq == 0 || p == q) return;
  if (e.seq > c.known[q][p]) c.known[q][p] = e.seq;
  // What p was known to wait for then, taken as of now: it can only be more (a missed report,
  // never a false one).
  for (size_t r = 0; r < kPipeSlots; ++r) {
    if (r != q && c.known[p][r] > c.known[q][r]) c.known[q][r] = c.known[p][r];
  }
}

void note_barrier(Context& c) noexcept {
  for (size_t p = 0; p < kPipeSlots; ++p) {
    const uint32_t latest = tilefw::tile::latest_event(static_cast<tilefw::chip::a2a3::Pipe>(p)).seq;
    for (size_t q = 0; q < kPipeSlots; ++q) c.known[q][p] = latest;
  }
}

void check_deps(Context& c, const char* instr, tilefw::chip::a2a3::Pipe ran,
                const tilefw::tile::Event (&deps)[kPipeSlots]) noexcept {
  const size_t q = static_cast<size_t>(ran);
  for (size_t p = 0; p < kPipeSlots; ++p) {
    if (p == q || deps[p].seq == 0 || deps[p].seq <= c.known[q][p]) continue;
    if (c.sync_violations++ == 0) {
      c.first_violation.status = tilefw::Status::sim_unsynchronized_read;
      c.first_violation.instr = instr;
      c.first_violation.report.status = tilefw::Status::sim_unsynchronized_read;
      c.first_violation.report.field = tilefw::chip::a2a3::pipe_name(deps[p].pipe);
      c.first_violation.report.value = deps[p].seq;
      c.first_violation.report.limit = c.known[q][p];
    }
    return;  // one count per instruction
  }
}

void record_access(Context& c, const Access* ops, size_t n, tilefw::tile::Event done) noexcept {
  if (done.seq == 0) return;
  for (size_t k = 0; k < n; ++k) {
    if (ops[k].write || ops[k].space == tilefw::chip::MemSpace::none) continue;
    if (Tracked* t = exact(c, ops[k])) t->readers[static_cast<size_t>(done.pipe)] = done;
  }
  for (size_t k = 0; k < n; ++k) {
    if (!ops[k].write || ops[k].space == tilefw::chip::MemSpace::none) continue;
    (void)exact(c, ops[k]);
    for (size_t i = 0; i < c.tracked_count; ++i) {
      Tracked& t = c.tracked[i];
      if (!overlaps(t, ops[k])) continue;
      t.writer = done;
      for (tilefw::tile::Event& r : t.readers) r = tilefw::tile::Event{};
    }
  }
}

}  // namespace pto::detail
