// A chip what-if (`--chip-config FILE.json`, docs/whole-model.md section 6): the SG2260's
// timing and capacity figures a whole-model run uses, each overridable. Host-only.
//
//   {"clock_ghz": 1.0, "ddr_gbytes_per_s": 546.112, "l2_gbytes_per_s": 128, "ddr_capacity_gib": 128}
//
// Every key optional (the chip profile's value otherwise); any other key is an error naming it.
// The peak is not a key: it follows the clock (2 flops x MACs per lane per cycle x 64 lanes x 8
// cores x clock), as the simulated MM2 does per cycle.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tilefw::tools {

struct ChipWhatIf {
  bool given = false;
  double clock_ghz = 1.0;
  double ddr_gbytes_per_s = 546.112;  // 8 cores x 68.264 GB/s (the profile)
  double l2_gbytes_per_s = 128.0;
  uint64_t ddr_capacity_gib = 128;
  /// Bytes per device cycle of DDR and L2 at this clock (what the simulator's servers carry).
  double ddr_bytes_per_cycle() const { return ddr_gbytes_per_s / clock_ghz; }
  double l2_bytes_per_cycle() const { return l2_gbytes_per_s / clock_ghz; }
};

/// Reads a chip what-if object (`where` names it in errors). false with `error`.
bool parse_chip_config(const nlohmann::json& j, const std::string& where, ChipWhatIf& out, std::string& error);
/// The same from a file (at most 64 KiB).
bool read_chip_config_file(const std::string& path, ChipWhatIf& out, std::string& error);
nlohmann::json chip_config_json(const ChipWhatIf& c);

}  // namespace tilefw::tools
