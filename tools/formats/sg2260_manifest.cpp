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

// The optional "chip" of an entry (default 0), below the system's chip count.
uint32_t chip_of(const json& o, const std::string& key, const Manifest& m) {
  const json* c = optional(o, "chip");
  if (c == nullptr) return 0;
  const uint64_t v = number(*c, key + ".chip", UINT32_MAX);
  if (v >= m.system.chips) {
    bad(key + ".chip", "chip " + std::to_string(v) + " is past the system's " + std::to_string(m.system.chips) +
                           (m.system.given ? " chips" : " chip (no \"system\" key: one chip)"));
  }
  return static_cast<uint32_t>(v);
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
    g.chip = chip_of(r, key, m);
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
      if (o.chip == g.chip && g.device_addr < o.device_addr + o.bytes && o.device_addr < g.device_addr + g.bytes) {
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
void inside_region(const Manifest& m, uint32_t chip, uint64_t addr, uint64_t bytes, const std::string& key) {
  for (const ManifestRegion& r : m.regions) {
    if (r.chip == chip && addr >= r.device_addr && addr - r.device_addr <= r.bytes && bytes <= r.bytes - (addr - r.device_addr)) return;
  }
  bad(key, "bytes [" + std::to_string(addr) + ", +" + std::to_string(bytes) + ") lie in no single memory.ddr_regions entry" +
                   (m.system.chips > 1 ? " of chip " + std::to_string(chip) : std::string()));
}

// "parts": [{"chip", "device_addr", "offset", "bytes"}]: in offset order, covering [0, bytes)
// of the tensor exactly, each inside a region of its chip.
void read_parts(const json& list, const std::string& where, const Manifest& m, ManifestTensor& x) {
  need_array(list, where);
  if (list.empty() || list.size() > kMaxManifestTensors) bad(where, "empty or more than 4096 parts");
  uint64_t at = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string key = where + "[" + std::to_string(i) + "]";
    need_object(list[i], key);
    ManifestPart p;
    p.chip = chip_of(list[i], key, m);
    p.device_addr = number(member(list[i], "device_addr", key), key + ".device_addr", kMaxDmaAddress);
    p.offset = number(member(list[i], "offset", key), key + ".offset", kTagSpace);
    p.bytes = number(member(list[i], "bytes", key), key + ".bytes", kTagSpace);
    if (p.offset != at) bad(key + ".offset", "parts must cover the tensor in order, without gaps or overlaps");
    inside_region(m, p.chip, p.device_addr, p.bytes, key);
    at += p.bytes;
    x.parts.push_back(p);
  }
  if (at != x.bytes) bad(where, "the parts hold " + std::to_string(at) + " of the tensor's " + std::to_string(x.bytes) + " bytes");
  x.chip = x.parts[0].chip;
  x.device_addr = x.parts[0].device_addr;
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
      x.chip = chip_of(t, key, m);
      x.name = text(member(t, "name", key), key + ".name");
      x.device_addr = number(member(t, "device_addr", key), key + ".device_addr", kMaxDmaAddress);
      x.bytes = number(member(t, "bytes", key), key + ".bytes", kTagSpace);
      if (const json* parts = optional(t, "parts")) {
        read_parts(*parts, key + ".parts", m, x);
      } else {
        inside_region(m, x.chip, x.device_addr, x.bytes, key);
      }
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

void read_core_list(const json& cores, const std::string& where, Manifest& m, const std::string& dir,
                    std::vector<ManifestCore>& out) {
  need_array(cores, where);
  std::set<std::pair<uint32_t, uint32_t>> seen;  // (chip, core)
  for (size_t i = 0; i < cores.size(); ++i) {
    const std::string key = where + "[" + std::to_string(i) + "]";
    const json& c = cores[i];
    need_object(c, key);
    ManifestCore cf;
    cf.chip = chip_of(c, key, m);
    cf.core = static_cast<uint32_t>(number(member(c, "core", key), key + ".core", sg::kCores - 1));
    if (!seen.insert({cf.chip, cf.core}).second) {
      bad(key + ".core", "core " + std::to_string(cf.core) + (m.system.chips > 1 ? " of chip " + std::to_string(cf.chip) : "") +
                             " appears twice");
    }
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
    out.push_back(std::move(cf));
  }
}

void read_cores(const json& j, Manifest& m, const std::string& dir) {
  const json* listed = optional(j, "cores");
  const bool others = !m.cdma.empty() || !m.steps.empty();
  if (listed == nullptr && !others) bad("manifest", "missing key \"cores\"");
  const json& cores = listed != nullptr ? *listed : json::array();
  need_array(cores, "cores");
  if (cores.empty() && !others) bad("cores", "empty: nothing to run");
  read_core_list(cores, "cores", m, dir, m.cores);
}

void read_system(const json& j, Manifest& m) {
  const json* s = optional(j, "system");
  if (s == nullptr) return;
  std::string error;
  if (!parse_system(*s, "system", m.system, error)) throw Bad(error);
}

// "cdma": [{"chip": k, "peer": j, "file": NAME, "file_offset": O}]: one stream per (chip, peer).
void read_cdma_list(const json& jlist, const std::string& where, Manifest& m, const std::string& dir,
                    std::vector<ManifestCdma>& out) {
  const json* list = &jlist;
  need_array(*list, where);
  if (list->size() > size_t{m.system.chips} * 10) bad(where, "more streams than the system's chips have CDMA ports (10 each)");
  if (!m.system.given && !list->empty()) bad(where, "CDMA streams need a \"system\" of at least 2 chips");
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string key = where + "[" + std::to_string(i) + "]";
    const json& c = (*list)[i];
    need_object(c, key);
    ManifestCdma x;
    if (optional(c, "chip") == nullptr) bad(key, "missing key \"chip\"");
    x.chip = chip_of(c, key, m);
    const uint64_t peer = number(member(c, "peer", key), key + ".peer", UINT32_MAX);
    if (peer >= m.system.chips) {
      bad(key + ".peer", "chip " + std::to_string(peer) + " is past the system's " + std::to_string(m.system.chips) + " chips");
    }
    x.peer = static_cast<uint32_t>(peer);
    if (x.peer == x.chip) bad(key + ".peer", "chip " + std::to_string(x.chip) + " has no CDMA port to itself");
    if (!seen.insert({x.chip, x.peer}).second) {
      bad(key, "a second stream for chip " + std::to_string(x.chip) + "'s port to chip " + std::to_string(x.peer) +
                   " (one stream per port)");
    }
    x.file = file_name(c, key, dir);
    if (const json* o = optional(c, "file_offset")) x.file_offset = number(*o, key + ".file_offset", UINT64_MAX);
    x.sized = said_number(c, "bytes", x.bytes) && said_number(c, "commands", x.commands);
    out.push_back(std::move(x));
  }
}

void read_cdma(const json& j, Manifest& m, const std::string& dir) {
  if (const json* list = optional(j, "cdma")) read_cdma_list(*list, "cdma", m, dir, m.cdma);
}

// "model": {"generator": {"config": FILE, ...request...}, "steps": [{"name", "kind", "layer",
// "two_phase", "cores": [...]}, ...]} (a whole model, docs/whole-model.md); a transfer step has
// "cdma": [...] or, generated at run time, "alltoall": {...} (read_alltoall).
void read_model(const json& j, Manifest& m, const std::string& dir) {
  const json* md = optional(j, "model");
  if (md == nullptr) return;
  need_object(*md, "model");
  const json& g = member(*md, "generator", "model");
  need_object(g, "model.generator");
  m.model_config = file_name(g, "model.generator", dir, "config");
  const json& steps = member(*md, "steps", "model");
  need_array(steps, "model.steps");
  if (steps.empty()) bad("model.steps", "empty: nothing to run");
  if (steps.size() > 1u << 16) bad("model.steps", "more than 65536 steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string key = "model.steps[" + std::to_string(i) + "]";
    const json& st = steps[i];
    need_object(st, key);
    ManifestStep s;
    s.name = text(member(st, "name", key), key + ".name");
    s.kind = text(member(st, "kind", key), key + ".kind");
    if (s.kind != "embed" && s.kind != "layer" && s.kind != "head" && s.kind != "xfer") {
      bad(key + ".kind", "not embed, layer, head or xfer");
    }
    if (const json* l = optional(st, "layer")) s.layer = static_cast<uint32_t>(number(*l, key + ".layer", UINT32_MAX));
    if (const json* l = optional(st, "slot")) s.slot = static_cast<uint32_t>(number(*l, key + ".slot", UINT32_MAX));
    if (const json* l = optional(st, "microbatch")) {
      s.microbatch = static_cast<uint32_t>(number(*l, key + ".microbatch", UINT32_MAX));
    }
    if (i > 0 && s.slot < m.steps.back().slot) bad(key + ".slot", "slots go down (steps are listed in run order)");
    if (i > 0 && s.slot == m.steps.back().slot && (s.kind == "xfer") != (m.steps.back().kind == "xfer")) {
      bad(key + ".slot", "a slot holds transfers or compute steps, not both");
    }
    if (const json* t = optional(st, "two_phase")) {
      if (!t->is_boolean()) bad(key + ".two_phase", "not a boolean");
      s.two_phase = t->get<bool>();
    }
    const json* a2a = optional(st, "alltoall");
    if (a2a != nullptr && s.kind != "xfer") bad(key + ".alltoall", "only a transfer step (kind xfer) is generated at run time");
    if (a2a != nullptr) {  // its streams are generated at run time: it names none
      s.alltoall = read_alltoall(*a2a, key + ".alltoall", m);
      if (optional(st, "cdma") != nullptr) bad(key + ".cdma", "a transfer generated at run time (alltoall) names no streams");
    } else if (s.kind == "xfer") {
      read_cdma_list(member(st, "cdma", key), key + ".cdma", m, dir, s.cdma);
      if (s.cdma.empty()) bad(key + ".cdma", "empty");
    } else {
      read_core_list(member(st, "cores", key), key + ".cores", m, dir, s.cores);
      if (s.cores.empty()) bad(key + ".cores", "empty");
      for (const ManifestCore& c : s.cores) {
        if (c.chip != s.cores.front().chip) bad(key + ".cores", "a step runs on one chip (its cores name chips " +
                                                                   std::to_string(s.cores.front().chip) + " and " + std::to_string(c.chip) + ")");
      }
    }
    m.steps.push_back(std::move(s));
  }
  m.model = *md;
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
  if (t.chip != 0) j["chip"] = t.chip;
  if (!t.shape.empty()) j["shape"] = t.shape;
  if (!t.dtype.empty()) j["dtype"] = t.dtype;
  if (!t.file.empty()) {
    j["file"] = t.file;
    j["file_offset"] = t.file_offset;
  }
  if (!t.parts.empty()) {
    j["parts"] = json::array();
    for (const ManifestPart& p : t.parts) {
      j["parts"].push_back({{"chip", p.chip}, {"device_addr", hex(p.device_addr)}, {"offset", p.offset}, {"bytes", p.bytes}});
    }
  }
  return j;
}

json cdma_json(const ManifestCdma& c) {
  json e = {{"chip", c.chip}, {"peer", c.peer}, {"file", c.file}};
  if (c.file_offset != 0) e["file_offset"] = c.file_offset;
  if (c.sized) {
    e["bytes"] = c.bytes;
    e["commands"] = c.commands;
  }
  return e;
}

json region_json(const ManifestRegion& r) {
  json j = {{"tag", r.tag}, {"device_addr", hex(r.device_addr)}, {"bytes", r.bytes}};
  if (r.chip != 0) j["chip"] = r.chip;
  if (!r.init_file.empty()) j["init_file"] = r.init_file;
  if (!r.role.empty()) j["role"] = r.role;
  if (!r.init_note.empty()) j["init"] = r.init_note;
  return j;
}

json core_json(const ManifestCore& c) {
  json j = {{"core", c.core}};
  if (c.chip != 0) j["chip"] = c.chip;
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
  if (m.system.given) j["system"] = system_json(m.system);
  if (!m.cdma.empty()) {
    j["cdma"] = json::array();
    for (const ManifestCdma& c : m.cdma) j["cdma"].push_back(cdma_json(c));
  }
  if (!m.report.is_null()) j["report"] = m.report;
  if (!m.moe_phases.is_null()) j["moe_phases"] = m.moe_phases;
  if (!m.model.is_null() || !m.steps.empty()) {
    json md = m.model.is_object() ? m.model : json::object();
    md["steps"] = json::array();
    for (const ManifestStep& s : m.steps) {
      json st = {{"name", s.name}, {"kind", s.kind}, {"layer", s.layer}, {"two_phase", s.two_phase},
                 {"slot", s.slot}, {"microbatch", s.microbatch}};
      if (s.alltoall) {
        st["alltoall"] = alltoall_json(*s.alltoall);
      } else if (s.kind == "xfer") {
        st["cdma"] = json::array();
        for (const ManifestCdma& c : s.cdma) st["cdma"].push_back(cdma_json(c));
      } else {
        st["cores"] = json::array();
        for (const ManifestCore& c : s.cores) st["cores"].push_back(core_json(c));
      }
      md["steps"].push_back(st);
    }
    j["model"] = md;
  }
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
    read_system(j, m);
    read_regions(j, m, dir);
    read_tensors(j, m, dir, timing_only);
    read_cdma(j, m, dir);
    read_model(j, m, dir);
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
