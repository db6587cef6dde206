// Tile instructions = plan + issue (DESIGN.md data flow): a planned, fully validated step
// sequence is replayed through the issue layer, one port emission per issue, and the typed
// instructions (TADD(vu, plan, dst, a, b) ...) on Tile<> types plan and run in one call.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/status.hpp"
#include "tilefw/desc/vector_desc.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/tile.hpp"

namespace tilefw::tile {

/// Where a run stopped, for the caller's message: "TADD step 3 (binary): ...".
struct RunReport {
  Status status = Status::ok;
  /// Steps taken (mode steps and issues), including the failing one.
  uint64_t steps = 0;
  /// Issues emitted (doorbells rung).
  uint64_t issues = 0;
  /// Validation report of the failing issue (plan or device), empty otherwise.
  desc::DescReport desc{};
};

/// Replays `p` on the vector unit. Plans assume normal mode with MASK all ones: the unit is put
/// in that state first when its shadow says otherwise, and every plan leaves it so. Each issue
/// step goes through issue::issue_once (validated again against the live MASK shadow, then
/// exactly one doorbell). The first non-ok status stops the run and is returned; steps before it
/// have executed (plan_tile validated the whole sequence, so on a consistent unit only a device
/// fault can stop a run midway).
[[nodiscard]] Status run_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report = nullptr) noexcept;

/// Plans `req` into the caller's `scratch` plan and runs it: nothing is emitted unless the
/// whole sequence validated. plan errors are returned as plan_tile returns them.
[[nodiscard]] Status run(issue::VectorUnit& vu, const plan::Request& req, plan::Plan& scratch,
                         RunReport* report = nullptr) noexcept;

namespace detail {
/// Raw bits of a scalar operand as the SCALAR register holds them (16-bit types in [15:0]).
template <class S>
constexpr uint32_t scalar_bits(S v) noexcept {
  if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bf16>) {
    return v.bits;
  } else if constexpr (sizeof(S) == 2) {
    return static_cast<uint16_t>(v);
  } else {
    return std::bit_cast<uint32_t>(v);
  }
}
}  // namespace detail

// ---- typed tile instructions -----------------------------------------------------------------
// Each takes the vector unit and a caller-owned scratch Plan (no heap, and a Plan is a few KB:
// firmware keeps one per unit), plans on the tiles' runtime descriptions and runs.

#define TILEFW_TILE_BINARY(NAME)                                                                   \
  template <class D, class A, class B>                                                             \
  [[nodiscard]] Status NAME(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, const A& a, \
                            const B& b) noexcept {                                                 \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>,                                             \
                  "Fix: vector tile instructions take unboxed Vec tiles (UB)");                    \
    return run(vu, plan::Request::binary(plan::TileOp::NAME, dst.desc(), a.desc(), b.desc()), scratch); \
  }
TILEFW_TILE_BINARY(TADD)
TILEFW_TILE_BINARY(TSUB)
TILEFW_TILE_BINARY(TMUL)
TILEFW_TILE_BINARY(TDIV)
TILEFW_TILE_BINARY(TMAX)
TILEFW_TILE_BINARY(TMIN)
#undef TILEFW_TILE_BINARY

#define TILEFW_TILE_UNARY(NAME)                                                                          \
  template <class D, class A>                                                                            \
  [[nodiscard]] Status NAME(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, const A& a) noexcept { \
    static_assert(kIsVec<D> && kIsVec<A>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");  \
    return run(vu, plan::Request::unary(plan::TileOp::NAME, dst.desc(), a.desc()), scratch);             \
  }
TILEFW_TILE_UNARY(TABS)
TILEFW_TILE_UNARY(TEXP)
TILEFW_TILE_UNARY(TLOG)
TILEFW_TILE_UNARY(TSQRT)
TILEFW_TILE_UNARY(TRSQRT)
TILEFW_TILE_UNARY(TRECIP)
TILEFW_TILE_UNARY(TRELU)
TILEFW_TILE_UNARY(TCOLMAX)
TILEFW_TILE_UNARY(TCOLMIN)
TILEFW_TILE_UNARY(TCOLEXPAND)
#undef TILEFW_TILE_UNARY

/// The scalar is an element value of the tiles' type (half, float, int16_t, int32_t).
#define TILEFW_TILE_SCALAR(NAME)                                                                    \
  template <class D, class A, class S>                                                              \
  [[nodiscard]] Status NAME(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, const A& a,  \
                            S scalar) noexcept {                                                    \
    static_assert(kIsVec<D> && kIsVec<A>, "Fix: vector tile instructions take unboxed Vec tiles (UB)"); \
    static_assert(std::is_same_v<S, typename D::DType>, "Fix: the scalar must have the tile's element type"); \
    return run(vu, plan::Request::scalar(plan::TileOp::NAME, dst.desc(), a.desc(), detail::scalar_bits(scalar)), \
               scratch);                                                                            \
  }
TILEFW_TILE_SCALAR(TADDS)
TILEFW_TILE_SCALAR(TMULS)
TILEFW_TILE_SCALAR(TMAXS)
TILEFW_TILE_SCALAR(TMINS)
#undef TILEFW_TILE_SCALAR

#define TILEFW_TILE_REDUCE(NAME)                                                                    \
  template <class D, class A, class T>                                                              \
  [[nodiscard]] Status NAME(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, const A& src, \
                            const T& tmp) noexcept {                                                \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<T>,                                              \
                  "Fix: vector tile instructions take unboxed Vec tiles (UB)");                     \
    static_assert(std::is_same_v<typename D::DType, typename A::DType>,                             \
                  "Fix: the reduction's dst element type must equal src's");                        \
    return run(vu, plan::Request::reduce(plan::TileOp::NAME, dst.desc(), src.desc(), tmp.desc()), scratch); \
  }
TILEFW_TILE_REDUCE(TROWSUM)
TILEFW_TILE_REDUCE(TROWMAX)
TILEFW_TILE_REDUCE(TROWMIN)
TILEFW_TILE_REDUCE(TCOLSUM)
#undef TILEFW_TILE_REDUCE

/// TEXPANDS: every valid element of dst = scalar.
template <class D, class S>
[[nodiscard]] Status TEXPANDS(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, S scalar) noexcept {
  static_assert(kIsVec<D>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<S, typename D::DType>, "Fix: the scalar must have the tile's element type");
  return run(vu, plan::Request::expands(dst.desc(), detail::scalar_bits(scalar)), scratch);
}

/// TCVT: dst = convert(src) with rounding `mode`.
template <class D, class A>
[[nodiscard]] Status TCVT(issue::VectorUnit& vu, plan::Plan& scratch, const D& dst, const A& src,
                          desc::RoundMode mode) noexcept {
  static_assert(kIsVec<D> && kIsVec<A>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  return run(vu, plan::Request::cvt(dst.desc(), src.desc(), mode), scratch);
}

}  // namespace tilefw::tile
