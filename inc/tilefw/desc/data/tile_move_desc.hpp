// Tile-move descriptor of the a2a3 move pipes (MTE2, MTE1, MTE3, FIX): one 2-D move of a
// rows x cols region between two operands of any layout, and where an operand's elements are.
// Data only: the rules are in tilefw/desc/validate_tile_move.hpp.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/chip/memory.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::desc {

/// Order of the elements inside a box (fractal); `none` = not boxed.
enum class BoxOrder : uint8_t { none, row_major, col_major };

/// Where the elements of an operand are (docs/a2a3-tile-model.md sections 2.1 and 2.2). Unboxed:
/// row-major element
/// (r, c) at r * stride + c, col-major at c * stride + r. Boxed: the operand is cut into
/// box_rows x box_cols boxes, ordered row-major (Zz, Zn) or col-major (Nz) across the capacity,
/// elements row-major (Zz, Nz) or col-major (Zn) inside a box.
struct OperandLayout {
  bool col_major = false;
  BoxOrder box = BoxOrder::none;
  uint32_t box_rows = 1;
  uint32_t box_cols = 1;
};

/// The layouts the cube uses (docs/a2a3-tile-model.md section 2.2, a2a3 column), for an element of
/// `elem` bytes.
constexpr OperandLayout zz_layout(uint32_t elem) noexcept {  // L0A on a2a3: TileLeft
  return OperandLayout{false, BoxOrder::row_major, 16, elem == 0 ? 0 : 32 / elem};
}
/// L0A on A5 (docs/a5-profile.md section 6): the same 16 x 32 B boxes, rows inside, the boxes
/// in column order ("Nz").
constexpr OperandLayout nz_left_layout(uint32_t elem) noexcept {
  return OperandLayout{true, BoxOrder::row_major, 16, elem == 0 ? 0 : 32 / elem};
}
/// The layout of a Left tile (L0A) on profile `on`: Zz on a2a3, Nz on A5.
constexpr OperandLayout left_layout(chip::Chip on, uint32_t elem) noexcept {
  return chip::left_boxes_col_major(on) ? nz_left_layout(elem) : zz_layout(elem);
}
constexpr OperandLayout zn_layout(uint32_t elem) noexcept {  // L0B: TileRight
  return OperandLayout{false, BoxOrder::col_major, elem == 0 ? 0 : 32 / elem, 16};
}
constexpr OperandLayout nz_acc_layout() noexcept {  // L0C: TileAcc (16 x 16, 1024 B for 32-bit)
  return OperandLayout{true, BoxOrder::row_major, chip::a2a3::kAccBoxRows, chip::a2a3::kAccBoxCols};
}

/// One side of a move: a tile (capacity rows x cols) or a GM tensor (rows x cols, rows
/// `stride` elements apart).
struct MoveOperand {
  chip::MemSpace space = chip::MemSpace::UB;
  uint64_t offset = 0;
  DType dtype = DType::f32;
  OperandLayout layout{};
  uint32_t rows = 0;
  uint32_t cols = 0;
  /// Unboxed: elements between consecutive rows (row-major) or columns (col-major).
  uint32_t stride = 0;
};

/// Element index (not bytes) of (r, c) inside an operand; r < rows, c < cols.
constexpr uint64_t element_index(const MoveOperand& o, uint32_t r, uint32_t c) noexcept {
  const OperandLayout& l = o.layout;
  if (l.box == BoxOrder::none) {
    return l.col_major ? uint64_t{c} * o.stride + r : uint64_t{r} * o.stride + c;
  }
  const uint32_t br = r / l.box_rows, ir = r % l.box_rows;
  const uint32_t bc = c / l.box_cols, ic = c % l.box_cols;
  const uint64_t box = l.col_major ? uint64_t{bc} * (o.rows / l.box_rows) + br
                                   : uint64_t{br} * (o.cols / l.box_cols) + bc;
  const uint32_t inner = l.box == BoxOrder::row_major ? ir * l.box_cols + ic : ic * l.box_rows + ir;
  return box * l.box_rows * l.box_cols + inner;
}

/// One move on pipe `pipe`: element (r, c) of src -> (r, c) of dst for r < rows, c < cols.
/// Routes: MTE2 GM -> UB/L1; MTE1 L1 -> L0A/L0B/BiasTable; MTE3 UB -> GM; FIX L0C -> UB/GM.
/// FIX converts f32 -> f32/f16/bf16 and i32 -> i32 (round to nearest even, IEEE overflow);
/// the other pipes copy and need equal element types.
struct MoveDesc {
  chip::a2a3::Pipe pipe = chip::a2a3::Pipe::MTE2;
  MoveOperand src{};
  MoveOperand dst{};
  uint32_t rows = 0;
  uint32_t cols = 0;
};

}  // namespace tilefw::desc
