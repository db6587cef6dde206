// The SG2260 model manifest: its reader, shared by `tilefw run` and `tilefw validate --manifest`,
// and its writer, used by `tilefw gen` (sg2260_manifest.hpp): one module decides what a
// manifest may say and how it is said.
#include "formats/sg2260_manifest.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/input_files.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
using json = nlohmann::json;

// A rule broken at `key`; caught once, in parse_manifest.
struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void bad(const std::string& key, const std::string& what) { throw Bad(key + ": " + what); }

const json& member(const json& o, const char* name, const std::string& where) {
  const auto it = o.find(name);
  if (it == o.end()) bad(where, std::string("missing key \"") + name + "\"");
  return *it;
}
const json* optional(const json& o, const char* name) {
  const auto it = o.find(name);
  return it == o.end() ? nullptr : &*it;
}
void need_object(const json& j, const std::string& key) {
  if (!j.is_object()) bad(key, "expected an object, found " + std::string(j.type_name()));
}
void need_array(const json& j, const std::string& key) {
  if (!j.is_array()) bad(key, "expected an array, found " + std::string(j.type_name()));
}
uint64_t number(const json& j, const std::string& key, uint64_t max) {
  uint64_t v = 0;
  try {
    v = manifest_number(j);
  } catch (const std::invalid_argument& e) {
    bad(key, e.what());
  }
  if (v > max) bad(key, std::to_string(v) + " is out of range 0.." + std::to_string(max));
  return v;
}
std::string text(const json& j, const std::string& key) {
  if (!j.is_string()) bad(key, "expected a string, found " + std::string(j.type_name()));
  return j.get<std::string>();
}
std::string file_name(const json& o, const std::string& key, const std::string& dir, const char* name = "file") {
  const std::string f = text(member(o, name, key), key + "." + name);
  if (f.empty() || f.find('\0') != std::string::npos) bad(key + "." + name, "not a file name");
  return (std::filesystem::path(dir) / f).string();
}

// The informative keys: taken when present with the right type, ignored otherwise (run never
// depends on them, so they are never an error).
std::string said_text(const json& o, const char* name) {
  const json* v = o.is_object() ? optional(o, name) : nullptr;
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}
bool said_number(const json& o, const char* name, uint64_t& out) {
  const json* v = o.is_object() ? optional(o, name) : nullptr;
  if (v == nullptr) return false;
  try {
    out = manifest_number(*v);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}
std::vector<uint64_t> said_shape(const json& o) {
  std::vector<uint64_t> dims;
  const json* v = optional(o, "shape");
  if (v == nullptr || !v->is_array()) return dims;
  for (const json& d : *v) {
    if (!d.is_number_unsigned()) return {};
    dims.push_back(d.get<uint64_t>());
  }
  return dims;
}

constexpr uint64_t kMaxDmaAddress = (uint64_t{1} << sg::kDmaAddressBits) - 1;
constexpr uint64_t kTagSpace = uint64_t{1} << sg::kTagShift;

void read_regions(const json& j, Manifest& m, const std::string& dir) {
  const json* mem = optional(j, "memory");
  if (mem == nullptr) return;
  need_object(*mem, "memory");
  const json* list = optional(*mem, "ddr_regions");
  if (list == nullptr) return;
  need_array(*list, "memory.ddr_regions");
  if (list->size() > kMaxManifestRegions) bad("memory.ddr_regions", "more than " + std::to_string(kMaxManifestRegions) + " regions");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string key = "memory.ddr_regions[" + std::to_string(i) + "]";
    const json& r = (*list)[i];
    need_object(r, key);
    ManifestRegion g;
    g.tag = static_cast<uint32_t>(number(member(r, "tag", key), key + ".tag", sg::kMaxDdrTag));
    g.device_addr = number(member(r, "device_addr", key), key + ".device_addr", kMaxDmaAddress);
    g.bytes = number(member(r, "bytes", key), key + ".bytes", kTagSpace);
    if (sg::dma_tag(g.device_addr) != g.tag) {
      bad(key + ".device_addr", "its tag " + std::to_string(sg::dma_tag(g.device_addr)) + " is not the region's tag " +
                                    std::to_string(g.tag));
    }
    if (g.bytes == 0) bad(key + ".bytes", "an empty region");
    if (g.bytes > kTagSpace - sg::dma_offset(g.device_addr)) {
      bad(key + ".bytes", "the region runs past the end of tag " + std::to_string(g.tag) + "'s 2^40-byte space");
    }
    for (size_t k = 0; k < m.regions.size(); ++k) {
      const ManifestRegion& o = m.regions[k];
      if (g.device_addr < o.device_addr + o.bytes && o.device_addr < g.device_addr + g.bytes) {
        bad(key, "overlaps memory.ddr_regions[" + std::to_string(k) + "]");
      }
    }
    if (optional(r, "init_file") != nullptr) g.init_file = file_name(r, key, dir, "init_file");
    g.role = said_text(r, "role");
    g.init_note = said_text(r, "init");
    m.regions.push_back(g);
  }
}

