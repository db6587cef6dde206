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
#include "run/run_steps_state.hpp"

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
#include "gen/model_writer.hpp"
#include "machine.hpp"
#include "run/moe_phases.hpp"
#include "sg2260/sim.hpp"
#include "sg2260/system.hpp"
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

}  // namespace

int steps_usage(const std::string& what) { return usage(what); }

namespace {

const ModelStep* plan_of(const ModelRun& r, const ManifestStep& s, uint32_t& chip);

// Every compute step is one the request plans, on a chip and micro-batch of its layout, and its
// stream files have the sizes the plan gives (a manifest edited after gen is refused, not run
// with the wrong plan).
int check_steps(const ModelRun& r) {
  std::string error;
  std::map<std::string, StepSizes> sized;  // equal plans have equal sizes (step_key)
  for (const ManifestStep& ms : r.m.steps) {
    if (ms.alltoall && (ms.alltoall->chips != r.layout.tp || ms.alltoall->first_chip % r.layout.tp != 0 ||
                        ms.alltoall->microbatch >= r.layout.microbatches)) {  // its streams: run_alltoall
      return usage(r.cli.manifest + ": step " + ms.name + ": alltoall: not an expert-parallel group of the request's layout");
    }
    if (ms.kind == "xfer") continue;
    uint32_t chip = 0;
    const ModelStep* ps = plan_of(r, ms, chip);
    if (ps == nullptr || chip >= r.layout.chips || ms.microbatch >= r.layout.microbatches) {
      return usage(r.cli.manifest + ": step " + ms.name + " is not a step of its chip and micro-batch in model.generator's plan");
    }
    const std::string key = step_key(*ps, ps->plan);
    auto seen = sized.find(key);
    if (seen == sized.end()) {
      StepSizes z;
      if (auto f = size_step(*ps, z)) return usage(r.cli.manifest + ": step " + ms.name + ": " + f->message);
      seen = sized.emplace(key, z).first;
    }
    const StepSizes& z = seen->second;
    for (const ManifestCore& c : ms.cores) {
      for (int e = 0; e < 3; ++e) {
        uint64_t size = 0;
        if (c.file[e].empty() || !regular_file_size(c.file[e], size, error)) return usage(error.empty() ? ms.name + ": a stream is missing" : error);
        if (c.core >= ps->plan.parallel.cores || size != z.bytes[c.core][e]) {
          return usage(c.file[e] + ": " + std::to_string(size) + " bytes, the plan of step " + ms.name + " gives " +
                       std::to_string(c.core < gen::kMaxCores ? z.bytes[c.core][e] : 0) + " (the manifest's request and streams differ)");
        }
      }
    }
  }
  return 0;
}

// The generator request the manifest names, planned again: the same steps, the same addresses.
int replan(ModelRun& r) {
  GenCli g;
  std::string error;
  const nlohmann::json& req = r.m.model.at("generator");
  if (!request_from_json(req, r.m.model_config, g, error)) return usage(r.cli.manifest + ": model." + error.substr(error.find('.') + 1));
  g.model = true;
  if (req.contains("static_experts") && req.at("static_experts").is_boolean()) g.static_experts = req.at("static_experts").get<bool>();
  g.replicated_attention = req.value("attention", std::string()) == "replicated";
  if (req.contains("owner_rows") && req.at("owner_rows").is_boolean()) g.owner_rows = req.at("owner_rows").get<bool>();
  g.ep_comm = req.value("ep_comm", std::string("ring"));
  if (g.ep_comm != "ring" && g.ep_comm != "alltoall") return usage(r.cli.manifest + ": model.generator.ep_comm: \"ring\" or \"alltoall\"");
  if (auto f = plan_all(g, r.stages)) return usage(r.cli.manifest + ": model.generator: " + f->message);
  r.layout = r.stages[0].layout;
  if (req.contains("chip_config") && !parse_chip_config(req.at("chip_config"), "model.generator.chip_config", r.chip, error)) {
    return usage(r.cli.manifest + ": " + error);
  }
  if (!r.cli.chip_config.empty() && !read_chip_config_file(r.cli.chip_config, r.chip, error)) {
    return usage("--chip-config: " + error);
  }
  const uint32_t chips = r.m.system.given ? r.m.system.chips : 1;
  if (chips != r.layout.chips) return usage(r.cli.manifest + ": the system's chips differ from model.generator.chips");
  return check_steps(r);
}

// The plan of a compute step: its chip's stage, the step named after "c<chip>.m<mb>." (or the
// bare name on one chip), relocated to its micro-batch. nullptr when none matches.
const ModelStep* plan_of(const ModelRun& r, const ManifestStep& s, uint32_t& chip) {
  chip = s.cores.front().chip;
  const ModelPlan& mp = r.stages[r.layout.plan_of(chip)];
  const size_t dot = s.name.rfind(s.kind);
  const std::string bare = dot == std::string::npos ? s.name : s.name.substr(dot);
  for (const ModelStep& ps : mp.steps) {
    if (ps.name == bare && ps.two_phase == s.two_phase) return &ps;
  }
  return nullptr;
}

struct ControlCharge {
  const ModelRun* run = nullptr;
  const gen::SizedLayer* plan = nullptr;
  const port::host::Machine* machine = nullptr;
  uint64_t counts_at = 0;  // when the counts were in DDR: the control cores start there
  uint64_t cycles = 0, commands = 0, copied = 0;
  gen::PhaseStats stats[gen::kMaxCores];
};

void counts_landed(void* user) {
  ControlCharge& ch = *static_cast<ControlCharge*>(user);
  ch.counts_at = ch.machine->now();
}

// fw hook (after the routing phase ended): the control cores generated the experts' phase from
// when the counts landed, while the engines ran the rest of the routing phase; the engines wait
// for whatever of it runs past that phase's end, added to the step's cycles (every step starts
// on idle engines, so this is the same as starting the experts' phase that much later).
void charge_control(void* user, const uint32_t* counts, const uint32_t* commands) {
  (void)counts;
  ControlCharge& ch = *static_cast<ControlCharge*>(user);
  const uint64_t phase1_end = ch.machine->now();
  const std::vector<ControlSpan> spans = control_spans(std::min(ch.counts_at, phase1_end), ch.plan->model.moe.experts,
                                                       commands, ch.stats, ch.plan->parallel.cores,
                                                       ch.run->cli.control_cores);
  uint64_t end = phase1_end;
  for (const ControlSpan& s : spans) {
    end = std::max(end, s.end);
    ch.commands += s.commands;
    ch.copied += s.copied;
  }
  ch.cycles = end - phase1_end;
}

}  // namespace

