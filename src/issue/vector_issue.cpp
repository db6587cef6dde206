// issue_once, issue_live and the mask-state operations: plain register writes through the port
// facade, one doorbell per issue. issue_once validates before the first write; emit takes a
// desc::Validated<> (validated once, elsewhere) and only writes.
#include "tilefw/issue/vector_issue.hpp"

#include <cstddef>
#include <type_traits>

#include "tilefw/port/port.hpp"

namespace tilefw::issue {

namespace {
namespace vreg = chip::a2a3::vreg;

inline void write_ctrl(VectorUnit& vu, uint64_t ctrl) noexcept {
  port::reg_write64(vu.base + vreg::kCtrl, ctrl);
  vu.ctrl = ctrl;
}
inline void write_mask(VectorUnit& vu, desc::Mask128 m) noexcept {
  port::reg_write64(vu.base + vreg::kMaskLo, m.lo);
  port::reg_write64(vu.base + vreg::kMaskHi, m.hi);
  vu.mask = m;
}

// Brings CTRL[56] and MASK to the state the descriptor was validated in, writing only the
// registers whose shadow differs: count mode -> MASK {0, count}; normal mode -> a tail's
// continuous MASK, or else the MASK validation saw (already in place unless the caller changed
// it since; then it is put back, so a Validated<> never runs under a state it was not checked in).
// kRestore: the MASK may have changed since validation (emit of a Validated<>); issue_once
// validated against the shadow itself, so there is nothing to put back.
template <bool kRestore, class Desc>
inline void apply_mask_state(VectorUnit& vu, const Desc& d, desc::Mask128 validated) noexcept {
  if (d.mask_mode == desc::MaskMode::count) {
    if (!vu.counter_mode()) write_ctrl(vu, vu.ctrl | vreg::kCtrlCounterMode);
    const desc::Mask128 m{0, d.vector_count};
    if (!(vu.mask == m)) write_mask(vu, m);
    return;
  }
  if (vu.counter_mode()) write_ctrl(vu, vu.ctrl & ~vreg::kCtrlCounterMode);
  if (d.tail_elements > 0) {
    const desc::Mask128 m = desc::Mask128::continuous(d.tail_elements);
    if (!(vu.mask == m)) write_mask(vu, m);
  } else if constexpr (kRestore) {
    if (!(vu.mask == validated)) write_mask(vu, validated);
  }
}

inline Status ring(VectorUnit& vu) noexcept {
  port::ring_doorbell(vu.base + vreg::kDoorbell, 1u);
  return static_cast<Status>(port::reg_read32(vu.base + vreg::kStatus) & 0xFFFFu);
}

// copy and vbrcb run without mask or mode: CTRL/MASK are neither checked nor written for them.
template <class Desc>
inline constexpr bool kUsesMask = !std::is_same_v<Desc, desc::CopyDesc> && !std::is_same_v<Desc, desc::BrcbDesc> &&
                                   !std::is_same_v<Desc, desc::CmpDesc> && !std::is_same_v<Desc, desc::SelDesc>;

inline uint32_t dt_code(DType dt) noexcept { return static_cast<uint32_t>(dt); }

// Operand registers of each class (everything but CTRL/MASK and the doorbell): one list per
// class, written in list order.
struct Reg {
  uint32_t at;     // offset in the unit's register block (vreg::k*)
  uint32_t value;  // the word written there
};
template <size_t N>
inline void write_regs(const VectorUnit& vu, const Reg (&regs)[N]) noexcept {
  for (const Reg& r : regs) port::reg_write32(vu.base + r.at, r.value);
}

inline void write_operands(const VectorUnit& vu, const desc::BinIntrinsicDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(op_code(d.op), dt_code(dt))}, {vreg::kRepeat, d.repeat},
                  {vreg::kDstAddr, d.dst.offset}, {vreg::kSrc0Addr, d.src0.offset}, {vreg::kSrc1Addr, d.src1.offset},
                  {vreg::kDstStride, vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride)},
                  {vreg::kSrc0Stride, vreg::stride_word(d.src0_block_stride, d.src0_repeat_stride)},
                  {vreg::kSrc1Stride, vreg::stride_word(d.src1_block_stride, d.src1_repeat_stride)}});
}
// The register block the one-source classes share (unary, scalar, reduction), in this order:
// OP, REPEAT, DST_ADDR, SRC0_ADDR, DST_STRIDE, SRC0_STRIDE.
inline void write_one_source(const VectorUnit& vu, uint32_t op_word, uint32_t repeat, uint32_t dst, uint32_t src,
                             uint32_t dst_stride_word, uint32_t src_stride_word) noexcept {
  write_regs(vu, {{vreg::kOp, op_word}, {vreg::kRepeat, repeat}, {vreg::kDstAddr, dst}, {vreg::kSrc0Addr, src},
                  {vreg::kDstStride, dst_stride_word}, {vreg::kSrc0Stride, src_stride_word}});
}
inline void write_operands(const VectorUnit& vu, const desc::UnaryDesc& d, DType dt) noexcept {
  write_one_source(vu, vreg::op_word(op_code(d.op), dt_code(dt)), d.repeat, d.dst.offset, d.src.offset,
                   vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride),
                   vreg::stride_word(d.src_block_stride, d.src_repeat_stride));
}
inline void write_operands(const VectorUnit& vu, const desc::ScalarDesc& d, DType dt) noexcept {
  write_one_source(vu, vreg::op_word(op_code(d.op), dt_code(dt)), d.repeat, d.dst.offset, d.src.offset,
                   vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride),
                   vreg::stride_word(d.src_block_stride, d.src_repeat_stride));
  port::reg_write32(vu.base + vreg::kScalar, d.scalar_bits);
}
inline void write_operands(const VectorUnit& vu, const desc::ReduceDesc& d, DType dt) noexcept {
  // A reduction's dst has no block stride: its word carries the repeat stride only.
  write_one_source(vu, vreg::op_word(op_code(d.op), dt_code(dt)), d.repeat, d.dst.offset, d.src.offset,
                   vreg::stride_word(0, d.dst_repeat_stride), vreg::stride_word(d.src_block_stride, d.src_repeat_stride));
  port::reg_write32(vu.base + vreg::kReduce, vreg::reduce_word(static_cast<uint32_t>(d.order), d.vcadd_mode, d.fold));
}
inline void write_operands(const VectorUnit& vu, const desc::CopyDesc& d, DType) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassCopy, 0)}, {vreg::kDstAddr, d.dst.offset},
                  {vreg::kSrc0Addr, d.src.offset}, {vreg::kCopyBurst, vreg::copy_burst_word(d.nburst, d.burst_len)},
                  {vreg::kCopyGap, vreg::copy_gap_word(d.src_gap, d.dst_gap)}});
}
inline void write_operands(const VectorUnit& vu, const desc::DupDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassDup, dt_code(dt))}, {vreg::kRepeat, d.repeat},
                  {vreg::kDstAddr, d.dst.offset},
                  {vreg::kDstStride, vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride)},
                  {vreg::kScalar, d.scalar_bits}});
}
inline void write_operands(const VectorUnit& vu, const desc::CvtDesc& d, DType) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassCvt | static_cast<uint32_t>(d.round), dt_code(d.dst_type))},
                  {vreg::kCvtSrc, dt_code(d.src_type)}, {vreg::kRepeat, d.repeat},
                  {vreg::kDstAddr, d.dst.offset}, {vreg::kSrc0Addr, d.src.offset},
                  {vreg::kDstStride, vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride)},
                  {vreg::kSrc0Stride, vreg::stride_word(d.src_block_stride, d.src_repeat_stride)}});
}
inline void write_operands(const VectorUnit& vu, const desc::BrcbDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassBrcb, dt_code(dt))}, {vreg::kRepeat, d.repeat},
                  {vreg::kDstAddr, d.dst.offset}, {vreg::kSrc0Addr, d.src.offset},
                  {vreg::kDstStride, vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride)}});
}
inline void write_operands(const VectorUnit& vu, const desc::GatherDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassGather, dt_code(dt))}, {vreg::kRepeat, d.repeat},
                  {vreg::kDstAddr, d.dst.offset}, {vreg::kSrc0Addr, d.offsets.offset}, {vreg::kSrc1Addr, d.base},
                  {vreg::kDstStride, vreg::stride_word(1, d.dst_repeat_stride)}});
}
inline void write_operands(const VectorUnit& vu, const desc::CmpDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassCmp | static_cast<uint32_t>(d.mode), dt_code(dt))},
                  {vreg::kRepeat, d.repeat},
                  {vreg::kCmpLanes, vreg::cmp_lanes_word(d.lanes, static_cast<uint32_t>(d.rhs))},
                  {vreg::kDstAddr, d.dst.offset}, {vreg::kSrc0Addr, d.src0.offset}, {vreg::kSrc1Addr, d.src1.offset},
                  {vreg::kDstStride, vreg::stride_word(0, d.dst_repeat_stride)},
                  {vreg::kSrc0Stride, vreg::stride_word(0, d.src0_repeat_stride)},
                  {vreg::kSrc1Stride, vreg::stride_word(0, d.src1_repeat_stride)}, {vreg::kScalar, d.scalar_bits}});
}
inline void write_operands(const VectorUnit& vu, const desc::SelDesc& d, DType dt) noexcept {
  write_regs(vu, {{vreg::kOp, vreg::op_word(vreg::kOpClassSel, dt_code(dt))}, {vreg::kRepeat, d.repeat},
                  {vreg::kCmpLanes, vreg::cmp_lanes_word(d.lanes, 0)}, {vreg::kDstAddr, d.dst.offset},
                  {vreg::kSrc0Addr, d.src0.offset}, {vreg::kSrc1Addr, d.src1.offset}, {vreg::kMaskAddr, d.mask.offset},
                  {vreg::kDstStride, vreg::stride_word(0, d.dst_repeat_stride)},
                  {vreg::kSrc0Stride, vreg::stride_word(0, d.src0_repeat_stride)},
                  {vreg::kSrc1Stride, vreg::stride_word(0, d.src1_repeat_stride)},
                  {vreg::kMaskStride, d.mask_repeat_stride}});
}

