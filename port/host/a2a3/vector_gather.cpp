// The a2a3 vector unit's element gather (vgather): the unit's own register checks, then the
// data checks of every gathered address (all before any write), then the gather itself.
//
// Semantics (docs/a2a3-vector-semantics.md section 13): repeat r reads N = 256 / sizeof(T) u32
// byte offsets from SRC0_ADDR + r * N * 4 and writes dst lane k of repeat r (DST_ADDR + r *
// dst repeat stride * 32 + k * sizeof(T)) with the T at UB byte SRC1_ADDR + offset[k], for the
// lanes in effect (MASK, or the counter). Repeats run in order; a repeat reads all its lanes
// before it writes. tilefw's rule where the ISA leaves it open: a gathered address that is not
// element aligned or whose element leaves UB faults the issue (misaligned / out_of_bounds,
// field "offsets", the address as byte offset, the repeat and lane) and nothing is written.
#include <cstring>

#include "a2a3/vector_access.hpp"
#include "a2a3/vector_check.hpp"
#include "a2a3/vector_check_parts.hpp"
#include "a2a3/vector_unit.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::port::host {

namespace vreg = chip::a2a3::vreg;

namespace vector_check {

using namespace parts;

desc::DescReport Checker::check_gather(const ArithIssue& a) noexcept {
  // The order of the core's rules (desc/validate_vector_gather.hpp): a type with no size, the
  // mode's repeat rules, the stride, the type, the base, then the operands.
  const uint32_t elem = a.dt_known ? dtype_size(a.dt) : 0;
  if (elem == 0) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  if (desc::DescReport f = mode_rules(a); !f.ok()) return f;
  if (rep(a.ds) > 4095) return fault(Status::desc_stride_out_of_range, "dst_repeat_stride", rep(a.ds), 4095);
  if (elem != 2 && elem != 4) return fault(Status::desc_unsupported_dtype, "dtype", a.dt_code);
  if (a.s1_off % elem != 0) return misaligned("base", a.s1_off, elem);
  desc::DescReport r{};
  Lanes l{};
  uint8_t bits[2];
  if (!lane_blocks(a, r, l, bits)) return r;
  Operand dst;
  block_operand(dst, "dst", "dst.offset", a.dst_off, vreg::stride_word(1, rep(a.ds)), bits);
  if (desc::DescReport f = blocks_aligned({a.dst_off, a.s0_off}, {"dst.offset", "offsets.offset"}); !f.ok()) return f;
  uint64_t dst_end = 0;
  if (desc::DescReport f = bounds(dst, l.repeats, dst_end, ub_); !f.ok()) return f;
  // The offsets: every one of a repeat is read, whatever the mask.
  const uint64_t per_rep = uint64_t{l.epr} * 4;
  const desc::DescReport f = contiguous_source(dst, dst_end, "offsets", a.s0_off, per_rep, l.repeats, ub_);
  return f.ok() ? r : f;
}

}  // namespace vector_check

namespace {

// Lanes of repeat i in effect (count mode: full repeats, then the remainder).
desc::Mask128 gather_lanes(const vector_check::ArithIssue& a, uint32_t epr, uint64_t i, uint64_t repeats) noexcept {
  if (!a.counter) return dtype_size(a.dt) >= 4 ? desc::Mask128{0, a.mask.lo} : a.mask;
  const uint32_t rem = a.count % epr;
  return desc::Mask128::continuous(i + 1 == repeats && rem != 0 ? rem : epr);
}

uint32_t u32_at(const uint8_t* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The first gathered address that is misaligned or leaves UB: ok when there is none.
desc::DescReport check_addresses(const uint8_t* ub, uint64_t ub_bytes, const vector_check::ArithIssue& a,
                                 uint64_t repeats) noexcept {
  const uint32_t elem = dtype_size(a.dt);
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  desc::DescReport r{};
  r.repeats = repeats;
  for (uint64_t i = 0; i < repeats; ++i) {
    const desc::Mask128 lanes = gather_lanes(a, epr, i, repeats);
    const uint8_t* offs = ub + a.s0_off + i * epr * 4;
    for (uint32_t k = 0; k < epr; ++k) {
      if (!lanes.lane(k)) continue;
      const uint32_t off = u32_at(offs + k * 4);
      const uint64_t at = uint64_t{a.s1_off} + off;
      const bool misaligned = at % elem != 0;
      if (misaligned || at + elem > ub_bytes) {
        r.status = misaligned ? Status::misaligned : Status::out_of_bounds;
        r.field = "offsets";
        r.value = off;
        r.limit = misaligned ? elem : static_cast<uint32_t>(ub_bytes);
        r.byte_offset = at;
        r.repeat_index = i;
        r.block_index = k;  // the lane
        return r;
      }
    }
  }
  return r;
}

}  // namespace

void A2a3VectorUnit::on_gather_issue(const vector_check::ArithIssue& a) noexcept {
  const desc::DescReport checked = checker_.check_gather(a);
  if (!checked.ok() || checked.nop || ub_ == nullptr) {
    (void)take(checked);
    return;
  }
  const desc::DescReport data = check_addresses(ub_, checker_.ub_bytes(), a, checked.repeats);
  if (!take(data.ok() ? checked : data)) return;
  const uint32_t elem = dtype_size(a.dt);
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  const uint64_t rep_bytes = uint64_t{vector_check::rep(a.ds)} * 32;
  if (pipes_ != nullptr) {
    vector_access::runs(*pipes_, false, a.s0_off, uint64_t{epr} * 4, uint64_t{epr} * 4, checked.repeats);
  }
  uint8_t out[256];
  for (uint64_t i = 0; i < checked.repeats; ++i) {
    const desc::Mask128 lanes = gather_lanes(a, epr, i, checked.repeats);
    const uint8_t* offs = ub_ + a.s0_off + i * epr * 4;
    for (uint32_t k = 0; k < epr; ++k) {  // the repeat's reads, then its writes
      if (!lanes.lane(k)) continue;
      const uint64_t at = uint64_t{a.s1_off} + u32_at(offs + k * 4);
      if (pipes_ != nullptr) vector_access::runs(*pipes_, false, at, elem, elem, 1);
      std::memcpy(out + k * elem, ub_ + at, elem);
    }
    uint8_t* d = ub_ + a.dst_off + i * rep_bytes;
    if (pipes_ != nullptr) {
      const uint8_t bits = vector_access::block_bits(lanes, epr, 32 / elem);
      vector_access::blocks(*pipes_, true, a.dst_off + i * rep_bytes, 32, rep_bytes, 1, bits, bits);
    }
    for (uint32_t k = 0; k < epr; ++k) {
      if (lanes.lane(k)) std::memcpy(d + k * elem, out + k * elem, elem);
    }
  }
}

}  // namespace tilefw::port::host
