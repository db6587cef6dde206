// SG2260 execution, TIU AR fast rows (sg2260/exec_ar_fast.hpp).
#include "sg2260/exec_ar_fast.hpp"

#include "sg2260/exec_convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TILEFW_SIM_AR_F16C 1
#else
#define TILEFW_SIM_AR_F16C 0
#endif

namespace tilefw::port::host::sg2260::exec {

namespace {

constexpr uint32_t kEuMul = 0, kEuAdd = 2, kEuSub = 3, kEuMax = 4, kEuMin = 5, kEuDiv = 12;
constexpr uint32_t kPrecInt8 = 0, kPrecFp16 = 1, kPrecInt16 = 3, kPrecInt32 = 4;

bool contiguous(const uint8_t* p, uint64_t step, uint64_t esize) { return p == nullptr || step == esize; }

#if TILEFW_SIM_AR_F16C
// AVX (the 256-bit float operations) and F16C (the conversions): the conversions' own check.
inline bool has_avx_f16c() { return cpu_has_f16c(); }

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
  if constexpr (Eu == kEuDiv) r = _mm256_div_ps(a, b);
  r = _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

// Rounded to FP16 in round mode Imm: nearest even for every op; division also in a directed
// mode. Why division may round its float quotient: a quotient of two FP16 values that is not
// an FP16 value lies further from every FP16 value than half a float ulp (their 11-bit
// significands keep a / b - m >= 2^-22 relative, and float rounds within 2^-24), so the float
// quotient is on the same side of every FP16 value as the exact one, and is one only when the
// exact one is; rounding it in the mode gives the mode's FP16 result. In nearest even, float's
// 24 bits are at least 2 x 11 + 2, so the double rounding is innocuous for +, -, x and /.
template <uint32_t Eu, int Imm = _MM_FROUND_TO_NEAREST_INT>
[[gnu::target("avx,f16c")]] uint64_t halves_row(const uint8_t* p0, const uint8_t* p1, float k0, float k1, uint8_t* d,
                                                uint64_t count) {
  const __m256 c0 = _mm256_set1_ps(k0), c1 = _mm256_set1_ps(k1);
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 r = apply8<Eu>(load_halves(p0, i, c0), load_halves(p1, i, c1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), _mm256_cvtps_ph(r, Imm | _MM_FROUND_NO_EXC));
  }
  return i;
}

uint64_t fp16_div_row(uint32_t round, const uint8_t* p0, const uint8_t* p1, float k0, float k1, uint8_t* d,
                      uint64_t count) {
  switch (round) {
    case kRoundNearestEven: return halves_row<kEuDiv, _MM_FROUND_TO_NEAREST_INT>(p0, p1, k0, k1, d, count);
    case kRoundTowardZero: return halves_row<kEuDiv, _MM_FROUND_TO_ZERO>(p0, p1, k0, k1, d, count);
    case kRoundDown: return halves_row<kEuDiv, _MM_FROUND_TO_NEG_INF>(p0, p1, k0, k1, d, count);
    case kRoundUp: return halves_row<kEuDiv, _MM_FROUND_TO_POS_INF>(p0, p1, k0, k1, d, count);
  }
  return 0;  // half away from zero: the typed loops
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
    case kEuDiv: return fp16_div_row(a.round, p0, p1, k0, k1, d, count);
  }
  return 0;
}
#else
uint64_t fp16_row(const ArRow&, const uint8_t*, const uint8_t*, uint8_t*, uint64_t) { return 0; }
#endif

