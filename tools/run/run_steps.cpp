// `tilefw run` on a whole model (docs/whole-model.md): the manifest's steps in order on one
// chip's simulator, each submitted through the runtime once the step before it completed; a
// MoE layer in two phases runs as firmware runs it (fw::run_moe_layer: routing phase, the
// control core generates the experts' phase from the counts, experts' phase), the control
// core's time charged on the simulated clock.
//
// Reuse of timings (timing-only runs): steps of one kind have the same streams but for their
// DDR addresses (plan_model sizes one plan per kind and relocates copies), and every step starts
// on idle engines, so a step whose kind (and, for a MoE layer, routing counts) was timed before
// takes exactly the cycles it took then: the simulator's timing depends on what commands move
// and compute, not on where in DDR (docs/sg2260-commands.md section 12: no address-dependent
// term). The clock is advanced by them instead of simulating again. `--no-reuse` simulates
// every step (the test compares both).
#include "run/run_steps.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "commands.hpp"
#include "common/input_files.hpp"
#include "common/output_target.hpp"
#include "common/staged_files.hpp"
#include "gen/model_plan.hpp"
#include "machine.hpp"
#include "run/moe_phases.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/fw/moe_layer.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;

int usage(const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s\n", what.c_str());
  return 2;
}

uint64_t round256(uint64_t v) { return (v + 255) / 256 * 256; }

struct StepTime {
  std::string name;
  uint64_t cycles = 0, control = 0, commands = 0;
  bool reused = false;
  double flops = 0, bytes = 0;
};

struct ModelRun {
  const RunCli& cli;
  const Manifest& m;
  ModelPlan plan;
  port::host::Machine machine{port::host::kProfileSg2260};
  std::unique_ptr<sim::Simulator> simulator;
  std::vector<cmd::DdrRegion> ddr;
  bool used_tag[32] = {};
  uint8_t* streams = nullptr;  // the step's streams (CPU view) and their device address
  uint64_t streams_addr = 0, streams_bytes = 0;
  fw::PhaseBuffers phase2;     // the experts' phase, sized for the worst case (every expert on its capacity)
  std::vector<StepTime> times;
  std::map<std::string, StepTime> timed;  // reuse key -> the first timing
  explicit ModelRun(const RunCli& c, const Manifest& man) : cli(c), m(man) {}
};

// The generator request the manifest names, planned again: the same steps, the same addresses.
int replan(ModelRun& r) {
  GenCli g;
  std::string error;
  const nlohmann::json& req = r.m.model.at("generator");
  if (!request_from_json(req, r.m.model_config, g, error)) return usage(r.cli.manifest + ": model." + error.substr(error.find('.') + 1));
  g.model = true;
  if (req.contains("static_experts") && req.at("static_experts").is_boolean()) g.static_experts = req.at("static_experts").get<bool>();
  if (auto f = plan_model(g, r.plan)) return usage(r.cli.manifest + ": model.generator: " + f->message);
  if (r.plan.steps.size() != r.m.steps.size()) return usage(r.cli.manifest + ": model.steps do not match its generator request");
  for (size_t i = 0; i < r.m.steps.size(); ++i) {
    if (r.plan.steps[i].name != r.m.steps[i].name || r.plan.steps[i].two_phase != r.m.steps[i].two_phase) {
      return usage(r.cli.manifest + ": model.steps[" + std::to_string(i) + "] (" + r.m.steps[i].name +
                   ") does not match its generator request");
    }
  }
  return 0;
}

uint32_t free_tag(bool (&used)[32]) {
  uint32_t tag = sg::kMaxDdrTag;
  while (tag > 0 && used[tag]) --tag;
  return tag;
}

