// Pure, constexpr validation of one a2a3 vector single issue: descriptor rules, the NOP rule,
// alignment, UB bounds and the block overlap rule, in the order docs/a2a3-vector-semantics.md
// section 9 and docs/cli.md section 4.2 ("Program items") fix.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::desc {

// ---- op/dtype support on a2a3 (docs/a2a3-vector-semantics.md section 6.1) ---------------------
constexpr bool is_known(BinaryOp op) noexcept { return static_cast<uint8_t>(op) <= 5; }
constexpr bool is_known(UnaryOp op) noexcept { return static_cast<uint8_t>(op) <= 6; }
constexpr bool is_known(ScalarOp op) noexcept { return static_cast<uint8_t>(op) <= 3; }
constexpr bool is_known(ReduceOp op) noexcept { return static_cast<uint8_t>(op) <= 4; }
constexpr bool is_known(ReduceOrder o) noexcept { return static_cast<uint8_t>(o) <= 3; }

constexpr bool supports(BinaryOp op, DType t) noexcept {
  const bool f = t == DType::f16 || t == DType::f32;
  if (op == BinaryOp::vdiv) return f;
  return is_known(op) && (f || t == DType::i16 || t == DType::i32);
}
constexpr bool supports(ScalarOp op, DType t) noexcept {
  return is_known(op) && (t == DType::f16 || t == DType::f32 || t == DType::i16 || t == DType::i32);
}
constexpr bool supports(UnaryOp op, DType t) noexcept {
  const bool f = t == DType::f16 || t == DType::f32;
  if (op == UnaryOp::vrelu) return f || t == DType::i32;
  return is_known(op) && f;
}
constexpr bool supports(ReduceOp op, DType t) noexcept {
  return is_known(op) && (t == DType::f16 || t == DType::f32);
}

/// The accumulator exception of docs/a2a3-vector-semantics.md section 5: dst may overlap src1
/// across repeats when
/// src1_repeat_stride or dst_repeat_stride is 0, for these ops and types only.
constexpr bool accumulator_allowed(BinaryOp op, DType t) noexcept {
  const bool op_ok = op == BinaryOp::vadd || op == BinaryOp::vsub || op == BinaryOp::vmul ||
                     op == BinaryOp::vmax || op == BinaryOp::vmin;
  return op_ok && (t == DType::f16 || t == DType::i32 || t == DType::f32);
}

/// Reduction destination geometry (docs/a2a3-vector-semantics.md section 7, the table).
constexpr uint32_t reduce_dst_unit_bytes(ReduceOp op, ReduceOrder order, uint32_t elem) noexcept {
  switch (op) {
    case ReduceOp::vcadd: return elem;
    case ReduceOp::vcgadd: return 8 * elem;
    case ReduceOp::vcpadd: return 128;
    case ReduceOp::vcmax:
    case ReduceOp::vcmin:
      if (order == ReduceOrder::only_index) return 4;
      if (order == ReduceOrder::only_value) return elem;
      return 2 * elem;
  }
  return elem;
}
constexpr uint32_t reduce_dst_align_bytes(ReduceOp op, ReduceOrder order, uint32_t elem) noexcept {
  switch (op) {
    case ReduceOp::vcgadd:
    case ReduceOp::vcpadd: return 32;
    case ReduceOp::vcadd: return elem;
    case ReduceOp::vcmax:
    case ReduceOp::vcmin: return order == ReduceOrder::only_index ? 4 : elem;
  }
  return elem;
}

namespace detail {

inline constexpr uint64_t kNone = ~uint64_t{0};

/// Byte ranges one operand touches in one repeat, relative to the operand's repeat base:
/// participating 32 B blocks, or the written output runs of a reduction destination.
/// vcpadd on b16 can have 32 runs (alternate pairs), hence the capacity.
struct Atoms {
  static constexpr uint32_t kCap = 32;
  uint32_t n = 0;
  uint32_t off[kCap];  // only [0, n) is ever read: no zero-fill on every validation
  uint16_t len[kCap];
  uint8_t idx[kCap];  // block index (or first output index) inside the repeat