// The index of the region holding [addr, addr + bytes), or bad().
void inside_region(const Manifest& m, uint64_t addr, uint64_t bytes, const std::string& key) {
  for (const ManifestRegion& r : m.regions) {
    if (addr >= r.device_addr && addr - r.device_addr <= r.bytes && bytes <= r.bytes - (addr - r.device_addr)) return;
  }
  bad(key, "bytes [" + std::to_string(addr) + ", +" + std::to_string(bytes) + ") lie in no single memory.ddr_regions entry");
}

void read_tensors(const json& j, Manifest& m, const std::string& dir, bool timing_only) {
  std::set<std::string> names;  // outputs'
  for (const char* list_key : {"inputs", "outputs"}) {
    const json* list = optional(j, list_key);
    if (list == nullptr) continue;
    need_array(*list, list_key);
    if (list->size() > kMaxManifestTensors) {
      bad(list_key, "more than " + std::to_string(kMaxManifestTensors) + " entries");
    }
    const bool input = std::string(list_key) == "inputs";
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string key = std::string(list_key) + "[" + std::to_string(i) + "]";
      const json& t = (*list)[i];
      need_object(t, key);
      ManifestTensor x;
      x.name = text(member(t, "name", key), key + ".name");
      x.device_addr = number(member(t, "device_addr", key), key + ".device_addr", kMaxDmaAddress);
      x.bytes = number(member(t, "bytes", key), key + ".bytes", kTagSpace);
      inside_region(m, x.device_addr, x.bytes, key);
      x.shape = said_shape(t);
      x.dtype = said_text(t, "dtype");
      if (input) {
        if (!timing_only || optional(t, "file") != nullptr) x.file = file_name(t, key, dir);
        if (const json* o = optional(t, "file_offset")) x.file_offset = number(*o, key + ".file_offset", UINT64_MAX);
        m.inputs.push_back(x);
        continue;
      }
      if (!plain_file_name(x.name)) {
        bad(key + ".name", "\"" + escape_line(x.name) + "\" is not a plain file name (the output is <--out>/<name>.dat)");
      }
      if (!names.insert(x.name).second) bad(key + ".name", "\"" + escape_line(x.name) + "\" names two outputs");
      m.outputs.push_back(x);
    }
  }
}

void read_cores(const json& j, Manifest& m, const std::string& dir) {
  const json& cores = member(j, "cores", "manifest");
  need_array(cores, "cores");
  if (cores.empty()) bad("cores", "empty: nothing to run");
  bool seen[sg::kCores] = {};
  for (size_t i = 0; i < cores.size(); ++i) {
    const std::string key = "cores[" + std::to_string(i) + "]";
    const json& c = cores[i];
    need_object(c, key);
    ManifestCore cf;
    cf.core = static_cast<uint32_t>(number(member(c, "core", key), key + ".core", sg::kCores - 1));
    if (seen[cf.core]) bad(key + ".core", "core " + std::to_string(cf.core) + " appears twice");
    seen[cf.core] = true;
    const char* const* engines = kManifestEngineNames;
    for (int e = 0; e < kManifestEngines; ++e) {
      const json* s = optional(c, engines[e]);
      if (s == nullptr) {
        if (e < 2) bad(key, std::string("missing key \"") + engines[e] + "\" (every core has a tiu and a gdma stream)");
        continue;
      }
      need_object(*s, key + "." + engines[e]);
      cf.file[e] = file_name(*s, key + "." + engines[e], dir);
      cf.sized = (e == 0 || cf.sized) && said_number(*s, "bytes", cf.bytes[e]) && said_number(*s, "commands", cf.commands[e]);
    }
    m.cores.push_back(std::move(cf));
  }
}

