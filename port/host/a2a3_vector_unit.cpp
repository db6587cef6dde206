// a2a3 vector unit model. Per doorbell: decode the registers, re-validate (raw register writes
// can bypass the core's validation), then execute: repeats in order, inside a repeat all reads
// before any write, masked-off lanes untouched. Elementwise ops take a contiguous fast path
// (tight, vectorisable loops) when the operands are unit-stride, fully masked and either
// disjoint or identical, which is provably the same result as the general per-repeat path.
#include "a2a3_vector_unit.hpp"

#include "a2a3_vector_access.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/move_desc.hpp"
#include "tilefw/desc/validate.hpp"

namespace tilefw::port::host {

namespace {
namespace vreg = chip::a2a3::vreg;
using desc::Mask128;

constexpr uint16_t kHalfQNaN = 0x7E00;
constexpr uint32_t kFloatQNaN = 0x7FC00000u;

// ---- f16 helpers -----------------------------------------------------------------------------
inline double h2d(uint16_t h) noexcept { return std::bit_cast<float>(half_bits_to_float_bits(h)); }

// Rounds a double to the nearest half (ties to even) in one step: scale so the half's quantum
// is 1, round to integer (exact in double), scale back; the result is a half value.
inline uint16_t d2h(double d) noexcept {
  if (std::isnan(d)) return kHalfQNaN;
  const double a = std::fabs(d);
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7C00);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the leading bit has weight 2^(e-1)
  int q = e - 1 - 10;
  if (q < -24) q = -24;  // subnormal quantum
  const double r = std::nearbyint(std::ldexp(a, -q));
  const float v = static_cast<float>(std::ldexp(r, q));  // exact: a half value
  return static_cast<uint16_t>(sign | float_bits_to_half_bits(std::bit_cast<uint32_t>(v)));
}

inline uint16_t sat_h(uint16_t h, bool saturate) noexcept {
  if (!saturate) return h;
  if ((h & 0x7FFFu) == 0x7C00u) return static_cast<uint16_t>((h & 0x8000u) | 0x7BFFu);
  if ((h & 0x7FFFu) > 0x7C00u) return 0;
  return h;
}

inline float canon(float r) noexcept { return r != r ? std::bit_cast<float>(kFloatQNaN) : r; }

// max/min with tilefw's rules: NaN wins, max(-0,+0) = +0, min(-0,+0) = -0.
template <class F>
inline F fmax_rule(F a, F b) noexcept {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class F>
inline F fmin_rule(F a, F b) noexcept {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// ---- per-dtype arithmetic --------------------------------------------------------------------
// Op indices: binary 0..5 (vadd vsub vmul vdiv vmax vmin), unary 0..6 (vabs vexp vln vsqrt
// vrsqrt vrec vrelu), scalar 0..3 (vadds vmuls vmaxs vmins -> binary 0, 2, 4, 5).
constexpr uint32_t kScalarToBinary[4] = {0, 2, 4, 5};

inline double bin_d(uint32_t op, double a, double b) noexcept {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return fmax_rule(a, b);
    default: return fmin_rule(a, b);
  }
}
inline float bin_f(uint32_t op, float a, float b) noexcept {
  switch (op) {
    case 0: return canon(a + b);
    case 1: return canon(a - b);
    case 2: return canon(a * b);
    case 3: return canon(a / b);
    case 4: return canon(fmax_rule(a, b));
    default: return canon(fmin_rule(a, b));
  }
}
template <class I>
inline I bin_i(uint32_t op, I a, I b) noexcept {
  using U = std::make_unsigned_t<I>;
  switch (op) {
    case 0: return static_cast<I>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case 1: return static_cast<I>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    case 2: return static_cast<I>(static_cast<U>(static_cast<uint32_t>(static_cast<U>(a)) *
                                                 static_cast<uint32_t>(static_cast<U>(b))));
    case 4: return a > b ? a : b;
    case 5: return a < b ? a : b;
    default: return 0;  // vdiv has no integer form (validation rejects it)
  }
}
inline double un_d(uint32_t op, double x) noexcept {
  switch (op) {
    case 0: return std::fabs(x);
    case 1: return std::exp(x);
    case 2: return std::log(x);
    case 3: return std::sqrt(x);
    case 4: return 1.0 / std::sqrt(x);
    case 5: return 1.0 / x;
    default: return x != x ? x : (x > 0 ? x : 0.0);
  }
}
// ---- f32 transcendentals, correctly rounded (vector-semantics decision 8) --------------------
// (float)exp((double)x) is not: rounding twice misrounds inputs whose exact value lies within
// ~2^-53 (relative) of a binary32 midpoint, e.g. ln(0x1.827a74p-7). exp and ln are therefore
// evaluated once in long double (64-bit significand on x86-64, glibc expl/logl within a few
// 2^-64) and rounded once. binary32 exp/ln have no input whose exact value lies within 2^-58 of a
// midpoint: an exhaustive run over all 2^32 inputs, deciding every input that close with a
// binary128 evaluation, found none, so one rounding of the long double value is exact.
// test/issue/test_vector_cr.cpp re-checks binades and a random sample on every build.
static_assert(std::numeric_limits<long double>::digits >= 64, "f32 exp/ln need an extended long double");

__extension__ typedef unsigned __int128 U128;

// Sign of x*m*m - 1 for finite x > 0 and m > 0 with at most 26 significant bits, exactly:
// x = X*2^a (X < 2^24), m = M*2^b (M < 2^26), so X*M*M < 2^76 is an exact integer.
inline int sign_x_m2_minus_1(float x, double m) noexcept {
  int a = 0, b = 0;
  const auto X = static_cast<uint64_t>(std::ldexp(std::frexp(static_cast<double>(x), &a), 24));
  const auto M = static_cast<uint64_t>(std::ldexp(std::frexp(m, &b), 26));
  const U128 p = U128{X} * M * M;
  const int s = (a - 24) + 2 * (b - 26);  // x*m*m = p * 2^s
  if (s >= 0) return p == 1 && s == 0 ? 0 : 1;
  if (-s >= 128) return -1;
  const U128 one = U128{1} << -s;
  return p < one ? -1 : (p > one ? 1 : 0);
}

// 1/sqrt(x): its exact values come nearer to binary32 midpoints (down to ~2^-75 relative) than
// long double resolves, so the long double candidate y is checked against the midpoints to its
// neighbours exactly: 1/sqrt(x) > m <=> x*m*m < 1 (equality is impossible: a midpoint's square
// times x is never 1). The candidate is off by at most one ulp.
inline float rsqrt_f32(float x) noexcept {
  if (!(x > 0.0f) || std::isinf(x)) return canon(1.0f / std::sqrt(x));  // +-0, <0, NaN, inf: exact IEEE
  float y = static_cast<float>(1.0L / std::sqrt(static_cast<long double>(x)));
  const float up = std::nextafter(y, std::numeric_limits<float>::infinity());
  if (sign_x_m2_minus_1(x, (static_cast<double>(y) + static_cast<double>(up)) / 2) < 0) return up;
  const float dn = std::nextafter(y, 0.0f);
  if (sign_x_m2_minus_1(x, (static_cast<double>(y) + static_cast<double>(dn)) / 2) > 0) return dn;
  return y;
}

inline float un_f(uint32_t op, float x) noexcept {
  switch (op) {
    case 0: return canon(std::fabs(x));
    case 1: return canon(static_cast<float>(std::exp(static_cast<long double>(x))));
    case 2: return canon(static_cast<float>(std::log(static_cast<long double>(x))));
    case 3: return canon(std::sqrt(x));  // IEEE sqrt, reciprocal and division are correctly rounded
    case 4: return rsqrt_f32(x);
    case 5: return canon(1.0f / x);
    default: return canon(x != x ? x : (x > 0 ? x : 0.0f));
  }
}

// ---- lane geometry ---------------------------------------------------------------------------
struct Opnd {
  uint8_t* base = nullptr;  // host pointer of the operand's start in UB
  uint32_t off = 0;         // UB byte offset
  uint64_t blk = 0;         // bytes
  uint64_t rep = 0;         // bytes
};

struct Plan {
  uint32_t elem = 0, epr = 0, per_block = 0;
  uint64_t repeats = 0;
  // Participating lane counts of repeats 0..R-2 and of repeat R-1 (the lane lists themselves
  // are built only by the per-lane path: the contiguous fast path needs just the counts).
  uint32_t n_body = 0, n_last = 0;
  Mask128 body_mask{}, last_mask{};
  bool saturate = false;
};

inline Mask128 applicable(Mask128 m, uint32_t elem) noexcept {
  return elem == 4 ? Mask128{0, m.lo} : m;
}

inline uint32_t lane_count(Mask128 m, uint32_t epr) noexcept {
  // epr is 64 or 128 here (b32 / b16 lanes per repeat): the mask's applicable bits.
  return static_cast<uint32_t>(std::popcount(m.lo)) + (epr > 64 ? static_cast<uint32_t>(std::popcount(m.hi)) : 0u);
}

inline uint32_t lanes_of(Mask128 m, uint32_t epr, uint8_t* out) noexcept {
  uint32_t n = 0;
  for (uint32_t k = 0; k < epr; ++k) {
    if (m.lane(k)) out[n++] = static_cast<uint8_t>(k);
  }
  return n;
}

inline uint64_t lane_off(const Opnd& o, const Plan& p, uint32_t k) noexcept {
  return (k / p.per_block) * o.blk + (k % p.per_block) * p.elem;
}

template <class S>
inline S ld(const uint8_t* p) noexcept {
  S v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class S>
inline void st(uint8_t* p, S v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

inline uint64_t footprint_end(const Opnd& o, const Plan& p) noexcept {
  return o.off + (p.repeats - 1) * o.rep + 7 * o.blk + 32;
}
// Lane-wise in-order execution equals the read-all-then-write model when every source is
// disjoint from dst or is dst itself with the same geometry (each lane reads only its own
// address). Illegal overlaps never get here (validated).
inline bool independent(const Opnd& d, const Opnd& s, const Plan& p) noexcept {
  if (s.off == d.off && s.blk == d.blk && s.rep == d.rep) return true;
  return footprint_end(s, p) <= d.off || footprint_end(d, p) <= s.off;
}

// f32 add/sub/mul as the lane function returns them, before NaN canonicalisation: the
// contiguous runs below compute the raw results in a loop as tight as a native one, note
// whether any result is NaN on the way, and canonicalise in a second pass only then. `op` is
// generic, so the SSE2 loop applies it to whole vectors (addps/subps/mulps: the same IEEE
// single operations, lane by lane).
template <class Op>
struct RawF32 {
  Op op;
  static constexpr bool kCanonAfter = true;
  float operator()(float a, float b) const noexcept { return op(a, b); }
};
template <class Op>
RawF32<Op> raw_f32(Op op) noexcept {
  return RawF32<Op>{op};
}
template <class F>
concept CanonAfter = requires { F::kCanonAfter; };

// One contiguous run of n lanes (out of line: inlined into on_doorbell the loop lost its
// registers to the surrounding code and reloaded the dst pointer every iteration).
template <class S, class F>
[[gnu::noinline]] void run_contiguous(S* __restrict dp, const S* a, const S* b, uint64_t n, F f) noexcept {
  if constexpr (CanonAfter<F>) {
    int32_t any_nan = 0;  // an int OR-reduction: GCC vectorises it, a bool one it does not
    uint64_t i = 0;
#if defined(__SSE2__)
    // Eight lanes per step and one unordered compare of the two result vectors (a NaN in
    // either): half the checking of a compare per vector, which made the loop run 1.45x the
    // time of a plain add loop at 16384 lanes; this one runs at its speed. (Each step reads
    // its lanes before it writes them, as the in-place case needs.)
    __m128 nan = _mm_setzero_ps();
    for (; i + 8 <= n; i += 8) {
      const __m128 r0 = f.op(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
      const __m128 r1 = f.op(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4));
      _mm_storeu_ps(dp + i, r0);
      _mm_storeu_ps(dp + i + 4, r1);
      nan = _mm_or_ps(nan, _mm_cmpunord_ps(r0, r1));
    }
    any_nan = _mm_movemask_ps(nan);
#endif
    for (; i < n; ++i) {
      const float r = f(a[i], b[i]);
      dp[i] = r;
      any_nan |= r != r ? -1 : 0;
    }
    if (any_nan != 0) {
      for (uint64_t k = 0; k < n; ++k) dp[k] = canon(dp[k]);
    }
  } else {
    for (uint64_t i = 0; i < n; ++i) dp[i] = f(a[i], b[i]);
  }
}

// The lane function with canonicalisation applied, for the per-lane (gather/scatter) path.
template <class S, class F>
inline S lane_value(const F& f, S a, S b) noexcept {
  if constexpr (CanonAfter<F>) {
    return canon(f(a, b));
  } else {
    return f(a, b);
  }
}

// Elementwise driver. `f(a, b)` computes one lane from the loaded source values.
template <class S, uint32_t kSrcs, class F>
void elementwise(const Plan& p, const Opnd& d, const Opnd* s, F f) noexcept {
  const bool contiguous_lanes = p.n_body == p.epr && d.blk == 32 && s[0].blk == 32 &&
                                (kSrcs < 2 || s[kSrcs - 1].blk == 32);
  bool indep = true;
  for (uint32_t i = 0; i < kSrcs; ++i) indep = indep && independent(d, s[i], p);
  if (contiguous_lanes && indep) {
    const uint64_t epr = p.epr;
    const bool flat = d.rep == 256 && s[0].rep == 256 && (kSrcs < 2 || s[kSrcs - 1].rep == 256);
    if (flat) {  // one run over every lane of every repeat
      const uint64_t n = (p.repeats - 1) * epr + p.n_last;
      run_contiguous<S>(reinterpret_cast<S*>(d.base), reinterpret_cast<const S*>(s[0].base),
                        reinterpret_cast<const S*>(s[kSrcs - 1].base), n, f);
      return;
    }
    for (uint64_t r = 0; r < p.repeats; ++r) {
      const uint64_t n = r + 1 == p.repeats ? p.n_last : epr;
      run_contiguous<S>(reinterpret_cast<S*>(d.base + r * d.rep),
                        reinterpret_cast<const S*>(s[0].base + r * s[0].rep),
                        reinterpret_cast<const S*>(s[kSrcs - 1].base + r * s[kSrcs - 1].rep), n, f);
    }
    return;
  }
  // General path: per repeat, gather the participating lanes of each source, compute, then
  // scatter to dst. Offsets inside a repeat are precomputed per lane.
  uint64_t od[128], oa[128], ob[128];
  const uint32_t epr = p.epr < 128 ? p.epr : 128;
  for (uint32_t k = 0; k < epr; ++k) {
    od[k] = lane_off(d, p, k);
    oa[k] = lane_off(s[0], p, k);
    ob[k] = lane_off(s[kSrcs - 1], p, k);
  }
  uint8_t body[128], last[128];  // participating lanes of repeats 0..R-2 / of repeat R-1
  lanes_of(p.body_mask, p.epr, body);
  lanes_of(p.last_mask, p.epr, last);
  S va[128], vb[128], out[128];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const bool is_last = r + 1 == p.repeats;
    const uint8_t* lanes = is_last ? last : body;
    const uint32_t n = is_last ? p.n_last : p.n_body;
    const uint8_t* ab = s[0].base + r * s[0].rep;
    const uint8_t* bb = s[kSrcs - 1].base + r * s[kSrcs - 1].rep;
    for (uint32_t i = 0; i < n; ++i) {
      va[i] = ld<S>(ab + oa[lanes[i]]);
      vb[i] = ld<S>(bb + ob[lanes[i]]);
    }
    for (uint32_t i = 0; i < n; ++i) out[i] = lane_value<S>(f, va[i], vb[i]);
    uint8_t* db = d.base + r * d.rep;
    for (uint32_t i = 0; i < n; ++i) st<S>(db + od[lanes[i]], out[i]);
  }
}

// ---- reductions ------------------------------------------------------------------------------
// Values are carried as double (f16: every intermediate is a half, rounded per step) or float.
template <class V>
struct RedOps;
template <>
struct RedOps<float> {
  static float load(const uint8_t* p) noexcept { return ld<float>(p); }
  static float add(float a, float b, bool) noexcept { return canon(a + b); }
  static void store(uint8_t* p, float v) noexcept { st<float>(p, v); }
  static uint32_t index_bits(uint32_t k) noexcept { return k; }
  static constexpr uint32_t kElem = 4;
};
template <>
struct RedOps<double> {  // f16
  static double load(const uint8_t* p) noexcept { return h2d(ld<uint16_t>(p)); }
  static double add(double a, double b, bool sat) noexcept { return h2d(sat_h(d2h(a + b), sat)); }
  static void store(uint8_t* p, double v) noexcept { st<uint16_t>(p, d2h(v)); }
  static uint32_t index_bits(uint32_t k) noexcept { return k; }
  static constexpr uint32_t kElem = 2;
};

template <class V>
V tree(V* v, uint32_t n, bool sat) noexcept {  // adjacent pairs, level by level; n power of 2
  while (n > 1) {
    for (uint32_t i = 0; i < n / 2; ++i) v[i] = RedOps<V>::add(v[2 * i], v[2 * i + 1], sat);
    n /= 2;
  }
  return v[0];
}

// "better" for vcmax (is_max) / vcmin under tilefw's total order (-0 < +0; NaN handled apart).
template <class V>
inline bool better(V a, V b, bool is_max) noexcept {
  if (a == b) return is_max ? (!std::signbit(a) && std::signbit(b)) : (std::signbit(a) && !std::signbit(b));
  return is_max ? a > b : a < b;
}

// f32 vcadd over repeats with all 64 lanes set and unit block stride (TROWSUM's common case):
// the same adjacent-pair tree on raw sums, canonicalised once at the root. Equal to canon at
// every step: non-NaN sums are the same, and a NaN anywhere in the tree reaches the root.
inline float tree64_f32(const uint8_t* src) noexcept {
#if defined(__SSE2__)
  // Four adjacent pairs per addps: even lanes + odd lanes of two vectors (GCC vectorises the
  // native loop of the benchmark the same way; each lane is still one IEEE single add).
  __m128 v[16];
  for (uint32_t k = 0; k < 16; ++k) v[k] = _mm_loadu_ps(reinterpret_cast<const float*>(src) + 4 * k);
  for (uint32_t n = 16; n > 1; n /= 2) {
    for (uint32_t k = 0; k < n / 2; ++k) {
      v[k] = _mm_add_ps(_mm_shuffle_ps(v[2 * k], v[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm_shuffle_ps(v[2 * k], v[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    }
  }
  float t[4];
  _mm_storeu_ps(t, v[0]);
  return (t[0] + t[1]) + (t[2] + t[3]);
#else
  float t[64];
  std::memcpy(t, src, sizeof t);
  for (uint32_t w = 32; w >= 1; w /= 2) {
    for (uint32_t i = 0; i < w; ++i) t[i] = t[2 * i] + t[2 * i + 1];
  }
  return t[0];
#endif
}

[[gnu::noinline]] void vcadd_f32_full(const Plan& p, const Opnd& d, uint64_t dst_unit, const Opnd& s) noexcept {
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const float sum = tree64_f32(s.base + r * s.rep);  // the whole repeat is read before the write
    st<float>(d.base + r * d.rep * dst_unit, canon(sum));
  }
}

template <class V>
void reduce(const Plan& p, uint32_t op, desc::ReduceOrder order, const Opnd& d, uint64_t dst_unit,
            const Opnd& s) noexcept {
  if constexpr (std::is_same_v<V, float>) {
    if (op == 0 && p.epr == 64 && s.blk == 32 && p.body_mask.lo == ~uint64_t{0} && p.last_mask.lo == ~uint64_t{0}) {
      vcadd_f32_full(p, d, dst_unit, s);
      return;
    }
  }
  using R = RedOps<V>;
  const uint32_t E = R::kElem;
  uint64_t os[128];
  const uint32_t epr = p.epr < 128 ? p.epr : 128;
  for (uint32_t k = 0; k < epr; ++k) os[k] = lane_off(s, p, k);
  V v[128];
  bool on[128];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const bool is_last = r + 1 == p.repeats;
    const Mask128 m = is_last ? p.last_mask : p.body_mask;
    const uint8_t* sb = s.base + r * s.rep;
    // Read the whole repeat first (masked lanes as +0), then write.
    for (uint32_t k = 0; k < epr; ++k) {
      on[k] = m.lane(k);
      v[k] = on[k] ? R::load(sb + os[k]) : V(0);
    }
    uint8_t* db = d.base + r * d.rep * dst_unit;
    switch (op) {
      case 0:  // vcadd
        R::store(db, tree(v, epr, p.saturate));
        break;
      case 1: {  // vcgadd: one tree per block; an all-masked block is not written
        V out[8];
        bool any[8];
        for (uint32_t b = 0; b < 8; ++b) {
          any[b] = false;
          for (uint32_t e = 0; e < p.per_block; ++e) any[b] = any[b] || on[b * p.per_block + e];
          out[b] = tree(v + b * p.per_block, p.per_block, p.saturate);
        }
        for (uint32_t b = 0; b < 8; ++b) {
          if (any[b]) R::store(db + b * E, out[b]);
        }
        break;
      }
      case 2: {  // vcpadd: output j = x(2j) + x(2j+1), written when either lane takes part
        V out[64];
        for (uint32_t j = 0; j < p.epr / 2; ++j) out[j] = R::add(v[2 * j], v[2 * j + 1], p.saturate);
        for (uint32_t j = 0; j < p.epr / 2; ++j) {
          if (on[2 * j] || on[2 * j + 1]) R::store(db + j * E, out[j]);
        }
        break;
      }
      default: {  // vcmax (3) / vcmin (4): first NaN wins, else best value, smallest index
        const bool is_max = op == 3;
        uint32_t best = 0;
        bool have = false;
        for (uint32_t k = 0; k < epr; ++k) {
          if (!on[k]) continue;
          if (v[k] != v[k]) {
            best = k;
            have = true;
            break;
          }
          if (!have || better(v[k], v[best], is_max)) best = k;
          have = true;
        }
        if (!have) break;  // cannot happen: validated repeats have a lane
        const V val = v[best] != v[best] ? std::numeric_limits<V>::quiet_NaN() : v[best];
        const uint32_t idx = R::index_bits(best);
        auto store_idx = [&](uint8_t* q) {
          if (E == 2) st<uint16_t>(q, static_cast<uint16_t>(idx));
          else st<uint32_t>(q, idx);
        };
        switch (order) {
          case desc::ReduceOrder::value_index:
            R::store(db, val);
            store_idx(db + E);
            break;
          case desc::ReduceOrder::index_value:
            store_idx(db);
            R::store(db + E, val);
            break;
          case desc::ReduceOrder::only_value:
            R::store(db, val);
            break;
          case desc::ReduceOrder::only_index:
            st<uint32_t>(db, idx);
            break;
        }
        break;
      }
    }
  }
}

// f16 results of reductions pass through sat_h at each step already; the value stored by
// R::store is re-rounded (exact: already a half) so saturation applies to stored values too.

}  // namespace

A2a3VectorUnit::A2a3VectorUnit(Machine& machine, uint64_t register_base, PipeTracker* pipes)
    : machine_(machine),
      base_(register_base != 0 ? register_base : chip::a2a3::kVectorUnitRegisters.base),
      pipes_(pipes) {
  auto ub = machine_.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
  ub_ = ub.ok() ? *ub : nullptr;
  // Reset state = tilefw's initial state (vector-semantics decision 4), which is also what a
  // default issue::VectorUnit shadow assumes: normal mode, Inf/NaN, MASK all ones.
  machine_.write64(base_ + vreg::kCtrl, vreg::kCtrlReset);
  machine_.write64(base_ + vreg::kMaskLo, ~uint64_t{0});
  machine_.write64(base_ + vreg::kMaskHi, ~uint64_t{0});
  machine_.on_write(base_ + vreg::kDoorbell, [this](uint64_t, uint64_t value) {
    if ((value & 1u) != 0) on_doorbell();
  });
}

bool A2a3VectorUnit::take(const desc::DescReport& r) noexcept {
  report_ = r;
  status_ = r.status;
  machine_.write32(base_ + vreg::kStatus, static_cast<uint32_t>(r.status));
  machine_.write32(base_ + vreg::kFaultOffset,
                   r.ok() ? 0u : static_cast<uint32_t>(r.byte_offset > 0xFFFFFFFFu ? 0xFFFFFFFFu : r.byte_offset));
  if (!r.ok()) {
    ++faults_;
    return false;
  }
  if (r.nop || ub_ == nullptr) {
    ++nops_;
    return false;
  }
  return true;
}

void A2a3VectorUnit::on_doorbell() noexcept {
  Machine& m = machine_;
  ++issues_;
  if (pipes_ != nullptr) pipes_->begin(chip::a2a3::Pipe::V);
  m.write32(base_ + vreg::kIssueCount, static_cast<uint32_t>(issues_));
  const uint64_t ctrl = m.read64(base_ + vreg::kCtrl);
  const Mask128 mask{m.read64(base_ + vreg::kMaskHi), m.read64(base_ + vreg::kMaskLo)};
  const uint32_t opw = m.read32(base_ + vreg::kOp);
  const uint32_t repeat = m.read32(base_ + vreg::kRepeat) & 0xFFu;
  const uint32_t dst_off = m.read32(base_ + vreg::kDstAddr);
  const uint32_t s0_off = m.read32(base_ + vreg::kSrc0Addr);
  const uint32_t s1_off = m.read32(base_ + vreg::kSrc1Addr);
  const uint32_t ds = m.read32(base_ + vreg::kDstStride);
  const uint32_t s0s = m.read32(base_ + vreg::kSrc0Stride);
  const uint32_t s1s = m.read32(base_ + vreg::kSrc1Stride);
  const bool counter = (ctrl & vreg::kCtrlCounterMode) != 0;
  const desc::MaskMode mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
  const uint32_t count = counter ? static_cast<uint32_t>(mask.lo) : 0u;
  const uint32_t code = opw & 0xFFu;
  const uint32_t cls = code & 0xF0u;
  const uint32_t idx = code & 0x0Fu;
  const uint32_t dt_code = (opw >> 8) & 0xFFu;

  if (cls == vreg::kOpClassCopy || cls == vreg::kOpClassDup || cls == vreg::kOpClassCvt ||
      cls == vreg::kOpClassBrcb) {
    on_move_issue(cls, idx, dt_code, ctrl, mask, repeat, dst_off, s0_off, ds, s0s);
    return;
  }
  desc::DescReport r{};
  const bool dt_known = dt_code <= static_cast<uint32_t>(DType::u32);
  const DType dt = dt_known ? static_cast<DType>(dt_code) : DType::u32;
  auto blk = [](uint32_t w) { return w & 0xFFFFu; };
  auto rep = [](uint32_t w) { return w >> 16; };
  uint32_t reduce_order = 0;
  if (cls == vreg::kOpClassBinary) {
    desc::BinIntrinsicDesc d{};
    d.op = static_cast<desc::BinaryOp>(idx);
    d.repeat = repeat;
    d.dst_block_stride = blk(ds);
    d.src0_block_stride = blk(s0s);
    d.src1_block_stride = blk(s1s);
    d.dst_repeat_stride = rep(ds);
    d.src0_repeat_stride = rep(s0s);
    d.src1_repeat_stride = rep(s1s);
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst.offset = dst_off;
    d.src0.offset = s0_off;
    d.src1.offset = s1_off;
    r = desc::validate(d, dt, mask);
  } else if (cls == vreg::kOpClassUnary || cls == vreg::kOpClassScalar) {
    desc::UnaryDesc d{};
    d.op = static_cast<desc::UnaryOp>(idx);
    d.repeat = repeat;
    d.dst_block_stride = blk(ds);
    d.src_block_stride = blk(s0s);
    d.dst_repeat_stride = rep(ds);
    d.src_repeat_stride = rep(s0s);
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst.offset = dst_off;
    d.src.offset = s0_off;
    if (cls == vreg::kOpClassUnary) {
      r = desc::validate(d, dt, mask);
    } else {
      desc::ScalarDesc sd{};
      sd.op = static_cast<desc::ScalarOp>(idx);
      sd.repeat = d.repeat;
      sd.dst_block_stride = d.dst_block_stride;
      sd.src_block_stride = d.src_block_stride;
      sd.dst_repeat_stride = d.dst_repeat_stride;
      sd.src_repeat_stride = d.src_repeat_stride;
      sd.mask_mode = mode;
      sd.vector_count = count;
      sd.dst = d.dst;
      sd.src = d.src;
      r = desc::validate(sd, dt, mask);
    }
  } else if (cls == vreg::kOpClassReduce) {
    const uint32_t rw = m.read32(base_ + vreg::kReduce);
    reduce_order = rw & 0x3u;
    desc::ReduceDesc d{};
    d.op = static_cast<desc::ReduceOp>(idx);
    d.repeat = repeat;
    d.src_block_stride = blk(s0s);
    d.dst_repeat_stride = rep(ds);
    d.src_repeat_stride = rep(s0s);
    d.mask_mode = mode;
    d.vector_count = count;
    d.vcadd_mode = (rw >> 8) & 0x3u;
    d.order = static_cast<desc::ReduceOrder>(reduce_order);
    d.dst.offset = dst_off;
    d.src.offset = s0_off;
    r = desc::validate(d, dt, mask);
  } else {
    r.status = Status::desc_unknown_op;
    r.field = "op";
    r.value = code;
  }
  if (r.ok() && !dt_known) {
    r.status = Status::desc_unsupported_dtype;
    r.field = "dtype";
    r.value = dt_code;
  }
  if (!take(r)) return;

  // ---- execute ----
  Plan p{};
  p.elem = dtype_size(dt);
  p.epr = chip::a2a3::lanes_per_repeat(p.elem);
  p.per_block = 32 / p.elem;
  p.saturate = (ctrl & vreg::kCtrlInfNan) == 0 && dt == DType::f16;
  if (counter) {
    p.repeats = (uint64_t{count} + p.epr - 1) / p.epr;
    const uint32_t rem = count % p.epr;
    p.body_mask = Mask128::continuous(p.epr);
    p.last_mask = Mask128::continuous(rem != 0 ? rem : p.epr);
  } else {
    p.repeats = repeat;
    p.body_mask = applicable(mask, p.elem);
    p.last_mask = p.body_mask;
  }
  p.n_body = lane_count(p.body_mask, p.epr);
  p.n_last = lane_count(p.last_mask, p.epr);
  auto opnd = [&](uint32_t off, uint32_t stride_word, uint64_t rep_unit) {
    Opnd o;
    o.base = ub_ + off;
    o.off = off;
    o.blk = uint64_t{blk(stride_word)} * 32;
    o.rep = uint64_t{rep(stride_word)} * rep_unit;
    return o;
  };
  const Opnd src0 = opnd(s0_off, s0s, 32);
  const bool sat = p.saturate;
  if (pipes_ != nullptr) {  // what this issue reads and writes, for the hazard check
    namespace va = vector_access;
    const uint8_t body = va::block_bits(p.body_mask, p.epr, p.per_block);
    const uint8_t last = va::block_bits(p.last_mask, p.epr, p.per_block);
    va::blocks(*pipes_, false, s0_off, src0.blk, src0.rep, p.repeats, body, last);
    if (cls == vreg::kOpClassBinary) {
      va::blocks(*pipes_, false, s1_off, uint64_t{blk(s1s)} * 32, uint64_t{rep(s1s)} * 32, p.repeats, body, last);
    }
    if (cls == vreg::kOpClassReduce) {
      const auto order = static_cast<desc::ReduceOrder>(reduce_order);
      const uint64_t unit = desc::reduce_dst_unit_bytes(static_cast<desc::ReduceOp>(idx),
                                                        idx >= 3 ? order : desc::ReduceOrder::value_index, p.elem);
      // Every reduction writes at most one dst unit per repeat (the conformance table).
      va::runs(*pipes_, true, dst_off, uint64_t{rep(ds)} * unit, unit, p.repeats);
    } else {
      va::blocks(*pipes_, true, dst_off, uint64_t{blk(ds)} * 32, uint64_t{rep(ds)} * 32, p.repeats, body, last);
    }
  }

  if (cls == vreg::kOpClassReduce) {
    const Opnd dst = opnd(dst_off, ds, 1);  // rep = stride count; the unit is applied in reduce()
    const auto order = static_cast<desc::ReduceOrder>(reduce_order);
    const uint64_t unit = desc::reduce_dst_unit_bytes(static_cast<desc::ReduceOp>(idx),
                                                      idx >= 3 ? order : desc::ReduceOrder::value_index, p.elem);
    if (dt == DType::f32) reduce<float>(p, idx, order, dst, unit, src0);
    else reduce<double>(p, idx, order, dst, unit, src0);
    return;
  }
  const Opnd dst = opnd(dst_off, ds, 32);
  if (cls == vreg::kOpClassBinary) {
    const Opnd srcs[2] = {src0, opnd(s1_off, s1s, 32)};
    switch (dt) {
      case DType::f32:
        switch (idx) {  // one instantiation per op keeps the fast loop branch-free
          case 0: elementwise<float, 2>(p, dst, srcs, raw_f32([](auto a, auto b) { return a + b; })); break;
          case 1: elementwise<float, 2>(p, dst, srcs, raw_f32([](auto a, auto b) { return a - b; })); break;
          case 2: elementwise<float, 2>(p, dst, srcs, raw_f32([](auto a, auto b) { return a * b; })); break;
          default: elementwise<float, 2>(p, dst, srcs, [idx](float a, float b) { return bin_f(idx, a, b); }); break;
        }
        break;
      case DType::f16:
        elementwise<uint16_t, 2>(p, dst, srcs, [idx, sat](uint16_t a, uint16_t b) {
          return sat_h(d2h(bin_d(idx, h2d(a), h2d(b))), sat);
        });
        break;
      case DType::i16:
        elementwise<int16_t, 2>(p, dst, srcs, [idx](int16_t a, int16_t b) { return bin_i<int16_t>(idx, a, b); });
        break;
      default:  // i32
        elementwise<int32_t, 2>(p, dst, srcs, [idx](int32_t a, int32_t b) { return bin_i<int32_t>(idx, a, b); });
        break;
    }
    return;
  }
  if (cls == vreg::kOpClassScalar) {
    const uint32_t sbits = m.read32(base_ + vreg::kScalar);
    const uint32_t bop = kScalarToBinary[idx];
    switch (dt) {
      case DType::f32: {
        const float sc = std::bit_cast<float>(sbits);
        elementwise<float, 1>(p, dst, &src0, [bop, sc](float a, float) { return bin_f(bop, a, sc); });
        break;
      }
      case DType::f16: {
        const double sc = h2d(static_cast<uint16_t>(sbits));
        elementwise<uint16_t, 1>(p, dst, &src0, [bop, sc, sat](uint16_t a, uint16_t) {
          return sat_h(d2h(bin_d(bop, h2d(a), sc)), sat);
        });
        break;
      }
      case DType::i16: {
        const auto sc = static_cast<int16_t>(static_cast<uint16_t>(sbits));
        elementwise<int16_t, 1>(p, dst, &src0, [bop, sc](int16_t a, int16_t) { return bin_i<int16_t>(bop, a, sc); });
        break;
      }
      default: {
        const auto sc = static_cast<int32_t>(sbits);
        elementwise<int32_t, 1>(p, dst, &src0, [bop, sc](int32_t a, int32_t) { return bin_i<int32_t>(bop, a, sc); });
        break;
      }
    }
    return;
  }
  // unary
  switch (dt) {
    case DType::f32:
      elementwise<float, 1>(p, dst, &src0, [idx](float a, float) { return un_f(idx, a); });
      break;
    case DType::f16:
      elementwise<uint16_t, 1>(p, dst, &src0, [idx, sat](uint16_t a, uint16_t) {
        return sat_h(d2h(un_d(idx, h2d(a))), sat);
      });
      break;
    default:  // i32 vrelu
      elementwise<int32_t, 1>(p, dst, &src0, [](int32_t a, int32_t) { return a > 0 ? a : 0; });
      break;
  }
}

// ---- copy, duplicate, conversion ------------------------------------------------------------
namespace {

// Lanes of one repeat in effect (mask applied; count mode: full repeats, then the remainder).
inline Mask128 repeat_lanes(bool counter, uint32_t count, Mask128 mask, uint32_t epr, uint64_t r,
                            uint64_t repeats, uint32_t elem) noexcept {
  if (!counter) return applicable(mask, elem);
  const uint32_t rem = count % epr;
  return Mask128::continuous(r + 1 == repeats && rem != 0 ? rem : epr);
}

// f32 -> f16 under a vconv RoundMode. Directed and odd modes pick one of the two halves
// around the value, found from the nearest-even result.
uint16_t f32_to_f16(float x, desc::RoundMode mode) noexcept {
  const uint32_t xb = std::bit_cast<uint32_t>(x);
  if (x != x) return kHalfQNaN;
  if (mode == desc::RoundMode::round) return float_bits_to_half_bits(xb, tilefw::RoundMode::half_away_from_zero);
  const uint16_t rne = float_bits_to_half_bits(xb, tilefw::RoundMode::nearest_even);
  if (mode == desc::RoundMode::rint || std::isinf(x)) return rne;
  const double v = x;
  const double got = h2d(rne);
  if (got == v) return rne;
  // Neighbours along the real line: for positive halves the next bit pattern is larger.
  auto step = [](uint16_t h, bool up) -> uint16_t {
    const bool neg = (h & 0x8000u) != 0;
    if ((h & 0x7FFFu) == 0) return up ? uint16_t{0x0001} : uint16_t{0x8001};
    return static_cast<uint16_t>(up != neg ? h + 1 : h - 1);
  };
  const uint16_t lo = got < v ? rne : step(rne, false);
  const uint16_t hi = got < v ? step(rne, true) : rne;
  switch (mode) {
    case desc::RoundMode::floor: return lo;
    case desc::RoundMode::ceil: return hi;
    case desc::RoundMode::trunc: return v > 0 ? lo : hi;
    default: return (lo & 1u) != 0 ? lo : hi;  // odd
  }
}

int32_t to_i32(double v, desc::RoundMode mode) noexcept {
  if (v != v) return 0;
  double r = v;
  switch (mode) {
    case desc::RoundMode::round: r = std::round(v); break;
    case desc::RoundMode::floor: r = std::floor(v); break;
    case desc::RoundMode::ceil: r = std::ceil(v); break;
    case desc::RoundMode::trunc: r = std::trunc(v); break;
    default: r = std::nearbyint(v); break;  // rint: nearest even (default FP environment)
  }
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(r);
}

}  // namespace

void A2a3VectorUnit::on_move_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, uint64_t ctrl, Mask128 mask,
                                   uint32_t repeat, uint32_t dst_off, uint32_t src_off, uint32_t dst_stride,
                                   uint32_t src_stride) noexcept {
  Machine& m = machine_;
  const bool counter = (ctrl & vreg::kCtrlCounterMode) != 0;
  const desc::MaskMode mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
  const uint32_t count = counter ? static_cast<uint32_t>(mask.lo) : 0u;
  auto blk = [](uint32_t w) { return w & 0xFFFFu; };
  auto rep = [](uint32_t w) { return w >> 16; };
  const bool dt_known = dt_code <= static_cast<uint32_t>(DType::u32);
  const DType dt = static_cast<DType>(dt_known ? dt_code : 0);
  desc::DescReport r{};

  if (cls == vreg::kOpClassCopy) {
    const uint32_t bw = m.read32(base_ + vreg::kCopyBurst);
    const uint32_t gw = m.read32(base_ + vreg::kCopyGap);
    desc::CopyDesc d{};
    d.nburst = bw & 0xFFFu;
    d.burst_len = bw >> 16;
    d.src_gap = gw & 0xFFFFu;
    d.dst_gap = gw >> 16;
    d.dst.offset = dst_off;
    d.src.offset = src_off;
    r = desc::validate(d);
    if (!take(r)) return;
    const uint64_t len = uint64_t{d.burst_len} * 32;
    if (pipes_ != nullptr) {
      vector_access::runs(*pipes_, false, src_off, len + uint64_t{d.src_gap} * 32, len, d.nburst);
      vector_access::runs(*pipes_, true, dst_off, len + uint64_t{d.dst_gap} * 32, len, d.nburst);
    }
    for (uint32_t b = 0; b < d.nburst; ++b) {  // disjoint by validation: order does not matter
      std::memcpy(ub_ + dst_off + b * (len + uint64_t{d.dst_gap} * 32),
                  ub_ + src_off + b * (len + uint64_t{d.src_gap} * 32), len);
    }
    return;
  }

  if (cls == vreg::kOpClassBrcb) {
    desc::BrcbDesc d{};
    d.repeat = repeat;
    d.dst_block_stride = blk(dst_stride);
    d.dst_repeat_stride = rep(dst_stride);
    d.dst.offset = dst_off;
    d.src.offset = src_off;
    if (!dt_known) {
      r.status = Status::desc_unsupported_dtype;
      r.field = "dtype";
      r.value = dt_code;
    } else {
      r = desc::validate(d, dt);
    }
    if (!take(r)) return;
    // Reads and writes are disjoint (validated): repeat r broadcasts src[8r + k] into dst block k.
    const uint32_t elem = dtype_size(dt);
    if (pipes_ != nullptr) {
      vector_access::runs(*pipes_, false, src_off, 8 * elem, 8 * elem, d.repeat);
      vector_access::blocks(*pipes_, true, dst_off, uint64_t{d.dst_block_stride} * 32, uint64_t{d.dst_repeat_stride} * 32,
                            d.repeat, 0xFF, 0xFF);
    }
    const uint32_t per_block = 32 / elem;
    for (uint64_t i = 0; i < d.repeat; ++i) {
      for (uint32_t k = 0; k < 8; ++k) {
        const uint8_t* from = ub_ + src_off + (8 * i + k) * elem;
        uint8_t* block = ub_ + dst_off + (i * d.dst_repeat_stride + uint64_t{k} * d.dst_block_stride) * 32;
        for (uint32_t e = 0; e < per_block; ++e) std::memcpy(block + e * elem, from, elem);
      }
    }
    return;
  }

  if (cls == vreg::kOpClassDup) {
    desc::DupDesc d{};
    d.scalar_bits = m.read32(base_ + vreg::kScalar);
    d.repeat = repeat;
    d.dst_block_stride = blk(dst_stride);
    d.dst_repeat_stride = rep(dst_stride);
    d.mask_mode = mode;
    d.vector_count = count;
    d.dst.offset = dst_off;
    if (!dt_known) {
      r.status = Status::desc_unsupported_dtype;
      r.field = "dtype";
      r.value = dt_code;
    } else {
      r = desc::validate(d, dt, mask);
    }
    if (!take(r)) return;
    const uint32_t elem = dtype_size(dt);
    const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
    const uint32_t per_block = 32 / elem;
    const uint64_t repeats = r.repeats;
    if (pipes_ != nullptr) {
      const uint8_t body = vector_access::block_bits(repeat_lanes(counter, count, mask, epr, 0, 2, elem), epr, per_block);
      const uint8_t last =
          vector_access::block_bits(repeat_lanes(counter, count, mask, epr, repeats - 1, repeats, elem), epr, per_block);
      vector_access::blocks(*pipes_, true, dst_off, uint64_t{d.dst_block_stride} * 32,
                            uint64_t{d.dst_repeat_stride} * 32, repeats, body, last);
    }
    for (uint64_t i = 0; i < repeats; ++i) {
      const Mask128 lanes = repeat_lanes(counter, count, mask, epr, i, repeats, elem);
      for (uint32_t k = 0; k < epr; ++k) {
        if (!lanes.lane(k)) continue;
        uint8_t* at = ub_ + dst_off + i * uint64_t{d.dst_repeat_stride} * 32 +
                      (k / per_block) * uint64_t{d.dst_block_stride} * 32 + (k % per_block) * elem;
        if (elem == 2) st<uint16_t>(at, static_cast<uint16_t>(d.scalar_bits));
        else st<uint32_t>(at, d.scalar_bits);
      }
    }
    return;
  }

  // vconv
  const uint32_t src_code = m.read32(base_ + vreg::kCvtSrc) & 0xFFu;
  desc::CvtDesc d{};
  d.dst_type = dt;
  d.src_type = static_cast<DType>(src_code <= static_cast<uint32_t>(DType::u32) ? src_code : 0);
  d.round = static_cast<desc::RoundMode>(idx);
  d.repeat = repeat;
  d.dst_block_stride = blk(dst_stride);
  d.src_block_stride = blk(src_stride);
  d.dst_repeat_stride = rep(dst_stride);
  d.src_repeat_stride = rep(src_stride);
  d.mask_mode = mode;
  d.vector_count = count;
  d.dst.offset = dst_off;
  d.src.offset = src_off;
  if (!dt_known || src_code > static_cast<uint32_t>(DType::u32)) {
    r.status = Status::desc_unsupported_dtype;
    r.field = "dtype";
    r.value = dt_known ? src_code : dt_code;
  } else {
    r = desc::validate(d, mask);
  }
  if (!take(r)) return;
  const uint32_t ds = dtype_size(d.dst_type);
  const uint32_t ss = dtype_size(d.src_type);
  constexpr uint32_t kLanes = 64;  // every supported pair has a 32-bit side
  const bool sat = (ctrl & vreg::kCtrlInfNan) == 0;
  const uint64_t repeats = r.repeats;
  if (pipes_ != nullptr) {
    namespace va = vector_access;
    const Mask128 body = repeat_lanes(counter, count, mask, kLanes, 0, 2, 4);
    const Mask128 last = repeat_lanes(counter, count, mask, kLanes, repeats - 1, repeats, 4);
    va::blocks(*pipes_, false, src_off, uint64_t{d.src_block_stride} * 32, uint64_t{d.src_repeat_stride} * 32, repeats,
               va::block_bits(body, kLanes, 32 / ss), va::block_bits(last, kLanes, 32 / ss));
    va::blocks(*pipes_, true, dst_off, uint64_t{d.dst_block_stride} * 32, uint64_t{d.dst_repeat_stride} * 32, repeats,
               va::block_bits(body, kLanes, 32 / ds), va::block_bits(last, kLanes, 32 / ds));
  }
  uint32_t out[kLanes];
  for (uint64_t i = 0; i < repeats; ++i) {
    const Mask128 lanes = repeat_lanes(counter, count, mask, kLanes, i, repeats, 4);
    const uint8_t* sb = ub_ + src_off + i * uint64_t{d.src_repeat_stride} * 32;
    uint8_t* db = ub_ + dst_off + i * uint64_t{d.dst_repeat_stride} * 32;
    auto src_at = [&](uint32_t k) { return sb + (k / (32 / ss)) * uint64_t{d.src_block_stride} * 32 + (k % (32 / ss)) * ss; };
    auto dst_at = [&](uint32_t k) { return db + (k / (32 / ds)) * uint64_t{d.dst_block_stride} * 32 + (k % (32 / ds)) * ds; };
    for (uint32_t k = 0; k < kLanes; ++k) {  // every read of the repeat before its writes
      if (!lanes.lane(k)) continue;
      const uint8_t* at = src_at(k);
      switch (d.src_type) {
        case DType::f16: {
          const uint16_t h = ld<uint16_t>(at);
          if (d.dst_type == DType::f32) {
            out[k] = std::bit_cast<uint32_t>(canon(static_cast<float>(h2d(h))));
          } else {
            out[k] = static_cast<uint32_t>(to_i32(h2d(h), d.round));
          }
          break;
        }
        case DType::bf16:
          out[k] = std::bit_cast<uint32_t>(canon(std::bit_cast<float>(bf16_bits_to_float_bits(ld<uint16_t>(at)))));
          break;
        case DType::i32:
          out[k] = std::bit_cast<uint32_t>(static_cast<float>(ld<int32_t>(at)));
          break;
        default: {  // f32
          const float x = ld<float>(at);
          if (d.dst_type == DType::f16) {
            out[k] = sat_h(f32_to_f16(x, d.round), sat);
          } else if (d.dst_type == DType::bf16) {
            out[k] = x != x ? 0x7FC0u : float_bits_to_bf16_bits(std::bit_cast<uint32_t>(x));
          } else {
            out[k] = static_cast<uint32_t>(to_i32(x, d.round));
          }
          break;
        }
      }
    }
    for (uint32_t k = 0; k < kLanes; ++k) {
      if (!lanes.lane(k)) continue;
      if (ds == 2) st<uint16_t>(dst_at(k), static_cast<uint16_t>(out[k]));
      else st<uint32_t>(dst_at(k), out[k]);
    }
  }
}

}  // namespace tilefw::port::host
