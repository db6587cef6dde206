// SG2260 execution, the exact window sums (sg2260/exec_conv_sums.hpp): blocks of outputs stay
// in vector registers over every tap; AVX-512F (16 lanes, fused) or AVX2 (8 lanes) where the
// CPU has it, else 4-lane vectors. A column stride > 1 is made contiguous by the phase planes, rows narrower than a
// vector by the transposed planes (the caller's choice).
#include "sg2260/exec_conv_sums.hpp"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tilefw::port::host::sg2260::exec {

namespace {

using Float4 = float __attribute__((vector_size(16)));

inline Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

#if defined(__x86_64__) || defined(__i386__)
// exact_row_sums on 8-lane vectors (AVX2, chosen at run time where the CPU has it): the same
// products and adds per output in the same tap order, eight outputs per vector. AVX2 alone
// does not enable FMA, so the compiler cannot fuse a product into its add (the callers send
// only products exact in FP32, FP16 and FP8 operands, where fused and unfused agree; kept
// unfused so every path computes the same operations).
using Float8 = float __attribute__((vector_size(32)));

[[gnu::target("avx2")]] inline Float8 load8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Rows contiguous in the plane (step 1); returns the outputs done (all of them: ow >= 8).
[[gnu::target("avx2")]] uint64_t exact_row_sums_avx2(const float* fpl, const uint64_t* base, const float* kf,
                                                     uint64_t taps, uint64_t ow, float* facc) {
  uint64_t ox = 0;
  for (; ox + 64 <= ow; ox += 64) {
    Float8 v[8] = {};
    for (uint64_t t = 0; t < taps; ++t) {
      const float* p = fpl + base[t] + ox;
      const Float8 k = {kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t]};
      for (int j = 0; j < 8; ++j) v[j] += load8(p + 8 * j) * k;
    }
    std::memcpy(facc + ox, v, sizeof v);
  }
  for (; ox + 32 <= ow; ox += 32) {
    Float8 v[4] = {};
    for (uint64_t t = 0; t < taps; ++t) {
      const float* p = fpl + base[t] + ox;
      const Float8 k = {kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t]};
      for (int j = 0; j < 4; ++j) v[j] += load8(p + 8 * j) * k;
    }
    std::memcpy(facc + ox, v, sizeof v);
  }
  for (; ox + 8 <= ow; ox += 8) {
    Float8 v = {};
    for (uint64_t t = 0; t < taps; ++t) {
      const Float8 k = {kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t]};
      v += load8(fpl + base[t] + ox) * k;
    }
    std::memcpy(facc + ox, &v, sizeof v);
  }
  if (ox < ow && ow >= 8) {
    // the rest of the row as its last eight outputs: those before the rest are summed again,
    // the same products and adds (the rest would otherwise go one output at a time)
    const uint64_t at = ow - 8;
    Float8 v = {};
    for (uint64_t t = 0; t < taps; ++t) {
      const Float8 k = {kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t], kf[t]};
      v += load8(fpl + base[t] + at) * k;
    }
    std::memcpy(facc + at, &v, sizeof v);
    ox = ow;
  }
  return ox;
}

// exact_row_sums on 16-lane vectors (AVX-512F, where the CPU has it): the same sums per output
// in the same tap order, sixteen outputs per vector, blocks of up to 128 outputs in registers.
// Each tap is one fused multiply-add: the callers send only operands whose products are exact
// in FP32 (FP16 and FP8: significands of at most 11 bits, products >= 2^-48), so rounding the
// exact product plus the sum once is the unfused product-then-add, bit for bit, in half the
// floating-point operations.
[[gnu::target("avx512f")]] inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }

