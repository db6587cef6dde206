// The tilefw command line as a call: the app with every subcommand, parsed and run. main()
// (tilefw_main.cpp) calls it, and so does the Python module (python/), so a module call and the
// CLI check options and print messages with the same code.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"

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

namespace tilefw::tools {


int run_cli(int argc, const char* const* argv) {
  CLI::App app{"tilefw: validate, sequence and run NPU work on the host simulator"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilefw 0.1.0");
  int exit_code = 0;
  for (Registrar r : {&register_status, &register_dump, &register_conform, &register_validate, &register_run,
                      &register_gen, &register_cycles, &register_pto}) r(app, exit_code);
  refuse_negative_unsigned(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}

}  // namespace tilefw::tools
