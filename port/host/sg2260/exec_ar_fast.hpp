// SG2260 execution, TIU AR: the fast rows (sg2260/exec_ar_fast.cpp). The FP16 and integer rows
// real networks run most (mul, add, sub, max, min on contiguous operands) computed in their
// own format eight or more at a time, with the bits of the double-based row loops
// (sg2260/exec_ar_rows.hpp). Internal to the host port.
#pragma once

#include <cstdint>

#include "sg2260/exec_ar_rows.hpp"

namespace tilefw::port::host::sg2260::exec {

/// The first elements of a row that a fast loop can take, done: returns how many (0: none; the
/// caller's typed loops do the rest). The caller has ruled out a result overlapping an input
/// other than in place. Taken only where the result is provably the same bits:
/// - FP16 mul, add, sub, max, min, every operand and the result FP16, contiguous (or a constant
///   that is an FP16 value): computed in float and rounded once to FP16, nearest even. A product
///   of two FP16 values is exact in float; a sum or difference rounded to float and then to FP16
///   is the sum rounded once to FP16, because float carries at least 2 x 11 + 2 significand
///   bits (double rounding is then innocuous for +, -, x); max and min choose as std::max and
///   std::min do, and a NaN operand gives opd0's NaN first, as ar_apply does.
/// - Integer max and min with every operand and the result of one integer format and
///   signedness, contiguous (a constant: an integer of that format): the chosen value itself.
uint64_t ar_row_fast(const ArRow& a, const uint8_t* p0, const uint8_t* p1, uint8_t* d, uint64_t count,
                     const uint64_t (&step)[3]);

}  // namespace tilefw::port::host::sg2260::exec
