// `tilefw status [NAME|NUMBER]`: lists every Status value (number, name, layer band, conformance
// class, description) from the one Status table, or explains one, so a number read from a device
// log can be decoded.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "tilefw/base/status.hpp"

namespace tilefw::tools {

namespace {
void print_one(const StatusInfo& info) {
  std::printf("%4u  %-36s %-10s %-18s %s\n", static_cast<unsigned>(info.value), info.name,
              status_band(info.value), status_class_name(info.cls), info.description);
}
}  // namespace

void register_status(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("status", "List the Status values, or explain one by name or number");
  static std::string query_storage;  // CLI11 binds by reference: must outlive parse()
  std::string* query = &query_storage;
  cmd->preparse_callback([](size_t) { query_storage.clear(); });  // a second parse in one process starts afresh
  cmd->add_option("value", *query, "a Status name (e.g. misaligned) or number (e.g. 220)");
  cmd->callback([query, &exit_code] {
    std::size_t count = 0;
    const StatusInfo* table = status_table(count);
    if (query->empty()) {
      for (std::size_t i = 0; i < count; ++i) print_one(table[i]);
      exit_code = 0;
      return;
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (*query == table[i].name || *query == std::to_string(static_cast<unsigned>(table[i].value))) {
        print_one(table[i]);
        exit_code = 0;
        return;
      }
    }
    std::fprintf(stderr, "tilefw status: no Status named %s\n", query->c_str());
    exit_code = 1;
  });
}

}  // namespace tilefw::tools
