// `tilefw run --manifest FILE [--out DIR] [--trace FILE]` (docs/cli.md section 5): loads a model
// description (vectors/sg2260-mm0 manifest format) into simulated DDR, runs every core's
// TIU/GDMA/SDMA streams through the rt layer -> port -> host simulator, writes each output to
// DIR/<name>.dat and prints per-core and total simulated cycles.
// Exit 0 on success; 1 when a stream is invalid, faults or deadlocks (naming core, engine and
// command id); 2 when the manifest or a file it names cannot be read or parsed.
// Additions for generated layers (docs/cli.md section 5): --timing-only (timing model only: no data in, no outputs out),
// --strict (exit 1 and no outputs when the hazard checker reports anything; hazards always go
// to stderr), --report FILE (cycles, busy cycles, throughput, MFU and bounds as JSON);
// --timing-model v1|v2 (default v2; the report's timing_model names it).
// The model comes in as one run input (run_input.hpp): a manifest through the one checked reader
// (sg2260_manifest.cpp), or a .bmodel built in memory (run_bmodel.cpp). Files are read bounded
// (input_files.hpp); outputs, report, trace and SVG appear together or not at all
// (staged_files.hpp); --max-work and --max-ddr-mib bound a functional run's time and memory.
// The run has three stages: load (run input, simulated DDR and streams), submit (the runtime,
// whose validation is that of `tilefw validate` and is reported as validate reports it) and
// report (cycles, files).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "commands.hpp"
#include "common/input_files.hpp"
#include "machine.hpp"
#include "run/chip_memory.hpp"
#include "run/moe_phases.hpp"
#include "run/run_moe.hpp"
#include "formats/op_labels.hpp"
#include "inspect/validate_manifest.hpp"
#include "common/output_target.hpp"
#include "tilefw/port/port.hpp"
#include "run/run_bmodel.hpp"
#include "run/run_input.hpp"
#include "run/run_model.hpp"
#include "run/run_ops.hpp"
#include "run/run_steps.hpp"
#include "run/run_system.hpp"
#include "sg2260/trace.hpp"
#include "common/staged_files.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;

int usage_error(const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s\n", what.c_str());
  return 2;
}

// ---- load ----------------------------------------------------------------------------------
// The run input: exactly one of --manifest (the checked reader) and --bmodel (built in memory).
// 0 or exit 2.
int load_input(const RunCli& cli, RunInput& in) {
  if (!cli.manifest.empty() && !cli.bmodel.bmodel.empty()) return usage_error("give --manifest or --bmodel, not both");
  if (cli.manifest.empty() && cli.bmodel.bmodel.empty()) {
    return usage_error("--manifest FILE or --bmodel FILE is required");
  }
  if (!cli.bmodel.bmodel.empty()) {
    const bool named_ops = cli.summary || !cli.trace.empty() || !cli.svg.empty();  // the views that name ops
    return bmodel_run_input(cli.bmodel, named_ops, in);
  }
  if (!cli.bmodel.inputs.empty()) return usage_error("--input needs --bmodel (a manifest names its inputs)");
  return 0;
}

// A manifest's run input (read after the seed is checked, as always), the DDR limit and the
// sizes of the command streams (checked against the limits). 0 or exit 2.
int load_model(const RunCli& cli, Model& model) {
  std::string error;
  RunInput& in = model.input;
  if (!in.from_bmodel) {
    Manifest m;
    if (!read_manifest(cli.manifest, cli.timing_only, m, error)) return usage_error(error);
    run_input_from_manifest(std::move(m), cli.manifest, in);
  }
  const uint64_t ddr_limit = cli.max_ddr_mib << 20;
  if (!cli.timing_only && (cli.max_ddr_mib >> 44) == 0 && in.ddr_bytes() > ddr_limit) {
    return usage_error(in.source + ": memory.ddr_regions: " + std::to_string(in.ddr_bytes()) +
                       " bytes in total, above the " + std::to_string(cli.max_ddr_mib) +
                       " MiB a functional run may back (--max-ddr-mib raises it; --timing-only needs none)");
  }
  uint64_t total = 0;
  for (const RunCore& c : in.cores) {
    for (int e = 0; e < kManifestEngines; ++e) {
      const RunStream& s = c.stream[e];
      if (!s.given) continue;
      uint64_t& n = model.stream_bytes[c.core][e];
      n = s.bytes.size();
      if (!s.file.empty() && !regular_file_size(s.file, n, error)) return usage_error(error);
      if (n > kMaxStreamBytes) {
        return usage_error(s.shown + ": " + std::to_string(n) + " bytes, above the limit of " +
                           std::to_string(kMaxStreamBytes));
      }
      total += n;
      if (total > (cli.max_stream_mib << 20)) {
        return usage_error(in.source + ": the command streams total more than " + std::to_string(cli.max_stream_mib) +
                           " MiB (--max-stream-mib raises it)");
      }
    }
  }
  return 0;
}

