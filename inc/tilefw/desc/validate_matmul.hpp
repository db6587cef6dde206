// The rules of a cube issue (the type triples, the TMATMUL shape rules, operand boxes,
// alignment and bounds), with a pure constexpr validate() in rule order.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/desc/data/matmul_desc.hpp"
#include "tilefw/desc/data/tile_move_desc.hpp"
#include "tilefw/desc/validate_tile_move.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace tilefw::desc {

/// The a2a3 type triples (docs/a2a3-tile-model.md section 6, matrix engine): (C, A, B) = (i32, i8,
/// i8), (f32, f16,
/// f16), (f32, f32, f32), (f32, bf16, bf16).
constexpr bool matmul_types_ok(DType c, DType a, DType b) noexcept {
  if (a != b) return false;
  if (c == DType::i32) return a == DType::i8;
  return c == DType::f32 && (a == DType::f16 || a == DType::f32 || a == DType::bf16);
}

namespace detail {

constexpr bool check_matmul_operand(DescReport& r, const char* name, const char* offset_field, chip::MemSpace space,
                                    uint32_t offset, uint32_t rows, uint32_t cols, uint32_t box_rows,
                                    uint32_t box_cols, uint32_t elem, chip::Chip on) noexcept {
  if (rows == 0 || cols == 0 || rows % box_rows != 0 || cols % box_cols != 0) {
    return fail(r, Status::desc_layout_unsupported, name, rows == 0 || rows % box_rows != 0 ? rows : cols,
                rows == 0 || rows % box_rows != 0 ? box_rows : box_cols);
  }
  const uint32_t align = chip::region_alignment(on, space);
  if (offset % align != 0) {
    r.byte_offset = offset;
    return fail(r, Status::misaligned, offset_field, offset, align);
  }
  const uint64_t size = chip::region_size(on, space);
  const uint64_t bytes = uint64_t{rows} * cols * elem;
  if (offset > size || bytes > size - offset) {
    r.byte_offset = offset > size ? offset : size;
    return fail(r, Status::out_of_bounds, name, offset, static_cast<uint32_t>(size));
  }
  return false;
}

}  // namespace detail

/// Validates a matmul completely, rules in this order: kind, types, m/k/n range, operand
/// shapes against m/k/n, then each operand's box shape, alignment and bounds (A, B, C, bias).
/// `on`: the chip profile whose L0 and bias table sizes bound the operands (the build's by default).
constexpr DescReport validate(const MatmulDesc& d, chip::Chip on = chip::kBuildChip) noexcept {
  DescReport r{};
  if (d.kind != MatmulKind::matmul && d.kind != MatmulKind::accumulate && d.kind != MatmulKind::bias) {
    detail::fail(r, Status::desc_unknown_op, "kind", static_cast<uint32_t>(d.kind));
    return r;
  }
  if (!matmul_types_ok(d.c_type, d.a_type, d.b_type)) {
    detail::fail(r, Status::desc_matmul_types_unsupported, d.a_type != d.b_type ? "b_type" : "c_type",
                 static_cast<uint32_t>(d.a_type != d.b_type ? d.b_type : d.c_type));
    return r;
  }
  constexpr uint32_t kMax = chip::a2a3::kMaxMatmulDim;
  const uint32_t dims[3] = {d.m, d.k, d.n};
  const char* const names[3] = {"m", "k", "n"};
  for (uint32_t i = 0; i < 3; ++i) {
    if (dims[i] == 0 || dims[i] > kMax) {
      detail::fail(r, Status::desc_shape_out_of_range, names[i], dims[i], kMax);
      return r;
    }
  }
  struct Need {
    const char* field;
    uint32_t have;
    uint32_t need;
  };
  const Need needs[6] = {{"a_rows", d.a_rows, d.m}, {"a_cols", d.a_cols, d.k}, {"b_rows", d.b_rows, d.k},
                         {"b_cols", d.b_cols, d.n}, {"c_rows", d.c_rows, d.m}, {"c_cols", d.c_cols, d.n}};
  for (const Need& x : needs) {
    if (x.have < x.need) {
      detail::fail(r, Status::desc_shape_out_of_range, x.field, x.have, x.need);
      return r;
    }
  }
  using chip::MemSpace;
  const uint32_t ea = dtype_size(d.a_type);
  const uint32_t eb = dtype_size(d.b_type);
  const uint32_t ec = dtype_size(d.c_type);
  if (detail::check_matmul_operand(r, "a", "a_offset", MemSpace::L0A, d.a_offset, d.a_rows, d.a_cols, 16, 32 / ea, ea, on) ||
      detail::check_matmul_operand(r, "b", "b_offset", MemSpace::L0B, d.b_offset, d.b_rows, d.b_cols, 32 / eb, 16, eb, on) ||
      detail::check_matmul_operand(r, "c", "c_offset", MemSpace::L0C, d.c_offset, d.c_rows, d.c_cols,
                                   chip::a2a3::kAccBoxRows, chip::a2a3::kAccBoxCols, ec, on)) {
    return r;
  }
  if (d.kind == MatmulKind::bias) {
    const uint32_t align = chip::region_alignment(on, MemSpace::BiasTable);
    if (d.bias_offset % align != 0) {
      r.byte_offset = d.bias_offset;
      detail::fail(r, Status::misaligned, "bias_offset", d.bias_offset, align);
      return r;
    }
    const uint64_t size = chip::region_size(on, MemSpace::BiasTable);
    const uint64_t bytes = uint64_t{d.n} * ec;
    if (d.bias_offset > size || bytes > size - d.bias_offset) {
      r.byte_offset = d.bias_offset > size ? d.bias_offset : size;
      detail::fail(r, Status::out_of_bounds, "bias", d.bias_offset, static_cast<uint32_t>(size));
      return r;
    }
  }
  r.repeats = 1;
  return r;
}

}  // namespace tilefw::desc
