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
// Issue K: the manifest is read by the one checked reader (sg2260_manifest.cpp); files are read
// bounded (input_files.hpp); outputs, report, trace and SVG appear together or not at all
// (staged_files.hpp); --max-work and --max-ddr-mib bound a functional run's time and memory.
// The run has three stages: load (manifest, files, simulated DDR and streams), submit (the
// same validation as `tilefw validate`, then the runtime) and report (cycles, files).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "input_files.hpp"
#include "machine.hpp"
#include "moe_phases.hpp"
#include "run_moe.hpp"
#include "op_labels.hpp"
#include "output_target.hpp"
#include "tilefw/port/port.hpp"
#include "run_bmodel.hpp"
#include "run_model.hpp"
#include "run_ops.hpp"
#include "sg2260/trace.hpp"
#include "staged_files.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;
const char* const* const kEngines = kManifestEngineNames;

// A .bmodel runs through a manifest written to a temporary folder that is gone when the user
// reads the message: messages name the .bmodel instead ("MODEL.bmodel: manifest.json: ..."), so
// they point at what the user gave.
std::string g_temp_folder, g_shown_as;

std::string shown(std::string text) {
  if (g_temp_folder.empty()) return text;
  for (size_t at = text.find(g_temp_folder); at != std::string::npos; at = text.find(g_temp_folder, at)) {
    text.replace(at, g_temp_folder.size(), g_shown_as);
    at += g_shown_as.size();
  }
  return text;
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s\n", shown(what).c_str());
  return 2;
}

// ---- load ----------------------------------------------------------------------------------
// The manifest and its command streams (bounded reads). 0 or exit 2.
int load_model(const RunCli& cli, Model& model) {
  std::string error;
  if (!read_manifest(cli.manifest, cli.timing_only, model.manifest, error)) return usage_error(error);
  const uint64_t ddr_limit = cli.max_ddr_mib << 20;
  if (!cli.timing_only && (cli.max_ddr_mib >> 44) == 0 && model.manifest.ddr_bytes() > ddr_limit) {
    return usage_error(cli.manifest + ": memory.ddr_regions: " + std::to_string(model.manifest.ddr_bytes()) +
                       " bytes in total, above the " + std::to_string(cli.max_ddr_mib) +
                       " MiB a functional run may back (--max-ddr-mib raises it; --timing-only needs none)");
  }
  uint64_t total = 0;
  for (const ManifestCore& cf : model.manifest.cores) {
    for (int e = 0; e < kManifestEngines; ++e) {
      if (cf.file[e].empty()) continue;
      uint64_t& n = model.stream_bytes[cf.core][e];
      if (!regular_file_size(cf.file[e], n, error)) return usage_error(error);
      if (n > kMaxStreamBytes) {
        return usage_error(cf.file[e] + ": " + std::to_string(n) + " bytes, above the limit of " +
                           std::to_string(kMaxStreamBytes));
      }
      total += n;
      if (total > (cli.max_stream_mib << 20)) {
        return usage_error(cli.manifest + ": the command streams total more than " + std::to_string(cli.max_stream_mib) +
                           " MiB (--max-stream-mib raises it)");
      }
    }
  }
  return 0;
}


// The manifest's DDR regions (init files, unless timing-only), then the inputs: every range
// was checked by the reader, and a file gives no more bytes than its range. 0 or exit 2.
int load_ddr(const RunCli& cli, const Model& model, port::host::Machine& machine, std::vector<cmd::DdrRegion>& ddr,
             bool (&used_tag)[32]) {
  std::string error;
  for (const ManifestRegion& r : model.manifest.regions) {
    used_tag[r.tag] = true;
    if (machine.add_region(sg::ddr_region(r.tag, sg::dma_offset(r.device_addr), r.bytes)) != Status::ok) {
      return usage_error(cli.manifest + ": DDR region of tag " + std::to_string(r.tag) + " cannot be placed");
    }
    ddr.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
    if (r.init_file.empty() || cli.timing_only) continue;
    uint64_t size = 0;
    if (!regular_file_size(r.init_file, size, error)) return usage_error(error);
    const uint64_t n = std::min(size, r.bytes);  // a longer file gives its region's bytes
    uint8_t* dst = machine.translate(sg::kDdrWindowBase + r.device_addr, r.bytes).value();
    if (!read_file_into(r.init_file, 0, n, dst, error)) return usage_error(error);
  }
  for (const ManifestTensor& t : model.manifest.inputs) {
    if (cli.timing_only) break;
    // in place: the reader checked that the range lies in a region
    const Result<uint8_t*> dst = machine.translate(sg::kDdrWindowBase + t.device_addr, std::max<uint64_t>(t.bytes, 1));
    if (t.bytes != 0 && !dst.ok()) return usage_error("input " + escape_line(t.name) + ": outside its region");
    if (!read_file_into(t.file, t.file_offset, t.bytes, t.bytes == 0 ? nullptr : dst.value(), error)) {
      return usage_error("input " + escape_line(t.name) + ": " + error);
    }
  }
  return 0;
}

