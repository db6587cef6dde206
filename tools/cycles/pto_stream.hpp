// The issue streams of single PTO tile instructions as pto-isa's a2a3 backend issues them for
// given operands (docs/a2a3-timing.md, "The issue streams of `tilefw cycles`"), driven onto the
// simulator's pipe timer. Host-only.
#pragma once

#include <string>

#include "a2a3/timing.hpp"
#include "cycles/cycles_case.hpp"

namespace tilefw::tools::cycles {

/// Issues `k`'s instruction on `timer` (labelled with the instruction). Returns false with
/// `reason` set for an instruction or operand combination the model has no stream for.
bool issue_case(const CycleCase& k, port::host::timing::PipeTimer& timer, std::string& reason);

}  // namespace tilefw::tools::cycles
