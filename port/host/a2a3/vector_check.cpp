// The vector unit's own decode checks for arithmetic issues (see the header for why they do
// not call the core's validator). Order, as docs/cli.md section 4.2 fixes it: field rules (mode and
// repeat/count, reduction mode, stride limits, dst block stride, op, dtype), then the NOP rule,
// then memory: alignment of every operand, UB bounds of every operand, overlap of dst with each
// source.
#include "a2a3/vector_check.hpp"
#include "a2a3/vector_check_parts.hpp"

#include <bit>

#include "a2a3/vector_access.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host::vector_check {

namespace parts {
desc::DescReport fault(Status s, const char* field, uint64_t value, uint32_t limit) noexcept {
  desc::DescReport r{};
  r.status = s;
  r.field = field;
  r.value = value > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(value);
  r.limit = limit;
  return r;
}

desc::DescReport mode_rules(const ArithIssue& a) noexcept {
  if (a.counter) {
    if (a.repeat != 0) return fault(Status::desc_count_mode_needs_zero_repeat, "repeat", a.repeat);
    if (a.count == 0) return fault(Status::desc_count_mode_needs_count, "vector_count", 0);
  } else if (a.repeat == 0) {
    return fault(Status::desc_normal_mode_needs_repeat, "repeat", 0);
  }
  return desc::DescReport{};
}

desc::DescReport misaligned(const char* field, uint64_t off, uint32_t align) noexcept {
  desc::DescReport f = fault(Status::misaligned, field, off, align);
  f.byte_offset = off;
  return f;
}

desc::DescReport blocks_aligned(const uint32_t (&offs)[2], const char* const (&fields)[2]) noexcept {
  for (int k = 0; k < 2; ++k) {
    if (offs[k] % kBlock != 0) return misaligned(fields[k], offs[k], static_cast<uint32_t>(kBlock));
  }
  return desc::DescReport{};
}

}  // namespace parts

using namespace parts;

