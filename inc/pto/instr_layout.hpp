// PTO's layout instructions under their PTO signatures: TTRANS(dst, src, tmp, events...)
// forwarding to tilefw::tile::TTRANS (tilefw/tile/instr_layout.hpp) on the current context's
// core. Same conventions as pto/instr.hpp. Core header: no heap, no exceptions, builds for
// Cortex-M.
#pragma once

#include "pto/forward.hpp"
#include "pto/instr.hpp"
#include "tilefw/tile/instr_layout.hpp"

namespace pto {

/// TTRANS(dst, src, tmp): dst = transpose of src's valid region (dst's valid region W x H).
template <class D, class A, class T, class... E>
  requires detail::kIsTile<T> && detail::kAllEvents<E...>
RecordEvent TTRANS(D& dst, A& src, T& tmp, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src", "tmp"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TTRANS", kNames, dst, src, tmp)) return {};
  return detail::issue(*c, "TTRANS", detail::accesses(dst, src, tmp),
                       [&](tilefw::tile::Core& k, const auto&... w) noexcept {
                         return tilefw::tile::TTRANS(k, dst, src, tmp, w...);
                       },
                       events...);
}

}  // namespace pto