// A region's first bytes at `dst` (its `room` bytes): a file or the model's bytes give at most
// what fits, drawn weights fill it. 0 or exit 2.
int place_region_bytes(const RunInput& in, const RunRegion& r, uint8_t* dst, std::mt19937_64& weights) {
  const ByteSource& src = r.init;
  std::string error;
  switch (src.kind) {
    case ByteSource::Kind::none: return 0;
    case ByteSource::Kind::file: {
      uint64_t size = 0;
      if (!regular_file_size(src.file, size, error)) return usage_error(error);
      const uint64_t n = std::min(size, r.bytes);  // a longer file gives its region's bytes
      return read_file_into(src.file, 0, n, dst, error) ? 0 : usage_error(error);
    }
    case ByteSource::Kind::memory:
      if (src.at < r.bytes) std::memcpy(dst + src.at, src.bytes.data(), std::min<uint64_t>(src.bytes.size(), r.bytes - src.at));
      return 0;
    case ByteSource::Kind::drawn_f16: draw_f16_weights(weights, dst, r.bytes); return 0;
  }
  return usage_error(in.source + ": DDR region of tag " + std::to_string(r.tag) + ": no source for its bytes");
}

// The DDR regions and their first bytes (unless timing-only), then the inputs: every range was
// checked when the run input was built, and a source gives no more bytes than its range.
// 0 or exit 2.
int load_ddr(const RunCli& cli, const Model& model, port::host::Machine& machine, std::vector<cmd::DdrRegion>& ddr,
             bool (&used_tag)[32]) {
  const RunInput& in = model.input;
  std::mt19937_64 weights(in.fill_seed);  // one generator over the drawn regions, in order
  for (const RunRegion& r : in.regions) {
    used_tag[r.tag] = true;
    if (machine.add_region(sg::ddr_region(r.tag, sg::dma_offset(r.device_addr), r.bytes)) != Status::ok) {
      return usage_error(in.source + ": DDR region of tag " + std::to_string(r.tag) + " cannot be placed");
    }
    ddr.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
    if (cli.timing_only) continue;
    uint8_t* dst = machine.translate(sg::kDdrWindowBase + r.device_addr, r.bytes).value();
    if (const int rc = place_region_bytes(in, r, dst, weights); rc != 0) return rc;
  }
  std::string error;
  for (const RunTensor& t : in.inputs) {
    if (cli.timing_only) break;
    // in place: the range lies in a region
    const Result<uint8_t*> dst = machine.translate(sg::kDdrWindowBase + t.device_addr, std::max<uint64_t>(t.bytes, 1));
    if (t.bytes != 0 && !dst.ok()) return usage_error("input " + escape_line(t.name) + ": outside its region");
    if (!read_file_into(t.init.file, t.init.file_offset, t.bytes, t.bytes == 0 ? nullptr : dst.value(), error)) {
      return usage_error("input " + escape_line(t.name) + ": " + error);
    }
  }
  return 0;
}

// A stream the model names but that holds no byte: refused with what validation says of no
// bytes (the runtime would take an empty span for "no stream"). 0 or exit 1.
int refuse_empty_stream(const RunCore& c, int e) {
  const cmd::ValidationReport r = cmd::validate_stream(static_cast<cmd::Engine>(e), {});
  std::printf("error: core %u %s command %u: %s at byte offset %zu of %s: %s\n", c.core, kManifestEngineNames[e],
              r.command_id, status_name(r.status), r.offset, c.stream[e].shown.c_str(), r.message);
  return 1;
}

