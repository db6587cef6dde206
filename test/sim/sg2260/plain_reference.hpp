// Plain reference helpers for the SG2260 simulator class tests: element encodings written
// independently of the simulator (FP8 by brute force over the 256 codes, f16 by the
// compiler's _Float16, bf16 by bit rounding) and the LMEM lane rule as the spec states it
// (channel c of an operand starting at lane L lives on lane (L + c) % 64, its wrap index
// (L + c) / 64 steps by the channel stride; alignEU: each channel's h*w padded to 64 bytes).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "machine.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace simref {

namespace sg = tilefw::chip::sg2260;

enum Prec : uint32_t { kI8 = 0, kF16 = 1, kF32 = 2, kI16 = 3, kI32 = 4, kBf16 = 5, kFp8 = 7 };

inline uint32_t esize(uint32_t prec) { return prec == kF32 || prec == kI32 ? 4 : prec == kF16 || prec == kI16 || prec == kBf16 ? 2 : 1; }

// FP8 value of a code: E4M3 (bias 7, S.1111.111 NaN, no inf) or E5M2 (bias 15, IEEE).
inline double fp8_value(uint8_t code, bool e4m3) {
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int ef = (code & 0x7F) >> mbits, m = code & ((1 << mbits) - 1);
  const double s = code & 0x80 ? -1 : 1;
  if (e4m3 && (code & 0x7F) == 0x7F) return NAN;
  if (!e4m3 && ef == 31) return m ? NAN : s * INFINITY;
  const double frac = ef == 0 ? m / double(1 << mbits) : 1 + m / double(1 << mbits);
  return s * std::ldexp(frac, (ef == 0 ? 1 : ef) - bias);
}
// Nearest finite code, ties to the even code (brute force); above the top: E5M2 inf, E4M3 NaN.
inline uint8_t fp8_code(double v, bool e4m3) {
  if (std::isnan(v)) return e4m3 ? 0x7F : 0x7E;
  int best = -1;
  double bd = INFINITY;
  for (int c = 0; c < 256; ++c) {
    const double x = fp8_value(static_cast<uint8_t>(c), e4m3);
    if (!std::isfinite(x) || (x == 0 && std::signbit(x) != std::signbit(v))) continue;
    const double d = std::fabs(x - v);
    if (d < bd || (d == bd && (c & 1) == 0)) { bd = d; best = c; }
  }
  // half an ulp above the top: E4M3's top (448) has an even mantissa and keeps the tie,
  // E5M2's (57344) an odd one and loses it
  const double a = std::fabs(v);
  if (e4m3 ? a > 464 : a >= 61440) {
    return static_cast<uint8_t>((v < 0 ? 0x80 : 0) | (e4m3 ? 0x7F : 0x7C));
  }
  return static_cast<uint8_t>(best);
}

