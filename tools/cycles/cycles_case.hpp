// Case files of `tilefw cycles` (docs/cli.md, "tilefw cycles"): a JSON list of single tile
// instructions with their operands as placed, optionally with the cycles profiled on silicon.
// Parsing is strict for the keys the command uses; a bad file throws CaseError naming the case
// id and the key. Host-only.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefw/base/dtype.hpp"

namespace tilefw::tools::cycles {

struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Operand {
  std::string role;   // dst, src, src0, src1, tmp
  std::string space;  // UB or GM
  uint32_t rows = 0, cols = 0;
  uint32_t valid_rows = 0, valid_cols = 0;
  std::string layout;  // row_major, col_major, ND ...
  DType dtype = DType::f32;
  uint64_t ub_offset = 0;
};

struct CycleCase {
  std::string id;
  std::string instruction;
  DType dtype = DType::f32;
  std::vector<Operand> operands;
  std::optional<double> profiled;  // profiled_cycles
  bool is_binary = false;          // params.is_binary (TCOLSUM)
  std::optional<DType> src_dtype;  // params.src_dtype (TCVT)
  const Operand* find(const std::string& role) const noexcept;
};

/// Parses the file's text; throws CaseError ("case <id>: <key>: <what>").
std::vector<CycleCase> parse_cases(const std::string& text);

}  // namespace tilefw::tools::cycles