// The streams go to a DDR region of their own (a tag the model does not use), where the
// engines read them through QUEUE_BASE. 0, 1 (an empty stream) or exit 2.
int load_streams(Model& model, port::host::Machine& machine, bool (&used_tag)[32],
                 std::vector<rt::CoreSubmission>& subs) {
  const uint32_t cmd_tag = free_ddr_tag(used_tag);
  uint64_t total = 0;
  for (const RunCore& c : model.input.cores) {
    for (int e = 0; e < kManifestEngines; ++e) total += (model.stream_bytes[c.core][e] + 255) / 256 * 256;
  }
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(cmd_tag, 0);
  if (used_tag[cmd_tag] || machine.add_region(sg::ddr_region(cmd_tag, 0, std::max<uint64_t>(total, 256))) != Status::ok) {
    return usage_error("no DDR tag left for the command streams");
  }
  used_tag[cmd_tag] = true;
  uint64_t off = 0;
  for (const RunCore& c : model.input.cores) {
    rt::CoreSubmission s;
    s.core = c.core;
    rt::EngineStream* es[kManifestEngines] = {&s.tiu, &s.gdma, &s.sdma, &s.hau};
    for (int e = 0; e < kManifestEngines; ++e) {
      const RunStream& from = c.stream[e];
      const uint64_t n = model.stream_bytes[c.core][e];
      if (from.given && n == 0) return refuse_empty_stream(c, e);
      if (n == 0) continue;
      uint8_t* dst = machine.translate(base + off, n).value();
      std::string error;  // read straight into the region: no second copy of 1 GB of streams
      if (from.file.empty()) {
        std::memcpy(dst, from.bytes.data(), n);
      } else if (!read_file_into(from.file, 0, n, dst, error)) {
        return usage_error(error);
      }
      es[e]->device_addr = base + off;
      es[e]->bytes = model.placed[c.core][e] = ConstByteSpan(dst, n);
      off += (n + 255) / 256 * 256;
    }
    subs.push_back(s);
  }
  return 0;
}

// ---- submit --------------------------------------------------------------------------------
// The runtime's submit validates every stream (the checks of `tilefw validate`, with the
// memory map); a refusal is reported as validate reports it: status, command id, byte offset,
// stream, reason and field.

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

// The message check over every stream the chip runs (cmd::validate_messages): a wait no order
// of the engines can release is refused before anything runs. 0 or exit 1 (printed).
int check_messages(const Model& model, const std::vector<rt::CoreSubmission>& subs) {
  std::vector<cmd::CoreStream> streams;
  for (const rt::CoreSubmission& c : subs) {
    const rt::EngineStream* es[kManifestEngines] = {&c.tiu, &c.gdma, &c.sdma, &c.hau};
    for (int e = 0; e < kManifestEngines; ++e) {
      if (es[e]->bytes.size() != 0) streams.push_back(cmd::CoreStream{0, c.core, static_cast<cmd::Engine>(e), es[e]->bytes});
    }
  }
  const cmd::SystemValidation v = cmd::validate_messages(1, Span<const cmd::CoreStream>(streams.data(), streams.size()), {});
  if (v.ok()) return 0;
  const cmd::CoreStream& s = streams[v.core_stream];
  std::string shown;
  for (const RunCore& c : model.input.cores) {
    if (c.core == s.core) shown = c.stream[static_cast<int>(s.engine)].shown;
  }
  std::printf("error: core %u %s command %u: %s at byte offset %zu of %s: %s field %s%s\n", s.core,
              cmd::engine_name(s.engine), v.report.command_id, status_name(v.report.status), v.report.offset,
              shown.c_str(), v.report.message, v.report.field, message_wait_detail(v).c_str());
  return 1;
}

// Submits the streams (validated by the runtime) and waits. 0 or exit 1 (the failure printed).
int submit(const Model& model, const std::vector<cmd::DdrRegion>& ddr, std::vector<rt::CoreSubmission>& subs,
           sim::Simulator& simulator, uint64_t timeout_cycles, Outcome& outcome) {
  if (const int rc = check_messages(model, subs); rc != 0) return rc;
  rt::Runtime runtime(runtime_config(ddr, timeout_cycles));
  const auto t0 = std::chrono::steady_clock::now();
  Status s = runtime.submit(Span<const rt::CoreSubmission>(subs.data(), subs.size()));
  if (s == Status::ok) s = runtime.wait();
  outcome.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s != Status::ok) {
    print_failure(s, runtime, simulator, &model);
    runtime.reset();
    return 1;
  }
  for (const rt::CoreSubmission& c : subs) outcome.makespan = std::max(outcome.makespan, simulator.core_cycles(c.core));
  return 0;
}

