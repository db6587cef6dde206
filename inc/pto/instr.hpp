// PTO's tile instructions under their PTO signatures, each forwarding to tilefw's instruction of
// the same name (tilefw/tile/instr.hpp) on the current context's core: `TROWSUM(dst, src, tmp,
// events...)` returns RecordEvent. Unplaced operands are placed first (Auto mode, forward.hpp);
// a failure is recorded in the context (and reported by its handler) and the instruction
// returns an empty RecordEvent. Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto/forward.hpp"
#include "tilefw/desc/data/vector_convert_desc.hpp"
#include "tilefw/tile/instr.hpp"

namespace pto {

#define PTO_CALL(NAME, ...) [&](tilefw::tile::Core& k_, const auto&... w_) noexcept { \
    return tilefw::tile::NAME(k_, __VA_ARGS__, w_...);                              \
  }

#define PTO_BINARY(NAME)                                                                               \
  template <class D, class A, class B, class... E>                                                     \
  RecordEvent NAME(D& dst, A& src0, B& src1, const E&... events) noexcept {                            \
    static constexpr const char* kNames[] = {"dst", "src0", "src1"};                                   \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src0, src1)) return {};             \
    return detail::issue(*c, #NAME, detail::accesses(dst, src0, src1),                                  \
        PTO_CALL(NAME, dst, src0, src1), events...);                                                    \
  }
PTO_BINARY(TADD)
PTO_BINARY(TSUB)
PTO_BINARY(TMUL)
PTO_BINARY(TDIV)
PTO_BINARY(TMAX)
PTO_BINARY(TMIN)
#undef PTO_BINARY

// Row-broadcast binaries; a fourth tile operand is the tmp of tilefw's NAME_TMP form.
#define PTO_ROWEXPAND(NAME)                                                                            \
  template <class D, class A, class V, class... E>                                                     \
    requires detail::kAllEvents<E...>                                                                  \
  RecordEvent NAME(D& dst, A& src0, V& src1, const E&... events) noexcept {                            \
    static constexpr const char* kNames[] = {"dst", "src0", "src1"};                                   \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src0, src1)) return {};             \
    return detail::issue(*c, #NAME, detail::accesses(dst, src0, src1),                                  \
        PTO_CALL(NAME, dst, src0, src1), events...);                                                    \
  }                                                                                                    \
  template <class D, class A, class V, class T, class... E>                                            \
    requires detail::kIsTile<T> && detail::kAllEvents<E...>                                            \
  RecordEvent NAME(D& dst, A& src0, V& src1, T& tmp, const E&... events) noexcept {                    \
    static constexpr const char* kNames[] = {"dst", "src0", "src1", "tmp"};                            \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src0, src1, tmp)) return {};        \
    return detail::issue(*c, #NAME, detail::accesses(dst, src0, src1, tmp),                             \
        PTO_CALL(NAME##_TMP, dst, src0, src1, tmp), events...);                                         \
  }
PTO_ROWEXPAND(TROWEXPANDADD)
PTO_ROWEXPAND(TROWEXPANDSUB)
PTO_ROWEXPAND(TROWEXPANDMUL)
PTO_ROWEXPAND(TROWEXPANDDIV)
#undef PTO_ROWEXPAND

#define PTO_UNARY(NAME)                                                                                \
  template <class D, class A, class... E>                                                              \
    requires detail::kAllEvents<E...>                                                                  \
  RecordEvent NAME(D& dst, A& src, const E&... events) noexcept {                                      \
    static constexpr const char* kNames[] = {"dst", "src"};                                            \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src)) return {};                    \
    return detail::issue(*c, #NAME, detail::accesses(dst, src), PTO_CALL(NAME, dst, src), events...);   \
  }
PTO_UNARY(TABS)
PTO_UNARY(TEXP)
PTO_UNARY(TLOG)
PTO_UNARY(TSQRT)
PTO_UNARY(TRSQRT)
PTO_UNARY(TRECIP)
PTO_UNARY(TRELU)
PTO_UNARY(TCOLMAX)
PTO_UNARY(TCOLMIN)
PTO_UNARY(TCOLPROD)
PTO_UNARY(TCOLEXPAND)
PTO_UNARY(TROWEXPAND)
#undef PTO_UNARY

/// TROWEXPAND(dst, src, tmp): tilefw's TROWEXPAND_TMP.
template <class D, class V, class T, class... E>
  requires detail::kIsTile<T> && detail::kAllEvents<E...>
RecordEvent TROWEXPAND(D& dst, V& src, T& tmp, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src", "tmp"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TROWEXPAND", kNames, dst, src, tmp)) return {};
  return detail::issue(*c, "TROWEXPAND", detail::accesses(dst, src, tmp),
      PTO_CALL(TROWEXPAND_TMP, dst, src, tmp), events...);
}

