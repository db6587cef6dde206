// Registration of the tilefw subcommands: each lives in tools/cmd_<name>.cpp and adds itself
// to the CLI11 app here. A subcommand's handler sets the process exit code through `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace tilefw::tools {

/// Every subcommand registers with this signature; `exit_code` receives its result.
using Registrar = void (*)(CLI::App& app, int& exit_code);

void register_status(CLI::App& app, int& exit_code);

}  // namespace tilefw::tools