// The report figures run reads (the performance report): numbers where numbers are used, strings for names.
void read_report(const json& j, Manifest& m) {
  const json* r = optional(j, "report");
  if (r == nullptr) return;
  need_object(*r, "report");
  for (const char* k : {"flops", "bytes_ddr", "capacity", "batch", "seq"}) {
    const json* v = optional(*r, k);
    if (v != nullptr && !v->is_number()) (void)number(*v, std::string("report.") + k, UINT64_MAX);
    if (v != nullptr && v->is_number() && !(v->get<double>() >= 0)) bad(std::string("report.") + k, "not a number >= 0");
  }
  for (const char* k : {"dtype", "phase"}) {
    if (const json* v = optional(*r, k)) (void)text(*v, std::string("report.") + k);
  }
  m.report = *r;
}

// "moe_phases": {"generator": {"config": FILE, ...request...}} (moe_phases.cpp reads the
// request's values; here only the shape and the config file's name).
void read_moe_phases(const json& j, Manifest& m, const std::string& dir) {
  const json* ph = optional(j, "moe_phases");
  if (ph == nullptr) return;
  need_object(*ph, "moe_phases");
  const json& g = member(*ph, "generator", "moe_phases");
  need_object(g, "moe_phases.generator");
  m.moe_config = file_name(g, "moe_phases.generator", dir, "config");
  m.moe_phases = *ph;
}

// The informative top-level keys and the weights list (each entry taken when it has a name,
// a device_addr and bytes; its file resolved like an input's).
void read_description(const json& j, Manifest& m, const std::string& dir) {
  m.name = said_text(j, "name");
  m.chip = said_text(j, "chip");
  if (const json* a = optional(j, "chip_aliases"); a != nullptr && a->is_array()) {
    for (const json& x : *a) {
      if (x.is_string()) m.chip_aliases.push_back(x.get<std::string>());
    }
  }
  (void)said_number(j, "core_num", m.core_num);
  if (const json* mem = optional(j, "memory"); mem != nullptr && mem->is_object()) {
    if (const json* l2 = optional(*mem, "l2"); l2 != nullptr && l2->is_object()) {
      m.l2.given = said_number(*l2, "offset", m.l2.offset) && said_number(*l2, "bytes", m.l2.bytes);
    }
    m.l2.given = said_number(*mem, "lmem_bytes_per_lane", m.l2.lmem_bytes_per_lane) && m.l2.given;
  }
  const json* weights = optional(j, "weights");
  if (weights == nullptr || !weights->is_array()) return;
  for (const json& w : *weights) {
    ManifestTensor t;
    t.name = said_text(w, "name");
    if (t.name.empty() || !said_number(w, "device_addr", t.device_addr) || !said_number(w, "bytes", t.bytes)) continue;
    const std::string f = said_text(w, "file");
    if (!f.empty()) t.file = (std::filesystem::path(dir) / f).string();
    (void)said_number(w, "file_offset", t.file_offset);
    t.shape = said_shape(w);
    t.dtype = said_text(w, "dtype");
    m.weights.push_back(std::move(t));
  }
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

json tensor_json(const ManifestTensor& t) {
  json j = {{"name", t.name}, {"device_addr", hex(t.device_addr)}, {"tag", sg::dma_tag(t.device_addr)}, {"bytes", t.bytes}};
  if (!t.shape.empty()) j["shape"] = t.shape;
  if (!t.dtype.empty()) j["dtype"] = t.dtype;
  if (!t.file.empty()) {
    j["file"] = t.file;
    j["file_offset"] = t.file_offset;
  }
  return j;
}

json region_json(const ManifestRegion& r) {
  json j = {{"tag", r.tag}, {"device_addr", hex(r.device_addr)}, {"bytes", r.bytes}};
  if (!r.init_file.empty()) j["init_file"] = r.init_file;
  if (!r.role.empty()) j["role"] = r.role;
  if (!r.init_note.empty()) j["init"] = r.init_note;
  return j;
}

json core_json(const ManifestCore& c) {
  json j = {{"core", c.core}};
  for (int e = 0; e < kManifestEngines; ++e) {
    if (c.file[e].empty()) continue;
    json s = {{"file", c.file[e]}};
    if (c.sized) {
      s["bytes"] = c.bytes[e];
      s["commands"] = c.commands[e];
    }
    j[kManifestEngineNames[e]] = s;
  }
  return j;
}

}  // namespace

