// `tilefw run`'s options and loaded model, shared by its stages (cmd_run.cpp: load, submit,
// report; run_report.cpp: the figures, the report JSON and the failure lines).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/run_bmodel.hpp"
#include "run/run_input.hpp"
#include "formats/sg2260_manifest.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::tools {

struct RunCli {
  std::string manifest;
  std::string out = ".";
  std::string trace;
  std::string svg;
  std::string order = "core-major";
  std::string seed = "1";  // checked by parse_seed: a decimal integer 0..2^64-1
  bool summary = false;
  std::string report;
  bool strict = false;
  bool timing_only = false;
  std::string timing_model = "v2";
  /// Functional runs: the simulator's work budget (element operations; 0 = none).
  uint64_t max_work = port::host::sg2260::SimOptions::kDefaultMaxWork;
  /// Functional runs: the DDR regions a manifest may declare, in total (MiB).
  uint64_t max_ddr_mib = 1024;
  /// The command streams a run reads and places, in total (MiB): a generated DeepSeek-V3
  /// prefill layer holds about 1 GB of them.
  uint64_t max_stream_mib = kDefaultMaxStreamMib;
  static constexpr uint64_t kDefaultMaxStreamMib = 256;
  /// Simulated cycles the runtime waits for the streams (the host has no device deadline; a
  /// full-size prefill layer runs for seconds of device time).
  uint64_t timeout_cycles = 100'000'000'000ull;
  BmodelRunOptions bmodel;  // --bmodel, --input, --fill-seed (tools/run/run_bmodel.cpp)
  /// Timing-only runs of a MoE layer in two phases: the routing model (moe_phases.hpp).
  std::string routing;
  /// Control cores of the chip that generate the experts' phase: one per TPU core, as SG2260's
  /// published kernels run (docs/moe-phases.md, "The control core's time").
  uint32_t control_cores = 8;
  /// Where the experts' phase runs each routed expert: "balanced" (the default: spread over the
  /// ep cores by load) or "owner" (each on core e mod ep).
  std::string expert_placement = "balanced";
  /// --system FILE.json: the system of chips, replacing the manifest's "system".
  std::string system;
  /// A whole model, timing-only: simulate every step instead of reusing the timing of an
  /// earlier step of the same kind (run_steps.cpp).
  bool no_reuse = false;
  /// A whole model: a chip what-if replacing the manifest's (formats/chip_config.hpp).
  std::string chip_config;
};

/// The run input with the sizes of its command streams (checked against the limits);
/// load_streams places the streams in the simulated DDR the engines fetch from.
struct Model {
  RunInput input;
  uint64_t stream_bytes[8][kManifestEngines] = {};  // by core, engine (0: none)
  ConstByteSpan placed[8][kManifestEngines] = {};  // the streams in the simulated DDR (load_streams)
};


/// run_report.cpp
/// The failure line(s) of a run. A submission the runtime refused is reported as `tilefw
/// validate` reports it, naming the stream of `model` (nullptr: streams the run generated).
void print_failure(Status s, const rt::Runtime& runtime, const port::host::sg2260::Simulator& simulator,
                   const Model* model);
/// Hazards to stderr (the first messages and the count). true when --strict must fail.
bool report_hazards(const RunCli& cli, const port::host::sg2260::Simulator& simulator);
/// MoE capacity drops (Rule: capacity, docs/generator.md section 3): null when not applicable.
nlohmann::json dropped_tokens(const RunCli& cli, const Model& model, port::host::Machine& machine);
nlohmann::json make_report(const RunCli& cli, const Model& model, const port::host::sg2260::Simulator& simulator,
                           uint64_t makespan, double wall);

}  // namespace tilefw::tools
