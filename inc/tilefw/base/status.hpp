// Status: the one error vocabulary of tilefw, grouped by layer, each value documented.
// Every fallible public function returns Status or Result<T>; both are [[nodiscard]].
#pragma once

#include <cstdint>

namespace tilefw {

// Numeric ranges group the values by layer so a value read from a log or a register dump
// tells where it came from: 0 ok, 1..99 base, 100..199 chip/port, 200..299 desc (a2a3 vector
// descriptors, moves and matmuls), 300..399 issue/simulator, 400..499 plan/tile, 500..599 cmd (SG2260 command
// buffers), 600..699 rt (command-buffer runtime), 700..799 gen (instruction generator). Values never change once released.
enum class [[nodiscard]] Status : uint16_t {
  /// Success: the operation did everything it was asked to.
  ok = 0,

  // ---- base ------------------------------------------------------------------------------
  /// An argument is outside its documented domain (the message names the argument).
  invalid_argument = 1,
  /// A caller-provided buffer is too small for the requested output.
  buffer_too_small = 2,
  /// A fixed-capacity container is full.
  capacity_exceeded = 3,
  /// An index or offset lies outside the valid range of a container or span.
  index_out_of_range = 4,
  /// The operation or class is not supported by this build (the message names it).
  unsupported = 5,

  // ---- chip / port -----------------------------------------------------------------------
  /// A device address belongs to no memory region of the chip profile.
  unmapped_address = 100,
  /// A device access starts inside a region but runs past its end.
  region_overrun = 101,
  /// A device address is not aligned as its region requires.
  region_misaligned = 102,
  /// A register address is not inside any register window of the chip profile.
  unmapped_register = 103,
  /// A doorbell was rung for an engine that this port backend does not provide.
  no_such_engine = 104,
  /// A wait on the port ran out of time before the condition held.
  port_timeout = 105,

  // ---- desc: a2a3 vector-intrinsic descriptors (seed 000, vector-semantics) --------------
  /// `repeat` > 255 (the hardware field is 8 bits; PTO splits larger work).
  desc_repeat_out_of_range = 200,
  /// Normal mask mode with `repeat` == 0 (seed 000: Normal needs repeat > 0).
  desc_normal_mode_needs_repeat = 201,
  /// Count mask mode with `repeat` != 0 (seed 000: Count needs repeat == 0).
  desc_count_mode_needs_zero_repeat = 202,
  /// Count mask mode with `vector_count` == 0 (seed 000: Count needs vectorCount > 0).
  desc_count_mode_needs_count = 203,
  /// `tail_elements` > 256 / sizeof(T) (one repeat's lanes).
  desc_tail_out_of_range = 204,
  /// `tail_elements` > 0 together with `repeat` > 1: one issue cannot express both.
  desc_tail_with_multiple_repeats = 205,
  /// `tail_elements` > 0 in Count mode: the tail is a Normal-mode mask.
  desc_tail_in_count_mode = 206,
  /// `repeat_stride_mode` or `stride_size_mode` set: the a2a3 toolchain does not support them.
  desc_extension_mode_unsupported = 207,
  /// A block or repeat stride exceeds its field (0..255 for binary ops, 0..65535 otherwise).
  desc_stride_out_of_range = 208,
  /// `dst_block_stride` == 0: undefined on hardware (vector-semantics 1.1).
  desc_dst_block_stride_zero = 209,
  /// The (op, dtype) pair is not supported by the a2a3 vector unit (vector-semantics 3.1).
  desc_unsupported_dtype = 210,
  /// An operand lies in a memory space other than UB; the vector unit reads and writes UB only.
  desc_operand_not_in_ub = 211,
  /// vcadd `mode` other than 0 (mode 1 accumulates into ACC_VAL; tilefw does not issue it).
  desc_reduce_mode_unsupported = 212,
  /// An op or reduction-order code that names no operation.
  desc_unknown_op = 213,
  /// `mask_mode` holds a value that is neither normal nor count.
  desc_unknown_mask_mode = 214,
  /// A UB-to-UB copy with `nburst` outside 1..4095 or `burst_len` outside 1..65535.
  desc_copy_burst_out_of_range = 215,
  /// A vconv (source type, destination type, rounding mode) triple a2a3 does not provide, or a
  /// FIX-pipe move converting between types it does not convert.
  desc_conversion_unsupported = 216,
  /// A tile move names a (pipe, source space, destination space) route the a2a3 MTE1/MTE2/
  /// MTE3/FIX pipes do not provide (e.g. GM -> L0A, or UB -> L1 on MTE2).
  desc_dma_route_unsupported = 217,
  /// An operand's layout is one its memory space cannot hold (L0A Zz, L0B Zn, L0C Nz 16x16
  /// boxes, GM row-major, BiasTable one row), or its box shape does not divide its capacity.
  desc_layout_unsupported = 218,
  /// Matmul (C, A, B) element types outside (i32,i8,i8), (f32,f16,f16), (f32,f32,f32),
  /// (f32,bf16,bf16), or a bias whose type is not C's.
  desc_matmul_types_unsupported = 219,
  /// A matmul m, k or n outside 1..4095, or a move's valid rows/cols 0 or beyond an operand's
  /// capacity.
  desc_shape_out_of_range = 223,
  /// A participating operand's start address is not aligned as the op requires.
  misaligned = 220,
  /// A participating 32 B block (or reduction output) lies outside UB.
  out_of_bounds = 221,
  /// Operands overlap against the block rule of vector-semantics 1.4.
  illegal_overlap = 222,

