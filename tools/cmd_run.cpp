// `tilefw run --manifest FILE [--out DIR] [--trace FILE]` (spec/conformance.md): loads a model
// description (vectors/sg2260-mm0 manifest format) into simulated DDR, runs every core's
// TIU/GDMA/SDMA streams through the rt layer -> port -> host simulator, writes each output to
// DIR/<name>.dat and prints per-core and total simulated cycles.
// Exit 0 on success; 1 when a stream is invalid, faults or deadlocks (naming core, engine and
// command id); 2 when the manifest or a file it names cannot be read or parsed.
// spec/generator.md additions: --timing-only (timing model only: no data in, no outputs out),
// --strict (exit 1 and no outputs when the hazard checker reports anything; hazards always go
// to stderr), --report FILE (cycles, busy cycles, throughput, MFU and bounds as JSON);
// --timing-model v1|v2 (default v2; the report's timing_model names it).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "run_bmodel.hpp"
#include "sg2260_manifest.hpp"
#include "machine.hpp"
#include "port.hpp"
#include "sg2260_sim.hpp"
#include "run_ops.hpp"
#include "sg2260_trace.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;

struct RunCli {
  std::string manifest;
  std::string out = ".";
  std::string trace;
  std::string svg;
  std::string order = "core-major";
  uint64_t seed = 1;
  bool summary = false;
  // Simulated cycles the runtime waits for the streams (the host has no device deadline;
  // a full-size prefill layer runs for seconds of device time).
  uint64_t timeout_cycles = 100'000'000'000ull;
  std::string report;
  bool strict = false;
  bool timing_only = false;
  std::string timing_model = "v2";
  BmodelRunOptions bmodel;  // --bmodel, --input, --fill-seed (tools/run_bmodel.cpp)
};

struct Region {
  uint32_t tag = 0;
  uint64_t device_addr = 0;
  uint64_t bytes = 0;
  std::string init_file;
};
struct Tensor {
  std::string name;
  uint64_t device_addr = 0;
  uint64_t bytes = 0;
  std::string file;
  uint64_t file_offset = 0;
};
struct CoreFiles {
  uint32_t core = 0;
  std::string file[3];  // tiu, gdma, sdma ("" = none)
  std::vector<uint8_t> bytes[3];
};
struct Model {
  std::vector<Region> regions;
  std::vector<Tensor> inputs, outputs;
  std::vector<CoreFiles> cores;
  nlohmann::json report;  // the manifest's "report" object (flops, bytes_ddr, dtype, phase, ...)
};

uint64_t number(const nlohmann::json& j) { return manifest_number(j); }

// Parses the keys run reads (spec/conformance.md); anything else is informative.
bool load_model(const std::string& path, bool timing_only, Model& m, std::string& error) {
  std::ifstream f(path);
  if (!f) {
    error = "cannot read " + path;
    return false;
  }
  const fs::path dir = fs::path(path).parent_path();
  auto rel = [&](const std::string& p) { return (dir / p).string(); };
  try {
    const nlohmann::json j = nlohmann::json::parse(f);
    if (j.contains("memory") && j.at("memory").contains("ddr_regions")) {
      for (const auto& r : j.at("memory").at("ddr_regions")) {
        Region g;
        g.tag = static_cast<uint32_t>(number(r.at("tag")));
        g.device_addr = number(r.at("device_addr"));
        g.bytes = number(r.at("bytes"));
        if (r.contains("init_file")) g.init_file = rel(r.at("init_file").get<std::string>());
        m.regions.push_back(g);
      }
    }
    for (const char* key : {"inputs", "outputs"}) {
      if (!j.contains(key)) continue;
      for (const auto& t : j.at(key)) {
        Tensor x;
        x.name = t.at("name").get<std::string>();
        x.device_addr = number(t.at("device_addr"));
        x.bytes = number(t.at("bytes"));
        if (std::string(key) == "inputs") {
          // a timing-only run loads no data: its inputs need no file
          if (!timing_only || t.contains("file")) x.file = rel(t.at("file").get<std::string>());
          if (t.contains("file_offset")) x.file_offset = number(t.at("file_offset"));
          m.inputs.push_back(x);
        } else {
          m.outputs.push_back(x);
        }
      }
    }
    for (const auto& c : j.at("cores")) {
      CoreFiles cf;
      cf.core = static_cast<uint32_t>(number(c.at("core")));
      const char* engines[] = {"tiu", "gdma", "sdma"};
      for (int e = 0; e < 3; ++e) {
        if (c.contains(engines[e])) cf.file[e] = rel(c.at(engines[e]).at("file").get<std::string>());
        else if (e < 2) throw std::invalid_argument(std::string("core without a ") + engines[e] + " stream");
      }
      if (cf.core >= sg::kCores) throw std::invalid_argument("core number out of range");
      m.cores.push_back(std::move(cf));
    }
    if (j.contains("report")) m.report = j.at("report");
  } catch (const std::exception& e) {
    error = path + ": " + e.what();
    return false;
  }
  for (CoreFiles& cf : m.cores) {
    for (int e = 0; e < 3; ++e) {
      if (!cf.file[e].empty() && !read_file(cf.file[e], cf.bytes[e])) {
        error = "cannot read " + cf.file[e];
        return false;
      }
    }
  }
  return true;
}

