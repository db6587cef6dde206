// tilefw: the host command-line program. Subcommands: status, dump, validate, conform, run, gen,
// cycles (one file each, registered in cli_app.cpp). Exit codes follow docs/cli.md for each
// subcommand; 2 on a usage error.

#include "commands.hpp"
#include "common/signal_cleanup.hpp"

int main(int argc, char** argv) {
  tilefw::tools::signal_cleanup::install();  // an interrupted run leaves no temporary behind
  return tilefw::tools::run_cli(argc, argv);
}