// The trusted half of every issue: the validated state, the operands, one doorbell.
template <bool kRestore, class Desc>
inline Status write_validated(VectorUnit& vu, const Desc& d, DType dt, desc::Mask128 validated) noexcept {
  if constexpr (kUsesMask<Desc>) apply_mask_state<kRestore>(vu, d, validated);
  write_operands(vu, d, dt);
  return ring(vu);
}

template <class Desc>
inline Status emit_validated(VectorUnit& vu, const desc::Validated<Desc>& v) noexcept {
  return write_validated<true>(vu, v.desc(), v.dtype(), v.mask());
}

// issue_once of every vector class (one body): validate against the MASK in effect (nothing is
// written on failure), then the trusted half.
template <class Desc>
inline Status once(VectorUnit& vu, const Desc& d, DType dt, desc::DescReport* report) noexcept {
  if (const Status s = desc::Validator::verdict(d, dt, vu.mask, report, vu.chip); s != Status::ok) return s;
  return write_validated<false>(vu, d, dt, vu.mask);
}

// issue_live: the descriptor as the live state makes it (mode from CTRL[56], count from
// MASK[31:0]), validated against the live MASK, emitted without any CTRL/MASK write.
template <class Desc>
Status live(VectorUnit& vu, const Desc& in, DType dt, desc::DescReport* report) noexcept {
  if (in.tail_elements != 0) return Status::invalid_argument;
  Desc d = in;
  d.mask_mode = vu.counter_mode() ? desc::MaskMode::count : desc::MaskMode::normal;
  d.vector_count = vu.counter_mode() ? static_cast<uint32_t>(vu.mask.lo) : 0u;
  if (const Status s = desc::Validator::verdict(d, dt, vu.mask, report, vu.chip); s != Status::ok) return s;
  write_operands(vu, d, dt);
  return ring(vu);
}
}  // namespace

