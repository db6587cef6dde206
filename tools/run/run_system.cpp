// `tilefw run` on a system of chips (docs/cli.md section 5, "Many chips"): a manifest with a
// `system` (or `--system FILE.json`) runs on the multi-chip simulator. Every chip's DDR regions,
// inputs and streams are placed in that chip's own memory; every stream of every chip is
// validated (each chip's cores, then the CDMA streams paired across the system) before any
// doorbell; each chip's runtime submits its cores' and CDMA ports' streams through its own
// registers; the one event loop runs them all; each chip's runtime then reports its engines.
#include "run/run_system.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/input_files.hpp"
#include "common/output_target.hpp"
#include "common/staged_files.hpp"
#include "inspect/validate_manifest.hpp"
#include "run/chip_memory.hpp"
#include "sg2260/system.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma_system.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;

int fail2(const std::string& what) {
  std::fprintf(stderr, "tilefw run: %s\n", what.c_str());
  return 2;
}

// One chip's streams, read and placed in its memory.
struct ChipRun {
  std::vector<cmd::DdrRegion> ddr;
  std::vector<rt::CoreSubmission> cores;
  std::vector<rt::CdmaSubmission> cdma;
  std::vector<std::string> core_names;  // "chip K core C" for messages
};

// A stream file (from `offset`, bounded as every stream is) into `dst` at the chip's stream
// region. 0 or exit 2.
int place_stream(const std::string& file, uint64_t offset, port::host::Machine& m, uint64_t base, uint64_t& at,
                 rt::EngineStream& out) {
  uint64_t size = 0;
  std::string error;
  if (!regular_file_size(file, size, error)) return fail2(error);
  if (offset > size) return fail2(file + ": file_offset " + std::to_string(offset) + " is past its end");
  const uint64_t n = size - offset;
  if (n > kMaxStreamBytes) return fail2(file + ": " + std::to_string(n) + " bytes, above the stream limit");
  if (n == 0) return fail2(file + ": an empty stream");
  const Result<uint8_t*> dst = m.translate(base + at, n);
  if (!dst.ok()) return fail2(file + ": no room for the stream in simulated DDR");
  if (!read_file_into(file, offset, n, dst.value(), error)) return fail2(error);
  out.device_addr = base + at;
  out.bytes = ConstByteSpan(dst.value(), n);
  at += (n + 255) / 256 * 256;
  return 0;
}

// The total stream bytes of a chip (the size of its stream region).
uint64_t stream_bytes(const Manifest& m, uint32_t chip) {
  uint64_t total = 256;
  std::string error;
  auto add = [&](const std::string& f) {
    uint64_t n = 0;
    if (!f.empty() && regular_file_size(f, n, error)) total += (std::min(n, kMaxStreamBytes) + 255) / 256 * 256;
  };
  for (const ManifestCore& c : m.cores) {
    if (c.chip != chip) continue;
    for (const std::string& f : c.file) add(f);
  }
  for (const ManifestCdma& c : m.cdma) {
    if (c.chip == chip) add(c.file);
  }
  return total;
}

// Chip k's memory: its DDR regions with their first bytes (functional runs), its inputs, and
// a region of its own for the command streams. 0 or exit 2.
int load_chip(const RunCli& cli, const Manifest& m, uint32_t k, port::host::Machine& machine, ChipRun& run) {
  bool used[32] = {};
  std::string error;
  if (!load_chip_memory(m, k, cli.timing_only, machine, run.ddr, used, error)) return fail2(error);
  const uint32_t tag = free_ddr_tag(used);
  const uint64_t bytes = stream_bytes(m, k);
  if (tag == 0 || machine.add_region(sg::ddr_region(tag, 0, bytes)) != Status::ok) {
    return fail2("chip " + std::to_string(k) + ": no DDR tag left for the command streams");
  }
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(tag, 0);
  uint64_t at = 0;
  for (const ManifestCore& c : m.cores) {
    if (c.chip != k) continue;
    rt::CoreSubmission s;
    s.core = c.core;
    rt::EngineStream* es[kManifestEngines] = {&s.tiu, &s.gdma, &s.sdma, &s.hau};
    for (int e = 0; e < kManifestEngines; ++e) {
      if (c.file[e].empty()) continue;
      if (const int rc = place_stream(c.file[e], 0, machine, base, at, *es[e]); rc != 0) return rc;
    }
    run.cores.push_back(s);
    run.core_names.push_back("chip " + std::to_string(k) + " core " + std::to_string(c.core));
  }
  for (const ManifestCdma& c : m.cdma) {
    if (c.chip != k) continue;
    rt::CdmaSubmission s;
    s.peer = c.peer;
    if (const int rc = place_stream(c.file, c.file_offset, machine, base, at, s.stream); rc != 0) return rc;
    run.cdma.push_back(s);
  }
  return 0;
}

