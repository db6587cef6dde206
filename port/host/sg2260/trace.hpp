// Trace export of the SG2260 simulator: Chrome/Perfetto JSON (one "X" event per executed
// command, pid = core, tid = engine), an SVG Gantt chart, and a text summary of cycles and
// utilisation per engine. Host-only.
#pragma once

#include <string>
#include <vector>

#include "sg2260/sim.hpp"

namespace tilefw::port::host::sg2260 {

/// {"traceEvents": [...], "displayTimeUnit": "ns"}: ts/dur in microseconds of device time
/// (1 cycle = 1 ns at 1 GHz), args {id, class, bytes, ops, start_cycle, end_cycle}, plus
/// process_name / thread_name metadata ("core N", "tiu"/"gdma"/"sdma").
/// `labels` (optional, one per record): the layer op of each command (e.g. "q_proj m2 n0 k5"),
/// used as the event name instead of "<class> #<id>" (the class stays in args).
std::string chrome_trace_json(const std::vector<TraceRecord>& records,
                              const std::vector<std::string>* labels = nullptr);
/// One row per (core, engine) with its utilisation, one rectangle per command coloured by
/// engine (or, with `labels`, by op, with a legend of the ops), and a time axis in cycles.
std::string svg_gantt(const std::vector<TraceRecord>& records, const std::vector<std::string>* labels = nullptr);
/// "core 0 tiu: 17 commands, 123 busy cycles, 12.3% of 1000" lines and a total line.
std::string utilisation_summary(const Simulator& sim, uint64_t total_cycles);

}  // namespace tilefw::port::host::sg2260