void reset(VectorUnit& vu, OverflowMode mode) noexcept {
  write_ctrl(vu, mode == OverflowMode::infnan ? vreg::kCtrlInfNan : 0);
  write_mask(vu, desc::Mask128::all());
}

void set_mask(VectorUnit& vu, uint64_t hi, uint64_t lo) noexcept { write_mask(vu, desc::Mask128{hi, lo}); }

Status set_mask_count(VectorUnit& vu, uint64_t n) noexcept {
  if (n > chip::a2a3::kMaxVectorCount) return Status::invalid_argument;
  write_ctrl(vu, vu.ctrl | vreg::kCtrlCounterMode);
  write_mask(vu, desc::Mask128{0, n});
  return Status::ok;
}

void set_mask_norm(VectorUnit& vu) noexcept { write_ctrl(vu, vu.ctrl & ~vreg::kCtrlCounterMode); }

void set_overflow_mode(VectorUnit& vu, OverflowMode mode) noexcept {
  const uint64_t c = mode == OverflowMode::infnan ? (vu.ctrl | vreg::kCtrlInfNan) : (vu.ctrl & ~vreg::kCtrlInfNan);
  write_ctrl(vu, c);
}

Status issue_once(VectorUnit& vu, const desc::BinIntrinsicDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::UnaryDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::ScalarDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::ReduceDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}

