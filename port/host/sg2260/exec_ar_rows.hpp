// SG2260 execution, TIU AR: the element semantics (the operation on two values, the store of a
// result) and the typed row loops that apply them to a whole row with every format chosen once
// per row (sg2260/exec_ar_rows.cpp). Used by sg2260/exec_tiu.cpp; internal to the host port.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sg2260/exec_common.hpp"

namespace tilefw::port::host::sg2260::exec {

inline bool ar_saturating(uint32_t eu) { return eu == 15 || eu == 16 || eu == 20; }
inline double int_min(uint32_t esize, bool sign) { return sign ? -pow2(esize * 8 - 1) : 0.0; }
inline double int_max(uint32_t esize, bool sign) { return sign ? pow2(esize * 8 - 1) - 1 : pow2(esize * 8) - 1; }

// NaN operands of an arithmetic op (tilefw decision, the spec is silent): the result is opd0's
// NaN when opd0 is one, else opd1's, its sign and payload kept. Written out because C++ leaves
// which NaN `a * b` returns to the compiler (x86 returns its first source operand, and the
// compiler may swap the operands of a commutative op), and the simulator's bits must not depend
// on how it was compiled.
inline double nan_first(double a, double b, double r) { return std::isnan(a) ? a : std::isnan(b) ? b : r; }

// The operation on one element's values (integer div is refused before the loop).
inline double ar_apply(uint32_t eu, double a, double b) {
  switch (eu) {
    case 0: case 20: return nan_first(a, b, a * b);
    case 1: return static_cast<double>(~static_cast<int64_t>(a));
    case 2: case 15: return nan_first(a, b, a + b);
    case 3: case 16: return nan_first(a, b, a - b);
    case 4: return std::max(a, b);
    case 5: return std::min(a, b);
    case 7: return static_cast<double>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
    case 8: return static_cast<double>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
    case 9: return static_cast<double>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b));
    // compares (tilefw decision): exact values in double, NaN compares false
    case 10: return a > b ? 1.0 : 0.0;
    case 11: return a == b ? 1.0 : 0.0;
    case 13: return a < b ? 1.0 : 0.0;
    case 12: return nan_first(a, b, a / b);
    case 14: case 19: return a;
    case 26: return std::fabs(a);
    case 27: return std::fabs(nan_first(a, b, a - b));
  }
  return 0;
}

// The shift of a saturating op with tsk_opd_num 3: left for s > 0 (exact in double for the
// integer ranges here), right for s < 0 rounding by the round mode.
inline double shift_value(double r, int32_t s, uint32_t round) {
  if (s >= 0) return std::ldexp(r, std::min(s, 64));
  return round_integer(std::ldexp(r, std::max(s, -64)), round);
}

/// What a row of AR needs to know, once per command.
struct ArRow {
  uint32_t eu = 0;
  uint32_t round = 0;      // opd2_n_str's round mode
  uint32_t prec[3] = {};   // res0, opd0, opd1
  bool sign[3] = {};
  bool is_const[3] = {};   // opd0, opd1: a constant (its value in k)
  double k[2] = {0, 0};
  int inputs = 2;          // 1 for the unary eu
  bool shift = false;      // a saturating op's shift (tsk_opd_num 3)
  int32_t shift_amount = 0;
};

/// Stores one result as AR does: integer results wrap to the result width; add/sub/mul_satu
/// clamp to its range (signed when res0 is signed). Exact: |r| < 2^53 except for int32
/// products, whose rounding in double cannot move them across the clamp bounds. A cast to an
/// integer rounds by the round mode (0 RNE, 1 half away from zero), NaN gives 0, and saturates
/// to res0's range (signed or unsigned by res0's sign).
void store_ar(uint8_t* d, const ArRow& a, double r);

/// Whether the row's result meets an input where the element order matters (ar_row_typed
/// then goes element by element): a result written before a later element is read.
bool ar_row_overlaps(const ArRow& a, const uint8_t* p0, const uint8_t* p1, const uint8_t* d, uint64_t count,
                     const uint64_t (&step)[3]);

/// `count` elements of one row: operand i at p[i] stepping by step[i + 1] bytes (nullptr: the
/// constant k[i]), the result at d stepping by step[0]. The same values, operation and store as
/// element by element (read_value, ar_apply, store_ar), with each format's loop chosen once.
void ar_row_typed(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                  const uint64_t (&step)[3]);

}  // namespace tilefw::port::host::sg2260::exec
