// The chips of a whole-model run (run_steps.cpp): their machines and simulators, memory maps,
// the DDR region that holds a step's command streams and an experts' phase, and the runtime
// configuration each chip's runtime takes.
#include <algorithm>

#include "common/input_files.hpp"
#include "run/run_steps_state.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;

uint64_t round256(uint64_t v) { return (v + 255) / 256 * 256; }
}  // namespace

// The chips' machines and simulators: one of its own, or the system's.
int build_chips(ModelRun& r) {
  sim::SimOptions so;
  so.functional = !r.cli.timing_only;
  so.timing = r.cli.timing_model == "v1" ? sim::TimingModel::v1 : sim::TimingModel::v2;
  so.max_work = r.cli.max_work;
  so.ddr_bytes_per_cycle = r.chip.ddr_bytes_per_cycle();
  so.l2_bytes_per_cycle = r.chip.l2_bytes_per_cycle();
  r.chips.resize(r.layout.chips);
  if (r.layout.chips == 1) {
    r.own_machine = std::make_unique<port::host::Machine>(port::host::kProfileSg2260);
    r.own_simulator = std::make_unique<sim::Simulator>(*r.own_machine, so);
    r.chips[0].machine = r.own_machine.get();
    r.chips[0].simulator = r.own_simulator.get();
    return 0;
  }
  sim::SystemOptions o;
  o.chips = r.m.system.chips;
  o.topology = r.m.system.topology_or_default();
  // The system counts in 1 GHz cycles: at another chip clock the link figures are given as the
  // 1 GHz figures that take the same number of that clock's cycles.
  const double ghz = r.chip.clock_ghz;
  o.c2c.link_gbytes_per_s = r.m.system.link_gbytes_per_s / ghz;
  o.c2c.link_latency_ns = r.m.system.link_latency_ns * ghz;
  o.c2c.alpha_ns = r.m.system.alpha_ns * ghz;
  o.c2c.beta_ns = r.m.system.beta_ns * ghz;
  o.sim = so;
  r.system = std::make_unique<sim::System>(o);
  if (r.system->status() != Status::ok) return steps_usage("system: " + r.system->message());
  for (uint32_t k = 0; k < r.layout.chips; ++k) {
    r.chips[k].machine = &r.system->machine(k);
    r.chips[k].simulator = &r.system->simulator(k);
  }
  return 0;
}

// Chip k's regions, their first bytes, its inputs' parts; a region for one step's streams and
// one for an experts' phase. 0 or exit 2.
int load_chip(ModelRun& r, uint32_t k) {
  ChipRun& ch = r.chips[k];
  std::string error;
  if (!load_chip_memory(r.m, k, r.cli.timing_only, *ch.machine, ch.ddr, ch.used_tag, error)) return steps_usage(error);
  uint64_t most = 256, phase2 = 256;
  for (const ManifestStep& s : r.m.steps) {
    uint64_t n = 0;
    for (const ManifestCore& c : s.cores) {
      for (int e = 0; e < 3 && c.chip == k; ++e) {
        uint64_t size = 0;
        if (!c.file[e].empty() && !regular_file_size(c.file[e], size, error)) return steps_usage(error);
        if (size > kMaxStreamBytes) return steps_usage(c.file[e] + ": larger than a stream can be");
        n += round256(size);
      }
    }
    for (const ManifestCdma& c : s.cdma) {
      uint64_t size = 0;
      if (c.chip == k && !regular_file_size(c.file, size, error)) return steps_usage(error);
      n += round256(size);
    }
    most = std::max(most, n);
  }
  for (const ModelStep& s : r.stages[r.layout.plan_of(k)].steps) {
    if (!s.two_phase) continue;
    uint64_t n = 0;
    for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
      for (uint32_t e = 0; e < gen::kEngines; ++e) n += round256(s.plan.stream_bytes[c][e]);
    }
    phase2 = std::max(phase2, n);
  }
  if (most + phase2 > (r.cli.max_stream_mib << 20)) {
    const uint64_t need_mib = (most + phase2 + (uint64_t{1} << 20) - 1) >> 20;
    return steps_usage("the largest step's streams (" + std::to_string(most + phase2) + " bytes) exceed --max-stream-mib " +
                       std::to_string(r.cli.max_stream_mib) + ": this run needs --max-stream-mib " +
                       std::to_string(need_mib) + " or more");
  }
  const uint32_t tag = free_ddr_tag(ch.used_tag);
  if (tag == 0 || ch.machine->add_region(sg::ddr_region(tag, 0, most + phase2)) != Status::ok) {
    return steps_usage("no DDR tag left for the command streams");
  }
  ch.used_tag[tag] = true;
  ch.streams_addr = sg::kDdrWindowBase + sg::make_dma_address(tag, 0);
  ch.streams = ch.machine->translate(ch.streams_addr, most + phase2).value();
  ch.streams_bytes = most;
  ch.streams_room = most + phase2;
  return 0;
}