  constexpr void add(uint32_t o, uint32_t l, uint32_t i) noexcept {
    if (n < kCap) {
      off[n] = o;
      len[n] = static_cast<uint16_t>(l);
      idx[n] = static_cast<uint8_t>(i);
      ++n;
    }
  }
  // Extends the previous range when contiguous: a reduction's written bytes as maximal runs.
  constexpr void add_merge(uint32_t o, uint32_t l, uint32_t i) noexcept {
    if (n > 0 && off[n - 1] + len[n - 1] == o) {
      len[n - 1] = static_cast<uint16_t>(len[n - 1] + l);
    } else {
      add(o, l, i);
    }
  }
  constexpr uint64_t max_end() const noexcept {
    uint64_t m = 0;
    for (uint32_t a = 0; a < n; ++a) {
      const uint64_t e = uint64_t{off[a]} + len[a];
      if (e > m) m = e;
    }
    return m;
  }
  constexpr bool has_idx(uint32_t i) const noexcept {
    for (uint32_t a = 0; a < n; ++a) {
      if (idx[a] == i) return true;
    }
    return false;
  }
};

/// One operand's footprint: repeats 0..R-2 touch `body`, repeat R-1 touches `last` (they differ
/// only in count mode), each shifted by r * rep_bytes from `base`.
struct View {
  const char* name = "";
  const char* offset_field = "";
  uint64_t base = 0;
  uint64_t rep_bytes = 0;
  uint32_t align = chip::a2a3::kUbAlign;
  Atoms body{};
  Atoms last{};
};

/// Lanes in effect: `body` for repeats 0..R-2, `last` for repeat R-1.
struct Lanes {
  uint32_t elem = 0;       // element bytes
  uint32_t epr = 0;        // lanes per repeat
  uint32_t per_block = 0;  // lanes per 32 B block
  uint64_t repeats = 0;
  Mask128 body{};
  Mask128 last{};
};

struct Common {
  uint32_t repeat;
  MaskMode mode;
  uint32_t count;
  uint32_t tail;
  bool repeat_stride_mode;
  bool stride_size_mode;
};

constexpr uint32_t sat32(uint64_t v) noexcept {
  return v > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(v);
}

constexpr bool fail(DescReport& r, Status s, const char* field, uint32_t value,
                    uint32_t limit = 0) noexcept {
  r.status = s;
  r.field = field;
  r.value = value;
  r.limit = limit;
  return true;
}

// Descriptor rules shared by every op class, in conformance order: repeat/count, tail,
// extension flags. Returns true when a rule failed (r filled).
constexpr bool check_common(DescReport& r, const Common& c, DType dt) noexcept {
  const uint32_t elem = dtype_size(dt);
  if (elem == 0) return fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
  if (c.mode == MaskMode::count) {
    if (c.repeat != 0) return fail(r, Status::desc_count_mode_needs_zero_repeat, "repeat", c.repeat, 0);
    if (c.count == 0) return fail(r, Status::desc_count_mode_needs_count, "vector_count", 0);
  } else if (c.mode == MaskMode::normal) {
    if (c.repeat == 0) return fail(r, Status::desc_normal_mode_needs_repeat, "repeat", 0);
    if (c.repeat > chip::a2a3::kMaxRepeat) {
      return fail(r, Status::desc_repeat_out_of_range, "repeat", c.repeat, chip::a2a3::kMaxRepeat);
    }
  } else {
    return fail(r, Status::desc_unknown_mask_mode, "mask_mode", static_cast<uint32_t>(c.mode));
  }
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  if (c.tail > epr) return fail(r, Status::desc_tail_out_of_range, "tail_elements", c.tail, epr);
  if (c.mode == MaskMode::normal && c.repeat > 1 && c.tail > 0) {
    return fail(r, Status::desc_tail_with_multiple_repeats, "tail_elements", c.tail);
  }
  if (c.mode == MaskMode::count && c.tail > 0) {
    return fail(r, Status::desc_tail_in_count_mode, "tail_elements", c.tail);
  }
  if (c.repeat_stride_mode) return fail(r, Status::desc_extension_mode_unsupported, "repeat_stride_mode", 1);
  if (c.stride_size_mode) return fail(r, Status::desc_extension_mode_unsupported, "stride_size_mode", 1);
  return false;
}

constexpr bool check_stride(DescReport& r, const char* field, uint32_t v, uint32_t max) noexcept {
  return v > max ? fail(r, Status::desc_stride_out_of_range, field, v, max) : false;
}

constexpr bool check_space(DescReport& r, const char* field, const Operand& o) noexcept {
  return o.space != chip::MemSpace::UB
             ? fail(r, Status::desc_operand_not_in_ub, field, static_cast<uint32_t>(o.space))
             : false;
}

constexpr Mask128 applicable(Mask128 m, uint32_t elem) noexcept {
  return elem >= 4 ? Mask128{0, m.lo} : m;  // b32: MASK hi is ignored (docs/a2a3-vector-semantics.md section 3)
}

// The lanes in effect. Returns false for a NOP (normal mode, no applicable mask bit).
constexpr bool plan_lanes(Lanes& l, const Common& c, DType dt, Mask128 live) noexcept {
  l.elem = dtype_size(dt);
  l.epr = chip::a2a3::lanes_per_repeat(l.elem);
  l.per_block = chip::a2a3::kBlockBytes / l.elem;
  if (c.mode == MaskMode::count) {
    l.repeats = (uint64_t{c.count} + l.epr - 1) / l.epr;
    const uint32_t rem = c.count % l.epr;
    l.body = applicable(Mask128::continuous(l.epr), l.elem);
    l.last = applicable(Mask128::continuous(rem != 0 ? rem : l.epr), l.elem);
    return true;
  }
  // tail > 0: issue_once sets continuous(tail); tail 0: MASK is whatever the caller set.
  const Mask128 m = applicable(c.tail > 0 ? Mask128::continuous(c.tail) : live, l.elem);
  if (m.empty()) return false;
  l.repeats = c.repeat;
  l.body = m;
  l.last = m;
  return true;
}

constexpr uint32_t block_bits(Mask128 m, uint32_t per_block) noexcept {
  // A block participates when any of its per_block lanes is set: test the lanes a word-slice
  // at a time (per_block is 8 or 16 and a block never straddles the 64-bit halves).
  uint32_t bits = 0;
  const uint64_t lane_mask = per_block >= 64 ? ~uint64_t{0} : (uint64_t{1} << per_block) - 1;
  for (uint32_t b = 0; b < chip::a2a3::kBlocksPerRepeat; ++b) {
    const uint32_t first = b * per_block;
    if (first >= 128) break;
    const uint64_t word = first < 64 ? m.lo : m.hi;
    if (((word >> (first % 64)) & lane_mask) != 0) bits |= 1u << b;
  }
  return bits;
}

constexpr void block_atoms(Atoms& a, Mask128 m, uint32_t per_block, uint32_t blk_stride) noexcept {
  const uint32_t bits = block_bits(m, per_block);
  for (uint32_t b = 0; b < chip::a2a3::kBlocksPerRepeat; ++b) {
    if ((bits >> b) & 1u) a.add(b * blk_stride * chip::a2a3::kBlockBytes, chip::a2a3::kBlockBytes, b);
  }
}

// Written destination bytes of a reduction in one repeat (docs/a2a3-vector-semantics.md section 7,
// Rule: masked lanes in reductions).
constexpr void reduce_dst_atoms(Atoms& a, ReduceOp op, ReduceOrder order, Mask128 m,
                                const Lanes& l) noexcept {
  if (m.empty()) return;
  switch (op) {
    case ReduceOp::vcadd:
    case ReduceOp::vcmax:
    case ReduceOp::vcmin:
      // one record per repeat; vcmax/vcmin records are the unit (value+index, value, index)
      a.add(0, reduce_dst_unit_bytes(op, order, l.elem), 0);
      return;
    case ReduceOp::vcgadd: {
      const uint32_t bits = block_bits(m, l.per_block);  // an all-masked block is not written
      for (uint32_t b = 0; b < chip::a2a3::kBlocksPerRepeat; ++b) {
        if ((bits >> b) & 1u) a.add_merge(b * l.elem, l.elem, b);
      }
      return;
    }
    case ReduceOp::vcpadd:
      for (uint32_t j = 0; j < l.epr / 2; ++j) {  // output j = lanes 2j, 2j+1
        if (m.lane(2 * j) || m.lane(2 * j + 1)) a.add_merge(j * l.elem, l.elem, j);
      }
      return;
  }
}

constexpr void elementwise_view(View& v, const char* name, const char* offset_field,
                                const Operand& o, uint32_t blk, uint32_t rep, const Lanes& l) noexcept {
  v.name = name;
  v.offset_field = offset_field;
  v.base = o.offset;
  v.rep_bytes = uint64_t{rep} * chip::a2a3::kBlockBytes;
  v.align = chip::a2a3::kUbAlign;
  block_atoms(v.body, l.body, l.per_block, blk);
  block_atoms(v.last, l.last, l.per_block, blk);
}

// ---- bounds (closed form: strides are non-negative, so the far end grows with r) -------------
/// The UB an issue may touch on the profile it is validated for: its size, and where the top
/// that draws the reserved-UB diagnostic starts (chip::ub_usable_bytes).
struct UbBounds {
  uint64_t bytes;
  uint64_t usable;
};
constexpr UbBounds ub_bounds(chip::Chip on) noexcept {
  // A choice between two constants (issue_once's fast path runs this on every issue), the same
  // figures as chip::region_size(on, UB).
  return on == chip::Chip::a5 ? UbBounds{chip::a5::kUbBytes, chip::ub_usable_bytes(chip::Chip::a5)}
                              : UbBounds{chip::a2a3::kUbBytes, chip::ub_usable_bytes(chip::Chip::a2a3)};
}
static_assert(ub_bounds(chip::Chip::a5).bytes == chip::region_size(chip::Chip::a5, chip::MemSpace::UB));
static_assert(ub_bounds(chip::Chip::a2a3).bytes == chip::region_size(chip::Chip::a2a3, chip::MemSpace::UB));

constexpr bool report_oob(DescReport& r, const View& v, const Atoms& a, uint64_t rep, uint64_t ub) noexcept {
  const uint64_t start = v.base + rep * v.rep_bytes;
  for (uint32_t i = 0; i < a.n; ++i) {
    if (start + a.off[i] + a.len[i] > ub) {
      r.byte_offset = start + a.off[i];
      r.repeat_index = rep;
      r.block_index = a.idx[i];
      return fail(r, Status::out_of_bounds, v.name, sat32(r.byte_offset), sat32(ub));
    }
  }
  return false;
}

// Returns true when some participating block lies outside UB; sets `max_end` otherwise.
constexpr bool check_bounds(DescReport& r, const View& v, uint64_t repeats, uint64_t& max_end,
                            uint64_t ub) noexcept {
  max_end = 0;
  if (repeats >= 2 && v.body.n > 0) {
    const uint64_t end0 = v.base + v.body.max_end();  // repeat 0
    uint64_t first = kNone;
    if (end0 > ub) {
      first = 0;
    } else if (v.rep_bytes > 0) {
      first = (ub - end0) / v.rep_bytes + 1;  // first r with end0 + r*rep > ub
    }
    if (first != kNone && first <= repeats - 2) return report_oob(r, v, v.body, first, ub);
    max_end = end0 + (repeats - 2) * v.rep_bytes;
  }
  if (v.last.n > 0) {
    const uint64_t e = v.base + (repeats - 1) * v.rep_bytes + v.last.max_end();
    if (e > ub) return report_oob(r, v, v.last, repeats - 1, ub);
    if (e > max_end) max_end = e;
  }
  return false;
}

// ---- overlap -------------------------------------------------------------------------------
struct Hit {
  int64_t first;
  int64_t last;
  constexpr bool empty() const noexcept { return first > last; }
};

constexpr int64_t floor_div(int64_t a, int64_t b) noexcept {  // b > 0
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

// The r in [r0, r1] with lo < c + r*k < hi: a contiguous range, found in O(1).
constexpr Hit hit_range(int64_t c, int64_t k, int64_t r0, int64_t r1, int64_t lo, int64_t hi) noexcept {
  if (r0 > r1) return Hit{1, 0};
  if (k == 0) return (lo < c && c < hi) ? Hit{r0, r1} : Hit{1, 0};
  if (k < 0) {
    c = -c;
    k = -k;
    const int64_t t = lo;
    lo = -hi;
    hi = -t;
  }
  int64_t first = floor_div(lo - c, k) + 1;
  int64_t last = -floor_div(c - hi, k) - 1;
  if (first < r0) first = r0;
  if (last > r1) last = r1;
  return Hit{first, last};
}

constexpr bool report_overlap(DescReport& r, const View& d, const Atoms& da, uint32_t a,
                              int64_t i, const View& s, const Atoms& sa, uint32_t b, int64_t j) noexcept {
  r.byte_offset = d.base + da.off[a] + static_cast<uint64_t>(i) * d.rep_bytes;
  r.repeat_index = static_cast<uint64_t>(i);
  r.block_index = da.idx[a];
  r.other = s.name;
  r.other_offset = s.base + sa.off[b] + static_cast<uint64_t>(j) * s.rep_bytes;
  r.other_repeat = static_cast<uint64_t>(j);
  r.other_block = sa.idx[b];
  return fail(r, Status::illegal_overlap, d.name, sat32(r.byte_offset));
}

// Within one repeat r in [r0, r1]: each dst range is byte-identical to, or disjoint from, each
// src block. The distance S - D moves by (src_rep - dst_rep) per repeat: solve per pair.
constexpr bool check_within(DescReport& r, const View& d, const Atoms& da, const View& s,
                            const Atoms& sa, int64_t r0, int64_t r1) noexcept {
  const int64_t k = static_cast<int64_t>(s.rep_bytes) - static_cast<int64_t>(d.rep_bytes);
  for (uint32_t a = 0; a < da.n; ++a) {
    for (uint32_t b = 0; b < sa.n; ++b) {
      const int64_t c = static_cast<int64_t>(s.base + sa.off[b]) - static_cast<int64_t>(d.base + da.off[a]);
      const int64_t la = da.len[a];
      const int64_t ls = sa.len[b];
      const Hit h = hit_range(c, k, r0, r1, -ls, la);
      if (h.empty()) continue;
      int64_t bad = h.first;
      if (la == ls && c + h.first * k == 0) {  // identical at h.first: fine there
        if (k == 0) continue;                  // ... and at every repeat
        bad = h.first + 1;
        if (bad > h.last) continue;
      }
      return report_overlap(r, d, da, a, bad, s, sa, b, bad);
    }
  }
  return false;
}

// Across repeats: no dst range of repeat i meets a src block of a later repeat j > i. Dst
// repeats are iterated (bounded: bounds passed, so R-1 <= UB / dst_rep); per (dst range, src
// block) the later j form one range, found in O(1). dst_rep 0: repeat 0 covers every pair.
constexpr bool check_across(DescReport& r, const View& d, const View& s, uint64_t repeats) noexcept {
  if (repeats < 2) return false;
  const int64_t R = static_cast<int64_t>(repeats);
  const int64_t i_end = d.rep_bytes == 0 ? 0 : R - 2;
  const int64_t ks = static_cast<int64_t>(s.rep_bytes);
  if (ks == 0) {
    // The source does not move: whether repeat i's dst meets it does not depend on j, so
    // solve for i per pair instead (some later j exists iff i < j_max).
    const int64_t kd = static_cast<int64_t>(d.rep_bytes);
    for (uint32_t a = 0; a < d.body.n; ++a) {
      for (uint32_t b = 0; b < s.body.n; ++b) {
        const int64_t j_max = s.last.has_idx(s.body.idx[b]) ? R - 1 : R - 2;
        const int64_t i_max = i_end < j_max - 1 ? i_end : j_max - 1;
        const int64_t c = static_cast<int64_t>(s.base + s.body.off[b]) -
                          static_cast<int64_t>(d.base + d.body.off[a]);
        const Hit h = hit_range(c, -kd, 0, i_max, -static_cast<int64_t>(s.body.len[b]), d.body.len[a]);
        if (!h.empty()) return report_overlap(r, d, d.body, a, h.first, s, s.body, b, h.first + 1);
      }
    }
    return false;
  }
  for (int64_t i = 0; i <= i_end; ++i) {
    for (uint32_t a = 0; a < d.body.n; ++a) {
      const int64_t dst_start = static_cast<int64_t>(d.base + d.body.off[a]) + i * static_cast<int64_t>(d.rep_bytes);
      const int64_t la = d.body.len[a];
      for (uint32_t b = 0; b < s.body.n; ++b) {
        const int64_t j_max = s.last.has_idx(s.body.idx[b]) ? R - 1 : R - 2;
        const int64_t c = static_cast<int64_t>(s.base + s.body.off[b]) - dst_start;
        const Hit h = hit_range(c, ks, i + 1, j_max, -static_cast<int64_t>(s.body.len[b]), la);
        if (!h.empty()) return report_overlap(r, d, d.body, a, i, s, s.body, b, h.first);
      }
    }
  }
  return false;
}

// Alignment, bounds, reserved-UB flag, overlap. views[0] is the destination. `exempt_src` is
// the index of a source whose across-repeat overlap with dst is allowed (accumulator), or 0.
constexpr void memory_rules(DescReport& r, const View* views, uint32_t n, uint64_t repeats,
                            uint32_t exempt_src, UbBounds ub) noexcept {
  r.repeats = repeats;
  for (uint32_t i = 0; i < n; ++i) {
    if (views[i].base % views[i].align != 0) {
      r.byte_offset = views[i].base;
      fail(r, Status::misaligned, views[i].offset_field, sat32(views[i].base), views[i].align);
      return;
    }
  }
  uint64_t far = 0;
  uint64_t ends[4] = {};
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t e = 0;
    if (check_bounds(r, views[i], repeats, e, ub.bytes)) return;
    if (i < 4) ends[i] = e;
    if (e > far) far = e;
  }
  r.touches_reserved_ub = far > ub.usable;
  const View& d = views[0];
  const int64_t last = static_cast<int64_t>(repeats) - 1;
  for (uint32_t i = 1; i < n; ++i) {
    const View& s = views[i];
    // Disjoint byte extents [base, end) cannot overlap: skip the per-pair solving (the common
    // case, and the one issue_once re-validates on every issue).
    if (i < 4 && (ends[i] <= d.base || ends[0] <= s.base)) continue;
    if (check_within(r, d, d.body, s, s.body, 0, last - 1)) return;
    if (check_within(r, d, d.last, s, s.last, last, last)) return;
    if (i != exempt_src && check_across(r, d, s, repeats)) return;
  }
}

// ---- fast acceptance of element-wise issues ---------------------------------------------------
/// One element-wise operand as the fast path sees it: offset and strides in 32 B blocks.
struct Footprint {
  uint64_t base;
  uint32_t blk;
  uint32_t rep;
};

/// What quick_rules learned: the repeats the issue executes (0: the precise path decides) and,
/// when every repeat but the last has all 8 blocks participating, how many leading blocks the
/// last repeat has (1..8); 0 when the body's blocks depend on a partial live mask.
struct QuickShape {
  uint64_t repeats = 0;
  uint32_t last_blocks = 0;
};

/// A conservative byte extent end: from the operand's offset to the end of block 7 of the
/// last repeat, as if every block participated in every repeat. The real footprint lies
/// inside [base, end).
constexpr uint64_t conservative_end(const Footprint& f, uint64_t repeats) noexcept {
  constexpr uint32_t kBlockShift = 5;  // 32 B blocks
  static_assert(chip::a2a3::kBlockBytes == 1u << kBlockShift);
  const uint64_t blocks = (repeats - 1) * f.rep + uint64_t{chip::a2a3::kBlocksPerRepeat - 1} * f.blk + 1;
  return f.base + (blocks << kBlockShift);
}

/// The exact end of the participating blocks when every body repeat is full and the last has
/// `last_blocks` leading blocks (strides are non-negative, so the highest block of a repeat is
/// its last participating one, and the last two repeats hold the far end).
constexpr uint64_t exact_end(const Footprint& f, const QuickShape& q) noexcept {
  constexpr uint32_t kBlockShift = 5;
  const uint64_t last = (q.repeats - 1) * f.rep + uint64_t{q.last_blocks - 1} * f.blk + 1;
  const uint64_t body = q.repeats >= 2
                            ? (q.repeats - 2) * f.rep + uint64_t{chip::a2a3::kBlocksPerRepeat - 1} * f.blk + 1
                            : 0;
  return f.base + ((last > body ? last : body) << kBlockShift);
}

}  // namespace detail