#if TILEFW_SIM_AR_F16C
// A cast or copy of FP16 to FP16 (eu 14 in any round mode, eu 19): every FP16 value is its own
// result in every rounding; a NaN comes back quieted with its payload (the double path's
// conversions set the quiet bit). Eight at a time, as 16-bit lanes (SSE2: every x86-64).
uint64_t fp16_same_row(const uint8_t* p, uint64_t pstep, uint8_t* d, uint64_t dstep,
                                                uint64_t count) {
  if (pstep != 2 || dstep != 2) return 0;
  const __m128i exp = _mm_set1_epi16(0x7C00), frac = _mm_set1_epi16(0x03FF), quiet = _mm_set1_epi16(0x0200);
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i));
    const __m128i all_ones_exp = _mm_cmpeq_epi16(_mm_and_si128(x, exp), exp);
    const __m128i has_frac = _mm_xor_si128(_mm_cmpeq_epi16(_mm_and_si128(x, frac), _mm_setzero_si128()), _mm_set1_epi16(-1));
    const __m128i nan = _mm_and_si128(all_ones_exp, has_frac);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * i), _mm_or_si128(x, _mm_and_si128(nan, quiet)));
  }
  return i;
}

// A cast of FP16 to an 8- or 16-bit integer (eu 14) in any of the five round modes: the value
// (exact in float) rounded to an integer in float (exact), NaN as 0, clamped to the result's
// range, as store_ar's integer cast does. Eight at a time.
[[gnu::target("avx,f16c")]] __m256 round_to_integer8(__m256 x, uint32_t round) {
  switch (round) {
    case kRoundNearestEven: return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    case kRoundTowardZero: return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    case kRoundDown: return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    case kRoundUp: return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  }
  // half away from zero: the truncation, one further out where the dropped part is >= 1/2
  const __m256 t = _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 dropped = _mm256_andnot_ps(sign, _mm256_sub_ps(x, t));
  const __m256 half = _mm256_cmp_ps(dropped, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
  const __m256 one = _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(sign, x));
  return _mm256_add_ps(t, _mm256_and_ps(half, one));
}

template <typename T>
[[gnu::target("avx,f16c")]] uint64_t fp16_to_int_row(const uint8_t* p, uint8_t* d, uint64_t count, uint32_t round) {
  const __m256 lo = _mm256_set1_ps(static_cast<float>(std::numeric_limits<T>::min()));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(std::numeric_limits<T>::max()));
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i)));
    const __m256 number = _mm256_cmp_ps(x, x, _CMP_ORD_Q);
    __m256 r = _mm256_and_ps(number, round_to_integer8(x, round));  // NaN: 0
    r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
    alignas(32) int32_t v[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(v), _mm256_cvttps_epi32(r));
    for (int j = 0; j < 8; ++j) {
      const T e = static_cast<T>(v[j]);
      std::memcpy(d + (i + j) * sizeof(T), &e, sizeof e);
    }
  }
  return i;
}

uint64_t fp16_cast_row(const ArRow& a, const uint8_t* p, const uint64_t (&step)[3], uint8_t* d, uint64_t count) {
  if (a.round > kRoundUp || step[1] != 2 || !has_avx_f16c()) return 0;
  const bool s = a.sign[0];
  switch (a.prec[0]) {
    case kPrecInt8:
      if (step[0] != 1) return 0;
      return s ? fp16_to_int_row<int8_t>(p, d, count, a.round) : fp16_to_int_row<uint8_t>(p, d, count, a.round);
    case kPrecInt16:
      if (step[0] != 2) return 0;
      return s ? fp16_to_int_row<int16_t>(p, d, count, a.round) : fp16_to_int_row<uint16_t>(p, d, count, a.round);
  }
  return 0;
}
#else
uint64_t fp16_same_row(const uint8_t*, uint64_t, uint8_t*, uint64_t, uint64_t) { return 0; }
uint64_t fp16_cast_row(const ArRow&, const uint8_t*, const uint64_t (&)[3], uint8_t*, uint64_t) { return 0; }
#endif

