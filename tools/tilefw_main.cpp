// tilefw: the host command-line program. Subcommands: status, dump, validate, conform, run, gen
// (one file each, registered below). Exit codes follow spec/conformance.md for each
// subcommand; 2 on a usage error.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tilefw: validate, sequence and run NPU work on the host simulator"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilefw 0.1.0");
  int exit_code = 0;
  for (tilefw::tools::Registrar r : {&tilefw::tools::register_status, &tilefw::tools::register_dump,
                                      &tilefw::tools::register_conform,
                                      &tilefw::tools::register_validate, &tilefw::tools::register_run,
                                      &tilefw::tools::register_gen}) r(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
