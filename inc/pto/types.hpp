// PTO's type spellings over tilefw's tile types: pto::Tile is tilefw::tile::Tile (the same class,
// so a PTO kernel and a tile-API kernel share tiles), with PTO's element spellings mapped to
// tilefw's (a compiler's _Float16 to tilefw::half, which has the same bits). Core header: no
// heap, no exceptions, builds for Cortex-M.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/tile/tile.hpp"

// The qualifiers of PTO's device build are empty here, as in PTO's CPU build: a kernel written
// for the device compiles unchanged.
#ifndef AICORE
#define AICORE
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __in__
#define __in__
#endif
#ifndef __out__
#define __out__
#endif

// Whether the compiler's _Float16 is usable in C++: GCC on x86 and AArch64 (GCC for 32-bit Arm
// defines __FLT16_MAX__ for C but has no _Float16 type in C++). A build may decide with
// -DTILEFW_PTO_NATIVE_HALF=0 or 1.
#ifndef TILEFW_PTO_NATIVE_HALF
#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define TILEFW_PTO_NATIVE_HALF 1
#else
#define TILEFW_PTO_NATIVE_HALF 0
#endif
#endif

namespace pto {

using tilefw::tile::BLayout;
using tilefw::tile::DYNAMIC;
using tilefw::tile::PadValue;
using tilefw::tile::SLayout;
using tilefw::tile::TileType;

/// PTO's element spellings. `half` is the compiler's IEEE binary16 where it has one (as in
/// PTO's CPU build), else tilefw's bit container.
#if TILEFW_PTO_NATIVE_HALF
using half = _Float16;
inline constexpr bool kHalfIsNative = true;
#else
using half = tilefw::half;
inline constexpr bool kHalfIsNative = false;
#endif
using bfloat16_t = tilefw::bf16;

/// PTO's TileConfig constants.
struct TileConfig {
  static constexpr int fractalABSize = tilefw::tile::kFractalABSize;
  static constexpr int fractalCSize = tilefw::tile::kFractalCSize;
  static constexpr int fractalMxSize = tilefw::tile::kFractalMxSize;
  /// Row bytes of an unboxed row-major tile are a multiple of this.
  static constexpr int alignedSize = 32;
};

namespace detail {
/// The tilefw element type a PTO element type names.
template <class T>
struct Elem {
  using type = T;
};
#if TILEFW_PTO_NATIVE_HALF
template <>
struct Elem<_Float16> {
  using type = tilefw::half;
};
#endif
template <class T>
using elem_t = typename Elem<std::remove_cv_t<T>>::type;

/// A scalar operand in the tile's element type: a native binary16 keeps its bits.
template <class Want, class S>
constexpr Want scalar_as(S v) noexcept {
  if constexpr (std::is_same_v<Want, S>) {
    return v;
  } else if constexpr (std::is_same_v<Want, tilefw::half>) {
#if TILEFW_PTO_NATIVE_HALF
    return tilefw::half::from_bits(std::bit_cast<uint16_t>(static_cast<_Float16>(v)));
#else
    static_assert(std::is_same_v<Want, S>, "Fix: a half tile takes a half scalar");
    return Want{};
#endif
  } else {
    return static_cast<Want>(v);
  }
}

template <class T>
inline constexpr bool kIsTile = false;
template <TileType L, class E, int R, int C, BLayout B, int RV, int CV, SLayout S, int F, PadValue P>
inline constexpr bool kIsTile<tilefw::tile::Tile<L, E, R, C, B, RV, CV, S, F, P>> = true;
}  // namespace detail

/// pto::Tile<Loc, Element, Rows, Cols, BLayout, RowValid, ColValid, SLayout, SFractalSize,
/// PadValue>: tilefw's Tile with PTO's element spellings; every layout rule is its static_assert.
template <TileType Loc_, class Element_, int Rows_, int Cols_, BLayout BLayout_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SLayout_ = SLayout::NoneBox,
          int SFractalSize_ = TileConfig::fractalABSize, PadValue PadValue_ = PadValue::Null>
using Tile = tilefw::tile::Tile<Loc_, detail::elem_t<Element_>, Rows_, Cols_, BLayout_, RowValid_, ColValid_,
                                SLayout_, SFractalSize_, PadValue_>;

/// The matrix-engine aliases. TileLeft follows the build's profile as PTO's does its
/// architecture's: Zz (row-major boxes) on a2a3, Nz (column-major boxes) on A5.
template <class T, int R, int C, int VR = R, int VC = C>
using TileLeft = tilefw::tile::TileLeft<detail::elem_t<T>, R, C, VR, VC>;
template <class T, int R, int C, int VR = R, int VC = C>
using TileRight = tilefw::tile::TileRight<detail::elem_t<T>, R, C, VR, VC>;
template <class T, int R, int C, int VR = R, int VC = C>
using TileAcc = tilefw::tile::TileAcc<detail::elem_t<T>, R, C, VR, VC>;

}  // namespace pto
