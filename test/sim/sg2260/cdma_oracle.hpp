// Independent reference for the CDMA data path of the multi-chip simulator, written from the
// rules of docs/sg2260-commands.md section 13.6 (Rule: CDMA pairing, Rule: CDMA reduce) without
// reading the simulator: the element walk of a send or recv (row-major n, c, h, w over its own
// sizes, strides in elements, w contiguous) and the element-wise reduce in the pair's format.
// Arithmetic is done another way than a simulator would naturally do it: FP16 and BF16 values
// are combined exactly in double and rounded once (double rounding is harmless here: 53 >=
// 2p + 2 for p = 11 and 8), FP16 rounding by the compiler's _Float16, BF16 by bit arithmetic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cdma_oracle {

enum Format : uint32_t { kInt8 = 0, kFp16 = 1, kFp32 = 2, kInt16 = 3, kInt32 = 4, kBf16 = 5 };
enum Op : uint32_t { kNone = 0, kMul = 1, kMax = 2, kMin = 3, kAdd = 4 };

inline uint32_t element_bytes(uint32_t f) {
  return f == kFp32 || f == kInt32 ? 4 : f == kInt8 ? 1 : 2;
}

/// Byte offsets (from the start address) of the elements of an (n, c, h, w) walk with element
/// strides, in the order element k of a send meets element k of its recv.
inline std::vector<uint64_t> walk(uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint64_t nstride, uint64_t cstride,
                                  uint64_t hstride, uint32_t format) {
  std::vector<uint64_t> out;
  out.reserve(uint64_t{n} * c * h * w);
  const uint64_t es = element_bytes(format);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t j = 0; j < c; ++j)
      for (uint64_t k = 0; k < h; ++k)
        for (uint64_t l = 0; l < w; ++l) out.push_back((i * nstride + j * cstride + k * hstride + l) * es);
  return out;
}

inline double half_value(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<double>(h);
}
inline uint16_t half_bits(double v) {  // one rounding, to nearest even
  const _Float16 h = static_cast<_Float16>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
inline double bf16_value(uint16_t bits) {
  const uint32_t u = uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t bf16_bits(double v) {
  // `v` is a sum or product of two bf16 values, rounded to double (53 bits), then to float
  // here (24 bits), then to 8 bits below. Each step keeps at least 2p + 2 bits of the next
  // (53 >= 2 x 24 + 2, 24 >= 2 x 8 + 2), so the result is the exact value rounded once.
  if (std::isnan(v)) return 0x7FC0;
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7F800000u) == 0x7F800000u) return static_cast<uint16_t>(u >> 16);  // inf
  const uint32_t lsb = (u >> 16) & 1u;
  u += 0x7FFFu + lsb;
  return static_cast<uint16_t>(u >> 16);
}
inline float f32_value(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// max/min on two values of one float format: a quiet NaN when either is NaN, +0 above -0.
template <typename T>
inline T pick(Op op, T a, T b, bool& nan) {
  nan = std::isnan(a) || std::isnan(b);
  if (nan) return a;
  if (a == b && a == 0) {
    const bool a_neg = std::signbit(a);
    if (op == kMax) return a_neg ? b : a;
    return a_neg ? a : b;
  }
  return op == kMax ? (a > b ? a : b) : (a < b ? a : b);
}

/// The element `dst` becomes when `in` arrives with reduce `op` in `format` (raw bits, low
/// bytes used). `nan` tells the caller the result is some quiet NaN (the rule fixes no
/// payload): compare NaN-ness, not bits, then.
inline uint32_t reduce(uint32_t format, uint32_t op, uint32_t dst, uint32_t in, bool& nan) {
  nan = false;
  if (op == kNone) return in;
  switch (format) {
    case kInt32: {
      const int32_t a = static_cast<int32_t>(dst), b = static_cast<int32_t>(in);
      if (op == kAdd) return static_cast<uint32_t>(static_cast<uint64_t>(dst) + in);  // wraps
      if (op == kMax) return static_cast<uint32_t>(a > b ? a : b);
      if (op == kMin) return static_cast<uint32_t>(a < b ? a : b);
      return static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(a) * b));
    }
    case kFp32: {
      const float a = f32_value(dst), b = f32_value(in);
      if (op == kAdd) return f32_bits(a + b);
      if (op == kMul) return f32_bits(a * b);
      const float r = pick(static_cast<Op>(op), a, b, nan);
      return f32_bits(r);
    }
    case kFp16:
    case kBf16: {
      const bool half = format == kFp16;
      const double a = half ? half_value(static_cast<uint16_t>(dst)) : bf16_value(static_cast<uint16_t>(dst));
      const double b = half ? half_value(static_cast<uint16_t>(in)) : bf16_value(static_cast<uint16_t>(in));
      double r;
      if (op == kAdd) {
        r = a + b;
      } else if (op == kMul) {
        r = a * b;
      } else {
        r = pick(static_cast<Op>(op), a, b, nan);
        if (nan) return half ? 0x7E00u : 0x7FC0u;             // some quiet NaN (nan stays set)
        return half ? half_bits(r) : bf16_bits(r);            // exact: one of the inputs
      }
      nan = std::isnan(r);
      return half ? half_bits(r) : bf16_bits(r);
    }
    default: return in;  // INT8 / INT16 take no reduce (validation refuses one)
  }
}

inline uint32_t load(const uint8_t* p, uint32_t format) {
  uint32_t v = 0;
  std::memcpy(&v, p, element_bytes(format));
  return v;
}
inline void store(uint8_t* p, uint32_t format, uint32_t v) { std::memcpy(p, &v, element_bytes(format)); }

}  // namespace cdma_oracle
