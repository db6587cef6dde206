// Names, descriptions and conformance classes of every Status value.
// Kept in one table per function so a new value cannot be forgotten silently: -Wswitch
// (part of -Wall) flags any value missing from a switch.

#include "tilefw/base/status.hpp"

namespace tilefw {

const char* status_name(Status s) noexcept {
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_argument: return "invalid_argument";
    case Status::buffer_too_small: return "buffer_too_small";
    case Status::capacity_exceeded: return "capacity_exceeded";
    case Status::index_out_of_range: return "index_out_of_range";
    case Status::unsupported: return "unsupported";
    case Status::unmapped_address: return "unmapped_address";
    case Status::region_overrun: return "region_overrun";
    case Status::region_misaligned: return "region_misaligned";
    case Status::unmapped_register: return "unmapped_register";
    case Status::no_such_engine: return "no_such_engine";
    case Status::port_timeout: return "port_timeout";
    case Status::desc_repeat_out_of_range: return "desc_repeat_out_of_range";
    case Status::desc_normal_mode_needs_repeat: return "desc_normal_mode_needs_repeat";
    case Status::desc_count_mode_needs_zero_repeat: return "desc_count_mode_needs_zero_repeat";
    case Status::desc_count_mode_needs_count: return "desc_count_mode_needs_count";
    case Status::desc_tail_out_of_range: return "desc_tail_out_of_range";
    case Status::desc_tail_with_multiple_repeats: return "desc_tail_with_multiple_repeats";
    case Status::desc_tail_in_count_mode: return "desc_tail_in_count_mode";
    case Status::desc_extension_mode_unsupported: return "desc_extension_mode_unsupported";
    case Status::desc_stride_out_of_range: return "desc_stride_out_of_range";
    case Status::desc_dst_block_stride_zero: return "desc_dst_block_stride_zero";
    case Status::desc_unsupported_dtype: return "desc_unsupported_dtype";
    case Status::desc_operand_not_in_ub: return "desc_operand_not_in_ub";
    case Status::desc_reduce_mode_unsupported: return "desc_reduce_mode_unsupported";
    case Status::desc_unknown_op: return "desc_unknown_op";
    case Status::desc_unknown_mask_mode: return "desc_unknown_mask_mode";
    case Status::desc_copy_burst_out_of_range: return "desc_copy_burst_out_of_range";
    case Status::desc_conversion_unsupported: return "desc_conversion_unsupported";
    case Status::desc_dma_route_unsupported: return "desc_dma_route_unsupported";
    case Status::desc_layout_unsupported: return "desc_layout_unsupported";
    case Status::desc_matmul_types_unsupported: return "desc_matmul_types_unsupported";
    case Status::desc_shape_out_of_range: return "desc_shape_out_of_range";
    case Status::plan_unknown_op: return "plan_unknown_op";
    case Status::plan_tile_constraint: return "plan_tile_constraint";
    case Status::plan_unsupported_dtype: return "plan_unsupported_dtype";
    case Status::plan_layout_unsupported: return "plan_layout_unsupported";
    case Status::plan_valid_shape_mismatch: return "plan_valid_shape_mismatch";
    case Status::plan_empty_valid_region: return "plan_empty_valid_region";
    case Status::plan_tmp_too_small: return "plan_tmp_too_small";
    case Status::plan_tile_wrong_space: return "plan_tile_wrong_space";
    case Status::tile_misaligned: return "tile_misaligned";
    case Status::tile_out_of_bounds: return "tile_out_of_bounds";
    case Status::plan_too_long: return "plan_too_long";
    case Status::plan_operands_overlap: return "plan_operands_overlap";
    case Status::misaligned: return "misaligned";
    case Status::out_of_bounds: return "out_of_bounds";
    case Status::illegal_overlap: return "illegal_overlap";
    case Status::sim_unsupported_op: return "sim_unsupported_op";
    case Status::sim_unsynchronized_read: return "sim_unsynchronized_read";
    case Status::sim_wait_never_signalled: return "sim_wait_never_signalled";
    case Status::cmd_truncated: return "cmd_truncated";
    case Status::cmd_unknown_class: return "cmd_unknown_class";
    case Status::cmd_missing_end: return "cmd_missing_end";
    case Status::cmd_data_after_end: return "cmd_data_after_end";
    case Status::cmd_unsatisfiable_dependency: return "cmd_unsatisfiable_dependency";
    case Status::cmd_bad_address_tag: return "cmd_bad_address_tag";
    case Status::cmd_lmem_out_of_range: return "cmd_lmem_out_of_range";
    case Status::cmd_footprint_out_of_range: return "cmd_footprint_out_of_range";
    case Status::cmd_stream_too_long: return "cmd_stream_too_long";
    case Status::cmd_bad_field: return "cmd_bad_field";
    case Status::rt_engine_fault: return "rt_engine_fault";
    case Status::rt_timeout: return "rt_timeout";
    case Status::rt_deadlock: return "rt_deadlock";
    case Status::rt_busy: return "rt_busy";
    case Status::gen_bad_config: return "gen_bad_config";
    case Status::gen_cannot_map: return "gen_cannot_map";
    case Status::gen_plan_mismatch: return "gen_plan_mismatch";
  }
  return "unknown_status";
}

