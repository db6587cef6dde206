// a2a3 vector unit model. Per doorbell: decode the registers, check them with the unit's own
// decode checks (a2a3/vector_check.hpp: raw register writes can bypass the core's validation,
// and the simulator must not share the core's validator), then execute: repeats in order, inside a repeat all reads
// before any write, masked-off lanes untouched. Elementwise ops take a contiguous fast path
// (tight, vectorisable loops) when the operands are unit-stride, fully masked and either
// disjoint or identical, which is provably the same result as the general per-repeat path.
#include "a2a3/vector_unit.hpp"

#include "a2a3/chip_of.hpp"
#include "a2a3/vector_access.hpp"
#include "a2a3/vector_check.hpp"
#include "a2a3/vector_kernels.hpp"


#include "tilefw/base/dtype.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_copy_desc.hpp"
#include "tilefw/desc/data/vector_convert_desc.hpp"

namespace tilefw::port::host {

namespace vreg = chip::a2a3::vreg;
using namespace vector_model;


A2a3VectorUnit::A2a3VectorUnit(Machine& machine, uint64_t register_base, PipeTracker* pipes)
    : machine_(machine),
      base_(register_base != 0 ? register_base : chip::a2a3::kVectorUnitRegisters.base),
      pipes_(pipes),
      checker_(chip::region_size(chip_of(machine), chip::MemSpace::UB), chip_of(machine) == chip::Chip::a5) {
  auto ub = machine_.translate(chip::a2a3::kUb.device_base, chip::region_size(chip_of(machine), chip::MemSpace::UB));
  ub_ = ub.ok() ? *ub : nullptr;
  words_ = machine_.register_block(base_, vreg::kMaskStride + 4);  // CTRL .. MASK_STRIDE, the last register
  // Reset state = tilefw's initial state (docs/a2a3-vector-semantics.md section 3, Rule: initial
  // state), which is also what a default issue::VectorUnit shadow assumes: normal mode, Inf/NaN,
  // MASK all ones.
  machine_.write64(base_ + vreg::kCtrl, vreg::kCtrlReset);
  machine_.write64(base_ + vreg::kMaskLo, ~uint64_t{0});
  machine_.write64(base_ + vreg::kMaskHi, ~uint64_t{0});
  machine_.on_write(base_ + vreg::kDoorbell, [this](uint64_t, uint64_t value) {
    if ((value & 1u) != 0) on_doorbell();
  });
}

bool A2a3VectorUnit::take(const desc::DescReport& r) noexcept {
  report_ = r;
  status_ = r.status;
  machine_.write32(base_ + vreg::kStatus, static_cast<uint32_t>(r.status));
  machine_.write32(base_ + vreg::kFaultOffset,
                   r.ok() ? 0u : static_cast<uint32_t>(r.byte_offset > 0xFFFFFFFFu ? 0xFFFFFFFFu : r.byte_offset));
  if (!r.ok()) {
    ++faults_;
    return false;
  }
  if (r.nop || ub_ == nullptr) {
    ++nops_;
    return false;
  }
  return true;
}

namespace {

using vector_check::ArithIssue;
using vector_check::blk;
using vector_check::rep;

// The unit's registers as the doorbell handler reads them: straight from the machine's flat
// register words when the whole window is mapped there (a read has no side effect, so this is
// the same value read32 returns), else through read32.
class Registers {
 public:
  Registers(Machine& m, uint64_t base, const uint32_t* words) noexcept : m_(m), base_(base), words_(words) {}
  uint32_t r32(uint32_t off) const noexcept { return words_ != nullptr ? words_[off / 4] : m_.read32(base_ + off); }
  uint64_t r64(uint32_t off) const noexcept { return uint64_t{r32(off + 4)} << 32 | r32(off); }

