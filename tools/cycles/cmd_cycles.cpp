// `tilefw cycles --cases FILE.json [--json]` (docs/cli.md, "tilefw cycles"): runs each case's
// single tile instruction, as pto-isa's a2a3 backend issues it, on the simulator's pipe timer
// (start-up included, nothing else) and prints its predicted cycles; with profiled cycles in
// the file also each precision and the median, min and count >= 0.9. Exit 0, or 2 for a file
// that cannot be read or parsed, a case past the issue limits, or an output that is an input
// (the message names the case id and key, or the path).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "a2a3/timing.hpp"
#include "a2a3/timing_trace.hpp"
#include "commands.hpp"
#include "common/input_files.hpp"
#include "common/output_target.hpp"
#include "cycles/cycles_case.hpp"
#include "cycles/pto_stream.hpp"

namespace tilefw::tools {

namespace {

namespace t = port::host::timing;

// Largest --param value, in cycles: a thousand times the largest cost the table has ever
// needed, and small enough that no case can take 2^53 cycles (docs/cli.md section 9).
constexpr double kMaxParamValue = 1e6;
// Issues one case may take alone (a valid case takes at most a few hundred thousand: its tiles
// lie in UB), and the cases of --trace/--svg together (the trace keeps every slice).
constexpr uint64_t kMaxCaseIssues = uint64_t{1} << 20;
constexpr uint64_t kMaxProgramIssues = t::PipeTimer::kMaxSlices;

struct CyclesCli {
  std::string cases;
  bool json = false;
  bool zero = false;                // --zero-params: start from all parameters 0 (the fit)
  std::vector<std::string> params;  // --param NAME=VALUE
  std::string trace, svg;           // the case file run as one program
};

struct Result {
  std::string id;
  std::optional<uint64_t> cycles;
  std::string reason;
  std::optional<double> profiled;
};

double precision(double profiled, double predicted) {
  return std::max(0.0, 1.0 - std::fabs(profiled - predicted) / profiled);
}

bool params_of(const CyclesCli& cli, t::Params& p, std::string& error) {
  if (cli.zero) p.fill(0.0);
  for (const std::string& s : cli.params) {
    const size_t eq = s.find('=');
    const unsigned i = t::param_index(s.substr(0, eq));
    if (eq == std::string::npos || i == t::kParamCount) {
      error = "--param " + s + ": expected NAME=VALUE with a parameter of the timing table";
      return false;
    }
    try {
      size_t used = 0;
      p[i] = std::stod(s.substr(eq + 1), &used);
      if (used != s.size() - eq - 1 || !(p[i] >= 0 && p[i] <= kMaxParamValue)) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      error = "--param " + s + ": the value must be a number from 0 to 1e6 (cycles)";
      return false;
    }
  }
  return true;
}

void print_text(const std::vector<Result>& rs) {
  std::vector<double> precs;
  for (const Result& r : rs) {
    const std::string id = escape_line(r.id);
    if (!r.cycles) {
      std::printf("%s: no prediction (%s)\n", id.c_str(), escape_line(r.reason).c_str());
      if (r.profiled) precs.push_back(0.0);  // a null counts as a miss
      continue;
    }
    if (r.profiled) {
      const double pr = precision(*r.profiled, static_cast<double>(*r.cycles));
      precs.push_back(pr);
      std::printf("%s: %llu cycles (profiled %.0f, precision %.3f)\n", id.c_str(),
                  static_cast<unsigned long long>(*r.cycles), *r.profiled, pr);
    } else {
      std::printf("%s: %llu cycles\n", id.c_str(), static_cast<unsigned long long>(*r.cycles));
    }
  }
  if (precs.empty()) return;
  std::vector<double> s = precs;
  std::sort(s.begin(), s.end());
  const double median = s.size() % 2 == 1 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  const auto good = std::count_if(s.begin(), s.end(), [](double v) { return v >= 0.9; });
  const auto poor = std::count_if(s.begin(), s.end(), [](double v) { return v < 0.5; });
  std::printf("precision: median %.3f, min %.3f, %lld of %zu >= 0.9, %lld below 0.5\n", median, s.front(),
              static_cast<long long>(good), s.size(), static_cast<long long>(poor));
}

// Writes `text` to `path` through a temporary name (never over a link, device or FIFO).
bool write_output(const std::string& path, const std::string& text, std::string& why) {
  if (!output_target_ok(path, why)) return false;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (!write_new_file(tmp, text.data(), text.size(), why)) return false;
  if (!output_target_ok(path, why) || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    if (why.empty()) why = "cannot rename the output into place";
    return false;
  }
  return true;
}

// A case's own run: its cycles, or the reason it has none. false with `error` for a case past
// the issue limit (a case error, exit 2).
bool run_case(const cycles::CycleCase& k, const t::Params& params, Result& r, std::string& error) {
  // Each case alone on a fresh core: it pays its own start-up latency.
  t::PipeTimer timer(params);
  r = Result{k.id, std::nullopt, "", k.profiled};
  if (!cycles::issue_case(k, timer, r.reason)) return true;
  if (timer.issues() > kMaxCaseIssues) {
    error = "case " + k.id + ": operands: the instruction takes " + std::to_string(timer.issues()) +
            " issues, more than the limit " + std::to_string(kMaxCaseIssues);
    return false;
  }
  if (timer.saturated()) {
    r.reason = "the predicted cycles reach 2^53 (the model's exact range)";
    return true;
  }
  r.cycles = timer.total();
  return true;
}

// --trace / --svg: every case of the file in order, as one program on one core (each
// instruction after the previous one, its slices named by the instruction). false with
// `error` naming the case at which the program passes kMaxProgramIssues.
bool program_trace(const CyclesCli& cli, const std::vector<cycles::CycleCase>& cases, const t::Params& params,
                   std::string& trace, std::string& svg, std::string& error) {
  t::PipeTimer timer(params);
  timer.keep_slices(true);
  for (const cycles::CycleCase& k : cases) {
    std::string reason;
    (void)cycles::issue_case(k, timer, reason);  // a case without a stream adds nothing
    if (timer.issues() > kMaxProgramIssues) {
      error = "case " + k.id + ": the cases up to this one take " + std::to_string(timer.issues()) +
              " issues as one program, more than the trace's limit " + std::to_string(kMaxProgramIssues);
      return false;
    }
  }
  if (!cli.trace.empty()) trace = t::chrome_trace_json(timer);
  if (!cli.svg.empty()) svg = t::svg_gantt(timer);
  return true;
}

void print_json(const std::vector<Result>& rs) {
  nlohmann::json out = nlohmann::json::array();
  for (const Result& r : rs) {
    nlohmann::json o{{"id", r.id}};
    if (r.cycles) {
      o["cycles"] = *r.cycles;
    } else {
      o["cycles"] = nullptr;
      o["reason"] = r.reason;
    }
    out.push_back(o);
  }
  std::printf("%s\n", out.dump().c_str());
}

int fail2(const std::string& what) {
  std::fprintf(stderr, "tilefw cycles: %s\n", escape_line(what).c_str());
  return 2;
}

int run_cycles(const CyclesCli& cli) {
  std::vector<uint8_t> bytes;
  std::string error;
  // Outputs never replace the case file or each other (checked before anything runs).
  if (!outputs_distinct({{"--trace", cli.trace}, {"--svg", cli.svg}}, {cli.cases}, error)) return fail2(error);
  if (!read_whole_file(cli.cases, uint64_t{16} << 20, bytes, error)) return fail2(error);
  t::Params params = t::default_params();
  if (!params_of(cli, params, error)) return fail2(error);
  std::vector<cycles::CycleCase> cases;
  try {
    cases = cycles::parse_cases(std::string(bytes.begin(), bytes.end()));
  } catch (const cycles::CaseError& e) {
    return fail2(cli.cases + ": " + e.what());
  }
  for (const std::string& path : {cli.trace, cli.svg}) {
    std::string why;
    if (!path.empty() && !output_target_ok(path, why)) return fail2(path + ": " + why);
  }
  std::string trace, svg;
  const bool traced = !cli.trace.empty() || !cli.svg.empty();
  if (traced && !program_trace(cli, cases, params, trace, svg, error)) return fail2(cli.cases + ": " + error);
  std::vector<Result> rs(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!run_case(cases[i], params, rs[i], error)) return fail2(cli.cases + ": " + error);
  }
  if (cli.json) {
    print_json(rs);
  } else {
    print_text(rs);
  }
  std::fflush(stdout);
  // An output that cannot be written or renamed into place after the results were printed is
  // still exit 2, naming the path (docs/cli.md section 9).
  for (const auto& [path, text] : {std::pair{cli.trace, &trace}, std::pair{cli.svg, &svg}}) {
    std::string why;
    if (!path.empty() && !write_output(path, *text, why)) return fail2(path + ": " + why);
  }
  return 0;
}

}  // namespace

void register_cycles(CLI::App& app, int& exit_code) {
  auto cli = std::make_shared<CyclesCli>();
  CLI::App* sub = app.add_subcommand("cycles", "predict the a2a3 cycles of single tile instructions (docs/cli.md)");
  sub->add_option("--cases", cli->cases, "case file: a JSON list of single-instruction cases")->required();
  sub->add_flag("--json", cli->json, "print [{\"id\": ..., \"cycles\": N}, ...]");
  sub->add_flag("--zero-params", cli->zero, "start from all timing parameters 0 (for fitting)");
  sub->add_option("--param", cli->params, "override a timing parameter: NAME=VALUE (repeatable)");
  sub->add_option("--trace", cli->trace, "write a Perfetto trace of the cases run as one program (one row per pipe)");
  sub->add_option("--svg", cli->svg, "write an SVG Gantt chart of the same program");
  sub->callback([cli, &exit_code]() {
    // Nothing escapes to main: out of memory or any other failure is a message and exit 2.
    try {
      exit_code = run_cycles(*cli);
    } catch (const std::exception& e) {
      exit_code = fail2(std::string("cannot complete: ") + e.what());
    }
  });
}

}  // namespace tilefw::tools
