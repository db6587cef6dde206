// `tilefw run` views by layer op: the labels of a generated layer's commands (ops.json next to
// the manifest, see op_labels.hpp) attached to the simulator's trace, and the --summary table
// of time per op. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/op_labels.hpp"
#include "sg2260/sim.hpp"

namespace tilefw::tools {

/// One label per trace record ("" where unknown).
/// `later`, when given, labels the records from index `later_from` on (a MoE layer's experts'
/// phase: a second submission whose command ids start at 1 again).
std::vector<std::string> record_labels(const OpLabels& labels,
                                       const std::vector<port::host::sg2260::TraceRecord>& records,
                                       const OpLabels* later = nullptr, size_t later_from = SIZE_MAX);

/// "time per op" table: per op (labels without tile indices), commands and busy cycles per
/// engine class, and the share of all engines' busy time, sorted by that share. Reads the
/// labels in place (a DeepSeek-V3 prefill has millions of records: no string per record).
std::string op_time_table(const OpLabels& labels, const std::vector<port::host::sg2260::TraceRecord>& records,
                          const OpLabels* later = nullptr, size_t later_from = SIZE_MAX);

}  // namespace tilefw::tools
