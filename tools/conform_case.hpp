// a2a3 conformance cases (spec/conformance.md): parse one case file and run it on a fresh host
// Machine with the simulator's vector unit, through the issue layer. Host-only.
#pragma once

#include <string>

namespace tilefw::tools::conform {

struct Outcome {
  enum Kind { pass, fail, file_error } kind = pass;
  std::string name;    // case name (or the file path for file_error)
  std::string reason;  // empty on pass
};

/// Runs the case in `path`. Never throws.
Outcome run_case_file(const std::string& path);

}  // namespace tilefw::tools::conform
