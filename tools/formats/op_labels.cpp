// Op labels of generated streams (see op_labels.hpp).
#include "formats/op_labels.hpp"

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

namespace {
// `label` with its expert token (" e17") naming `expert` instead; labels without one unchanged.
std::string with_expert(const std::string& label, uint32_t expert) {
  size_t at = label.find(" e");
  while (at != std::string::npos && (at + 2 >= label.size() || label[at + 2] < '0' || label[at + 2] > '9')) {
    at = label.find(" e", at + 1);
  }
  if (at == std::string::npos) return label;
  size_t end = at + 2;
  while (end < label.size() && label[end] >= '0' && label[end] <= '9') ++end;
  return label.substr(0, at) + " e" + std::to_string(expert) + label.substr(end);
}
}  // namespace

gen::OpSink OpLabels::sink() noexcept {
  gen::OpSink s;
  s.user = this;
  s.fn = [](void* user, const gen::OpMark& m) {
    OpLabels& self = *static_cast<OpLabels*>(user);
    self.runs(m.core, m.engine).push_back(Run{m.first_command, self.intern(format(m))});
  };
  // A copied expert block: the runs of its source commands again, from its own first command.
  s.copy = [](void* user, const gen::OpCopy& b) {
    OpLabels& self = *static_cast<OpLabels*>(user);
    std::vector<Run>& r = self.runs(b.core, b.engine);
    auto it = std::upper_bound(r.begin(), r.end(), b.from, [](uint32_t v, const Run& x) { return v < x.first; });
    if (it != r.begin()) --it;
    std::vector<Run> copied;
    for (; it != r.end() && it->first < b.from + b.count; ++it) {
      const uint32_t first = std::max(it->first, b.from) - b.from + b.to;
      copied.push_back(Run{first, self.intern(with_expert(self.names_[it->label], b.expert))});
    }
    r.insert(r.end(), copied.begin(), copied.end());
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

namespace {

constexpr size_t kMaxLabelBytes = 256;  // the longest label read (see OpsSax::string)

// ops.json read as a stream of SAX events, without a document in memory: a DeepSeek-V3 prefill
// layer's file is ~280 MB, whose nlohmann DOM took ~1.5 GB. Accepts exactly the shape
// write_json produces (any key order); `fail` names what is wrong.
class OpsSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  using Add = void (*)(void* user, uint32_t core, uint32_t engine, uint32_t first, const std::string& label);
  OpsSax(void* user, Add add) : user_(user), add_(add) {}

  std::string fail;  // empty when the file has the expected shape
  bool done() const { return fail.empty() && format_ok_ && cores_seen_; }

  bool null() override { return bad("unexpected null"); }
  bool boolean(bool) override { return bad("unexpected boolean"); }
  bool number_integer(number_integer_t v) override { return v < 0 ? bad("negative command id") : id(uint64_t(v)); }
  bool number_unsigned(number_unsigned_t v) override { return id(v); }
  bool number_float(number_float_t, const string_t&) override { return bad("command ids are integers"); }
  bool binary(binary_t&) override { return bad("unexpected binary value"); }
  bool string(string_t& v) override {
    if (depth_ == 1 && key_ == "format") {
      format_ok_ = v == "tilefw-ops-1";
      return format_ok_ || bad("not a tilefw-ops-1 file (format)");
    }
    if (depth_ != 5 || in_entry_ != 1) return bad("entries must be [increasing command id, \"label\"]");
    // A label is copied into every traced record's name: a long one made a small ops.json cost
    // gigabytes (0.8 MB -> 2.2 GiB under --trace). tilefw's own are under 64 bytes.
    if (v.size() > kMaxLabelBytes) return bad("a label is longer than " + std::to_string(kMaxLabelBytes) + " bytes");
    in_entry_ = 2;
    add_(user_, core_, engine_, first_, v);
    return true;
  }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 3 && in_cores_) {
      if (++core_count_ > kMaxCores) return bad("more cores than " + std::to_string(kMaxCores));
      core_ = core_count_ - 1;
      for (bool& e : engine_seen_) e = false;
      return true;
    }
    return bad("unexpected object");
  }
  bool end_object() override {
    if (depth_ == 3) {
      for (uint32_t e = 0; e < 3; ++e) {
        if (!engine_seen_[e]) return bad(where() + "." + kEngines[e] + " missing or not an array");
      }
    }
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && key_ == "cores") {
      in_cores_ = cores_seen_ = true;
      return true;
    }
    if (depth_ == 4 && in_cores_) {
      engine_ = 3;
      for (uint32_t e = 0; e < 3; ++e) {
        if (key_ == kEngines[e]) engine_ = e;
      }
      if (engine_ == 3) return bad(where() + ": unknown engine \"" + key_ + "\"");
      engine_seen_[engine_] = true;
      last_ = 0;
      return true;
    }
    if (depth_ == 5 && engine_ < 3) {
      in_entry_ = 0;  // expecting the id
      return true;
    }
    return bad("unexpected array");
  }
  bool end_array() override {
    if (depth_ == 5 && in_entry_ != 2) return bad(entries());
    if (depth_ == 2) in_cores_ = false;
    if (depth_ == 4) engine_ = 3;
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    return bad("not JSON (byte " + std::to_string(position) + ")");
  }

 private:
  bool bad(const std::string& what) {
    if (fail.empty()) fail = what;
    return false;
  }
  std::string where() const { return "cores[" + std::to_string(core_) + "]"; }
  std::string entries() const {
    return where() + "." + kEngines[engine_ < 3 ? engine_ : 0] + ": entries must be [increasing command id, \"label\"]";
  }
  bool id(uint64_t v) {
    if (depth_ != 5 || in_entry_ != 0 || v <= last_ || v > 0xFFFFFFFFu) return bad(entries());
    last_ = first_ = static_cast<uint32_t>(v);
    in_entry_ = 1;
    return true;
  }

  void* user_;
  Add add_;
  uint32_t depth_ = 0, core_ = 0, core_count_ = 0, engine_ = 3, first_ = 0, last_ = 0, in_entry_ = 0;
  bool in_cores_ = false, cores_seen_ = false, format_ok_ = false;
  bool engine_seen_[3] = {};
  std::string key_;
};

}  // namespace

bool OpLabels::read_json(const std::string& path, std::string& error) {
  streams_.clear();
  names_.clear();
  index_.clear();
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = path + ": cannot read";
    return false;
  }
  OpsSax sax(this, [](void* user, uint32_t core, uint32_t engine, uint32_t first, const std::string& label) {
    OpLabels& self = *static_cast<OpLabels*>(user);
    self.runs(core, engine).push_back(Run{first, self.intern(label)});
  });
  const bool parsed = nlohmann::json::sax_parse(f, &sax, nlohmann::json::input_format_t::json, true);
  if (!parsed || !sax.done()) {
    error = path + ": " + (!sax.fail.empty() ? sax.fail : "not a tilefw-ops-1 file (format, cores[])");
    streams_.clear();
    names_.clear();
    index_.clear();
    return false;
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
