// The simulated vector unit's own decode checks for every issue it takes (binary, unary,
// scalar, reduction, copy_ubuf_to_ubuf, vector_dup, vbrcb, vconv): what the unit refuses,
// decided from the registers alone.
//
// Who is the oracle: this file, not the core. The core validates every issue before it writes
// a register (desc::validate via issue_once, or once per plan for the trusted path); the
// simulator must not reuse that code, or a bug in the core's validation would hide behind the
// same code here. So these checks are written from docs/a2a3-vector-semantics.md and
// docs/cli.md section 4.2 directly (field rules, the op/dtype table of section 6.1, 32 B
// alignment, UB bounds, the block overlap rule of section 5), by a different method: the
// participating blocks are
// enumerated per repeat (a closed form only for bounds and for disjoint operands), where the
// core solves them in closed form. Statuses are the conformance ones, so a register sequence
// the core would refuse faults here with the same status; FAULT_OFFSET is the UB byte of the
// first failing block (repeat order, then block order).
// Host-only (uses the standard library).
#pragma once

#include <cstdint>
#include <vector>

#include "tilefw/base/dtype.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host::vector_check {

/// One arithmetic issue as the registers hold it at the doorbell (decoded by the unit).
struct ArithIssue {
  uint64_t ctrl = 0;
  desc::Mask128 mask{};
  bool counter = false;
  uint32_t count = 0;
  uint32_t repeat = 0;
  uint32_t code = 0, cls = 0, idx = 0, dt_code = 0;
  bool dt_known = false;
  DType dt = DType::u32;
  uint32_t dst_off = 0, s0_off = 0, s1_off = 0;
  uint32_t ds = 0, s0s = 0, s1s = 0;  // stride words: [15:0] block, [31:16] repeat
  uint32_t reduce_word = 0;           // REDUCE (reductions only)
};

inline uint32_t blk(uint32_t w) noexcept { return w & 0xFFFFu; }
inline uint32_t rep(uint32_t w) noexcept { return w >> 16; }

/// Bytes a reduction writes per repeat at most (its dst repeat-stride unit) and the dst
/// alignment, from the reduction table of docs/a2a3-vector-semantics.md section 7.
uint32_t reduce_unit_bytes(uint32_t op_idx, uint32_t order, uint32_t elem) noexcept;

/// Scratch the overlap check reuses between issues (one entry per 32 B block of UB).
class Checker {
 public:
  /// `ub_bytes`: the UB of the core's profile (a2a3 192 KB, a5 256 KB).
  /// `fold_allowed`: the profile runs folded reductions (A5's register row reductions).
  explicit Checker(uint64_t ub_bytes = chip::a2a3::kUbBytes, bool fold_allowed = false);
  /// ok (r.nop set for a NOP: nothing to execute) or the fault, with field, byte offset,
  /// repeat and block of the first failing block.
  desc::DescReport check(const ArithIssue& a) noexcept;
  /// Block bits (bit b: block b of a repeat has a lane) of repeats 0..R-2 ([0]) and of repeat
  /// R-1 ([1]) of the issue check() last accepted for execution: the unit's hazard record
  /// reuses them instead of deriving them again.
  const uint8_t (&accepted_block_bits() const noexcept)[2] { return bits_; }
  /// vector_dup: the fields of `a` it uses (mode, repeat/count, MASK, dtype, dst and its
  /// strides); no source, so no overlap.
  desc::DescReport check_dup(const ArithIssue& a) noexcept;
  /// copy_ubuf_to_ubuf: nburst bursts of burst_len blocks, the gaps in blocks (COPY_BURST,
  /// COPY_GAP as the registers hold them).
  desc::DescReport check_copy(uint32_t burst_word, uint32_t gap_word, uint32_t dst_off, uint32_t src_off) noexcept;
  /// vbrcb: repeat, dtype, dst and its strides, src (8 elements per repeat, contiguous).
  desc::DescReport check_brcb(const ArithIssue& a) noexcept;
  /// vconv: a.dt is the destination type, `src` the source type, `round` the OP index; lanes
  /// per repeat are the wider side's.
  desc::DescReport check_cvt(const ArithIssue& a, DType src, uint32_t round) noexcept;
  /// vgather (a2a3/vector_gather.cpp): mode, dtype, dst repeat stride, base alignment, dst
  /// blocks and the offsets (every offset of every repeat, 4 B each); not the offsets' values.
  desc::DescReport check_gather(const ArithIssue& a) noexcept;
  /// The UB size the checks bound operands by (the core's profile).
  uint64_t ub_bytes() const noexcept { return ub_; }

 private:
  uint64_t ub_;
  bool fold_allowed_;
  std::vector<int32_t> last_read_;  // per UB block: the last repeat a source reads it, -1 none
  uint8_t bits_[2] = {};
};

}  // namespace tilefw::port::host::vector_check