// The routing model of a timing-only MoE step: --routing (uniform:0 if not given), its seed
// moved by the layer and micro-batch (uniform:S and zipf:A:S give layer L of micro-batch m the
// seed S + L + 65536 m, so layers and micro-batches route differently). It depends on nothing
// of the chip, so every chip of an expert-parallel group draws the same routing.
std::string step_routing(const RunCli& cli, const ModelStep& s, uint32_t mb) {
  std::string spec = cli.routing.empty() ? "uniform:0" : cli.routing;
  const size_t colon = spec.rfind(':');
  if ((spec.rfind("uniform:", 0) == 0 || spec.rfind("zipf:", 0) == 0) && colon != std::string::npos) {
    uint64_t seed = 0;
    if (parse_decimal_u64(spec.substr(colon + 1), seed)) {
      spec = spec.substr(0, colon + 1) + std::to_string(seed + s.layer + (uint64_t{mb} << 16));
    }
  }
  return spec;
}

bool step_counts(const RunCli& cli, const ModelStep& s, uint32_t mb, std::vector<uint32_t>& counts, std::string& error) {
  return routing_counts(step_routing(cli, s, mb), s.plan, counts, error);
}

bool step_choices(const RunCli& cli, const ModelStep& s, uint32_t mb, std::vector<uint32_t>& choices, std::string& error) {
  return routing_choices(step_routing(cli, s, mb), s.plan, choices, error);
}

namespace {

std::string reuse_key(const ModelStep& s, const std::vector<uint32_t>& counts) {
  std::string k = s.kind == gen::Program::layer ? (s.plan.model.moe_layer ? "moe" : "dense") : s.name;
  // A layer part of a tensor-parallel group: its part, and whether it adds the residual.
  if (s.part != gen::LayerPart::whole) k += (s.part == gen::LayerPart::attention ? ".attn" : ".mlp") + std::string(s.plan.parallel.residual ? ".r" : "");
  if (s.heads_cut) k += ".heads";  // a MoE layer's attention part on the chip's heads (its own plan)
  if (s.kind == gen::Program::head) k += "." + std::to_string(s.plan.parallel.vocab_rank);  // its share of the vocabulary
  const gen::ParallelConfig& par = s.plan.parallel;
  if (par.expert_count == 0) {
    for (uint32_t c : counts) k += "," + std::to_string(c);
    return k;
  }
  // A chip of an expert-parallel group: whether it adds the residual and shared experts, and
  // its own experts' counts (the others run nowhere here); chips with the same local counts run
  // the same commands but for DDR addresses and expert columns.
  k += par.residual ? ".ep.r" : ".ep";
  for (uint32_t e = 0; e < counts.size(); ++e) {
    if (holds_expert(par, s.plan.model.moe.experts, e)) k += "," + std::to_string(counts[e]);
  }
  return k;
}

uint64_t last_end(const ChipRun& ch, const gen::SizedLayer& plan) {
  uint64_t e = 0;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) e = std::max(e, ch.simulator->core_cycles(c));
  return e;
}