/// quick_valid's answer: the repeats of a certainly valid element-wise issue (0 when only
/// validate() can answer) and whether its participating blocks reach the reserved UB top.
struct QuickVerdict {
  uint64_t repeats = 0;
  bool touches_reserved_ub = false;
  constexpr explicit operator bool() const noexcept { return repeats != 0; }
};

namespace detail {

/// Accepts an element-wise issue without building per-block footprints when that is provably
/// the precise answer: every operand 32 B aligned, every extent inside UB, and the
/// destination's conservative extent disjoint from every source's (so no overlap rule can
/// apply). When the conservative extents stay below the reserved top, no block touches it;
/// when they reach into it, the flag needs the exact extents, which the fast path knows only
/// for full-body shapes (counter mode, a tail, a full live mask); other shapes, and every error,
/// go to the precise path. This keeps issue_once's validation near the cost of its register
/// writes, including for tiles that fill UB up to its top.
template <uint32_t N>
constexpr QuickVerdict quick_accept(const Footprint (&f)[N], const QuickShape& q, UbBounds ub) noexcept {
  uint64_t bases = 0;
  uint64_t ends[N];
  uint64_t far = 0;
  for (uint32_t i = 0; i < N; ++i) {
    bases |= f[i].base;
    ends[i] = conservative_end(f[i], q.repeats);
    far = ends[i] > far ? ends[i] : far;
  }
  if (bases % chip::a2a3::kUbAlign != 0 || far > ub.bytes) return {};
  bool disjoint = true;
  for (uint32_t i = 1; i < N; ++i) disjoint = disjoint && (ends[i] <= f[0].base || ends[0] <= f[i].base);
  if (!disjoint) return {};
  if (far <= ub.usable) return {q.repeats, false};
  if (q.last_blocks == 0) return {};
  uint64_t exact_far = 0;
  for (uint32_t i = 0; i < N; ++i) {
    const uint64_t e = exact_end(f[i], q);
    exact_far = e > exact_far ? e : exact_far;
  }
  return {q.repeats, exact_far > ub.usable};
}

/// Leading 32 B blocks that hold `lanes` lanes of `elem` bytes (lanes <= one repeat).
constexpr uint32_t blocks_for(uint64_t lanes, uint32_t elem) noexcept {
  return static_cast<uint32_t>((lanes * elem + chip::a2a3::kBlockBytes - 1) / chip::a2a3::kBlockBytes);
}

/// The descriptor rules shared by every op class, and the NOP rule, in one pass of plain
/// comparisons for the fast path (fields read straight from the descriptor, no copies):
/// returns the shape the issue executes when every rule passes and the issue is not a NOP,
/// repeats 0 when the precise path must decide (it then finds the exact failure, or the NOP).
template <class Desc>
constexpr QuickShape quick_rules(const Desc& d, uint32_t elem, Mask128 live) noexcept {
  if (elem == 0 || d.repeat_stride_mode || d.stride_size_mode) return {};
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  if (d.mask_mode == MaskMode::count) {
    if (d.repeat != 0 || d.vector_count == 0 || d.tail_elements != 0) return {};
    const uint32_t rem = d.vector_count % epr;
    return {(uint64_t{d.vector_count} + epr - 1) / epr, rem == 0 ? chip::a2a3::kBlocksPerRepeat : blocks_for(rem, elem)};
  }
  if (d.mask_mode != MaskMode::normal || d.repeat - 1 >= chip::a2a3::kMaxRepeat) return {};  // 1..255
  if (d.tail_elements > 0) {
    if (d.repeat != 1 || d.tail_elements > epr) return {};
    return {1, blocks_for(d.tail_elements, elem)};
  }
  const Mask128 m = applicable(live, elem);
  if (m.empty()) return {};
  const bool full = m == applicable(Mask128::continuous(epr), elem);
  return {d.repeat, full ? chip::a2a3::kBlocksPerRepeat : 0u};
}

}  // namespace detail

