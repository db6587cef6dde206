// Op labels of generated streams (see op_labels.hpp).
#include "op_labels.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace tilefw::tools {

namespace {
const char* const kEngines[] = {"tiu", "gdma", "sdma"};
constexpr uint32_t kMaxCores = 64;
}  // namespace

std::string OpLabels::format(const gen::OpMark& m) {
  std::string s = m.op;
  if (m.expert != gen::kNoTile) s += " e" + std::to_string(m.expert);
  if (m.m != gen::kNoTile) s += " m" + std::to_string(m.m);
  if (m.n != gen::kNoTile) s += " n" + std::to_string(m.n);
  if (m.k != gen::kNoTile) s += " k" + std::to_string(m.k);
  return s;
}

std::string OpLabels::op_of(const std::string& label) { return label.substr(0, label.find(' ')); }

std::vector<OpLabels::Run>& OpLabels::runs(uint32_t core, uint32_t engine) {
  const size_t i = size_t{core} * 3 + engine;
  if (streams_.size() <= i) streams_.resize(i + 1);
  return streams_[i];
}

uint32_t OpLabels::intern(const std::string& s) {
  const auto [it, added] = index_.try_emplace(s, static_cast<uint32_t>(names_.size()));
  if (added) names_.push_back(s);
  return it->second;
}

void OpLabels::add(uint32_t core, uint32_t engine, uint32_t first_id, const std::string& label) {
  std::vector<Run>& r = runs(core, engine);
  const uint32_t name = intern(label);
  if (!r.empty() && r.back().label == name) return;
  r.push_back(Run{first_id, name});
}

gen::OpSink OpLabels::sink() noexcept {
  gen::OpSink s;
  s.user = this;
  s.fn = [](void* user, const gen::OpMark& m) {
    OpLabels& self = *static_cast<OpLabels*>(user);
    self.runs(m.core, m.engine).push_back(Run{m.first_command, self.intern(format(m))});
  };
  return s;
}

bool OpLabels::write_json(const std::string& path, std::string& error) const {
  std::ofstream f(path, std::ios::binary);
  f << "{\"format\": \"tilefw-ops-1\", \"cores\": [";
  for (size_t c = 0; c * 3 < streams_.size(); ++c) {
    f << (c ? ",\n" : "\n") << "{";
    for (uint32_t e = 0; e < 3; ++e) {
      f << (e ? ", " : "") << '"' << kEngines[e] << "\": [";
      const size_t i = c * 3 + e;
      if (i < streams_.size()) {
        bool first = true;
        for (const Run& r : streams_[i]) {
          f << (first ? "" : ",") << "[" << r.first << "," << nlohmann::json(names_[r.label]).dump() << "]";
          first = false;
        }
      }
      f << "]";
    }
    f << "}";
  }
  f << "\n]}\n";
  if (!f) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

bool OpLabels::read_json(const std::string& path, std::string& error) {
  streams_.clear();
  names_.clear();
  index_.clear();
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = path + ": cannot read";
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "tilefw-ops-1" || !j.contains("cores") ||
      !j["cores"].is_array() || j["cores"].size() > kMaxCores) {
    error = path + ": not a tilefw-ops-1 file (format, cores[])";
    return false;
  }
  for (size_t c = 0; c < j["cores"].size(); ++c) {
    const nlohmann::json& core = j["cores"][c];
    for (uint32_t e = 0; e < 3; ++e) {
      if (!core.is_object() || !core.contains(kEngines[e]) || !core[kEngines[e]].is_array()) {
        error = path + ": cores[" + std::to_string(c) + "]." + kEngines[e] + " missing or not an array";
        return false;
      }
      std::vector<Run>& out = runs(static_cast<uint32_t>(c), e);
      uint32_t last = 0;
      for (const nlohmann::json& r : core[kEngines[e]]) {
        if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_string() ||
            r[0].get<uint64_t>() <= last || r[0].get<uint64_t>() > 0xFFFFFFFFu) {
          error = path + ": cores[" + std::to_string(c) + "]." + kEngines[e] +
                  ": entries must be [increasing command id, \"label\"]";
          return false;
        }
        last = r[0].get<uint32_t>();
        out.push_back(Run{last, intern(r[1].get<std::string>())});
      }
    }
  }
  return true;
}

const std::string& OpLabels::label(uint32_t core, uint32_t engine, uint32_t id) const noexcept {
  static const std::string kNone;
  if (engine >= 3) return kNone;  // ops.json labels TIU, GDMA and SDMA (the HAU only syncs)
  const size_t i = size_t{core} * 3 + engine;
  if (i >= streams_.size() || streams_[i].empty()) return kNone;
  const std::vector<Run>& r = streams_[i];
  auto it = std::upper_bound(r.begin(), r.end(), id, [](uint32_t v, const Run& run) { return v < run.first; });
  if (it == r.begin()) return kNone;
  return names_[std::prev(it)->label];
}

}  // namespace tilefw::tools
