// Tile instructions that compare into a predicate tile or select by one: TCMP, TCMPS, TSEL
// (streams and the predicate layout in src/plan/compare.cpp). Included by
// tilefw/tile/instr.hpp; the same calling convention: the tile::Core first, trailing Events to
// wait on, Result<Event> back.
#pragma once

#include <cstdint>

#include "tilefw/tile/instr.hpp"

namespace tilefw::tile {

namespace detail {
// A Tile<> (TCMPS's tile form) rather than a scalar value.
template <class T>
inline constexpr bool kIsTileType = requires { T::Loc; typename T::DType; };
}  // namespace detail

/// TCMP: bit (i, j) of the u8 predicate tile dst (bit j % 8 of byte j / 8 of row i) = src0(i, j)
/// `mode` src1(i, j) over src0's valid region (dst's valid region: VR rows, ceil(VC / 8) bytes).
/// a2a3: f16, f32, i32 (i32 compares EQ whatever the mode). NaN: only NE is true.
template <class D, class A, class B, class... W>
[[nodiscard]] Result<Event> TCMP(Core& core, const D& dst, const A& src0, const B& src1, desc::CmpMode mode,
                                 const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>, "Fix: TCMP takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, uint8_t>, "Fix: TCMP's dst is a uint8_t predicate tile");
  static_assert(std::is_same_v<typename A::DType, typename B::DType>, "Fix: TCMP's src0 and src1 have one type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::cmp(dst.desc(), src0.desc(), src1.desc(), mode), w.list, w.size());
}

/// TCMPS, scalar form: src0(i, j) `mode` scalar (a value of src0's element type).
template <class D, class A, class S, class... W>
  requires(!detail::kIsTileType<S>)
[[nodiscard]] Result<Event> TCMPS(Core& core, const D& dst, const A& src0, S scalar, desc::CmpMode mode,
                                  const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A>, "Fix: TCMPS takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, uint8_t>, "Fix: TCMPS's dst is a uint8_t predicate tile");
  static_assert(std::is_same_v<S, typename A::DType>, "Fix: the scalar must have src0's element type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::cmps(dst.desc(), src0.desc(), detail::scalar_bits(scalar), mode),
                            w.list, w.size());
}

/// TCMPS, tile form: src0(i, j) `mode` src1(0, 0).
template <class D, class A, class B, class... W>
  requires detail::kIsTileType<B>
[[nodiscard]] Result<Event> TCMPS(Core& core, const D& dst, const A& src0, const B& src1, desc::CmpMode mode,
                                  const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>, "Fix: TCMPS takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, uint8_t>, "Fix: TCMPS's dst is a uint8_t predicate tile");
  static_assert(std::is_same_v<typename A::DType, typename B::DType>, "Fix: TCMPS's src0 and src1 have one type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::cmps_first(dst.desc(), src0.desc(), src1.desc(), mode), w.list,
                            w.size());
}

/// TSEL: dst(i, j) = mask bit (i, j) ? src0(i, j) : src1(i, j) over dst's valid region; the mask
/// is a u8 predicate tile as TCMP writes it. Any 2- or 4-byte type; the chosen bits are copied.
template <class D, class M, class A, class B, class... W>
[[nodiscard]] Result<Event> TSEL(Core& core, const D& dst, const M& mask, const A& src0, const B& src1,
                                 const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<M> && kIsVec<A> && kIsVec<B>, "Fix: TSEL takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename M::DType, uint8_t>, "Fix: TSEL's mask is a uint8_t predicate tile");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> &&
                    std::is_same_v<typename D::DType, typename B::DType>,
                "Fix: TSEL keeps the element type (dst, src0 and src1 of one type)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::sel(dst.desc(), mask.desc(), src0.desc(), src1.desc()), w.list,
                            w.size());
}

}  // namespace tilefw::tile
