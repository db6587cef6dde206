// Matmul descriptor of the a2a3 cube unit (pipe M): C (L0C) = init + A (L0A) x B (L0B). Data
// only: the rules are in tilefw/desc/validate_matmul.hpp.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::desc {

/// TMATMUL (init +0), TMATMUL_ACC (init = C), TMATMUL_BIAS (init = the BiasTable row).
enum class MatmulKind : uint8_t { matmul, accumulate, bias };

/// One cube issue. A is a TileLeft (16 x 32/sizeof(A) boxes, row-major inside; the boxes in
/// row order on a2a3 "Zz", in column order on A5 "Nz": the cube reads its profile's) of
/// a_rows x a_cols, B a
/// TileRight (Zn, 32/sizeof(B) x 16 boxes) of b_rows x b_cols, C a TileAcc (Nz, 16 x 16 boxes)
/// of c_rows x c_cols; m, k, n are the valid sizes computed. Offsets are inside each buffer.
struct MatmulDesc {
  MatmulKind kind = MatmulKind::matmul;
  DType a_type = DType::f16;
  DType b_type = DType::f16;
  DType c_type = DType::f32;
  uint32_t a_offset = 0;
  uint32_t b_offset = 0;
  uint32_t c_offset = 0;
  uint32_t bias_offset = 0;
  uint32_t a_rows = 0, a_cols = 0;
  uint32_t b_rows = 0, b_cols = 0;
  uint32_t c_rows = 0, c_cols = 0;
  uint32_t m = 0, k = 0, n = 0;
};

}  // namespace tilefw::desc