const char* status_description(Status s) noexcept {
  switch (s) {
    case Status::ok:
      return "Success: the operation did everything it was asked to.";
    case Status::invalid_argument:
      return "An argument is outside its documented domain (the message names the argument).";
    case Status::buffer_too_small:
      return "A caller-provided buffer is too small for the requested output.";
    case Status::capacity_exceeded:
      return "A fixed-capacity container is full.";
    case Status::index_out_of_range:
      return "An index or offset lies outside the valid range of a container or span.";
    case Status::unsupported:
      return "The operation or class is not supported by this build (the message names it).";
    case Status::unmapped_address:
      return "A device address belongs to no memory region of the chip profile.";
    case Status::region_overrun:
      return "A device access starts inside a region but runs past its end.";
    case Status::region_misaligned:
      return "A device address is not aligned as its region requires.";
    case Status::unmapped_register:
      return "A register address is not inside any register window of the chip profile.";
    case Status::no_such_engine:
      return "A doorbell was rung for an engine that this port backend does not provide.";
    case Status::port_timeout:
      return "A wait on the port ran out of time before the condition held.";
    case Status::desc_repeat_out_of_range:
      return "`repeat` > 255 (the hardware field is 8 bits; PTO splits larger work).";
    case Status::desc_normal_mode_needs_repeat:
      return "Normal mask mode with `repeat` == 0 (seed 000: Normal needs repeat > 0).";
    case Status::desc_count_mode_needs_zero_repeat:
      return "Count mask mode with `repeat` != 0 (seed 000: Count needs repeat == 0).";
    case Status::desc_count_mode_needs_count:
      return "Count mask mode with `vector_count` == 0 (seed 000: Count needs vectorCount > 0).";
    case Status::desc_tail_out_of_range:
      return "`tail_elements` > 256 / sizeof(T) (one repeat's lanes).";
    case Status::desc_tail_with_multiple_repeats:
      return "`tail_elements` > 0 together with `repeat` > 1: one issue cannot express both.";
    case Status::desc_tail_in_count_mode:
      return "`tail_elements` > 0 in Count mode: the tail is a Normal-mode mask.";
    case Status::desc_extension_mode_unsupported:
      return "`repeat_stride_mode` or `stride_size_mode` set: the a2a3 toolchain does not support them.";
    case Status::desc_stride_out_of_range:
      return "A block or repeat stride exceeds its field (0..255 for binary ops, 0..65535 otherwise).";
    case Status::desc_dst_block_stride_zero:
      return "`dst_block_stride` == 0: undefined on hardware (vector-semantics 1.1).";
    case Status::desc_unsupported_dtype:
      return "The (op, dtype) pair is not supported by the a2a3 vector unit (vector-semantics 3.1).";
    case Status::desc_operand_not_in_ub:
      return "An operand lies in a memory space other than UB; the vector unit reads and writes UB only.";
    case Status::desc_reduce_mode_unsupported:
      return "vcadd `mode` other than 0 (mode 1 accumulates into ACC_VAL; tilefw does not issue it).";
    case Status::desc_unknown_op:
      return "An op or reduction-order code that names no operation.";
    case Status::desc_unknown_mask_mode:
      return "`mask_mode` holds a value that is neither normal nor count.";
    case Status::desc_copy_burst_out_of_range:
      return "A UB-to-UB copy with `nburst` outside 1..4095 or `burst_len` outside 1..65535.";
    case Status::desc_conversion_unsupported:
      return "A vconv (source type, destination type, rounding mode) triple a2a3 does not provide, or a FIX-pipe move converting between types it does not convert.";
    case Status::desc_dma_route_unsupported:
      return "A tile move names a (pipe, source space, destination space) route the a2a3 MTE1/MTE2/MTE3/FIX pipes do not provide.";
    case Status::desc_layout_unsupported:
      return "An operand's layout is one its memory space cannot hold (L0A Zz, L0B Zn, L0C Nz 16x16 boxes, GM row-major, BiasTable one row), or its box shape does not divide its capacity.";
    case Status::desc_matmul_types_unsupported:
      return "Matmul (C, A, B) element types outside (i32,i8,i8), (f32,f16,f16), (f32,f32,f32), (f32,bf16,bf16), or a bias whose type is not C's.";
    case Status::desc_shape_out_of_range:
      return "A matmul m, k or n outside 1..4095, or a move's valid rows/cols 0 or beyond an operand's capacity.";
    case Status::plan_unknown_op:
      return "The tile instruction names no operation the planner knows.";
    case Status::plan_tile_constraint:
      return "A tile breaks a Tile constraint (tile-model 2.3): zero rows or cols, valid region larger than the capacity, or a row (column) of a row-major (col-major) tile not a multiple of 32 B.";
    case Status::plan_unsupported_dtype:
      return "An operand's element type is not one the instruction accepts on a2a3 (or differs from the other operands' where they must match).";
    case Status::plan_layout_unsupported:
      return "An operand's layout is not one the instruction accepts (e.g. TADD needs row-major tiles, TROWSUM a row-major src and a row-major or Nx1 col-major dst).";
    case Status::plan_valid_shape_mismatch:
      return "Valid regions of the operands do not match as the instruction requires.";
    case Status::plan_empty_valid_region:
      return "A valid row or column count is 0.";
    case Status::plan_tmp_too_small:
      return "The tmp tile is too small (or of the wrong type) for the instruction's scratch use.";
    case Status::plan_tile_wrong_space:
      return "A vector-unit tile lies outside UB (its TileType's space).";
    case Status::tile_misaligned:
      return "TASSIGN: the address is not aligned as the tile's memory space requires.";
    case Status::tile_out_of_bounds:
      return "TASSIGN: the tile does not fit inside its memory space at that address.";
    case Status::plan_too_long:
      return "The plan needs more segments than a Plan object holds (a planner limit, not the input's).";
    case Status::plan_operands_overlap:
      return "Operands share bytes where the instruction's stream needs them disjoint (TROWEXPAND*: tmp against dst, src0 or src1).";
    case Status::misaligned:
      return "A participating operand's start address is not aligned as the op requires.";
    case Status::out_of_bounds:
      return "A participating 32 B block (or reduction output) lies outside UB.";
    case Status::illegal_overlap:
      return "Operands overlap against the block rule of vector-semantics 1.4.";
    case Status::sim_unsupported_op:
      return "The simulator met an operation it does not implement (the message names it).";
    case Status::sim_unsynchronized_read:
      return "A pipe read bytes another pipe wrote without first waiting for that write's event (the hazard log names reader, writer, space and byte offset).";
    case Status::sim_wait_never_signalled:
      return "A WAIT names an instruction the producing pipe has not issued (on hardware it would wait forever).";
    case Status::cmd_truncated:
      return "The buffer ends inside a command.";
    case Status::cmd_unknown_class:
      return "(tsk_typ, tsk_eu_typ) or (cmd_type, cmd_special_function) names no command class.";
    case Status::cmd_missing_end:
      return "The buffer has no end command (TIU SYS end / DMA sys chain_end).";
    case Status::cmd_data_after_end:
      return "Non-zero bytes follow the end command.";
    case Status::cmd_unsatisfiable_dependency:
      return "An enabled cmd_id_dep names a command the other engine never completes.";
    case Status::cmd_bad_address_tag:
      return "An address tag names no memory (or a DDR region unknown to the memory map).";
    case Status::cmd_lmem_out_of_range:
      return "An LMEM lane or offset is out of range.";
    case Status::cmd_footprint_out_of_range:
      return "A tensor footprint (shape x stride x precision) runs outside its region.";
    case Status::cmd_stream_too_long:
      return "A stream holds more than 2^20 - 1 commands.";
    case Status::cmd_bad_field:
      return "A field holds a value the command class does not define (precision, stride mode, ...).";
    case Status::rt_engine_fault:
      return "An engine reported a fault.";
    case Status::rt_timeout:
      return "A wait ran out of time; the engine was reset.";
    case Status::rt_deadlock:
      return "Every unfinished engine is blocked on a dependency or barrier that cannot progress.";
    case Status::rt_busy:
      return "The runtime is busy with an earlier submission.";
    case Status::gen_bad_config:
      return "A model, inference or parallelism value the generator cannot honour (the detail names the key).";
    case Status::gen_cannot_map:
      return "The layer cannot be mapped onto the chip: a tile or tensor does not fit LMEM or L2, or a field overflows.";
    case Status::gen_plan_mismatch:
      return "Pass 2 got stream buffers whose sizes differ from what pass 1 planned.";
  }
  return "unknown status value";
}

