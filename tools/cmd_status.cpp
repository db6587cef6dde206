// `tilefw status [NAME|NUMBER]`: lists every Status value (number, name, conformance class,
// description), or explains one, so a number read from a device log can be decoded.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "tilefw/base/status.hpp"

namespace tilefw::tools {

namespace {
void print_one(unsigned v) {
  const auto s = static_cast<Status>(v);
  std::printf("%4u  %-36s %-18s %s\n", v, status_name(s), status_class_name(status_class(s)),
              status_description(s));
}
bool defined(unsigned v) { return std::strcmp(status_name(static_cast<Status>(v)), "unknown_status") != 0; }
}  // namespace

void register_status(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("status", "List the Status values, or explain one by name or number");
  static std::string query_storage;  // CLI11 binds by reference: must outlive parse()
  std::string* query = &query_storage;
  cmd->add_option("value", *query, "a Status name (e.g. misaligned) or number (e.g. 220)");
  cmd->callback([query, &exit_code] {
    if (query->empty()) {
      for (unsigned v = 0; v < 1000; ++v) {
        if (defined(v)) print_one(v);
      }
      exit_code = 0;
      return;
    }
    for (unsigned v = 0; v < 1000; ++v) {
      if (!defined(v)) continue;
      if (*query == status_name(static_cast<Status>(v)) || *query == std::to_string(v)) {
        print_one(v);
        exit_code = 0;
        return;
      }
    }
    std::fprintf(stderr, "tilefw status: no Status named %s\n", query->c_str());
    exit_code = 1;
  });
}

}  // namespace tilefw::tools
