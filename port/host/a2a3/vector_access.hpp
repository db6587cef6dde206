// What one vector-unit issue reads and writes, as 32 B blocks and byte runs of UB, reported to
// the pipe tracker (the hazard check of a2a3/pipes.hpp). Host-only.
#pragma once

#include <bit>
#include <cstdint>

#include "a2a3/pipes.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host {

/// x / d and x % d, a shift and a mask when d is a power of two (element sizes, lanes per
/// repeat and per block always are): the doorbell path needs several per issue, and a hardware
/// division takes 10-40 cycles where a shift takes one. Exactly x / d, x % d for any d. (The
/// power-of-two test is spelled out: std::has_single_bit is a libgcc popcount call on a
/// baseline x86-64 build.)
constexpr bool power_of_two(uint32_t d) noexcept { return d != 0 && (d & (d - 1)) == 0; }
template <class T>
constexpr T quotient(T x, uint32_t d) noexcept {
  return power_of_two(d) ? static_cast<T>(x >> std::countr_zero(d)) : static_cast<T>(x / d);
}
template <class T>
constexpr T modulo(T x, uint32_t d) noexcept {
  return power_of_two(d) ? static_cast<T>(x & (d - 1)) : static_cast<T>(x % d);
}

}  // namespace tilefw::port::host

namespace tilefw::port::host::vector_access {

/// Bit b set when block b of a repeat holds a lane of `lanes` (lanes_per_block per block).
uint8_t block_bits(desc::Mask128 lanes, uint32_t lanes_per_repeat, uint32_t lanes_per_block) noexcept;

/// The blocks of an operand at UB offset `off` with block / repeat strides in bytes: repeats
/// 0..R-2 touch the blocks of `body`, repeat R-1 those of `last`. Contiguous blocks are merged
/// into runs, so a unit-stride operand costs one report.
void blocks(PipeTracker& t, bool write, uint64_t off, uint64_t blk, uint64_t rep, uint64_t repeats, uint8_t body,
            uint8_t last);

/// `count` runs of `len` bytes at off, off + stride, ... (merged when they touch).
void runs(PipeTracker& t, bool write, uint64_t off, uint64_t stride, uint64_t len, uint64_t count);

}  // namespace tilefw::port::host::vector_access