// ---- a MoE layer in two phases (run_moe.cpp) --------------------------------------------------
int submit_two_phases(const RunCli& cli, Model& model, port::host::Machine& machine, sim::Simulator& simulator,
                      const std::vector<cmd::DdrRegion>& ddr, bool (&used_tag)[32],
                      std::vector<rt::CoreSubmission>& subs, Outcome& outcome) {
  TwoPhaseRun two(cli, model, machine, simulator, used_tag);
  rt::Runtime runtime(runtime_config(ddr, cli.timeout_cycles));
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
  for (const RunCore& c : model.input.cores) {
    std::printf("core %u: %" PRIu64 " cycles\n", c.core, simulator.core_cycles(c.core));
  }
  std::printf("total: %" PRIu64 " cycles (%" PRIu64 " commands, timing model %s, 1 GHz)\n", o.makespan,
              simulator.commands_executed(), cli.timing_model.c_str());
  // Commands named by op: a .bmodel's were labelled with its run input; a generated layer's
  // ops.json is read only for the views that name ops (a DeepSeek-V3 prefill's is ~100 MB).
  OpLabels file_labels;
  const OpLabels* ops = &model.input.ops;
  std::string error;
  const bool drawn = !cli.trace.empty() || !cli.svg.empty();
  if ((cli.summary || drawn) && !model.input.ops_file.empty()) {
    if (!file_labels.read_json(model.input.ops_file, error)) return usage_error(error);
    ops = &file_labels;
  }
  const OpLabels& op_labels = *ops;
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
    for (const RunTensor& t : model.input.outputs) {
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
    for (const RunTensor& t : model.input.outputs) files.expect((fs::path(cli.out) / (t.name + ".dat")).string());
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
  for (const RunTensor& t : model.input.outputs) {
    const std::string p = (fs::path(cli.out) / (t.name + ".dat")).string();
    if (!output_target_ok(p, why)) return usage_error("output " + escape_line(t.name) + ": " + p + ": " + why);
  }
  return 0;
}

// A manifest with a system of chips (or --system) runs on the multi-chip simulator
// (run_system.cpp). -1 when the run is a single chip's, as always.
int run_many_chips(const RunCli& cli) {
  if (cli.manifest.empty()) {
    return cli.system.empty() ? -1 : usage_error("--system needs --manifest (a .bmodel is one chip)");
  }
  Manifest m;
  std::string error;
  if (!cli.system.empty()) {
    // The manifest's chip keys are checked against the --system file's chip count.
    SystemSpec spec;
    if (!read_system_file(cli.system, spec, error)) return usage_error(error);
    nlohmann::json j;
    std::vector<uint8_t> bytes;
    if (!read_whole_file(cli.manifest, kMaxManifestBytes, bytes, error)) return usage_error(error);
    try {
      j = nlohmann::json::parse(bytes.begin(), bytes.end());
    } catch (const std::exception& e) {
      return usage_error(cli.manifest + ": not JSON: " + e.what());
    }
    if (j.is_object()) j["system"] = system_json(spec);
    if (!parse_manifest(j, fs::path(cli.manifest).parent_path().string(), cli.timing_only, m, error)) {
      return usage_error(cli.manifest + ": " + error);
    }
    return run_system(cli, m, m.system);
  }
  if (!read_manifest(cli.manifest, cli.timing_only, m, error)) return usage_error(error);
  if (!m.system.given) return -1;
  if (!m.moe_phases.is_null() || !cli.routing.empty()) {
    return usage_error("a system of chips runs neither moe_phases nor --routing (one chip does)");
  }
  return run_system(cli, m, m.system);
}

// A whole model's manifest (a "model" object with steps) runs step by step (run_steps.cpp).
// -1 for any other input.
int run_whole_model(const RunCli& cli) {
  if (cli.manifest.empty()) return -1;
  Manifest m;
  std::string error;
  if (!read_manifest(cli.manifest, cli.timing_only, m, error)) return -1;  // load_input reports it
  if (m.steps.empty()) return cli.chip_config.empty() ? -1 : usage_error("--chip-config is for a whole model's manifest");
  if (!cli.system.empty()) return usage_error("--system: a whole model's system of chips is set by tilefw gen --model --system");
  return run_steps(cli, m);
}

// The element loops' per-command buffers (a convolution's input planes: megabytes) are freed at
// the top of the heap; by default glibc hands such memory back to the kernel, and the next command
// faults the same pages in again (a fifth of YOLOv5s's page faults). A run keeps it instead.
void keep_freed_memory() {
#if defined(__GLIBC__)
  (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

int run(const RunCli& cli) {
  keep_freed_memory();
  if (const int rc = run_whole_model(cli); rc >= 0) return rc;
  sim::SimOptions so;
  uint64_t seed = 0;
  auto model = std::make_unique<Model>();
  if (const int rc = load_input(cli, model->input); rc != 0) return rc;
  if (const int rc = run_many_chips(cli); rc >= 0) return rc;
  if (!parse_decimal_u64(cli.seed, seed)) return usage_error("--seed: \"" + escape_line(cli.seed) + "\" is not an integer 0..2^64-1");
  if (const int rc = load_model(cli, *model); rc != 0) return rc;
  if (!cli.routing.empty() && !cli.timing_only) {
    return usage_error("--routing is for timing-only runs (a functional run uses the routing the TPU computed)");
  }
  if (!cli.routing.empty() && model->input.moe_phases.is_null()) {
    return usage_error("--routing: " + model->input.source + " has no experts' phase (moe_phases)");
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
  if (rc == 0) model->input.release_bytes();  // placed in simulated DDR: the .bmodel's copy goes
  if (rc == 0) {
    rc = model->input.moe_phases.is_null()
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
  sub->preparse_callback([](size_t) { opts = RunCli{}; });  // a second parse in one process starts afresh
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
                  "timing model (docs/sg2260-commands.md section 12): v2 (default: MM2 at the chip's peak, "
                  "DMA sharing the DDR and L2 bandwidth) or v1")
      ->check(CLI::IsMember({"v1", "v2"}));
  sub->add_option("--system", opts.system,
                  "a JSON system of chips (chips, topology, link and CDMA figures): replaces the manifest's \"system\"");
  sub->add_option("--report", opts.report, "write a JSON report (cycles, busy cycles, throughput, MFU, bounds)");
  sub->add_option("--chip-config", opts.chip_config,
                  "whole model: a chip what-if (JSON: clock_ghz, ddr_gbytes_per_s, l2_gbytes_per_s, ddr_capacity_gib) "
                  "replacing the one gen recorded");
  sub->add_flag("--no-reuse", opts.no_reuse,
                "whole model, timing-only: simulate every step (default: a step of a kind timed before takes its cycles)");
  sub->add_flag("--strict", opts.strict, "exit 1, writing no outputs, when the hazard checker reports anything");
  sub->add_flag("--timing-only", opts.timing_only,
                "run the timing model only: no data loaded, no output files (any manifest)");
  sub->add_option("--routing", opts.routing,
                  "timing-only runs of a MoE layer: balanced, uniform:SEED (default uniform:0), zipf:S:SEED or a "
                  "JSON file of per-expert token counts");
  sub->add_option("--control-cores", opts.control_cores,
                  "control cores that generate a MoE layer's experts' phase, in parallel by TPU core (default 8: one "
                  "per TPU core)")
      ->check(CLI::Range(1u, 8u));
  sub->add_option("--expert-placement", opts.expert_placement,
                  "a MoE layer's experts' phase: balanced (default: the routed experts spread over the cores by "
                  "load) or owner (each expert on its owner core, e mod ep)")
      ->check(CLI::IsMember({"balanced", "owner"}));
  sub->add_option("--max-work", opts.max_work,
                  "functional runs: work budget in element operations (default 690000000: the real YOLOv5s needs 6.82e8, ~2.5 s; 0: none); a command that "
                  "would exceed it faults with capacity_exceeded");
  sub->add_option("--max-ddr-mib", opts.max_ddr_mib,
                  "functional runs: most DDR the manifest's regions may declare in total, MiB (default 1024)");
  sub->add_option("--max-stream-mib", opts.max_stream_mib,
                  "most command-stream bytes a run reads and places in total, MiB (default 256)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  sub->callback([&exit_code] {
    opts.bmodel.timing_only = opts.timing_only;
    opts.bmodel.max_ddr_bytes = (opts.max_ddr_mib >> 44) == 0 ? opts.max_ddr_mib << 20 : 0;
    exit_code = run(opts);
  });
}

}  // namespace tilefw::tools
