// set_flag / wait_flag / pipe_barrier and the event waits of PTO's spellings, over tilefw's
// events and the sync unit.
#include "pto/sync.hpp"

namespace pto {

namespace {
constexpr uint32_t kFlagSet = 0x80000000u;

// PIPE_S has no tilefw pipe: the scalar unit is the code calling the instructions.
bool to_pipe(pipe_t p, Pipe& out) noexcept {
  switch (p) {
    case PIPE_V: out = Pipe::V; return true;
    case PIPE_M: out = Pipe::M; return true;
    case PIPE_MTE1: out = Pipe::MTE1; return true;
    case PIPE_MTE2: out = Pipe::MTE2; return true;
    case PIPE_MTE3: out = Pipe::MTE3; return true;
    case PIPE_FIX: out = Pipe::FIX; return true;
    default: return false;
  }
}

// Slot of a flag in the table indexed by tilefw pipe (PIPE_S: the last slot; its flags carry no
// event); a pipe or id out of range is a bad argument.
bool flag_slot(Context& c, const char* instr, pipe_t src, pipe_t dst, event_t id, tilefw::tile::Event*& slot) noexcept {
  Pipe s{};
  Pipe d{};
  const bool src_ok = src == PIPE_S || to_pipe(src, s);
  const bool dst_ok = dst == PIPE_S || to_pipe(dst, d);
  if (!src_ok || !dst_ok || static_cast<size_t>(id) >= kFlagIds) {
    detail::fail(c, instr, tilefw::Status::invalid_argument, !src_ok ? "src" : (!dst_ok ? "dst" : "id"));
    return false;
  }
  const size_t si = src == PIPE_S ? kPipeSlots : static_cast<size_t>(s);
  const size_t di = dst == PIPE_S ? kPipeSlots : static_cast<size_t>(d);
  slot = &c.flags[si][di][id];
  return true;
}
}  // namespace

namespace detail {
bool wait(Context& c, const char* instr, Pipe waiter, const tilefw::tile::Event* events, size_t n) noexcept {
  const tilefw::Status s = tilefw::tile::wait_events(waiter, events, n);
  if (s != tilefw::Status::ok) {
    fail(c, instr, s, "event");
    return false;
  }
  return true;
}
}  // namespace detail

void set_flag(pipe_t src, pipe_t dst, event_t id) noexcept {
  Context* c = detail::usable();
  tilefw::tile::Event* slot = nullptr;
  if (c == nullptr || !flag_slot(*c, "set_flag", src, dst, id, slot)) return;
  // The top bit marks the flag as set; the rest is the event (seq 0 for the scalar unit, which
  // has finished everything it issued: nothing to wait for).
  Pipe s{};
  tilefw::tile::Event e = to_pipe(src, s) ? tilefw::tile::latest_event(s) : tilefw::tile::Event{Pipe::V, 0};
  e.seq |= kFlagSet;
  *slot = e;
}

void wait_flag(pipe_t src, pipe_t dst, event_t id) noexcept {
  Context* c = detail::usable();
  tilefw::tile::Event* slot = nullptr;
  if (c == nullptr || !flag_slot(*c, "wait_flag", src, dst, id, slot)) return;
  if ((slot->seq & kFlagSet) == 0) {
    detail::fail(*c, "wait_flag", tilefw::Status::sim_wait_never_signalled, "id");
    return;
  }
  const tilefw::tile::Event e{slot->pipe, slot->seq & ~kFlagSet};
  *slot = tilefw::tile::Event{};
  Pipe d{};
  if (to_pipe(dst, d)) {
    if (detail::wait(*c, "wait_flag", d, &e, 1)) detail::note_wait(*c, d, e);
    return;
  }
  // A wait on PIPE_S stalls the scalar unit, which issues every later instruction: whatever pipe
  // runs them, they come after the event.
  for (size_t q = 0; q < kPipeSlots; ++q) {
    const Pipe waiter = static_cast<Pipe>(q);
    if (!detail::wait(*c, "wait_flag", waiter, &e, 1)) return;
    detail::note_wait(*c, waiter, e);
  }
}

void pipe_barrier(pipe_t p) noexcept {
  Context* c = detail::usable();
  if (c == nullptr) return;
  if (p == PIPE_ALL) {
    tilefw::tile::pipe_barrier(c->tile);
    detail::note_barrier(*c);
    return;
  }
  // pipe_barrier(p) orders p's instructions among themselves only; a pipe already completes its
  // instructions in order, so nothing waits and no other pipe is ordered after anything.
  Pipe unused{};
  if (p != PIPE_S && !to_pipe(p, unused)) detail::fail(*c, "pipe_barrier", tilefw::Status::invalid_argument, "pipe");
}

}  // namespace pto