// ---- fast acceptance (the hot path of issue_once and of plan validation; the simulator has its
// own checks in port/host/a2a3/vector_check.hpp and does not call this) ----------------------
// quick_valid returns the repeats an element-wise issue executes when it is certainly valid
// (every rule passes, not a NOP, inside UB, dst disjoint from every source) with its exact
// reserved-top flag, and repeats 0 when only validate() can answer. It never accepts what
// validate() rejects and its flag always equals validate()'s: the desc tests check that over
// random descriptors, and validate() itself starts with it.

// `on`: the chip profile whose UB the issue must fit (the build's by default).
constexpr QuickVerdict quick_valid(const BinIntrinsicDesc& d, DType dt, Mask128 live_mask,
                                   chip::Chip on = chip::kBuildChip) noexcept {
  const detail::QuickShape q = detail::quick_rules(d, dtype_size(dt), live_mask);
  static_assert((chip::a2a3::kMaxBinaryStride & (chip::a2a3::kMaxBinaryStride + 1)) == 0,
                "the OR test below needs a 2^k - 1 limit");
  const uint32_t widest = d.dst_block_stride | d.src0_block_stride | d.src1_block_stride |
                          d.dst_repeat_stride | d.src0_repeat_stride | d.src1_repeat_stride;
  // OR > 2^k - 1 exactly when some field is.
  if (q.repeats == 0 || widest > chip::a2a3::kMaxBinaryStride || d.dst_block_stride == 0 || !supports(d.op, dt)) {
    return {};
  }
  if (d.dst.space != chip::MemSpace::UB || d.src0.space != chip::MemSpace::UB ||
      d.src1.space != chip::MemSpace::UB) {
    return {};
  }
  const detail::Footprint f[3] = {{d.dst.offset, d.dst_block_stride, d.dst_repeat_stride},
                                  {d.src0.offset, d.src0_block_stride, d.src0_repeat_stride},
                                  {d.src1.offset, d.src1_block_stride, d.src1_repeat_stride}};
  return detail::quick_accept(f, q, detail::ub_bounds(on));
}

