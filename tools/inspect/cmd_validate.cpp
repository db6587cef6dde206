// `tilefw validate [--engine tiu|gdma|sdma|hau|cdma] [--manifest FILE] [FILE...]`: validates SG2260 command
// buffers completely and executes nothing (docs/cli.md section 3). Files of one core (same name
// apart from BD/GDMA/SDMA, e.g. mm0.BD.0 and mm0.GDMA.0) are validated as a set: dependencies
// are checked against the other engine's command count and by a TIU/GDMA dry run.
// A `.bmodel` FILE is validated per core (TIU/GDMA/SDMA as a set, the HAU stream by its own
// walker) and printed one line per (core, engine) as `<file>[core<N>.<engine>]`.
// Exit 0 when every file is valid, 1 when any is invalid, 2 when a file cannot be read (a
// directory, device or FIFO, a corrupt bmodel, an engine that cannot be told from the name).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/bmodel.hpp"
#include "commands.hpp"
#include "common/input_files.hpp"
#include "formats/sg2260_manifest.hpp"
#include "inspect/validate_manifest.hpp"
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
// `streams` receives, for every stream file the manifest's cores[] name (canonical path), its
// engine and core: validate then pairs TIU and GDMA as run does, by cores[], not by file name.
struct ManifestStream {
  Engine engine = Engine::tiu;
  uint32_t core = 0;
};
std::string canonical(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

bool load_manifest(const std::string& path, std::vector<cmd::DdrRegion>& regions,
                   std::map<std::string, ManifestStream>& streams) {
  Manifest m;
  std::string error;
  if (!read_manifest(path, /*timing_only=*/true, m, error)) {
    std::fprintf(stderr, "tilefw validate: %s\n", error.c_str());
    return false;
  }
  for (const ManifestRegion& r : m.regions) regions.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
  for (const ManifestCore& c : m.cores) {
    for (int e = 0; e < kManifestEngines; ++e) {
      if (!c.file[e].empty()) streams[canonical(c.file[e])] = ManifestStream{static_cast<Engine>(e), c.core};
    }
  }
  return true;
}

struct Item {
  std::string path;
  Engine engine = Engine::tiu;
  std::vector<uint8_t> bytes;
  bool readable = false;
  std::string unreadable;  // why, when not readable
  uint32_t count = cmd::kUnknownCount;  // commands, when the walk succeeds
  cmd::ValidationReport report;
  bool is_bmodel = false;
  std::string key;  // the core it belongs to (manifest core, or from the file name)
  ConstByteSpan span() const { return ConstByteSpan(bytes.data(), bytes.size()); }
};

void print_report(const std::string& name, const cmd::ValidationReport& r, int& rc);

// The bytes of an item are held only while it is checked (at most a TIU/GDMA pair at once):
// validating many files never holds them all. A file that cannot be read again is reported.
bool load(Item& it) {
  if (!it.bytes.empty()) return true;
  if (read_input(it.path, it.bytes, it.unreadable)) return true;
  it.readable = false;
  return false;
}
void release(Item& it) { std::vector<uint8_t>().swap(it.bytes); }

std::string reason(const cmd::ValidationReport& r) {
  std::string s = r.message;
  if (r.field != nullptr && r.field[0] != '\0') s += std::string(" (") + r.field + ")";
  return s;
}

void print_unreadable(const std::string& name, const std::string& why, int& rc) {
  std::printf("INVALID %s: unreadable at command 0, byte offset 0: %s\n", name.c_str(), why.c_str());
  rc = 2;
}

void print_report(const std::string& name, const cmd::ValidationReport& r, int& rc) {
  if (r.ok()) {
    std::printf("OK %s: %u commands\n", name.c_str(), r.commands);
  } else {
    std::printf("INVALID %s: %s at command %u, byte offset %zu: %s\n", name.c_str(), status_name(r.status),
                r.command_id, r.offset, reason(r).c_str());
    if (rc < 1) rc = 1;
  }
}

// The message check over every stream of the model (cmd::validate_messages: the cores run
// together on one chip; the CDMA ports' peers do not matter for the chip's counters).
struct BmodelMessages {
  cmd::SystemValidation v;
  size_t core = 0;
  std::string engine;  // "tiu", ..., or "cdma<K>"
};
BmodelMessages check_messages(const Bmodel& m) {
  std::vector<cmd::CoreStream> cores;
  std::vector<cmd::CdmaStream> cdma;
  std::vector<std::pair<size_t, size_t>> cdma_at;  // (core, port index)
  for (size_t i = 0; i < m.cores.size(); ++i) {
    const BmodelCore& c = m.cores[i];
    const BmodelStream* es[4] = {&c.tiu, &c.gdma, &c.sdma, &c.hau};
    for (int e = 0; e < 4; ++e) {
      if (es[e]->present()) cores.push_back(cmd::CoreStream{0, static_cast<uint32_t>(i), static_cast<Engine>(e), es[e]->bytes});
    }
    for (size_t k = 0; k < c.cdma.size(); ++k) {
      cdma.push_back(cmd::CdmaStream{0, static_cast<uint32_t>(cdma.size() + 1), c.cdma[k].bytes});
      cdma_at.emplace_back(i, k);
    }
  }
  BmodelMessages out;
  out.v = cmd::validate_messages(1, Span<const cmd::CoreStream>(cores.data(), cores.size()),
                                 Span<const cmd::CdmaStream>(cdma.data(), cdma.size()));
  if (out.v.ok()) return out;
  if (out.v.core_stream != cmd::SystemValidation::kNoStream) {
    out.core = cores[out.v.core_stream].core;
    out.engine = cmd::engine_name(cores[out.v.core_stream].engine);
  } else {
    out.core = cdma_at[out.v.stream].first;
    out.engine = "cdma" + std::to_string(cdma_at[out.v.stream].second);
  }
  return out;
}

// Every stream of every core: each stream alone with its peer's command count, then the
// TIU/GDMA dry run of the core (reported on the engine that can never proceed), then the
// message check over all of them (reported on the wait no order of the engines releases).
void validate_bmodel(const std::string& path, const std::vector<uint8_t>& bytes, const cmd::ValidateOptions& opts,
                     int& rc) {
  Bmodel m;
  std::string error;
  if (!parse_bmodel(ConstByteSpan(bytes.data(), bytes.size()), m, error)) {
    print_unreadable(path, "corrupt bmodel: " + error, rc);
    return;
  }
  for (const std::string& o : m.others) {
    std::fprintf(stderr, "tilefw validate: %s: not validated: %s\n", path.c_str(), o.c_str());
  }
  const BmodelMessages msg = check_messages(m);
  for (size_t i = 0; i < m.cores.size(); ++i) {
    const BmodelCore& c = m.cores[i];
    const std::string base = path + "[core" + std::to_string(i) + ".";
    // A stream valid alone may still hold the wait the message check refuses.
    auto print = [&](const std::string& engine, const cmd::ValidationReport& r) {
      if (r.ok() && !msg.v.ok() && msg.core == i && msg.engine == engine) {
        std::printf("INVALID %s%s]: %s at command %u, byte offset %zu: %s%s\n", base.c_str(), engine.c_str(),
                    status_name(msg.v.report.status), msg.v.report.command_id, msg.v.report.offset,
                    reason(msg.v.report).c_str(), message_wait_detail(msg.v).c_str());
        if (rc < 1) rc = 1;
        return;
      }
      print_report(base + engine + "]", r, rc);
    };
    cmd::ValidateOptions o = opts;
    const cmd::ValidationReport lone_t = cmd::validate_stream(Engine::tiu, c.tiu.bytes, o);
    const cmd::ValidationReport lone_g = cmd::validate_stream(Engine::gdma, c.gdma.bytes, o);
    o.peer_commands = lone_g.ok() && c.gdma.present() ? lone_g.commands : cmd::kUnknownCount;
    cmd::ValidationReport t = c.tiu.present() ? cmd::validate_stream(Engine::tiu, c.tiu.bytes, o) : lone_t;
    o.peer_commands = lone_t.ok() && c.tiu.present() ? lone_t.commands : cmd::kUnknownCount;
    cmd::ValidationReport g = c.gdma.present() ? cmd::validate_stream(Engine::gdma, c.gdma.bytes, o) : lone_g;
    if (t.ok() && g.ok() && c.tiu.present() && c.gdma.present()) {
      const cmd::ValidationReport r = cmd::validate_core({c.tiu.bytes, c.gdma.bytes, {}}, opts);
      if (!r.ok()) (r.engine == Engine::tiu ? t : g) = r;
    }
    if (c.tiu.present()) print("tiu", t);
    if (c.gdma.present()) print("gdma", g);
    if (c.sdma.present()) print("sdma", cmd::validate_stream(Engine::sdma, c.sdma.bytes, opts));
    if (c.hau.present()) print("hau", cmd::validate_stream(Engine::hau, c.hau.bytes, opts));
    // A bmodel does not say which chip a CDMA port talks to: each stream alone, no chip ids.
    cmd::ValidateOptions co = opts;
    co.cdma.chips_known = false;
    for (size_t k = 0; k < c.cdma.size(); ++k) {
      print("cdma" + std::to_string(k), cmd::validate_stream(Engine::cdma, c.cdma[k].bytes, co));
    }
  }
  std::fprintf(stderr, "tilefw validate: %s: %s\n", path.c_str(), bmodel_contents(m).c_str());
}

int run_validate(const ValidateCli& cli) {
  if (cli.files.empty()) {
    if (cli.manifest.empty()) {
      std::fprintf(stderr, "tilefw validate: name command buffer files, or --manifest FILE to validate its streams\n");
      return 2;
    }
    return validate_manifest_streams(cli.manifest);
  }
  int rc = 0;
  cmd::ValidateOptions opts;
  std::vector<cmd::DdrRegion> regions;
  std::map<std::string, ManifestStream> named;  // the manifest's streams (engine, core)
  if (!cli.manifest.empty()) {
    if (!load_manifest(cli.manifest, regions, named)) return 2;  // the message names the key
    opts.use_memory_map = true;
    opts.ddr_regions = Span<const cmd::DdrRegion>(regions.data(), regions.size());
  }
  std::vector<Item> items(cli.files.size());
  std::map<std::string, int> tiu_of, gdma_of;  // core key -> item index
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    it.path = cli.files[i];
    // A command stream larger than run places is refused as run refuses it (same limit, same
    // message), before it is read: validate and run agree on every stream.
    uint64_t size = 0;
    std::string why;
    if (!is_bmodel_path(it.path) && regular_file_size(it.path, size, why) && size > kMaxStreamBytes) {
      it.unreadable = std::to_string(size) + " bytes, above the limit of " + std::to_string(kMaxStreamBytes);
      continue;
    }
    if (!read_input(it.path, it.bytes, it.unreadable)) continue;
    if (cli.engine.empty() && (is_bmodel_path(it.path) || looks_like_bmodel(it.span()))) {
      it.is_bmodel = true;
      release(it);  // read again when its turn comes
      continue;
    }
    std::string key = core_key(it.path);
    const auto listed = named.find(canonical(it.path));
    if (listed != named.end() && cli.engine.empty()) {  // the manifest says which engine and core
      it.engine = listed->second.engine;
      key = "manifest core " + std::to_string(listed->second.core);
    } else if (!engine_for(it.path, cli.engine, it.engine)) {
      it.unreadable = "cannot tell the engine from the file name (use --engine)";
      release(it);
      continue;
    }
    it.readable = true;
    cmd::Walker w(it.engine, it.span());
    cmd::Command c;
    while (w.next(c)) {
    }
    if (w.status() == Status::ok) it.count = w.count();
    release(it);
    it.key = key;
    if (it.engine == Engine::tiu) tiu_of[key] = static_cast<int>(i);
    if (it.engine == Engine::gdma) gdma_of[key] = static_cast<int>(i);
  }
  // Each file, with the dependency range of its core's other engine when that is known.
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    if (!it.readable) continue;
    cmd::ValidateOptions o = opts;
    o.cdma.chips_known = false;  // a lone CDMA file: its chip and peer are not known
    const auto& peers = it.engine == Engine::tiu ? gdma_of : tiu_of;
    const auto p = peers.find(it.key);
    if ((it.engine == Engine::tiu || it.engine == Engine::gdma) && p != peers.end()) o.peer_commands = items[p->second].count;
    if (!load(it)) continue;
    it.report = cmd::validate_stream(it.engine, it.span(), o);
    release(it);
  }
  // Sets: the TIU/GDMA dry run, reported on the engine that can never proceed.
  for (const auto& [key, ti] : tiu_of) {
    const auto g = gdma_of.find(key);
    if (g == gdma_of.end()) continue;
    Item& t = items[ti];
    Item& d = items[g->second];
    if (!t.report.ok() || !d.report.ok() || !t.readable || !d.readable) continue;
    if (!load(t) || !load(d)) continue;
    const cmd::ValidationReport r = cmd::validate_core({t.span(), d.span(), {}}, opts);
    release(t);
    release(d);
    if (!r.ok()) (r.engine == Engine::tiu ? t : d).report = r;
  }
  for (Item& it : items) {
    if (it.is_bmodel) {
      if (!load(it)) {
        print_unreadable(it.path, it.unreadable, rc);
        continue;
      }
      validate_bmodel(it.path, it.bytes, opts, rc);
      release(it);
      continue;
    }
    if (!it.readable) {
      // One line per file, unreadable ones included (docs/cli.md section 3), then exit 2.
      print_unreadable(it.path, it.unreadable, rc);
      continue;
    }
    print_report(it.path, it.report, rc);
  }
  return rc;
}
}  // namespace

void register_validate(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("validate", "Validate SG2260 command buffers without running them");
  static ValidateCli opts;  // CLI11 binds by reference: must outlive parse()
  sub->preparse_callback([](size_t) { opts = ValidateCli{}; });  // a second parse in one process starts afresh
  sub->add_option("--engine", opts.engine, "tiu, gdma, sdma, hau or cdma (default: from the file name: .BD, .GDMA, .SDMA, .HAU, .CDMA)")
      ->check(CLI::IsMember({"tiu", "gdma", "sdma", "hau", "cdma"}));
  sub->add_option("--manifest", opts.manifest, "manifest.json: DDR accesses must fall inside memory.ddr_regions");
  sub->add_option("files", opts.files,
                  "command buffer files or .bmodel files (none with --manifest: every stream the manifest names)");
  sub->callback([&exit_code] { exit_code = run_validate(opts); });
}

}  // namespace tilefw::tools