// The CDMA streams of every chip, paired across the system, then the message check over every
// stream of every chip (Rule: reachable message waits), before any doorbell. 0 or exit 1.
int validate_pairing(const Manifest& m, const cmd::Topology& topology, std::vector<ChipRun>& chips) {
  std::vector<cmd::CdmaStream> streams;
  std::vector<cmd::ChipMemory> memory;
  std::vector<cmd::CoreStream> cores;
  std::vector<std::string> core_files;
  for (uint32_t k = 0; k < chips.size(); ++k) {
    memory.push_back(cmd::ChipMemory{true, Span<const cmd::DdrRegion>(chips[k].ddr.data(), chips[k].ddr.size())});
    for (const rt::CdmaSubmission& c : chips[k].cdma) streams.push_back(cmd::CdmaStream{k, c.peer, c.stream.bytes});
    for (const rt::CoreSubmission& c : chips[k].cores) {
      const rt::EngineStream* es[kManifestEngines] = {&c.tiu, &c.gdma, &c.sdma, &c.hau};
      for (int e = 0; e < kManifestEngines; ++e) {
        if (es[e]->bytes.size() != 0) cores.push_back(cmd::CoreStream{k, c.core, static_cast<cmd::Engine>(e), es[e]->bytes});
      }
    }
  }
  const cmd::SystemValidation v = cmd::validate_system(topology, Span<const cmd::CdmaStream>(streams.data(), streams.size()),
                                                       Span<const cmd::ChipMemory>(memory.data(), memory.size()),
                                                       Span<const cmd::CoreStream>(cores.data(), cores.size()));
  if (v.ok()) return 0;
  const std::string detail = message_wait_detail(v);
  const char* sep = v.report.field[0] != '\0' ? " field " : "";
  if (v.core_stream != cmd::SystemValidation::kNoStream) {
    const cmd::CoreStream& s = cores[v.core_stream];
    std::string file;
    for (const ManifestCore& c : m.cores) {
      if (c.chip == s.chip && c.core == s.core) file = c.file[static_cast<int>(s.engine)];
    }
    std::printf("error: chip %u core %u %s command %u: %s at byte offset %zu of %s: %s%s%s%s\n", s.chip, s.core,
                cmd::engine_name(s.engine), v.report.command_id, status_name(v.report.status), v.report.offset,
                file.c_str(), v.report.message, sep, v.report.field, detail.c_str());
    return 1;
  }
  std::string file;
  for (const ManifestCdma& c : m.cdma) {
    if (c.chip == v.chip && c.peer == v.peer) file = c.file;
  }
  std::printf("error: chip %u cdma->%u command %u: %s at byte offset %zu of %s: %s%s%s%s\n", v.chip, v.peer,
              v.report.command_id, status_name(v.report.status), v.report.offset, file.c_str(), v.report.message,
              sep, v.report.field, detail.c_str());
  return 1;
}

// Each chip's runtime: configuration (its chip id, its memory map) and the peers' maps.
rt::Config chip_config(uint32_t k, const ChipRun& run, uint64_t timeout) {
  rt::Config config;
  config.chip = k;
  config.validate.use_memory_map = true;
  config.validate.ddr_regions = Span<const cmd::DdrRegion>(run.ddr.data(), run.ddr.size());
  config.reset_on_error = false;
  config.timeout_ticks = timeout;
  return config;
}

void print_refusal(uint32_t k, const rt::Report& r) {
  if (r.engine == cmd::Engine::cdma) {
    std::printf("error: chip %u cdma->%u command %u: %s at byte offset %zu: %s%s%s\n", k, r.peer, r.command_id,
                status_name(r.status), r.offset, r.message, r.field[0] != '\0' ? " field " : "", r.field);
  } else {
    std::printf("error: chip %u core %u %s command %u: %s at byte offset %zu: %s%s%s\n", k, r.core,
                cmd::engine_name(r.engine), r.command_id, status_name(r.status), r.offset, r.message,
                r.field[0] != '\0' ? " field " : "", r.field);
  }
}