namespace detail {
template <class Desc>
constexpr QuickVerdict quick_valid_dst_src(const Desc& d, DType dt, Mask128 live, bool op_supported,
                                           chip::Chip on) noexcept {
  const QuickShape q = quick_rules(d, dtype_size(dt), live);
  if (q.repeats == 0 || !op_supported || d.dst_block_stride == 0) return {};
  const uint32_t widest = d.dst_block_stride | d.src_block_stride | d.dst_repeat_stride | d.src_repeat_stride;
  static_assert((chip::a2a3::kMaxWideStride & (chip::a2a3::kMaxWideStride + 1)) == 0,
                "the OR test below needs a 2^k - 1 limit");
  if (widest > chip::a2a3::kMaxWideStride) return {};
  if (d.dst.space != chip::MemSpace::UB || d.src.space != chip::MemSpace::UB) return {};
  const Footprint f[2] = {{d.dst.offset, d.dst_block_stride, d.dst_repeat_stride},
                          {d.src.offset, d.src_block_stride, d.src_repeat_stride}};
  return quick_accept(f, q, ub_bounds(on));
}
}  // namespace detail

constexpr QuickVerdict quick_valid(const UnaryDesc& d, DType dt, Mask128 live_mask,
                                   chip::Chip on = chip::kBuildChip) noexcept {
  return detail::quick_valid_dst_src(d, dt, live_mask, supports(d.op, dt), on);
}
constexpr QuickVerdict quick_valid(const ScalarDesc& d, DType dt, Mask128 live_mask,
                                   chip::Chip on = chip::kBuildChip) noexcept {
  return detail::quick_valid_dst_src(d, dt, live_mask, supports(d.op, dt), on);
}