// The scalar is converted to the tile's element type (a native half keeps its bits).
#define PTO_SCALAR(NAME)                                                                               \
  template <class D, class A, class S, class... E>                                                     \
  RecordEvent NAME(D& dst, A& src, S scalar, const E&... events) noexcept {                            \
    static constexpr const char* kNames[] = {"dst", "src"};                                            \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src)) return {};                    \
    const auto v = detail::scalar_as<typename D::DType>(scalar);                                       \
    return detail::issue(*c, #NAME, detail::accesses(dst, src, v), PTO_CALL(NAME, dst, src, v), events...); \
  }
PTO_SCALAR(TADDS)
PTO_SCALAR(TMULS)
PTO_SCALAR(TMAXS)
PTO_SCALAR(TMINS)
#undef PTO_SCALAR

#define PTO_REDUCE(NAME)                                                                               \
  template <class D, class A, class T, class... E>                                                     \
  RecordEvent NAME(D& dst, A& src, T& tmp, const E&... events) noexcept {                              \
    static constexpr const char* kNames[] = {"dst", "src", "tmp"};                                     \
    Context* c = detail::usable();                                                                     \
    if (c == nullptr || !detail::place_all(*c, #NAME, kNames, dst, src, tmp)) return {};               \
    return detail::issue(*c, #NAME, detail::accesses(dst, src, tmp),                                    \
        PTO_CALL(NAME, dst, src, tmp), events...);                                                      \
  }
PTO_REDUCE(TROWSUM)
PTO_REDUCE(TROWMAX)
PTO_REDUCE(TROWMIN)
#undef PTO_REDUCE

/// TCOLSUM(dst, src): tilefw's column sum accumulates the rows in order ((r0 + r1) + r2) + ...,
/// PTO's sequential path; it needs no scratch (tilefw's tmp operand is unused: src stands in).
template <class D, class A, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TCOLSUM(D& dst, A& src, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TCOLSUM", kNames, dst, src)) return {};
  return detail::issue(*c, "TCOLSUM", detail::accesses(dst, src, src),
      PTO_CALL(TCOLSUM, dst, src, src), events...);
}

/// TCOLSUM(dst, src, tmp, isBinary): isBinary == false is the sequential path above; PTO's
/// binary-tree path (isBinary == true) is not implemented: unsupported, naming isBinary.
template <class D, class A, class T, class... E>
  requires detail::kIsTile<T> && detail::kAllEvents<E...>
RecordEvent TCOLSUM(D& dst, A& src, T& tmp, bool isBinary, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src", "tmp"};
  Context* c = detail::usable();
  if (c == nullptr) return {};
  if (isBinary) {
    detail::fail(*c, "TCOLSUM", tilefw::Status::unsupported, "isBinary");
    return {};
  }
  if (!detail::place_all(*c, "TCOLSUM", kNames, dst, src, tmp)) return {};
  return detail::issue(*c, "TCOLSUM", detail::accesses(dst, src, tmp),
      PTO_CALL(TCOLSUM, dst, src, tmp), events...);
}

namespace detail {
template <class T>
inline constexpr bool kIsFloatElem = std::is_same_v<T, float> || std::is_same_v<T, tilefw::half>;

template <class T>
constexpr T negated(T v) noexcept {
  if constexpr (std::is_same_v<T, tilefw::half>) {
    return tilefw::half::from_bits(static_cast<uint16_t>(v.bits ^ 0x8000u));
  } else {
    return -v;
  }
}
}  // namespace detail

/// TSUBS(dst, src, scalar): dst = src - scalar, issued as TADDS of the negated scalar (IEEE
/// subtraction is the addition of the negation, so the bits agree for every scalar but a NaN).
/// Floating-point tiles only (an integer scalar's negation can overflow).
template <class D, class A, class S, class... E>
RecordEvent TSUBS(D& dst, A& src, S scalar, const E&... events) noexcept {
  static_assert(detail::kIsFloatElem<typename D::DType>, "Fix: TSUBS takes half or float tiles");
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TSUBS", kNames, dst, src)) return {};
  const auto v = detail::negated(detail::scalar_as<typename D::DType>(scalar));
  return detail::issue(*c, "TSUBS", detail::accesses(dst, src), PTO_CALL(TADDS, dst, src, v), events...);
}

/// TNEG(dst, src): dst = -src, issued as TMULS by -1 (exact for every value but a NaN, whose
/// sign the multiplication need not flip). Floating-point tiles only.
template <class D, class A, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TNEG(D& dst, A& src, const E&... events) noexcept {
  static_assert(detail::kIsFloatElem<typename D::DType>, "Fix: TNEG takes half or float tiles");
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TNEG", kNames, dst, src)) return {};
  const auto v = detail::scalar_as<typename D::DType>(-1.0f);
  return detail::issue(*c, "TNEG", detail::accesses(dst, src), PTO_CALL(TMULS, dst, src, v), events...);
}

/// TEXPANDS(dst, scalar).
template <class D, class S, class... E>
RecordEvent TEXPANDS(D& dst, S scalar, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TEXPANDS", kNames, dst)) return {};
  const auto v = detail::scalar_as<typename D::DType>(scalar);
  return detail::issue(*c, "TEXPANDS", detail::accesses(dst, v), PTO_CALL(TEXPANDS, dst, v), events...);
}

/// PTO's rounding spellings, in tilefw's order (none, rint, round, floor, ceil, trunc, odd).
enum class RoundMode : uint8_t { CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };

/// TCVT(dst, src, mode).
template <class D, class A, class... E>
RecordEvent TCVT(D& dst, A& src, RoundMode mode, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TCVT", kNames, dst, src)) return {};
  const auto m = static_cast<tilefw::desc::RoundMode>(mode);
  return detail::issue(*c, "TCVT", detail::accesses(dst, src, m), PTO_CALL(TCVT, dst, src, m), events...);
}

// ---- data movement ---------------------------------------------------------------------------------
/// TLOAD(tile, tensor): GM -> Vec / Mat tile on MTE2.
template <class T, class G, class... E>
RecordEvent TLOAD(T& dst, G& src, const E&... events) noexcept {
  static_assert(detail::kIsGlobal<std::remove_cv_t<G>>, "Fix: TLOAD's source is a pto::GlobalTensor");
  static constexpr const char* kNames[] = {"dst"};
  Context* c = detail::usable();
  tilefw::tile::GlobalTensor<typename G::DType> g;
  if (c == nullptr || !detail::place_all(*c, "TLOAD", kNames, dst) || !detail::gm_view(*c, "TLOAD", "src", src, g)) {
    return {};
  }
  return detail::issue(*c, "TLOAD", detail::accesses(dst, g), PTO_CALL(TLOAD, dst, g), events...);
}

/// TSTORE(tensor, tile): Vec tile -> GM on MTE3, Acc tile -> GM on FIX.
template <class G, class T, class... E>
RecordEvent TSTORE(G& dst, T& src, const E&... events) noexcept {
  static_assert(detail::kIsGlobal<std::remove_cv_t<G>>, "Fix: TSTORE's destination is a pto::GlobalTensor");
  static constexpr const char* kNames[] = {"src"};
  Context* c = detail::usable();
  tilefw::tile::GlobalTensor<typename G::DType> g;
  if (c == nullptr || !detail::place_all(*c, "TSTORE", kNames, src) || !detail::gm_view(*c, "TSTORE", "dst", dst, g)) {
    return {};
  }
  return detail::issue(*c, "TSTORE", detail::accesses(g, src), PTO_CALL(TSTORE, g, src), events...);
}

/// TMOV(dst, src): Mat -> Left / Right / Bias (MTE1), Acc -> Vec (FIX).
template <class D, class S, class... E>
RecordEvent TMOV(D& dst, S& src, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"dst", "src"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TMOV", kNames, dst, src)) return {};
  return detail::issue(*c, "TMOV", detail::accesses(dst, src), PTO_CALL(TMOV, dst, src), events...);
}

// ---- matrix ------------------------------------------------------------------------------------------
template <class C, class A, class B, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TMATMUL(C& c_out, A& a, B& b, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"c", "a", "b"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TMATMUL", kNames, c_out, a, b)) return {};
  return detail::issue(*c, "TMATMUL", detail::accesses(c_out, a, b),
      PTO_CALL(TMATMUL, c_out, a, b), events...);
}

/// TMATMUL_ACC(c, a, b): c += a x b.
template <class C, class A, class B, class... E>
  requires detail::kAllEvents<E...>
RecordEvent TMATMUL_ACC(C& c_out, A& a, B& b, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"c", "a", "b"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TMATMUL_ACC", kNames, c_out, a, b)) return {};
  return detail::issue(*c, "TMATMUL_ACC", detail::accesses(c_out, a, b),
      PTO_CALL(TMATMUL_ACC, c_out, a, b), events...);
}

/// TMATMUL_ACC(c_out, c_in, a, b): PTO's four-operand form; tilefw accumulates in place, so
/// c_out and c_in must be the same tile (invalid_argument naming c_in otherwise).
template <class C, class A, class B, class... E>
  requires detail::kIsTile<B> && detail::kAllEvents<E...>
RecordEvent TMATMUL_ACC(C& c_out, C& c_in, A& a, B& b, const E&... events) noexcept {
  Context* c = detail::usable();
  if (c == nullptr) return {};
  if (&c_out != &c_in) {
    detail::fail(*c, "TMATMUL_ACC", tilefw::Status::invalid_argument, "c_in");
    return {};
  }
  return TMATMUL_ACC(c_out, a, b, events...);
}

/// TMATMUL_BIAS(c, a, b, bias): c = bias + a x b.
template <class C, class A, class B, class Z, class... E>
RecordEvent TMATMUL_BIAS(C& c_out, A& a, B& b, Z& bias, const E&... events) noexcept {
  static constexpr const char* kNames[] = {"c", "a", "b", "bias"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TMATMUL_BIAS", kNames, c_out, a, b, bias)) return {};
  return detail::issue(*c, "TMATMUL_BIAS", detail::accesses(c_out, a, b, bias),
      PTO_CALL(TMATMUL_BIAS, c_out, a, b, bias), events...);
}

#undef PTO_CALL

}  // namespace pto
