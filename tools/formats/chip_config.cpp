// Chip what-if figures (chip_config.hpp).
#include "formats/chip_config.hpp"

#include <cmath>
#include <vector>

#include "common/input_files.hpp"

namespace tilefw::tools {

namespace {
bool number(const nlohmann::json& j, const std::string& key, double lo, double hi, double& out, std::string& error) {
  if (!j.is_number() || !std::isfinite(j.get<double>()) || j.get<double>() < lo || j.get<double>() > hi) {
    error = key + ": expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + j.dump();
    return false;
  }
  out = j.get<double>();
  return true;
}
}  // namespace

bool parse_chip_config(const nlohmann::json& j, const std::string& where, ChipWhatIf& out, std::string& error) {
  if (!j.is_object()) return error = where + ": not a JSON object", false;
  ChipWhatIf c;
  for (const auto& [key, v] : j.items()) {
    const std::string k = where + "." + key;
    double cap = 0;
    if (key == "clock_ghz") {
      if (!number(v, k, 0.01, 100.0, c.clock_ghz, error)) return false;
    } else if (key == "ddr_gbytes_per_s") {
      if (!number(v, k, 0.001, 1e6, c.ddr_gbytes_per_s, error)) return false;
    } else if (key == "l2_gbytes_per_s") {
      if (!number(v, k, 0.001, 1e6, c.l2_gbytes_per_s, error)) return false;
    } else if (key == "ddr_capacity_gib") {
      if (!number(v, k, 1, 1 << 20, cap, error)) return false;
      if (cap != std::floor(cap)) return error = k + ": a whole number of GiB", false;
      c.ddr_capacity_gib = static_cast<uint64_t>(cap);
    } else if (key == "peak_tflops") {
      return error = k + ": the peak follows clock_ghz (MACs per cycle are the chip's); set the clock", false;
    } else {
      return error = k + ": unknown key (clock_ghz, ddr_gbytes_per_s, l2_gbytes_per_s, ddr_capacity_gib)", false;
    }
  }
  c.given = true;
  out = c;
  return true;
}

bool read_chip_config_file(const std::string& path, ChipWhatIf& out, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!read_whole_file(path, 64 << 10, bytes, error)) return false;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    return error = path + ": not JSON: " + e.what(), false;
  }
  return parse_chip_config(j, path, out, error);
}

nlohmann::json chip_config_json(const ChipWhatIf& c) {
  return {{"clock_ghz", c.clock_ghz},
          {"ddr_gbytes_per_s", c.ddr_gbytes_per_s},
          {"l2_gbytes_per_s", c.l2_gbytes_per_s},
          {"ddr_capacity_gib", c.ddr_capacity_gib}};
}

}  // namespace tilefw::tools
