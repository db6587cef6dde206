// The rules of a tile move (routes per pipe, element types, layouts per space, bounds), with
// a pure constexpr validate() in rule order.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/desc/data/tile_move_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

/// Field limits of the register map (16-bit shapes and extents).
inline constexpr uint32_t kMaxMoveDim = 0xFFFF;

/// The one space each move pipe reads from.
constexpr chip::MemSpace move_source_space(chip::a2a3::Pipe p) noexcept {
  using chip::MemSpace;
  using chip::a2a3::Pipe;
  switch (p) {
    case Pipe::MTE2: return MemSpace::GM;
    case Pipe::MTE1: return MemSpace::L1;
    case Pipe::MTE3: return MemSpace::UB;
    case Pipe::FIX: return MemSpace::L0C;
    default: return MemSpace::none;
  }
}

constexpr bool move_route_ok(chip::a2a3::Pipe p, chip::MemSpace from, chip::MemSpace to) noexcept {
  using chip::MemSpace;
  using chip::a2a3::Pipe;
  switch (p) {
    case Pipe::MTE2: return from == MemSpace::GM && (to == MemSpace::UB || to == MemSpace::L1);
    case Pipe::MTE1:
      return from == MemSpace::L1 && (to == MemSpace::L0A || to == MemSpace::L0B || to == MemSpace::BiasTable);
    case Pipe::MTE3: return from == MemSpace::UB && to == MemSpace::GM;
    case Pipe::FIX: return from == MemSpace::L0C && (to == MemSpace::UB || to == MemSpace::GM);
    default: return false;
  }
}

constexpr bool move_types_ok(chip::a2a3::Pipe p, DType from, DType to) noexcept {
  if (p != chip::a2a3::Pipe::FIX) return from == to;
  if (from == DType::f32) return to == DType::f32 || to == DType::f16 || to == DType::bf16;
  return from == DType::i32 && to == DType::i32;
}

namespace detail {

// The layout a space requires, or accepts: L0A the profile's Left layout (Zz on a2a3, Nz on
// A5), L0B Zn, L0C Nz 16 x 16, GM and BiasTable unboxed row-major (BiasTable one row); UB and
// L1 unboxed or boxed with 512 / 1024 B boxes.
constexpr bool layout_ok_for_space(const MoveOperand& o, chip::Chip on) noexcept {
  using chip::MemSpace;
  const uint32_t elem = dtype_size(o.dtype);
  const OperandLayout& l = o.layout;
  auto same = [&](const OperandLayout& w) {
    return l.col_major == w.col_major && l.box == w.box && l.box_rows == w.box_rows && l.box_cols == w.box_cols;
  };
  switch (o.space) {
    case MemSpace::L0A: return same(left_layout(on, elem));
    case MemSpace::L0B: return same(zn_layout(elem));
    case MemSpace::L0C: return same(nz_acc_layout());
    case MemSpace::GM: return l.box == BoxOrder::none && !l.col_major;
    case MemSpace::BiasTable: return l.box == BoxOrder::none && !l.col_major && o.rows == 1;
    case MemSpace::UB:
    case MemSpace::L1: {
      if (l.box == BoxOrder::none) return l.box_rows == 1 && l.box_cols == 1;
      const uint64_t box_bytes = uint64_t{l.box_rows} * l.box_cols * elem;
      return l.box_rows > 0 && l.box_cols > 0 && (box_bytes == 512 || box_bytes == 1024);
    }
    default: return false;
  }
}

// Bytes from the operand's offset to one past the last byte the move touches (boxed operands:
// the whole capacity, since boxes interleave rows and columns).
constexpr uint64_t move_footprint(const MoveOperand& o, uint32_t rows, uint32_t cols) noexcept {
  const uint64_t elem = dtype_size(o.dtype);
  if (o.layout.box != BoxOrder::none) return uint64_t{o.rows} * o.cols * elem;
  const uint64_t last = o.layout.col_major ? uint64_t{cols - 1} * o.stride + (rows - 1)
                                           : uint64_t{rows - 1} * o.stride + (cols - 1);
  return (last + 1) * elem;
}

constexpr bool check_move_operand(DescReport& r, const MoveOperand& o, bool is_src, uint32_t rows,
                                  uint32_t cols, chip::Chip on) noexcept {
  const char* const layout_field = is_src ? "src.layout" : "dst.layout";
  if (!layout_ok_for_space(o, on)) return fail(r, Status::desc_layout_unsupported, layout_field, static_cast<uint32_t>(o.space));
  if (o.rows > kMaxMoveDim || o.cols > kMaxMoveDim) {
    return fail(r, Status::desc_shape_out_of_range, is_src ? "src.rows" : "dst.rows", o.rows > kMaxMoveDim ? o.rows : o.cols,
                kMaxMoveDim);
  }
  if (rows > o.rows) return fail(r, Status::desc_shape_out_of_range, is_src ? "src.rows" : "dst.rows", rows, o.rows);
  if (cols > o.cols) return fail(r, Status::desc_shape_out_of_range, is_src ? "src.cols" : "dst.cols", cols, o.cols);
  const OperandLayout& l = o.layout;
  if (l.box != BoxOrder::none && (o.rows % l.box_rows != 0 || o.cols % l.box_cols != 0)) {
    return fail(r, Status::desc_layout_unsupported, layout_field, o.rows % l.box_rows != 0 ? o.rows : o.cols,
                o.rows % l.box_rows != 0 ? l.box_rows : l.box_cols);
  }
  if (l.box == BoxOrder::none) {
    const uint32_t need = l.col_major ? o.rows : o.cols;  // a column (row) must fit its stride
    if (o.stride < need) return fail(r, Status::desc_layout_unsupported, is_src ? "src.stride" : "dst.stride", o.stride, need);
  }
  return false;
}

constexpr bool check_move_memory(DescReport& r, const MoveOperand& o, bool is_src, uint32_t rows,
                                 uint32_t cols, chip::Chip on) noexcept {
  const uint64_t size = chip::region_size(on, o.space);
  const uint32_t align = chip::region_alignment(on, o.space);
  if (o.offset % align != 0) {
    r.byte_offset = o.offset;
    return fail(r, Status::misaligned, is_src ? "src.offset" : "dst.offset", static_cast<uint32_t>(o.offset), align);
  }
  const uint64_t bytes = move_footprint(o, rows, cols);
  if (o.offset > size || bytes > size - o.offset) {
    r.byte_offset = o.offset > size ? o.offset : size;  // the first byte outside the space
    return fail(r, Status::out_of_bounds, is_src ? "src" : "dst", static_cast<uint32_t>(o.offset),
                static_cast<uint32_t>(size));
  }
  return false;
}

}  // namespace detail

