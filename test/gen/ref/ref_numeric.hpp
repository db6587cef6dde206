// Number formats of the generator's tensors, decoded to double, and the rounding constants the
// error bound uses. Independent of the generator and the simulator on purpose (test oracle).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gref {

// Bad usage, unreadable file, missing tensor or key: exit 2 with this message.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// i32: token ids (input_ids, next_token of a whole-model manifest); never a model dtype.
enum class DType { f32, f16, bf16, i32 };

inline DType parse_dtype(const std::string& s, const std::string& what) {
    if (s == "f32" || s == "float32") return DType::f32;
    if (s == "f16" || s == "float16") return DType::f16;
    if (s == "bf16" || s == "bfloat16") return DType::bf16;
    if (s == "i32" || s == "int32" || s == "s32") return DType::i32;
    throw UsageError(what + ": unknown dtype '" + s + "'");
}

inline const char* dtype_name(DType d) {
    return d == DType::f32 ? "f32" : d == DType::f16 ? "f16" : d == DType::i32 ? "i32" : "bf16";
}

inline std::size_t dtype_bytes(DType d) { return d == DType::f32 || d == DType::i32 ? 4 : 2; }

// Precision p (significand bits including the hidden one) and minimum normal exponent.
inline int dtype_precision(DType d) { return d == DType::f32 ? 24 : d == DType::f16 ? 11 : 8; }
inline int dtype_emin(DType d) { return d == DType::f16 ? -14 : -126; }

// Unit roundoff u = 2^-p: |fl(x) - x| <= u |x| for x in the normal range, round to nearest.
// (bf16: 2^-8, f16: 2^-11, f32: 2^-24.)
inline double unit_roundoff(DType d) { return std::ldexp(1.0, -dtype_precision(d)); }

// Absolute rounding error in the subnormal range: half the smallest subnormal, 2^(emin - p).
inline double subnormal_eta(DType d) { return std::ldexp(1.0, dtype_emin(d) - dtype_precision(d)); }

// Half an ulp of the format at magnitude |x| (the largest error of rounding x to nearest).
inline double half_ulp(DType d, double x) {
    double ax = std::fabs(x);
    double floor_eta = subnormal_eta(d);
    if (ax == 0.0 || !std::isfinite(ax)) return floor_eta;
    int ex = 0;
    std::frexp(ax, &ex);  // ax = m 2^ex, m in [0.5, 1): binade 2^(ex-1)
    double h = std::ldexp(1.0, ex - 1 - dtype_precision(d));
    return h > floor_eta ? h : floor_eta;
}

inline double decode_f16(std::uint16_t h) {
    int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0) v = std::ldexp(static_cast<double>(man), -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
    return sign ? -v : v;
}

inline double decode_bf16(std::uint16_t h) {
    std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline double decode_f32(const unsigned char* p) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
}

// Element i of a little-endian buffer in format d.
inline double decode_at(DType d, const unsigned char* base, std::size_t i) {
    if (d == DType::f32) return decode_f32(base + 4 * i);
    if (d == DType::i32) {
        std::uint32_t u = static_cast<std::uint32_t>(base[4 * i]) | (static_cast<std::uint32_t>(base[4 * i + 1]) << 8) |
                          (static_cast<std::uint32_t>(base[4 * i + 2]) << 16) |
                          (static_cast<std::uint32_t>(base[4 * i + 3]) << 24);
        std::int32_t v;
        std::memcpy(&v, &u, 4);
        return v;
    }
    std::uint16_t h = static_cast<std::uint16_t>(base[2 * i] | (base[2 * i + 1] << 8));
    return d == DType::f16 ? decode_f16(h) : decode_bf16(h);
}

}  // namespace gref
