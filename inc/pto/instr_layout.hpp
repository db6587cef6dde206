// PTO's layout instructions under their PTO signatures: TTRANS(dst, src, tmp, events...) and
// TGATHER(dst, src0, indices, tmp, events...) forwarding to tilefw::tile's (tilefw/tile/instr_layout.hpp) on the current context's
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

/// TGATHER(dst, src0, indices, tmp): PTO's index-based gather (a2a3 signature, tmp receives
/// the byte offsets). The mask-pattern form is not provided.
template <class D, class S, class I, class T, class... E>
  requires detail::kIsTile<I> && detail::kIsTile<T> && detail::kAllEvents<E...>
RecordEvent TGATHER(D& dst, S& src0, I& indices, T& tmp, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src0", "src1", "tmp"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TGATHER", kNames, dst, src0, indices, tmp)) return {};
  return detail::issue(*c, "TGATHER", detail::accesses(dst, src0, indices, tmp),
                       [&](tilefw::tile::Core& k, const auto&... w) noexcept {
                         return tilefw::tile::TGATHER(k, dst, src0, indices, tmp, w...);
                       },
                       events...);
}

}  // namespace pto
