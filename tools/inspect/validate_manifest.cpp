// `tilefw validate --manifest FILE` with no stream files: every stream the manifest names, as
// `run` would submit them (docs/cli.md section 3). Each core's streams as a set against its
// chip's memory map, then every CDMA stream of the system, alone and paired across the chips
// (cmd::validate_system). One line per stream:
//   OK <manifest>[chip<K>.core<N>.<engine>]: <n> commands
//   OK <manifest>[chip<K>.cdma-><J>]: <n> commands
//   INVALID <manifest>[chip<K>.cdma-><J>]: <status> at command <id>, byte offset <off>: <reason>
//   OK <manifest>[<step>]: generated at run time (<direction> of layer <L>, micro-batch <M>, chips <F>..<G>)
// (the `chip<K>.` prefix only when the manifest has a system of chips).
#include "inspect/validate_manifest.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/input_files.hpp"
#include "formats/sg2260_manifest.hpp"
#include "tilefw/cmd/cdma_system.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
using cmd::Engine;

std::string reason_of(const cmd::ValidationReport& r) {
  std::string s = r.message;
  if (r.field != nullptr && r.field[0] != '\0') s += std::string(" (") + r.field + ")";
  return s;
}

void print_line(const std::string& name, const cmd::ValidationReport& r, int& rc, const std::string& extra = "") {
  if (r.ok()) {
    std::printf("OK %s: %u commands\n", name.c_str(), r.commands);
    return;
  }
  std::printf("INVALID %s: %s at command %u, byte offset %zu: %s%s\n", name.c_str(), status_name(r.status),
              r.command_id, r.offset, reason_of(r).c_str(), extra.c_str());
  if (rc < 1) rc = 1;
}

// The message check over the top-level streams (cmd::validate_messages): every core stream
// and CDMA stream the manifest runs together. A stream that cannot be read is left to the
// per-stream lines (the verdict is then ok).
struct MessageVerdict {
  cmd::SystemValidation v;
  const ManifestCore* core = nullptr;  // the refused core stream's core and engine, or
  int engine = -1;
  const ManifestCdma* cdma = nullptr;  // the refused CDMA stream
};

MessageVerdict check_messages(const Manifest& m) {
  MessageVerdict out;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<std::pair<const ManifestCore*, int>> owners;
  std::string error;
  auto read = [&](const std::string& file, uint64_t offset) {
    std::vector<uint8_t> all;
    if (!read_whole_file(file, kMaxStreamBytes + offset, all, error) || offset > all.size()) return false;
    bytes.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(offset), all.end());
    return true;
  };
  for (const ManifestCore& c : m.cores) {
    for (int e = 0; e < kManifestEngines; ++e) {
      if (c.file[e].empty()) continue;
      if (!read(c.file[e], 0)) return out;
      owners.emplace_back(&c, e);
    }
  }
  for (const ManifestCdma& c : m.cdma) {
    if (!read(c.file, c.file_offset)) return out;
  }
  std::vector<cmd::CoreStream> cores;
  std::vector<cmd::CdmaStream> cdma;
  for (size_t i = 0; i < owners.size(); ++i) {
    cores.push_back(cmd::CoreStream{owners[i].first->chip, owners[i].first->core, static_cast<Engine>(owners[i].second),
                                    ConstByteSpan(bytes[i].data(), bytes[i].size())});
  }
  for (size_t i = 0; i < m.cdma.size(); ++i) {
    const std::vector<uint8_t>& b = bytes[owners.size() + i];
    cdma.push_back(cmd::CdmaStream{m.cdma[i].chip, m.cdma[i].peer, ConstByteSpan(b.data(), b.size())});
  }
  out.v = cmd::validate_messages(std::max<uint32_t>(m.system.chips, 1),
                                 Span<const cmd::CoreStream>(cores.data(), cores.size()),
                                 Span<const cmd::CdmaStream>(cdma.data(), cdma.size()));
  if (out.v.ok()) return out;
  if (out.v.core_stream != cmd::SystemValidation::kNoStream) {
    out.core = owners[out.v.core_stream].first;
    out.engine = owners[out.v.core_stream].second;
  } else {
    out.cdma = &m.cdma[out.v.stream];
  }
  return out;
}

