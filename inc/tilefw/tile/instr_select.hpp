// Tile instructions that select or pad whole tiles: TSELS and TFILLPAD (streams in
// src/plan/select_pad.cpp). Included by tilefw/tile/instr.hpp; the same calling convention:
// the tile::Core first, trailing Events to wait on, Result<Event> back.
#pragma once

#include <cstdint>

#include "tilefw/tile/instr.hpp"

namespace tilefw::tile {

/// The planner's pad kind of a PadValue (the same order: Null, Zero, Max, Min).
constexpr plan::FillPad fill_pad_of(PadValue p) noexcept {
  switch (p) {
    case PadValue::Null: return plan::FillPad::null;
    case PadValue::Zero: return plan::FillPad::zero;
    case PadValue::Max: return plan::FillPad::max;
    case PadValue::Min: return plan::FillPad::min;
  }
  return plan::FillPad::null;
}

/// TSELS: dst = src0 when select_mode == 1, else src1 (every element of the valid region; the
/// three valid regions must be equal). a2a3: half or float; A5: any 2- or 4-byte type.
template <class D, class A, class B, class... W>
[[nodiscard]] Result<Event> TSELS(Core& core, const D& dst, const A& src0, const B& src1, uint8_t select_mode,
                                  const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>, "Fix: TSELS takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> &&
                    std::is_same_v<typename D::DType, typename B::DType>,
                "Fix: TSELS keeps the element type (dst, src0 and src1 of one type)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::sels(dst.desc(), src0.desc(), src1.desc(), select_mode), w.list,
                            w.size());
}

/// TFILLPAD: dst = src inside src's valid region, dst's PadValue everywhere else in dst's
/// capacity (Zero: 0; Max: +inf for floating types, the largest value for integers; Min: -inf,
/// the smallest). dst and src have one capacity and element size (2 or 4 bytes); dst may be src.
template <class D, class S, class... W>
[[nodiscard]] Result<Event> TFILLPAD(Core& core, const D& dst, const S& src, const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<S>, "Fix: TFILLPAD takes unboxed Vec tiles (UB)");
  static_assert(D::PadVal != PadValue::Null, "Fix: TFILLPAD's destination needs a PadValue (Zero, Max or Min)");
  static_assert(sizeof(typename D::DType) == sizeof(typename S::DType) && sizeof(typename D::DType) >= 2,
                "Fix: TFILLPAD keeps the element size (2 or 4 bytes)");
  static_assert(D::Rows == S::Rows && D::Cols == S::Cols, "Fix: TFILLPAD's dst and src have one capacity (Rows, Cols)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::fillpad(dst.desc(), src.desc(), fill_pad_of(D::PadVal)), w.list,
                            w.size());
}

}  // namespace tilefw::tile
