// SG2260 execution, value conversion over contiguous runs (sg2260/exec_convert.hpp).
#include "sg2260/exec_convert.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define TILEFW_SIM_F16C 1  // the F16C loops exist; has_f16c() asks the CPU
#else
#define TILEFW_SIM_F16C 0
#endif

#include <bit>
#include <cstring>

#include "sg2260/exec_common.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace {

#if TILEFW_SIM_F16C
// CPUID leaf 1 (ECX: AVX bit 28, F16C bit 29, OSXSAVE bit 27) and XCR0 (the OS saves the SSE and
// AVX register state): asked directly, since not every compiler's __builtin_cpu_supports knows
// "f16c" (clang 14 does not).
bool has_f16c() {
  static const bool yes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
    constexpr unsigned kOsxsave = 1u << 27, kAvx = 1u << 28, kF16c = 1u << 29;
    if ((c & (kOsxsave | kAvx | kF16c)) != (kOsxsave | kAvx | kF16c)) return false;
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6u) == 6u;
  }();
  return yes;
}

[[gnu::target("avx,f16c")]] size_t halves_to_doubles_f16c(const uint8_t* p, double* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i)));
    _mm256_storeu_pd(out + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(out + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  return i;
}

// A strided run: eight halves gathered, then converted together.
[[gnu::target("avx,f16c")]] size_t strided_halves_to_doubles_f16c(const uint8_t* p, uint64_t step, double* out,
                                                                  size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint16_t h[8];
    for (size_t j = 0; j < 8; ++j) std::memcpy(&h[j], p + (i + j) * step, 2);
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
    _mm256_storeu_pd(out + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(out + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  return i;
}

[[gnu::target("avx,f16c")]] size_t halves_to_floats_f16c(const uint8_t* p, float* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i))));
  }
  return i;
}

[[gnu::target("avx,f16c")]] size_t floats_to_halves_f16c(const float* in, uint8_t* d, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), h);
  }
  return i;
}

// Four 64-bit lane masks as four 32-bit ones.
[[gnu::target("avx,f16c")]] __m128i narrow_mask(__m256d m) {
  const __m256 s = _mm256_castpd_ps(m);
  return _mm_castps_si128(
      _mm_shuffle_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1), _MM_SHUFFLE(2, 0, 2, 0)));
}

// to_float_bits_odd of four doubles, lane by lane the same steps: the nearest-even float, kept
// where it is exact, infinite or NaN; otherwise truncated toward zero (one less in magnitude
// where it rounded away) with its last bit set.
[[gnu::target("avx,f16c")]] __m128 doubles_to_floats_odd4(__m256d x) {
  const __m128 f = _mm256_cvtpd_ps(x);
  const __m256d back = _mm256_cvtps_pd(f);
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d inexact = _mm256_cmp_pd(back, x, _CMP_NEQ_OQ);  // NaN lanes compare unordered: false
  const __m256d away = _mm256_cmp_pd(_mm256_andnot_pd(sign, back), _mm256_andnot_pd(sign, x), _CMP_GT_OQ);
  const __m128 finite = _mm_cmp_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), f), _mm_set1_ps(INFINITY), _CMP_NEQ_OQ);
  const __m128i fix = _mm_and_si128(narrow_mask(inexact), _mm_castps_si128(finite));
  const __m128i one = _mm_set1_epi32(1);
  __m128i bits = _mm_castps_si128(f);
  bits = _mm_sub_epi32(bits, _mm_and_si128(_mm_and_si128(fix, narrow_mask(away)), one));
  bits = _mm_or_si128(bits, _mm_and_si128(fix, one));
  return _mm_castsi128_ps(bits);
}

// write_float<1>'s rounding of 8 doubles: each to float rounded to odd (to_float_bits_odd: the
// nearest-even floats where all eight are exact or NaN, the common case; else the four-lane
// steps), then the floats to FP16 nearest even.
[[gnu::target("avx,f16c")]] __m128i doubles_to_halves8(const double* r) {
  const __m256d lo = _mm256_loadu_pd(r), hi = _mm256_loadu_pd(r + 4);
  __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  const int exact = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), lo, _CMP_EQ_OQ)) |
                    _mm256_movemask_pd(_mm256_cmp_pd(lo, lo, _CMP_UNORD_Q)) |
                    (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), hi, _CMP_EQ_OQ)) |
                     _mm256_movemask_pd(_mm256_cmp_pd(hi, hi, _CMP_UNORD_Q))) << 4;
  if (exact != 0xFF) f = _mm256_set_m128(doubles_to_floats_odd4(hi), doubles_to_floats_odd4(lo));
  return _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

[[gnu::target("avx,f16c")]] size_t doubles_to_halves_f16c(const double* r, uint8_t* d, uint64_t step, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = doubles_to_halves8(r + i);
    if (step == 2) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), h);
      continue;
    }
    uint16_t b[8];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(b), h);
    for (size_t j = 0; j < 8; ++j) std::memcpy(d + (i + j) * step, &b[j], 2);
  }
  return i;
}
#else
// Other hosts: the element loops only.
bool has_f16c() { return false; }
size_t halves_to_doubles_f16c(const uint8_t*, double*, size_t) { return 0; }
size_t strided_halves_to_doubles_f16c(const uint8_t*, uint64_t, double*, size_t) { return 0; }
size_t halves_to_floats_f16c(const uint8_t*, float*, size_t) { return 0; }
size_t floats_to_halves_f16c(const float*, uint8_t*, size_t) { return 0; }
size_t doubles_to_halves_f16c(const double*, uint8_t*, uint64_t, size_t) { return 0; }
#endif

uint16_t half_at(const uint8_t* p) {
  uint16_t b;
  std::memcpy(&b, p, 2);
  return b;
}

}  // namespace

bool cpu_has_f16c() { return has_f16c(); }

void halves_to_doubles(const uint8_t* p, double* out, size_t n) {
  size_t i = has_f16c() ? halves_to_doubles_f16c(p, out, n) : 0;
  for (; i < n; ++i) out[i] = half_to_float(half_at(p + 2 * i));
}

void halves_to_doubles(const uint8_t* p, uint64_t step, double* out, size_t n) {
  if (step == 2) return halves_to_doubles(p, out, n);
  size_t i = has_f16c() ? strided_halves_to_doubles_f16c(p, step, out, n) : 0;
  for (; i < n; ++i) out[i] = half_to_float(half_at(p + i * step));
}

void halves_to_floats(const uint8_t* p, float* out, size_t n) {
  size_t i = has_f16c() ? halves_to_floats_f16c(p, out, n) : 0;
  for (; i < n; ++i) out[i] = half_to_float(half_at(p + 2 * i));
}

void floats_to_halves(const float* in, uint8_t* d, size_t n) {
  size_t i = has_f16c() ? floats_to_halves_f16c(in, d, n) : 0;
  for (; i < n; ++i) {
    const uint16_t h = float_bits_to_half_bits(std::bit_cast<uint32_t>(in[i]), RoundMode::nearest_even);
    std::memcpy(d + 2 * i, &h, 2);
  }
}

}  // namespace tilefw::port::host::sg2260::exec

namespace tilefw::port::host::sg2260::exec {

void doubles_to_halves(const double* r, uint8_t* d, uint64_t step, size_t n) {
  size_t i = has_f16c() ? doubles_to_halves_f16c(r, d, step, n) : 0;
  for (; i < n; ++i) write_float<1>(d + i * step, r[i], RoundMode::nearest_even);
}

}  // namespace tilefw::port::host::sg2260::exec
