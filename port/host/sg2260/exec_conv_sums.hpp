// SG2260 execution, the window sums of CONV / PorD whose float products are exact in FP32
// (FP16 and FP8 operands), and the plane layouts they read (sg2260/exec_conv_sums.cpp).
// Each output sums its taps in the caller's tap order with one FP32 multiply (exact) and one
// FP32 add per tap, or one fused multiply-add (the same bits: the product is exact), so the
// bits are those of the plain loop whatever the vector width.
// Internal to the host port.
#pragma once

#include <cstdint>
#include <vector>

namespace tilefw::port::host::sg2260::exec {

/// The sums of `ow` outputs of one row: tap t reads plane offset base[t] + ox * step with
/// weight kf[t]; facc[ox] receives output ox.
void exact_row_sums(const float* fpl, const uint64_t* base, const float* kf, uint64_t taps, uint64_t ow,
                    uint64_t step, float* facc);

/// The sums of `rows` rows of `ow` outputs each (step 1): row r's output x reads plane offset
/// r * pitch + base[t] + x and is written to facc[r * ow + x]; the same bits as exact_row_sums
/// row by row, with short rows' sums run side by side.
void exact_rows_sums(const float* fpl, const uint64_t* base, const float* kf, uint64_t taps, uint64_t rows,
                     uint64_t ow, uint64_t pitch, float* facc);

/// `rows` plane rows of width pw split by column phase for a column stride s > 1, so that the
/// outputs of a row read each tap's inputs contiguously: phase p (of s) holds the rows with
/// their columns p, p + s, p + 2s ..., each phase ceil(pw / s) wide (0 past the plane, read by
/// no output).
void phase_planes(const float* fpl, uint64_t rows, uint64_t pw, uint64_t s, std::vector<float>& out);

/// `chans` planes of ph x pw transposed: channel ci, column x, row y at (ci * pw + x) * ph + y.
void transpose_planes(const float* fpl, uint64_t chans, uint64_t ph, uint64_t pw, std::vector<float>& out);

}  // namespace tilefw::port::host::sg2260::exec