// The streams go to a DDR region of their own (a tag the model does not use), where the
// engines read them through QUEUE_BASE. 0 or exit 2.
int load_streams(Model& model, port::host::Machine& machine, bool (&used_tag)[32],
                 std::vector<rt::CoreSubmission>& subs) {
  uint32_t cmd_tag = sg::kMaxDdrTag;
  while (cmd_tag > 0 && used_tag[cmd_tag]) --cmd_tag;
  uint64_t total = 0;
  for (const ManifestCore& cf : model.manifest.cores) {
    for (int e = 0; e < kManifestEngines; ++e) total += (model.stream_bytes[cf.core][e] + 255) / 256 * 256;
  }
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(cmd_tag, 0);
  if (used_tag[cmd_tag] || machine.add_region(sg::ddr_region(cmd_tag, 0, std::max<uint64_t>(total, 256))) != Status::ok) {
    return usage_error("no DDR tag left for the command streams");
  }
  used_tag[cmd_tag] = true;
  uint64_t off = 0;
  for (const ManifestCore& cf : model.manifest.cores) {
    rt::CoreSubmission s;
    s.core = cf.core;
    rt::EngineStream* es[kManifestEngines] = {&s.tiu, &s.gdma, &s.sdma, &s.hau};
    for (int e = 0; e < kManifestEngines; ++e) {
      const uint64_t n = model.stream_bytes[cf.core][e];
      if (n == 0) continue;
      uint8_t* dst = machine.translate(base + off, n).value();
      std::string error;  // read straight into the region: no second copy of 1 GB of streams
      if (!read_file_into(cf.file[e], 0, n, dst, error)) return usage_error(error);
      es[e]->device_addr = base + off;
      es[e]->bytes = model.placed[cf.core][e] = ConstByteSpan(dst, n);
      off += (n + 255) / 256 * 256;
    }
    subs.push_back(s);
  }
  return 0;
}

// ---- submit --------------------------------------------------------------------------------
std::string reason(const cmd::ValidationReport& r) {
  std::string s = r.message;
  if (r.field != nullptr && r.field[0] != '\0') s += std::string(" (") + r.field + ")";
  return s;
}

// The checks of `tilefw validate` on every stream the manifest names, with the same options as
// the runtime's submission check: a stream run refuses is one validate calls INVALID, and the
// line gives what validate gives (status, command id, byte offset, reason and field). An empty
// stream file is validated too (validate calls it INVALID; the runtime would take it for "no
// stream"). 0 or exit 1.
// The bytes checked are the placed ones (load_streams reads the files into the stream region).
int validate_streams(const Model& model, const std::vector<rt::CoreSubmission>& subs,
                     const cmd::ValidateOptions& options) {
  for (size_t i = 0; i < model.manifest.cores.size() && i < subs.size(); ++i) {
    const ManifestCore& cf = model.manifest.cores[i];
    const rt::CoreSubmission& s = subs[i];
    const ConstByteSpan b[kManifestEngines] = {s.tiu.bytes, s.gdma.bytes, s.sdma.bytes, s.hau.bytes};
    cmd::ValidationReport r;
    for (int e = 0; e < kManifestEngines && r.ok(); ++e) {
      if (!cf.file[e].empty() && b[e].size() == 0) r = cmd::validate_stream(static_cast<cmd::Engine>(e), {}, options);
    }
    if (r.ok()) r = cmd::validate_core(cmd::CoreStreams{b[0], b[1], b[2], b[3]}, options);
    if (r.ok()) continue;
    std::printf("error: core %u %s command %u: %s at byte offset %zu of %s: %s\n", cf.core,
                kEngines[static_cast<int>(r.engine)], r.command_id, status_name(r.status), r.offset,
                shown(cf.file[static_cast<int>(r.engine)]).c_str(), reason(r).c_str());
    return 1;
  }
  return 0;
}