bool copy_in(uint64_t device, const std::vector<uint8_t>& bytes, std::string& error) {
  if (bytes.empty()) return true;
  if (port::copy_to_device(device, bytes.data(), bytes.size()) != Status::ok) {
    error = "does not fit its DDR region";
    return false;
  }
  return true;
}

// The manifest's DDR regions (init files, unless timing-only), then the inputs. 0 or exit 2.
int load_ddr(const RunCli& cli, const Model& model, port::host::Machine& machine, std::vector<cmd::DdrRegion>& ddr,
             bool (&used_tag)[32]) {
  std::string error;
  for (const Region& r : model.regions) {
    if (r.tag > sg::kMaxDdrTag || sg::dma_tag(r.device_addr) != r.tag) {
      std::fprintf(stderr, "tilefw run: %s: DDR region tag %u does not match its device_addr\n",
                   cli.manifest.c_str(), r.tag);
      return 2;
    }
    used_tag[r.tag] = true;
    if (machine.add_region(sg::ddr_region(r.tag, sg::dma_offset(r.device_addr), r.bytes)) != Status::ok) {
      std::fprintf(stderr, "tilefw run: %s: DDR region of tag %u overlaps another or is empty\n",
                   cli.manifest.c_str(), r.tag);
      return 2;
    }
    ddr.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
    if (!r.init_file.empty() && !cli.timing_only) {
      std::vector<uint8_t> b;
      if (!read_file(r.init_file, b)) {
        std::fprintf(stderr, "tilefw run: cannot read %s\n", r.init_file.c_str());
        return 2;
      }
      b.resize(std::min<size_t>(b.size(), r.bytes));
      if (!copy_in(sg::kDdrWindowBase + r.device_addr, b, error)) {
        std::fprintf(stderr, "tilefw run: %s: %s\n", r.init_file.c_str(), error.c_str());
        return 2;
      }
    }
  }
  for (const Tensor& t : model.inputs) {
    if (cli.timing_only) break;
    std::vector<uint8_t> b;
    if (!read_file(t.file, b) || t.file_offset + t.bytes > b.size()) {
      std::fprintf(stderr, "tilefw run: cannot read %" PRIu64 " bytes of input %s from %s\n", t.bytes,
                   t.name.c_str(), t.file.c_str());
      return 2;
    }
    std::vector<uint8_t> part(b.begin() + static_cast<long>(t.file_offset),
                              b.begin() + static_cast<long>(t.file_offset + t.bytes));
    if (!copy_in(sg::kDdrWindowBase + t.device_addr, part, error)) {
      std::fprintf(stderr, "tilefw run: input %s: %s\n", t.name.c_str(), error.c_str());
      return 2;
    }
  }
  return 0;
}