// Whether fp16_row takes a row (its conditions before the vector loop).
bool fp16_row_taken(const ArRow& a, const uint8_t* p0, const uint8_t* p1, const uint64_t (&step)[3]) {
  const bool op = a.eu == kEuMul || a.eu == kEuAdd || a.eu == kEuSub || a.eu == kEuMax || a.eu == kEuMin ||
                  (a.eu == kEuDiv && a.round != kRoundHalfAway);
  if (!op || step[0] != 2 || !contiguous(p0, step[1], 2) || !contiguous(p1, step[2], 2)) return false;
#if TILEFW_SIM_AR_F16C
  return has_avx_f16c() && (p0 != nullptr || fp16_value(a.k[0])) && (p1 != nullptr || fp16_value(a.k[1]));
#else
  return false;
#endif
}

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

// Rows where one operand varies and the other is a constant or absent (casts, a constant
// divided by an element, a saturating add of a constant): the result is a function of the
// varying element's bits alone: 256 of them for a one-byte element. Each result is computed once, element by
// element as ar_row_typed's own element path does (read_value, ar_apply, store_ar), and kept
// in a table of the row's configuration; later elements with the same bits copy it. A table
// holds 256 results, each marked with the configuration it belongs to (so taking a slot for a
// new configuration clears nothing); eight configurations are kept per thread (the oldest
// replaced), so a network's repeated commands find theirs.
struct ResultEntry {
  uint64_t generation;  // the entry holds a result of its table's configuration when equal
  uint32_t value;
};
struct ResultTable {
  ArRow key;
  int which = 0;  // the operand that varies (0: opd0, 1: opd1); the other is the constant
  bool used = false;
  uint64_t generation = 0;
  std::vector<ResultEntry> entries;  // 256, made on the slot's first use
};

bool same_row(const ArRow& x, const ArRow& y) {
  return x.eu == y.eu && x.round == y.round && x.inputs == y.inputs && x.shift == y.shift &&
         x.shift_amount == y.shift_amount && std::memcmp(x.prec, y.prec, sizeof x.prec) == 0 &&
         std::memcmp(x.sign, y.sign, sizeof x.sign) == 0 && std::memcmp(x.k, y.k, sizeof x.k) == 0;
}

// The tables of one thread. Each thread's set is made on its first use and owned by a list
// freed at exit (a thread_local object with a destructor would need the C++ runtime's
// thread-exit registration, which this build's -fno-use-cxa-atexit leaves out).
constexpr size_t kTables = 8;
struct TableSet {
  ResultTable tables[kTables];
  size_t next = 0;
  uint64_t generation = 0;  // a slot taken for a new configuration gets the next: its old entries no longer count
};
std::mutex g_sets_mutex;
std::vector<std::unique_ptr<TableSet>> g_sets;

TableSet& thread_tables() {
  thread_local TableSet* mine = nullptr;
  if (mine == nullptr) {
    const std::lock_guard<std::mutex> lock(g_sets_mutex);
    g_sets.push_back(std::make_unique<TableSet>());
    mine = g_sets.back().get();
  }
  return *mine;
}

ResultTable& table_for(const ArRow& a, int which) {
  TableSet& set = thread_tables();
  for (ResultTable& t : set.tables) {
    if (t.used && t.which == which && same_row(t.key, a)) return t;
  }
  ResultTable& t = set.tables[set.next];
  set.next = (set.next + 1) % kTables;
  if (t.entries.empty()) t.entries.assign(256, ResultEntry{0, 0});
  t.key = a;
  t.which = which;
  t.used = true;
  t.generation = ++set.generation;
  return t;
}

// The row through the table, results of kBytes bytes (a constant size: a plain store, not a
// copy call per element); a result not yet in the table is computed by `miss` first.
template <uint32_t kBytes, typename Miss>
void table_results(ResultTable& t, const uint8_t* p, uint64_t pstep, uint8_t* d, uint64_t dstep, uint64_t count,
                   const Miss& miss) {
  for (uint64_t i = 0; i < count; ++i, p += pstep, d += dstep) {
    ResultEntry& e = t.entries[*p];
    if (e.generation != t.generation) miss(p, e);
    std::memcpy(d, &e.value, kBytes);
  }
}