namespace {
namespace vreg = chip::a2a3::vreg;

// ---- op/dtype table of docs/a2a3-vector-semantics.md section 6.1 (op index = low nibble of OP) ---
constexpr uint32_t kBinaryOps = 6, kUnaryOps = 7, kScalarOps = 4, kReduceOps = 5;
constexpr uint32_t kVdiv = 3, kVrelu = 6;
constexpr uint32_t kVcadd = 0, kVcgadd = 1, kVcpadd = 2, kVcmax = 3, kVcmin = 4;
constexpr uint32_t kOnlyIndex = 3;

bool op_known(uint32_t cls, uint32_t idx) noexcept {
  if (cls == vreg::kOpClassBinary) return idx < kBinaryOps;
  if (cls == vreg::kOpClassUnary) return idx < kUnaryOps;
  if (cls == vreg::kOpClassScalar) return idx < kScalarOps;
  return idx < kReduceOps;
}

bool dtype_supported(const ArithIssue& a) noexcept {
  if (!a.dt_known) return false;
  const bool fp = a.dt == DType::f16 || a.dt == DType::f32;
  const bool int16_32 = a.dt == DType::i16 || a.dt == DType::i32;
  if (a.cls == vreg::kOpClassBinary) return fp || (int16_32 && a.idx != kVdiv);
  if (a.cls == vreg::kOpClassUnary) return fp || (a.idx == kVrelu && a.dt == DType::i32);
  if (a.cls == vreg::kOpClassScalar) return fp || int16_32;
  return fp;  // reductions
}

// dst add/sub/mul/max/min on f16, i32, f32 may overlap src1 across repeats when src1's or
// dst's repeat stride is 0 (docs/a2a3-vector-semantics.md section 5 accumulator exception).
bool accumulator(const ArithIssue& a) noexcept {
  const bool op = a.idx != kVdiv && a.idx < kBinaryOps;
  const bool type = a.dt == DType::f16 || a.dt == DType::i32 || a.dt == DType::f32;
  return a.cls == vreg::kOpClassBinary && op && type && (rep(a.s1s) == 0 || rep(a.ds) == 0);
}

// ---- field rules --------------------------------------------------------------------------------
desc::DescReport field_rules(const ArithIssue& a, bool fold_allowed) noexcept {
  const bool known_class = a.cls == vreg::kOpClassBinary || a.cls == vreg::kOpClassUnary ||
                           a.cls == vreg::kOpClassScalar || a.cls == vreg::kOpClassReduce;
  if (!known_class) return fault(Status::desc_unknown_op, "op", a.code);
  if (desc::DescReport f = mode_rules(a); !f.ok()) return f;
  const bool reduce = a.cls == vreg::kOpClassReduce;
  const uint32_t vcadd_mode = (a.reduce_word >> 8) & 0x3u;
  if (reduce && a.idx == kVcadd && vcadd_mode != 0) {
    return fault(Status::desc_reduce_mode_unsupported, "vcadd_mode", vcadd_mode);
  }
  if (reduce && (a.reduce_word & vreg::kReduceFold) != 0) {  // A5's register row reduction
    const bool op_ok = a.idx == kVcadd || ((a.idx == kVcmax || a.idx == kVcmin) && (a.reduce_word & 0x3u) == 2u);
    if (!fold_allowed || !op_ok) return fault(Status::desc_reduce_mode_unsupported, "fold", a.idx);
    if (rep(a.ds) != 0) return fault(Status::desc_stride_out_of_range, "dst_repeat_stride", rep(a.ds), 0);
  }
  // 8-bit stride fields for binaries (the others fill the 16-bit words). The six fields' OR is
  // within the limit (an all-ones mask) exactly when each one is: the common issue skips the
  // search for the first field out of range.
  static_assert(((chip::a2a3::kMaxBinaryStride + 1) & chip::a2a3::kMaxBinaryStride) == 0);
  const uint32_t any_stride = blk(a.ds) | blk(a.s0s) | blk(a.s1s) | rep(a.ds) | rep(a.s0s) | rep(a.s1s);
  if (a.cls == vreg::kOpClassBinary && any_stride > chip::a2a3::kMaxBinaryStride) {
    const struct { const char* name; uint32_t v; } strides[] = {
        {"dst_block_stride", blk(a.ds)},   {"src0_block_stride", blk(a.s0s)}, {"src1_block_stride", blk(a.s1s)},
        {"dst_repeat_stride", rep(a.ds)}, {"src0_repeat_stride", rep(a.s0s)}, {"src1_repeat_stride", rep(a.s1s)}};
    for (const auto& s : strides) {
      if (s.v > chip::a2a3::kMaxBinaryStride) {
        return fault(Status::desc_stride_out_of_range, s.name, s.v, chip::a2a3::kMaxBinaryStride);
      }
    }
  }
  if (!reduce && blk(a.ds) == 0) return fault(Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
  if (!op_known(a.cls, a.idx)) return fault(Status::desc_unknown_op, "op", a.idx);
  if (!dtype_supported(a)) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  return desc::DescReport{};
}

desc::Mask128 applicable(desc::Mask128 m, uint32_t elem) noexcept { return elem == 4 ? desc::Mask128{0, m.lo} : m; }

// false for a NOP (normal mode, no applicable MASK bit).


// The outputs a reduction writes in one repeat under lane mask m (docs/a2a3-vector-semantics.md
// section 7, the table).
void add_reduce_outputs(Ranges& r, uint32_t op, uint32_t unit, desc::Mask128 m, const Lanes& l) noexcept {
  if (m.empty()) return;
  if (op == kVcgadd) {  // one sum per block that has a lane
    const uint8_t bits = vector_access::block_bits(m, l.epr, l.per_block);
    for (uint32_t b = 0; b < chip::a2a3::kBlocksPerRepeat; ++b) {
      if ((bits >> b) & 1u) r.add(b * l.elem, l.elem, b);
    }
  } else if (op == kVcpadd) {  // output j from lanes 2j and 2j+1
    for (uint32_t j = 0; j < l.epr / 2; ++j) {
      if (m.lane(2 * j) || m.lane(2 * j + 1)) r.add(j * l.elem, l.elem, j);
    }
  } else {  // vcadd, vcmax, vcmin: one record per repeat
    r.add(0, unit, 0);
  }
}

void reduce_dst(Operand& o, const ArithIssue& a, const Lanes& l) noexcept {
  const uint32_t order = a.reduce_word & 0x3u;
  const uint32_t unit = reduce_unit_bytes(a.idx, order, l.elem);
  o.name = "dst";
  o.offset_field = "dst.offset";
  o.base = a.dst_off;
  o.rep_bytes = uint64_t{rep(a.ds)} * unit;
  o.is_blocks = false;
  o.have_ranges = true;
  const bool extreme = a.idx == kVcmax || a.idx == kVcmin;
  o.align = a.idx == kVcgadd || a.idx == kVcpadd ? static_cast<uint32_t>(kBlock)
            : extreme && order == kOnlyIndex     ? 4u
                                                 : l.elem;
  add_reduce_outputs(o.body, a.idx, unit, l.body, l);
  add_reduce_outputs(o.last, a.idx, unit, l.last, l);
}

// ---- bounds -------------------------------------------------------------------------------------
desc::DescReport out_of_bounds(Operand& o, bool last_repeat, uint64_t r, uint64_t ub) noexcept {
  o.materialize();
  const Ranges& rs = last_repeat ? o.last : o.body;
  const uint64_t start = o.base + r * o.rep_bytes;
  for (uint32_t k = 0; k < rs.n; ++k) {
    if (start + rs.off[k] + rs.len[k] > ub) {
      desc::DescReport f = fault(Status::out_of_bounds, o.name, start + rs.off[k], static_cast<uint32_t>(ub));
      f.byte_offset = start + rs.off[k];
      f.repeat_index = r;
      f.block_index = rs.idx[k];
      return f;
    }
  }
  return desc::DescReport{};
}

// The first repeat (and range) that leaves UB, and otherwise the operand's far end in `end`.
// Strides are non-negative, so a range's end grows with the repeat: closed form.

// ---- overlap (enumerated) -----------------------------------------------------------------------
desc::DescReport illegal(const Operand& d, uint64_t start, uint64_t r, uint32_t index, const Operand& s) noexcept {
  desc::DescReport f = fault(Status::illegal_overlap, d.name, start);
  f.byte_offset = start;
  f.repeat_index = r;
  f.block_index = index;
  f.other = s.name;
  return f;
}

}  // namespace

uint32_t reduce_unit_bytes(uint32_t op_idx, uint32_t order, uint32_t elem) noexcept {
  if (op_idx == kVcgadd) return 8 * elem;
  if (op_idx == kVcpadd) return static_cast<uint32_t>(chip::a2a3::kRepeatBytes) / 2;
  if (op_idx == kVcmax || op_idx == kVcmin) return order == kOnlyIndex ? 4 : order == 2 ? elem : 2 * elem;
  return elem;  // vcadd
}

Checker::Checker(uint64_t ub_bytes, bool fold_allowed)
    : ub_(ub_bytes), fold_allowed_(fold_allowed), last_read_(ub_bytes / kBlock, -1) {}

namespace {
// Repeats to enumerate: when neither operand moves between repeats (both repeat strides 0)
// repeats 1..R-2 are copies of repeat 1, so three stand for any R (the last one is R-1).
uint64_t enumerated(const Operand& d, const Operand& s, uint64_t repeats) noexcept {
  return d.rep_bytes == 0 && s.rep_bytes == 0 && repeats > 3 ? 3 : repeats;
}

// Marks (value >= 0) or clears (-1) the UB blocks source `s` reads, repeat by repeat.
void mark_reads(std::vector<int32_t>& last_read, const Operand& s, uint64_t n, bool clear) noexcept {
  for (uint64_t j = 0; j < n; ++j) {
    const Ranges& rs = s.at(j, n);
    for (uint32_t k = 0; k < rs.n; ++k) {
      const uint64_t at = s.base + j * s.rep_bytes + rs.off[k];
      for (uint64_t b = at / kBlock; b <= (at + rs.len[k] - 1) / kBlock && b < last_read.size(); ++b) {
        last_read[b] = clear ? -1 : static_cast<int32_t>(j);
      }
    }
  }
}

// Within repeat i every dst range is byte-identical to, or disjoint from, each src range; across
// repeats no dst range of repeat i meets a block a later repeat of the source reads (unless
// `exempt`: the accumulator pattern).
}  // namespace

namespace {
// The common issue in one pass: an elementwise issue whose operands are aligned, end inside UB
// even at a conservative far end (every repeat taken with the larger of its two block sets)
// and whose extents are pairwise disjoint from dst is legal; anything else takes the precise
// path, which decides exactly.
bool plainly_legal(const ArithIssue& a, const Lanes& l, const uint8_t (&bits)[2], uint64_t ub) noexcept {
  const uint8_t both = static_cast<uint8_t>(bits[0] | bits[1]);
  if (both == 0) return false;
  const uint64_t top_block = 7u - static_cast<uint32_t>(std::countl_zero(both));
  const uint32_t offs[3] = {a.dst_off, a.s0_off, a.s1_off};
  const uint32_t words[3] = {a.ds, a.s0s, a.s1s};
  const uint32_t n = a.cls == vreg::kOpClassBinary ? 3 : 2;
  uint64_t end[3];
  for (uint32_t k = 0; k < n; ++k) {
    if (offs[k] % kBlock != 0) return false;
    end[k] = offs[k] + (l.repeats - 1) * (uint64_t{rep(words[k])} * kBlock) + top_block * blk(words[k]) * kBlock + kBlock;
    if (end[k] > ub) return false;
  }
  for (uint32_t k = 1; k < n; ++k) {
    if (!(end[k] <= offs[0] || end[0] <= offs[k])) return false;
  }
  return true;
}
}  // namespace

namespace parts {

bool lanes_of(const ArithIssue& a, Lanes& l) noexcept {
  l.elem = dtype_size(a.dt);
  l.epr = quotient(static_cast<uint32_t>(chip::a2a3::kRepeatBytes), l.elem);  // lanes_per_repeat
  l.per_block = quotient(static_cast<uint32_t>(kBlock), l.elem);
  if (a.counter) {
    l.repeats = quotient(uint64_t{a.count} + l.epr - 1, l.epr);
    const uint32_t rem = modulo(a.count, l.epr);
    l.body = applicable(desc::Mask128::continuous(l.epr), l.elem);
    l.last = applicable(desc::Mask128::continuous(rem != 0 ? rem : l.epr), l.elem);
    return true;
  }
  l.body = l.last = applicable(a.mask, l.elem);
  l.repeats = a.repeat;
  return !l.body.empty();
}

bool lane_blocks(const ArithIssue& a, desc::DescReport& r, Lanes& l, uint8_t (&bits)[2]) noexcept {
  if (!lanes_of(a, l)) {
    r.nop = true;
    return false;
  }
  r.repeats = l.repeats;
  bits[0] = vector_access::block_bits(l.body, l.epr, l.per_block);
  bits[1] = vector_access::block_bits(l.last, l.epr, l.per_block);
  return true;
}

void block_operand(Operand& o, const char* name, const char* field, uint32_t off, uint32_t stride_word,
                   const uint8_t (&bits)[2]) noexcept {
  o.name = name;
  o.offset_field = field;
  o.base = off;
  o.rep_bytes = uint64_t{rep(stride_word)} * kBlock;
  o.blk_bytes = uint64_t{blk(stride_word)} * kBlock;
  o.bits[0] = bits[0];
  o.bits[1] = bits[1];
}

desc::DescReport contiguous_source(const Operand& dst, uint64_t dst_end, const char* field, uint64_t off,
                                   uint64_t per_rep, uint64_t repeats, uint64_t ub) noexcept {
  const uint64_t end = off + repeats * per_rep;
  if (end > ub) {
    const uint64_t r0 = off >= ub ? 0 : (ub - off) / per_rep;  // the first repeat past UB
    desc::DescReport f = fault(Status::out_of_bounds, field, off + r0 * per_rep, static_cast<uint32_t>(ub));
    f.byte_offset = off + r0 * per_rep;
    f.repeat_index = r0;
    return f;
  }
  if (dst_end <= off || end <= dst.base) return desc::DescReport{};  // disjoint extents
  for (uint64_t i = 0; i < repeats; ++i) {
    const uint8_t b = i + 1 == repeats ? dst.bits[1] : dst.bits[0];
    for (uint32_t k = 0; k < chip::a2a3::kBlocksPerRepeat; ++k) {
      const uint64_t p = dst.base + i * dst.rep_bytes + k * dst.blk_bytes;
      if (((b >> k) & 1u) != 0 && p < end && off < p + kBlock) {
        desc::DescReport f = fault(Status::illegal_overlap, "dst", p);
        f.byte_offset = p;
        f.repeat_index = i;
        f.block_index = k;
        f.other = field;
        return f;
      }
    }
  }
  return desc::DescReport{};
}

desc::DescReport bounds(Operand& o, uint64_t repeats, uint64_t& end, uint64_t ub) noexcept {
  end = 0;
  if (repeats >= 2 && !o.empty(false)) {
    const uint64_t end0 = o.base + o.max_end(false);
    if (end0 > ub) return out_of_bounds(o, false, 0, ub);
    if (o.rep_bytes > 0) {
      const uint64_t first = (ub - end0) / o.rep_bytes + 1;  // first r with end0 + r * rep > UB
      if (first <= repeats - 2) return out_of_bounds(o, false, first, ub);
    }
    end = end0 + (repeats - 2) * o.rep_bytes;
  }
  if (!o.empty(true)) {
    const uint64_t e = o.base + (repeats - 1) * o.rep_bytes + o.max_end(true);
    if (e > ub) return out_of_bounds(o, true, repeats - 1, ub);
    end = e > end ? e : end;
  }
  return desc::DescReport{};
}

desc::DescReport overlap(std::vector<int32_t>& last_read, Operand& d, Operand& s, uint64_t repeats,
                         bool exempt) noexcept {
  d.materialize();
  s.materialize();
  const uint64_t n = enumerated(d, s, repeats);
  mark_reads(last_read, s, n, false);
  // Two sets of aligned 32 B blocks are identical or disjoint block by block (both bases passed
  // the alignment rule): the within-repeat rule can only fail for a reduction's written runs.
  const bool within = !(d.is_blocks && s.is_blocks);
  desc::DescReport found{};
  for (uint64_t i = 0; i < n && found.ok(); ++i) {
    const Ranges& dr = d.at(i, n);
    const Ranges& sr = s.at(i, n);
    for (uint32_t a = 0; a < dr.n && found.ok(); ++a) {
      const uint64_t ds = d.base + i * d.rep_bytes + dr.off[a];
      const uint64_t de = ds + dr.len[a];
      for (uint32_t b = 0; within && b < sr.n; ++b) {
        const uint64_t ss = s.base + i * s.rep_bytes + sr.off[b];
        const uint64_t se = ss + sr.len[b];
        const bool meet = ds < se && ss < de;
        if (meet && !(ds == ss && de == se)) {
          found = illegal(d, ds, i, dr.idx[a], s);
          break;
        }
      }
      for (uint64_t blk_i = ds / kBlock; !exempt && found.ok() && blk_i <= (de - 1) / kBlock; ++blk_i) {
        if (blk_i < last_read.size() && last_read[blk_i] > static_cast<int32_t>(i)) found = illegal(d, ds, i, dr.idx[a], s);
      }
    }
  }
  mark_reads(last_read, s, n, true);
  return found;
}

}  // namespace parts

namespace {
// Out of line: its three Operand records (with their range lists) would otherwise make the
// frame of every check kilobytes deep, spreading the plain path's stack over more cache lines.
[[gnu::noinline]] desc::DescReport check_precisely(std::vector<int32_t>& last_read, const ArithIssue& a, const Lanes& l,
                                                   const uint8_t (&bits)[2], const desc::DescReport& r,
                                                   uint64_t ub) noexcept {
  const bool reduce = a.cls == vreg::kOpClassReduce;
  Operand ops[3];
  uint32_t n = 2;
  if (reduce) reduce_dst(ops[0], a, l);
  else block_operand(ops[0], "dst", "dst.offset", a.dst_off, a.ds, bits);
  if (a.cls == vreg::kOpClassBinary) {
    block_operand(ops[1], "src0", "src0.offset", a.s0_off, a.s0s, bits);
    block_operand(ops[2], "src1", "src1.offset", a.s1_off, a.s1s, bits);
    n = 3;
  } else {
    block_operand(ops[1], "src", "src.offset", a.s0_off, a.s0s, bits);
  }
  for (uint32_t k = 0; k < n; ++k) {
    if (ops[k].base % ops[k].align != 0) {
      return misaligned(ops[k].offset_field, ops[k].base, ops[k].align);
    }
  }
  uint64_t end[3] = {};
  for (uint32_t k = 0; k < n; ++k) {
    if (desc::DescReport f = bounds(ops[k], l.repeats, end[k], ub); !f.ok()) return f;
  }
  for (uint32_t k = 1; k < n; ++k) {
    if (end[k] <= ops[0].base || end[0] <= ops[k].base) continue;  // disjoint extents: no overlap
    const bool exempt = k == 2 && accumulator(a);
    if (desc::DescReport f = overlap(last_read, ops[0], ops[k], l.repeats, exempt); !f.ok()) return f;
  }
  return r;
}
}  // namespace

desc::DescReport Checker::check(const ArithIssue& a) noexcept {
  desc::DescReport r = field_rules(a, fold_allowed_);
  if (!r.ok()) return r;
  Lanes l{};
  if (!lane_blocks(a, r, l, bits_)) return r;
  const bool reduce = a.cls == vreg::kOpClassReduce;
  if (!reduce && l.repeats <= ub_ && plainly_legal(a, l, bits_, ub_)) return r;
  return check_precisely(last_read_, a, l, bits_, r, ub_);
}

}  // namespace tilefw::port::host::vector_check
