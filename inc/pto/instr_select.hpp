// PTO's TSELS and TFILLPAD under their PTO signatures, forwarding to tilefw's instructions of the
// same name (tilefw/tile/instr_select.hpp) on the current context's core, as pto/instr.hpp does
// for the others. Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>

#include "pto/instr.hpp"
#include "tilefw/tile/instr_select.hpp"

namespace pto {

/// TSELS(dst, src0, src1, selectMode): dst = src0 when selectMode == 1, else src1.
template <class D, class A, class B, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TSELS(D& dst, A& src0, B& src1, uint8_t selectMode, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src0", "src1"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TSELS", kNames, dst, src0, src1)) return {};
  return detail::issue(*c, "TSELS", detail::accesses(dst, src0, src1),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept {
        return tilefw::tile::TSELS(k, dst, src0, src1, selectMode, w...);
      },
      events...);
}

/// TFILLPAD(dst, src): src's valid region copied, the rest of dst set to dst's PadValue.
template <class D, class S, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TFILLPAD(D& dst, S& src, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TFILLPAD", kNames, dst, src)) return {};
  return detail::issue(*c, "TFILLPAD", detail::accesses(dst, src),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept { return tilefw::tile::TFILLPAD(k, dst, src, w...); },
      events...);
}

}  // namespace pto
