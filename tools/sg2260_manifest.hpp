// Numbers in SG2260 model manifests (vectors/sg2260-mm0 manifest.json, spec/conformance.md):
// a JSON unsigned integer or a "0x..." hex string, nothing else (no decimal or octal strings:
// "010" would otherwise read as 8). Shared by `tilefw run` and `tilefw validate --manifest`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tilefw::tools {

/// The value of a manifest number; throws std::invalid_argument naming what was found.
inline uint64_t manifest_number(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      uint64_t v = 0;
      bool ok = true;
      for (size_t i = 2; i < s.size() && ok; ++i) {
        const char c = s[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        ok = d >= 0;
        v = (v << 4) | static_cast<uint64_t>(d < 0 ? 0 : d);
      }
      if (ok) return v;
    }
    throw std::invalid_argument("not a JSON integer or \"0x...\" hex string: \"" + s + "\"");
  }
  throw std::invalid_argument("not a JSON integer or \"0x...\" hex string: " + j.dump());
}

}  // namespace tilefw::tools
