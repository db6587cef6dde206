// tilefw: the host command-line program. Subcommands: status, dump, validate, conform, run, gen
// (one file each, registered below). Exit codes follow docs/cli.md for each
// subcommand; 2 on a usage error.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"
#include "common/signal_cleanup.hpp"

namespace {
// Every unsigned option refuses a leading minus: the conversion would otherwise wrap "-1" to
// 2^64 - 1 (which switched limits such as --max-work off). Applied once here, so an option
// added later is covered too.
const CLI::Validator kNotNegative(
    [](const std::string& v) {
      const size_t first = v.find_first_not_of(" \t");
      return first != std::string::npos && v[first] == '-' ? std::string("a negative number is not allowed here")
                                                           : std::string();
    },
    "NOT NEGATIVE");

void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_name().rfind("UINT", 0) == 0) o->check(kNotNegative);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_negative_unsigned(*sub);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilefw: validate, sequence and run NPU work on the host simulator"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilefw 0.1.0");
  int exit_code = 0;
  for (tilefw::tools::Registrar r : {&tilefw::tools::register_status, &tilefw::tools::register_dump,
                                      &tilefw::tools::register_conform,
                                      &tilefw::tools::register_validate, &tilefw::tools::register_run,
                                      &tilefw::tools::register_gen,
                                      &tilefw::tools::register_cycles}) r(app, exit_code);
  refuse_negative_unsigned(app);
  tilefw::tools::signal_cleanup::install();  // an interrupted run leaves no temporary behind
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