// A stream file (from `offset` to its end), bounded as run bounds it. false: printed, rc 2.
bool read_stream(const std::string& name, const std::string& path, uint64_t offset, std::vector<uint8_t>& out,
                 int& rc) {
  std::string error;
  std::vector<uint8_t> all;
  if (!read_whole_file(path, kMaxStreamBytes + offset, all, error) || offset > all.size()) {
    if (error.empty()) error = path + ": file_offset " + std::to_string(offset) + " is past its end";
    std::printf("INVALID %s: unreadable at command 0, byte offset 0: %s\n", name.c_str(), error.c_str());
    rc = 2;
    return false;
  }
  out.assign(all.begin() + static_cast<std::ptrdiff_t>(offset), all.end());
  return true;
}

struct ChipMaps {
  std::vector<std::vector<cmd::DdrRegion>> regions;
  std::vector<cmd::ChipMemory> memory;
};

ChipMaps chip_maps(const Manifest& m) {
  ChipMaps maps;
  maps.regions.resize(m.system.chips);
  for (const ManifestRegion& r : m.regions) maps.regions[r.chip].push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
  for (const auto& r : maps.regions) {
    maps.memory.push_back(cmd::ChipMemory{true, Span<const cmd::DdrRegion>(r.data(), r.size())});
  }
  return maps;
}

// One core: each stream alone (with the dependency range of its peer engine), then the TIU/GDMA
// dry run, reported on the engine that can never proceed.
void validate_core_streams(const std::string& base, const ManifestCore& c, const cmd::ValidateOptions& opts,
                           const MessageVerdict* msg, int& rc) {
  std::vector<uint8_t> bytes[kManifestEngines];
  bool have[kManifestEngines] = {};
  for (int e = 0; e < kManifestEngines; ++e) {
    if (c.file[e].empty()) continue;
    have[e] = read_stream(base + kManifestEngineNames[e] + "]", c.file[e], 0, bytes[e], rc);
  }
  auto span = [&](int e) { return ConstByteSpan(bytes[e].data(), bytes[e].size()); };
  cmd::ValidationReport r[kManifestEngines];
  for (int e = 0; e < kManifestEngines; ++e) {
    if (have[e]) r[e] = cmd::validate_stream(static_cast<Engine>(e), span(e), opts);
  }
  if (have[0] && have[1] && r[0].ok() && r[1].ok()) {
    const cmd::ValidationReport set = cmd::validate_core({span(0), span(1), {}}, opts);
    if (!set.ok()) r[set.engine == Engine::tiu ? 0 : 1] = set;
  }
  for (int e = 0; e < kManifestEngines; ++e) {
    if (!have[e]) continue;
    if (r[e].ok() && msg != nullptr && msg->core == &c && msg->engine == e) {
      print_line(base + kManifestEngineNames[e] + "]", msg->v.report, rc, message_wait_detail(msg->v));
      continue;
    }
    print_line(base + kManifestEngineNames[e] + "]", r[e], rc);
  }
}

