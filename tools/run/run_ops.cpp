// `tilefw run` views by layer op (see run_ops.hpp).
#include "run/run_ops.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <unordered_map>

namespace tilefw::tools {

namespace fs = std::filesystem;
using port::host::sg2260::TraceRecord;

std::vector<std::string> record_labels(const OpLabels& labels, const std::vector<TraceRecord>& records,
                                       const OpLabels* later, size_t later_from) {
  std::vector<std::string> out;
  if (labels.empty() && later == nullptr) return out;
  out.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    out.push_back((i >= later_from && later != nullptr ? *later : labels).label(r.core, r.engine, r.id));
  }
  return out;
}

std::string op_time_table(const OpLabels& labels, const std::vector<TraceRecord>& records, const OpLabels* later,
                          size_t later_from) {
  struct Row {
    uint64_t commands = 0, tiu = 0, dma = 0;
  };
  std::map<std::string, Row> rows;
  // Each distinct label's row, found once (labels live in `labels` and do not move).
  std::unordered_map<const std::string*, Row*> by_label;
  uint64_t total = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    const std::string& label = (i >= later_from && later != nullptr ? *later : labels).label(r.core, r.engine, r.id);
    Row* slot = nullptr;
    if (label.empty()) {
      slot = &rows[r.engine == 3 ? "hau.sync" : "(unlabelled)"];
    } else {
      Row*& known = by_label[&label];
      if (known == nullptr) known = &rows[OpLabels::op_of(label)];
      slot = known;
    }
    Row& row = *slot;
    const uint64_t busy = r.end - r.start;
    ++row.commands;
    (r.engine == 0 ? row.tiu : row.dma) += busy;
    total += busy;
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.tiu + a.second.dma > b.second.tiu + b.second.dma;
  });
  std::string out = "time per op (busy cycles summed over every core's engines):\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-28s %9s %14s %14s %7s\n", "op", "commands", "tiu cycles", "dma cycles", "share");
  out += line;
  for (const auto& [op, row] : sorted) {
    const double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(row.tiu + row.dma) / static_cast<double>(total);
    std::snprintf(line, sizeof line, "  %-28s %9" PRIu64 " %14" PRIu64 " %14" PRIu64 " %6.1f%%\n", op.c_str(),
                  row.commands, row.tiu, row.dma, share);
    out += line;
  }
  return out;
}

}  // namespace tilefw::tools
