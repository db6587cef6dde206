// Tile instructions that move elements between positions: TTRANS (src/plan/transpose.cpp has
// the issue stream). Included by tilefw/tile/instr.hpp.
#pragma once

#include <cstddef>

#include "tilefw/tile/instr.hpp"

namespace tilefw::tile {

/// TTRANS: dst[i, j] = src[j, i] over src's valid region (H x W); dst's valid region must be
/// W x H. Element types of 2 or 4 bytes, dst's element size equal to src's (the bits are moved,
/// never converted); `tmp` is scratch of at least ceil(H / (32 / sizeof(T))) * round8(W) * 32
/// bytes, any element type. dst, src and tmp share no byte.
template <class D, class A, class T, class... W>
[[nodiscard]] Result<Event> TTRANS(Core& core, const D& dst, const A& src, const T& tmp, const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<T>, "Fix: TTRANS takes unboxed Vec tiles (UB)");
  static_assert(sizeof(typename D::DType) == sizeof(typename A::DType),
                "Fix: TTRANS's dst element size must equal src's");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  plan::Request r{};
  r.op = plan::TileOp::TTRANS;
  r.dst = dst.desc();
  r.src0 = src.desc();
  r.tmp = tmp.desc();
  return detail::run_vector(core, r, w.list, w.size());
}

}  // namespace tilefw::tile