 private:
  Machine& m_;
  uint64_t base_;
  const uint32_t* words_;
};

ArithIssue decode(const Registers& regs) noexcept {
  ArithIssue a;
  a.ctrl = regs.r64(vreg::kCtrl);
  a.mask = Mask128{regs.r64(vreg::kMaskHi), regs.r64(vreg::kMaskLo)};
  const uint32_t opw = regs.r32(vreg::kOp);
  a.repeat = regs.r32(vreg::kRepeat) & 0xFFu;
  a.dst_off = regs.r32(vreg::kDstAddr);
  a.s0_off = regs.r32(vreg::kSrc0Addr);
  a.s1_off = regs.r32(vreg::kSrc1Addr);
  a.ds = regs.r32(vreg::kDstStride);
  a.s0s = regs.r32(vreg::kSrc0Stride);
  a.s1s = regs.r32(vreg::kSrc1Stride);
  a.counter = (a.ctrl & vreg::kCtrlCounterMode) != 0;
  a.count = a.counter ? static_cast<uint32_t>(a.mask.lo) : 0u;
  a.code = opw & 0xFFu;
  a.cls = a.code & 0xF0u;
  a.idx = a.code & 0x0Fu;
  a.dt_code = (opw >> 8) & 0xFFu;
  a.dt_known = a.dt_code <= static_cast<uint32_t>(DType::u32);
  a.dt = a.dt_known ? static_cast<DType>(a.dt_code) : DType::u32;
  return a;
}

// Lanes and repeats of the issue (count mode: full repeats, then the remainder).
Plan lane_plan(const ArithIssue& a) noexcept {
  Plan p{};
  p.elem = dtype_size(a.dt);
  p.epr = quotient(static_cast<uint32_t>(chip::a2a3::kRepeatBytes), p.elem);  // lanes_per_repeat
  p.per_block = quotient(32u, p.elem);
  p.saturate = (a.ctrl & vreg::kCtrlInfNan) == 0 && a.dt == DType::f16;
  if (a.counter) {
    p.repeats = quotient(uint64_t{a.count} + p.epr - 1, p.epr);
    const uint32_t rem = modulo(a.count, p.epr);
    p.body_mask = Mask128::continuous(p.epr);
    p.last_mask = Mask128::continuous(rem != 0 ? rem : p.epr);
  } else {
    p.repeats = a.repeat;
    p.body_mask = applicable(a.mask, p.elem);
    p.last_mask = p.body_mask;
  }
  p.n_body = lane_count(p.body_mask, p.epr);
  p.n_last = lane_count(p.last_mask, p.epr);
  return p;
}

Opnd operand(uint8_t* ub, uint32_t off, uint32_t stride_word, uint64_t rep_unit) noexcept {
  Opnd o;
  o.base = ub + off;
  o.off = off;
  o.blk = uint64_t{blk(stride_word)} * 32;
  o.rep = uint64_t{rep(stride_word)} * rep_unit;
  return o;
}

desc::ReduceOrder reduce_order(const ArithIssue& a) noexcept {
  return static_cast<desc::ReduceOrder>(a.reduce_word & 0x3u);
}
uint64_t reduce_unit(const ArithIssue& a, const Plan& p) noexcept {
  const auto op = static_cast<desc::ReduceOp>(a.idx);
  const bool extreme = op == desc::ReduceOp::vcmax || op == desc::ReduceOp::vcmin;
  return vector_check::reduce_unit_bytes(a.idx, extreme ? static_cast<uint32_t>(reduce_order(a)) : 0u, p.elem);
}

// What this issue reads and writes, for the pipes' hazard check. `bits`: the blocks of repeats
// 0..R-2 and of repeat R-1, as the unit's check derived them from the same lanes (lane_plan's
// masks are the check's: the applicable MASK bits, or count mode's continuous runs).
void record_accesses(PipeTracker& pipes, const ArithIssue& a, const Plan& p, const uint8_t (&bits)[2]) noexcept {
  namespace va = vector_access;
  const uint8_t body = bits[0];
  const uint8_t last = bits[1];
  va::blocks(pipes, false, a.s0_off, uint64_t{blk(a.s0s)} * 32, uint64_t{rep(a.s0s)} * 32, p.repeats, body, last);
  if (a.cls == vreg::kOpClassBinary) {
    va::blocks(pipes, false, a.s1_off, uint64_t{blk(a.s1s)} * 32, uint64_t{rep(a.s1s)} * 32, p.repeats, body, last);
  }
  if (a.cls == vreg::kOpClassReduce) {
    const uint64_t unit = reduce_unit(a, p);
    // Every reduction writes at most one dst unit per repeat (the conformance table).
    va::runs(pipes, true, a.dst_off, uint64_t{rep(a.ds)} * unit, unit, p.repeats);
  } else {
    va::blocks(pipes, true, a.dst_off, uint64_t{blk(a.ds)} * 32, uint64_t{rep(a.ds)} * 32, p.repeats, body, last);
  }
}

// The other classes' executes are out of line (gnu::noinline): inlined, their kernels' lane
// tables made on_doorbell's frame kilobytes deep for every issue (see elementwise_per_lane).
void execute_binary(uint8_t* ub, const ArithIssue& a, const Plan& p) noexcept {
  const Opnd dst = operand(ub, a.dst_off, a.ds, 32);
  const Opnd srcs[2] = {operand(ub, a.s0_off, a.s0s, 32), operand(ub, a.s1_off, a.s1s, 32)};
  const auto op = static_cast<desc::BinaryOp>(a.idx);
  const bool sat = p.saturate;
  switch (a.dt) {
    case DType::f32:
      switch (op) {  // one instantiation per op keeps the fast loop branch-free
        case desc::BinaryOp::vadd:
          elementwise<float, 2>(p, dst, srcs, raw_f32([](auto x, auto y) { return x + y; }));
          break;
        case desc::BinaryOp::vsub:
          elementwise<float, 2>(p, dst, srcs, raw_f32([](auto x, auto y) { return x - y; }));
          break;
        case desc::BinaryOp::vmul:
          elementwise<float, 2>(p, dst, srcs, raw_f32([](auto x, auto y) { return x * y; }));
          break;
        default: elementwise<float, 2>(p, dst, srcs, [op](float x, float y) { return bin_f(op, x, y); }); break;
      }
      break;
    case DType::f16:
      elementwise<uint16_t, 2>(p, dst, srcs, [op, sat](uint16_t x, uint16_t y) {
        return sat_h(d2h(bin_d(op, h2d(x), h2d(y))), sat);
      });
      break;
    case DType::i16:
      elementwise<int16_t, 2>(p, dst, srcs, [op](int16_t x, int16_t y) { return bin_i<int16_t>(op, x, y); });
      break;
    default:  // i32
      elementwise<int32_t, 2>(p, dst, srcs, [op](int32_t x, int32_t y) { return bin_i<int32_t>(op, x, y); });
      break;
  }
}

[[gnu::noinline]] void execute_scalar(uint8_t* ub, const ArithIssue& a, const Plan& p, uint32_t sbits) noexcept {
  const Opnd dst = operand(ub, a.dst_off, a.ds, 32);
  const Opnd src0 = operand(ub, a.s0_off, a.s0s, 32);
  const desc::BinaryOp bop = kScalarToBinary[a.idx];
  const bool sat = p.saturate;
  switch (a.dt) {
    case DType::f32: {
      const float sc = std::bit_cast<float>(sbits);
      elementwise<float, 1>(p, dst, &src0, [bop, sc](float x, float) { return bin_f(bop, x, sc); });
      break;
    }
    case DType::f16: {
      const double sc = h2d(static_cast<uint16_t>(sbits));
      elementwise<uint16_t, 1>(p, dst, &src0, [bop, sc, sat](uint16_t x, uint16_t) {
        return sat_h(d2h(bin_d(bop, h2d(x), sc)), sat);
      });
      break;
    }
    case DType::i16: {
      const auto sc = static_cast<int16_t>(static_cast<uint16_t>(sbits));
      elementwise<int16_t, 1>(p, dst, &src0, [bop, sc](int16_t x, int16_t) { return bin_i<int16_t>(bop, x, sc); });
      break;
    }
    default: {
      const auto sc = static_cast<int32_t>(sbits);
      elementwise<int32_t, 1>(p, dst, &src0, [bop, sc](int32_t x, int32_t) { return bin_i<int32_t>(bop, x, sc); });
      break;
    }
  }
}

[[gnu::noinline]] void execute_unary(uint8_t* ub, const ArithIssue& a, const Plan& p) noexcept {
  const Opnd dst = operand(ub, a.dst_off, a.ds, 32);
  const Opnd src0 = operand(ub, a.s0_off, a.s0s, 32);
  const auto op = static_cast<desc::UnaryOp>(a.idx);
  const bool sat = p.saturate;
  switch (a.dt) {
    case DType::f32:
      elementwise<float, 1>(p, dst, &src0, [op](float x, float) { return un_f(op, x); });
      break;
    case DType::f16:
      elementwise<uint16_t, 1>(p, dst, &src0, [op, sat](uint16_t x, uint16_t) {
        return sat_h(d2h(un_d(op, h2d(x))), sat);
      });
      break;
    default:  // i32 vrelu
      elementwise<int32_t, 1>(p, dst, &src0, [](int32_t x, int32_t) { return x > 0 ? x : 0; });
      break;
  }
}

[[gnu::noinline]] void execute_reduce(uint8_t* ub, const ArithIssue& a, const Plan& p) noexcept {
  const Opnd dst = operand(ub, a.dst_off, a.ds, 1);  // rep = stride count; the unit is applied in reduce()
  const Opnd src0 = operand(ub, a.s0_off, a.s0s, 32);
  const auto op = static_cast<desc::ReduceOp>(a.idx);
  if ((a.reduce_word & vreg::kReduceFold) != 0) {  // A5's register row reduction
    if (a.dt == DType::f32) reduce_fold<float>(p, op, dst, src0);
    else reduce_fold<double>(p, op, dst, src0);
    return;
  }
  if (a.dt == DType::f32) reduce<float>(p, op, reduce_order(a), dst, reduce_unit(a, p), src0);
  else reduce<double>(p, op, reduce_order(a), dst, reduce_unit(a, p), src0);
}

}  // namespace

// Per doorbell: decode, check (a fault writes nothing), record the accesses, execute.
void A2a3VectorUnit::on_doorbell() noexcept {
  Machine& m = machine_;
  ++issues_;
  if (pipes_ != nullptr) pipes_->begin(chip::a2a3::Pipe::V);
  m.write32(base_ + vreg::kIssueCount, static_cast<uint32_t>(issues_));
  const Registers regs(m, base_, words_);
  ArithIssue a = decode(regs);
  if (a.cls == vreg::kOpClassCmp || a.cls == vreg::kOpClassSel) {  // MASK and CTRL not read
    if (timer_ != nullptr) time_issue(a.cls, a.idx, a.dt_code, false, 0, a.repeat);
    on_cmp_issue(a.cls, a.idx, a.dt_code, a.repeat);
    return;
  }
  if (timer_ != nullptr) time_issue(a.cls, a.idx, a.dt_code, a.counter, a.count, a.repeat);
  if (a.cls == vreg::kOpClassCopy || a.cls == vreg::kOpClassDup || a.cls == vreg::kOpClassCvt ||
      a.cls == vreg::kOpClassBrcb) {
    on_move_issue(a.cls, a.idx, a.dt_code, a.ctrl, a.mask, a.repeat, a.dst_off, a.s0_off, a.ds, a.s0s);
    return;
  }
  if (a.cls == vreg::kOpClassGather) {
    on_gather_issue(a);
    return;
  }
  if (a.cls == vreg::kOpClassReduce) a.reduce_word = regs.r32(vreg::kReduce);
  if (!take(checker_.check(a))) return;
  Plan p = lane_plan(a);
  p.descending = sweep_down_;  // alternate contiguous runs' direction (run_contiguous: L1 reuse)
  sweep_down_ = !sweep_down_;
  if (pipes_ != nullptr) record_accesses(*pipes_, a, p, checker_.accepted_block_bits());
  if (a.cls == vreg::kOpClassReduce) {
    execute_reduce(ub_, a, p);
  } else if (a.cls == vreg::kOpClassBinary) {
    execute_binary(ub_, a, p);
  } else if (a.cls == vreg::kOpClassScalar) {
    execute_scalar(ub_, a, p, regs.r32(vreg::kScalar));
  } else {
    execute_unary(ub_, a, p);
  }
}

// The issue's cost on the pipe timer: its op class and its repeats (count mode: the repeats
// the count needs). Faulting issues are timed too: the pipe still takes them.
void A2a3VectorUnit::time_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, bool counter, uint32_t count,
                                uint32_t repeat) noexcept {
  using timing::VecClass;
  const uint32_t esize = dt_code <= static_cast<uint32_t>(DType::u32) ? dtype_size(static_cast<DType>(dt_code)) : 4u;
  const uint32_t epr = static_cast<uint32_t>(chip::a2a3::kRepeatBytes) / (esize == 0 ? 1u : esize);
  uint64_t units = counter ? (uint64_t{count} + epr - 1) / epr : repeat;
  VecClass c = VecClass::binary;
  const char* what = "v";
  if (cls == vreg::kOpClassBinary) {
    c = idx == static_cast<uint32_t>(desc::BinaryOp::vdiv) ? VecClass::div : VecClass::binary;
    what = idx < 6 ? desc::op_name(static_cast<desc::BinaryOp>(idx)) : "vbinary";
  } else if (cls == vreg::kOpClassUnary) {
    const bool simple = idx == static_cast<uint32_t>(desc::UnaryOp::vabs) || idx == static_cast<uint32_t>(desc::UnaryOp::vrelu);
    c = simple ? VecClass::unary : VecClass::math;
    what = idx < 7 ? desc::op_name(static_cast<desc::UnaryOp>(idx)) : "vunary";
  } else if (cls == vreg::kOpClassScalar) {
    c = VecClass::scalar;
    what = idx < 4 ? desc::op_name(static_cast<desc::ScalarOp>(idx)) : "vscalar";
  } else if (cls == vreg::kOpClassReduce) {
    c = VecClass::reduce;
    what = idx < 5 ? desc::op_name(static_cast<desc::ReduceOp>(idx)) : "vreduce";
  } else if (cls == vreg::kOpClassCopy) {
    // copy_ubuf_to_ubuf: nburst bursts of burst_len 32 B blocks.
    const uint32_t bw = machine_.read32(base_ + vreg::kCopyBurst);
    units = uint64_t{bw & 0xFFFu} * (bw >> 16);
    c = VecClass::copy;
    what = "copy_ubuf_to_ubuf";
  } else if (cls == vreg::kOpClassDup || cls == vreg::kOpClassBrcb) {
    c = VecClass::dup;
    what = cls == vreg::kOpClassDup ? "vector_dup" : "vbrcb";
  } else if (cls == vreg::kOpClassCvt) {
    c = VecClass::cvt;
    what = "vconv";
  } else if (cls == vreg::kOpClassGather) {
    c = VecClass::dup;  // no gather figure measured: timed as a one-pass move per repeat
    what = "vgather";
  } else if (cls == vreg::kOpClassCmp || cls == vreg::kOpClassSel) {
    // No fitted figure for these: timed as a binary issue per repeat (tilefw's estimate).
    what = cls == vreg::kOpClassCmp ? "vcmpv" : "vsel";
  }
  timer_->vector(c, units, what, dt_code == static_cast<uint32_t>(DType::f32));
}

}  // namespace tilefw::port::host