/// The report of an issue quick_valid accepted.
constexpr DescReport quick_report(QuickVerdict v) noexcept {
  DescReport r{};
  r.repeats = v.repeats;
  r.touches_reserved_ub = v.touches_reserved_ub;
  return r;
}

// ---- runtime core (constexpr-usable) ---------------------------------------------------------
// `live_mask` is the MASK register in effect when the issue runs with tail_elements == 0 in
// normal mode (issue_once leaves MASK untouched then); count mode ignores it.

namespace detail {
// validate() of a binary issue without the fast acceptance in front: the same verdict, for
// callers that prefer less code to speed (a firmware validating a plan once).
[[nodiscard]] constexpr DescReport validate_binary_full(const BinIntrinsicDesc& d, DType dt, Mask128 live_mask,
                                                        chip::Chip on = chip::kBuildChip) noexcept {
  DescReport r{};
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  if (detail::check_common(r, c, dt)) return r;
  constexpr uint32_t kMax = chip::a2a3::kMaxBinaryStride;
  if (detail::check_stride(r, "dst_block_stride", d.dst_block_stride, kMax) ||
      detail::check_stride(r, "src0_block_stride", d.src0_block_stride, kMax) ||
      detail::check_stride(r, "src1_block_stride", d.src1_block_stride, kMax) ||
      detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, kMax) ||
      detail::check_stride(r, "src0_repeat_stride", d.src0_repeat_stride, kMax) ||
      detail::check_stride(r, "src1_repeat_stride", d.src1_repeat_stride, kMax)) {
    return r;
  }
  if (d.dst_block_stride == 0) {
    detail::fail(r, Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
    return r;
  }
  if (!is_known(d.op)) {
    detail::fail(r, Status::desc_unknown_op, "op", static_cast<uint32_t>(d.op));
    return r;
  }
  if (!supports(d.op, dt)) {
    detail::fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "src0.space", d.src0) ||
      detail::check_space(r, "src1.space", d.src1)) {
    return r;
  }
  detail::Lanes l{};
  if (!detail::plan_lanes(l, c, dt, live_mask)) {
    r.nop = true;
    return r;
  }
  detail::View v[3]{};
  detail::elementwise_view(v[0], "dst", "dst.offset", d.dst, d.dst_block_stride, d.dst_repeat_stride, l);
  detail::elementwise_view(v[1], "src0", "src0.offset", d.src0, d.src0_block_stride, d.src0_repeat_stride, l);
  detail::elementwise_view(v[2], "src1", "src1.offset", d.src1, d.src1_block_stride, d.src1_repeat_stride, l);
  const bool acc = accumulator_allowed(d.op, dt) && (d.src1_repeat_stride == 0 || d.dst_repeat_stride == 0);
  detail::memory_rules(r, v, 3, l.repeats, acc ? 2u : 0u, detail::ub_bounds(on));
  return r;
}
}  // namespace detail