// A file's bytes into the chip's streams region at `at`. 0 or exit 2.
int place_file(ChipRun& ch, const std::string& file, uint64_t& at, rt::EngineStream& es) {
  std::string error;
  uint64_t size = 0;
  if (!regular_file_size(file, size, error)) return steps_usage(error);
  if (size > ch.streams_bytes || at + round256(size) > ch.streams_bytes) {
    return steps_usage(file + ": the step's streams outgrow the room planned for them (" + std::to_string(ch.streams_bytes) +
                 " bytes): the file changed since the run started?");
  }
  if (!read_file_into(file, 0, size, ch.streams + at, error)) return steps_usage(error);
  es.device_addr = ch.streams_addr + at;
  es.bytes = ConstByteSpan(ch.streams + at, size);
  at += round256(size);
  return 0;
}

// A compute step's stream files into its chip's streams region. 0 or exit 2.
int place_step(ChipRun& ch, const ManifestStep& s, std::vector<rt::CoreSubmission>& subs) {
  uint64_t at = 0;
  subs.clear();
  for (const ManifestCore& c : s.cores) {
    rt::CoreSubmission sub;
    sub.core = c.core;
    rt::EngineStream* es[3] = {&sub.tiu, &sub.gdma, &sub.sdma};
    for (int e = 0; e < 3; ++e) {
      if (c.file[e].empty()) continue;
      if (const int rc = place_file(ch, c.file[e], at, *es[e]); rc != 0) return rc;
    }
    subs.push_back(sub);
  }
  return 0;
}

// The experts' phase's buffers of a chip, after the step's streams in its streams region.
void set_phase2_buffers(ChipRun& ch, const gen::SizedLayer& plan) {
  uint64_t off = ch.streams_bytes;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < gen::kEngines; ++e) {
      ch.phase2.stream[c][e] = ByteSpan(ch.streams + off, plan.stream_bytes[c][e]);
      ch.phase2.device_addr[c][e] = ch.streams_addr + off;
      off += round256(plan.stream_bytes[c][e]);
      if (e < 2) {
        ch.checked[c][e].assign((plan.stream_commands[c][e] + 7) / 8, 0);
        ch.phase2.checked[c][e] = Span<uint8_t>(ch.checked[c][e].data(), ch.checked[c][e].size());
      }
    }
  }
  ch.copy_plans.assign(gen::kCopyPlanWords, 0);
  ch.phase2.copy_plans = Span<uint64_t>(ch.copy_plans.data(), ch.copy_plans.size());
}

// The runtime configuration of chip k: its memory map, its DDR regions, the run's timeout.
rt::Config runtime_config(const ModelRun& r, uint32_t k) {
  rt::Config config;
  config.chip = k;
  config.validate.use_memory_map = true;
  config.validate.ddr_regions = Span<const cmd::DdrRegion>(r.chips[k].ddr.data(), r.chips[k].ddr.size());
  config.reset_on_error = false;
  config.timeout_ticks = r.cli.timeout_cycles;
  return config;
}

}  // namespace tilefw::tools
