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
    const tilefw::Status s = tilefw::tile::assign_checked(t, offset);
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

/// Runs `call(core, waits...)` with the author's events, or (none given, Auto sync) the latest
/// event of every pipe (the callee skips its own pipe's), and records a failure as `instr`'s.
template <class Call, class... E>
RecordEvent issue(Context& c, const char* instr, const Call& call, const E&... events) noexcept {
  static_assert(kAllEvents<E...>, "Fix: trailing arguments of a PTO instruction are RecordEvent or Event<Src, Dst>");
  using tilefw::tile::latest_event;
  c.tile.last_report = tilefw::desc::DescReport{};
  tilefw::Result<tilefw::tile::Event> r = [&]() noexcept {
    if constexpr (sizeof...(E) != 0) {
      return call(c.tile, to_event(events)...);
    } else {
      if (c.sync == SyncMode::Manual) return call(c.tile);
      return call(c.tile, latest_event(Pipe::MTE2), latest_event(Pipe::MTE1), latest_event(Pipe::M),
                  latest_event(Pipe::V), latest_event(Pipe::MTE3), latest_event(Pipe::FIX));
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
