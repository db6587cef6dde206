// `tilefw run`: what a run reports (docs/cli.md section 5): the failure lines, hazards,
// MoE capacity drops and the --report JSON with the manifest's model figures.
#include <algorithm>
#include <cstring>
#include <cinttypes>
#include <cstdio>
#include <set>

#include "machine.hpp"
#include "run/run_model.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;
namespace regs = chip::sg2260::regs;
const char* const* const kEngines = kManifestEngineNames;

double report_number(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : static_cast<double>(manifest_number(j));
}

// Classes of the streams that the timing model has no formula for (they cost 1 cycle; the
// same classes in v1 and v2). HAU syncs are costed (timing_v1::kSysCycles).
std::vector<std::string> uncosted_classes(const Model& model) {
  std::set<std::string> names;
  for (const RunCore& rc : model.input.cores) {
    for (uint32_t e = 0; e < 3; ++e) {
      cmd::Walker w(static_cast<cmd::Engine>(e), model.placed[rc.core][e]);
      cmd::Command c;
      while (w.next(c)) {
        uint64_t cycles = 0, bytes = 0, ops = 0;
        if (!sim::command_cost(e, c.data, cycles, bytes, ops)) names.insert(cmd::class_name(c.cls));
      }
    }
  }
  return {names.begin(), names.end()};
}

// The manifest's report figures: tflops, mfu, bound_seconds, tokens_per_second (the reader
// checked their types).
void add_model_figures(const Model& model, double seconds, nlohmann::json& out) {
  const nlohmann::json& r = model.input.report;
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
// The runtime refused a stream at submission: the line `tilefw validate` would give (status,
// command id, byte offset, stream, reason and field).
void print_refusal(const rt::Report& r, const Model& model) {
  const uint32_t e = static_cast<uint32_t>(r.engine);
  std::string stream = "core " + std::to_string(r.core);
  for (const RunCore& c : model.input.cores) {
    if (c.core == r.core) stream = c.stream[e].shown;
  }
  std::string reason = r.message;
  if (r.field != nullptr && r.field[0] != '\0') reason += std::string(" (") + r.field + ")";
  std::printf("error: core %u %s command %u: %s at byte offset %zu of %s: %s\n", r.core, kEngines[e], r.command_id,
              status_name(r.status), r.offset, stream.c_str(), reason.c_str());
}
}  // namespace

// A deadlock or a timeout often follows a fault on another engine or core: the headline then
// names the faulted engine, its command and fault, and the engines left blocked follow.
void print_failure(Status s, const rt::Runtime& runtime, const sim::Simulator& simulator, const Model* model) {
  const rt::Report& r = runtime.report();
  if (r.refused && model != nullptr) {
    print_refusal(r, *model);
    return;
  }
  uint32_t core = r.core, engine = static_cast<uint32_t>(r.engine);
  if (s == Status::rt_deadlock || s == Status::rt_timeout) {
    for (uint32_t i = 0; i < sg::kCores * regs::kEngines; ++i) {
      if (simulator.state(i / regs::kEngines, i % regs::kEngines) != regs::kFault) continue;
      core = i / regs::kEngines;
      engine = i % regs::kEngines;
      std::printf("error: core %u %s command %u: %s (engine fault; then %s)\n", core, kEngines[engine],
                  simulator.fault_command(core, engine), status_name(simulator.fault_code(core, engine)), status_name(s));
      break;
    }
  }
  if (core == r.core && engine == static_cast<uint32_t>(r.engine)) {
    std::printf("error: core %u %s command %u: %s (%s)", r.core, cmd::engine_name(r.engine), r.command_id,
                status_name(s), r.message);
    if (r.device_code != Status::ok) std::printf(", fault code %s", status_name(r.device_code));
    std::printf("\n");
  }
  if (s == Status::rt_deadlock) std::printf("engines at the deadlock:\n%s", simulator.blocked_report().c_str());
  const std::string& detail = simulator.fault_message(core, engine);
  if (!detail.empty()) std::printf("  %s\n", detail.c_str());
}

