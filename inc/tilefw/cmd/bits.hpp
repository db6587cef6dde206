// Bit-field access for SG2260 commands: little-endian bit offsets (bit i is bit i % 8 of byte
// i / 8) and fields that never straddle a 64-bit word, so a read is one word load plus a shift.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tilefw::cmd {

/// One named field of a command layout: `name@bit:width` as docs/sg2260-commands.md writes it
/// (section 1).
struct FieldDesc {
  const char* name;
  uint16_t bit;
  uint8_t width;
};

namespace detail {
/// Unsigned type wide enough for a field of `W` bits (uint32_t up to 32, else uint64_t).
template <unsigned W>
using UInt = std::conditional_t<(W <= 32), uint32_t, uint64_t>;

constexpr uint64_t field_mask(unsigned width) noexcept {
  return width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
}
}  // namespace detail

/// Loads the little-endian 64-bit word `index` (bytes 8*index .. 8*index+7) of a command.
[[gnu::always_inline]] constexpr inline uint64_t load_word(const uint8_t* p, unsigned index) noexcept {
  const uint8_t* w = p + size_t{index} * 8;
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little) {
    // One unaligned load: the byte loop below is not folded into a load by GCC 12 here, and
    // field reads dominate decode + validate time (bench_cmd).
    uint64_t v;
    __builtin_memcpy(&v, w, sizeof v);
    return v;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; ++i) v |= uint64_t{w[i]} << (8 * i);
  return v;
}

/// Reads `width` bits at little-endian bit offset `bit`. Precondition: the field lies in one
/// 64-bit word that is inside the command (checked for every layout table at compile time).
[[gnu::always_inline]] constexpr inline uint64_t read_field(const uint8_t* p, unsigned bit, unsigned width) noexcept {
  return (load_word(p, bit / 64) >> (bit % 64)) & detail::field_mask(width);
}

/// Writes the low `width` bits of `value` at bit offset `bit`; other bits are kept. Bits of
/// `value` above `width` are dropped (use `field_fits` first when that matters).
/// Precondition as for read_field: the field's 64-bit word lies inside the command (every
/// command and HAU record is a multiple of 8 bytes long), so the word is loaded, merged and
/// stored whole: one load and one store instead of a loop over the field's bytes (the
/// generator's command emission is mostly field writes, and it runs on the control core).
[[gnu::always_inline]] constexpr inline void write_field(uint8_t* p, unsigned bit, unsigned width, uint64_t value) noexcept {
  const uint64_t mask = detail::field_mask(width);
  value &= mask;
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little && bit % 32 + width <= 32) {
    // Inside one 32-bit half: a 32-bit core (the control core) does it in one load and store.
    uint8_t* w = p + size_t{bit / 32} * 4;
    uint32_t v;
    __builtin_memcpy(&v, w, sizeof v);
    const unsigned shift = bit % 32;
    const uint32_t m32 = static_cast<uint32_t>(mask) << shift;
    v = (v & ~m32) | (static_cast<uint32_t>(value) << shift);
    __builtin_memcpy(w, &v, sizeof v);
    return;
  }
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little && bit % 64 + width <= 64) {
    uint8_t* w = p + size_t{bit / 64} * 8;
    uint64_t v;
    __builtin_memcpy(&v, w, sizeof v);
    const unsigned shift = bit % 64;
    v = (v & ~(mask << shift)) | (value << shift);
    __builtin_memcpy(w, &v, sizeof v);
    return;
  }
  for (unsigned i = 0; i < width;) {
    const unsigned b = bit + i;
    const unsigned in_byte = b % 8;
    const unsigned n = (8 - in_byte) < (width - i) ? (8 - in_byte) : (width - i);
    const uint8_t m = static_cast<uint8_t>(((1u << n) - 1) << in_byte);
    const uint8_t v = static_cast<uint8_t>(((value >> i) << in_byte) & m);
    p[b / 8] = static_cast<uint8_t>((p[b / 8] & ~m) | v);
    i += n;
  }
}

constexpr uint64_t read_field(const uint8_t* p, const FieldDesc& f) noexcept {
  return read_field(p, f.bit, f.width);
}
constexpr void write_field(uint8_t* p, const FieldDesc& f, uint64_t value) noexcept {
  write_field(p, f.bit, f.width, value);
}
/// True when `value` is representable in the field.
constexpr bool field_fits(const FieldDesc& f, uint64_t value) noexcept {
  return (value & ~detail::field_mask(f.width)) == 0;
}

/// True when every field of a layout lies inside `bytes` and inside one 64-bit word, and no two
/// fields share a bit (used in static_asserts on every layout table).
template <size_t N>
constexpr bool layout_is_sound(const FieldDesc (&fields)[N], size_t bytes) noexcept {
  for (size_t i = 0; i < N; ++i) {
    const FieldDesc& f = fields[i];
    if (f.width == 0 || f.width > 64) return false;
    if ((f.bit % 64) + f.width > 64) return false;
    if (size_t{f.bit} + f.width > bytes * 8) return false;
    for (size_t j = i + 1; j < N; ++j) {
      const FieldDesc& g = fields[j];
      if (f.bit < g.bit + g.width && g.bit < f.bit + f.width) return false;
    }
  }
  return true;
}

}  // namespace tilefw::cmd