uint64_t table_row(const ArRow& a, const uint8_t* p, uint64_t pstep, uint32_t in_prec, int which, uint8_t* d,
                   uint64_t dstep, uint64_t count) {
  // one-byte elements only: 256 results stay in the first-level cache, where a table of 2^16
  // FP16 results is reached at random by real activations and misses it
  const uint32_t es_in = tiu_esize(in_prec), es_out = tiu_esize(a.prec[0]);
  if (es_in != 1 || (es_out != 1 && es_out != 2 && es_out != 4)) return 0;
  ArRow key = a;
  key.k[which] = 0;  // the varying operand's constant slot is unused: keep it out of the key
  ResultTable& t = table_for(key, which);
  const auto miss = [&](const uint8_t* at, ResultEntry& e) {
    const double v = read_value(at, in_prec, a.sign[1 + which]);
    uint8_t out[8] = {};
    store_ar(out, a, ar_apply(a.eu, which == 0 ? v : a.k[0], which == 1 ? v : a.k[1]));
    std::memcpy(&e.value, out, 4);
    e.generation = t.generation;
  };
  if (es_out == 1) table_results<1>(t, p, pstep, d, dstep, count, miss);
  else if (es_out == 2) table_results<2>(t, p, pstep, d, dstep, count, miss);
  else table_results<4>(t, p, pstep, d, dstep, count, miss);
  return count;
}

uint64_t one_varying_row(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                         const uint64_t (&step)[3]) {
  if (a.inputs == 1) return p0 != nullptr ? table_row(a, p0, step[1], a.prec[1], 0, d, step[0], count) : 0;
  if ((p0 == nullptr) == (p1 == nullptr)) return 0;
  return p0 != nullptr ? table_row(a, p0, step[1], a.prec[1], 0, d, step[0], count)
                       : table_row(a, p1, step[2], a.prec[2], 1, d, step[0], count);
}

}  // namespace

uint64_t ar_row_fast(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                     const uint64_t (&step)[3]) {
  if ((a.eu == 14 || a.eu == 19) && a.inputs == 1 && p0 != nullptr && a.prec[0] == kPrecFp16 && a.prec[1] == kPrecFp16) {
    return fp16_same_row(p0, step[1], d, step[0], count);
  }
  if (a.eu == 14 && a.inputs == 1 && p0 != nullptr && a.prec[1] == kPrecFp16) return fp16_cast_row(a, p0, step, d, count);
  // long rows only: a table's first use costs a generic evaluation per distinct element
  if (count >= 64 && (a.inputs == 1 || p0 == nullptr || p1 == nullptr)) {
    if (a.inputs == 2 && a.prec[0] == kPrecFp16 && a.prec[1] == kPrecFp16 && a.prec[2] == kPrecFp16 &&
        fp16_row_taken(a, p0, p1, step)) {
      // FP16 with a constant: the vector loop below
    } else if (const uint64_t done = one_varying_row(a, p0, p1, d, count, step)) {
      return done;
    }
  }
  if (a.inputs != 2 || (p0 == nullptr && p1 == nullptr)) return 0;
  if (a.prec[1] != a.prec[0] || a.prec[2] != a.prec[0]) return 0;
  const uint32_t es = tiu_esize(a.prec[0]);
  if (step[0] != es || !contiguous(p0, step[1], es) || !contiguous(p1, step[2], es)) return 0;
  if (a.prec[0] == kPrecFp16) {
    const bool op = a.eu == kEuMul || a.eu == kEuAdd || a.eu == kEuSub || a.eu == kEuMax || a.eu == kEuMin ||
                    (a.eu == kEuDiv && a.round != kRoundHalfAway);
    return op ? fp16_row(a, p0, p1, d, count) : 0;
  }
  if (a.eu != kEuMax && a.eu != kEuMin) return 0;
  if (a.sign[1] != a.sign[0] || a.sign[2] != a.sign[0]) return 0;
  return int_rows(a, p0, p1, d, count);
}

}  // namespace tilefw::port::host::sg2260::exec
