// The shared half of every PTO instruction: Auto-mode placement of unplaced operands, the events
// to wait for (given, or Auto's), the call into tilefw's tile instruction and the failure record.
// Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto/context.hpp"
#include "pto/global.hpp"
#include "pto/sync.hpp"
#include "pto/types.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/event.hpp"
#include "tilefw/tile/tile.hpp"

namespace pto::detail {

/// Auto mode: an operand tile no TASSIGN placed gets the next aligned bytes of its space, once,
/// at its first use (operands in argument order). Anything but a tile passes.
template <class T>
bool place(Context& c, const char* instr, const char* operand, T& t) noexcept {
  if constexpr (kIsTile<T>) {
    if (t.assigned()) return true;
    constexpr tilefw::chip::MemSpace space = tilefw::tile::space_of(T::Loc);
    uint64_t offset = 0;
    if (!place_auto(c, instr, operand, space, T::Bytes, tilefw::chip::a2a3::region_alignment(space), offset)) {
      return false;
    }
    const tilefw::Status s = tilefw::tile::assign_checked(t, offset, c.tile.chip);
    if (s != tilefw::Status::ok) {
      fail(c, instr, s, operand);
      return false;
    }
  }
  return true;
}

template <class... Ts>
bool place_all(Context& c, const char* instr, const char* const* names, Ts&... tiles) noexcept {
  size_t i = 0;
  return (place(c, instr, names[i++], tiles) && ...);
}

constexpr tilefw::tile::Event to_event(const RecordEvent& e) noexcept { return e.ev; }
template <Op A, Op B>
constexpr tilefw::tile::Event to_event(const Event<A, B>& e) noexcept {
  return e.ev;
}

template <class... E>
inline constexpr bool kAllEvents = (kIsEvent<std::remove_cvref_t<E>> && ...);

/// An operand's bytes: a tile's whole capacity in its space, a GM view's span, nothing for a
/// scalar.
template <class T>
Access access_of(const T& t, bool write) noexcept {
  if constexpr (kIsTile<T>) {
    return Access{tilefw::tile::space_of(T::Loc), t.address(), T::Bytes, write};
  } else if constexpr (requires { t.span_bytes(); }) {
    return Access{tilefw::chip::MemSpace::GM, t.address(), t.span_bytes(), write};
  } else {
    return Access{};  // a scalar or a mode: no bytes
  }
}

/// The operands of an instruction: the first is written (for TMATMUL_ACC also read: a write's
/// dependencies include a read's), the others are read.
template <size_t N>
struct Accesses {
  Access list[N];
};
template <class First, class... Rest>
Accesses<1 + sizeof...(Rest)> accesses(const First& first, const Rest&... rest) noexcept {
  return Accesses<1 + sizeof...(Rest)>{{access_of(first, true), access_of(rest, false)...}};
}

/// Runs `call(core, waits...)` with the author's events, or (none given, Auto sync) the events
/// the operands depend on (one per pipe at most; the callee skips its own pipe's); in Manual
/// sync checks the author's waits cover those dependencies; records the access, and a failure
/// as `instr`'s.
template <size_t N, class Call, class... E>
RecordEvent issue(Context& c, const char* instr, const Accesses<N>& ops, const Call& call,
                  const E&... events) noexcept {
  static_assert(kAllEvents<E...>, "Fix: trailing arguments of a PTO instruction are RecordEvent or Event<Src, Dst>");
  c.tile.last_report = tilefw::desc::DescReport{};
  const bool manual = c.sync == SyncMode::Manual;
  // Auto: what to wait for. Manual: what the author's waits must cover (nothing is added).
  tilefw::tile::Event deps[kPipeSlots]{};
  if (manual) {
    manual_deps(c, ops.list, N, deps);
  } else {
    auto_waits(c, ops.list, N, deps);  // also makes room to record this instruction
  }
  tilefw::Result<tilefw::tile::Event> r = [&]() noexcept {
    if constexpr (sizeof...(E) != 0) {
      return call(c.tile, to_event(events)...);
    } else {
      static_assert(kPipeSlots == 6, "one wait per pipe");
      if (manual) return call(c.tile);
      return call(c.tile, deps[0], deps[1], deps[2], deps[3], deps[4], deps[5]);
    }
  }();
  if (!r.ok()) {
    tilefw::desc::DescReport rep = c.tile.last_report;
    if (rep.status != r.status()) {
      rep = tilefw::desc::DescReport{};
      rep.status = r.status();
    }
    fail(c, instr, rep);
    return {};
  }
  if (manual) {
    const Pipe ran = r.value().pipe;
    (note_wait(c, ran, to_event(events)), ...);
    check_deps(c, instr, ran, deps);
  }
  record_access(c, ops.list, N, r.value());
  return RecordEvent{r.value()};
}

/// A PTO GM view as tilefw's: the pointer as a GM offset from the context's gm_base.
template <class G>
bool gm_view(Context& c, const char* instr, const char* operand, const G& g,
             tilefw::tile::GlobalTensor<typename G::DType>& out) noexcept {
  if (g.data() == nullptr) {
    fail(c, instr, tilefw::Status::tile_unassigned, operand);
    return false;
  }
  const uint64_t offset = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(g.data()) - c.gm_base);
  out = tilefw::tile::GlobalTensor<typename G::DType>(g.rows(), g.cols(), g.row_stride());
  const tilefw::Status s = out.assign(offset);
  if (s != tilefw::Status::ok) {
    tilefw::desc::DescReport r{};
    r.status = s;
    r.field = operand;
    r.byte_offset = offset;
    fail(c, instr, r, tilefw::chip::MemSpace::GM);
    return false;
  }
  return true;
}

}  // namespace pto::detail
