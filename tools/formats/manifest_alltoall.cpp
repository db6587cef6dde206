// A transfer step generated at run time in an SG2260 model manifest (sg2260_manifest.hpp,
// ManifestAlltoall): the "alltoall" object's reader and writer. gen writes no CDMA streams for
// such a step; `run` generates them from the routing, so the manifest says only which group,
// layer and micro-batch, and where each chip's rows and routing choices are.
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "formats/sg2260_manifest.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
using json = nlohmann::json;

[[noreturn]] void refuse(const std::string& key, const std::string& what) { throw std::runtime_error(key + ": " + what); }

const json& required(const json& o, const char* name, const std::string& key) {
  const auto it = o.find(name);
  if (it == o.end()) refuse(key, std::string("missing key \"") + name + "\"");
  return *it;
}

uint64_t number_at(const json& o, const char* name, const std::string& key, uint64_t max) {
  const std::string at = key + "." + name;
  uint64_t v = 0;
  try {
    v = manifest_number(required(o, name, key));
  } catch (const std::invalid_argument& e) {
    refuse(at, e.what());
  }
  if (v > max) refuse(at, std::to_string(v) + " is out of range 0.." + std::to_string(max));
  return v;
}

// An address of chip `chip` inside one of its memory.ddr_regions entries (the buffer's size is
// the layer's, which the manifest does not say: its first byte is checked).
uint64_t address_at(const json& o, const char* name, const std::string& key, const Manifest& m, uint32_t chip) {
  const uint64_t a = number_at(o, name, key, (uint64_t{1} << sg::kDmaAddressBits) - 1);
  for (const ManifestRegion& r : m.regions) {
    if (r.chip == chip && a >= r.device_addr && a - r.device_addr < r.bytes) return a;
  }
  refuse(key + "." + name, "address " + std::to_string(a) + " lies in no memory.ddr_regions entry of chip " + std::to_string(chip));
}

constexpr struct {
  const char* name;
  uint32_t format;
} kFormats[] = {{"f32", cmd::kCdmaFormatFp32}, {"bf16", cmd::kCdmaFormatBf16}, {"f16", cmd::kCdmaFormatFp16}};

}  // namespace

const char* alltoall_format_name(uint32_t format) {
  for (const auto& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "";
}

ManifestAlltoall read_alltoall(const json& j, const std::string& key, const Manifest& m) {
  if (!j.is_object()) refuse(key, "expected an object, found " + std::string(j.type_name()));
  ManifestAlltoall a;
  const json& d = required(j, "direction", key);
  if (!d.is_string() || (d.get<std::string>() != "combine" && d.get<std::string>() != "dispatch")) {
    refuse(key + ".direction", "not \"combine\" or \"dispatch\": " + d.dump());
  }
  a.direction = d.get<std::string>();
  a.layer = static_cast<uint32_t>(number_at(j, "layer", key, UINT32_MAX));
  a.microbatch = static_cast<uint32_t>(number_at(j, "microbatch", key, UINT32_MAX));
  if (!m.system.given) refuse(key, "an all-to-all needs a \"system\" of at least 2 chips");
  a.first_chip = static_cast<uint32_t>(number_at(j, "first_chip", key, m.system.chips - 1));
  a.chips = static_cast<uint32_t>(number_at(j, "chips", key, m.system.chips - a.first_chip));
  if (a.chips < 2) refuse(key + ".chips", std::to_string(a.chips) + ": an all-to-all needs 2 or more chips");
  const json& list = required(j, "per_chip", key);
  if (!list.is_array()) refuse(key + ".per_chip", "expected an array, found " + std::string(list.type_name()));
  if (list.size() != a.chips) {
    refuse(key + ".per_chip", std::to_string(list.size()) + " entries for the group's " + std::to_string(a.chips) + " chips");
  }
  for (uint32_t i = 0; i < a.chips; ++i) {
    const std::string at = key + ".per_chip[" + std::to_string(i) + "]";
    const json& c = list[i];
    if (!c.is_object()) refuse(at, "expected an object, found " + std::string(c.type_name()));
    ManifestAlltoallChip x;
    x.rows = address_at(c, "rows", at, m, a.first_chip + i);
    x.choices = address_at(c, "choices", at, m, a.first_chip + i);
    const json& f = required(c, "format", at);
    bool known = false;
    for (const auto& k : kFormats) {
      if (f.is_string() && f.get<std::string>() == k.name) {
        x.format = k.format;
        known = true;
      }
    }
    if (!known) refuse(at + ".format", "not \"f32\", \"bf16\" or \"f16\": " + f.dump());
    a.per_chip.push_back(x);
  }
  return a;
}

json alltoall_json(const ManifestAlltoall& a) {
  auto hex = [](uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return std::string(b);
  };
  json per = json::array();
  for (const ManifestAlltoallChip& c : a.per_chip) {
    per.push_back({{"rows", hex(c.rows)}, {"choices", hex(c.choices)}, {"format", alltoall_format_name(c.format)}});
  }
  return {{"direction", a.direction}, {"layer", a.layer}, {"microbatch", a.microbatch},
          {"first_chip", a.first_chip}, {"chips", a.chips}, {"per_chip", per}};
}

}  // namespace tilefw::tools
