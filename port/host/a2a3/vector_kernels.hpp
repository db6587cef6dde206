// Execution kernels of the simulated a2a3 vector unit: lane geometry of an issue (Plan,
// Opnd), the elementwise loop with its contiguous fast path, and the reductions (adjacent-pair
// trees, vcmax/vcmin order). Internal to port/host: included by the vector unit's sources only.
#pragma once

#include "a2a3/vector_math.hpp"

namespace tilefw::port::host::vector_model {

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
  // Direction of a contiguous run (see run_contiguous): the unit alternates it per issue.
  bool descending = false;
};

inline Mask128 applicable(Mask128 m, uint32_t elem) noexcept {
  return elem == 4 ? Mask128{0, m.lo} : m;
}

// Set bits of a word. std::popcount is a libgcc call on a baseline x86-64 build (no POPCNT),
// paid on every issue here; the SWAR count is a dozen inline instructions.
constexpr uint32_t bit_count(uint64_t w) noexcept {
  w = w - ((w >> 1) & 0x5555555555555555ull);
  w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
  w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<uint32_t>((w * 0x0101010101010101ull) >> 56);
}
static_assert(bit_count(0) == 0 && bit_count(~uint64_t{0}) == 64 && bit_count(0x8000000000000001ull) == 2);

inline uint32_t lane_count(Mask128 m, uint32_t epr) noexcept {
  // epr is 64 or 128 here (b32 / b16 lanes per repeat): the mask's applicable bits.
  return bit_count(m.lo) + (epr > 64 ? bit_count(m.hi) : 0u);
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

// f32 add/sub/mul over [0, n) from the top down: the mirror of run_contiguous's ascending
// loop (the tail first, then eight lanes per step downwards), with the same NaN note.
template <class F>
int32_t raw_f32_descending(float* __restrict dp, const float* a, const float* b, uint64_t n, F f) noexcept {
  int32_t any_nan = 0;
  uint64_t i = n;
  for (; i % 8 != 0; --i) {
    const float r = f(a[i - 1], b[i - 1]);
    dp[i - 1] = r;
    any_nan |= r != r ? -1 : 0;
  }
#if defined(__SSE2__)
  __m128 nan = _mm_setzero_ps();
  for (; i >= 8; i -= 8) {
    const __m128 r0 = f.op(_mm_loadu_ps(a + i - 8), _mm_loadu_ps(b + i - 8));
    const __m128 r1 = f.op(_mm_loadu_ps(a + i - 4), _mm_loadu_ps(b + i - 4));
    _mm_storeu_ps(dp + i - 8, r0);
    _mm_storeu_ps(dp + i - 4, r1);
    nan = _mm_or_ps(nan, _mm_cmpunord_ps(r0, r1));
  }
  any_nan |= _mm_movemask_ps(nan);
#endif
  for (; i > 0; --i) {
    const float r = f(a[i - 1], b[i - 1]);
    dp[i - 1] = r;
    any_nan |= r != r ? -1 : 0;
  }
  return any_nan;
}

// One contiguous run of n lanes (out of line: inlined into on_doorbell the loop lost its
// registers to the surrounding code and reloaded the dst pointer every iteration). Lanes are
// independent here (elementwise takes this path only for disjoint or identical operands), so
// the order is free: `descending` runs it from the top. The unit alternates the direction per
// issue because an issue's operands (three 16 KB tiles for a 64x64 f32 TADD) fill L1 and the
// simulator's own bookkeeping between two issues evicts some of their lines; an ascending
// sweep after an ascending one then misses on every line of those sets (LRU order), while the
// reverse sweep starts with the lines the previous one touched last (bench/RESULTS.md).
template <class S, class F>
[[gnu::noinline]] void run_contiguous(S* __restrict dp, const S* a, const S* b, uint64_t n, F f,
                                      bool descending = false) noexcept {
  if constexpr (CanonAfter<F>) {
    if (descending) {
      if (raw_f32_descending(dp, a, b, n, f) != 0) {
        for (uint64_t k = 0; k < n; ++k) dp[k] = canon(dp[k]);
      }
      return;
    }
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

// The general path: per repeat, gather the participating lanes of each source, compute, then
// scatter to dst. Offsets inside a repeat are precomputed per lane. Out of line: its ~5 KB of
// lane tables would otherwise sit in the frame of every elementwise issue, spreading the fast
// path's few stack words (and its callee's) over more cache lines, which the simulated tiles
// evict between two issues.
template <class S, uint32_t kSrcs, class F>
[[gnu::noinline]] void elementwise_per_lane(const Plan& p, const Opnd& d, const Opnd* s, F f) noexcept {
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
                        reinterpret_cast<const S*>(s[kSrcs - 1].base), n, f, p.descending);
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
  elementwise_per_lane<S, kSrcs>(p, d, s, f);
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

[[gnu::noinline]] inline void vcadd_f32_full(const Plan& p, const Opnd& d, uint64_t dst_unit, const Opnd& s) noexcept {
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const float sum = tree64_f32(s.base + r * s.rep);  // the whole repeat is read before the write
    st<float>(d.base + r * d.rep * dst_unit, canon(sum));
  }
}

// vcmax / vcmin of one repeat: the first NaN wins, else the best value at the smallest index;
// stored as `order` says (value and/or index).
template <class V>
void store_extreme(const V* v, const bool* on, uint32_t epr, bool is_max, desc::ReduceOrder order,
                   uint8_t* db) noexcept {
  using R = RedOps<V>;
  const uint32_t E = R::kElem;
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
  if (!have) return;  // cannot happen: validated repeats have a lane
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
}

// vcgadd of one repeat: one tree per block; an all-masked block is not written.
template <class V>
void store_block_sums(V* v, const bool* on, const Plan& p, uint8_t* db) noexcept {
  using R = RedOps<V>;
  V out[8];
  bool any[8];
  for (uint32_t b = 0; b < 8; ++b) {
    any[b] = false;
    for (uint32_t e = 0; e < p.per_block; ++e) any[b] = any[b] || on[b * p.per_block + e];
    out[b] = tree(v + b * p.per_block, p.per_block, p.saturate);
  }
  for (uint32_t b = 0; b < 8; ++b) {
    if (any[b]) R::store(db + b * R::kElem, out[b]);
  }
}

template <class V>
void reduce(const Plan& p, desc::ReduceOp op, desc::ReduceOrder order, const Opnd& d, uint64_t dst_unit,
            const Opnd& s) noexcept {
  if constexpr (std::is_same_v<V, float>) {
    if (op == desc::ReduceOp::vcadd && p.epr == 64 && s.blk == 32 && p.body_mask.lo == ~uint64_t{0} &&
        p.last_mask.lo == ~uint64_t{0}) {
      vcadd_f32_full(p, d, dst_unit, s);
      return;
    }
  }
  using R = RedOps<V>;
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
      case desc::ReduceOp::vcadd:
        R::store(db, tree(v, epr, p.saturate));
        break;
      case desc::ReduceOp::vcgadd:
        store_block_sums(v, on, p, db);
        break;
      case desc::ReduceOp::vcpadd: {  // output j = x(2j) + x(2j+1), written when either lane takes part
        V out[64];
        for (uint32_t j = 0; j < p.epr / 2; ++j) out[j] = R::add(v[2 * j], v[2 * j + 1], p.saturate);
        for (uint32_t j = 0; j < p.epr / 2; ++j) {
          if (on[2 * j] || on[2 * j + 1]) R::store(db + j * R::kElem, out[j]);
        }
        break;
      }
      case desc::ReduceOp::vcmax:
      case desc::ReduceOp::vcmin:
        store_extreme(v, on, epr, op == desc::ReduceOp::vcmax, order, db);
        break;
    }
  }
}

