// One-line human message for a DescReport: the Status name, the field or operand, and for
// memory failures the UB byte offset, repeat and block. No heap, no printf: caller's buffer.
#pragma once

#include <cstddef>

#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::desc {

/// Writes the message for `r` into buf[0..n) (always NUL-terminated when n > 0, truncated if
/// needed) and returns the full message length, like snprintf. Examples:
///   "desc_dst_block_stride_zero: dst_block_stride is 0; `dst_block_stride` == 0: undefined ..."
///   "out_of_bounds: src1 block 7 of repeat 3 at UB byte offset 196608 is outside UB (196608 B)"
std::size_t describe(const DescReport& r, char* buf, std::size_t n) noexcept;

}  // namespace tilefw::desc
