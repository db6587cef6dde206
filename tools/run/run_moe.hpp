// `tilefw run` on a MoE layer in two phases: the firmware composition fw::run_moe_layer, driven
// against the host simulator. The host adds what firmware does not need: the counts of a
// routing model in timing-only runs, a DDR region sized exactly for the experts' phase, the
// control core's time on the simulated clock, op labels and the report's figures.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "machine.hpp"
#include "run/moe_phases.hpp"
#include "formats/op_labels.hpp"
#include "run/run_model.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/fw/moe_layer.hpp"

namespace tilefw::tools {

struct TwoPhaseRun {
  TwoPhaseRun(const RunCli& c, Model& m, port::host::Machine& mach, port::host::sg2260::Simulator& sim,
              bool (&tags)[32])
      : cli(c), model(m), machine(mach), simulator(sim), used_tag(tags) {}
  const RunCli& cli;
  Model& model;
  port::host::Machine& machine;
  port::host::sg2260::Simulator& simulator;
  bool (&used_tag)[32];
  // Filled by the run:
  gen::SizedLayer plan;
  fw::PhaseBuffers buffers;
  std::vector<uint64_t> copy_plans;              // buffers.copy_plans
  std::vector<uint8_t> checked[gen::kMaxCores][2];  // buffers.checked
  std::vector<ControlSpan> control;
  uint64_t counts_at = 0;   // cycle the counts were in DDR (the control cores start there)
  uint64_t phase1_end = 0;  // cycle the routing phase ended on every core
  OpLabels ops;                    // the experts' phase's ops
  size_t experts_from = SIZE_MAX;  // its first trace record
  uint64_t commands = 0;
  uint64_t copied = 0;             // of them copied from earlier expert blocks
  gen::PhaseStats stats[gen::kMaxCores];
  nlohmann::json report;           // routing, control figures, flops / bytes of what ran
};

/// Plans the layer from the manifest, runs both phases through the runtime (the phase-1
/// streams in `subs` validated by the caller) and fills `run`. 0, 1 (a stream, the counts or
/// the generation failed: printed) or 2 (a usage error: printed).
int run_two_phases(TwoPhaseRun& run, rt::Runtime& runtime, const std::vector<rt::CoreSubmission>& subs);

}  // namespace tilefw::tools
