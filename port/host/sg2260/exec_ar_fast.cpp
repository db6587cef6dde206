// SG2260 execution, TIU AR fast rows (sg2260/exec_ar_fast.hpp).
#include "sg2260/exec_ar_fast.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define TILEFW_SIM_AR_F16C 1
#else
#define TILEFW_SIM_AR_F16C 0
#endif

namespace tilefw::port::host::sg2260::exec {

namespace {

constexpr uint32_t kEuMul = 0, kEuAdd = 2, kEuSub = 3, kEuMax = 4, kEuMin = 5;
constexpr uint32_t kPrecInt8 = 0, kPrecFp16 = 1, kPrecInt16 = 3, kPrecInt32 = 4;

bool contiguous(const uint8_t* p, uint64_t step, uint64_t esize) { return p == nullptr || step == esize; }

#if TILEFW_SIM_AR_F16C
// AVX (the 256-bit float operations) and F16C (the conversions), asked of the CPU and the OS.
bool has_avx_f16c() {
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

// Eight operands: FP16 from p, or the constant k where p is null.
[[gnu::target("avx,f16c")]] inline __m256 load_halves(const uint8_t* p, uint64_t i, __m256 k) {
  if (p == nullptr) return k;
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i)));
}

// The operation on eight lanes as ar_apply does it: a NaN operand gives opd0's NaN, else
// opd1's (set explicitly: which NaN an x86 product returns depends on the operand order the
// compiler picks); max is (a < b ? b : a) and min (b < a ? b : a), as std::max / std::min.
template <uint32_t Eu>
[[gnu::target("avx,f16c")]] inline __m256 apply8(__m256 a, __m256 b) {
  if constexpr (Eu == kEuMax) return _mm256_blendv_ps(a, b, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
  if constexpr (Eu == kEuMin) return _mm256_blendv_ps(a, b, _mm256_cmp_ps(b, a, _CMP_LT_OQ));
  __m256 r;
  if constexpr (Eu == kEuMul) r = _mm256_mul_ps(a, b);
  if constexpr (Eu == kEuAdd) r = _mm256_add_ps(a, b);
  if constexpr (Eu == kEuSub) r = _mm256_sub_ps(a, b);
  r = _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

template <uint32_t Eu>
[[gnu::target("avx,f16c")]] uint64_t halves_row(const uint8_t* p0, const uint8_t* p1, float k0, float k1, uint8_t* d,
                                                uint64_t count) {
  const __m256 c0 = _mm256_set1_ps(k0), c1 = _mm256_set1_ps(k1);
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 r = apply8<Eu>(load_halves(p0, i, c0), load_halves(p1, i, c1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return i;
}

// A constant operand qualifies when it is an FP16 value (exact through float and FP16).
[[gnu::target("avx,f16c")]] bool fp16_value(double k) {
  const float f = static_cast<float>(k);
  if (static_cast<double>(f) != k) return false;  // NaN too: left to the typed loops
  const __m128i h = _mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm_cvtss_f32(_mm_cvtph_ps(h)) == f;
}

uint64_t fp16_row(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count) {
  if (!has_avx_f16c()) return 0;
  if ((p0 == nullptr && !fp16_value(a.k[0])) || (p1 == nullptr && !fp16_value(a.k[1]))) return 0;
  const float k0 = static_cast<float>(a.k[0]), k1 = static_cast<float>(a.k[1]);
  switch (a.eu) {
    case kEuMul: return halves_row<kEuMul>(p0, p1, k0, k1, d, count);
    case kEuAdd: return halves_row<kEuAdd>(p0, p1, k0, k1, d, count);
    case kEuSub: return halves_row<kEuSub>(p0, p1, k0, k1, d, count);
    case kEuMax: return halves_row<kEuMax>(p0, p1, k0, k1, d, count);
    case kEuMin: return halves_row<kEuMin>(p0, p1, k0, k1, d, count);
  }
  return 0;
}
#else
uint64_t fp16_row(const ArRow&, const uint8_t*, const uint8_t*, uint8_t*, uint64_t) { return 0; }
#endif

// Integer max / min of one format: the chosen element itself (read_ints, std::max / std::min
// on the exact values and store_ints' wrap give back that element).
template <typename T>
uint64_t int_row(uint32_t eu, const uint8_t* p0, const uint8_t* p1, const double (&k)[2], uint8_t* d, uint64_t count) {
  T c[2] = {};
  for (int i = 0; i < 2; ++i) {
    const uint8_t* p = i == 0 ? p0 : p1;
    if (p != nullptr) continue;
    const double lo = static_cast<double>(std::numeric_limits<T>::min()), hi = static_cast<double>(std::numeric_limits<T>::max());
    if (!(k[i] >= lo && k[i] <= hi) || std::trunc(k[i]) != k[i]) return 0;
    c[i] = static_cast<T>(k[i]);
  }
  const auto at = [](const uint8_t* p, T k0, uint64_t i) {
    if (p == nullptr) return k0;
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof v);
    return v;
  };
  for (uint64_t i = 0; i < count; ++i) {
    const T a = at(p0, c[0], i), b = at(p1, c[1], i);
    const T r = eu == kEuMax ? (a < b ? b : a) : (b < a ? b : a);
    std::memcpy(d + i * sizeof(T), &r, sizeof r);
  }
  return count;
}

uint64_t int_rows(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count) {
  const bool s = a.sign[0];
  switch (a.prec[0]) {
    case kPrecInt8: return s ? int_row<int8_t>(a.eu, p0, p1, a.k, d, count) : int_row<uint8_t>(a.eu, p0, p1, a.k, d, count);
    case kPrecInt16: return s ? int_row<int16_t>(a.eu, p0, p1, a.k, d, count) : int_row<uint16_t>(a.eu, p0, p1, a.k, d, count);
    case kPrecInt32: return s ? int_row<int32_t>(a.eu, p0, p1, a.k, d, count) : int_row<uint32_t>(a.eu, p0, p1, a.k, d, count);
  }
  return 0;
}

}  // namespace

uint64_t ar_row_fast(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                     const uint64_t (&step)[3]) {
  if (a.inputs != 2 || (p0 == nullptr && p1 == nullptr)) return 0;
  if (a.prec[1] != a.prec[0] || a.prec[2] != a.prec[0]) return 0;
  const uint32_t es = tiu_esize(a.prec[0]);
  if (step[0] != es || !contiguous(p0, step[1], es) || !contiguous(p1, step[2], es)) return 0;
  if (a.prec[0] == kPrecFp16) {
    const bool op = a.eu == kEuMul || a.eu == kEuAdd || a.eu == kEuSub || a.eu == kEuMax || a.eu == kEuMin;
    return op ? fp16_row(a, p0, p1, d, count) : 0;
  }
  if (a.eu != kEuMax && a.eu != kEuMin) return 0;
  if (a.sign[1] != a.sign[0] || a.sign[2] != a.sign[0]) return 0;
  return int_rows(a, p0, p1, d, count);
}

}  // namespace tilefw::port::host::sg2260::exec