void print_step_failure(ModelRun& r, const std::string& name, uint32_t k, Status s) {
  const rt::Report& rep = r.chips[k].runtime->report();
  std::printf("error: step %s: chip %u core %u %s command %u: %s (%s)\n", name.c_str(), k, rep.core,
              cmd::engine_name(rep.engine), rep.command_id, status_name(s), rep.message);
  if (s == Status::rt_deadlock) {
    std::printf("%s", r.system ? r.system->blocked_report().c_str() : r.chips[k].simulator->blocked_report().c_str());
  }
  r.chips[k].runtime->reset();
}

// One compute step on its chip (the others idle meanwhile: chips share nothing while they
// compute). Its cycles into `t`. 0, 1 or 2 (printed).
int run_step(ModelRun& r, const ManifestStep& ms, StepTime& t) {
  uint32_t k = 0;
  const ModelStep* found = plan_of(r, ms, k);
  if (found == nullptr) return usage(r.cli.manifest + ": step " + ms.name + " is not in its chip's plan");
  const ModelStep& ps = *found;
  ChipRun& ch = r.chips[k];
  port::host::ScopedMachine scope(*ch.machine);
  const gen::SizedLayer plan = microbatch_plan(ps, ms.microbatch);
  t.name = ms.name;
  // A layer in two parts: the analytic figures are the whole layer's, counted with its first part (with
  // data-parallel attention each part has its own).
  const bool counted = ps.part != gen::LayerPart::mlp || ps.own_tensors;
  t.flops = counted ? static_cast<double>(plan.flops) : 0.0;
  t.bytes = counted ? static_cast<double>(plan.bytes_ddr) : 0.0;
  std::vector<uint32_t> given;
  std::string error;
  if (ps.two_phase && r.cli.timing_only && !step_counts(r.cli, ps, ms.microbatch, given, error)) return usage(error);
  const std::string key = reuse_key(ps, given);
  if (r.cli.timing_only && !r.cli.no_reuse) {
    if (const auto seen = r.timed.find(key); seen != r.timed.end()) {
      t = seen->second;
      t.name = ms.name;
      t.reused = true;
      return 0;
    }
  }
  std::vector<rt::CoreSubmission> subs;
  if (const int rc = place_step(ch, ms, subs); rc != 0) return rc;
  const uint64_t t0 = ch.machine->now();
  Status s = Status::ok;
  if (!ps.two_phase) {
    s = ch.runtime->submit(Span<const rt::CoreSubmission>(subs.data(), subs.size()));
    if (s == Status::ok) s = ch.runtime->wait();
  } else {
    set_phase2_buffers(ch, plan);
    ControlCharge cc;
    cc.run = &r;
    cc.plan = &plan;
    fw::Hooks hooks;
    hooks.given_counts = given.empty() ? nullptr : given.data();
    cc.machine = ch.machine;
    hooks.counts_landed = counts_landed;
    hooks.after_generate = charge_control;
    hooks.user = &cc;
    hooks.stats = cc.stats;
    std::vector<uint32_t> counts(plan.model.moe.experts, 0);
    gen::GenError ge;
    uint32_t phase = 0;
    const uint64_t counts_addr = sg::kDdrWindowBase + plan.memory[gen::TensorId::expert_tokens].device_addr;
    s = fw::run_moe_layer(*ch.runtime, plan, Span<const rt::CoreSubmission>(subs.data(), subs.size()), counts_addr,
                          counts.data(), &ch.phase2, ge, phase, hooks);
    if (s != Status::ok && phase == 0) {
      std::printf("error: %s: the control core: %s: %s\n", ms.name.c_str(), status_name(s), ge.what);
      return 1;
    }
    t.control = cc.cycles;
    t.commands = cc.commands;
    t.copied = cc.copied;
    double flops = 0, bytes = 0;
    for (uint32_t e = 0; e < counts.size(); ++e) {  // an expert-parallel chip: its own experts' work
      if (!holds_expert(plan.parallel, plan.model.moe.experts, e)) counts[e] = 0;
    }
    routed_figures(plan, counts, flops, bytes);
    t.flops = flops;
    t.bytes = bytes;
  }
  if (s != Status::ok) {
    print_step_failure(r, ms.name, k, s);
    return 1;
  }
  t.cycles = last_end(ch, plan) - std::min(t0, last_end(ch, plan)) + t.control;
  r.timed.emplace(key, t);
  return 0;
}

}  // namespace