StatusClass status_class(Status s) noexcept {
  switch (s) {
    case Status::ok: return StatusClass::ok;
    case Status::invalid_argument: return StatusClass::other;
    case Status::buffer_too_small: return StatusClass::other;
    case Status::capacity_exceeded: return StatusClass::other;
    case Status::index_out_of_range: return StatusClass::other;
    case Status::unsupported: return StatusClass::other;
    case Status::unmapped_address: return StatusClass::other;
    case Status::region_overrun: return StatusClass::other;
    case Status::region_misaligned: return StatusClass::other;
    case Status::unmapped_register: return StatusClass::other;
    case Status::no_such_engine: return StatusClass::other;
    case Status::port_timeout: return StatusClass::other;
    case Status::desc_repeat_out_of_range: return StatusClass::invalid_descriptor;
    case Status::desc_normal_mode_needs_repeat: return StatusClass::invalid_descriptor;
    case Status::desc_count_mode_needs_zero_repeat: return StatusClass::invalid_descriptor;
    case Status::desc_count_mode_needs_count: return StatusClass::invalid_descriptor;
    case Status::desc_tail_out_of_range: return StatusClass::invalid_descriptor;
    case Status::desc_tail_with_multiple_repeats: return StatusClass::invalid_descriptor;
    case Status::desc_tail_in_count_mode: return StatusClass::invalid_descriptor;
    case Status::desc_extension_mode_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_stride_out_of_range: return StatusClass::invalid_descriptor;
    case Status::desc_dst_block_stride_zero: return StatusClass::invalid_descriptor;
    case Status::desc_unsupported_dtype: return StatusClass::invalid_descriptor;
    case Status::desc_operand_not_in_ub: return StatusClass::invalid_descriptor;
    case Status::desc_reduce_mode_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_unknown_op: return StatusClass::invalid_descriptor;
    case Status::desc_unknown_mask_mode: return StatusClass::invalid_descriptor;
    case Status::desc_copy_burst_out_of_range: return StatusClass::invalid_descriptor;
    case Status::desc_conversion_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_dma_route_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_layout_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_matmul_types_unsupported: return StatusClass::invalid_descriptor;
    case Status::desc_shape_out_of_range: return StatusClass::invalid_descriptor;
    // An op the planner does not know, and a plan beyond Plan's capacity, are limits of this
    // build, not a property of the tiles: conformance reports them as FAIL (class other).
    case Status::plan_unknown_op: return StatusClass::other;
    case Status::plan_tile_constraint: return StatusClass::invalid_descriptor;
    case Status::plan_unsupported_dtype: return StatusClass::invalid_descriptor;
    case Status::plan_layout_unsupported: return StatusClass::invalid_descriptor;
    case Status::plan_valid_shape_mismatch: return StatusClass::invalid_descriptor;
    case Status::plan_empty_valid_region: return StatusClass::invalid_descriptor;
    case Status::plan_tmp_too_small: return StatusClass::invalid_descriptor;
    case Status::plan_tile_wrong_space: return StatusClass::invalid_descriptor;
    case Status::tile_misaligned: return StatusClass::misaligned;
    case Status::tile_out_of_bounds: return StatusClass::out_of_bounds;
    case Status::plan_too_long: return StatusClass::other;
    case Status::plan_operands_overlap: return StatusClass::invalid_descriptor;
    case Status::misaligned: return StatusClass::misaligned;
    case Status::out_of_bounds: return StatusClass::out_of_bounds;
    case Status::illegal_overlap: return StatusClass::illegal_overlap;
    case Status::sim_unsupported_op: return StatusClass::other;
    case Status::sim_unsynchronized_read: return StatusClass::other;
    case Status::sim_wait_never_signalled: return StatusClass::other;
    case Status::cmd_truncated: return StatusClass::other;
    case Status::cmd_unknown_class: return StatusClass::other;
    case Status::cmd_missing_end: return StatusClass::other;
    case Status::cmd_data_after_end: return StatusClass::other;
    case Status::cmd_unsatisfiable_dependency: return StatusClass::other;
    case Status::cmd_bad_address_tag: return StatusClass::other;
    case Status::cmd_lmem_out_of_range: return StatusClass::other;
    case Status::cmd_footprint_out_of_range: return StatusClass::other;
    case Status::cmd_stream_too_long: return StatusClass::other;
    case Status::cmd_bad_field: return StatusClass::other;
    case Status::rt_engine_fault: return StatusClass::other;
    case Status::rt_timeout: return StatusClass::other;
    case Status::rt_deadlock: return StatusClass::other;
    case Status::rt_busy: return StatusClass::other;
    case Status::gen_bad_config: return StatusClass::other;
    case Status::gen_cannot_map: return StatusClass::other;
    case Status::gen_plan_mismatch: return StatusClass::other;
  }
  return StatusClass::other;
}

const char* status_class_name(StatusClass c) noexcept {
  switch (c) {
    case StatusClass::ok: return "ok";
    case StatusClass::invalid_descriptor: return "invalid_descriptor";
    case StatusClass::misaligned: return "misaligned";
    case StatusClass::out_of_bounds: return "out_of_bounds";
    case StatusClass::illegal_overlap: return "illegal_overlap";
    case StatusClass::other: return "other";
  }
  return "other";
}

}  // namespace tilefw
