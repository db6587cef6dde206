// `tilefw conform PATH...` (spec/conformance.md): runs a2a3 case files on the simulator.
// Prints `PASS <name>` / `FAIL <name>: <reason>` per case, `FAIL <path>: <reason>` for a file
// that cannot be parsed, then exactly `N passed, M failed` as the last line. Exit 0 when M is
// 0, 1 otherwise, 2 when a path cannot be read.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "conform_case.hpp"

namespace tilefw::tools {

namespace {
struct ConformCli {
  std::vector<std::string> paths;
};

int run_conform(const ConformCli& cli) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::vector<std::string> unreadable;
  for (const std::string& p : cli.paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      fs::recursive_directory_iterator it(p, fs::directory_options::follow_directory_symlink, ec), end;
      if (ec) {
        unreadable.push_back(p);
        continue;
      }
      for (; it != end; it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path().string());
      }
      if (ec) unreadable.push_back(p);
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      unreadable.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  size_t passed = 0, failed = 0;
  for (const std::string& u : unreadable) {
    std::printf("FAIL %s: cannot read the path\n", u.c_str());
    ++failed;
  }
  for (const std::string& f : files) {
    const conform::Outcome o = conform::run_case_file(f);
    if (o.kind == conform::Outcome::pass) {
      std::printf("PASS %s\n", o.name.c_str());
      ++passed;
    } else {
      std::printf("FAIL %s: %s\n", o.name.c_str(), o.reason.c_str());
      ++failed;
    }
  }
  std::printf("%zu passed, %zu failed\n", passed, failed);
  std::fflush(stdout);
  if (!unreadable.empty()) return 2;
  return failed == 0 ? 0 : 1;
}
}  // namespace

void register_conform(CLI::App& app, int& exit_code) {
  auto cli = std::make_shared<ConformCli>();
  CLI::App* sub = app.add_subcommand("conform", "run a2a3 conformance case files (spec/conformance.md)");
  sub->add_option("paths", cli->paths, "case files (.json) or directories searched recursively")->required();
  sub->callback([cli, &exit_code]() { exit_code = run_conform(*cli); });
}

}  // namespace tilefw::tools