rt::CdmaSubmission cdma_submission(const ModelRun& r, uint32_t peer) {
  rt::CdmaSubmission sub;
  sub.peer = peer;
  sub.peer_use_memory_map = true;
  sub.peer_ddr_regions = Span<const cmd::DdrRegion>(r.chips[peer].ddr.data(), r.chips[peer].ddr.size());
  return sub;
}

int run_cdma(ModelRun& r, const std::string& step, std::vector<std::vector<rt::CdmaSubmission>>& subs, uint64_t& cycles) {
  const uint64_t t0 = r.system->now();
  for (uint32_t k = 0; k < r.chips.size(); ++k) {
    if (subs[k].empty()) continue;
    port::host::ScopedMachine scope(*r.chips[k].machine);
    const Status s = r.chips[k].runtime->submit(Span<const rt::CoreSubmission>(),
                                                Span<const rt::CdmaSubmission>(subs[k].data(), subs[k].size()));
    if (s != Status::ok) {
      print_step_failure(r, step, k, s);
      return 1;
    }
  }
  const Status run = r.system->run();
  uint64_t end = t0;
  for (uint32_t k = 0; k < r.chips.size(); ++k) {
    if (subs[k].empty()) continue;
    port::host::ScopedMachine scope(*r.chips[k].machine);
    const Status s = r.chips[k].runtime->poll();
    if (s != Status::ok || run != Status::ok) {
      std::printf("error: step %s: chip %u: %s\n%s", step.c_str(), k, status_name(run == Status::ok ? s : run),
                  r.system->blocked_report().c_str());
      return 1;
    }
    end = std::max(end, r.system->chip_stats(k).cycles);
  }
  cycles = end - t0;
  return 0;
}

namespace {

// A transfer slot: every chip's CDMA streams of the step at once (they share the links).
int run_transfers(ModelRun& r, const ManifestStep& ms, uint64_t& cycles) {
  std::vector<std::vector<rt::CdmaSubmission>> subs(r.chips.size());
  std::vector<uint64_t> at(r.chips.size(), 0);
  for (const ManifestCdma& c : ms.cdma) {
    rt::CdmaSubmission sub = cdma_submission(r, c.peer);
    if (const int rc = place_file(r.chips[c.chip], c.file, at[c.chip], sub.stream); rc != 0) return rc;
    subs[c.chip].push_back(sub);
  }
  return run_cdma(r, ms.name, subs, cycles);
}

// Every slot in order: a compute slot lasts as long as its busiest chip (each chip runs its
// steps of the slot one after the other); a transfer slot as long as its transfers take together.
int run_slots(ModelRun& r) {
  const std::vector<ManifestStep>& steps = r.m.steps;
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j < steps.size() && steps[j].slot == steps[i].slot) ++j;
    for (size_t x = i; x < j; ++x) {  // the reader refuses mixed slots; a step never runs as the other kind
      if ((steps[x].kind == "xfer") != (steps[i].kind == "xfer")) return usage(r.cli.manifest + ": slot mixes transfers and compute");
    }
    if (steps[i].kind == "xfer") {
      // The streams of gen's steps, one after another; then every generated combine of the slot
      // at once (each step reports the time they took together, counted once).
      std::vector<const ManifestStep*> generated;
      for (size_t x = i; x < j; ++x) {
        uint64_t c = 0;
        if (steps[x].alltoall) {
          generated.push_back(&steps[x]);
          continue;
        }
        if (const int rc = run_transfers(r, steps[x], c); rc != 0) return rc;
        r.times.push_back(StepTime{steps[x].name, c});
        r.cycles += c;
        r.comm += c;
      }
      if (!generated.empty()) {
        uint64_t c = 0;
        if (const int rc = run_alltoall(r, generated, c); rc != 0) return rc;
        for (const ManifestStep* ms : generated) r.times.push_back(StepTime{ms->name, c});
        r.cycles += c;
        r.comm += c;
      }
      i = j;
      continue;
    }
    std::vector<uint64_t> busy(r.chips.size(), 0), control(r.chips.size(), 0);
    for (size_t x = i; x < j; ++x) {
      StepTime t;
      if (const int rc = run_step(r, steps[x], t); rc != 0) return rc;
      busy[steps[x].cores.front().chip] += t.cycles;
      control[steps[x].cores.front().chip] += t.control;
      r.times.push_back(t);
    }
    // The slot lasts as long as its busiest chip: its control core's share is what the slot waited.
    const size_t critical = static_cast<size_t>(std::max_element(busy.begin(), busy.end()) - busy.begin());
    const uint64_t slot = busy[critical];
    r.control += control[critical];
    for (uint32_t k = 0; k < r.chips.size(); ++k) {
      r.chips[k].busy += busy[k];
      r.bubble += slot - busy[k];
    }
    r.cycles += slot;
    i = j;
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

// --summary: every step's cycles, each chip's busy share of the run, each link that carried bytes.
void print_summary(const ModelRun& r, const nlohmann::json& rep) {
  for (const StepTime& t : r.times) {
    std::printf("%-24s %12" PRIu64 " cycles", t.name.c_str(), t.cycles);
    if (t.control != 0) std::printf(" (control core %" PRIu64 ")", t.control);
    std::printf("%s\n", t.reused ? " reused" : "");
  }
  std::printf("chip  busy cycles   utilisation\n");
  for (const auto& [chip, c] : rep.at("chips").items()) {
    std::printf("%-5s %-13" PRIu64 " %.1f %%\n", chip.c_str(), c.at("busy_cycles").get<uint64_t>(),
                100.0 * c.at("utilisation").get<double>());
  }
  if (!rep.at("links").empty()) std::printf("link         bytes        busy cycles  utilisation\n");
  for (const auto& [link, l] : rep.at("links").items()) {
    std::printf("%-12s %-12" PRIu64 " %-12" PRIu64 " %.1f %%\n", link.c_str(), l.at("bytes").get<uint64_t>(),
                l.at("busy_cycles").get<uint64_t>(), 100.0 * l.at("utilisation").get<double>());
  }
}

}  // namespace