// Regions, their first bytes, inputs; a region for one step's streams and one for an experts'
// phase. 0 or exit 2.
int load_memory(ModelRun& r) {
  std::string error;
  for (const ManifestRegion& g : r.m.regions) {
    if (r.machine.add_region(sg::ddr_region(g.tag, sg::dma_offset(g.device_addr), g.bytes)) != Status::ok) {
      return usage("DDR region of tag " + std::to_string(g.tag) + " cannot be placed");
    }
    r.used_tag[g.tag] = true;
    r.ddr.push_back(cmd::DdrRegion{g.tag, g.device_addr, g.bytes});
    if (r.cli.timing_only || g.init_file.empty()) continue;
    uint64_t size = 0;
    if (!regular_file_size(g.init_file, size, error)) return usage(error);
    uint8_t* dst = r.machine.translate(sg::kDdrWindowBase + g.device_addr, g.bytes).value();
    if (!read_file_into(g.init_file, 0, std::min(size, g.bytes), dst, error)) return usage(error);
  }
  for (const ManifestTensor& t : r.m.inputs) {
    if (r.cli.timing_only || t.bytes == 0) continue;
    const Result<uint8_t*> dst = r.machine.translate(sg::kDdrWindowBase + t.device_addr, t.bytes);
    if (!dst.ok()) return usage("input " + escape_line(t.name) + ": outside its region");
    if (!read_file_into(t.file, t.file_offset, t.bytes, dst.value(), error)) return usage("input " + escape_line(t.name) + ": " + error);
  }
  uint64_t most = 256, phase2 = 256;
  for (const ManifestStep& s : r.m.steps) {
    uint64_t n = 0;
    for (const ManifestCore& c : s.cores) {
      for (int e = 0; e < 3; ++e) {
        uint64_t size = 0;
        if (!c.file[e].empty() && !regular_file_size(c.file[e], size, error)) return usage(error);
        if (size > kMaxStreamBytes) return usage(c.file[e] + ": larger than a stream can be");
        n += round256(size);
      }
    }
    most = std::max(most, n);
  }
  for (const ModelStep& s : r.plan.steps) {
    if (!s.two_phase) continue;
    uint64_t n = 0;
    for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
      for (uint32_t e = 0; e < gen::kEngines; ++e) n += round256(s.plan.stream_bytes[c][e]);
    }
    phase2 = std::max(phase2, n);
  }
  if (most + phase2 > (r.cli.max_stream_mib << 20)) {
    return usage("the largest step's streams (" + std::to_string(most + phase2) + " bytes) exceed --max-stream-mib");
  }
  const uint32_t tag = free_tag(r.used_tag);
  if (tag == 0 || r.machine.add_region(sg::ddr_region(tag, 0, most + phase2)) != Status::ok) {
    return usage("no DDR tag left for the command streams");
  }
  r.used_tag[tag] = true;
  r.streams_addr = sg::kDdrWindowBase + sg::make_dma_address(tag, 0);
  r.streams = r.machine.translate(r.streams_addr, most + phase2).value();
  r.streams_bytes = most;
  return 0;
}

// The step's stream files into the streams region. 0 or exit 2.
int place_step(ModelRun& r, const ManifestStep& s, std::vector<rt::CoreSubmission>& subs) {
  std::string error;
  uint64_t at = 0;
  subs.clear();
  for (const ManifestCore& c : s.cores) {
    rt::CoreSubmission sub;
    sub.core = c.core;
    rt::EngineStream* es[3] = {&sub.tiu, &sub.gdma, &sub.sdma};
    for (int e = 0; e < 3; ++e) {
      if (c.file[e].empty()) continue;
      uint64_t size = 0;
      if (!regular_file_size(c.file[e], size, error)) return usage(error);
      if (!read_file_into(c.file[e], 0, size, r.streams + at, error)) return usage(error);
      es[e]->device_addr = r.streams_addr + at;
      es[e]->bytes = ConstByteSpan(r.streams + at, size);
      at += round256(size);
    }
    subs.push_back(sub);
  }
  return 0;
}

void set_phase2_buffers(ModelRun& r, const gen::SizedLayer& plan) {
  uint64_t off = r.streams_bytes;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < gen::kEngines; ++e) {
      r.phase2.stream[c][e] = ByteSpan(r.streams + off, plan.stream_bytes[c][e]);
      r.phase2.device_addr[c][e] = r.streams_addr + off;
      off += round256(plan.stream_bytes[c][e]);
    }
  }
}

