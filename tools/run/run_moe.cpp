// A MoE layer's two phases on the host simulator (run_moe.hpp).
#include "run/run_moe.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "run/chip_memory.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;

// fw hook: once the counts are known, a DDR region of its own sized exactly for the phase.
Status place_phase(void* user, const uint32_t* counts, const fw::PhaseBuffers*& out) {
  TwoPhaseRun& run = *static_cast<TwoPhaseRun*>(user);
  gen::PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = counts;
  req.owner_placement = run.cli.expert_placement == "owner";
  uint64_t sizes[gen::kMaxCores][gen::kEngines] = {};
  uint64_t total = 0;
  for (uint32_t c = 0; c < run.plan.parallel.cores; ++c) {
    uint32_t n[gen::kEngines] = {};
    gen::GenError ge;
    TILEFW_TRY(gen::size_phase(run.plan, c, req, sizes[c], n, ge));
    for (uint64_t b : sizes[c]) total += (b + 255) / 256 * 256;
    for (uint32_t e = 0; e < 2; ++e) {
      run.checked[c][e].assign((n[e] + 7) / 8, 0);
      run.buffers.checked[c][e] = Span<uint8_t>(run.checked[c][e].data(), run.checked[c][e].size());
    }
  }
  run.copy_plans.assign(gen::kCopyPlanWords, 0);
  run.buffers.copy_plans = Span<uint64_t>(run.copy_plans.data(), run.copy_plans.size());
  const uint32_t tag = free_ddr_tag(run.used_tag);
  if (run.used_tag[tag]) return Status::capacity_exceeded;
  TILEFW_TRY(run.machine.add_region(sg::ddr_region(tag, 0, std::max<uint64_t>(total, 256))));
  run.used_tag[tag] = true;
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(tag, 0);
  uint64_t off = 0;
  for (uint32_t c = 0; c < run.plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < gen::kEngines; ++e) {
      const Result<uint8_t*> p = run.machine.translate(base + off, std::max<uint64_t>(sizes[c][e], 1));
      if (!p.ok()) return p.status();
      run.buffers.stream[c][e] = ByteSpan(p.value(), static_cast<size_t>(sizes[c][e]));
      run.buffers.device_addr[c][e] = base + off;
      off += (sizes[c][e] + 255) / 256 * 256;
    }
  }
  out = &run.buffers;
  return Status::ok;
}

// fw hook: the counts are in DDR (every core's GDMA stored them): the control cores start.
void counts_landed(void* user) {
  TwoPhaseRun& run = *static_cast<TwoPhaseRun*>(user);
  run.counts_at = run.machine.now();
}

// fw hook: the control cores read the counts and generated the phase from when the counts
// landed, while the engines ran the rest of the routing phase (the shared experts); the
// experts' phase starts when both are done.
void charge_control_core(void* user, const uint32_t* counts, const uint32_t* commands) {
  (void)counts;
  TwoPhaseRun& run = *static_cast<TwoPhaseRun*>(user);
  uint64_t end = 0;
  for (uint32_t c = 0; c < run.plan.parallel.cores; ++c) {
    end = std::max(end, run.simulator.core_cycles(c));
    run.commands += commands[c];
    run.copied += run.stats[c].commands_copied;
  }
  run.phase1_end = end;
  run.control = control_spans(std::min(run.counts_at, end), run.plan.model.moe.experts, commands, run.stats,
                              run.plan.parallel.cores, run.cli.control_cores);
  uint64_t start = end;
  for (const ControlSpan& s : run.control) start = std::max(start, s.end);
  if (run.machine.now() < start) run.machine.advance(start - run.machine.now());
  run.experts_from = run.simulator.trace().size();
}

int usage(const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s\n", what.c_str());
  return 2;
}

}  // namespace

int run_two_phases(TwoPhaseRun& run, rt::Runtime& runtime, const std::vector<rt::CoreSubmission>& subs) {
  std::string error;
  const RunInput& in = run.model.input;
  if (!layer_from_manifest(in.moe_phases, in.moe_config, run.plan, error)) return usage(in.source + ": " + error);
  const uint32_t E = run.plan.model.moe.experts;
  std::vector<uint32_t> given, counts(E, 0);
  uint64_t counts_addr = 0;
  std::string source = "computed";
  const RunTensor* t = nullptr;
  for (const RunTensor& o : in.outputs) {
    if (o.name == "expert_tokens" && o.bytes >= uint64_t{E} * 4) t = &o;
  }
  if (run.cli.timing_only) {  // no data: the routing comes from a model
    source = run.cli.routing.empty() ? "uniform:0" : run.cli.routing;
    if (!routing_counts(source, run.plan, given, error)) return usage(error);
  } else if (t == nullptr) {
    return usage(in.source + ": moe_phases: no output \"expert_tokens\" with one count per expert");
  }
  // The control core waits for the stores of the counts (timing-only too: the same streams).
  if (t != nullptr) counts_addr = sg::kDdrWindowBase + t->device_addr;
  fw::Hooks hooks;
  hooks.given_counts = given.empty() ? nullptr : given.data();
  hooks.buffers_for = place_phase;
  hooks.counts_landed = counts_landed;
  hooks.after_generate = charge_control_core;
  hooks.user = &run;
  hooks.ops = run.ops.sink();
  hooks.owner_placement = run.cli.expert_placement == "owner";
  hooks.stats = run.stats;
  gen::GenError ge;
  uint32_t phase = 0;
  const Status s = fw::run_moe_layer(runtime, run.plan, Span<const rt::CoreSubmission>(subs.data(), subs.size()),
                                     counts_addr, counts.data(), nullptr, ge, phase, hooks);
  if (s != Status::ok) {
    if (phase == 0) {
      std::printf("error: the control core, after the routing phase: %s: %s %" PRIu64 "\n", status_name(s), ge.what,
                  ge.value);
    } else {
      if (phase == 2) std::printf("error: in the experts' phase (generated after routing):\n");
      print_failure(s, runtime, run.simulator, phase == 1 ? &run.model : nullptr);
      runtime.reset();
    }
    return 1;
  }
  double flops = 0, bytes = 0;
  routed_figures(run.plan, counts, flops, bytes);
  if (run.model.input.report.is_object()) {  // the bound and MFU count what ran
    run.model.input.report["flops"] = flops;
    run.model.input.report["bytes_ddr"] = bytes;
  }
  uint64_t busy = 0, waited = 0;
  for (const ControlSpan& c : run.control) {  // the engines wait only past the routing phase's end
    busy = std::max(busy, c.end - c.start);
    waited = std::max(waited, c.end > run.phase1_end ? c.end - run.phase1_end : 0);
  }
  const double hz = static_cast<double>(sg::kClockHz);
  run.report = {{"routing", {{"model", source}, {"expert_tokens", counts}}},
                {"control_commands", run.commands},
                {"control_commands_copied", run.copied},
                {"control_cores", run.cli.control_cores},
                {"control_busy_seconds", static_cast<double>(busy) / hz},
                {"control_seconds", static_cast<double>(waited) / hz},
                {"flops", flops},
                {"bytes_ddr", bytes}};
  std::printf("experts' phase: routing %s, %" PRIu64 " commands generated on the control core (%" PRIu64
              " copied from earlier expert blocks; %" PRIu64 " cycles)\n",
              source.c_str(), run.commands, run.copied, busy);
  return 0;
}

}  // namespace tilefw::tools
