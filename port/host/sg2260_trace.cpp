// Trace writers (see sg2260_trace.hpp). Plain string building: no JSON library in the port.
#include "sg2260_trace.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
const char* const kEngineNames[] = {"tiu", "gdma", "sdma"};
const char* const kColours[] = {"#4e79a7", "#f28e2b", "#59a14f"};

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, static_cast<size_t>(std::min<int>(n, sizeof buf - 1)));
}
// Class names hold only [A-Za-z&_]: '&' is the one character to escape in XML.
std::string xml(const char* s) {
  std::string out;
  for (; *s != '\0'; ++s) out += *s == '&' ? std::string("&amp;") : std::string(1, *s);
  return out;
}
}  // namespace

std::string chrome_trace_json(const std::vector<TraceRecord>& records) {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  bool seen[chip::sg2260::kCores][3] = {};
  for (const TraceRecord& r : records) seen[r.core][r.engine] = true;
  for (uint32_t c = 0; c < chip::sg2260::kCores; ++c) {
    bool any = false;
    for (uint32_t e = 0; e < 3; ++e) any = any || seen[c][e];
    if (!any) continue;
    appendf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"core %u\"}}",
            first ? "" : ",\n", c, c);
    first = false;
    for (uint32_t e = 0; e < 3; ++e) {
      if (!seen[c][e]) continue;
      appendf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
              c, e, kEngineNames[e]);
    }
  }
  for (const TraceRecord& r : records) {
    const char* name = cmd::class_name(static_cast<cmd::CmdClass>(r.cls));
    appendf(out,
            "%s{\"ph\":\"X\",\"name\":\"%s #%u\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
            "\"args\":{\"id\":%u,\"class\":\"%s\",\"bytes\":%" PRIu64 ",\"ops\":%" PRIu64
            ",\"start_cycle\":%" PRIu64 ",\"end_cycle\":%" PRIu64 "}}",
            first ? "" : ",\n", name, r.id, kEngineNames[r.engine], r.core, r.engine,
            static_cast<double>(r.start) / 1000.0, static_cast<double>(r.end - r.start) / 1000.0, r.id, name,
            r.bytes, r.ops, r.start, r.end);
    first = false;
  }
  out += "\n]}\n";
  return out;
}

std::string svg_gantt(const std::vector<TraceRecord>& records) {
  uint64_t end = 1;
  for (const TraceRecord& r : records) end = std::max(end, r.end);
  const double width = 1200, left = 110, row = 18;
  const uint32_t rows = chip::sg2260::kCores * 3;
  const double scale = (width - left - 10) / static_cast<double>(end);
  std::string out;
  appendf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
          width, row * (rows + 2));
  appendf(out, "<text x=\"4\" y=\"12\">SG2260 simulated timeline, %" PRIu64 " cycles (timing model v1)</text>\n", end);
  for (uint32_t i = 0; i < rows; ++i) {
    appendf(out, "<text x=\"4\" y=\"%.0f\">core %u %s</text>\n", row * (i + 2) - 5, i / 3, kEngineNames[i % 3]);
  }
  for (const TraceRecord& r : records) {
    const uint32_t i = r.core * 3u + r.engine;
    const double x = left + static_cast<double>(r.start) * scale;
    const double w = std::max(0.5, static_cast<double>(r.end - r.start) * scale);
    appendf(out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>", x,
            row * (i + 1) + 2, w, row - 4, kColours[r.engine]);
    out += xml(cmd::class_name(static_cast<cmd::CmdClass>(r.cls)));
    appendf(out, " #%u: cycles %" PRIu64 "..%" PRIu64 ", %" PRIu64 " bytes</title></rect>\n", r.id, r.start, r.end, r.bytes);
  }
  out += "</svg>\n";
  return out;
}

std::string utilisation_summary(const Simulator& sim, uint64_t total_cycles) {
  std::string out;
  const double total = total_cycles == 0 ? 1.0 : static_cast<double>(total_cycles);
  for (uint32_t c = 0; c < chip::sg2260::kCores; ++c) {
    for (uint32_t e = 0; e < 3; ++e) {
      const EngineStats s = sim.stats(c, e);
      if (s.commands == 0) continue;
      appendf(out, "core %u %-4s: %6" PRIu64 " commands, %10" PRIu64 " busy cycles, %5.1f%% utilisation\n", c,
              kEngineNames[e], s.commands, s.busy_cycles, 100.0 * static_cast<double>(s.busy_cycles) / total);
    }
  }
  return out;
}

}  // namespace tilefw::port::host::sg2260
