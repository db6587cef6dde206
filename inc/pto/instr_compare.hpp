// PTO's TCMP, TCMPS and TSEL under their PTO signatures, forwarding to tilefw's instructions of
// the same name (tilefw/tile/instr_compare.hpp) on the current context's core, as pto/instr.hpp
// does for the others. Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>

#include "pto/instr.hpp"
#include "tilefw/tile/instr_compare.hpp"

namespace pto {

/// PTO's compare modes (the values of tilefw::desc::CmpMode).
enum class CmpMode : uint8_t { EQ, NE, LT, GT, GE, LE };

namespace detail {
constexpr tilefw::desc::CmpMode cmp_mode(CmpMode m) noexcept { return static_cast<tilefw::desc::CmpMode>(m); }
}  // namespace detail

/// TCMP(dst, src0, src1, cmpMode): dst's predicate bits = src0 cmpMode src1.
template <class D, class A, class B, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TCMP(D& dst, A& src0, B& src1, CmpMode cmpMode, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src0", "src1"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TCMP", kNames, dst, src0, src1)) return {};
  const auto m = detail::cmp_mode(cmpMode);
  return detail::issue(*c, "TCMP", detail::accesses(dst, src0, src1),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept { return tilefw::tile::TCMP(k, dst, src0, src1, m, w...); },
      events...);
}

/// TCMPS(dst, src0, scalar, cmpMode): against a scalar of src0's element type.
template <class D, class A, class S, class... E>
  requires(detail::kAllEvents<E...> && !tilefw::tile::detail::kIsTileType<S>)
RecordEvent TCMPS(D& dst, A& src0, S scalar, CmpMode cmpMode, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src0"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TCMPS", kNames, dst, src0)) return {};
  const auto v = detail::scalar_as<typename A::DType>(scalar);
  const auto m = detail::cmp_mode(cmpMode);
  return detail::issue(*c, "TCMPS", detail::accesses(dst, src0, v),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept { return tilefw::tile::TCMPS(k, dst, src0, v, m, w...); },
      events...);
}

/// TCMPS(dst, src0, src1, cmpMode): against src1's first element (PTO's tile form).
template <class D, class A, class B, class... E>
  requires(detail::kAllEvents<E...> && tilefw::tile::detail::kIsTileType<B>)
RecordEvent TCMPS(D& dst, A& src0, B& src1, CmpMode cmpMode, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src0", "src1"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TCMPS", kNames, dst, src0, src1)) return {};
  const auto m = detail::cmp_mode(cmpMode);
  return detail::issue(*c, "TCMPS", detail::accesses(dst, src0, src1),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept {
        return tilefw::tile::TCMPS(k, dst, src0, src1, m, w...);
      },
      events...);
}

/// TSEL(dst, selMask, src0, src1[, tmp]): dst = selMask's bit ? src0 : src1. tmp is accepted
/// (PTO's a2a3 signature) and not used: tilefw's select reads the predicate directly.
template <class D, class M, class A, class B, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TSEL(D& dst, M& selMask, A& src0, B& src1, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "selMask", "src0", "src1"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TSEL", kNames, dst, selMask, src0, src1)) return {};
  return detail::issue(*c, "TSEL", detail::accesses(dst, selMask, src0, src1),
      [&](tilefw::tile::Core& k, const auto&... w) noexcept {
        return tilefw::tile::TSEL(k, dst, selMask, src0, src1, w...);
      },
      events...);
}
template <class D, class M, class A, class B, class T, class... E>
  requires(detail::kAllEvents<E...> && tilefw::tile::detail::kIsTileType<T>)
RecordEvent TSEL(D& dst, M& selMask, A& src0, B& src1, T& /*tmp: unused*/, const E&... events) noexcept {
  return TSEL(dst, selMask, src0, src1, events...);
}

}  // namespace pto
