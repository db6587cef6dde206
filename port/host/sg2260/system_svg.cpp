// The SVG Gantt chart of a System run (System::svg_gantt, see sg2260/system.hpp): one band per
// chip (a row per core engine that ran a command, then a row per CDMA port thread that did),
// then a c2c band with a row per directed link that carried data (its busy spans), a time axis
// in cycles shared by all. Host-only.
#include <algorithm>
#include <cinttypes>
#include <map>
#include <string>
#include <vector>

#include "sg2260/svg_draw.hpp"
#include "sg2260/system.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace {

const char* const kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};
const char* const kEngineColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"};
const char* const kThreadNames[] = {"tx", "rx"};
const char* const kCdmaColour = "#e15759";
const char* const kLinkColour = "#76b7b2";

using draw::appendf;

// A round step giving about `ticks` ticks over [0, end].
// A step of 1, 2 or 5 times a power of ten giving at most `ticks` ticks over [0, end].
uint64_t tick_step(uint64_t end, uint64_t ticks) {
  for (uint64_t power = 1;; power *= 10) {
    for (uint64_t m : {1, 2, 5}) {
      if (end / (power * m) <= ticks) return power * m;
    }
  }
}

struct Bar {
  uint64_t start, end;
  const char* what;
  uint32_t id;
  uint64_t bytes;
};

struct Row {
  std::string label;
  const char* colour;
  std::vector<Bar> spans;
  uint64_t busy = 0;
  bool band = false;  // a band's title row (no spans)
};

}  // namespace

std::string System::svg_gantt() const {
  std::vector<Row> rows;
  uint64_t end = 1;
  for (uint32_t k = 0; k < chips(); ++k) {
    rows.push_back(Row{"chip " + std::to_string(k), nullptr, {}, 0, true});
    std::map<uint32_t, Row> engines;  // by core * 4 + engine, in that order
    for (const TraceRecord& r : chips_[k]->sim->trace()) {
      Row& row = engines[r.core * 4u + r.engine];
      row.spans.push_back(Bar{r.start, r.end, r.engine == kHau ? "sync" : cmd::class_name(static_cast<cmd::CmdClass>(r.cls)),
                               r.id, r.bytes});
    }
    std::map<uint32_t, Row> threads;  // by peer * 2 + thread
    for (const CdmaTraceRecord& r : trace_) {
      if (r.thread == 2 || r.chip != k) continue;
      threads[r.peer * 2 + r.thread].spans.push_back(
          Bar{r.start, r.end, cmd::class_name(static_cast<cmd::CmdClass>(r.cls)), r.id, r.bytes});
    }
    for (auto& [i, row] : engines) {
      row.label = "  core " + std::to_string(i / 4) + " " + kEngineNames[i % 4];
      row.colour = kEngineColours[i % 4];
      rows.push_back(std::move(row));
    }
    for (auto& [i, row] : threads) {
      row.label = "  cdma->" + std::to_string(i / 2) + " " + kThreadNames[i % 2];
      row.colour = kCdmaColour;
      rows.push_back(std::move(row));
    }
  }
  rows.push_back(Row{"c2c", nullptr, {}, 0, true});
  std::map<uint32_t, Row> links;
  for (const CdmaTraceRecord& r : trace_) {
    if (r.thread == 2) links[r.peer].spans.push_back(Bar{r.start, r.end, "busy", 0, 0});
  }
  for (auto& [l, row] : links) {
    const auto name = [&](uint32_t v) { return topology_.is_switch(v) ? std::string("sw") : std::to_string(v); };
    row.label = "  link " + name(topology_.directed_source(l)) + "->" + name(topology_.directed_target(l));
    row.colour = kLinkColour;
    row.busy = link_stats_[l].busy_cycles;
    rows.push_back(std::move(row));
  }
  for (Row& row : rows) {
    for (const Bar& s : row.spans) {
      end = std::max(end, s.end);
      if (row.colour != kLinkColour) row.busy += s.end - s.start;
    }
  }
  const double width = 1400, left = 190, h = 18, top = 2 * h;
  const double bottom = top + h * static_cast<double>(rows.size());
  const double scale = (width - left - 10) / static_cast<double>(end);
  std::string out;
  draw::svg_open(out, width, bottom + 2 * h + 8);
  appendf(out, "<text x=\"4\" y=\"14\">SG2260 system of %u chips (%s): %" PRIu64 " cycles (%.3f ms at 1 GHz)</text>\n",
          chips(), options_.topology.c_str(), end, static_cast<double>(end) / 1e6);
  draw::time_axis(out, left, scale, top, bottom, h, end, tick_step(end, 10));
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const double y = top + h * static_cast<double>(i);
    if (row.band) {  // a band: its title and a rule across the plot
      appendf(out, "<text x=\"4\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", y + h - 5, row.label.c_str());
      appendf(out, "<line x1=\"4\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n", y + 1, width - 10, y + 1);
      continue;
    }
    appendf(out, "<text x=\"4\" y=\"%.0f\" xml:space=\"preserve\">%-18s %5.1f%%</text>\n", y + h - 5, row.label.c_str(),
            100.0 * static_cast<double>(row.busy) / static_cast<double>(end));
    for (const Bar& s : row.spans) {
      draw::open_bar(out, left, scale, s.start, s.end, y + 2, h - 4, row.colour);
      out += s.what;
      if (s.id != 0) appendf(out, " #%u", s.id);
      appendf(out, ": cycles %" PRIu64 "..%" PRIu64, s.start, s.end);
      if (s.bytes != 0) appendf(out, ", %" PRIu64 " bytes", s.bytes);
      out += "</title></rect>\n";
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace tilefw::port::host::sg2260
