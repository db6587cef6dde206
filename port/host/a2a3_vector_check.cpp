// The vector unit's own decode checks for arithmetic issues (see the header for why they do
// not call the core's validator). Order, as conformance.md fixes it: field rules (mode and
// repeat/count, reduction mode, stride limits, dst block stride, op, dtype), then the NOP rule,
// then memory: alignment of every operand, UB bounds of every operand, overlap of dst with each
// source.
#include "a2a3_vector_check.hpp"

#include <bit>

#include "a2a3_vector_access.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host::vector_check {

namespace {
namespace vreg = chip::a2a3::vreg;
constexpr uint64_t kUb = chip::a2a3::kUbBytes;
constexpr uint64_t kBlock = chip::a2a3::kBlockBytes;

desc::DescReport fault(Status s, const char* field, uint64_t value, uint32_t limit = 0) noexcept {
  desc::DescReport r{};
  r.status = s;
  r.field = field;
  r.value = value > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(value);
  r.limit = limit;
  return r;
}

// ---- op/dtype table of vector-semantics 3.1 (op index = low nibble of OP) -------------------
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
// dst's repeat stride is 0 (vector-semantics 1.4's accumulator exception).
bool accumulator(const ArithIssue& a) noexcept {
  const bool op = a.idx != kVdiv && a.idx < kBinaryOps;
  const bool type = a.dt == DType::f16 || a.dt == DType::i32 || a.dt == DType::f32;
  return a.cls == vreg::kOpClassBinary && op && type && (rep(a.s1s) == 0 || rep(a.ds) == 0);
}

// ---- field rules --------------------------------------------------------------------------------
desc::DescReport field_rules(const ArithIssue& a) noexcept {
  const bool known_class = a.cls == vreg::kOpClassBinary || a.cls == vreg::kOpClassUnary ||
                           a.cls == vreg::kOpClassScalar || a.cls == vreg::kOpClassReduce;
  if (!known_class) return fault(Status::desc_unknown_op, "op", a.code);
  if (a.counter) {
    if (a.repeat != 0) return fault(Status::desc_count_mode_needs_zero_repeat, "repeat", a.repeat);
    if (a.count == 0) return fault(Status::desc_count_mode_needs_count, "vector_count", 0);
  } else if (a.repeat == 0) {
    return fault(Status::desc_normal_mode_needs_repeat, "repeat", 0);
  }
  const bool reduce = a.cls == vreg::kOpClassReduce;
  const uint32_t vcadd_mode = (a.reduce_word >> 8) & 0x3u;
  if (reduce && a.idx == kVcadd && vcadd_mode != 0) {
    return fault(Status::desc_reduce_mode_unsupported, "vcadd_mode", vcadd_mode);
  }
  if (a.cls == vreg::kOpClassBinary) {  // 8-bit stride fields; the others fill the 16-bit words
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

desc::Mask128 applicable(desc::Mask128 m, uint32_t elem) noexcept { return elem == 4 ? desc::Mask128{0, m.lo} : m; }

// false for a NOP (normal mode, no applicable MASK bit).
bool lanes_of(const ArithIssue& a, Lanes& l) noexcept {
  l.elem = dtype_size(a.dt);
  l.epr = chip::a2a3::lanes_per_repeat(l.elem);
  l.per_block = static_cast<uint32_t>(kBlock) / l.elem;
  if (a.counter) {
    l.repeats = (uint64_t{a.count} + l.epr - 1) / l.epr;
    const uint32_t rem = a.count % l.epr;
    l.body = applicable(desc::Mask128::continuous(l.epr), l.elem);
    l.last = applicable(desc::Mask128::continuous(rem != 0 ? rem : l.epr), l.elem);
    return true;
  }
  l.body = l.last = applicable(a.mask, l.elem);
  l.repeats = a.repeat;
  return !l.body.empty();
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

// The outputs a reduction writes in one repeat under lane mask m (conformance.md table).
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

// ---- bounds ---------------------------------------------------------------------------------------
desc::DescReport out_of_bounds(Operand& o, bool last_repeat, uint64_t r) noexcept {
  o.materialize();
  const Ranges& rs = last_repeat ? o.last : o.body;
  const uint64_t start = o.base + r * o.rep_bytes;
  for (uint32_t k = 0; k < rs.n; ++k) {
    if (start + rs.off[k] + rs.len[k] > kUb) {
      desc::DescReport f = fault(Status::out_of_bounds, o.name, start + rs.off[k], static_cast<uint32_t>(kUb));
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
desc::DescReport bounds(Operand& o, uint64_t repeats, uint64_t& end) noexcept {
  end = 0;
  if (repeats >= 2 && !o.empty(false)) {
    const uint64_t end0 = o.base + o.max_end(false);
    if (end0 > kUb) return out_of_bounds(o, false, 0);
    if (o.rep_bytes > 0) {
      const uint64_t first = (kUb - end0) / o.rep_bytes + 1;  // first r with end0 + r * rep > UB
      if (first <= repeats - 2) return out_of_bounds(o, false, first);
    }
    end = end0 + (repeats - 2) * o.rep_bytes;
  }
  if (!o.empty(true)) {
    const uint64_t e = o.base + (repeats - 1) * o.rep_bytes + o.max_end(true);
    if (e > kUb) return out_of_bounds(o, true, repeats - 1);
    end = e > end ? e : end;
  }
  return desc::DescReport{};
}

// ---- overlap (enumerated) -------------------------------------------------------------------------
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

Checker::Checker() : last_read_(kUb / kBlock, -1) {}

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
desc::DescReport overlap(std::vector<int32_t>& last_read, Operand& d, Operand& s, uint64_t repeats,
                         bool exempt) noexcept {
  d.materialize();
  s.materialize();
  const uint64_t n = enumerated(d, s, repeats);
  mark_reads(last_read, s, n, false);
  desc::DescReport found{};
  for (uint64_t i = 0; i < n && found.ok(); ++i) {
    const Ranges& dr = d.at(i, n);
    const Ranges& sr = s.at(i, n);
    for (uint32_t a = 0; a < dr.n && found.ok(); ++a) {
      const uint64_t ds = d.base + i * d.rep_bytes + dr.off[a];
      const uint64_t de = ds + dr.len[a];
      for (uint32_t b = 0; b < sr.n; ++b) {
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
}  // namespace

namespace {
// The common issue in one pass: an elementwise issue whose operands are aligned, end inside UB
// even at a conservative far end (every repeat taken with the larger of its two block sets)
// and whose extents are pairwise disjoint from dst is legal; anything else takes the precise
// path, which decides exactly.
bool plainly_legal(const ArithIssue& a, const Lanes& l, const uint8_t (&bits)[2]) noexcept {
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
    if (end[k] > kUb) return false;
  }
  for (uint32_t k = 1; k < n; ++k) {
    if (!(end[k] <= offs[0] || end[0] <= offs[k])) return false;
  }
  return true;
}
}  // namespace

desc::DescReport Checker::check(const ArithIssue& a) noexcept {
  desc::DescReport r = field_rules(a);
  if (!r.ok()) return r;
  Lanes l{};
  if (!lanes_of(a, l)) {
    r.nop = true;
    return r;
  }
  r.repeats = l.repeats;
  const bool reduce = a.cls == vreg::kOpClassReduce;
  const uint8_t bits[2] = {vector_access::block_bits(l.body, l.epr, l.per_block),
                           vector_access::block_bits(l.last, l.epr, l.per_block)};
  if (!reduce && l.repeats <= kUb && plainly_legal(a, l, bits)) return r;
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
      desc::DescReport f = fault(Status::misaligned, ops[k].offset_field, ops[k].base, ops[k].align);
      f.byte_offset = ops[k].base;
      return f;
    }
  }
  uint64_t end[3] = {};
  for (uint32_t k = 0; k < n; ++k) {
    if (desc::DescReport f = bounds(ops[k], l.repeats, end[k]); !f.ok()) return f;
  }
  for (uint32_t k = 1; k < n; ++k) {
    if (end[k] <= ops[0].base || end[0] <= ops[k].base) continue;  // disjoint extents: no overlap
    const bool exempt = k == 2 && accumulator(a);
    if (desc::DescReport f = overlap(last_read_, ops[0], ops[k], l.repeats, exempt); !f.ok()) return f;
  }
  return r;
}

namespace {
bool dup_dtype(const ArithIssue& a) noexcept {  // every 16- and 32-bit type (vector-semantics 3.1)
  return a.dt_known && (dtype_size(a.dt) == 2 || dtype_size(a.dt) == 4);
}
}  // namespace

desc::DescReport Checker::check_dup(const ArithIssue& a) noexcept {
  const uint32_t elem = a.dt_known ? dtype_size(a.dt) : 0;
  if (elem == 0) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  if (a.counter) {
    if (a.repeat != 0) return fault(Status::desc_count_mode_needs_zero_repeat, "repeat", a.repeat);
    if (a.count == 0) return fault(Status::desc_count_mode_needs_count, "vector_count", 0);
  } else if (a.repeat == 0) {
    return fault(Status::desc_normal_mode_needs_repeat, "repeat", 0);
  }
  if (blk(a.ds) == 0) return fault(Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
  if (!dup_dtype(a)) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  desc::DescReport r{};
  Lanes l{};
  if (!lanes_of(a, l)) {
    r.nop = true;
    return r;
  }
  r.repeats = l.repeats;
  const uint8_t bits[2] = {vector_access::block_bits(l.body, l.epr, l.per_block),
                           vector_access::block_bits(l.last, l.epr, l.per_block)};
  Operand dst;
  block_operand(dst, "dst", "dst.offset", a.dst_off, a.ds, bits);
  if (dst.base % dst.align != 0) {
    desc::DescReport f = fault(Status::misaligned, dst.offset_field, dst.base, dst.align);
    f.byte_offset = dst.base;
    return f;
  }
  uint64_t end = 0;
  if (desc::DescReport f = bounds(dst, l.repeats, end); !f.ok()) return f;
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
  const char* fields[2] = {"dst.offset", "src.offset"};
  for (int k = 0; k < 2; ++k) {
    if (offs[k] % kBlock != 0) {
      desc::DescReport f = fault(Status::misaligned, fields[k], offs[k], static_cast<uint32_t>(kBlock));
      f.byte_offset = offs[k];
      return f;
    }
  }
  const uint64_t len = uint64_t{burst_len} * kBlock;
  const uint64_t step[2] = {len + dst_gap * kBlock, len + src_gap * kBlock};
  const char* names[2] = {"dst", "src"};
  uint64_t end[2];
  for (int k = 0; k < 2; ++k) {
    end[k] = offs[k] + (nburst - 1) * step[k] + len;
    if (end[k] > kUb) {
      desc::DescReport f = fault(Status::out_of_bounds, names[k], end[k], static_cast<uint32_t>(kUb));
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
  const uint32_t offs[2] = {a.dst_off, a.s0_off};
  const char* fields[2] = {"dst.offset", "src.offset"};
  for (int k = 0; k < 2; ++k) {
    if (offs[k] % kBlock != 0) {
      desc::DescReport f = fault(Status::misaligned, fields[k], offs[k], static_cast<uint32_t>(kBlock));
      f.byte_offset = offs[k];
      return f;
    }
  }
  // dst: 8 blocks per repeat; every one is written (no mask). Blocks in repeat, block order.
  const uint8_t all[2] = {0xFF, 0xFF};
  Operand dst;
  block_operand(dst, "dst", "dst.offset", a.dst_off, a.ds, all);
  uint64_t dst_end = 0;
  if (desc::DescReport f = bounds(dst, a.repeat, dst_end); !f.ok()) return f;
  const uint64_t src_bytes = 8u * elem;  // per repeat, contiguous
  const uint64_t src_end = a.s0_off + a.repeat * src_bytes;
  if (src_end > kUb) {
    const uint64_t r0 = a.s0_off >= kUb ? 0 : (kUb - a.s0_off) / src_bytes;  // first repeat past UB
    desc::DescReport f = fault(Status::out_of_bounds, "src", a.s0_off + r0 * src_bytes, static_cast<uint32_t>(kUb));
    f.byte_offset = a.s0_off + r0 * src_bytes;
    f.repeat_index = r0;
    return f;
  }
  if (dst_end <= a.s0_off || src_end <= a.dst_off) return r;  // disjoint extents
  // Reads and writes must be disjoint: the first dst block (repeat, then block order) that
  // meets the source range is the fault.
  for (uint64_t i = 0; i < a.repeat; ++i) {
    for (uint32_t k = 0; k < chip::a2a3::kBlocksPerRepeat; ++k) {
      const uint64_t p = a.dst_off + i * dst.rep_bytes + k * dst.blk_bytes;
      if (p < src_end && a.s0_off < p + kBlock) {
        desc::DescReport f = fault(Status::illegal_overlap, "dst", p);
        f.byte_offset = p;
        f.repeat_index = i;
        f.block_index = k;
        f.other = "src";
        return f;
      }
    }
  }
  return r;
}

}  // namespace tilefw::port::host::vector_check
