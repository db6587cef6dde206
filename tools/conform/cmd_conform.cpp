// `tilefw conform PATH...` (docs/cli.md section 4): runs a2a3 case files on the simulator.
// Prints `PASS <name>` / `FAIL <name>: <reason>` per case, `FAIL <path>: <reason>` for a file
// that cannot be parsed, then exactly `N passed, M failed` as the last line. Exit 0 when M is
// 0, 1 otherwise, 2 when a path cannot be read, a --trace path is refused or cannot be written,
// or the run cannot complete.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "a2a3/timing_trace.hpp"
#include "commands.hpp"
#include "common/input_files.hpp"
#include "common/output_target.hpp"
#include "conform/conform_case.hpp"

namespace tilefw::tools {

namespace {
struct ConformCli {
  std::vector<std::string> paths;
  bool cycles = false;  // --cycles: each case's simulated cycles under its PASS/FAIL line
  std::string trace;    // --trace FILE: Perfetto trace of the one case file's program
  std::string chip;  // --chip: every case on this profile (else each case's "profile")
};

namespace fs = std::filesystem;

// The *.json files under `dir`, recursively. Directory symlinks are followed once each: a
// directory reached again (a link to a parent, two links to one place) is not walked again,
// so the walk ends and no case runs twice (hostile input: symlink loops). false when the walk fails.
bool walk(const fs::path& dir, std::vector<std::string>& files, std::set<fs::path>& seen) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec), end;
  if (ec) return false;
  seen.insert(fs::canonical(dir, ec));
  for (; it != end; it.increment(ec)) {
    if (ec) return false;
    std::error_code e2;
    if (it->is_directory(e2)) {
      if (!seen.insert(fs::canonical(it->path(), e2)).second) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(e2) && it->path().extension() == ".json") files.push_back(it->path().string());
  }
  return !ec;
}

// --trace: exactly one case file, and a path the trace may take (checked before the case runs).
bool trace_target_ok(const ConformCli& cli, const std::vector<std::string>& files,
                     const std::vector<std::string>& unreadable) {
  std::string why;
  if (files.size() != 1 || !unreadable.empty()) {
    std::fprintf(stderr, "tilefw conform: --trace needs exactly one case file\n");
    return false;
  }
  // The trace never replaces the case file it traces.
  if (!outputs_distinct({{"--trace", cli.trace}}, files, why)) {
    std::fprintf(stderr, "tilefw conform: %s\n", escape_line(why).c_str());
    return false;
  }
  if (!output_target_ok(cli.trace, why)) {
    std::fprintf(stderr, "tilefw conform: %s: %s\n", escape_line(cli.trace).c_str(), escape_line(why).c_str());
    return false;
  }
  return true;
}

int run_conform(const ConformCli& cli) {
  std::vector<std::string> files;
  std::vector<std::string> unreadable;
  std::set<fs::path> seen;
  for (const std::string& p : cli.paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      if (!walk(p, files, seen)) unreadable.push_back(p);
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      unreadable.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  std::string trace_json;
  if (!cli.trace.empty() && !trace_target_ok(cli, files, unreadable)) return 2;
  // One file named twice (on the command line, or by two paths to it) runs once.
  std::set<fs::path> ran;
  size_t passed = 0, failed = 0;
  for (const std::string& u : unreadable) {
    std::printf("FAIL %s: cannot read the path\n", escape_line(u).c_str());
    ++failed;
  }
  for (const std::string& f : files) {
    std::error_code ec;
    const fs::path id = fs::canonical(f, ec);
    if (!ec && !ran.insert(id).second) continue;
    port::host::timing::PipeTimer timer;
    timer.keep_slices(!cli.trace.empty());
    const chip::Chip forced = cli.chip == "a5" ? chip::Chip::a5 : chip::Chip::a2a3;
    const conform::Outcome o = conform::run_case_file(f, &timer, cli.chip.empty() ? nullptr : &forced);
    if (!cli.trace.empty()) trace_json = port::host::timing::chrome_trace_json(timer);
    // Names and reasons are printed escaped: a newline cannot forge a PASS or summary line,
    // a NUL cannot cut one (hostile input: output injection).
    if (o.kind == conform::Outcome::pass) {
      std::printf("PASS %s\n", escape_line(o.name).c_str());
      ++passed;
    } else {
      std::printf("FAIL %s: %s\n", escape_line(o.name).c_str(), escape_line(o.reason).c_str());
      ++failed;
    }
    if (cli.cycles && o.kind != conform::Outcome::file_error) {
      std::printf("  cycles %llu (busy", static_cast<unsigned long long>(o.cycles));
      for (unsigned p = 0; p < port::host::timing::kPipes; ++p) {
        std::printf(" %s %llu", port::host::timing::pipe_name(p), static_cast<unsigned long long>(o.busy[p]));
      }
      std::printf(")\n");
    }
  }
  if (!cli.trace.empty()) {
    // Written under a temporary name, then renamed into place (the output-target rule).
    std::string why;
    const std::string tmp = cli.trace + ".tmp." + std::to_string(::getpid());
    if (!write_new_file(tmp, trace_json.data(), trace_json.size(), why) || !output_target_ok(cli.trace, why) ||
        std::rename(tmp.c_str(), cli.trace.c_str()) != 0) {
      std::remove(tmp.c_str());
      std::fprintf(stderr, "tilefw conform: %s: %s\n", escape_line(cli.trace).c_str(),
                   escape_line(why.empty() ? "cannot rename the output into place" : why).c_str());
      std::printf("%zu passed, %zu failed\n", passed, failed);
      return 2;
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
  CLI::App* sub = app.add_subcommand("conform", "run a2a3 conformance case files (docs/cli.md section 4)");
  sub->add_option("paths", cli->paths, "case files (.json) or directories searched recursively")->required();
  sub->add_flag("--cycles", cli->cycles, "print each case's simulated cycles and every pipe's busy cycles (docs/a2a3-timing.md)");
  sub->add_option("--chip", cli->chip, "run every case on this profile, a2a3 or a5 (Ascend 950), whatever its \"profile\" key says")
      ->check(CLI::IsMember({"a2a3", "a5"}));
  sub->add_option("--trace", cli->trace, "write a Perfetto trace of the one case file's program (one row per pipe)");
  sub->callback([cli, &exit_code]() {
    // Nothing escapes to main: out of memory or any other failure is a message and exit 2.
    try {
      exit_code = run_conform(*cli);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilefw conform: cannot complete: %s\n", escape_line(e.what()).c_str());
      exit_code = 2;
    }
  });
}

}  // namespace tilefw::tools
