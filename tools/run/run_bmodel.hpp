// `tilefw run --bmodel FILE` (tools/run/run_bmodel.cpp): the model's run input, built in memory from
// the parsed file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "run/run_input.hpp"

namespace tilefw::tools {

struct BmodelRunOptions {
  std::string bmodel;
  std::vector<std::string> inputs;  // NAME=FILE
  uint64_t fill_seed = 0;           // seeds the weights of a model that ships none
  bool timing_only = false;
  /// Functional runs: the DDR the regions may take in total (run's --max-ddr-mib), checked
  /// before any region is built (0: no limit).
  uint64_t max_ddr_bytes = 0;
};

/// The run input of `o.bmodel`: its regions, streams (spans into the file's bytes, which `in`
/// holds), tensors and, when `with_ops`, every command's tpu-mlir op. 0, or exit 2 with the
/// message printed.
int bmodel_run_input(const BmodelRunOptions& o, bool with_ops, RunInput& in);

}  // namespace tilefw::tools
