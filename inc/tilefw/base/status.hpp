// Status: the one error vocabulary of tilefw, grouped by layer, each value documented.
// Every fallible public function returns Status or Result<T>; both are [[nodiscard]].
//
// TILEFW_STATUS_TABLE below is the single definition of every value: its name, number,
// conformance class and one-sentence description. The enum, status_name, status_class,
// status_description, status_table() (which `tilefw status` lists) and docs/STATUS.md
// (scripts/status_table.py writes it; a test checks it is current) all read from it, so a new
// value is added in one place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilefw {

// Numeric ranges group the values by layer (the "band", status_band()) so a value read from a
// log or a register dump tells where it came from: 0 ok, 1..99 base, 100..199 chip/port,
// 200..299 desc (a2a3 vector descriptors, moves and matmuls), 300..399 issue/simulator,
// 400..499 plan/tile, 500..599 cmd (SG2260 command buffers), 600..699 rt (command-buffer
// runtime), 700..799 gen (instruction generator). Values never change once released.
//
// Columns: X(name, number, conformance class, description). The class is the coarse name
// `tilefw conform` compares against (docs/cli.md section 4.2, Expectations); an op the planner
// does not know (plan_unknown_op) and a plan beyond Plan's capacity (plan_too_long) are limits of
// this build, not a property of the
// tiles, so conformance reports them as FAIL (class other).
// clang-format off
#define TILEFW_STATUS_TABLE(X) \
  X(ok, 0, ok, "Success: the operation did everything it was asked to.") \
  /* ---- base */ \
  X(invalid_argument, 1, other, \
    "An argument is outside its documented domain (the message names the argument).") \
  X(buffer_too_small, 2, other, "A caller-provided buffer is too small for the requested output.") \
  X(capacity_exceeded, 3, other, "A fixed-capacity container is full.") \
  X(index_out_of_range, 4, other, \
    "An index or offset lies outside the valid range of a container or span.") \
  X(unsupported, 5, other, \
    "The operation or class is not supported by this build (the message names it).") \
  /* ---- chip / port */ \
  X(unmapped_address, 100, other, \
    "A device address belongs to no memory region of the chip profile.") \
  X(region_overrun, 101, other, "A device access starts inside a region but runs past its end.") \
  X(region_misaligned, 102, other, "A device address is not aligned as its region requires.") \
  X(unmapped_register, 103, other, \
    "A register address is not inside any register window of the chip profile.") \
  X(no_such_engine, 104, other, \
    "A doorbell was rung for an engine that this port backend does not provide.") \
  X(port_timeout, 105, other, "A wait on the port ran out of time before the condition held.") \
  /* ---- desc: a2a3 vector-intrinsic descriptors (docs/a2a3-vector-semantics.md) */ \
  X(desc_repeat_out_of_range, 200, invalid_descriptor, \
    "`repeat` > 255 (the hardware field is 8 bits; PTO splits larger work).") \
  X(desc_normal_mode_needs_repeat, 201, invalid_descriptor, \
    "Normal mask mode with `repeat` == 0 (the descriptor rule: Normal needs repeat > 0).") \
  X(desc_count_mode_needs_zero_repeat, 202, invalid_descriptor, \
    "Count mask mode with `repeat` != 0 (the descriptor rule: Count needs repeat == 0).") \
  X(desc_count_mode_needs_count, 203, invalid_descriptor, \
    "Count mask mode with `vector_count` == 0 (the descriptor rule: Count needs vectorCount > 0).") \
  X(desc_tail_out_of_range, 204, invalid_descriptor, \
    "`tail_elements` > 256 / sizeof(T) (one repeat's lanes).") \
  X(desc_tail_with_multiple_repeats, 205, invalid_descriptor, \
    "`tail_elements` > 0 together with `repeat` > 1: one issue cannot express both.") \
  X(desc_tail_in_count_mode, 206, invalid_descriptor, \
    "`tail_elements` > 0 in Count mode: the tail is a Normal-mode mask.") \
  X(desc_extension_mode_unsupported, 207, invalid_descriptor, \
    "`repeat_stride_mode` or `stride_size_mode` set: the a2a3 toolchain does not support them.") \
  X(desc_stride_out_of_range, 208, invalid_descriptor, \
    "A block or repeat stride exceeds its field (0..255 for binary ops, 0..65535 otherwise).") \
  X(desc_dst_block_stride_zero, 209, invalid_descriptor, \
    "`dst_block_stride` == 0: undefined on hardware (docs/a2a3-vector-semantics.md section 2).") \
  X(desc_unsupported_dtype, 210, invalid_descriptor, \
    "The (op, dtype) pair is not supported by the a2a3 vector unit (docs/a2a3-vector-semantics.md section 6.1).") \
  X(desc_operand_not_in_ub, 211, invalid_descriptor, \
    "An operand lies in a memory space other than UB; the vector unit reads and writes UB only.") \
  X(desc_reduce_mode_unsupported, 212, invalid_descriptor, \
    "vcadd `mode` other than 0 (mode 1 accumulates into ACC_VAL; tilefw does not issue it).") \
  X(desc_unknown_op, 213, invalid_descriptor, \
    "An op or reduction-order code that names no operation.") \
  X(desc_unknown_mask_mode, 214, invalid_descriptor, \
    "`mask_mode` holds a value that is neither normal nor count.") \
  X(desc_copy_burst_out_of_range, 215, invalid_descriptor, \
    "A UB-to-UB copy with `nburst` outside 1..4095 or `burst_len` outside 1..65535.") \
  X(desc_conversion_unsupported, 216, invalid_descriptor, \
    "A vconv (source type, destination type, rounding mode) triple a2a3 does not provide, or a " \
    "FIX-pipe move converting between types it does not convert.") \
  X(desc_dma_route_unsupported, 217, invalid_descriptor, \
    "A tile move names a (pipe, source space, destination space) route the a2a3 " \
    "MTE1/MTE2/MTE3/FIX pipes do not provide.") \
  X(desc_layout_unsupported, 218, invalid_descriptor, \
    "An operand's layout is one its memory space cannot hold on the profile (L0A Zz on a2a3, " \
    "Nz on A5; L0B Zn, L0C Nz 16x16 boxes, GM row-major, BiasTable one row), or its box shape " \
    "does not divide its capacity.") \
  X(desc_matmul_types_unsupported, 219, invalid_descriptor, \
    "Matmul (C, A, B) element types outside (i32,i8,i8), (f32,f16,f16), (f32,f32,f32), " \
    "(f32,bf16,bf16), or a bias whose type is not C's.") \
  X(misaligned, 220, misaligned, \
    "A participating operand's start address is not aligned as the op requires.") \
  X(out_of_bounds, 221, out_of_bounds, \
    "A participating 32 B block (or reduction output) lies outside UB.") \
  X(illegal_overlap, 222, illegal_overlap, \
    "Operands overlap against the block rule of docs/a2a3-vector-semantics.md section 5.") \
  X(desc_shape_out_of_range, 223, invalid_descriptor, \
    "A matmul m, k or n outside 1..4095, or a move's valid rows/cols 0 or beyond an operand's " \
    "capacity.") \
  /* ---- issue / simulator */ \
  X(sim_unsupported_op, 300, other, \
    "The simulator met an operation it does not implement (the message names it).") \
  X(sim_unsynchronized_read, 301, other, \
    "A pipe read bytes another pipe wrote without first waiting for that write's event (the " \
    "hazard log names reader, writer, space and byte offset).") \
  X(sim_wait_never_signalled, 302, other, \
    "A WAIT names an instruction the producing pipe has not issued (on hardware it would wait " \
    "forever).") \
  /* ---- plan / tile: tile instructions planned into single issues */ \
  X(plan_unknown_op, 400, other, "The tile instruction names no operation the planner knows.") \
  X(plan_tile_constraint, 401, invalid_descriptor, \
    "A tile breaks a Tile constraint (docs/a2a3-tile-model.md section 4): zero rows or cols, valid region larger " \
    "than the capacity, or a row (column) of a row-major (col-major) tile not a multiple of 32 " \
    "B.") \
  X(plan_unsupported_dtype, 402, invalid_descriptor, \
    "An operand's element type is not one the instruction accepts on a2a3 (or differs from the " \
    "other operands' where they must match).") \
  X(plan_layout_unsupported, 403, invalid_descriptor, \
    "An operand's layout is not one the instruction accepts (e.g. TADD needs row-major tiles, " \
    "TROWSUM a row-major src and a row-major or Nx1 col-major dst).") \
  X(plan_valid_shape_mismatch, 404, invalid_descriptor, \
    "Valid regions of the operands do not match as the instruction requires.") \
  X(plan_empty_valid_region, 405, invalid_descriptor, "A valid row or column count is 0.") \
  X(plan_tmp_too_small, 406, invalid_descriptor, \
    "The tmp tile is too small (or of the wrong type) for the instruction's scratch use.") \
  X(plan_tile_wrong_space, 407, invalid_descriptor, \
    "A vector-unit tile lies outside UB (its TileType's space).") \
  X(tile_misaligned, 408, misaligned, \
    "TASSIGN: the address is not aligned as the tile's memory space requires.") \
  X(tile_out_of_bounds, 409, out_of_bounds, \
    "TASSIGN: the tile does not fit inside its memory space at that address.") \
  X(plan_too_long, 410, other, \
    "The plan needs more segments than a Plan object holds (a planner limit, not the input's).") \
  X(plan_operands_overlap, 411, invalid_descriptor, \
    "Operands share bytes where the instruction's stream needs them disjoint (TROWEXPAND*: tmp " \
    "against dst, src0 or src1).") \
  X(tile_unassigned, 412, other, \
    "A tile instruction names a tile (or GlobalTensor) that TASSIGN never placed (the report " \
    "names the operand).") \
  /* ---- cmd: SG2260 command buffers */ \
  X(cmd_truncated, 500, other, "The buffer ends inside a command.") \
  X(cmd_unknown_class, 501, other, \
    "(tsk_typ, tsk_eu_typ) or (cmd_type, cmd_special_function) names no command class.") \
  X(cmd_missing_end, 502, other, \
    "The buffer has no end command (TIU SYS end / DMA or CDMA sys chain_end).") \
  X(cmd_data_after_end, 503, other, "Non-zero bytes follow the end command.") \
  X(cmd_unsatisfiable_dependency, 504, other, \
    "An enabled cmd_id_dep names a command the other engine never completes.") \
  X(cmd_bad_address_tag, 505, other, \
    "An address tag names no memory (or a DDR region unknown to the memory map), or memory " \
    "the engine cannot reach (local memory from the SDMA).") \
  X(cmd_lmem_out_of_range, 506, other, "An LMEM lane or offset is out of range.") \
  X(cmd_footprint_out_of_range, 507, other, \
    "A tensor footprint (shape x stride x precision) runs outside its region.") \
  X(cmd_stream_too_long, 508, other, "A stream holds more than 2^20 - 1 commands.") \
  X(cmd_bad_field, 509, other, \
    "A field holds a value the command class does not define (precision, stride mode, ...).") \
  X(cmd_no_route, 510, other, \
    "A CDMA stream names a peer its chip has no link or route to, or a chip uses more CDMA " \
    "ports than it has.") \
  X(cmd_unmatched_transfer, 511, other, \
    "A CDMA send or recv has no partner on its peer's port: the two sides hold different " \
    "numbers of transfers.") \
  X(cmd_pair_mismatch, 512, other, \
    "A matched CDMA send and recv disagree on element count, data format or reduce.") \
  X(cmd_unsatisfiable_message, 513, other, \
    "A message wait no order of its chip's engines can release (too few sends of its id).") \
  /* ---- rt: command-buffer runtime */ \
  X(rt_engine_fault, 600, other, "An engine reported a fault.") \
  X(rt_timeout, 601, other, "A wait ran out of time; the engine was reset.") \
  X(rt_deadlock, 602, other, \
    "Every unfinished engine is blocked on a dependency or barrier that cannot progress.") \
  X(rt_busy, 603, other, "The runtime is busy with an earlier submission.") \
  /* ---- gen: the instruction generator */ \
  X(gen_bad_config, 700, other, \
    "A model, inference or parallelism value the generator cannot honour (the detail names the " \
    "key).") \
  X(gen_cannot_map, 701, other, \
    "The layer cannot be mapped onto the chip: a tile or tensor does not fit LMEM or L2, or a " \
    "field overflows.") \
  X(gen_plan_mismatch, 702, other, \
    "Pass 2 got stream buffers whose sizes differ from what pass 1 planned.") \
  /* ---- fw: firmware compositions (a MoE layer's two phases) */ \
  X(fw_bad_counts, 800, other, \
    "The routing phase left a per-expert token count that is not an integer from 0 to the " \
    "request's tokens (the detail names the expert).")

