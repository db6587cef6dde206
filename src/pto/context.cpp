// The current PTO context (per thread on a hosted build; one per image on bare metal, which has
// one thread), the failure record and the static Auto-mode placement.
#include "pto/context.hpp"

#include "tilefw/chip/a2a3.hpp"

namespace pto {

namespace {
#if defined(__arm__) && !defined(__linux__)
Context* g_current = nullptr;  // bare metal: no thread storage, one thread
#else
thread_local Context* g_current = nullptr;
#endif

uint64_t align_up(uint64_t v, uint32_t a) noexcept { return a == 0 ? v : (v + a - 1) / a * a; }
}  // namespace

Context* current() noexcept { return g_current; }

ScopedContext::ScopedContext(Context& c) noexcept : previous_(g_current) { g_current = &c; }
ScopedContext::~ScopedContext() { g_current = previous_; }

tilefw::Status status() noexcept {
  return g_current == nullptr ? tilefw::Status::no_such_engine : g_current->failure.status;
}

Failure last_failure() noexcept { return g_current == nullptr ? Failure{} : g_current->failure; }

void clear_status() noexcept {
  if (g_current != nullptr) g_current->failure = Failure{};
}

void reset_auto_placement() noexcept {
  if (g_current == nullptr) return;
  for (Arena& a : g_current->arena) {
    a.auto_next = 0;
    a.auto_lo = ~uint64_t{0};
    a.auto_end = 0;
  }
}

namespace detail {

void set_current(Context* c) noexcept { g_current = c; }

void fail(Context& c, const char* instr, const tilefw::desc::DescReport& r, tilefw::chip::MemSpace space) noexcept {
  if (c.failure.status != tilefw::Status::ok) return;
  c.failure.status = r.status == tilefw::Status::ok ? tilefw::Status::invalid_argument : r.status;
  c.failure.instr = instr;
  c.failure.report = r;
  c.failure.report.status = c.failure.status;
  c.failure.space = space;
  if (!c.checked && c.on_error != nullptr) c.on_error(c.failure);
}

void fail(Context& c, const char* instr, tilefw::Status s, const char* field) noexcept {
  tilefw::desc::DescReport r{};
  r.status = s;
  r.field = field;
  fail(c, instr, r);
}

Context* usable() noexcept {
  Context* c = g_current;
  return c != nullptr && c->failure.status == tilefw::Status::ok ? c : nullptr;
}

bool place_auto(Context& c, const char* instr, const char* operand, tilefw::chip::MemSpace space, uint64_t bytes,
                uint32_t align, uint64_t& offset) noexcept {
  const size_t i = static_cast<size_t>(space);
  const uint64_t size = tilefw::chip::region_size(c.tile.chip, space);
  if (i >= kArenaCount || size == 0) {
    fail(c, instr, tilefw::Status::plan_tile_wrong_space, operand);
    return false;
  }
  Arena& a = c.arena[i];
  const uint64_t start = align_up(a.auto_next > a.manual_end ? a.auto_next : a.manual_end, align);
  const uint64_t left = start >= size ? 0 : size - start;
  if (bytes > left) {
    tilefw::desc::DescReport r{};
    r.status = tilefw::Status::tile_out_of_bounds;
    r.field = operand;
    r.value = static_cast<uint32_t>(bytes);
    r.limit = static_cast<uint32_t>(left);
    r.byte_offset = start;
    fail(c, instr, r, space);
    return false;
  }
  offset = start;
  a.auto_next = start + bytes;
  if (start < a.auto_lo) a.auto_lo = start;
  a.auto_end = a.auto_next;
  return true;
}

bool note_manual(Context& c, tilefw::chip::MemSpace space, uint64_t offset, uint64_t bytes) noexcept {
  const size_t i = static_cast<size_t>(space);
  if (i >= kArenaCount) return true;
  Arena& a = c.arena[i];
  if (a.auto_lo < a.auto_end && offset < a.auto_end && a.auto_lo < offset + bytes) {
    tilefw::desc::DescReport r{};
    r.status = tilefw::Status::illegal_overlap;
    r.field = "tile";
    r.value = static_cast<uint32_t>(offset);
    r.byte_offset = offset;
    r.other = "an auto-placed tile";
    fail(c, "TASSIGN", r, space);
    return false;
  }
  if (offset + bytes > a.manual_end) a.manual_end = offset + bytes;
  return true;
}

}  // namespace detail

}  // namespace pto