json manifest_json(const Manifest& m) {
  json j = json::object();
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.chip.empty()) j["chip"] = m.chip;
  if (!m.chip_aliases.empty()) j["chip_aliases"] = m.chip_aliases;
  if (m.core_num != 0) j["core_num"] = m.core_num;
  json regions = json::array(), cores = json::array();
  for (const ManifestRegion& r : m.regions) regions.push_back(region_json(r));
  j["memory"] = {{"ddr_regions", regions}};
  if (m.l2.given) {
    j["memory"]["l2"] = {{"offset", hex(m.l2.offset)}, {"bytes", m.l2.bytes}};
    j["memory"]["lmem_bytes_per_lane"] = m.l2.lmem_bytes_per_lane;
  }
  const std::pair<const char*, const std::vector<ManifestTensor>*> lists[] = {
      {"weights", &m.weights}, {"inputs", &m.inputs}, {"outputs", &m.outputs}};
  for (const auto& [key, list] : lists) {
    j[key] = json::array();
    for (const ManifestTensor& t : *list) j[key].push_back(tensor_json(t));
  }
  for (const ManifestCore& c : m.cores) cores.push_back(core_json(c));
  j["cores"] = cores;
  if (!m.report.is_null()) j["report"] = m.report;
  if (!m.moe_phases.is_null()) j["moe_phases"] = m.moe_phases;
  return j;
}

bool write_manifest(const std::string& path, const Manifest& m, std::string& error) {
  std::ofstream f(path);
  f << manifest_json(m).dump(1) << "\n";
  if (f) return true;
  error = "cannot write " + path;
  return false;
}

bool plain_file_name(const std::string& n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos;
}

uint64_t Manifest::ddr_bytes() const noexcept {
  uint64_t n = 0;
  for (const ManifestRegion& r : regions) n += r.bytes;  // at most 30 x 2^40: no overflow
  return n;
}

bool parse_manifest(const json& j, const std::string& dir, bool timing_only, Manifest& out, std::string& error) {
  Manifest m;
  try {
    if (!j.is_object()) bad("manifest", "the top level is not an object");
    read_regions(j, m, dir);
    read_tensors(j, m, dir, timing_only);
    read_cores(j, m, dir);
    read_report(j, m);
    read_moe_phases(j, m, dir);
    read_description(j, m, dir);
  } catch (const Bad& e) {
    error = e.what();
    return false;
  } catch (const std::exception& e) {  // nlohmann type errors inside the checks above
    error = e.what();
    return false;
  }
  out = std::move(m);
  return true;
}

bool read_manifest(const std::string& path, bool timing_only, Manifest& out, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!read_whole_file(path, kMaxManifestBytes, bytes, error)) return false;
  json j;
  try {
    j = json::parse(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    error = path + ": not JSON: " + e.what();
    return false;
  }
  if (!parse_manifest(j, std::filesystem::path(path).parent_path().string(), timing_only, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

}  // namespace tilefw::tools