Status issue_live(VectorUnit& vu, const desc::BinIntrinsicDesc& d, DType dt, desc::DescReport* report) noexcept {
  return live(vu, d, dt, report);
}
Status issue_live(VectorUnit& vu, const desc::UnaryDesc& d, DType dt, desc::DescReport* report) noexcept {
  return live(vu, d, dt, report);
}
Status issue_live(VectorUnit& vu, const desc::ScalarDesc& d, DType dt, desc::DescReport* report) noexcept {
  return live(vu, d, dt, report);
}
Status issue_live(VectorUnit& vu, const desc::ReduceDesc& d, DType dt, desc::DescReport* report) noexcept {
  return live(vu, d, dt, report);
}

Status issue_once(VectorUnit& vu, const desc::CopyDesc& d, desc::DescReport* report) noexcept {
  return once(vu, d, DType::u8, report);
}
Status issue_once(VectorUnit& vu, const desc::DupDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::CvtDesc& d, desc::DescReport* report) noexcept {
  return once(vu, d, d.dst_type, report);
}
Status issue_once(VectorUnit& vu, const desc::BrcbDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
uint32_t fault_offset(const VectorUnit& vu) noexcept { return port::reg_read32(vu.base + vreg::kFaultOffset); }

Status issue_once(VectorUnit& vu, const desc::GatherDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::CmpDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}
Status issue_once(VectorUnit& vu, const desc::SelDesc& d, DType dt, desc::DescReport* report) noexcept {
  return once(vu, d, dt, report);
}

template <class Desc>
Status emit(VectorUnit& vu, const desc::Validated<Desc>& v) noexcept {
  return emit_validated(vu, v);
}
template Status emit(VectorUnit&, const desc::Validated<desc::BinIntrinsicDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::UnaryDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::ScalarDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::ReduceDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::CopyDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::DupDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::CvtDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::BrcbDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::GatherDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::CmpDesc>&) noexcept;
template Status emit(VectorUnit&, const desc::Validated<desc::SelDesc>&) noexcept;

}  // namespace tilefw::issue