bool report_hazards(const RunCli& cli, const sim::Simulator& simulator) {
  const uint64_t n = simulator.hazard_count();
  if (n == 0) return false;
  for (const std::string& m : simulator.hazard_messages()) std::fprintf(stderr, "%s\n", m.c_str());
  std::fprintf(stderr, "%" PRIu64 " hazard%s (first %zu shown)\n", n, n == 1 ? "" : "s",
               simulator.hazard_messages().size());
  if (cli.strict) std::printf("error: %" PRIu64 " hazards with --strict: no outputs written\n", n);
  return cli.strict;
}

// MoE capacity (Rule: capacity, docs/generator.md section 3): when the manifest's report has `capacity` and the
// layer outputs `expert_tokens` (tokens routed to each expert), tokens beyond an expert's
// capacity were dropped: reported on stderr and in the run report, never silently. The counts
// are read in place (the output lies inside its region: the manifest reader checked it).
nlohmann::json dropped_tokens(const RunCli& cli, const Model& model, port::host::Machine& machine) {
  const nlohmann::json& rep = model.input.report;
  if (cli.timing_only || !rep.is_object() || !rep.contains("capacity")) return nullptr;
  for (const RunTensor& t : model.input.outputs) {
    if (t.name != "expert_tokens") continue;
    const uint64_t n = t.bytes / 4;
    // One count per expert (a few hundred): a manifest declaring a huge expert_tokens output
    // (256 MiB) made this report a list of 64 M numbers (past 2.2 GiB). Bounded, else not made.
    constexpr uint64_t kMaxCounts = uint64_t{1} << 16;
    if (n > kMaxCounts) {
      std::fprintf(stderr, "tilefw run: expert_tokens holds %" PRIu64 " counts (more than %" PRIu64
                           "): no dropped-token report\n", n, kMaxCounts);
      return nullptr;
    }
    Result<uint8_t*> p = machine.translate(sg::kDdrWindowBase + t.device_addr, n * 4 + (n == 0 ? 1 : 0));
    if (!p.ok()) return nullptr;
    const double cap = report_number(rep.at("capacity"));
    // One count per expert for the whole request (passes number the slots across them);
    // several rows (older manifests: one per chunk) are each held against the capacity.
    const double experts = rep.contains("experts") ? report_number(rep.at("experts")) : 0;
    const uint64_t E = experts >= 1 && experts <= 1e9 && n % static_cast<uint64_t>(experts) == 0
                           ? static_cast<uint64_t>(experts) : (n == 0 ? 1 : n);
    std::vector<uint64_t> dropped(E, 0);
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; ++i) {
      float c;
      std::memcpy(&c, p.value() + 4 * i, 4);
      const uint64_t d = c > cap && c - cap < 1.8e19 ? static_cast<uint64_t>(c - cap) : 0;
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

nlohmann::json make_report(const RunCli& cli, const Model& model, const sim::Simulator& simulator, uint64_t makespan,
                           double wall) {
  nlohmann::json j;
  j["timing_model"] = cli.timing_model;
  j["clock_hz"] = sg::kClockHz;
  j["cycles_total"] = makespan;
  uint32_t cores = 0;
  for (const RunCore& c : model.input.cores) cores = std::max(cores, c.core + 1);
  std::vector<uint64_t> per_core(cores, 0);
  nlohmann::json busy = nlohmann::json::object();
  for (const RunCore& c : model.input.cores) {
    per_core[c.core] = simulator.core_cycles(c.core);
    for (uint32_t e = 0; e < kManifestEngines; ++e) {
      if (e == 3 && !c.stream[e].given) continue;  // "N.hau" only for a core with a HAU stream
      busy[std::to_string(c.core) + "." + kEngines[e]] = simulator.stats(c.core, e).busy_cycles;
    }
  }
  j["cycles_per_core"] = per_core;
  j["busy_per_engine"] = busy;
  j["commands"] = simulator.commands_executed();
  j["hazard_check"] = !cli.timing_only;
  j["hazards"] = simulator.hazard_count();
  j["work"] = simulator.work_done();
  j["wall_seconds"] = wall;
  j["sim_commands_per_second"] = wall > 0 ? static_cast<double>(simulator.commands_executed()) / wall : 0.0;
  const double seconds = static_cast<double>(makespan) / static_cast<double>(sg::kClockHz);
  j["seconds"] = seconds;
  j["uncosted"] = uncosted_classes(model);
  add_model_figures(model, seconds, j);
  return j;
}

}  // namespace tilefw::tools