rt::Config runtime_config(const ModelRun& r) {
  rt::Config config;
  config.validate.use_memory_map = true;
  config.validate.ddr_regions = Span<const cmd::DdrRegion>(r.ddr.data(), r.ddr.size());
  config.reset_on_error = false;
  config.timeout_ticks = r.cli.timeout_cycles;
  return config;
}

struct ControlCharge {
  ModelRun* run = nullptr;
  const gen::SizedLayer* plan = nullptr;
  uint64_t cycles = 0, commands = 0;
};

// fw hook: the engines wait while the control core generates the experts' phase.
void charge_control(void* user, const uint32_t* counts, const uint32_t* commands) {
  (void)counts;
  ControlCharge& ch = *static_cast<ControlCharge*>(user);
  const uint64_t end = ch.run->machine.now();
  const std::vector<ControlSpan> spans = control_spans(end, ch.plan->model.moe.experts, commands,
                                                       ch.plan->parallel.cores, ch.run->cli.control_cores);
  uint64_t start = end;
  for (const ControlSpan& s : spans) {
    start = std::max(start, s.end);
    ch.commands += s.commands;
  }
  ch.cycles = start - end;
  ch.run->machine.advance(ch.cycles);
}

// The routing counts of a timing-only MoE step: the routing model, its seed moved by the layer
// (uniform:S and zipf:A:S give layer L the seed S + L, so layers route differently).
bool step_counts(const RunCli& cli, const ModelStep& s, std::vector<uint32_t>& counts, std::string& error) {
  std::string spec = cli.routing.empty() ? "uniform:0" : cli.routing;
  const size_t colon = spec.rfind(':');
  if ((spec.rfind("uniform:", 0) == 0 || spec.rfind("zipf:", 0) == 0) && colon != std::string::npos) {
    uint64_t seed = 0;
    if (parse_decimal_u64(spec.substr(colon + 1), seed)) spec = spec.substr(0, colon + 1) + std::to_string(seed + s.layer);
  }
  return routing_counts(spec, s.plan, counts, error);
}

std::string reuse_key(const ModelStep& s, const std::vector<uint32_t>& counts) {
  std::string k = s.kind == gen::Program::layer ? (s.plan.model.moe_layer ? "moe" : "dense") : s.name;
  for (uint32_t c : counts) k += "," + std::to_string(c);
  return k;
}