/// Validates a move completely, rules in this order: pipe and route, element types, extent,
/// each operand's layout and shape (src, then dst), then alignment and bounds (src, then dst).
/// The spaces of every route differ, so operands never overlap. `on`: the chip profile whose
/// space sizes bound the operands and whose Left layout an L0A operand has (the build's by
/// default).
constexpr DescReport validate(const MoveDesc& d, chip::Chip on = chip::kBuildChip) noexcept {
  using chip::a2a3::Pipe;
  DescReport r{};
  if (d.pipe != Pipe::MTE2 && d.pipe != Pipe::MTE1 && d.pipe != Pipe::MTE3 && d.pipe != Pipe::FIX) {
    detail::fail(r, Status::desc_dma_route_unsupported, "pipe", static_cast<uint32_t>(d.pipe));
    return r;
  }
  if (!move_route_ok(d.pipe, d.src.space, d.dst.space)) {
    const bool src_bad = d.src.space != move_source_space(d.pipe);
    detail::fail(r, Status::desc_dma_route_unsupported, src_bad ? "src.space" : "dst.space",
                 static_cast<uint32_t>(src_bad ? d.src.space : d.dst.space));
    return r;
  }
  if (!move_types_ok(d.pipe, d.src.dtype, d.dst.dtype)) {
    detail::fail(r, Status::desc_conversion_unsupported, "dst.dtype", static_cast<uint32_t>(d.dst.dtype),
                 static_cast<uint32_t>(d.src.dtype));
    return r;
  }
  if (d.rows == 0 || d.rows > kMaxMoveDim) {
    detail::fail(r, Status::desc_shape_out_of_range, "rows", d.rows, kMaxMoveDim);
    return r;
  }
  if (d.cols == 0 || d.cols > kMaxMoveDim) {
    detail::fail(r, Status::desc_shape_out_of_range, "cols", d.cols, kMaxMoveDim);
    return r;
  }
  if (detail::check_move_operand(r, d.src, true, d.rows, d.cols, on) ||
      detail::check_move_operand(r, d.dst, false, d.rows, d.cols, on) ||
      detail::check_move_memory(r, d.src, true, d.rows, d.cols, on) ||
      detail::check_move_memory(r, d.dst, false, d.rows, d.cols, on)) {
    return r;
  }
  r.repeats = 1;
  return r;
}

}  // namespace tilefw::desc
