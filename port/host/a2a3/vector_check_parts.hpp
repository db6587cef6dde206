// Internals the vector unit's check files share (a2a3/vector_check.cpp: arithmetic issues;
// a2a3/vector_check_move.cpp: copy, dup, vbrcb, vconv; a2a3/vector_gather.cpp: vgather): the
// lanes of an issue and its mode rules, operands as 32 B blocks or byte ranges per repeat,
// alignment, bounds and the enumerated overlap check. Not installed.
#pragma once

#include <cstdint>
#include <vector>

#include "a2a3/vector_check.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host::vector_check::parts {

inline constexpr uint64_t kBlock = chip::a2a3::kBlockBytes;

/// A report naming the failing field, its value (saturated to 32 bits) and the limit.
desc::DescReport fault(Status s, const char* field, uint64_t value, uint32_t limit = 0) noexcept;

// ---- operands as byte ranges per repeat -----------------------------------------------------
struct Ranges {
  static constexpr uint32_t kCap = 32;  // vcpadd b16 with alternate pairs: 32 runs
  uint32_t n = 0;
  // Only [0, n) is ever read: no zero-fill on every issue.
  uint32_t off[kCap];
  uint32_t len[kCap];
  uint32_t idx[kCap];  // block (or first output) index inside the repeat
  void add(uint32_t o, uint32_t l, uint32_t i) noexcept {
    if (n > 0 && off[n - 1] + len[n - 1] == o) {  // written outputs as maximal runs
      len[n - 1] += l;
      return;
    }
    if (n < kCap) {
      off[n] = o;
      len[n] = l;
      idx[n] = i;
      ++n;
    }
  }
  uint64_t max_end() const noexcept {
    uint64_t m = 0;
    for (uint32_t k = 0; k < n; ++k) m = off[k] + len[k] > m ? off[k] + len[k] : m;
    return m;
  }
};

// One operand: either 32 B blocks (bits per repeat kind, block stride) whose ranges are only
// built when a fault is reported or an overlap has to be enumerated, or explicit ranges (a
// reduction's written outputs).
struct Operand {
  const char* name = "";
  const char* offset_field = "";
  uint64_t base = 0;
  uint64_t rep_bytes = 0;
  uint32_t align = kBlock;
  bool is_blocks = true;
  bool have_ranges = false;
  uint8_t bits[2] = {0, 0};  // participating blocks of repeats 0..R-2 and of repeat R-1
  uint64_t blk_bytes = 0;
  Ranges body;  // repeats 0..R-2
  Ranges last;  // repeat R-1

  void materialize() noexcept {
    if (have_ranges) return;
    have_ranges = true;
    Ranges* rs[2] = {&body, &last};
    for (int k = 0; k < 2; ++k) {
      for (uint32_t b = 0; b < chip::a2a3::kBlocksPerRepeat; ++b) {
        if ((bits[k] >> b) & 1u) {  // blocks stay apart (never merged): each is its own range
          Ranges& r = *rs[k];
          r.off[r.n] = static_cast<uint32_t>(b * blk_bytes);
          r.len[r.n] = static_cast<uint32_t>(kBlock);
          r.idx[r.n] = b;
          ++r.n;
        }
      }
    }
  }
  bool empty(bool last_repeat) const noexcept {
    return is_blocks ? bits[last_repeat ? 1 : 0] == 0 : (last_repeat ? last : body).n == 0;
  }
  uint64_t max_end(bool last_repeat) const noexcept {
    if (!is_blocks) return (last_repeat ? last : body).max_end();
    const uint8_t b = bits[last_repeat ? 1 : 0];
    return b == 0 ? 0 : (7u - static_cast<uint32_t>(std::countl_zero(b))) * blk_bytes + kBlock;
  }
  const Ranges& at(uint64_t r, uint64_t repeats) const noexcept { return r + 1 == repeats ? last : body; }
};

struct Lanes {
  uint32_t elem = 0, epr = 0, per_block = 0;
  uint64_t repeats = 0;
  desc::Mask128 body{}, last{};
};

/// The lanes and repeats of `a` (a.dt sets the lanes per repeat); false for a NOP (normal
/// mode, no applicable MASK bit).
bool lanes_of(const ArithIssue& a, Lanes& l) noexcept;
/// The lanes of `a` and the blocks they touch (bits[0] in repeats 0..R-2, bits[1] in repeat
/// R-1, at l.per_block lanes a block), with the repeats in `r`; false for a NOP (r.nop set: the
/// caller returns r). The operand decode the checks of every masked issue start from.
bool lane_blocks(const ArithIssue& a, desc::DescReport& r, Lanes& l, uint8_t (&bits)[2]) noexcept;
/// The repeat rules of the issue's mode: count mode needs repeat 0 and a count, normal mode a
/// repeat. ok when they hold.
desc::DescReport mode_rules(const ArithIssue& a) noexcept;
/// misaligned, naming `field` and the offset (also as the byte offset) and the alignment.
desc::DescReport misaligned(const char* field, uint64_t off, uint32_t align) noexcept;
/// The first of `offs` (named by `fields`) that is not on a 32 B block, or ok.
desc::DescReport blocks_aligned(const uint32_t (&offs)[2], const char* const (&fields)[2]) noexcept;
/// A block operand at `off` with the stride word's block and repeat strides; bits[0] the
/// blocks of repeats 0..R-2, bits[1] those of repeat R-1.
void block_operand(Operand& o, const char* name, const char* field, uint32_t off, uint32_t stride_word,
                   const uint8_t (&bits)[2]) noexcept;
/// The first range that leaves UB (`ub` bytes: the core's profile; repeat order), or ok and the
/// operand's far end in `end`.
desc::DescReport bounds(Operand& o, uint64_t repeats, uint64_t& end, uint64_t ub) noexcept;
/// A source read as one contiguous run of `per_rep` bytes a repeat from `off` (vbrcb's source,
/// vgather's offsets) beside the block operand `dst` (far end `dst_end`): out_of_bounds naming
/// `field` at the first repeat that leaves UB (`ub` bytes), else illegal_overlap at the first
/// written dst block (repeat, then block order) that meets the run, naming `field` as the
/// other; else ok.
desc::DescReport contiguous_source(const Operand& dst, uint64_t dst_end, const char* field, uint64_t off,
                                   uint64_t per_rep, uint64_t repeats, uint64_t ub) noexcept;
/// The overlap rule of dst with one source (`exempt`: the accumulator pattern, no
/// across-repeat check), enumerated with `last_read` (one entry per UB block, -1 when idle).
desc::DescReport overlap(std::vector<int32_t>& last_read, Operand& d, Operand& s, uint64_t repeats,
                         bool exempt) noexcept;

}  // namespace tilefw::port::host::vector_check::parts
