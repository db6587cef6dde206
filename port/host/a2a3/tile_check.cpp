// The tile engines' own decode checks (a2a3/tile_check.hpp): tables from the spec, bounds by
// walking the byte runs an operand's move touches.
#include "a2a3/tile_check.hpp"

#include "tilefw/base/dtype.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"

namespace tilefw::port::host::tile_check {

namespace {
using chip::MemSpace;
using chip::a2a3::Pipe;
using desc::BoxOrder;
using desc::DescReport;
using desc::MoveOperand;

// Register map limits: shapes and extents are 16-bit fields, m/k/n 12-bit.
constexpr uint32_t kMaxDim = 0xFFFF;
constexpr uint32_t kMaxCubeDim = chip::a2a3::kMaxMatmulDim;

DescReport refuse(Status s, const char* field, uint32_t value, uint32_t limit = 0) noexcept {
  DescReport r{};
  r.status = s;
  r.field = field;
  r.value = value;
  r.limit = limit;
  return r;
}

// ---- moves ----------------------------------------------------------------------------------

// The routes of the four move pipes (chip/a2a3_engines.hpp, docs/a2a3-tiles.md section 2: TLOAD GM
// -> UB/L1,
// TMOV L1 -> L0A/L0B/bias, TSTORE UB -> GM, the FIX pipe L0C -> UB/GM).
struct Route {
  Pipe pipe;
  MemSpace from;
  MemSpace to;
};
constexpr Route kRoutes[] = {
    {Pipe::MTE2, MemSpace::GM, MemSpace::UB},  {Pipe::MTE2, MemSpace::GM, MemSpace::L1},
    {Pipe::MTE1, MemSpace::L1, MemSpace::L0A}, {Pipe::MTE1, MemSpace::L1, MemSpace::L0B},
    {Pipe::MTE1, MemSpace::L1, MemSpace::BiasTable}, {Pipe::MTE3, MemSpace::UB, MemSpace::GM},
    {Pipe::FIX, MemSpace::L0C, MemSpace::UB},  {Pipe::FIX, MemSpace::L0C, MemSpace::GM},
};

bool is_move_pipe(Pipe p) noexcept {
  for (const Route& r : kRoutes) {
    if (r.pipe == p) return true;
  }
  return false;
}

// A route's failing side: the source when no route of the pipe starts there.
const char* bad_route_side(Pipe p, MemSpace from, MemSpace to, MemSpace& space) noexcept {
  bool from_known = false;
  for (const Route& r : kRoutes) {
    if (r.pipe != p) continue;
    if (r.from == from && r.to == to) return nullptr;
    from_known = from_known || r.from == from;
  }
  space = from_known ? to : from;
  return from_known ? "dst.space" : "src.space";
}

// Element types a pipe moves: the DMAs copy (same type); FIX converts the accumulator's f32 to
// f32/f16/bf16 and copies i32 (docs/a2a3-tiles.md section 2, TSTORE/TMOV from Acc with conversion).
struct Conversion {
  DType from;
  DType to;
};
constexpr Conversion kFixConversions[] = {
    {DType::f32, DType::f32}, {DType::f32, DType::f16}, {DType::f32, DType::bf16}, {DType::i32, DType::i32}};

bool moves_types(Pipe p, DType from, DType to) noexcept {
  if (p != Pipe::FIX) return from == to;
  for (const Conversion& c : kFixConversions) {
    if (c.from == from && c.to == to) return true;
  }
  return false;
}

// The layout each space holds (docs/a2a3-tile-model.md sections 2.1 and 2.2): L0A TileLeft
// (rows inside 16 x 32 B boxes; the boxes in row order "Zz" on a2a3, in column order "Nz" on
// A5, docs/a5-profile.md section 6), L0B TileRight Zn (boxes in row order, columns inside:
// 32 B x 16), L0C TileAcc Nz (boxes in column order, rows inside, 16 x 16); GM and the bias
// table plain rows (the bias table one row); UB and L1 plain or any 512 / 1024 B box.
constexpr uint64_t kBoxBytes[] = {512, 1024};  // SFractalSize of a UB / L1 box (docs/a2a3-tile-model.md section 2.1)

// The order of L0A's boxes per profile (PTO's TileLeft alias: RowMajor outer on a2a3, ColMajor
// outer on A5; RowMajor inside on both).
struct LeftOrder {
  chip::Chip chip;
  bool boxes_col_major;
};
constexpr LeftOrder kLeftOrders[] = {{chip::Chip::a2a3, false}, {chip::Chip::a5, true}};

bool left_boxes_col_major_on(chip::Chip on) noexcept {
  for (const LeftOrder& o : kLeftOrders) {
    if (o.chip == on) return o.boxes_col_major;
  }
  return false;
}

bool layout_fits_space(const MoveOperand& o, chip::Chip on) noexcept {
  const desc::OperandLayout& l = o.layout;
  const uint32_t elem = dtype_size(o.dtype);
  const uint32_t row_of_32b = 32 / elem;  // elements in 32 bytes
  switch (o.space) {
    case MemSpace::L0A:
      return l.col_major == left_boxes_col_major_on(on) && l.box == BoxOrder::row_major && l.box_rows == 16 &&
             l.box_cols == row_of_32b;
    case MemSpace::L0B:
      return !l.col_major && l.box == BoxOrder::col_major && l.box_rows == row_of_32b && l.box_cols == 16;
    case MemSpace::L0C:
      return l.col_major && l.box == BoxOrder::row_major && l.box_rows == chip::a2a3::kAccBoxRows &&
             l.box_cols == chip::a2a3::kAccBoxCols;
    case MemSpace::GM: return !l.col_major && l.box == BoxOrder::none;
    case MemSpace::BiasTable: return !l.col_major && l.box == BoxOrder::none && o.rows == 1;
    case MemSpace::UB:
    case MemSpace::L1:
      if (l.box == BoxOrder::none) return l.box_rows == 1 && l.box_cols == 1;
      for (const uint64_t bytes : kBoxBytes) {
        if (l.box_rows != 0 && l.box_cols != 0 && uint64_t{l.box_rows} * l.box_cols * elem == bytes) return true;
      }
      return false;
    default: return false;
  }
}

// One operand's layout and shape rules; ok or the first failure.
DescReport operand_shape(const MoveOperand& o, bool is_src, uint32_t rows, uint32_t cols, chip::Chip on) noexcept {
  const char* const layout_field = is_src ? "src.layout" : "dst.layout";
  if (!layout_fits_space(o, on)) return refuse(Status::desc_layout_unsupported, layout_field, static_cast<uint32_t>(o.space));
  const char* const rows_field = is_src ? "src.rows" : "dst.rows";
  if (o.rows > kMaxDim) return refuse(Status::desc_shape_out_of_range, rows_field, o.rows, kMaxDim);
  if (o.cols > kMaxDim) return refuse(Status::desc_shape_out_of_range, rows_field, o.cols, kMaxDim);
  if (rows > o.rows) return refuse(Status::desc_shape_out_of_range, rows_field, rows, o.rows);
  if (cols > o.cols) return refuse(Status::desc_shape_out_of_range, is_src ? "src.cols" : "dst.cols", cols, o.cols);
  const desc::OperandLayout& l = o.layout;
  if (l.box != BoxOrder::none) {  // the capacity is whole boxes
    if (o.rows % l.box_rows != 0) return refuse(Status::desc_layout_unsupported, layout_field, o.rows, l.box_rows);
    if (o.cols % l.box_cols != 0) return refuse(Status::desc_layout_unsupported, layout_field, o.cols, l.box_cols);
    return DescReport{};
  }
  const uint32_t line = l.col_major ? o.rows : o.cols;  // one row (column) fits between two
  if (o.stride < line) return refuse(Status::desc_layout_unsupported, is_src ? "src.stride" : "dst.stride", o.stride, line);
  return DescReport{};
}

// One past the last byte the move touches, from the operand's offset. Unboxed, the move
// touches one run per row (row-major) or column (col-major) of the moved region, run i at
// i * stride elements; the strides are unsigned, so the last run ends furthest. Boxed, the
// boxes interleave rows and columns: the move touches every box of the capacity.
uint64_t touched_end(const MoveOperand& o, uint32_t rows, uint32_t cols) noexcept {
  const uint64_t elem = dtype_size(o.dtype);
  const desc::OperandLayout& l = o.layout;
  if (l.box != BoxOrder::none) {
    const uint64_t boxes = uint64_t{o.rows / l.box_rows} * (o.cols / l.box_cols);
    return boxes * l.box_rows * l.box_cols * elem;
  }
  const uint32_t runs = l.col_major ? cols : rows;
  const uint64_t run_bytes = uint64_t{l.col_major ? rows : cols} * elem;
  return uint64_t{runs - 1} * o.stride * elem + run_bytes;
}

// Alignment and bounds of one operand in its space.
DescReport operand_memory(const MoveOperand& o, bool is_src, uint32_t rows, uint32_t cols, chip::Chip on) noexcept {
  const uint64_t size = chip::region_size(on, o.space);
  const uint32_t align = chip::region_alignment(on, o.space);
  if (o.offset % align != 0) {
    DescReport r = refuse(Status::misaligned, is_src ? "src.offset" : "dst.offset", static_cast<uint32_t>(o.offset), align);
    r.byte_offset = o.offset;
    return r;
  }
  if (o.offset > size || touched_end(o, rows, cols) > size - o.offset) {
    DescReport r = refuse(Status::out_of_bounds, is_src ? "src" : "dst", static_cast<uint32_t>(o.offset),
                          static_cast<uint32_t>(size));
    r.byte_offset = o.offset > size ? o.offset : size;  // the first byte outside the space
    return r;
  }
  return DescReport{};
}

// ---- cube -----------------------------------------------------------------------------------

// The cube's (C, A, B) element types (docs/a2a3-tile-model.md section 6, matrix engine, a2a3).
struct Triple {
  DType c, a, b;
};
constexpr Triple kCubeTypes[] = {{DType::i32, DType::i8, DType::i8},
                                 {DType::f32, DType::f16, DType::f16},
                                 {DType::f32, DType::f32, DType::f32},
                                 {DType::f32, DType::bf16, DType::bf16}};

// A boxed cube operand: its capacity must be whole boxes, its offset aligned, its boxes inside
// the space.
struct CubeOperand {
  const char* name;
  const char* offset_field;
  MemSpace space;
  uint32_t offset, rows, cols, box_rows, box_cols, elem;
};

DescReport cube_operand(const CubeOperand& o, chip::Chip on) noexcept {
  if (o.rows == 0 || o.rows % o.box_rows != 0) return refuse(Status::desc_layout_unsupported, o.name, o.rows, o.box_rows);
  if (o.cols == 0 || o.cols % o.box_cols != 0) return refuse(Status::desc_layout_unsupported, o.name, o.cols, o.box_cols);
  const uint32_t align = chip::region_alignment(on, o.space);
  if (o.offset % align != 0) {
    DescReport r = refuse(Status::misaligned, o.offset_field, o.offset, align);
    r.byte_offset = o.offset;
    return r;
  }
  const uint64_t size = chip::region_size(on, o.space);
  const uint64_t boxes = uint64_t{o.rows / o.box_rows} * (o.cols / o.box_cols);
  const uint64_t end = o.offset + boxes * o.box_rows * o.box_cols * o.elem;
  if (end > size) {
    DescReport r = refuse(Status::out_of_bounds, o.name, o.offset, static_cast<uint32_t>(size));
    r.byte_offset = o.offset > size ? o.offset : size;
    return r;
  }
  return DescReport{};
}

}  // namespace

DescReport check_move(const desc::MoveDesc& d, chip::Chip on) noexcept {
  if (!is_move_pipe(d.pipe)) return refuse(Status::desc_dma_route_unsupported, "pipe", static_cast<uint32_t>(d.pipe));
  MemSpace bad{};
  if (const char* side = bad_route_side(d.pipe, d.src.space, d.dst.space, bad)) {
    return refuse(Status::desc_dma_route_unsupported, side, static_cast<uint32_t>(bad));
  }
  if (!moves_types(d.pipe, d.src.dtype, d.dst.dtype)) {
    return refuse(Status::desc_conversion_unsupported, "dst.dtype", static_cast<uint32_t>(d.dst.dtype),
                  static_cast<uint32_t>(d.src.dtype));
  }
  if (d.rows == 0 || d.rows > kMaxDim) return refuse(Status::desc_shape_out_of_range, "rows", d.rows, kMaxDim);
  if (d.cols == 0 || d.cols > kMaxDim) return refuse(Status::desc_shape_out_of_range, "cols", d.cols, kMaxDim);
  // Every operand's layout and shape first (src, then dst), then where they are.
  if (DescReport r = operand_shape(d.src, true, d.rows, d.cols, on); !r.ok()) return r;
  if (DescReport r = operand_shape(d.dst, false, d.rows, d.cols, on); !r.ok()) return r;
  if (DescReport r = operand_memory(d.src, true, d.rows, d.cols, on); !r.ok()) return r;
  if (DescReport r = operand_memory(d.dst, false, d.rows, d.cols, on); !r.ok()) return r;
  DescReport ok{};
  ok.repeats = 1;
  return ok;
}

DescReport check_matmul(const desc::MatmulDesc& d, chip::Chip on) noexcept {
  using desc::MatmulKind;
  if (d.kind != MatmulKind::matmul && d.kind != MatmulKind::accumulate && d.kind != MatmulKind::bias) {
    return refuse(Status::desc_unknown_op, "kind", static_cast<uint32_t>(d.kind));
  }
  bool typed = false;
  for (const Triple& t : kCubeTypes) typed = typed || (t.c == d.c_type && t.a == d.a_type && t.b == d.b_type);
  if (!typed) {
    if (d.a_type != d.b_type) return refuse(Status::desc_matmul_types_unsupported, "b_type", static_cast<uint32_t>(d.b_type));
    return refuse(Status::desc_matmul_types_unsupported, "c_type", static_cast<uint32_t>(d.c_type));
  }
  if (d.m == 0 || d.m > kMaxCubeDim) return refuse(Status::desc_shape_out_of_range, "m", d.m, kMaxCubeDim);
  if (d.k == 0 || d.k > kMaxCubeDim) return refuse(Status::desc_shape_out_of_range, "k", d.k, kMaxCubeDim);
  if (d.n == 0 || d.n > kMaxCubeDim) return refuse(Status::desc_shape_out_of_range, "n", d.n, kMaxCubeDim);
  // TMATMUL's shape rules (docs/a2a3-tile-model.md section 7.2): A holds m x k, B k x n, C m x n.
  if (d.a_rows < d.m) return refuse(Status::desc_shape_out_of_range, "a_rows", d.a_rows, d.m);
  if (d.a_cols < d.k) return refuse(Status::desc_shape_out_of_range, "a_cols", d.a_cols, d.k);
  if (d.b_rows < d.k) return refuse(Status::desc_shape_out_of_range, "b_rows", d.b_rows, d.k);
  if (d.b_cols < d.n) return refuse(Status::desc_shape_out_of_range, "b_cols", d.b_cols, d.n);
  if (d.c_rows < d.m) return refuse(Status::desc_shape_out_of_range, "c_rows", d.c_rows, d.m);
  if (d.c_cols < d.n) return refuse(Status::desc_shape_out_of_range, "c_cols", d.c_cols, d.n);
  const uint32_t ea = dtype_size(d.a_type);
  const uint32_t ec = dtype_size(d.c_type);
  const CubeOperand operands[3] = {
      {"a", "a_offset", MemSpace::L0A, d.a_offset, d.a_rows, d.a_cols, 16, 32 / ea, ea},  // Zz / Nz: 16 x 32 B boxes
      {"b", "b_offset", MemSpace::L0B, d.b_offset, d.b_rows, d.b_cols, 32 / ea, 16, ea},  // Zn: 32 B x 16
      {"c", "c_offset", MemSpace::L0C, d.c_offset, d.c_rows, d.c_cols, chip::a2a3::kAccBoxRows,
       chip::a2a3::kAccBoxCols, ec}};  // Nz: 16 x 16
  for (const CubeOperand& o : operands) {
    DescReport r = cube_operand(o, on);
    if (!r.ok()) return r;
  }
  if (d.kind == MatmulKind::bias) {  // one bias row of n C elements
    const uint32_t align = chip::region_alignment(on, MemSpace::BiasTable);
    const uint64_t size = chip::region_size(on, MemSpace::BiasTable);
    if (d.bias_offset % align != 0) {
      DescReport r = refuse(Status::misaligned, "bias_offset", d.bias_offset, align);
      r.byte_offset = d.bias_offset;
      return r;
    }
    if (uint64_t{d.bias_offset} + uint64_t{d.n} * ec > size) {
      DescReport r = refuse(Status::out_of_bounds, "bias", d.bias_offset, static_cast<uint32_t>(size));
      r.byte_offset = d.bias_offset > size ? d.bias_offset : size;
      return r;
    }
  }
  DescReport ok{};
  ok.repeats = 1;
  return ok;
}

}  // namespace tilefw::port::host::tile_check
