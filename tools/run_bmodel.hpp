// `tilefw run --bmodel FILE` (tools/run_bmodel.cpp): the model becomes a manifest in a temporary
// directory and runs through the manifest path of cmd_run.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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

/// Exactly one of `manifest` / `o.bmodel` (else exit 2); runs `run_manifest` on the manifest,
/// or on one written for the bmodel (removed afterwards). Returns the exit code.
int run_model_source(const std::string& manifest, const BmodelRunOptions& o,
                     const std::function<int(const std::string&)>& run_manifest);

}  // namespace tilefw::tools