// One step on the simulator. 0 or 1 (printed).
int run_step(ModelRun& r, size_t i, rt::Runtime& runtime) {
  const ModelStep& ps = r.plan.steps[i];
  StepTime t;
  t.name = ps.name;
  t.flops = static_cast<double>(ps.plan.flops);
  t.bytes = static_cast<double>(ps.plan.bytes_ddr);
  std::vector<uint32_t> given;
  std::string error;
  if (ps.two_phase && r.cli.timing_only && !step_counts(r.cli, ps, given, error)) return usage(error);
  const std::string key = reuse_key(ps, given);
  const auto seen = r.timed.find(key);
  const uint64_t t0 = r.machine.now();
  if (r.cli.timing_only && !r.cli.no_reuse && seen != r.timed.end()) {
    t = seen->second;
    t.name = ps.name;
    t.reused = true;
    r.machine.advance(t.cycles);
    r.times.push_back(t);
    return 0;
  }
  std::vector<rt::CoreSubmission> subs;
  if (const int rc = place_step(r, r.m.steps[i], subs); rc != 0) return rc;
  Status s = Status::ok;
  if (!ps.two_phase) {
    s = runtime.submit(Span<const rt::CoreSubmission>(subs.data(), subs.size()));
    if (s == Status::ok) s = runtime.wait();
  } else {
    set_phase2_buffers(r, ps.plan);
    ControlCharge ch{&r, &ps.plan};
    fw::Hooks hooks;
    hooks.given_counts = given.empty() ? nullptr : given.data();
    hooks.after_generate = charge_control;
    hooks.user = &ch;
    std::vector<uint32_t> counts(ps.plan.model.moe.experts, 0);
    gen::GenError ge;
    uint32_t phase = 0;
    const uint64_t counts_addr = sg::kDdrWindowBase + ps.plan.memory[gen::TensorId::expert_tokens].device_addr;
    s = fw::run_moe_layer(runtime, ps.plan, Span<const rt::CoreSubmission>(subs.data(), subs.size()), counts_addr,
                          counts.data(), &r.phase2, ge, phase, hooks);
    if (s != Status::ok && phase == 0) std::printf("error: %s: the control core: %s: %s\n", ps.name.c_str(), status_name(s), ge.what);
    t.control = ch.cycles;
    t.commands = ch.commands;
    double flops = 0, bytes = 0;
    routed_figures(ps.plan, counts, flops, bytes);
    t.flops = flops;
    t.bytes = bytes;
  }
  if (s != Status::ok) {
    const rt::Report& rep = runtime.report();
    std::printf("error: step %s: core %u %s command %u: %s (%s)\n", ps.name.c_str(), rep.core, cmd::engine_name(rep.engine),
                rep.command_id, status_name(s), rep.message);
    if (s == Status::rt_deadlock) std::printf("%s", r.simulator->blocked_report().c_str());
    runtime.reset();
    return 1;
  }
  t.cycles = r.machine.now() - t0;
  r.times.push_back(t);
  r.timed.emplace(key, t);
  return 0;
}

nlohmann::json model_run_report(const ModelRun& r, double wall) {
  const double hz = static_cast<double>(sg::kClockHz);
  uint64_t cycles = 0, control = 0;
  double flops = 0, bytes = 0;
  nlohmann::json steps = nlohmann::json::array();
  for (const StepTime& t : r.times) {
    cycles += t.cycles;
    control += t.control;
    flops += t.flops;
    bytes += t.bytes;
    steps.push_back({{"name", t.name}, {"cycles", t.cycles}, {"control_cycles", t.control}, {"reused", t.reused},
                     {"flops", t.flops}, {"bytes_ddr", t.bytes}});
  }
  const nlohmann::json& rep = r.m.report;
  const std::string dtype = rep.is_object() && rep.contains("dtype") ? rep.at("dtype").get<std::string>() : "bf16";
  const double peak = sg::peak_flops(dtype.c_str()), seconds = cycles / hz;
  const double tokens = static_cast<double>(r.plan.inference.batch) *
                        (r.plan.inference.phase == gen::Phase::decode ? 1.0 : r.plan.inference.seq);
  const double bound = std::max(peak > 0 ? flops / peak : 0.0, bytes / static_cast<double>(sg::kDdrBytesPerSecond));
  nlohmann::json j = {{"kind", "model"},
                      {"phase", r.plan.inference.phase == gen::Phase::decode ? "decode" : "prefill"},
                      {"cycles_total", cycles},
                      {"seconds", seconds},
                      {"tokens_per_second", seconds > 0 ? tokens / seconds : 0.0},
                      {"flops", flops},
                      {"bytes_ddr", bytes},
                      {"mfu", seconds > 0 && peak > 0 ? flops / seconds / peak : 0.0},
                      {"bound_seconds", bound},
                      {"comm_seconds", 0.0},
                      {"bubble_seconds", 0.0},
                      {"control_seconds", control / hz},
                      {"chips", {{"0", {{"cycles", cycles}}}}},
                      {"ddr_bytes", rep.is_object() && rep.contains("ddr_bytes") ? rep.at("ddr_bytes") : nlohmann::json()},
                      {"timing_model", r.cli.timing_model},
                      {"wall_seconds", wall},
                      {"steps", steps}};
  return j;
}

