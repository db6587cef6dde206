// DType: element types the two chip families move and compute on, with their sizes and the
// compile-time mapping from C++ element types (int16_t, half, float, ...) to DType.
#pragma once

#include <cstdint>

#include "tilefw/base/float16.hpp"

namespace tilefw {

enum class DType : uint8_t {
  f16,
  bf16,
  f32,
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
};

inline constexpr DType kAllDTypes[] = {DType::f16, DType::bf16, DType::f32, DType::i8, DType::u8,
                                       DType::i16, DType::u16,  DType::i32, DType::u32};

namespace detail {
// Element sizes, 4 bits per DType value in enum order: one shift and mask instead of a jump
// table (dtype_size sits on issue_once's hot path).
inline constexpr uint64_t kDTypeSizes = uint64_t{2} << 0 |   // f16
                                        uint64_t{2} << 4 |   // bf16
                                        uint64_t{4} << 8 |   // f32
                                        uint64_t{1} << 12 |  // i8
                                        uint64_t{1} << 16 |  // u8
                                        uint64_t{2} << 20 |  // i16
                                        uint64_t{2} << 24 |  // u16
                                        uint64_t{4} << 28 |  // i32
                                        uint64_t{4} << 32;   // u32
}  // namespace detail

/// Bytes per element; 0 for a value outside the enum.
constexpr uint32_t dtype_size(DType t) noexcept {
  const uint32_t i = static_cast<uint32_t>(t);
  return i <= static_cast<uint32_t>(DType::u32) ? static_cast<uint32_t>((detail::kDTypeSizes >> (4 * i)) & 0xFu) : 0;
}
static_assert(dtype_size(DType::f16) == 2 && dtype_size(DType::bf16) == 2 && dtype_size(DType::f32) == 4 &&
              dtype_size(DType::i8) == 1 && dtype_size(DType::u8) == 1 && dtype_size(DType::i16) == 2 &&
              dtype_size(DType::u16) == 2 && dtype_size(DType::i32) == 4 && dtype_size(DType::u32) == 4 &&
              dtype_size(static_cast<DType>(9)) == 0);

constexpr bool dtype_is_float(DType t) noexcept {
  return t == DType::f16 || t == DType::bf16 || t == DType::f32;
}

/// Name as conformance case files spell it (docs/cli.md section 4.2): "f16", "bf16", "f32", "i8",
/// ...
constexpr const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i16: return "i16";
    case DType::u16: return "u16";
    case DType::i32: return "i32";
    case DType::u32: return "u32";
  }
  return "?";
}

template <typename T>
struct DTypeOf;  // undefined for types the hardware has no element format for
template <> struct DTypeOf<half> { static constexpr DType value = DType::f16; };
template <> struct DTypeOf<bf16> { static constexpr DType value = DType::bf16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::f32; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::i8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::i16; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::u16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::i32; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::u32; };

/// dtype_of<float> == DType::f32, ...
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace tilefw
