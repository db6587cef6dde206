// `tilefw run` on a whole model: its steps in order on one chip (run_steps.cpp).
#pragma once

#include "formats/sg2260_manifest.hpp"
#include "run/run_model.hpp"

namespace tilefw::tools {

/// Runs the manifest's model steps. Exit 0, 1 (a step refused or faulted, naming it; hazards
/// under --strict) or 2 (a file or the request cannot be read).
int run_steps(const RunCli& cli, const Manifest& m);

}  // namespace tilefw::tools