int run_steps(const RunCli& cli, const Manifest& m) {
  auto r = std::make_unique<ModelRun>(cli, m);
  StagedFiles files;
  if (const int rc = check_targets(cli, m, files); rc != 0) return rc;
  if (const int rc = replan(*r); rc != 0) return rc;
  if (const int rc = build_chips(*r); rc != 0) return rc;
  for (uint32_t k = 0; k < r->chips.size(); ++k) {
    port::host::ScopedMachine scope(*r->chips[k].machine);
    if (const int rc = load_chip(*r, k); rc != 0) return rc;
    r->chips[k].runtime = std::make_unique<rt::Runtime>(runtime_config(*r, k));
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (const int rc = run_slots(*r); rc != 0) {
    files.discard();
    return rc;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const nlohmann::json rep = model_run_report(*r, wall);
  uint64_t hazards = 0;
  for (const ChipRun& ch : r->chips) hazards += ch.simulator->hazard_count();
  if (r->system) hazards += r->system->cross_hazard_count();
  if (hazards > 0) {
    std::fprintf(stderr, "hazards: %" PRIu64 "\n", hazards);
    size_t shown = 0;
    for (uint32_t k = 0; k < r->chips.size(); ++k) {
      for (const std::string& h : r->chips[k].simulator->hazard_messages()) {
        if (shown++ < 5) std::fprintf(stderr, "  chip %u: %s\n", k, h.c_str());
      }
    }
    if (r->system) {
      for (const std::string& h : r->system->cross_hazard_messages()) {
        if (shown++ < 10) std::fprintf(stderr, "  %s\n", h.c_str());
      }
    }
    if (cli.strict) {
      files.discard();
      return 1;
    }
  }
  if (cli.summary) print_summary(*r, rep);
  std::printf("total: %" PRIu64 " cycles, %.6f s (%zu steps on %zu chip%s, timing model %s, %g GHz): %.1f tokens/s, "
              "bound %.6f s, communication %.6f s, bubble %.6f s, control core %.6f s\n",
              rep.at("cycles_total").get<uint64_t>(), rep.at("seconds").get<double>(), r->times.size(), r->chips.size(),
              r->chips.size() > 1 ? "s" : "", cli.timing_model.c_str(), r->chip.clock_ghz, rep.at("tokens_per_second").get<double>(),
              rep.at("bound_seconds").get<double>(), rep.at("comm_seconds").get<double>(),
              rep.at("bubble_seconds").get<double>(), rep.at("control_seconds").get<double>());
  std::vector<std::string> lines;
  std::string error;
  if (!cli.report.empty()) {
    if (!files.write(cli.report, rep.dump(1) + "\n", error)) return usage(error);
    lines.push_back("report: " + cli.report);
  }
  if (const int rc = write_model_outputs(*r, files, lines); rc != 0) return rc;
  if (!files.commit(error)) return usage(error);
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return 0;
}

}  // namespace tilefw::tools