// The streams go to a DDR region of their own (a tag the model does not use), where the
// engines read them through QUEUE_BASE. 0 or exit 2.
int load_streams(const Model& model, port::host::Machine& machine, const bool (&used_tag)[32],
                 std::vector<rt::CoreSubmission>& subs) {
  std::string error;
  uint32_t cmd_tag = sg::kMaxDdrTag;
  while (cmd_tag > 0 && used_tag[cmd_tag]) --cmd_tag;
  uint64_t total = 0;
  for (const CoreFiles& cf : model.cores) {
    for (int e = 0; e < 3; ++e) total += (cf.bytes[e].size() + 255) / 256 * 256;
  }
  if (total == 0) return 0;
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(cmd_tag, 0);
  if (machine.add_region(sg::ddr_region(cmd_tag, 0, total)) != Status::ok) {
    std::fprintf(stderr, "tilefw run: no room for the command streams\n");
    return 2;
  }
  uint64_t off = 0;
  for (const CoreFiles& cf : model.cores) {
    rt::CoreSubmission s;
    s.core = cf.core;
    rt::EngineStream* es[3] = {&s.tiu, &s.gdma, &s.sdma};
    for (int e = 0; e < 3; ++e) {
      if (cf.bytes[e].empty()) continue;
      (void)copy_in(base + off, cf.bytes[e], error);
      es[e]->device_addr = base + off;
      es[e]->bytes = ConstByteSpan(machine.translate(base + off, cf.bytes[e].size()).value(), cf.bytes[e].size());
      off += (cf.bytes[e].size() + 255) / 256 * 256;
    }
    subs.push_back(s);
  }
  return 0;
}

void print_failure(Status s, const rt::Runtime& runtime, const sim::Simulator& simulator) {
  const rt::Report& r = runtime.report();
  std::printf("error: core %u %s command %u: %s (%s)", r.core, cmd::engine_name(r.engine), r.command_id,
              status_name(s), r.message);
  if (r.device_code != Status::ok) std::printf(", fault code %s", status_name(r.device_code));
  std::printf("\n");
  if (s == Status::rt_deadlock) {
    std::printf("engines at the deadlock:\n%s", simulator.blocked_report().c_str());
  }
  const std::string& detail = simulator.fault_message(r.core, static_cast<uint32_t>(r.engine));
  if (!detail.empty()) std::printf("  %s\n", detail.c_str());
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream o(path, std::ios::binary);
  o << text;
  return static_cast<bool>(o);
}

// outputs[] to DIR/<name>.dat. 0 or exit 2.
int write_outputs(const RunCli& cli, const Model& model) {
  std::error_code ec;
  fs::create_directories(cli.out, ec);
  for (const Tensor& t : model.outputs) {
    std::vector<uint8_t> b(t.bytes);
    if (port::copy_from_device(b.data(), sg::kDdrWindowBase + t.device_addr, b.size()) != Status::ok) {
      std::fprintf(stderr, "tilefw run: output %s lies outside the DDR regions\n", t.name.c_str());
      return 2;
    }
    const std::string path = (fs::path(cli.out) / (t.name + ".dat")).string();
    std::ofstream o(path, std::ios::binary);
    o.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!o) {
      std::fprintf(stderr, "tilefw run: cannot write %s\n", path.c_str());
      return 2;
    }
    std::printf("wrote %s (%" PRIu64 " bytes)\n", path.c_str(), t.bytes);
  }
  return 0;
}

// MoE capacity (spec/generator.md decision 6): when the manifest's report has `capacity` and the
// layer outputs `expert_tokens` (tokens routed to each expert), tokens beyond an expert's
// capacity were dropped: reported on stderr and in the run report, never silently. null when
// the manifest has no MoE capacity or the run moved no data.
double report_number(const nlohmann::json& j);

nlohmann::json dropped_tokens(const RunCli& cli, const Model& model) {
  if (cli.timing_only || !model.report.is_object() || !model.report.contains("capacity")) return nullptr;
  for (const Tensor& t : model.outputs) {
    if (t.name != "expert_tokens") continue;
    std::vector<float> counts(t.bytes / 4);
    if (port::copy_from_device(counts.data(), sg::kDdrWindowBase + t.device_addr, counts.size() * 4) != Status::ok) {
      return nullptr;
    }
    const double cap = report_number(model.report.at("capacity"));
    // Chunked prefill: one row of counts per chunk, each against the chunk's capacity.
    const double experts = model.report.contains("experts") ? report_number(model.report.at("experts")) : 0;
    const size_t E = experts >= 1 && counts.size() % static_cast<size_t>(experts) == 0 ? static_cast<size_t>(experts)
                                                                                       : counts.size();
    std::vector<uint64_t> dropped(E, 0);
    uint64_t total = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      const float c = counts[i];
      const uint64_t d = c > cap ? static_cast<uint64_t>(c - cap) : 0;
      dropped[i % E] += d;
      total += d;
    }
    if (total > 0) {
      std::string list;
      for (size_t e = 0; e < dropped.size(); ++e) list += (e ? ", " : "") + std::to_string(dropped[e]);
      std::fprintf(stderr, "tilefw run: MoE capacity %.0f tokens per expert: %" PRIu64
                           " token slots dropped (per expert: %s)\n", cap, total, list.c_str());
    }
    return nlohmann::json{{"capacity", cap}, {"per_expert", dropped}, {"total", total}};
  }
  return nullptr;
}

