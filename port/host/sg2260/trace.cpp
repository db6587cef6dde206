// Trace writers (see sg2260/trace.hpp). Plain string building: no JSON library in the port.
#include "sg2260/trace.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "sg2260/svg_draw.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
constexpr uint32_t kPerCore = chip::sg2260::regs::kEngines;  // TIU, GDMA, SDMA, HAU
const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};
const char* const kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"};
static_assert(sizeof kEngineNames / sizeof kEngineNames[0] == kPerCore, "one name per engine");

// A record's class name: the HAU's commands are message syncs (no cmd::CmdClass).
const char* class_of(const TraceRecord& r) {
  return r.engine == kHau ? "sync" : cmd::class_name(static_cast<cmd::CmdClass>(r.cls));
}
// Engines drawn per core: the HAU row only when a HAU ran (models without one keep 3 rows).
uint32_t engines_shown(const std::vector<TraceRecord>& records) {
  for (const TraceRecord& r : records) {
    if (r.engine == kHau) return 4;
  }
  return 3;
}

using draw::appendf;
// Class names and op labels: '&', '<', '>' are the characters to escape in XML text.
std::string xml(const char* s) {
  std::string out;
  for (; *s != '\0'; ++s) {
    if (*s == '&') out += "&amp;";
    else if (*s == '<') out += "&lt;";
    else if (*s == '>') out += "&gt;";
    else out += *s;
  }
  return out;
}
// A label as JSON string content: quotes, backslashes and control characters escaped.
std::string json_text(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", u);
      out += b;
    } else {
      out += ch;
    }
  }
  return out;
}
}  // namespace

std::string chrome_trace_json(const std::vector<TraceRecord>& records, const std::vector<std::string>* labels) {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  bool seen[chip::sg2260::kCores][kPerCore] = {};
  for (const TraceRecord& r : records) seen[r.core][r.engine] = true;
  for (uint32_t c = 0; c < chip::sg2260::kCores; ++c) {
    bool any = false;
    for (uint32_t e = 0; e < kPerCore; ++e) any = any || seen[c][e];
    if (!any) continue;
    appendf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"core %u\"}}",
            first ? "" : ",\n", c, c);
    first = false;
    for (uint32_t e = 0; e < kPerCore; ++e) {
      if (!seen[c][e]) continue;
      appendf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
              c, e, kEngineNames[e]);
    }
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    const char* cls = class_of(r);
    char fallback[64];
    std::snprintf(fallback, sizeof fallback, "%s #%u", cls, r.id);
    const bool named = labels != nullptr && i < labels->size() && !(*labels)[i].empty();
    appendf(out, "%s{\"ph\":\"X\",\"name\":\"", first ? "" : ",\n");
    out += named ? json_text((*labels)[i]) : std::string(fallback);
    appendf(out,
            "\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
            "\"args\":{\"id\":%u,\"class\":\"%s\",\"bytes\":%" PRIu64 ",\"ops\":%" PRIu64
            ",\"start_cycle\":%" PRIu64 ",\"end_cycle\":%" PRIu64 "}}",
            kEngineNames[r.engine], r.core, r.engine, static_cast<double>(r.start) / 1000.0,
            static_cast<double>(r.end - r.start) / 1000.0, r.id, cls, r.bytes, r.ops, r.start, r.end);
    first = false;
  }
  out += "\n]}\n";
  return out;
}

namespace {
// The op of a label: its first word ("q_proj m2 n0 k5" -> "q_proj").
std::string op_of(const std::string& label) { return label.substr(0, label.find(' ')); }

// A round step for the time axis: 1, 2 or 5 x 10^n cycles, about `ticks` of them over `end`.
uint64_t axis_step(uint64_t end, uint64_t ticks) {
  uint64_t step = 1;
  while (step * ticks < end) {
    if (step * 2 * ticks >= end) return step * 2;
    if (step * 5 * ticks >= end) return step * 5;
    step *= 10;
  }
  return step;
}
}  // namespace

