// The system of chips a multi-chip manifest (or `--system FILE.json`) describes: how many
// SG2260 chips, the topology preset that links them, and the link and CDMA figures, each
// defaulting to the chip profile's value (docs/sg2260-commands.md section 13.5, Rule: CDMA
// timing v1). Host only; the keys are listed in docs/cli.md section 5.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tilefw::tools {

struct SystemSpec {
  /// false: the manifest has no "system" key (a single chip, exactly as before).
  bool given = false;
  uint32_t chips = 1;
  /// A topology preset ("ring:8", "sg2260-8", "switch:2x4", "edges:[0-1,1-2]", ...); empty
  /// means the default, ring:N.
  std::string topology;
  double link_gbytes_per_s = 0;
  double link_latency_ns = 0;
  double alpha_ns = 0;
  double beta_ns = 0;
  /// The topology as given, or the default ring:N.
  std::string topology_or_default() const;
};

/// The profile's defaults for `chips` chips (figures from the chip profile).
SystemSpec default_system(uint32_t chips);

/// Reads a "system" object at `key` (a manifest's "system", or the top level of a --system
/// file): `chips` (1..64) required, `topology` a string, the figures numbers > 0 (latency
/// >= 0), no other key. The topology is parsed against the chip count (cmd::Topology), so a
/// preset for another count, or a chip with more links than its CDMA ports, is refused here.
/// false with `error` naming the key ("system.link_gbytes_per_s: 0 is not > 0").
bool parse_system(const nlohmann::json& j, const std::string& key, SystemSpec& out, std::string& error);

/// Reads a --system file (a JSON object as above, at most 64 KiB).
bool read_system_file(const std::string& path, SystemSpec& out, std::string& error);

/// The "system" object written back (every figure, so a reader sees what was simulated).
nlohmann::json system_json(const SystemSpec& s);

}  // namespace tilefw::tools
