// Tile moves, matmuls and the event wait: plain register writes through the port facade, one
// doorbell per issue, complete validation before the first write.
#include "tilefw/issue/engine_issue.hpp"

#include "tilefw/port/port.hpp"

namespace tilefw::issue {

namespace {
namespace a2a3 = chip::a2a3;

uint32_t layout_word(const desc::MoveOperand& o) noexcept {
  const desc::OperandLayout& l = o.layout;
  return (l.col_major ? 1u : 0u) | (static_cast<uint32_t>(l.box) << 1) |
         (static_cast<uint32_t>(o.dtype) << 8) | ((l.box_rows & 0xFFu) << 16) | ((l.box_cols & 0xFFu) << 24);
}

Status read_status(uint64_t address) noexcept {
  return static_cast<Status>(port::reg_read32(address) & 0xFFFFu);
}

// The register writes of a validated move (then one doorbell, the engine's STATUS).
Status write_move(const desc::MoveDesc& d) noexcept {
  const uint64_t b = a2a3::move_window(d.pipe)->base;  // validated: a move pipe
  port::reg_write64(b + a2a3::dreg::kSrcAddr, d.src.offset);
  port::reg_write64(b + a2a3::dreg::kDstAddr, d.dst.offset);
  port::reg_write32(b + a2a3::dreg::kSpaces, a2a3::dreg::spaces_word(d.src.space, d.dst.space));
  port::reg_write32(b + a2a3::dreg::kSrcLayout, layout_word(d.src));
  port::reg_write32(b + a2a3::dreg::kDstLayout, layout_word(d.dst));
  port::reg_write32(b + a2a3::dreg::kSrcShape, a2a3::dreg::pair_word(d.src.rows, d.src.cols));
  port::reg_write32(b + a2a3::dreg::kDstShape, a2a3::dreg::pair_word(d.dst.rows, d.dst.cols));
  port::reg_write32(b + a2a3::dreg::kSrcStride, d.src.stride);
  port::reg_write32(b + a2a3::dreg::kDstStride, d.dst.stride);
  port::reg_write32(b + a2a3::dreg::kExtent, a2a3::dreg::pair_word(d.rows, d.cols));
  port::ring_doorbell(b + a2a3::dreg::kDoorbell, 1u);
  return read_status(b + a2a3::dreg::kStatus);
}

// The same for a validated matmul.
Status write_matmul(const desc::MatmulDesc& d) noexcept {
  const uint64_t b = a2a3::kCubeRegisters.base;
  port::reg_write32(b + a2a3::creg::kOp, a2a3::creg::op_word(static_cast<uint32_t>(d.kind),
                                                            static_cast<uint32_t>(d.a_type),
                                                            static_cast<uint32_t>(d.c_type)));
  port::reg_write32(b + a2a3::creg::kAAddr, d.a_offset);
  port::reg_write32(b + a2a3::creg::kBAddr, d.b_offset);
  port::reg_write32(b + a2a3::creg::kCAddr, d.c_offset);
  port::reg_write32(b + a2a3::creg::kBiasAddr, d.bias_offset);
  port::reg_write32(b + a2a3::creg::kAShape, a2a3::dreg::pair_word(d.a_rows, d.a_cols));
  port::reg_write32(b + a2a3::creg::kBShape, a2a3::dreg::pair_word(d.b_rows, d.b_cols));
  port::reg_write32(b + a2a3::creg::kCShape, a2a3::dreg::pair_word(d.c_rows, d.c_cols));
  port::reg_write32(b + a2a3::creg::kM, d.m);
  port::reg_write32(b + a2a3::creg::kK, d.k);
  port::reg_write32(b + a2a3::creg::kN, d.n);
  port::ring_doorbell(b + a2a3::creg::kDoorbell, 1u);
  return read_status(b + a2a3::creg::kStatus);
}

}  // namespace

Status issue_once(const desc::MoveDesc& d, desc::DescReport* report, chip::Chip on) noexcept {
  const Status s = desc::Validator::verdict(d, DType::u8, desc::Mask128::all(), report, on);
  return s == Status::ok ? write_move(d) : s;
}

Status issue_once(const desc::MatmulDesc& d, desc::DescReport* report, chip::Chip on) noexcept {
  const Status s = desc::Validator::verdict(d, DType::u8, desc::Mask128::all(), report, on);
  return s == Status::ok ? write_matmul(d) : s;
}

Status emit(const desc::Validated<desc::MoveDesc>& v) noexcept { return write_move(v.desc()); }
Status emit(const desc::Validated<desc::MatmulDesc>& v) noexcept { return write_matmul(v.desc()); }

Status wait_event(a2a3::Pipe producer, uint32_t seq, a2a3::Pipe waiter) noexcept {
  if (producer == waiter) return Status::ok;
  const uint64_t b = a2a3::kSyncRegisters.base;
  port::reg_write32(b + a2a3::sreg::kWaitSeq, seq);
  port::reg_write32(b + a2a3::sreg::kWait, a2a3::sreg::wait_word(producer, waiter));
  return read_status(b + a2a3::sreg::kStatus);
}

void barrier_all() noexcept { port::reg_write32(a2a3::kSyncRegisters.base + a2a3::sreg::kBarrier, 1u); }

uint32_t pipe_count(a2a3::Pipe p) noexcept {
  return port::reg_read32(a2a3::kSyncRegisters.base + a2a3::sreg::pipe_count(p));
}

CycleCounters read_cycle_counters() noexcept {
  const uint64_t b = a2a3::kSyncRegisters.base;
  port::reg_write32(b + a2a3::sreg::kCycleLatch, 1u);
  CycleCounters c{};
  c.cycles = port::reg_read64(b + a2a3::sreg::kCycles);
  for (uint32_t i = 0; i < a2a3::sreg::kCounterPipes; ++i) c.busy[i] = port::reg_read64(b + a2a3::sreg::pipe_busy(i));
  return c;
}

}  // namespace tilefw::issue