void validate_cdma_streams(const std::string& path, const Manifest& m, const std::vector<ManifestCdma>& list,
                           const std::string& step, const ChipMaps& maps, const MessageVerdict* msg, int& rc) {
  if (list.empty()) return;
  std::vector<std::vector<uint8_t>> bytes(list.size());
  std::vector<cmd::CdmaStream> streams;
  std::vector<std::string> names;
  bool all_read = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const ManifestCdma& c = list[i];
    names.push_back(path + "[" + step + "chip" + std::to_string(c.chip) + ".cdma->" + std::to_string(c.peer) + "]");
    all_read = read_stream(names.back(), c.file, c.file_offset, bytes[i], rc) && all_read;
    streams.push_back(cmd::CdmaStream{c.chip, c.peer, ConstByteSpan(bytes[i].data(), bytes[i].size())});
  }
  if (!all_read) return;
  cmd::Topology topology;
  const std::string text = m.system.topology_or_default();
  (void)topology.parse(text.data(), text.size(), m.system.chips);  // checked by the manifest reader
  cmd::SystemValidation v = cmd::validate_system(
      topology, Span<const cmd::CdmaStream>(streams.data(), streams.size()),
      Span<const cmd::ChipMemory>(maps.memory.data(), maps.memory.size()));
  if (v.ok() && msg != nullptr && msg->cdma != nullptr) v = msg->v;
  for (size_t i = 0; i < streams.size(); ++i) {
    if (!v.ok() && v.stream == i) {
      cmd::ValidationReport r = v.report;
      const std::string where = " (chip " + std::to_string(v.chip) + ", peer chip " + std::to_string(v.peer) + ")";
      std::printf("INVALID %s: %s at command %u, byte offset %zu: %s%s%s\n", names[i].c_str(), status_name(r.status),
                  r.command_id, r.offset, reason_of(r).c_str(), message_wait_detail(v).c_str(), where.c_str());
      if (rc < 1) rc = 1;
      continue;
    }
    cmd::Walker w(Engine::cdma, streams[i].bytes);
    cmd::Command c;
    while (w.next(c)) {
    }
    std::printf("OK %s: %u commands\n", names[i].c_str(), w.count());
  }
}
}  // namespace

std::string message_wait_detail(const cmd::SystemValidation& v) {
  if (v.report.status != Status::cmd_unsatisfiable_message) return "";
  return " (waits for msg " + std::to_string(v.msg_id) + " count " + std::to_string(v.msg_cnt) + ": needs " +
         std::to_string(v.msg_needed) + " sends of it, chip " + std::to_string(v.chip) + " makes " +
         std::to_string(v.msg_sends) + " that can count)";
}

int validate_manifest_streams(const std::string& path) {
  Manifest m;
  std::string error;
  if (!read_manifest(path, /*timing_only=*/true, m, error)) {
    std::fprintf(stderr, "tilefw validate: %s\n", error.c_str());
    return 2;
  }
  const ChipMaps maps = chip_maps(m);
  const MessageVerdict msg = check_messages(m);
  int rc = 0;
  // A whole model: every step's streams, named "step.coreN.engine" (the steps run one after
  // the other, each against the model's one memory map).
  std::vector<std::pair<std::string, const std::vector<ManifestCore>*>> lists = {{"", &m.cores}};
  for (const ManifestStep& s : m.steps) lists.emplace_back(s.name + ".", &s.cores);
  for (const auto& [step, cores] : lists) {
    const MessageVerdict* verdict = step.empty() ? &msg : nullptr;
    for (const ManifestCore& c : *cores) {
      cmd::ValidateOptions opts;
      opts.use_memory_map = true;
      opts.ddr_regions = maps.memory[c.chip].ddr_regions;
      const std::string chip = m.system.given ? "chip" + std::to_string(c.chip) + "." : "";
      validate_core_streams(path + "[" + step + chip + "core" + std::to_string(c.core) + ".", c, opts, verdict, rc);
    }
  }
  validate_cdma_streams(path, m, m.cdma, "", maps, &msg, rc);
  // Each transfer step's CDMA streams pair among themselves (they run together, alone).
  // A transfer generated at run time (alltoall) has no streams here: run generates and validates
  // them from the routing, as the control cores generate a MoE layer's experts' phase.
  for (const ManifestStep& s : m.steps) {
    if (!s.alltoall) {
      validate_cdma_streams(path, m, s.cdma, s.name + ".", maps, nullptr, rc);
      continue;
    }
    const ManifestAlltoall& a = *s.alltoall;
    std::printf("OK %s[%s]: generated at run time (%s of layer %u, micro-batch %u, chips %u..%u)\n", path.c_str(),
                s.name.c_str(), a.direction.c_str(), a.layer, a.microbatch, a.first_chip, a.first_chip + a.chips - 1);
  }
  return rc;
}

}  // namespace tilefw::tools