// --trace and --svg, with the commands named by their layer op when gen wrote ops.json.
// 0 or exit 2.
int write_views(const RunCli& cli, const sim::Simulator& simulator, const std::vector<std::string>& labels) {
  const std::vector<std::string>* named = labels.empty() ? nullptr : &labels;
  if (!cli.trace.empty()) {
    if (!write_text(cli.trace, sim::chrome_trace_json(simulator.trace(), named))) {
      std::fprintf(stderr, "tilefw run: cannot write %s\n", cli.trace.c_str());
      return 2;
    }
    std::printf("trace: %s (%zu commands; open in https://ui.perfetto.dev or chrome://tracing)\n",
                cli.trace.c_str(), simulator.trace().size());
  }
  if (!cli.svg.empty()) {
    if (!write_text(cli.svg, sim::svg_gantt(simulator.trace(), named))) {
      std::fprintf(stderr, "tilefw run: cannot write %s\n", cli.svg.c_str());
      return 2;
    }
    std::printf("gantt: %s\n", cli.svg.c_str());
  }
  return 0;
}

// Classes of the streams that the timing model has no formula for (they cost 1 cycle; the
// same classes in v1 and v2).
std::vector<std::string> uncosted_classes(const Model& model) {
  std::set<std::string> names;
  for (const CoreFiles& cf : model.cores) {
    for (uint32_t e = 0; e < 3; ++e) {
      cmd::Walker w(static_cast<cmd::Engine>(e), ConstByteSpan(cf.bytes[e].data(), cf.bytes[e].size()));
      cmd::Command c;
      while (w.next(c)) {
        uint64_t cycles = 0, bytes = 0, ops = 0;
        if (!sim::command_cost(e, c.data, cycles, bytes, ops)) names.insert(cmd::class_name(c.cls));
      }
    }
  }
  return {names.begin(), names.end()};
}

double report_number(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : static_cast<double>(manifest_number(j));
}

// The manifest's report figures: tflops, mfu, bound_seconds, tokens_per_second.
void add_model_figures(const Model& model, double seconds, nlohmann::json& out) {
  const nlohmann::json& r = model.report;
  if (!r.is_object()) return;
  const std::string dtype = r.contains("dtype") ? r.at("dtype").get<std::string>() : "bf16";
  const double peak = sg::peak_flops(dtype.c_str());
  double bound = 0;
  if (r.contains("flops")) {
    const double flops = report_number(r.at("flops"));
    out["tflops"] = seconds > 0 ? flops / seconds / 1e12 : 0.0;
    out["peak_tflops"] = peak / 1e12;
    if (peak > 0) {
      out["mfu"] = seconds > 0 ? flops / seconds / peak : 0.0;
      bound = std::max(bound, flops / peak);
    }
  }
  if (r.contains("bytes_ddr")) {
    bound = std::max(bound, report_number(r.at("bytes_ddr")) / static_cast<double>(sg::kDdrBytesPerSecond));
  }
  if (r.contains("flops") || r.contains("bytes_ddr")) out["bound_seconds"] = bound;
  if (r.contains("phase") && r.at("phase") == "decode" && seconds > 0) {
    const double batch = r.contains("batch") ? report_number(r.at("batch")) : 1.0;
    const double seq = r.contains("seq") ? report_number(r.at("seq")) : 1.0;
    out["tokens_per_second"] = batch * seq / seconds;
  }
}

