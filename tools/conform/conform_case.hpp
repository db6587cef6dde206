// a2a3 conformance cases (docs/cli.md section 4): parse one case file and run it on a fresh host
// Machine with the simulator's vector unit, through the issue layer. Host-only.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "a2a3/timing.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::tools::conform {

struct Outcome {
  enum Kind { pass, fail, file_error } kind = pass;
  std::string name;    // case name (or the file path for file_error)
  std::string reason;  // empty on pass
  // The simulated core's clock over the case's program (docs/a2a3-timing.md): the program's
  // cycles and each pipe's busy cycles (timing::pipe_name order: MTE2 MTE1 M V MTE3 FIX S).
  uint64_t cycles = 0;
  std::array<uint64_t, port::host::timing::kPipes> busy{};
};

/// Largest case file read (a regular file; anything else, or a larger one, is a file-level
/// FAIL naming the reason).
inline constexpr uint64_t kMaxCaseFileBytes = uint64_t{16} << 20;

/// Runs the case in `path`. Never throws. `trace` (optional): the timer the case's program
/// runs on, e.g. one keeping slices for a trace; else a fresh one.
/// The case runs on the simulated core of its "profile" (a2a3 when absent) or, when `force` is
/// given, of that profile (its memory sizes; where a2a3 and A5 differ, its rules).
Outcome run_case_file(const std::string& path, port::host::timing::PipeTimer* trace = nullptr,
                      const chip::Chip* force = nullptr);

}  // namespace tilefw::tools::conform
