// Bit-exact 16-bit floating-point formats: IEEE binary16 (`half`) and bfloat16 (`bf16`),
// with conversions to and from float in two rounding modes, all constexpr and table-free.
#pragma once

#include <bit>
#include <cstdint>

namespace tilefw {

/// How a conversion to a narrower format rounds. The a2a3 vector unit and IEEE use
/// nearest-even; the SG2260 cast also offers half-away-from-zero (round mode 1).
enum class RoundMode : uint8_t {
  nearest_even = 0,
  half_away_from_zero = 1,
};

/// IEEE 754 binary16, stored as its bit pattern. Trivially copyable; no implicit arithmetic,
/// so every rounding step in the simulator is explicit.
struct half {
  uint16_t bits = 0;
  static constexpr half from_bits(uint16_t b) noexcept { return half{b}; }
  friend constexpr bool operator==(half a, half b) noexcept { return a.bits == b.bits; }
};

/// bfloat16 (the upper half of a binary32), stored as its bit pattern.
struct bf16 {
  uint16_t bits = 0;
  static constexpr bf16 from_bits(uint16_t b) noexcept { return bf16{b}; }
  friend constexpr bool operator==(bf16 a, bf16 b) noexcept { return a.bits == b.bits; }
};

namespace fp16_detail {

// Rounds `value >> shift` (shift >= 1) to an integer by `mode`; the caller handles the carry.
constexpr uint32_t shift_round(uint32_t value, uint32_t shift, RoundMode mode) noexcept {
  const uint32_t kept = shift >= 32 ? 0u : value >> shift;
  const uint32_t rest = shift >= 32 ? value : value & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  bool up = false;
  if (mode == RoundMode::nearest_even) {
    up = rest > halfway || (rest == halfway && (kept & 1u) != 0);
  } else {
    up = rest >= halfway;
  }
  return kept + (up ? 1u : 0u);
}

}  // namespace fp16_detail

/// binary32 bits -> binary16 bits. NaNs stay NaN with the quiet bit set and the top payload
/// bits kept (as GCC's _Float16 conversion does); overflow gives infinity; subnormal results
/// are produced (a2a3 hardware keeps subnormals, docs/a2a3-vector-semantics.md section 6.2).
constexpr uint16_t float_bits_to_half_bits(uint32_t f,
                                           RoundMode mode = RoundMode::nearest_even) noexcept {
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {
    if (abs == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs & 0x7FFFFFu) >> 13));
  }
  if (abs >= 0x38800000u) {  // result is normal or overflows: |x| >= 2^-14
    // Rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry out of the mantissa
    // correctly increments the exponent, up to infinity (0x7C00).
    const uint32_t rebased = abs - ((127u - 15u) << 23);
    const uint32_t rounded = fp16_detail::shift_round(rebased, 13, mode);
    return static_cast<uint16_t>(sign | (rounded >= 0x7C00u ? 0x7C00u : rounded));
  }
  // Subnormal (or zero) result: value = mant * 2^(exp-150); half subnormal unit is 2^-24.
  const uint32_t exp = abs >> 23;
  if (exp < 102) {  // |x| < 2^-25: rounds to zero in both modes (2^-25 itself is exp 102)
    return static_cast<uint16_t>(sign);
  }
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  const uint32_t rounded = fp16_detail::shift_round(mant, 126u - exp, mode);
  return static_cast<uint16_t>(sign | rounded);  // a carry into 0x400 is the smallest normal
}

/// binary16 bits -> binary32 bits (exact; NaNs are quieted, payload kept).
constexpr uint32_t half_bits_to_float_bits(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) {
    if (mant == 0) return sign | 0x7F800000u;
    return sign | 0x7FC00000u | (mant << 13);
  }
  if (exp != 0) return sign | ((exp + 127u - 15u) << 23) | (mant << 13);
  if (mant == 0) return sign;
  // Subnormal half: normalise. value = mant * 2^-24.
  uint32_t m = mant;
  uint32_t e = 127u - 15u + 1u;
  while ((m & 0x400u) == 0) {
    m <<= 1;
    --e;
  }
  return sign | (e << 23) | ((m & 0x3FFu) << 13);
}

/// binary32 bits -> bfloat16 bits. NaNs stay NaN (quiet bit set, top payload kept).
constexpr uint16_t float_bits_to_bf16_bits(uint32_t f,
                                           RoundMode mode = RoundMode::nearest_even) noexcept {
  const uint32_t abs = f & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>((f >> 16) | 0x0040u);
  // Rounding the low 16 bits may carry into the exponent and up to infinity, as it should.
  const uint32_t sign = f & 0x80000000u;
  const uint32_t rounded = fp16_detail::shift_round(abs, 16, mode);
  return static_cast<uint16_t>((sign >> 16) | rounded);
}

/// bfloat16 bits -> binary32 bits (exact).
constexpr uint32_t bf16_bits_to_float_bits(uint16_t b) noexcept {
  return static_cast<uint32_t>(b) << 16;
}

constexpr half to_half(float f, RoundMode mode = RoundMode::nearest_even) noexcept {
  return half{float_bits_to_half_bits(std::bit_cast<uint32_t>(f), mode)};
}
constexpr float to_float(half h) noexcept {
  return std::bit_cast<float>(half_bits_to_float_bits(h.bits));
}
constexpr bf16 to_bf16(float f, RoundMode mode = RoundMode::nearest_even) noexcept {
  return bf16{float_bits_to_bf16_bits(std::bit_cast<uint32_t>(f), mode)};
}
constexpr float to_float(bf16 b) noexcept {
  return std::bit_cast<float>(bf16_bits_to_float_bits(b.bits));
}

}  // namespace tilefw