inline uint16_t bf16_bits(float f) {  // RNE from float
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>((b + 0x7FFF + ((b >> 16) & 1)) >> 16);
}
inline float bf16_value(uint16_t h) {
  const uint32_t b = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// Stores `v` (exactly representable, or rounded once to nearest even) as an element.
inline void put(uint8_t* p, uint32_t prec, bool sign, double v) {
  switch (prec) {
    case kF32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    case kF16: { const _Float16 h = static_cast<_Float16>(v); std::memcpy(p, &h, 2); return; }
    case kBf16: { const uint16_t b = bf16_bits(static_cast<float>(v)); std::memcpy(p, &b, 2); return; }
    case kFp8: *p = fp8_code(v, sign); return;
    default: { const int64_t i = static_cast<int64_t>(v); std::memcpy(p, &i, esize(prec)); return; }
  }
}
inline double get(const uint8_t* p, uint32_t prec, bool sign) {
  switch (prec) {
    case kF32: { float f; std::memcpy(&f, p, 4); return f; }
    case kF16: { _Float16 h; std::memcpy(&h, p, 2); return static_cast<float>(h); }
    case kBf16: { uint16_t b; std::memcpy(&b, p, 2); return bf16_value(b); }
    case kFp8: return fp8_value(*p, sign);
    case kI8: return sign ? double(int8_t(*p)) : double(*p);
    case kI16: { int16_t i; std::memcpy(&i, p, 2); return sign ? i : double(uint16_t(i)); }
    default: { int32_t i; std::memcpy(&i, p, 4); return sign ? i : double(uint32_t(i)); }
  }
}

/// A 4-D operand in one core's LMEM: start lane, in-lane offset, alignEU strides.
struct Placed {
  tilefw::port::host::Machine& m;
  uint32_t lane0, off, prec;
  bool sign;
  uint64_t c, h, w;
  uint64_t cstride() const { const uint64_t eu = 64 / esize(prec); return (h * w + eu - 1) / eu * eu; }
  uint64_t nstride() const { return (lane0 + c + 63) / 64 * cstride(); }
  uint8_t* at(uint64_t n, uint64_t ch, uint64_t y, uint64_t x) const {
    const uint64_t lane = lane0 + ch;
    const uint64_t e = n * nstride() + (lane / 64) * cstride() + y * w + x;
    return m.translate(sg::lmem_region(0).device_base + (lane % 64) * sg::kLaneBytes + off + e * esize(prec), 1).value();
  }
  uint32_t local() const { return (lane0 << 18) | off; }
};

/// Deterministic test values: small multiples of 1/8 (exact in every float format here).
struct Lcg {
  uint64_t s;
  int next(int lo, int hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + static_cast<int>((s >> 33) % static_cast<uint64_t>(hi - lo + 1));
  }
};

// A window problem in logical form.
struct Win {
  uint64_t ic = 1, ih = 1, iw = 1, oc = 1, kh = 1, kw = 1;
  uint32_t pu = 0, pd = 0, pl = 0, pr = 0, sh = 1, sw = 1, insh = 0, insw = 0, dh = 1, dw = 1;
  bool rotate = false;
  uint64_t oh() const { return ((ih - 1) * (insh + 1) + 1 + pu + pd - ((kh - 1) * dh + 1)) / sh + 1; }
  uint64_t ow() const { return ((iw - 1) * (insw + 1) + 1 + pl + pr - ((kw - 1) * dw + 1)) / sw + 1; }
  // The input value at window tap (oy, ox, ky, kx): pad outside, 0 on inserted positions.
  template <typename F>
  double tap(const F& x, uint64_t c, uint64_t oy, uint64_t ox, uint64_t ky, uint64_t kx, double pad) const {
    const int64_t y = int64_t(oy * sh + ky * dh) - pu, xx = int64_t(ox * sw + kx * dw) - pl;
    const int64_t vh = int64_t((ih - 1) * (insh + 1) + 1), vw = int64_t((iw - 1) * (insw + 1) + 1);
    if (y < 0 || xx < 0 || y >= vh || xx >= vw) return pad;
    if (y % (insh + 1) || xx % (insw + 1)) return 0;
    return x(c, uint64_t(y) / (insh + 1), uint64_t(xx) / (insw + 1));
  }
  template <typename V>
  void geometry(V v) const {
    v.set_res0_n(1); v.set_res0_c(oc); v.set_res0_h(oh()); v.set_res0_w(ow());
    v.set_opd0_h(ih); v.set_opd0_w(iw); v.set_opd1_h(kh); v.set_opd1_w(kw);
    v.set_opd0_up_pad(pu); v.set_opd0_dn_pad(pd); v.set_opd0_lf_pad(pl); v.set_opd0_rt_pad(pr);
    v.set_res_op_y_str(sh); v.set_res_op_x_str(sw); v.set_opd0_y_ins0(insh); v.set_opd0_x_ins0(insw);
    v.set_opd1_y_ins0(dh - 1); v.set_opd1_x_ins0(dw - 1); v.set_opt_kernel_rotate(rotate);
  }
};

// Conv kernel slot of (oc, ic, ky, kx): lane (L + oc) % 64, P-channel groups (P = 64 B / size).
inline uint8_t* kernel_at(tilefw::port::host::Machine& m, uint32_t lane0, uint32_t off, uint32_t prec, uint64_t ic_total, const Win& g,
                   uint64_t oc, uint64_t ic, uint64_t ky, uint64_t kx) {
  const uint64_t es = esize(prec), P = 64 / es, S = (ic_total + P - 1) / P * g.kh * g.kw * P;
  const uint64_t lane = lane0 + oc;
  const uint64_t e = (lane / 64) * S + (ic / P) * g.kh * g.kw * P + (ky * g.kw + kx) * P + ic % P;
  return m.translate(sg::lmem_region(0).device_base + (lane % 64) * sg::kLaneBytes + off + e * es, 1).value();
}
inline uint8_t* lane_at(tilefw::port::host::Machine& m, uint32_t lane0, uint32_t off, uint64_t ch, uint64_t slab, uint64_t i, uint32_t es) {
  const uint64_t lane = lane0 + ch;
  return m.translate(sg::lmem_region(0).device_base + (lane % 64) * sg::kLaneBytes + off + ((lane / 64) * slab + i) * es, 1)
      .value();
}

}  // namespace simref
