// SG2260 execution, TIU AR rows (sg2260/exec_ar_rows.hpp): a row is read into doubles operand by
// operand, the operation applied, and the results stored, each step a loop typed by its format
// and chosen once per chunk of the row, where element by element every value went through a
// format switch. The values, the double arithmetic and the rounding are those of read_value,
// ar_apply and store_ar, so the bits are the same.
#include "sg2260/exec_ar_rows.hpp"

#include "sg2260/exec_ar_fast.hpp"

#include "sg2260/exec_convert.hpp"

#include <algorithm>
#include <cstring>

namespace tilefw::port::host::sg2260::exec {

void store_ar(uint8_t* d, const ArRow& a, double r) {
  const uint32_t esize = tiu_esize(a.prec[0]);
  if (!prec_is_float(a.prec[0]) && a.eu == 14) {
    r = round_integer(r, a.round);
    if (std::isnan(r)) r = 0;
    r = std::clamp(r, int_min(esize, a.sign[0]), int_max(esize, a.sign[0]));
    const int64_t iv = static_cast<int64_t>(r);
    std::memcpy(d, &iv, esize);
  } else if (!prec_is_float(a.prec[0])) {
    if (ar_saturating(a.eu) && a.shift) r = shift_value(r, a.shift_amount, a.round);
    if (ar_saturating(a.eu)) r = std::clamp(r, int_min(esize, a.sign[0]), int_max(esize, a.sign[0]));
    const int64_t iv = static_cast<int64_t>(r);
    std::memcpy(d, &iv, esize);
  } else {
    // saturating ops on floats: the exact result clamped to the finite range, then rounded
    // (which cannot leave it); NaN stays NaN
    if (ar_saturating(a.eu) && !std::isnan(r)) {
      const double m = max_finite(a.prec[0], a.sign[0]);
      r = std::clamp(r, -m, m);
    }
    write_rounded(d, a.prec[0], r, a.eu == 14 || a.eu == 12 ? a.round : kRoundNearestEven, a.sign[0]);
  }
}

namespace {

constexpr size_t kChunk = 256;

// Contiguous operands (step = element size) get a loop of constant stride the compiler can
// vectorise; the conversion is the same.
template <typename T>
void read_ints(const uint8_t* p, uint64_t step, double* out, size_t n) {
  const auto one = [](const uint8_t* q) {
    T v;
    std::memcpy(&v, q, sizeof v);
    return static_cast<double>(v);
  };
  if (step == sizeof(T)) {
    for (size_t i = 0; i < n; ++i) out[i] = one(p + i * sizeof(T));
    return;
  }
  for (size_t i = 0; i < n; ++i, p += step) out[i] = one(p);
}

template <uint32_t P>
void read_floats(const uint8_t* p, uint64_t step, double* out, size_t n) {
  constexpr uint64_t kSize = P == 2 ? 4 : 2;
  if (P == 1) return halves_to_doubles(p, step, out, n);
  if (step == kSize) {
    for (size_t i = 0; i < n; ++i) out[i] = read_float<P>(p + i * kSize);
    return;
  }
  for (size_t i = 0; i < n; ++i, p += step) out[i] = read_float<P>(p);
}

void read_chunk(const uint8_t* p, uint64_t step, uint32_t prec, bool sign, double* out, size_t n) {
  switch (prec) {
    case 0: return sign ? read_ints<int8_t>(p, step, out, n) : read_ints<uint8_t>(p, step, out, n);
    case 1: return read_floats<1>(p, step, out, n);
    case 2: return read_floats<2>(p, step, out, n);
    case 3: return sign ? read_ints<int16_t>(p, step, out, n) : read_ints<uint16_t>(p, step, out, n);
    case 4: return sign ? read_ints<int32_t>(p, step, out, n) : read_ints<uint32_t>(p, step, out, n);
    case 5: return read_floats<5>(p, step, out, n);
    default:
      for (size_t i = 0; i < n; ++i, p += step) out[i] = read_value(p, prec, sign);
  }
}

template <uint32_t Eu>
void apply_op(const double* a, const double* b, double* r, size_t n) {
  for (size_t i = 0; i < n; ++i) r[i] = ar_apply(Eu, a[i], b[i]);
}

void apply_chunk(uint32_t eu, const double* a, const double* b, double* r, size_t n) {
  switch (eu) {
    case 0: return apply_op<0>(a, b, r, n);
    case 1: return apply_op<1>(a, b, r, n);
    case 2: return apply_op<2>(a, b, r, n);
    case 3: return apply_op<3>(a, b, r, n);
    case 4: return apply_op<4>(a, b, r, n);
    case 5: return apply_op<5>(a, b, r, n);
    case 7: return apply_op<7>(a, b, r, n);
    case 8: return apply_op<8>(a, b, r, n);
    case 9: return apply_op<9>(a, b, r, n);
    case 10: return apply_op<10>(a, b, r, n);
    case 11: return apply_op<11>(a, b, r, n);
    case 12: return apply_op<12>(a, b, r, n);
    case 13: return apply_op<13>(a, b, r, n);
    case 14: return apply_op<14>(a, b, r, n);
    case 15: return apply_op<15>(a, b, r, n);
    case 16: return apply_op<16>(a, b, r, n);
    case 19: return apply_op<19>(a, b, r, n);
    case 20: return apply_op<20>(a, b, r, n);
    case 26: return apply_op<26>(a, b, r, n);
    case 27: return apply_op<27>(a, b, r, n);
    default:
      for (size_t i = 0; i < n; ++i) r[i] = ar_apply(eu, a[i], b[i]);
  }
}

// Integer results of Es bytes (store_ar's integer branches, the branch chosen per chunk).
template <uint32_t Es>
void store_ints(const ArRow& a, const double* r, uint8_t* d, uint64_t step, size_t n) {
  const double lo = int_min(Es, a.sign[0]), hi = int_max(Es, a.sign[0]);
  const auto put = [](uint8_t* p, double v) {
    const int64_t iv = static_cast<int64_t>(v);
    std::memcpy(p, &iv, Es);
  };
  if (a.eu == 14) {
    for (size_t i = 0; i < n; ++i, d += step) {
      double v = round_integer(r[i], a.round);
      if (std::isnan(v)) v = 0;
      put(d, std::clamp(v, lo, hi));
    }
  } else if (ar_saturating(a.eu) && a.shift) {
    // shift_value with its ldexp as a multiplication by the power of two (exact: integer values
    // times 2^-64 .. 2^64 stay normal doubles)
    const int32_t s = std::clamp(a.shift_amount, -64, 64);
    const double factor = std::ldexp(1.0, s);
    for (size_t i = 0; i < n; ++i, d += step) {
      const double v = s >= 0 ? r[i] * factor : round_integer(r[i] * factor, a.round);
      put(d, std::clamp(v, lo, hi));
    }
  } else if (ar_saturating(a.eu)) {
    for (size_t i = 0; i < n; ++i, d += step) put(d, std::clamp(r[i], lo, hi));
  } else {
    for (size_t i = 0; i < n; ++i, d += step) put(d, r[i]);
  }
}

// Float results of precision P rounded to nearest (even, or half away from zero for a cast or
// div in round mode 1): write_rounded's first branch.
template <uint32_t P>
void store_floats(const ArRow& a, const double* r, uint8_t* d, uint64_t step, size_t n, RoundMode mode) {
  if (P == 1 && mode == RoundMode::nearest_even) {  // FP16: write_float's conversion over the run
    if (!ar_saturating(a.eu)) return doubles_to_halves(r, d, step, n);
    double v[kChunk];
    const double m = max_finite(P, a.sign[0]);
    for (size_t i = 0; i < n; ++i) v[i] = std::isnan(r[i]) ? r[i] : std::clamp(r[i], -m, m);
    return doubles_to_halves(v, d, step, n);
  }
  if (ar_saturating(a.eu)) {
    const double m = max_finite(P, a.sign[0]);
    for (size_t i = 0; i < n; ++i, d += step) write_float<P>(d, std::isnan(r[i]) ? r[i] : std::clamp(r[i], -m, m), mode);
  } else {
    for (size_t i = 0; i < n; ++i, d += step) write_float<P>(d, r[i], mode);
  }
}

// Float results of precision P in a directed round mode (2 toward zero, 3 down, 4 up):
// write_rounded's last branch, typed: the nearest-even value, stepped one ulp where it lies
// on the wrong side of the exact result (saturating ops are not cast or div: no clamp here).
template <uint32_t P>
void store_floats_directed(const ArRow& a, const double* r, uint8_t* d, uint64_t step, size_t n, uint32_t round) {
  if (P == 1 && step != 0) {  // FP16: the nearest-even run written and read back, then stepped
    double got[kChunk];
    doubles_to_halves(r, d, step, n);
    halves_to_doubles(d, step, got, n);
    for (size_t i = 0; i < n; ++i, d += step) {
      const double v = r[i];
      if (std::isnan(v)) continue;
      const bool want_down = round == kRoundDown || (round == kRoundTowardZero && v > 0);
      const bool want_up = round == kRoundUp || (round == kRoundTowardZero && v < 0);
      if (want_down && got[i] > v) step_ulp(d, a.prec[0], false);
      if (want_up && got[i] < v) step_ulp(d, a.prec[0], true);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i, d += step) {
    const double v = r[i];
    write_float<P>(d, v, RoundMode::nearest_even);
    if (std::isnan(v)) continue;
    const bool want_down = round == kRoundDown || (round == kRoundTowardZero && v > 0);
    const bool want_up = round == kRoundUp || (round == kRoundTowardZero && v < 0);
    const double got = read_float<P>(d);
    if (want_down && got > v) step_ulp(d, a.prec[0], false);
    if (want_up && got < v) step_ulp(d, a.prec[0], true);
  }
}

void store_chunk(const ArRow& a, const double* r, uint8_t* d, uint64_t step, size_t n) {
  const uint32_t round = a.eu == 14 || a.eu == 12 ? a.round : kRoundNearestEven;
  const RoundMode mode = round == kRoundHalfAway ? RoundMode::half_away_from_zero : RoundMode::nearest_even;
  if (prec_is_float(a.prec[0]) && round > kRoundHalfAway && !ar_saturating(a.eu) && round <= kRoundUp) {
    switch (a.prec[0]) {
      case 1: return store_floats_directed<1>(a, r, d, step, n, round);
      case 2: return store_floats_directed<2>(a, r, d, step, n, round);
      case 5: return store_floats_directed<5>(a, r, d, step, n, round);
    }
  }
  switch (prec_is_float(a.prec[0]) && round > kRoundHalfAway ? 0xFFu : a.prec[0]) {
    case 0: return store_ints<1>(a, r, d, step, n);
    case 3: return store_ints<2>(a, r, d, step, n);
    case 4: return store_ints<4>(a, r, d, step, n);
    case 1: return store_floats<1>(a, r, d, step, n, mode);
    case 2: return store_floats<2>(a, r, d, step, n, mode);
    case 5: return store_floats<5>(a, r, d, step, n, mode);
    default:
      for (size_t i = 0; i < n; ++i, d += step) store_ar(d, a, r[i]);
  }
}

// Whether the result's bytes meet an input's where the element order matters: element by
// element, a result written before a later element is read would feed it; in place (the same
// address, step and size) each element reads its own bytes before writing them.
bool overlaps(const uint8_t* d, uint64_t dstep, uint32_t des, const uint8_t* p, uint64_t pstep, uint32_t pes,
              uint64_t count) {
  if (p == nullptr) return false;
  if (p == d && pstep == dstep && pes == des) return false;
  const uint8_t* d_end = d + (count - 1) * dstep + des;
  const uint8_t* p_end = p + (count - 1) * pstep + pes;
  return d < p_end && p < d_end;
}

}  // namespace

bool ar_row_overlaps(const ArRow& a, const uint8_t* p0, const uint8_t* p1, const uint8_t* d, uint64_t count,
                     const uint64_t (&step)[3]) {
  const uint32_t es0 = tiu_esize(a.prec[0]);
  return overlaps(d, step[0], es0, p0, step[1], tiu_esize(a.prec[1]), count) ||
         overlaps(d, step[0], es0, p1, step[2], tiu_esize(a.prec[2]), count);
}

void ar_row_typed(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                  const uint64_t (&step)[3]) {
  if (count == 0) return;
  if (ar_row_overlaps(a, p0, p1, d, count, step)) {
    for (uint64_t w = 0; w < count; ++w, d += step[0]) {
      const double v0 = p0 != nullptr ? read_value(p0, a.prec[1], a.sign[1]) : a.k[0];
      const double v1 = p1 != nullptr ? read_value(p1, a.prec[2], a.sign[2]) : a.k[1];
      store_ar(d, a, ar_apply(a.eu, v0, v1));
      if (p0 != nullptr) p0 += step[1];
      if (p1 != nullptr) p1 += step[2];
    }
    return;
  }
  // the rows the fast loops take (their first elements), then the typed loops for the rest
  const uint64_t fast = ar_row_fast(a, p0, p1, d, count, step);
  if (fast == count) return;
  if (p0 != nullptr) p0 += fast * step[1];
  if (p1 != nullptr) p1 += fast * step[2];
  d += fast * step[0];
  count -= fast;
  double va[kChunk], vb[kChunk], vr[kChunk];
  for (uint64_t done = 0; done < count;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, count - done));
    if (p0 != nullptr) read_chunk(p0, step[1], a.prec[1], a.sign[1], va, n);
    else std::fill(va, va + n, a.k[0]);
    if (p1 != nullptr) read_chunk(p1, step[2], a.prec[2], a.sign[2], vb, n);
    else std::fill(vb, vb + n, a.k[1]);
    apply_chunk(a.eu, va, vb, vr, n);
    store_chunk(a, vr, d, step[0], n);
    if (p0 != nullptr) p0 += n * step[1];
    if (p1 != nullptr) p1 += n * step[2];
    d += n * step[0];
    done += n;
  }
}

}  // namespace tilefw::port::host::sg2260::exec
