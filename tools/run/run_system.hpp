// `tilefw run` on a system of chips (run_system.cpp).
#pragma once

#include "formats/c2c_system.hpp"
#include "formats/sg2260_manifest.hpp"
#include "run/run_model.hpp"

namespace tilefw::tools {

/// Runs the manifest `m` on the system `spec` (the manifest's, or --system's). Exit code 0,
/// 1 (a stream refused, a fault, a deadlock, naming the chip) or 2 (a file or the system
/// cannot be read or built).
int run_system(const RunCli& cli, const Manifest& m, const SystemSpec& spec);

}  // namespace tilefw::tools
