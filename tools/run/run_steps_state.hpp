// The state of a whole-model run (run_steps.cpp runs the slots, run_chips.cpp sets up the
// chips, run_steps_report.cpp reports and writes the outputs).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/staged_files.hpp"
#include "formats/chip_config.hpp"
#include "formats/sg2260_manifest.hpp"
#include "gen/model_plan.hpp"
#include "machine.hpp"
#include "run/chip_memory.hpp"
#include "run/run_model.hpp"
#include "sg2260/sim.hpp"
#include "sg2260/system.hpp"
#include "tilefw/fw/moe_layer.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::tools {

namespace sim = port::host::sg2260;

struct StepTime {
  std::string name;
  uint64_t cycles = 0, control = 0, commands = 0;
  uint64_t copied = 0;  // of `commands` (the control core's), those copied from earlier expert blocks
  bool reused = false;
  double flops = 0, bytes = 0;
};

// One chip: its machine and simulator (its own, or the system's), memory map and runtime.
struct ChipRun {
  port::host::Machine* machine = nullptr;
  sim::Simulator* simulator = nullptr;
  std::vector<cmd::DdrRegion> ddr;
  bool used_tag[32] = {};
  uint8_t* streams = nullptr;  // the step's streams (CPU view) and their device address
  uint64_t streams_addr = 0, streams_bytes = 0;
  uint64_t streams_room = 0;   // the whole region: a transfer slot's generated streams may use it all
  fw::PhaseBuffers phase2;     // the experts' phase, sized for the worst case (every expert on its capacity)
  std::vector<uint64_t> copy_plans;                 // phase2.copy_plans
  std::vector<uint8_t> checked[gen::kMaxCores][2];  // phase2.checked
  std::unique_ptr<rt::Runtime> runtime;
  uint64_t busy = 0;           // cycles of its steps
};

struct ModelRun {
  const RunCli& cli;
  const Manifest& m;
  std::vector<ModelPlan> stages;  // the generator's plans, one per pipeline stage
  ModelLayout layout;
  ChipWhatIf chip;  // the manifest's chip what-if, or --chip-config's
  std::unique_ptr<port::host::Machine> own_machine;  // one chip
  std::unique_ptr<sim::Simulator> own_simulator;
  std::unique_ptr<sim::System> system;               // several chips
  std::vector<ChipRun> chips;
  std::vector<StepTime> times;
  std::map<std::string, StepTime> timed;  // reuse key -> the first timing
  uint64_t cycles = 0, comm = 0, bubble = 0, control = 0;
  explicit ModelRun(const RunCli& c, const Manifest& man) : cli(c), m(man) {}
};

/// The routing model of a timing-only MoE step `s` of micro-batch `mb`: --routing with its
/// seed moved by the layer and micro-batch (run_steps.cpp). The same on every chip of a group.
std::string step_routing(const RunCli& cli, const ModelStep& s, uint32_t mb);
/// Its per-expert counts (routing_counts), and its per-token top-k expert ids (routing_choices,
/// token-major [T * top_k]) of which the counts are the histogram. false with `error`.
bool step_counts(const RunCli& cli, const ModelStep& s, uint32_t mb, std::vector<uint32_t>& counts, std::string& error);
bool step_choices(const RunCli& cli, const ModelStep& s, uint32_t mb, std::vector<uint32_t>& choices, std::string& error);

/// Exit 2 with the message on stderr.
int steps_usage(const std::string& what);

// The transfers between chips (run_steps.cpp, run_alltoall.cpp); each int is 0 or exit 1 (the
// failure on stdout, as a step's).
/// A CDMA port stream's submission to `peer`, checked against the peer's memory map.
rt::CdmaSubmission cdma_submission(const ModelRun& r, uint32_t peer);
/// Every chip's port streams `subs[chip]` submitted at once and run on the system to the end of
/// all of them; `cycles` the time that took. `step` names a failure.
int run_cdma(ModelRun& r, const std::string& step, std::vector<std::vector<rt::CdmaSubmission>>& subs, uint64_t& cycles);
/// The transfer steps of one slot generated at run time (manifest "alltoall" steps): the
/// token-selective combines of expert-parallel groups from the routing their MoE parts stored
/// (run_alltoall.cpp), the groups' rounds run together (their chips are disjoint). `cycles`:
/// their transfers' time; the control cores' validation of each round's streams before it
/// starts goes to r.cycles and r.control.
int run_alltoall(ModelRun& r, const std::vector<const ManifestStep*>& steps, uint64_t& cycles);

// The chips (run_chips.cpp); each int is 0 or exit 2 (the message on stderr).
/// Every chip's machine and simulator: one of its own, or the system's.
int build_chips(ModelRun& r);
/// Chip k's regions, their first bytes, its inputs' parts; one region for a step's streams and
/// an experts' phase.
int load_chip(ModelRun& r, uint32_t k);
/// A file's bytes into the chip's streams region at `at` (moved past them, 256-byte aligned).
int place_file(ChipRun& ch, const std::string& file, uint64_t& at, rt::EngineStream& es);
/// A compute step's stream files into its chip's streams region.
int place_step(ChipRun& ch, const ManifestStep& s, std::vector<rt::CoreSubmission>& subs);
/// The experts' phase's buffers of a chip, after the step's streams.
void set_phase2_buffers(ChipRun& ch, const gen::SizedLayer& plan);
/// The runtime configuration of chip k.
rt::Config runtime_config(const ModelRun& r, uint32_t k);
/// The run report (docs/whole-model.md: seconds, bound, communication, bubble, control, chips, links).
nlohmann::json model_run_report(const ModelRun& r, double wall);
/// Each output whole into --out, its parts gathered from their chips. 0 or exit 2.
int write_model_outputs(ModelRun& r, StagedFiles& files, std::vector<std::string>& lines);

}  // namespace tilefw::tools