// clang-format on

enum class [[nodiscard]] Status : uint16_t {
#define TILEFW_STATUS_ENUMERATOR(name, number, cls, text) name = number,
  TILEFW_STATUS_TABLE(TILEFW_STATUS_ENUMERATOR)
#undef TILEFW_STATUS_ENUMERATOR
};

/// Conformance class of a Status: the coarse names `tilefw conform` compares against
/// (docs/cli.md section 4.2, Expectations).
enum class StatusClass : uint8_t {
  ok,
  invalid_descriptor,
  misaligned,
  out_of_bounds,
  illegal_overlap,
  other,
};

/// The enum value's own name, e.g. "desc_dst_block_stride_zero". Never null.
const char* status_name(Status s) noexcept;
/// One sentence saying what the value means. Never null. A build configured with
/// `-Dstatus_strings=names` (TILEFW_STATUS_DESCRIPTIONS=0, for firmware footprint) keeps no
/// descriptions and returns the name instead.
const char* status_description(Status s) noexcept;
/// The conformance class (every desc_* value is invalid_descriptor).
StatusClass status_class(Status s) noexcept;
/// The layer band of the value's number ("base", "chip/port", "desc", "issue/sim", "plan/tile",
/// "cmd", "rt", "gen"; "ok" for ok). Never null.
const char* status_band(Status s) noexcept;
/// Name of a class as conformance case files spell it ("invalid_descriptor", ...).
const char* status_class_name(StatusClass c) noexcept;

/// One row of the table, for programs that list every value (`tilefw status`).
struct StatusInfo {
  Status value;
  const char* name;
  StatusClass cls;
  const char* description;
};
/// Every defined value in table order, with its count. The descriptions follow the
/// `status_strings` build option (see status_description).
const StatusInfo* status_table(std::size_t& count) noexcept;

constexpr bool is_ok(Status s) noexcept { return s == Status::ok; }

}  // namespace tilefw

/// The library's failure reasons (the short sentence a validation or runtime report carries
/// beside its Status, field, command id and byte offset) are spelled TILEFW_REASON("..."). A
/// build with `-Dstatus_strings=names` drops them with the Status descriptions: the report
/// keeps every structured fact and its message is empty (a firmware logs the Status name, the
/// field and the offset; the host tools, built with the full strings, say the rest).
#ifndef TILEFW_STATUS_DESCRIPTIONS
#define TILEFW_STATUS_DESCRIPTIONS 1
#endif
#if TILEFW_STATUS_DESCRIPTIONS
#define TILEFW_REASON(text) text
#else
#define TILEFW_REASON(text) ""
#endif