// Up to eight vectors of sixteen outputs each, reading the plane from `starts` and writing
// facc from `outs`, summed over every tap at once: independent sums, so the adds' latency does
// not bound a short row.
template <int kVectors>
[[gnu::target("avx512f")]] inline void sums_at16(const float* fpl, const uint64_t* base, const float* kf,
                                                 uint64_t taps, const uint64_t* starts, const uint64_t* outs,
                                                 float* facc) {
  __m512 v[kVectors];
  for (int j = 0; j < kVectors; ++j) v[j] = _mm512_setzero_ps();
  for (uint64_t t = 0; t < taps; ++t) {
    const float* p = fpl + base[t];
    const __m512 k = _mm512_set1_ps(kf[t]);  // the weight in every lane
    for (int j = 0; j < kVectors; ++j) v[j] = _mm512_fmadd_ps(load16(p + starts[j]), k, v[j]);
  }
  for (int j = 0; j < kVectors; ++j) _mm512_storeu_ps(facc + outs[j], v[j]);
}

// Rows contiguous in the plane (step 1), ow >= 16: `rows` rows, row r's output x read at plane
// offset r * pitch + x and written to facc[r * ow + x]. Each row is cut into vectors of
// sixteen outputs, its last one ending at the row's end (outputs it shares with the one
// before are summed twice, the same bits), and up to eight vectors, of one row or of several,
// run together: a row of 20 outputs alone would be two chains of dependent adds.
[[gnu::target("avx512f")]] void exact_rows_sums_avx512(const float* fpl, const uint64_t* base, const float* kf,
                                                       uint64_t taps, uint64_t rows, uint64_t ow, uint64_t pitch,
                                                       float* facc) {
  uint64_t starts[8], outs[8];
  int n = 0;
  const auto flush = [&] {
    switch (n) {
      case 1: sums_at16<1>(fpl, base, kf, taps, starts, outs, facc); break;
      case 2: sums_at16<2>(fpl, base, kf, taps, starts, outs, facc); break;
      case 3: sums_at16<3>(fpl, base, kf, taps, starts, outs, facc); break;
      case 4: sums_at16<4>(fpl, base, kf, taps, starts, outs, facc); break;
      case 5: sums_at16<5>(fpl, base, kf, taps, starts, outs, facc); break;
      case 6: sums_at16<6>(fpl, base, kf, taps, starts, outs, facc); break;
      case 7: sums_at16<7>(fpl, base, kf, taps, starts, outs, facc); break;
      default: sums_at16<8>(fpl, base, kf, taps, starts, outs, facc); break;
    }
    n = 0;
  };
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t first = 0; first < ow; first += 16) {
      const uint64_t x = first + 16 <= ow ? first : ow - 16;
      starts[n] = r * pitch + x;
      outs[n] = r * ow + x;
      if (++n == 8) flush();
    }
  }
  if (n > 0) flush();
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
bool has_avx512f() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
#else
// Other hosts: the 4-lane loops only.
bool has_avx2() { return false; }
bool has_avx512f() { return false; }
uint64_t exact_row_sums_avx2(const float*, const uint64_t*, const float*, uint64_t, uint64_t, float*) { return 0; }
void exact_rows_sums_avx512(const float*, const uint64_t*, const float*, uint64_t, uint64_t, uint64_t, uint64_t, float*) {}
#endif

}  // namespace