struct Outcome {
  uint64_t makespan = 0;
  double wall = 0;
  nlohmann::json phases;  // a MoE layer in two phases: routing, control core (null otherwise)
  std::vector<ControlSpan> control;      // the control cores' busy spans (trace rows `ctl`)
  OpLabels experts_ops;                  // the experts' phase's ops, and its first trace record
  size_t experts_from = SIZE_MAX;
};

rt::Config runtime_config(const std::vector<cmd::DdrRegion>& ddr, uint64_t timeout_cycles) {
  rt::Config config;
  config.validate.use_memory_map = true;
  config.validate.ddr_regions = Span<const cmd::DdrRegion>(ddr.data(), ddr.size());
  config.reset_on_error = false;  // keep the engines as they stopped for the report below
  config.timeout_ticks = timeout_cycles;
  return config;
}

// Submits validated streams and waits. 0 or exit 1 (the failure printed).
int execute(const rt::Config& config, std::vector<rt::CoreSubmission>& subs, sim::Simulator& simulator,
            Outcome& outcome) {
  rt::Runtime runtime(config);
  const auto t0 = std::chrono::steady_clock::now();
  Status s = runtime.submit(Span<const rt::CoreSubmission>(subs.data(), subs.size()));
  if (s == Status::ok) s = runtime.wait();
  outcome.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s != Status::ok) {
    print_failure(s, runtime, simulator);
    runtime.reset();
    return 1;
  }
  for (const rt::CoreSubmission& c : subs) outcome.makespan = std::max(outcome.makespan, simulator.core_cycles(c.core));
  return 0;
}

// Validates, submits and waits. 0 or exit 1 (the failure printed).
int submit(const Model& model, const std::vector<cmd::DdrRegion>& ddr, std::vector<rt::CoreSubmission>& subs,
           sim::Simulator& simulator, uint64_t timeout_cycles, Outcome& outcome) {
  const rt::Config config = runtime_config(ddr, timeout_cycles);
  if (const int rc = validate_streams(model, subs, config.validate); rc != 0) return rc;
  return execute(config, subs, simulator, outcome);
}

// ---- a MoE layer in two phases (run_moe.cpp) --------------------------------------------------
int submit_two_phases(const RunCli& cli, Model& model, port::host::Machine& machine, sim::Simulator& simulator,
                      const std::vector<cmd::DdrRegion>& ddr, bool (&used_tag)[32],
                      std::vector<rt::CoreSubmission>& subs, Outcome& outcome) {
  const rt::Config config = runtime_config(ddr, cli.timeout_cycles);
  if (const int rc = validate_streams(model, subs, config.validate); rc != 0) return rc;
  TwoPhaseRun two(cli, model, machine, simulator, used_tag);
  rt::Runtime runtime(config);
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run_two_phases(two, runtime, subs);
  outcome.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) return rc;
  for (const rt::CoreSubmission& c : subs) outcome.makespan = std::max(outcome.makespan, simulator.core_cycles(c.core));
  outcome.phases = std::move(two.report);
  outcome.control = std::move(two.control);
  outcome.experts_ops = std::move(two.ops);
  outcome.experts_from = two.experts_from;
  return 0;
}