// A5's register row reduction (a folded reduce issue, docs/a5-profile.md section 4): per
// repeat the lanes' vcadd tree (masked lanes +0) or the vcmax/vcmin value of the lanes that take
// part, combined in repeat order into one accumulator that starts at the op's identity (+0,
// -inf, +inf) with the binary op's rules (one rounding per add, NaN wins); written once.
template <class V>
void reduce_fold(const Plan& p, desc::ReduceOp op, const Opnd& d, const Opnd& s) noexcept {
  using R = RedOps<V>;
  const bool is_max = op == desc::ReduceOp::vcmax;
  const bool is_sum = op == desc::ReduceOp::vcadd;
  constexpr V kInf = std::numeric_limits<V>::infinity();
  V acc = is_sum ? V(0) : is_max ? -kInf : kInf;
  const uint32_t epr = p.epr < 128 ? p.epr : 128;
  V v[128];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const Mask128 m = r + 1 == p.repeats ? p.last_mask : p.body_mask;
    const uint8_t* sb = s.base + r * s.rep;
    V part = is_sum ? V(0) : is_max ? -kInf : kInf;
    uint32_t n = 0;
    for (uint32_t k = 0; k < epr; ++k) {
      const bool on = m.lane(k);
      const V x = on ? R::load(sb + lane_off(s, p, k)) : V(0);
      if (is_sum) v[k] = x;
      else if (on) v[n++] = x;
    }
    if (is_sum) {
      part = tree(v, epr, p.saturate);
      acc = R::add(acc, part, p.saturate);
      continue;
    }
    for (uint32_t k = 0; k < n; ++k) {  // the first NaN wins; else the best value
      if (v[k] != v[k]) {
        part = v[k];
        break;
      }
      if (k == 0 || better(v[k], part, is_max)) part = v[k];
    }
    acc = is_max ? fmax_rule(acc, part) : fmin_rule(acc, part);
  }
  R::store(d.base, acc != acc ? std::numeric_limits<V>::quiet_NaN() : acc);
}

// f16 results of reductions pass through sat_h at each step already; the value stored by
// R::store is re-rounded (exact: already a half) so saturation applies to stored values too.

}  // namespace tilefw::port::host::vector_model