nlohmann::json make_report(const RunCli& cli, const Model& model, const sim::Simulator& simulator, uint64_t makespan,
                           double wall) {
  static const char* const kEngines[] = {"tiu", "gdma", "sdma"};
  nlohmann::json j;
  j["timing_model"] = cli.timing_model;
  j["clock_hz"] = sg::kClockHz;
  j["cycles_total"] = makespan;
  uint32_t cores = 0;
  for (const CoreFiles& cf : model.cores) cores = std::max(cores, cf.core + 1);
  std::vector<uint64_t> per_core(cores, 0);
  nlohmann::json busy = nlohmann::json::object();
  for (const CoreFiles& cf : model.cores) {
    per_core[cf.core] = simulator.core_cycles(cf.core);
    for (uint32_t e = 0; e < 3; ++e) {
      busy[std::to_string(cf.core) + "." + kEngines[e]] = simulator.stats(cf.core, e).busy_cycles;
    }
  }
  j["cycles_per_core"] = per_core;
  j["busy_per_engine"] = busy;
  j["commands"] = simulator.commands_executed();
  j["hazard_check"] = !cli.timing_only;
  j["hazards"] = simulator.hazard_count();
  j["wall_seconds"] = wall;
  j["sim_commands_per_second"] = wall > 0 ? static_cast<double>(simulator.commands_executed()) / wall : 0.0;
  const double seconds = static_cast<double>(makespan) / static_cast<double>(sg::kClockHz);
  j["seconds"] = seconds;
  j["uncosted"] = uncosted_classes(model);
  add_model_figures(model, seconds, j);
  return j;
}

// Hazards to stderr (the first messages and the count). true when --strict must fail.
bool report_hazards(const RunCli& cli, const sim::Simulator& simulator) {
  const uint64_t n = simulator.hazard_count();
  if (n == 0) return false;
  for (const std::string& m : simulator.hazard_messages()) std::fprintf(stderr, "%s\n", m.c_str());
  std::fprintf(stderr, "%" PRIu64 " hazard%s (first %zu shown)\n", n, n == 1 ? "" : "s",
               simulator.hazard_messages().size());
  if (cli.strict) std::printf("error: %" PRIu64 " hazards with --strict: no outputs written\n", n);
  return cli.strict;
}

int run(const RunCli& cli) {
  Model model;
  std::string error;
  if (!load_model(cli.manifest, cli.timing_only, model, error)) {
    std::fprintf(stderr, "tilefw run: %s\n", error.c_str());
    return 2;
  }
  OpLabels op_labels;  // ops.json next to a generated layer's manifest
  if (!load_op_labels(cli.manifest, op_labels, error)) {
    std::fprintf(stderr, "tilefw run: %s\n", error.c_str());
    return 2;
  }
  port::host::Machine machine(port::host::kProfileSg2260);
  port::host::ScopedMachine scope(machine);
  sim::SimOptions so;
  so.trace = !cli.trace.empty() || !cli.svg.empty() || cli.summary;
  so.functional = !cli.timing_only;
  so.tie.kind = cli.order == "reverse" ? sim::TiePolicy::reverse
                : cli.order == "random" ? sim::TiePolicy::random
                                        : sim::TiePolicy::core_major;
  so.tie.seed = cli.seed;
  so.timing = cli.timing_model == "v1" ? sim::TimingModel::v1 : sim::TimingModel::v2;
  sim::Simulator simulator(machine, so);

  std::vector<cmd::DdrRegion> ddr;
  bool used_tag[32] = {};
  std::vector<rt::CoreSubmission> subs;
  int rc = load_ddr(cli, model, machine, ddr, used_tag);
  if (rc == 0) rc = load_streams(model, machine, used_tag, subs);
  if (rc != 0) return rc;

  rt::Config config;
  config.validate.use_memory_map = true;
  config.validate.ddr_regions = Span<const cmd::DdrRegion>(ddr.data(), ddr.size());
  config.reset_on_error = false;  // keep the engines as they stopped for the report below
  config.timeout_ticks = cli.timeout_cycles;
  rt::Runtime runtime(config);
  const auto t0 = std::chrono::steady_clock::now();
  Status s = runtime.submit(Span<const rt::CoreSubmission>(subs.data(), subs.size()));
  if (s == Status::ok) s = runtime.wait();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s != Status::ok) {
    print_failure(s, runtime, simulator);
    runtime.reset();
    return 1;
  }

  uint64_t makespan = 0;
  for (const CoreFiles& cf : model.cores) {
    const uint64_t c = simulator.core_cycles(cf.core);
    makespan = std::max(makespan, c);
    std::printf("core %u: %" PRIu64 " cycles\n", cf.core, c);
  }
  std::printf("total: %" PRIu64 " cycles (%" PRIu64 " commands, timing model %s, 1 GHz)\n", makespan,
              simulator.commands_executed(), cli.timing_model.c_str());
  const std::vector<std::string> labels = record_labels(op_labels, simulator.trace());
  if (cli.summary) {
    std::fputs(sim::utilisation_summary(simulator, makespan).c_str(), stdout);
    if (!labels.empty()) std::fputs(op_time_table(labels, simulator.trace()).c_str(), stdout);
  }
  const bool strict_fail = report_hazards(cli, simulator);
  const nlohmann::json drops = dropped_tokens(cli, model);
  if (!cli.report.empty()) {
    nlohmann::json rep = make_report(cli, model, simulator, makespan, wall);
    if (!drops.is_null()) rep["dropped_tokens"] = drops;
    if (!write_text(cli.report, rep.dump(1) + "\n")) {
      std::fprintf(stderr, "tilefw run: cannot write %s\n", cli.report.c_str());
      return 2;
    }
    std::printf("report: %s\n", cli.report.c_str());
  }
  if (strict_fail) return 1;
  if (!cli.timing_only && (rc = write_outputs(cli, model)) != 0) return rc;
  return write_views(cli, simulator, labels);
}
}  // namespace

