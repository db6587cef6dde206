// PTO's synchronisation spellings: RecordEvent (what every instruction returns), Event<Src, Dst>
// (an author's named event between two instructions), TSYNC, and the device build's
// set_flag / wait_flag / pipe_barrier with PIPE_* and EVENT_ID*. All forward to tilefw's events
// (tilefw::tile::Event: "instruction seq of pipe p is done") and the sync unit.
// Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto/context.hpp"
#include "tilefw/tile/event.hpp"

namespace pto {

using tilefw::chip::a2a3::Pipe;

/// PTO's instruction names, as the source and destination of an Event. The pipe an Event's
/// destination waits on is pipe_of(Dst).
enum class Op : uint8_t {
  TLOAD, TSTORE_VEC, TSTORE_ACC, TMOV_M2L, TMOV_M2R, TMOV_M2B, TMOV_A2V, TMATMUL, TMATMUL_ACC, TMATMUL_BIAS,
  TADD, TSUB, TMUL, TDIV, TMAX, TMIN, TADDS, TSUBS, TMULS, TMAXS, TMINS, TNEG, TEXPANDS, TABS, TEXP, TLOG,
  TSQRT, TRSQRT, TRECIP, TRELU, TCVT, TROWSUM, TROWMAX, TROWMIN, TCOLSUM, TCOLMAX, TCOLMIN, TROWEXPAND,
  TCOLEXPAND, TROWEXPANDADD, TROWEXPANDSUB, TROWEXPANDMUL, TROWEXPANDDIV, TBIN_INTRIN, VECTOR,
  TSELS, TFILLPAD,
  TCMP, TCMPS, TSEL,
};

/// The pipe an instruction runs on.
constexpr Pipe pipe_of(Op op) noexcept {
  switch (op) {
    case Op::TLOAD: return Pipe::MTE2;
    case Op::TSTORE_VEC: return Pipe::MTE3;
    case Op::TSTORE_ACC: return Pipe::FIX;
    case Op::TMOV_A2V: return Pipe::FIX;
    case Op::TMOV_M2L:
    case Op::TMOV_M2R:
    case Op::TMOV_M2B: return Pipe::MTE1;
    case Op::TMATMUL:
    case Op::TMATMUL_ACC:
    case Op::TMATMUL_BIAS: return Pipe::M;
    default: return Pipe::V;
  }
}

/// What an instruction returns: the event of its last issue (empty when it issued nothing or
/// failed). Passed to a later instruction, that one waits for it on its own pipe.
struct RecordEvent {
  tilefw::tile::Event ev{};
};

/// An author's event from instruction Src to instruction Dst: assigned an instruction's
/// RecordEvent, passed to the next instruction (or TSYNC).
template <Op Src, Op Dst>
struct Event {
  tilefw::tile::Event ev{};
  constexpr Event() noexcept = default;
  constexpr Event(const RecordEvent& r) noexcept : ev(r.ev) {}  // NOLINT: PTO assigns RecordEvents
  constexpr Event& operator=(const RecordEvent& r) noexcept {
    ev = r.ev;
    return *this;
  }
};

namespace detail {
template <class T>
inline constexpr bool kIsEvent = std::is_same_v<T, RecordEvent>;
template <Op A, Op B>
inline constexpr bool kIsEvent<Event<A, B>> = true;

template <class T>
struct EventDst {
  static constexpr bool known = false;
  static constexpr Pipe pipe = Pipe::V;
};
template <Op A, Op B>
struct EventDst<Event<A, B>> {
  static constexpr bool known = true;
  static constexpr Pipe pipe = pipe_of(B);
};

/// Waits `waiter` for events (ok, or the sync unit's failure recorded as `instr`'s).
bool wait(Context& c, const char* instr, Pipe waiter, const tilefw::tile::Event* events, size_t n) noexcept;
}  // namespace detail

/// TSYNC(events...): each Event<Src, Dst> makes Dst's pipe wait for its source instruction.
template <class... E>
void TSYNC(const E&... events) noexcept {
  static_assert((detail::EventDst<E>::known && ...), "Fix: TSYNC takes Event<Src, Dst> values");
  Context* c = detail::usable();
  if (c == nullptr) return;
  (void)((detail::wait(*c, "TSYNC", detail::EventDst<E>::pipe, &events.ev, 1) &&
          (detail::note_wait(*c, detail::EventDst<E>::pipe, events.ev), true)) &&
         ...);
}

// ---- the device build's flag spellings ---------------------------------------------------------
enum pipe_t : uint8_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t : uint8_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

/// set_flag(src, dst, id): records src's latest instruction for dst under id (PIPE_S: the
/// scalar unit has no pipe here, so nothing to record). A bad pipe or id is invalid_argument.
void set_flag(pipe_t src, pipe_t dst, event_t id) noexcept;
/// wait_flag(src, dst, id): dst waits for what set_flag recorded, and the flag is consumed
/// (dst PIPE_S: the scalar unit stalls, so every pipe's later instructions come after it).
/// A wait with no set_flag before it would hang the device: sim_wait_never_signalled.
void wait_flag(pipe_t src, pipe_t dst, event_t id) noexcept;
/// pipe_barrier(PIPE_ALL): every pipe waits for everything issued so far. pipe_barrier(p) for
/// one pipe orders only p's own instructions (already in order): no pipe waits for another.
/// A value that is no pipe_t is invalid_argument.
void pipe_barrier(pipe_t p) noexcept;

}  // namespace pto
