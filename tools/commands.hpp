// Registration of the tilefw subcommands: each lives in tools/cmd_<name>.cpp and adds itself
// to the CLI11 app here. A subcommand's handler sets the process exit code through `exit_code`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilefw/cmd/classes.hpp"

// Declared, not included: CLI11 is header-only and costs 5-7 s of compile time in every
// translation unit that includes it; only the subcommands' files need its definitions.
namespace CLI {
class App;
}  // namespace CLI

namespace tilefw::tools {

/// Every subcommand registers with this signature; `exit_code` receives its result.
using Registrar = void (*)(CLI::App& app, int& exit_code);

void register_status(CLI::App& app, int& exit_code);
void register_dump(CLI::App& app, int& exit_code);
void register_validate(CLI::App& app, int& exit_code);
void register_conform(CLI::App& app, int& exit_code);
void register_run(CLI::App& app, int& exit_code);
void register_gen(CLI::App& app, int& exit_code);
// a2a3 timing: `tilefw cycles`.
void register_cycles(CLI::App& app, int& exit_code);
// PTO text kernels: `tilefw pto run|print`.
void register_pto(CLI::App& app, int& exit_code);

/// Shared by dump and validate: whole-file read, and the engine from
/// `forced` ("tiu"/"gdma"/"sdma") or else the file name (*.BD*, *.GDMA*, *.SDMA*).
/// (tools/common/tool_io.cpp.) Regular files only; `read_input` says why it failed.
bool read_file(const std::string& path, std::vector<uint8_t>& out);
bool read_input(const std::string& path, std::vector<uint8_t>& out, std::string& why);
bool engine_for(const std::string& path, const std::string& forced, cmd::Engine& e);
/// True for a path ending in ".bmodel": dump/validate then read it as a model (as they do any
/// file that starts with the bmodel magic when --engine is not given).
bool is_bmodel_path(const std::string& path);

/// The whole command line (tools/cli_app.cpp): parses argv (argv[0] the program name), runs the
/// subcommand and returns the exit code. Subcommands reset their options when parsed, so the
/// Python module may call it again and again in one process.
int run_cli(int argc, const char* const* argv);

}  // namespace tilefw::tools