// ---- report --------------------------------------------------------------------------------
// Cycles to stdout; report, outputs, trace and SVG staged, then committed together. 0, 1
// (--strict with hazards) or 2.
int report(const RunCli& cli, const Model& model, port::host::Machine& machine, const sim::Simulator& simulator,
           const Outcome& o, StagedFiles& files) {
  for (const ManifestCore& cf : model.manifest.cores) {
    std::printf("core %u: %" PRIu64 " cycles\n", cf.core, simulator.core_cycles(cf.core));
  }
  std::printf("total: %" PRIu64 " cycles (%" PRIu64 " commands, timing model %s, 1 GHz)\n", o.makespan,
              simulator.commands_executed(), cli.timing_model.c_str());
  OpLabels op_labels;  // ops.json next to a generated layer's manifest: commands named by op
  std::string error;
  // Read only for the views that name ops (a DeepSeek-V3 prefill's ops.json is ~100 MB).
  const bool drawn = !cli.trace.empty() || !cli.svg.empty();
  if ((cli.summary || drawn) && !load_op_labels(cli.manifest, op_labels, error)) return usage_error(error);
  if (cli.summary) {
    std::fputs(sim::utilisation_summary(simulator, o.makespan).c_str(), stdout);
    if (!op_labels.empty()) {
      std::fputs(op_time_table(op_labels, simulator.trace(), &o.experts_ops, o.experts_from).c_str(), stdout);
    }
  }
  // A label string per record only for the trace and SVG that show them.
  const std::vector<std::string> labels = drawn ? record_labels(op_labels, simulator.trace(), &o.experts_ops, o.experts_from)
                                                : std::vector<std::string>();
  const std::vector<std::string>* named = labels.empty() ? nullptr : &labels;
  // --strict with hazards: exit 1 with the report only (no outputs, trace or SVG).
  const bool strict_fail = report_hazards(cli, simulator);
  const nlohmann::json drops = dropped_tokens(cli, model, machine);
  std::vector<std::string> lines;
  if (!cli.report.empty()) {
    nlohmann::json rep = make_report(cli, model, simulator, o.makespan, o.wall);
    if (!o.phases.is_null()) rep.update(o.phases);
    if (!drops.is_null()) rep["dropped_tokens"] = drops;
    if (!files.write(cli.report, rep.dump(1) + "\n", error)) return usage_error(error);
    lines.push_back("report: " + cli.report);
  }
  if (!cli.timing_only && !strict_fail) {
    std::error_code ec;
    fs::create_directories(cli.out, ec);
    for (const ManifestTensor& t : model.manifest.outputs) {
      // In place from simulated DDR: the reader checked that the range lies in its region.
      const Result<uint8_t*> p = machine.translate(sg::kDdrWindowBase + t.device_addr, std::max<uint64_t>(t.bytes, 1));
      const std::string path = (fs::path(cli.out) / (t.name + ".dat")).string();
      if (!p.ok()) return usage_error("output " + t.name + " lies outside the DDR regions");
      if (!files.write(path, p.value(), t.bytes, error)) return usage_error(error);
      lines.push_back("wrote " + path + " (" + std::to_string(t.bytes) + " bytes)");
    }
  }
  if (!cli.trace.empty() && !strict_fail) {
    const std::string trace = with_control_rows(sim::chrome_trace_json(simulator.trace(), named), o.control);
    if (!files.write(cli.trace, trace, error)) return usage_error(error);
    lines.push_back("trace: " + cli.trace + " (" + std::to_string(simulator.trace().size()) +
                    " commands; open in https://ui.perfetto.dev or chrome://tracing)");
  }
  if (!cli.svg.empty() && !strict_fail) {
    if (!files.write(cli.svg, sim::svg_gantt(simulator.trace(), named), error)) return usage_error(error);
    lines.push_back("gantt: " + cli.svg);
  }
  if (!files.commit(error)) return usage_error(error);
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return strict_fail ? 1 : 0;
}

// The run's files, declared so that a failed run removes stale ones of the same names.
void expect_files(const RunCli& cli, const Model& model, StagedFiles& files) {
  if (!cli.timing_only) {
    for (const ManifestTensor& t : model.manifest.outputs) files.expect((fs::path(cli.out) / (t.name + ".dat")).string());
  }
  for (const std::string* p : {&cli.report, &cli.trace, &cli.svg}) {
    if (!p->empty()) files.expect(*p);
  }
}

// Every file the run would write must land on a free path or an ordinary file (the
// output-target rule, output_target.hpp): checked before any work. 0 or exit 2.
int check_output_targets(const RunCli& cli, const Model& model) {
  std::string why;
  const std::pair<const char*, const std::string*> named[] = {{"--report", &cli.report}, {"--trace", &cli.trace},
                                                               {"--svg", &cli.svg}};
  for (const auto& [option, path] : named) {
    if (!path->empty() && !output_target_ok(*path, why)) return usage_error(std::string(option) + " " + *path + ": " + why);
  }
  if (cli.timing_only) return 0;
  for (const ManifestTensor& t : model.manifest.outputs) {
    const std::string p = (fs::path(cli.out) / (t.name + ".dat")).string();
    if (!output_target_ok(p, why)) return usage_error("output " + escape_line(t.name) + ": " + p + ": " + why);
  }
  return 0;
}

