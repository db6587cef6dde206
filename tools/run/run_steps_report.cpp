// A whole-model run's report and outputs (run_steps_state.hpp).
#include <filesystem>

#include "run/run_steps_state.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
int usage(const std::string& what) { return steps_usage(what); }
}  // namespace

nlohmann::json model_run_report(const ModelRun& r, double wall) {
  const double hz = r.chip.clock_ghz * 1e9;  // cycles are the chip's (what-if) clock's
  double flops = 0, bytes = 0;
  uint64_t commands = 0, copied = 0;
  nlohmann::json steps = nlohmann::json::array();
  for (const StepTime& t : r.times) {
    flops += t.flops;
    bytes += t.bytes;
    commands += t.commands;
    copied += t.copied;
    steps.push_back({{"name", t.name}, {"cycles", t.cycles}, {"control_cycles", t.control},
                     {"control_commands", t.commands}, {"control_commands_copied", t.copied}, {"reused", t.reused},
                     {"flops", t.flops}, {"bytes_ddr", t.bytes}});
  }
  const nlohmann::json& rep = r.m.report;
  const std::string dtype = rep.is_object() && rep.contains("dtype") ? rep.at("dtype").get<std::string>() : "bf16";
  // The peak follows the clock (the MM2's MACs per cycle are the chip's).
  const double peak = sg::peak_flops(dtype.c_str()) * r.chip.clock_ghz, seconds = r.cycles / hz;
  const double ddr_bw = r.chip.ddr_gbytes_per_s * 1e9;
  const gen::InferenceConfig& in = r.stages.front().inference;
  const double tokens = static_cast<double>(r.layout.batch) * (in.phase == gen::Phase::decode ? 1.0 : in.seq);
  // The bound: the largest over chips of max(its FLOPs / peak, its DDR bytes / bandwidth), and
  // over links of their bytes / link bandwidth.
  std::vector<double> chip_flops(r.chips.size(), 0), chip_bytes(r.chips.size(), 0);
  for (size_t i = 0, x = 0; i < r.m.steps.size(); ++i) {
    const ManifestStep& ms = r.m.steps[i];
    if (ms.kind == "xfer") {
      ++x;
      continue;
    }
    chip_flops[ms.cores.front().chip] += r.times[x].flops;
    chip_bytes[ms.cores.front().chip] += r.times[x].bytes;
    ++x;
  }
  double bound = 0;
  nlohmann::json chips = nlohmann::json::object();
  for (uint32_t k = 0; k < r.chips.size(); ++k) {
    bound = std::max(bound, std::max(peak > 0 ? chip_flops[k] / peak : 0.0, chip_bytes[k] / ddr_bw));
    nlohmann::json c = {{"busy_cycles", r.chips[k].busy},
                        {"utilisation", r.cycles ? static_cast<double>(r.chips[k].busy) / r.cycles : 0.0},
                        {"flops", chip_flops[k]}, {"bytes_ddr", chip_bytes[k]}};
    if (rep.is_object() && rep.contains("ddr_bytes") && rep.at("ddr_bytes").contains(std::to_string(k))) {
      c["ddr_bytes"] = rep.at("ddr_bytes").at(std::to_string(k));
    }
    chips[std::to_string(k)] = c;
  }
  nlohmann::json links = nlohmann::json::object();
  if (r.system) {
    const cmd::Topology& t = r.system->topology();
    const double link_bw = r.m.system.link_gbytes_per_s * 1e9;
    for (uint32_t d = 0; d < t.directed_link_count(); ++d) {
      const sim::LinkStats l = r.system->link_stats(d);
      if (l.bytes == 0) continue;
      bound = std::max(bound, static_cast<double>(l.bytes) / link_bw);
      const auto name = [&](uint32_t v) { return t.is_switch(v) ? std::string("switch") : std::to_string(v); };
      links[name(t.directed_source(d)) + "->" + name(t.directed_target(d))] = {
          {"bytes", l.bytes}, {"busy_cycles", l.busy_cycles},
          {"utilisation", r.cycles ? static_cast<double>(l.busy_cycles) / r.cycles : 0.0}};
    }
  }
  return {{"kind", "model"},
          {"phase", in.phase == gen::Phase::decode ? "decode" : "prefill"},
          {"cycles_total", r.cycles},
          {"seconds", seconds},
          {"tokens_per_second", seconds > 0 ? tokens / seconds : 0.0},
          {"flops", flops},
          {"bytes_ddr", bytes},
          {"mfu", seconds > 0 && peak > 0 ? flops / seconds / (peak * r.chips.size()) : 0.0},
          {"bound_seconds", bound},
          {"comm_seconds", r.comm / hz},
          {"bubble_seconds", r.chips.empty() ? 0.0 : r.bubble / hz / r.chips.size()},
          {"control_seconds", r.control / hz},
          {"control_commands", commands},
          {"control_commands_copied", copied},
          {"chips", chips},
          {"links", links},
          {"layout", {{"chips", r.layout.chips}, {"tp", r.layout.tp}, {"pp", r.layout.stages}, {"dp", r.layout.replicas},
                      {"ep", r.layout.expert_group ? r.layout.tp : 1}, {"microbatches", r.layout.microbatches}}},
          {"timing_model", r.cli.timing_model},
          {"chip_config", chip_config_json(r.chip)},
          {"wall_seconds", wall},
          {"steps", steps}};
}

// Each output whole: its parts gathered from their chips.
int write_model_outputs(ModelRun& r, StagedFiles& files, std::vector<std::string>& lines) {
  std::string error;
  if (r.cli.timing_only) return 0;
  std::error_code ec;
  fs::create_directories(r.cli.out, ec);
  for (const ManifestTensor& t : r.m.outputs) {
    std::vector<uint8_t> whole(t.bytes);
    for (uint32_t k = 0; k < r.chips.size(); ++k) {
      int rc = 0;
      for_parts_on(t, k, [&](uint64_t addr, uint64_t offset, uint64_t bytes) {
        const Result<uint8_t*> p = r.chips[k].machine->translate(sg::kDdrWindowBase + addr, std::max<uint64_t>(bytes, 1));
        if (!p.ok()) {
          rc = usage("output " + t.name + " lies outside chip " + std::to_string(k) + "'s DDR regions");
          return;
        }
        std::copy(p.value(), p.value() + bytes, whole.begin() + static_cast<long>(offset));
      });
      if (rc != 0) return rc;
    }
    const std::string path = (fs::path(r.cli.out) / (t.name + ".dat")).string();
    if (!files.write(path, whole.data(), whole.size(), error)) return usage(error);
    lines.push_back("wrote " + path + " (" + std::to_string(t.bytes) + " bytes)");
  }
  return 0;
}

}  // namespace tilefw::tools