nlohmann::json system_report(const RunCli& cli, const SystemSpec& spec, sim::System& sys, uint64_t total, double wall) {
  nlohmann::json j;
  j["cycles_total"] = total;
  j["seconds"] = static_cast<double>(total) / static_cast<double>(sg::kClockHz);
  j["wall_seconds"] = wall;
  j["timing_model"] = cli.timing_model;
  j["system"] = system_json(spec);
  nlohmann::json chips = nlohmann::json::object();
  for (uint32_t k = 0; k < sys.chips(); ++k) {
    const sim::ChipStats s = sys.chip_stats(k);
    chips[std::to_string(k)] = {{"cycles", s.cycles}, {"cdma_wait_cycles", s.cdma_wait_cycles},
                                {"cdma_commands", s.cdma_commands}};
  }
  j["chips"] = chips;
  nlohmann::json links = nlohmann::json::object();
  const cmd::Topology& t = sys.topology();
  for (uint32_t d = 0; d < t.directed_link_count(); ++d) {
    const sim::LinkStats l = sys.link_stats(d);
    const auto name = [&](uint32_t v) { return t.is_switch(v) ? std::string("switch") : std::to_string(v); };
    links[name(t.directed_source(d)) + "->" + name(t.directed_target(d))] = {
        {"bytes", l.bytes}, {"busy_cycles", l.busy_cycles},
        {"utilisation", total == 0 ? 0.0 : static_cast<double>(l.busy_cycles) / static_cast<double>(total)}};
  }
  j["links"] = links;
  return j;
}

// --summary: every directed link that carried bytes, with its busy share of the run.
void print_links(sim::System& sys, uint64_t total) {
  const cmd::Topology& t = sys.topology();
  std::printf("link         bytes        busy cycles  utilisation\n");
  for (uint32_t d = 0; d < t.directed_link_count(); ++d) {
    const sim::LinkStats l = sys.link_stats(d);
    if (l.bytes == 0) continue;
    const auto name = [&](uint32_t v) { return t.is_switch(v) ? std::string("sw") : std::to_string(v); };
    const std::string n = name(t.directed_source(d)) + "->" + name(t.directed_target(d));
    std::printf("%-12s %-12" PRIu64 " %-12" PRIu64 " %.1f %%\n", n.c_str(), l.bytes, l.busy_cycles,
                total == 0 ? 0.0 : 100.0 * static_cast<double>(l.busy_cycles) / static_cast<double>(total));
  }
}

sim::SystemOptions system_options(const RunCli& cli, const SystemSpec& spec) {
  sim::SystemOptions o;
  o.chips = spec.chips;
  o.topology = spec.topology_or_default();
  o.c2c.link_gbytes_per_s = spec.link_gbytes_per_s;
  o.c2c.link_latency_ns = spec.link_latency_ns;
  o.c2c.alpha_ns = spec.alpha_ns;
  o.c2c.beta_ns = spec.beta_ns;
  o.sim.functional = !cli.timing_only;
  o.sim.trace = !cli.trace.empty() || !cli.svg.empty() || cli.summary;
  o.sim.timing = cli.timing_model == "v1" ? sim::TimingModel::v1 : sim::TimingModel::v2;
  o.sim.max_work = cli.max_work;
  return o;
}

int write_outputs(const RunCli& cli, const Manifest& m, sim::System& sys, StagedFiles& files,
                  std::vector<std::string>& lines) {
  std::string error;
  if (cli.timing_only) return 0;
  std::error_code ec;
  fs::create_directories(cli.out, ec);
  for (const ManifestTensor& t : m.outputs) {
    const Result<uint8_t*> p = sys.machine(t.chip).translate(sg::kDdrWindowBase + t.device_addr, std::max<uint64_t>(t.bytes, 1));
    const std::string path = (fs::path(cli.out) / (t.name + ".dat")).string();
    if (!p.ok()) return fail2("output " + t.name + " lies outside chip " + std::to_string(t.chip) + "'s DDR regions");
    if (!files.write(path, p.value(), t.bytes, error)) return fail2(error);
    lines.push_back("wrote " + path + " (" + std::to_string(t.bytes) + " bytes, chip " + std::to_string(t.chip) + ")");
  }
  return 0;
}
}  // namespace