// The taps of one output row: tap t reads plane offset base[t] + ox * step, weight kf[t].
void exact_row_sums(const float* fpl, const uint64_t* base, const float* kf, uint64_t taps, uint64_t ow,
                    uint64_t step, float* facc) {
  uint64_t ox = 0;
  if (step == 1 && ow >= 16 && has_avx512f()) {
    exact_rows_sums_avx512(fpl, base, kf, taps, 1, ow, ow, facc);
    return;
  }
  if (step == 1 && ox < ow && ow >= 8 && has_avx2()) ox = exact_row_sums_avx2(fpl, base, kf, taps, ow, facc);
  if (step == 1) {
    // eight independent sums per tap: the adds' latency, not their number, bounds a block
    for (; ox + 32 <= ow; ox += 32) {
      Float4 v[8] = {};
      for (uint64_t t = 0; t < taps; ++t) {
        const float* p = fpl + base[t] + ox;
        const Float4 k = {kf[t], kf[t], kf[t], kf[t]};
        for (int j = 0; j < 8; ++j) v[j] += load4(p + 4 * j) * k;
      }
      std::memcpy(facc + ox, v, sizeof v);
    }
    for (; ox + 16 <= ow; ox += 16) {
      Float4 v0 = {0, 0, 0, 0}, v1 = {0, 0, 0, 0}, v2 = {0, 0, 0, 0}, v3 = {0, 0, 0, 0};
      for (uint64_t t = 0; t < taps; ++t) {
        const float* p = fpl + base[t] + ox;
        const Float4 k = {kf[t], kf[t], kf[t], kf[t]};
        v0 += load4(p) * k;
        v1 += load4(p + 4) * k;
        v2 += load4(p + 8) * k;
        v3 += load4(p + 12) * k;
      }
      std::memcpy(facc + ox, &v0, sizeof v0);
      std::memcpy(facc + ox + 4, &v1, sizeof v1);
      std::memcpy(facc + ox + 8, &v2, sizeof v2);
      std::memcpy(facc + ox + 12, &v3, sizeof v3);
    }
    for (; ox + 8 <= ow; ox += 8) {
      Float4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
      for (uint64_t t = 0; t < taps; ++t) {
        const float* p = fpl + base[t] + ox;
        const Float4 k = {kf[t], kf[t], kf[t], kf[t]};
        lo += load4(p) * k;
        hi += load4(p + 4) * k;
      }
      std::memcpy(facc + ox, &lo, sizeof lo);
      std::memcpy(facc + ox + 4, &hi, sizeof hi);
    }
  }
  for (; ox + 4 <= ow; ox += 4) {
    float acc[4] = {0, 0, 0, 0};
    for (uint64_t t = 0; t < taps; ++t) {
      const float* p = fpl + base[t] + ox * step;
      for (uint64_t j = 0; j < 4; ++j) acc[j] += p[j * step] * kf[t];
    }
    for (uint64_t j = 0; j < 4; ++j) facc[ox + j] = acc[j];
  }
  for (; ox < ow; ++ox) {
    float acc = 0;
    for (uint64_t t = 0; t < taps; ++t) acc += fpl[base[t] + ox * step] * kf[t];
    facc[ox] = acc;
  }
}

void exact_rows_sums(const float* fpl, const uint64_t* base, const float* kf, uint64_t taps, uint64_t rows,
                     uint64_t ow, uint64_t pitch, float* facc) {
  if (ow >= 16 && has_avx512f()) {
    exact_rows_sums_avx512(fpl, base, kf, taps, rows, ow, pitch, facc);
    return;
  }
  for (uint64_t r = 0; r < rows; ++r) exact_row_sums(fpl + r * pitch, base, kf, taps, ow, 1, facc + r * ow);
}

void phase_planes(const float* fpl, uint64_t rows, uint64_t pw, uint64_t s, std::vector<float>& out) {
  const uint64_t cols = (pw + s - 1) / s;
  out.assign(s * rows * cols, 0.0f);
  for (uint64_t p = 0; p < s; ++p) {
    float* dst = out.data() + p * rows * cols;
    for (uint64_t r = 0; r < rows; ++r) {
      const float* src = fpl + r * pw;
      for (uint64_t j = 0; j * s + p < pw; ++j) dst[r * cols + j] = src[j * s + p];
    }
  }
}

void transpose_planes(const float* fpl, uint64_t chans, uint64_t ph, uint64_t pw, std::vector<float>& out) {
  out.resize(chans * ph * pw);
  for (uint64_t ci = 0; ci < chans; ++ci) {
    const float* src = fpl + ci * ph * pw;
    float* dst = out.data() + ci * ph * pw;
    for (uint64_t y = 0; y < ph; ++y) {
      for (uint64_t x = 0; x < pw; ++x) dst[x * ph + y] = src[y * pw + x];
    }
  }
}

}  // namespace tilefw::port::host::sg2260::exec