int write_outputs(ModelRun& r, StagedFiles& files, std::vector<std::string>& lines) {
  std::string error;
  if (r.cli.timing_only) return 0;
  std::error_code ec;
  fs::create_directories(r.cli.out, ec);
  for (const ManifestTensor& t : r.m.outputs) {
    const Result<uint8_t*> p = r.machine.translate(sg::kDdrWindowBase + t.device_addr, std::max<uint64_t>(t.bytes, 1));
    const std::string path = (fs::path(r.cli.out) / (t.name + ".dat")).string();
    if (!p.ok()) return usage("output " + t.name + " lies outside the DDR regions");
    if (!files.write(path, p.value(), t.bytes, error)) return usage(error);
    lines.push_back("wrote " + path + " (" + std::to_string(t.bytes) + " bytes)");
  }
  return 0;
}

int check_targets(const RunCli& cli, const Manifest& m, StagedFiles& files) {
  std::string why;
  if (!cli.trace.empty() || !cli.svg.empty()) return usage("--trace and --svg are for one program (a whole model runs steps)");
  if (!cli.report.empty()) {
    files.expect(cli.report);
    if (!output_target_ok(cli.report, why)) return usage("--report " + cli.report + ": " + why);
  }
  if (cli.timing_only) return 0;
  for (const ManifestTensor& t : m.outputs) {
    const std::string p = (fs::path(cli.out) / (t.name + ".dat")).string();
    files.expect(p);
    if (!output_target_ok(p, why)) return usage("output " + escape_line(t.name) + ": " + p + ": " + why);
  }
  return 0;
}

}  // namespace

int run_steps(const RunCli& cli, const Manifest& m) {
  if (m.system.given && m.system.chips > 1) return usage("a whole model on several chips: not supported by run yet");
  auto r = std::make_unique<ModelRun>(cli, m);
  StagedFiles files;
  if (const int rc = check_targets(cli, m, files); rc != 0) return rc;
  if (const int rc = replan(*r); rc != 0) return rc;
  port::host::ScopedMachine scope(r->machine);
  sim::SimOptions so;
  so.functional = !cli.timing_only;
  so.timing = cli.timing_model == "v1" ? sim::TimingModel::v1 : sim::TimingModel::v2;
  so.max_work = cli.max_work;
  r->simulator = std::make_unique<sim::Simulator>(r->machine, so);
  if (const int rc = load_memory(*r); rc != 0) return rc;
  rt::Runtime runtime(runtime_config(*r));
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < r->m.steps.size(); ++i) {
    if (const int rc = run_step(*r, i, runtime); rc != 0) {
      files.discard();
      return rc;
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const nlohmann::json rep = model_run_report(*r, wall);
  if (r->simulator->hazard_count() > 0) {
    std::fprintf(stderr, "hazards: %" PRIu64 "\n", r->simulator->hazard_count());
    if (cli.strict) {
      files.discard();
      return 1;
    }
  }
  if (cli.summary) {
    for (const StepTime& t : r->times) {
      std::printf("%-12s %12" PRIu64 " cycles%s%s\n", t.name.c_str(), t.cycles, t.control ? " (control core " : "",
                  t.control ? (std::to_string(t.control) + " cycles)" + (t.reused ? " reused" : "")).c_str() : (t.reused ? " reused" : ""));
    }
  }
  std::printf("total: %" PRIu64 " cycles, %.6f s (%zu steps, timing model %s, 1 GHz): %.1f tokens/s, bound %.6f s\n",
              rep.at("cycles_total").get<uint64_t>(), rep.at("seconds").get<double>(), r->times.size(),
              cli.timing_model.c_str(), rep.at("tokens_per_second").get<double>(), rep.at("bound_seconds").get<double>());
  std::vector<std::string> lines;
  std::string error;
  if (!cli.report.empty()) {
    if (!files.write(cli.report, rep.dump(1) + "\n", error)) return usage(error);
    lines.push_back("report: " + cli.report);
  }
  if (const int rc = write_outputs(*r, files, lines); rc != 0) return rc;
  if (!files.commit(error)) return usage(error);
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return 0;
}

}  // namespace tilefw::tools
