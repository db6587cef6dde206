// Runs a parsed `.pto` kernel on the bit-exact a2a3 simulator (a pto::host::Core) through the
// tile runtime and the PTO context's placement and Auto sync (docs/pto-text.md, "Running").
// Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pto_text/pto_ir.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::tools::pto_text {

struct RunRequest {
  /// `--in NAME=FILE` contents by argument name (without '%').
  std::vector<std::pair<std::string, std::vector<uint8_t>>> inputs;
  /// The profile of the simulated core (`--chip`): its memory sizes and, where a2a3 and A5
  /// differ, its rules.
  chip::Chip chip = chip::Chip::a2a3;
};

struct RunOutcome {
  /// 0 ran; 1 an instruction failed on the simulator; 2 bad input (sizes, placement, names).
  int exit_code = 0;
  /// For a failure: "line:column: message" (or a message naming the --in argument).
  std::string message;
  /// The message starts with "line:column:" (the CLI puts the file name before it).
  bool positional = false;
  /// Each pointer argument a tstore wrote: (name, its whole tensor-view bytes), in argument order.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> outputs;
  /// Reads the simulator's hazard checker saw without a wait for their writer (Auto sync
  /// should leave none).
  uint64_t hazards = 0;
};

/// The bytes pointer argument `arg` needs: the largest span of its tensor views (0 when none).
uint64_t pointer_bytes(const Module& m, int arg);

/// Runs `m`'s function once on a fresh simulated AI Core.
RunOutcome run_module(const Module& m, const RunRequest& req);

}  // namespace tilefw::tools::pto_text