void register_run(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("run", "Run a model's SG2260 command streams on the host simulator");
  static RunCli opts;  // CLI11 binds by reference: must outlive parse()
  sub->add_option("--manifest", opts.manifest, "manifest.json (vectors/sg2260-mm0 format)");
  sub->add_option("--bmodel", opts.bmodel.bmodel, "a .bmodel compiled by tpu-mlir (instead of --manifest)");
  sub->add_option("--input", opts.bmodel.inputs, "NAME=FILE: bytes of a bmodel input (others are zero)");
  sub->add_option("--fill-seed", opts.bmodel.fill_seed, "seed of the weights of a bmodel that ships none (default 0)");
  sub->add_option("--out", opts.out, "directory for <outputs[].name>.dat (default: .)");
  sub->add_option("--trace", opts.trace, "write a Chrome/Perfetto trace (JSON)");
  sub->add_option("--svg", opts.svg, "write an SVG Gantt chart of the run");
  sub->add_flag("--summary", opts.summary, "print busy cycles and utilisation per engine (and time per op)");
  sub->add_option("--timeout-cycles", opts.timeout_cycles,
                  "simulated cycles to wait for the streams before rt_timeout (default 1e11: 100 s of device time)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000'000'000ull}));
  sub->add_option("--order", opts.order, "order among engines ready at the same cycle")
      ->check(CLI::IsMember({"core-major", "reverse", "random"}));
  sub->add_option("--seed", opts.seed, "seed of --order random");
  sub->add_option("--timing-model", opts.timing_model,
                  "timing model (spec/sg2260-commands.md decisions 7): v2 (default: MM2 at the chip's peak, "
                  "DMA sharing the DDR and L2 bandwidth) or v1")
      ->check(CLI::IsMember({"v1", "v2"}));
  sub->add_option("--report", opts.report, "write a JSON report (cycles, busy cycles, throughput, MFU, bounds)");
  sub->add_flag("--strict", opts.strict, "exit 1, writing no outputs, when the hazard checker reports anything");
  sub->add_flag("--timing-only", opts.timing_only,
                "run the timing model only: no data loaded, no output files (any manifest)");
  sub->callback([&exit_code] {
    opts.bmodel.timing_only = opts.timing_only;
    exit_code = run_model_source(opts.manifest, opts.bmodel, [](const std::string& manifest) {
      RunCli cli = opts;
      cli.manifest = manifest;
      return run(cli);
    });
  });
}

}  // namespace tilefw::tools
