// `tilefw validate [--engine tiu|gdma|sdma] [--manifest FILE] FILE...`: validates SG2260 command
// buffers completely and executes nothing (spec/conformance.md). Files of one core (same name
// apart from BD/GDMA/SDMA, e.g. mm0.BD.0 and mm0.GDMA.0) are validated as a set: dependencies
// are checked against the other engine's command count and by a TIU/GDMA dry run.
// Exit 0 when every file is valid, 1 when any is invalid, 2 when a file cannot be read.
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "sg2260_manifest.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
using cmd::Engine;

struct ValidateCli {
  std::string engine;
  std::string manifest;
  std::vector<std::string> files;
};

// The file name with its engine token removed: files of one core share it.
std::string core_key(const std::string& path) {
  std::string k = path;
  const size_t slash = k.find_last_of('/');
  const size_t from = slash == std::string::npos ? 0 : slash + 1;
  for (const char* t : {".BD", ".GDMA", ".SDMA"}) {
    const size_t p = k.find(t, from);
    if (p != std::string::npos) return k.erase(p, std::string(t).size()).insert(p, ".*");
  }
  return k;
}

// --manifest: the reader `tilefw run` uses (sg2260_manifest.cpp), so validate accepts exactly
// the manifests run accepts (read as for a timing-only run: inputs need no file, and the files
// the manifest names are not read).
bool load_manifest(const std::string& path, std::vector<cmd::DdrRegion>& regions) {
  Manifest m;
  std::string error;
  if (!read_manifest(path, /*timing_only=*/true, m, error)) {
    std::fprintf(stderr, "tilefw validate: %s\n", error.c_str());
    return false;
  }
  for (const ManifestRegion& r : m.regions) regions.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
  return true;
}

struct Item {
  std::string path;
  Engine engine = Engine::tiu;
  std::vector<uint8_t> bytes;
  bool readable = false;
  const char* unreadable = "";  // why, when not readable
  uint32_t count = cmd::kUnknownCount;  // commands, when the walk succeeds
  cmd::ValidationReport report;
  ConstByteSpan span() const { return ConstByteSpan(bytes.data(), bytes.size()); }
};

std::string reason(const cmd::ValidationReport& r) {
  std::string s = r.message;
  if (r.field != nullptr && r.field[0] != '\0') s += std::string(" (") + r.field + ")";
  return s;
}

int run_validate(const ValidateCli& cli) {
  int rc = 0;
  cmd::ValidateOptions opts;
  std::vector<cmd::DdrRegion> regions;
  if (!cli.manifest.empty()) {
    if (!load_manifest(cli.manifest, regions)) return 2;  // the message names the key
    opts.use_memory_map = true;
    opts.ddr_regions = Span<const cmd::DdrRegion>(regions.data(), regions.size());
  }
  std::vector<Item> items(cli.files.size());
  std::map<std::string, int> tiu_of, gdma_of;  // core key -> item index
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    it.path = cli.files[i];
    if (!engine_for(it.path, cli.engine, it.engine)) {
      it.unreadable = "cannot tell the engine from the file name (use --engine)";
      continue;
    }
    if (!read_file(it.path, it.bytes)) {
      it.unreadable = "cannot read the file";
      continue;
    }
    it.readable = true;
    cmd::Walker w(it.engine, it.span());
    cmd::Command c;
    while (w.next(c)) {
    }
    if (w.status() == Status::ok) it.count = w.count();
    if (it.engine == Engine::tiu) tiu_of[core_key(it.path)] = static_cast<int>(i);
    if (it.engine == Engine::gdma) gdma_of[core_key(it.path)] = static_cast<int>(i);
  }
  // Each file, with the dependency range of its core's other engine when that is known.
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    if (!it.readable) continue;
    cmd::ValidateOptions o = opts;
    const auto& peers = it.engine == Engine::tiu ? gdma_of : tiu_of;
    const auto p = peers.find(core_key(it.path));
    if (it.engine != Engine::sdma && p != peers.end()) o.peer_commands = items[p->second].count;
    it.report = cmd::validate_stream(it.engine, it.span(), o);
  }
  // Sets: the TIU/GDMA dry run, reported on the engine that can never proceed.
  for (const auto& [key, ti] : tiu_of) {
    const auto g = gdma_of.find(key);
    if (g == gdma_of.end()) continue;
    Item& t = items[ti];
    Item& d = items[g->second];
    if (!t.report.ok() || !d.report.ok()) continue;
    const cmd::ValidationReport r = cmd::validate_core({t.span(), d.span(), {}}, opts);
    if (!r.ok()) (r.engine == Engine::tiu ? t : d).report = r;
  }
  for (const Item& it : items) {
    if (!it.readable) {
      // One line per file, unreadable ones included (spec/conformance.md), then exit 2.
      std::printf("INVALID %s: unreadable at command 0, byte offset 0: %s\n", it.path.c_str(), it.unreadable);
      rc = 2;
      continue;
    }
    const cmd::ValidationReport& r = it.report;
    if (r.ok()) {
      std::printf("OK %s: %u commands\n", it.path.c_str(), r.commands);
    } else {
      std::printf("INVALID %s: %s at command %u, byte offset %zu: %s\n", it.path.c_str(),
                  status_name(r.status), r.command_id, r.offset, reason(r).c_str());
      if (rc == 0) rc = 1;
    }
  }
  return rc;
}
}  // namespace

void register_validate(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("validate", "Validate SG2260 command buffers without running them");
  static ValidateCli opts;  // CLI11 binds by reference: must outlive parse()
  sub->add_option("--engine", opts.engine, "tiu, gdma or sdma (default: from the file name)")
      ->check(CLI::IsMember({"tiu", "gdma", "sdma"}));
  sub->add_option("--manifest", opts.manifest, "manifest.json: DDR accesses must fall inside memory.ddr_regions");
  sub->add_option("files", opts.files, "command buffer files")->required();
  sub->callback([&exit_code] { exit_code = run_validate(opts); });
}

}  // namespace tilefw::tools
