// The vector unit's own checks for the move-like issues: copy_ubuf_to_ubuf (bursts), vector_dup
// (dst only), vbrcb (dst blocks, a contiguous source) and vconv (two element sizes, the wider
// side's lanes). Same order and statuses as docs/cli.md section 4.2 fixes for each class; see
// a2a3/vector_check.hpp for who the oracle is.
#include <bit>

#include "a2a3/vector_access.hpp"
#include "a2a3/vector_check.hpp"
#include "a2a3/vector_check_parts.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host::vector_check {

using namespace parts;

namespace {
bool dup_dtype(const ArithIssue& a) noexcept {  // every 16- and 32-bit type (docs/a2a3-vector-semantics.md section 6.1)
  return a.dt_known && (dtype_size(a.dt) == 2 || dtype_size(a.dt) == 4);
}

}  // namespace

desc::DescReport Checker::check_dup(const ArithIssue& a) noexcept {
  const uint32_t elem = a.dt_known ? dtype_size(a.dt) : 0;
  if (elem == 0) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  if (desc::DescReport f = mode_rules(a); !f.ok()) return f;
  if (blk(a.ds) == 0) return fault(Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
  if (!dup_dtype(a)) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  desc::DescReport r{};
  Lanes l{};
  uint8_t bits[2];
  if (!lane_blocks(a, r, l, bits)) return r;
  Operand dst;
  block_operand(dst, "dst", "dst.offset", a.dst_off, a.ds, bits);
  if (dst.base % dst.align != 0) return misaligned(dst.offset_field, dst.base, dst.align);
  uint64_t end = 0;
  if (desc::DescReport f = bounds(dst, l.repeats, end, ub_); !f.ok()) return f;
  return r;
}

desc::DescReport Checker::check_copy(uint32_t burst_word, uint32_t gap_word, uint32_t dst_off,
                                     uint32_t src_off) noexcept {
  const uint32_t nburst = burst_word & 0xFFFu;
  const uint32_t burst_len = burst_word >> 16;
  const uint64_t src_gap = gap_word & 0xFFFFu;
  const uint64_t dst_gap = gap_word >> 16;
  if (nburst == 0) return fault(Status::desc_copy_burst_out_of_range, "nburst", 0, 4095);
  if (burst_len == 0) return fault(Status::desc_copy_burst_out_of_range, "burst_len", 0, 65535);
  desc::DescReport r{};
  r.repeats = nburst;
  const uint32_t offs[2] = {dst_off, src_off};
  if (desc::DescReport f = blocks_aligned(offs, {"dst.offset", "src.offset"}); !f.ok()) return f;
  const uint64_t len = uint64_t{burst_len} * kBlock;
  const uint64_t step[2] = {len + dst_gap * kBlock, len + src_gap * kBlock};
  const char* names[2] = {"dst", "src"};
  uint64_t end[2];
  for (int k = 0; k < 2; ++k) {
    end[k] = offs[k] + (nburst - 1) * step[k] + len;
    if (end[k] > ub_) {
      desc::DescReport f = fault(Status::out_of_bounds, names[k], end[k], static_cast<uint32_t>(ub_));
      f.byte_offset = offs[k];
      return f;
    }
  }
  if (dst_off >= end[1] || src_off >= end[0]) return r;  // disjoint hulls
  // Enumerated: mark every block a source burst reads, then look for a destination burst that
  // writes one (all bursts run at once, so any shared byte is an overlap). In bounds: at most
  // one mark per UB block.
  const uint64_t blocks = len / kBlock;
  for (uint64_t b = 0; b < nburst; ++b) {
    for (uint64_t k = 0; k < blocks; ++k) last_read_[(src_off + b * step[1]) / kBlock + k] = 0;
  }
  for (uint64_t b = 0; b < nburst && r.ok(); ++b) {
    for (uint64_t k = 0; k < blocks; ++k) {
      if (last_read_[(dst_off + b * step[0]) / kBlock + k] >= 0) {
        r = fault(Status::illegal_overlap, "dst", dst_off + b * step[0]);
        r.byte_offset = dst_off + b * step[0];
        r.repeat_index = b;
        r.other = "src";
        break;
      }
    }
  }
  for (uint64_t b = 0; b < nburst; ++b) {
    for (uint64_t k = 0; k < blocks; ++k) last_read_[(src_off + b * step[1]) / kBlock + k] = -1;
  }
  return r;
}

desc::DescReport Checker::check_brcb(const ArithIssue& a) noexcept {
  if (a.repeat == 0) return fault(Status::desc_repeat_out_of_range, "repeat", 0, chip::a2a3::kMaxRepeat);
  if (blk(a.ds) == 0) return fault(Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
  const uint32_t elem = a.dt_known ? dtype_size(a.dt) : 0;
  if (elem != 2 && elem != 4) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  desc::DescReport r{};
  r.repeats = a.repeat;
  if (desc::DescReport f = blocks_aligned({a.dst_off, a.s0_off}, {"dst.offset", "src.offset"}); !f.ok()) return f;
  // dst: 8 blocks per repeat; every one is written (no mask). Blocks in repeat, block order.
  const uint8_t all[2] = {0xFF, 0xFF};
  Operand dst;
  block_operand(dst, "dst", "dst.offset", a.dst_off, a.ds, all);
  uint64_t dst_end = 0;
  if (desc::DescReport f = bounds(dst, a.repeat, dst_end, ub_); !f.ok()) return f;
  // The source: 8 elements a repeat, contiguous.
  const desc::DescReport f = contiguous_source(dst, dst_end, "src", a.s0_off, 8u * elem, a.repeat, ub_);
  return f.ok() ? r : f;
}

namespace {
// vconv's (source, destination, rounding) triples on a2a3 (docs/a2a3-vector-semantics.md section
// 6.2): exact
// widenings take no rounding; f32 -> f16 any of the six; f32 -> bf16 and i32 -> f32 nearest
// even; f32/f16 -> i32 nearest even, away, floor, ceil or trunc. Round index: none 0, rint 1,
// round 2, floor 3, ceil 4, trunc 5, odd 6.
bool conversion_supported(DType src, DType dst, uint32_t round) noexcept {
  constexpr uint32_t kNone = 0, kRint = 1, kTrunc = 5, kOdd = 6;
  const bool exact = (src == DType::f16 || src == DType::bf16) && dst == DType::f32;
  if (exact) return round == kNone;
  if (src == DType::f32 && dst == DType::f16) return round >= kRint && round <= kOdd;
  if ((src == DType::f32 && dst == DType::bf16) || (src == DType::i32 && dst == DType::f32)) return round == kRint;
  if ((src == DType::f32 || src == DType::f16) && dst == DType::i32) return round >= kRint && round <= kTrunc;
  return false;
}
}  // namespace

desc::DescReport Checker::check_cvt(const ArithIssue& a, DType src, uint32_t round) noexcept {
  const uint32_t ds = dtype_size(a.dt);
  const uint32_t ss = dtype_size(src);
  ArithIssue wide = a;  // repeats and lanes are the wider side's
  wide.dt = ds >= ss ? a.dt : src;
  if (desc::DescReport f = mode_rules(a); !f.ok()) return f;
  if (rep(a.ds) > chip::a2a3::kMaxBinaryStride) {  // 8-bit repeat-stride fields
    return fault(Status::desc_stride_out_of_range, "dst_repeat_stride", rep(a.ds), chip::a2a3::kMaxBinaryStride);
  }
  if (rep(a.s0s) > chip::a2a3::kMaxBinaryStride) {
    return fault(Status::desc_stride_out_of_range, "src_repeat_stride", rep(a.s0s), chip::a2a3::kMaxBinaryStride);
  }
  if (blk(a.ds) == 0) return fault(Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
  if (!conversion_supported(src, a.dt, round)) return fault(Status::desc_conversion_unsupported, "round", round);
  desc::DescReport r{};
  Lanes l{};
  if (!lanes_of(wide, l)) {
    r.nop = true;
    return r;
  }
  r.repeats = l.repeats;
  const uint32_t per_block[2] = {static_cast<uint32_t>(kBlock) / ds, static_cast<uint32_t>(kBlock) / ss};
  Operand ops[2];
  const uint32_t offs[2] = {a.dst_off, a.s0_off};
  const uint32_t words[2] = {a.ds, a.s0s};
  const char* names[2] = {"dst", "src"};
  const char* fields[2] = {"dst.offset", "src.offset"};
  for (int k = 0; k < 2; ++k) {
    const uint8_t bits[2] = {vector_access::block_bits(l.body, l.epr, per_block[k]),
                             vector_access::block_bits(l.last, l.epr, per_block[k])};
    block_operand(ops[k], names[k], fields[k], offs[k], words[k], bits);
  }
  for (int k = 0; k < 2; ++k) {
    if (ops[k].base % ops[k].align != 0) {
      return misaligned(ops[k].offset_field, ops[k].base, ops[k].align);
    }
  }
  uint64_t end[2] = {};
  for (int k = 0; k < 2; ++k) {
    if (desc::DescReport f = bounds(ops[k], l.repeats, end[k], ub_); !f.ok()) return f;
  }
  if (end[1] <= ops[0].base || end[0] <= ops[1].base) return r;  // disjoint extents
  if (desc::DescReport f = overlap(last_read_, ops[0], ops[1], l.repeats, false); !f.ok()) return f;
  return r;
}

}  // namespace tilefw::port::host::vector_check
