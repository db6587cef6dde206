// The "system" object of multi-chip manifests and --system files (c2c_system.hpp).
#include "formats/c2c_system.hpp"

#include <cmath>
#include <set>

#include "common/input_files.hpp"
#include "tilefw/cmd/topology.hpp"

namespace tilefw::tools {

namespace {
using json = nlohmann::json;

constexpr uint64_t kMaxSystemFileBytes = 64 * 1024;

// A figure: a JSON number, finite, > 0 (or >= 0 when `zero_ok`).
bool figure(const json& o, const char* name, const std::string& key, bool zero_ok, double& out, std::string& error) {
  const auto it = o.find(name);
  if (it == o.end()) return true;
  const std::string where = key + "." + name;
  if (!it->is_number()) {
    error = where + ": expected a number, found " + std::string(it->type_name());
    return false;
  }
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || (v == 0 && !zero_ok) || v > 1e12) {
    error = where + ": " + it->dump() + (zero_ok ? " is not a finite number >= 0" : " is not a finite number > 0");
    return false;
  }
  out = v;
  return true;
}

}  // namespace

std::string SystemSpec::topology_or_default() const {
  return topology.empty() ? "ring:" + std::to_string(chips) : topology;
}

SystemSpec default_system(uint32_t chips) {
  const cmd::C2cFigures d{};
  SystemSpec s;
  s.chips = chips;
  s.link_gbytes_per_s = d.link_gbytes_per_s;
  s.link_latency_ns = d.link_latency_ns;
  s.alpha_ns = d.alpha_ns;
  s.beta_ns = d.beta_ns;
  return s;
}

bool parse_system(const json& j, const std::string& key, SystemSpec& out, std::string& error) {
  if (!j.is_object()) {
    error = key + ": expected an object, found " + std::string(j.type_name());
    return false;
  }
  static const std::set<std::string> kKeys = {"chips", "topology", "link_gbytes_per_s", "link_latency_ns", "alpha_ns",
                                              "beta_ns"};
  for (const auto& [name, value] : j.items()) {
    if (kKeys.count(name) == 0) {
      error = key + "." + name + ": not a system key (chips, topology, link_gbytes_per_s, link_latency_ns, alpha_ns, beta_ns)";
      return false;
    }
  }
  const auto chips = j.find("chips");
  if (chips == j.end()) {
    error = key + ": missing key \"chips\"";
    return false;
  }
  if (!chips->is_number_integer() || chips->get<int64_t>() < 1 || chips->get<int64_t>() > int64_t{cmd::Topology::kMaxChips}) {
    error = key + ".chips: " + chips->dump() + " is not a chip count 1.." + std::to_string(cmd::Topology::kMaxChips);
    return false;
  }
  SystemSpec s = default_system(static_cast<uint32_t>(chips->get<int64_t>()));
  s.given = true;
  if (const auto t = j.find("topology"); t != j.end()) {
    if (!t->is_string()) {
      error = key + ".topology: expected a string, found " + std::string(t->type_name());
      return false;
    }
    s.topology = t->get<std::string>();
  }
  if (!figure(j, "link_gbytes_per_s", key, false, s.link_gbytes_per_s, error) ||
      !figure(j, "link_latency_ns", key, true, s.link_latency_ns, error) ||
      !figure(j, "alpha_ns", key, true, s.alpha_ns, error) || !figure(j, "beta_ns", key, true, s.beta_ns, error)) {
    return false;
  }
  cmd::Topology topology;
  const std::string text = s.topology_or_default();
  if (topology.parse(text.data(), text.size(), s.chips) != Status::ok) {
    error = key + ".topology: \"" + escape_line(text) + "\": " + topology.message();
    return false;
  }
  out = s;
  return true;
}

bool read_system_file(const std::string& path, SystemSpec& out, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!read_whole_file(path, kMaxSystemFileBytes, bytes, error)) return false;
  json j;
  try {
    j = json::parse(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    error = path + ": not JSON: " + e.what();
    return false;
  }
  if (!parse_system(j, "system", out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

json system_json(const SystemSpec& s) {
  return {{"chips", s.chips},
          {"topology", s.topology_or_default()},
          {"link_gbytes_per_s", s.link_gbytes_per_s},
          {"link_latency_ns", s.link_latency_ns},
          {"alpha_ns", s.alpha_ns},
          {"beta_ns", s.beta_ns}};
}

}  // namespace tilefw::tools
