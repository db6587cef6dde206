// Tile instructions that move elements between positions: TTRANS and TGATHER (their issue
// streams: src/plan/transpose.cpp, src/plan/gather.cpp). Included by tilefw/tile/instr.hpp.
#pragma once

#include <cstddef>
#include <type_traits>

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

/// TGATHER: dst[i, j] = element indices[i, j] of src0's storage (src0 + index * sizeof(T)), over
/// dst's valid region; dst contiguous (valid cols == Cols), src0 of dst's element type (2 or 4
/// bytes), indices and tmp int32_t or uint32_t, tmp shaped as the indices' valid region (it
/// receives the byte offsets). An index whose element would leave UB makes the gather fault
/// (its Status), dst unchanged (src/plan/gather.cpp).
template <class D, class S, class I, class T, class... W>
[[nodiscard]] Result<Event> TGATHER(Core& core, const D& dst, const S& src0, const I& indices, const T& tmp,
                                    const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<S> && kIsVec<I> && kIsVec<T>, "Fix: TGATHER takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, typename S::DType>, "Fix: TGATHER's dst and src0 types must match");
  static_assert(sizeof(typename I::DType) == 4 && std::is_integral_v<typename I::DType>,
                "Fix: TGATHER's indices are int32_t or uint32_t");
  static_assert(std::is_same_v<typename T::DType, typename I::DType>, "Fix: TGATHER's tmp has the indices' type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  plan::Request r{};
  r.op = plan::TileOp::TGATHER;
  r.dst = dst.desc();
  r.src0 = src0.desc();
  r.src1 = indices.desc();
  r.tmp = tmp.desc();
  return detail::run_vector(core, r, w.list, w.size());
}

}  // namespace tilefw::tile
