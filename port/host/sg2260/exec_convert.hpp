// SG2260 execution, value conversion over contiguous runs: FP16 elements to float or double
// and float values to FP16 (nearest even), eight at a time with the CPU's F16C conversions where
// it has them (chosen at run time), else element by element. Both give the bits of
// half_bits_to_float_bits and float_bits_to_half_bits: the F16C instructions convert every
// pattern as those do (test/base pins float -> half over all 2^32 floats to the compiler's
// F16C code, and half -> float over all 65536 halves). Internal to the host port.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilefw::port::host::sg2260::exec {

/// Whether the CPU and the OS give AVX and F16C (asked once; false on other architectures).
bool cpu_has_f16c();
/// n FP16 elements at p (little-endian, contiguous) as doubles / floats.
void halves_to_doubles(const uint8_t* p, double* out, size_t n);
void halves_to_floats(const uint8_t* p, float* out, size_t n);
/// n FP16 elements from p, `step` bytes apart, as doubles.
void halves_to_doubles(const uint8_t* p, uint64_t step, double* out, size_t n);
/// n doubles written as FP16 at d, `step` bytes apart, as write_float<1> writes them in
/// nearest even (rounded to a float by round-to-odd, then to FP16: one correct rounding).
void doubles_to_halves(const double* r, uint8_t* d, uint64_t step, size_t n);
/// n floats rounded to FP16 (nearest even) at d (contiguous).
void floats_to_halves(const float* in, uint8_t* d, size_t n);

}  // namespace tilefw::port::host::sg2260::exec