  // ---- issue / simulator -----------------------------------------------------------------
  /// The simulator met an operation it does not implement (the message names it).
  sim_unsupported_op = 300,
  /// A pipe read bytes another pipe wrote without first waiting for that write's event (the
  /// simulator's hazard log names reader, writer, space and byte offset). Real hardware would
  /// read stale data; the simulator reports it and executes in program order.
  sim_unsynchronized_read = 301,
  /// A WAIT names an instruction the producing pipe has not issued: on hardware it would wait
  /// forever (the core issues in program order, so nothing can ever signal it).
  sim_wait_never_signalled = 302,

  // ---- plan / tile: tile instructions planned into single issues -------------------------
  /// The tile instruction names no operation the planner knows.
  plan_unknown_op = 400,
  /// A tile breaks a Tile constraint (tile-model 2.3): zero rows or cols, valid region larger
  /// than the capacity, or a row (column) of a row-major (col-major) tile not a multiple of 32 B.
  plan_tile_constraint = 401,
  /// An operand's element type is not one the instruction accepts on a2a3 (or differs from
  /// the other operands' where they must match).
  plan_unsupported_dtype = 402,
  /// An operand's layout is not one the instruction accepts (e.g. TADD needs row-major tiles,
  /// TROWSUM a row-major src and a row-major or Nx1 col-major dst).
  plan_layout_unsupported = 403,
  /// Valid regions of the operands do not match as the instruction requires.
  plan_valid_shape_mismatch = 404,
  /// A valid row or column count is 0.
  plan_empty_valid_region = 405,
  /// The tmp tile is too small (or of the wrong type) for the instruction's scratch use.
  plan_tmp_too_small = 406,
  /// A vector-unit tile lies outside UB (its TileType's space).
  plan_tile_wrong_space = 407,
  /// TASSIGN: the address is not aligned as the tile's memory space requires.
  tile_misaligned = 408,
  /// TASSIGN: the tile does not fit inside its memory space at that address.
  tile_out_of_bounds = 409,
  /// The plan needs more segments than a Plan object holds (a planner limit, not the input's).
  plan_too_long = 410,
  /// Operands share bytes where the instruction's stream needs them disjoint (TROWEXPAND*:
  /// the tmp tile that holds the broadcast blocks against dst, src0 or src1).
  plan_operands_overlap = 411,

  // ---- cmd: SG2260 command buffers -------------------------------------------------------
  /// The buffer ends inside a command.
  cmd_truncated = 500,
  /// (tsk_typ, tsk_eu_typ) or (cmd_type, cmd_special_function) names no command class.
  cmd_unknown_class = 501,
  /// The buffer has no end command (TIU SYS end / DMA sys chain_end).
  cmd_missing_end = 502,
  /// Non-zero bytes follow the end command.
  cmd_data_after_end = 503,
  /// An enabled cmd_id_dep names a command the other engine never completes.
  cmd_unsatisfiable_dependency = 504,
  /// An address tag names no memory (or a DDR region unknown to the memory map).
  cmd_bad_address_tag = 505,
  /// An LMEM lane or offset is out of range.
  cmd_lmem_out_of_range = 506,
  /// A tensor footprint (shape x stride x precision) runs outside its region.
  cmd_footprint_out_of_range = 507,
  /// A stream holds more than 2^20 - 1 commands.
  cmd_stream_too_long = 508,
  /// A field holds a value the command class does not define (precision, stride mode, ...).
  cmd_bad_field = 509,

  // ---- rt: command-buffer runtime --------------------------------------------------------
  /// An engine reported a fault.
  rt_engine_fault = 600,
  /// A wait ran out of time; the engine was reset.
  rt_timeout = 601,
  /// Every unfinished engine is blocked on a dependency or barrier that cannot progress.
  rt_deadlock = 602,
  /// The runtime is busy with an earlier submission.
  rt_busy = 603,

  // ---- gen: the instruction generator ----------------------------------------------------
  /// A model, inference or parallelism value the generator cannot honour (the detail names
  /// the key: e.g. tp not dividing the heads, seq 0, decode without kv_len).
  gen_bad_config = 700,
  /// The layer cannot be mapped onto the chip: a tile or a live tensor does not fit LMEM or
  /// L2, or a field would overflow (the detail names the tensor).
  gen_cannot_map = 701,
  /// Pass 2 was given stream buffers whose sizes differ from what pass 1 planned.
  gen_plan_mismatch = 702,
};

/// Conformance class of a Status: the coarse names spec/conformance.md compares against.
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
/// One sentence saying what the value means. Never null.
const char* status_description(Status s) noexcept;
/// The conformance class (every desc_* value is invalid_descriptor).
StatusClass status_class(Status s) noexcept;
/// Name of a class as spec/conformance.md spells it ("invalid_descriptor", ...).
const char* status_class_name(StatusClass c) noexcept;

constexpr bool is_ok(Status s) noexcept { return s == Status::ok; }

}  // namespace tilefw
