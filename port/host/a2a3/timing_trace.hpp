// Trace export of the a2a3 pipe timer: Chrome/Perfetto JSON (one "X" event per issue, one row
// per pipe, named by its tile instruction and intrinsic) and an SVG Gantt chart, as the SG2260
// side writes them. The timer must have kept its slices (PipeTimer::keep_slices). Host-only.
#pragma once

#include <string>

#include "a2a3/timing.hpp"

namespace tilefw::port::host::timing {

/// {"traceEvents": [...], "displayTimeUnit": "ns"}: ts/dur in microseconds with 1 cycle = 1 ns
/// (no clock is modelled), pid 0 "a2a3 AI Core", tid = pipe ("MTE2", "V", ...), args
/// {start_cycle, end_cycle}.
std::string chrome_trace_json(const PipeTimer& timer);
/// One row per pipe that issued, one rectangle per issue, busy cycles per row, a cycle axis.
std::string svg_gantt(const PipeTimer& timer);

}  // namespace tilefw::port::host::timing