int run_system(const RunCli& cli, const Manifest& m, const SystemSpec& spec) {
  for (const ManifestCore& c : m.cores) {
    if (c.chip >= spec.chips) return fail2("cores: chip " + std::to_string(c.chip) + " is past the system's chips");
  }
  StagedFiles files;
  std::vector<std::string> lines;
  for (const ManifestTensor& t : m.outputs) {
    std::string why;
    const std::string p = (fs::path(cli.out) / (t.name + ".dat")).string();
    if (!cli.timing_only) files.expect(p);
    if (!cli.timing_only && !output_target_ok(p, why)) return fail2("output " + escape_line(t.name) + ": " + p + ": " + why);
  }
  for (const std::string* p : {&cli.report, &cli.trace, &cli.svg}) {
    std::string why;
    if (p->empty()) continue;
    files.expect(*p);
    if (!output_target_ok(*p, why)) return fail2(*p + ": " + why);
  }
  auto sys = std::make_unique<sim::System>(system_options(cli, spec));
  if (sys->status() != Status::ok) return fail2("system: " + sys->message());
  std::vector<ChipRun> chips(spec.chips);
  for (uint32_t k = 0; k < spec.chips; ++k) {
    if (const int rc = load_chip(cli, m, k, sys->machine(k), chips[k]); rc != 0) return rc;
  }
  if (const int rc = validate_pairing(m, sys->topology(), chips); rc != 0) return rc;
  // Every chip's runtime validates its own streams (with the peers' memory) before any
  // doorbell of any chip rings: the pairing check above already passed.
  std::vector<std::unique_ptr<rt::Runtime>> runtimes;
  for (uint32_t k = 0; k < spec.chips; ++k) {
    for (rt::CdmaSubmission& c : chips[k].cdma) {
      c.peer_use_memory_map = true;
      c.peer_ddr_regions = Span<const cmd::DdrRegion>(chips[c.peer].ddr.data(), chips[c.peer].ddr.size());
    }
    runtimes.push_back(std::make_unique<rt::Runtime>(chip_config(k, chips[k], cli.timeout_cycles)));
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t k = 0; k < spec.chips; ++k) {
    port::host::ScopedMachine scope(sys->machine(k));
    const Status s = runtimes[k]->submit(Span<const rt::CoreSubmission>(chips[k].cores.data(), chips[k].cores.size()),
                                         Span<const rt::CdmaSubmission>(chips[k].cdma.data(), chips[k].cdma.size()));
    if (s != Status::ok) {
      print_refusal(k, runtimes[k]->report());
      return 1;
    }
  }
  const Status run = sys->run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t total = 0;
  for (uint32_t k = 0; k < spec.chips; ++k) {
    port::host::ScopedMachine scope(sys->machine(k));
    const Status s = runtimes[k]->poll();
    if (s != Status::ok || run != Status::ok) {
      if (s != Status::ok && s != Status::rt_busy) print_refusal(k, runtimes[k]->report());
      std::printf("error: the system stopped: %s\n%s", status_name(run == Status::ok ? s : run), sys->blocked_report().c_str());
      files.discard();
      return 1;
    }
    total = std::max(total, sys->chip_stats(k).cycles);
  }
  for (uint32_t k = 0; k < spec.chips; ++k) {
    std::printf("chip %u: %" PRIu64 " cycles (%" PRIu64 " waiting in CDMA)\n", k, sys->chip_stats(k).cycles,
                sys->chip_stats(k).cdma_wait_cycles);
  }
  std::printf("total: %" PRIu64 " cycles (%u chips, %s, timing model %s, 1 GHz)\n", total, spec.chips,
              spec.topology_or_default().c_str(), cli.timing_model.c_str());
  if (cli.summary) print_links(*sys, total);
  std::string error;
  if (!cli.report.empty()) {
    if (!files.write(cli.report, system_report(cli, spec, *sys, total, wall).dump(1) + "\n", error)) return fail2(error);
    lines.push_back("report: " + cli.report);
  }
  if (const int rc = write_outputs(cli, m, *sys, files, lines); rc != 0) return rc;
  if (!cli.trace.empty()) {
    if (!files.write(cli.trace, sys->trace_json(), error)) return fail2(error);
    lines.push_back("trace: " + cli.trace + " (one process per chip, a c2c row per link)");
  }
  if (!cli.svg.empty()) {
    if (!files.write(cli.svg, sys->svg_gantt(), error)) return fail2(error);
    lines.push_back("gantt: " + cli.svg + " (one band per chip, a row per link)");
  }
  if (!files.commit(error)) return fail2(error);
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return 0;
}

}  // namespace tilefw::tools