std::string svg_gantt(const std::vector<TraceRecord>& records, const std::vector<std::string>* labels) {
  uint64_t end = 1;
  const uint32_t per = engines_shown(records);
  uint64_t busy[chip::sg2260::kCores * kPerCore] = {};
  for (const TraceRecord& r : records) {
    end = std::max(end, r.end);
    busy[r.core * per + r.engine] += r.end - r.start;
  }
  // Ops in order of first appearance get the palette's colours (a legend maps them back).
  // One hash lookup per record (a linear search over the ops was quadratic: a 2 MB ops.json took
  // 34 s); each record's op index is kept for the rectangles below.
  std::vector<std::string> ops;
  std::vector<uint32_t> op_index;
  const bool by_op = labels != nullptr && labels->size() == records.size();
  if (by_op) {
    std::unordered_map<std::string, uint32_t> index_of;
    op_index.reserve(labels->size());
    for (const std::string& l : *labels) {
      const auto [it, added] = index_of.emplace(op_of(l), static_cast<uint32_t>(ops.size()));
      if (added) ops.push_back(it->first);
      op_index.push_back(it->second);
    }
  }
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                         "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b"};
  const double width = 1400, left = 190, row = 18, top = 2 * row;
  const uint32_t rows = chip::sg2260::kCores * per;
  const double plot_bottom = top + row * rows;
  const double legend_rows = by_op ? static_cast<double>((ops.size() + 3) / 4) : 1.0;
  const double scale = (width - left - 10) / static_cast<double>(end);
  std::string out;
  draw::svg_open(out, width, plot_bottom + row * (2 + legend_rows) + 8);
  appendf(out, "<text x=\"4\" y=\"14\">SG2260 simulated timeline: %" PRIu64 " cycles (%.3f ms at 1 GHz), %zu commands</text>\n",
          end, static_cast<double>(end) / 1e6, records.size());
  for (uint32_t i = 0; i < rows; ++i) {
    appendf(out, "<text x=\"4\" y=\"%.0f\">core %u %-4s %5.1f%%</text>\n", top + row * (i + 1) - 5, i / per,
            kEngineNames[i % per], 100.0 * static_cast<double>(busy[i]) / static_cast<double>(end));
  }
  draw::time_axis(out, left, scale, top, plot_bottom, row, end, axis_step(end, 10));
  for (size_t k = 0; k < records.size(); ++k) {
    const TraceRecord& r = records[k];
    const uint32_t i = r.core * per + r.engine;
    const char* fill = kColours[r.engine];
    if (by_op) {
      fill = kPalette[op_index[k] % (sizeof kPalette / sizeof kPalette[0])];
    }
    draw::open_bar(out, left, scale, r.start, r.end, top + row * i + 2, row - 4, fill);
    if (by_op) out += xml((*labels)[k].c_str()) + " (";
    out += xml(class_of(r));
    appendf(out, " #%u: cycles %" PRIu64 "..%" PRIu64 ", %" PRIu64 " bytes%s</title></rect>\n", r.id, r.start, r.end,
            r.bytes, by_op ? ")" : "");
  }
  const double ly = plot_bottom + 2 * row + 8;  // legend: engines, or ops when labelled
  const size_t n = by_op ? ops.size() : per;
  for (size_t i = 0; i < n; ++i) {
    const double x = 4 + static_cast<double>(i % 4) * 340, y = ly + row * static_cast<double>(i / 4);
    const char* fill = by_op ? kPalette[i % (sizeof kPalette / sizeof kPalette[0])] : kColours[i];
    appendf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y - 10, fill);
    appendf(out, "<text x=\"%.0f\" y=\"%.0f\">", x + 16, y);
    out += xml(by_op ? ops[i].c_str() : kEngineNames[i]);
    out += "</text>\n";
  }
  out += "</svg>\n";
  return out;
}

std::string utilisation_summary(const Simulator& sim, uint64_t total_cycles) {
  std::string out;
  const double total = total_cycles == 0 ? 1.0 : static_cast<double>(total_cycles);
  for (uint32_t c = 0; c < chip::sg2260::kCores; ++c) {
    for (uint32_t e = 0; e < kPerCore; ++e) {
      const EngineStats s = sim.stats(c, e);
      if (s.commands == 0) continue;
      appendf(out, "core %u %-4s: %6" PRIu64 " commands, %10" PRIu64 " busy cycles, %5.1f%% utilisation\n", c,
              kEngineNames[e], s.commands, s.busy_cycles, 100.0 * static_cast<double>(s.busy_cycles) / total);
    }
  }
  return out;
}

}  // namespace tilefw::port::host::sg2260