int run(const RunCli& cli) {
  sim::SimOptions so;
  uint64_t seed = 0;
  if (!parse_decimal_u64(cli.seed, seed)) return usage_error("--seed: \"" + escape_line(cli.seed) + "\" is not an integer 0..2^64-1");
  auto model = std::make_unique<Model>();
  if (const int rc = load_model(cli, *model); rc != 0) return rc;
  if (!cli.routing.empty() && !cli.timing_only) {
    return usage_error("--routing is for timing-only runs (a functional run uses the routing the TPU computed)");
  }
  if (!cli.routing.empty() && model->manifest.moe_phases.is_null()) {
    return usage_error("--routing: " + cli.manifest + " has no experts' phase (moe_phases)");
  }
  StagedFiles files;
  expect_files(cli, *model, files);
  if (const int rc = check_output_targets(cli, *model); rc != 0) {
    files.discard();  // like any failed run: no stale output of an earlier run passes for this one's
    return rc;
  }
  port::host::Machine machine(port::host::kProfileSg2260);
  port::host::ScopedMachine scope(machine);
  so.trace = !cli.trace.empty() || !cli.svg.empty() || cli.summary;
  so.functional = !cli.timing_only;
  so.tie.kind = cli.order == "reverse" ? sim::TiePolicy::reverse
                : cli.order == "random" ? sim::TiePolicy::random
                                        : sim::TiePolicy::core_major;
  so.tie.seed = seed;
  so.timing = cli.timing_model == "v1" ? sim::TimingModel::v1 : sim::TimingModel::v2;
  so.max_work = cli.max_work;
  sim::Simulator simulator(machine, so);

  std::vector<cmd::DdrRegion> ddr;
  bool used_tag[32] = {};
  std::vector<rt::CoreSubmission> subs;
  Outcome outcome;
  int rc = load_ddr(cli, *model, machine, ddr, used_tag);
  if (rc == 0) rc = load_streams(*model, machine, used_tag, subs);
  if (rc == 0) {
    rc = model->manifest.moe_phases.is_null()
             ? submit(*model, ddr, subs, simulator, cli.timeout_cycles, outcome)
             : submit_two_phases(cli, *model, machine, simulator, ddr, used_tag, subs, outcome);
  }
  if (rc == 0) rc = report(cli, *model, machine, simulator, outcome, files);
  if (rc != 0) files.discard();
  return rc;
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
  sub->add_option("--seed", opts.seed, "seed of --order random (an integer 0..2^64-1)");
  sub->add_option("--timing-model", opts.timing_model,
                  "timing model (spec/sg2260-commands.md decisions 7): v2 (default: MM2 at the chip's peak, "
                  "DMA sharing the DDR and L2 bandwidth) or v1")
      ->check(CLI::IsMember({"v1", "v2"}));
  sub->add_option("--report", opts.report, "write a JSON report (cycles, busy cycles, throughput, MFU, bounds)");
  sub->add_flag("--strict", opts.strict, "exit 1, writing no outputs, when the hazard checker reports anything");
  sub->add_flag("--timing-only", opts.timing_only,
                "run the timing model only: no data loaded, no output files (any manifest)");
  sub->add_option("--routing", opts.routing,
                  "timing-only runs of a MoE layer: balanced, uniform:SEED (default uniform:0), zipf:S:SEED or a "
                  "JSON file of per-expert token counts");
  sub->add_option("--control-cores", opts.control_cores,
                  "control cores that generate a MoE layer's experts' phase, in parallel by TPU core (default 1)")
      ->check(CLI::Range(1u, 8u));
  sub->add_option("--max-work", opts.max_work,
                  "functional runs: work budget in element operations (default 600000000: the real YOLOv5s needs 5.3e8, ~20 s; 0: none); a command that "
                  "would exceed it faults with capacity_exceeded");
  sub->add_option("--max-ddr-mib", opts.max_ddr_mib,
                  "functional runs: most DDR the manifest's regions may declare in total, MiB (default 1024)");
  sub->add_option("--max-stream-mib", opts.max_stream_mib,
                  "most command-stream bytes a run reads and places in total, MiB (default 256)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  sub->callback([&exit_code] {
    opts.bmodel.timing_only = opts.timing_only;
    opts.bmodel.max_ddr_bytes = (opts.max_ddr_mib >> 44) == 0 ? opts.max_ddr_mib << 20 : 0;
    exit_code = run_model_source(opts.manifest, opts.bmodel, [](const std::string& manifest) {
      RunCli cli = opts;
      cli.manifest = manifest;
      if (!opts.bmodel.bmodel.empty()) {  // the temporary folder, named by the .bmodel in messages
        g_temp_folder = fs::path(manifest).parent_path().string() + "/";
        g_shown_as = opts.bmodel.bmodel + ": ";
      }
      return run(cli);
    });
  });
}

}  // namespace tilefw::tools