/// `on`: the chip profile whose UB bounds the operands (the build's by default).
[[nodiscard]] constexpr DescReport validate(const BinIntrinsicDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
  if (const QuickVerdict v = quick_valid(d, dt, live_mask, on)) return quick_report(v);
  return detail::validate_binary_full(d, dt, live_mask, on);
}

namespace detail {
// Unary and scalar issues share everything but the op check.
[[nodiscard]] constexpr DescReport validate_dst_src(const Common& c, DType dt, Mask128 live, uint32_t dst_blk,
                                      uint32_t src_blk, uint32_t dst_rep, uint32_t src_rep,
                                      bool op_known, uint32_t op_code, bool op_supported,
                                      const Operand& dst, const Operand& src, chip::Chip on) noexcept {
  DescReport r{};
  if (check_common(r, c, dt)) return r;
  constexpr uint32_t kMax = chip::a2a3::kMaxWideStride;
  if (check_stride(r, "dst_block_stride", dst_blk, kMax) ||
      check_stride(r, "src_block_stride", src_blk, kMax) ||
      check_stride(r, "dst_repeat_stride", dst_rep, kMax) ||
      check_stride(r, "src_repeat_stride", src_rep, kMax)) {
    return r;
  }
  if (dst_blk == 0) {
    fail(r, Status::desc_dst_block_stride_zero, "dst_block_stride", 0);
    return r;
  }
  if (!op_known) {
    fail(r, Status::desc_unknown_op, "op", op_code);
    return r;
  }
  if (!op_supported) {
    fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (check_space(r, "dst.space", dst) || check_space(r, "src.space", src)) return r;
  Lanes l{};
  if (!plan_lanes(l, c, dt, live)) {
    r.nop = true;
    return r;
  }
  View v[2]{};
  elementwise_view(v[0], "dst", "dst.offset", dst, dst_blk, dst_rep, l);
  elementwise_view(v[1], "src", "src.offset", src, src_blk, src_rep, l);
  memory_rules(r, v, 2, l.repeats, 0, ub_bounds(on));
  return r;
}
}  // namespace detail

[[nodiscard]] constexpr DescReport validate(const UnaryDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
  if (const QuickVerdict v = quick_valid(d, dt, live_mask, on)) return quick_report(v);
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  return detail::validate_dst_src(c, dt, live_mask, d.dst_block_stride, d.src_block_stride,
                                  d.dst_repeat_stride, d.src_repeat_stride, is_known(d.op),
                                  static_cast<uint32_t>(d.op), supports(d.op, dt), d.dst, d.src, on);
}

[[nodiscard]] constexpr DescReport validate(const ScalarDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
  if (const QuickVerdict v = quick_valid(d, dt, live_mask, on)) return quick_report(v);
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  return detail::validate_dst_src(c, dt, live_mask, d.dst_block_stride, d.src_block_stride,
                                  d.dst_repeat_stride, d.src_repeat_stride, is_known(d.op),
                                  static_cast<uint32_t>(d.op), supports(d.op, dt), d.dst, d.src, on);
}

/// Reductions: vcadd_mode is checked right after the extension flags (it is a mode field);
/// there is no dst block stride; `order` is checked with the op for vcmax/vcmin.
[[nodiscard]] constexpr DescReport validate(const ReduceDesc& d, DType dt, Mask128 live_mask = Mask128::all(),
                                            chip::Chip on = chip::kBuildChip) noexcept {
  DescReport r{};
  const detail::Common c{d.repeat, d.mask_mode, d.vector_count, d.tail_elements,
                         d.repeat_stride_mode, d.stride_size_mode};
  if (detail::check_common(r, c, dt)) return r;
  if (d.op == ReduceOp::vcadd && d.vcadd_mode != 0) {
    detail::fail(r, Status::desc_reduce_mode_unsupported, "vcadd_mode", d.vcadd_mode, 0);
    return r;
  }
  if (d.fold) {  // A5's register row reduction: one accumulator, written once
    const bool op_ok = d.op == ReduceOp::vcadd ||
                       ((d.op == ReduceOp::vcmax || d.op == ReduceOp::vcmin) && d.order == ReduceOrder::only_value);
    if (on != chip::Chip::a5 || !op_ok) {
      detail::fail(r, Status::desc_reduce_mode_unsupported, "fold", static_cast<uint32_t>(d.op));
      return r;
    }
    if (d.dst_repeat_stride != 0) {
      detail::fail(r, Status::desc_stride_out_of_range, "dst_repeat_stride", d.dst_repeat_stride, 0);
      return r;
    }
  }
  constexpr uint32_t kMax = chip::a2a3::kMaxWideStride;
  if (detail::check_stride(r, "src_block_stride", d.src_block_stride, kMax) ||
      detail::check_stride(r, "dst_repeat_stride", d.dst_repeat_stride, kMax) ||
      detail::check_stride(r, "src_repeat_stride", d.src_repeat_stride, kMax)) {
    return r;
  }
  if (!is_known(d.op)) {
    detail::fail(r, Status::desc_unknown_op, "op", static_cast<uint32_t>(d.op));
    return r;
  }
  const bool has_order = d.op == ReduceOp::vcmax || d.op == ReduceOp::vcmin;
  if (has_order && !is_known(d.order)) {
    detail::fail(r, Status::desc_unknown_op, "order", static_cast<uint32_t>(d.order));
    return r;
  }
  if (!supports(d.op, dt)) {
    detail::fail(r, Status::desc_unsupported_dtype, "dtype", static_cast<uint32_t>(dt));
    return r;
  }
  if (detail::check_space(r, "dst.space", d.dst) || detail::check_space(r, "src.space", d.src)) return r;
  detail::Lanes l{};
  if (!detail::plan_lanes(l, c, dt, live_mask)) {
    r.nop = true;
    return r;
  }
  const ReduceOrder order = has_order ? d.order : ReduceOrder::value_index;
  detail::View v[2]{};
  v[0].name = "dst";
  v[0].offset_field = "dst.offset";
  v[0].base = d.dst.offset;
  v[0].rep_bytes = uint64_t{d.dst_repeat_stride} * reduce_dst_unit_bytes(d.op, order, l.elem);
  v[0].align = reduce_dst_align_bytes(d.op, order, l.elem);
  detail::reduce_dst_atoms(v[0].body, d.op, order, l.body, l);
  detail::reduce_dst_atoms(v[0].last, d.op, order, l.last, l);
  detail::elementwise_view(v[1], "src", "src.offset", d.src, d.src_block_stride, d.src_repeat_stride, l);
  detail::memory_rules(r, v, 2, l.repeats, 0, detail::ub_bounds(on));
  return r;
}

// ---- typed wrappers (PTO's ValidateBinIntrinsicDesc<T> / IsBinIntrinsicDescValid<T>,
// docs/a2a3-vector-semantics.md section 1) ----------------------------------------------------
// T is one of half, bf16, float, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t.

template <class T>
[[nodiscard]] constexpr DescReport validate_report(const BinIntrinsicDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask);
}
template <class T>
[[nodiscard]] constexpr DescReport validate_report(const UnaryDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask);
}
template <class T>
[[nodiscard]] constexpr DescReport validate_report(const ScalarDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask);
}
template <class T>
[[nodiscard]] constexpr DescReport validate_report(const ReduceDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask);
}

template <class T>
[[nodiscard]] constexpr Status validate(const BinIntrinsicDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask).status;
}
template <class T>
[[nodiscard]] constexpr Status validate(const UnaryDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask).status;
}
template <class T>
[[nodiscard]] constexpr Status validate(const ScalarDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask).status;
}
template <class T>
[[nodiscard]] constexpr Status validate(const ReduceDesc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask).status;
}

template <class T, class Desc>
[[nodiscard]] constexpr bool is_valid(const Desc& d, Mask128 live_mask = Mask128::all()) noexcept {
  return validate(d, dtype_of<T>, live_mask).status == Status::ok;
}

}  // namespace tilefw::desc
