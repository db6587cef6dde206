// Perfetto JSON and SVG of the a2a3 pipe timer (see timing_trace.hpp).
#include "a2a3/timing_trace.hpp"

#include <algorithm>
#include <cstdio>

namespace tilefw::port::host::timing {

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string us(uint64_t cycles) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(cycles / 1000),
                static_cast<unsigned long long>(cycles % 1000));
  return buf;
}

}  // namespace

std::string chrome_trace_json(const PipeTimer& timer) {
  std::string out = "{\"traceEvents\": [\n";
  out += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"a2a3 AI Core\"}}";
  for (unsigned p = 0; p < kPipes; ++p) {
    out += ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": " + std::to_string(p) +
           ", \"args\": {\"name\": \"" + pipe_name(p) + "\"}}";
  }
  for (const Slice& s : timer.slices()) {
    out += ",\n{\"name\": \"" + json_escape(s.name) + "\", \"cat\": \"" + pipe_name(s.pipe) +
           "\", \"ph\": \"X\", \"pid\": 0, \"tid\": " + std::to_string(s.pipe) + ", \"ts\": " + us(s.start) +
           ", \"dur\": " + us(s.end - s.start) + ", \"args\": {\"start_cycle\": " + std::to_string(s.start) +
           ", \"end_cycle\": " + std::to_string(s.end) + "}}";
  }
  out += "\n], \"displayTimeUnit\": \"ns\"}\n";
  return out;
}

std::string svg_gantt(const PipeTimer& timer) {
  constexpr int kLeft = 150, kWidth = 900, kRow = 28, kTop = 30;
  static constexpr const char* kColours[kPipes] = {"#4e79a7", "#59a14f", "#e15759", "#f28e2b",
                                                    "#76b7b2", "#b07aa1", "#9c755f"};
  std::vector<unsigned> rows;
  for (unsigned p = 0; p < kPipes; ++p) {
    if (timer.issues(p) > 0) rows.push_back(p);
  }
  const uint64_t total = std::max<uint64_t>(1, timer.total());
  const int height = kTop + kRow * static_cast<int>(rows.size()) + 40;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kLeft + kWidth + 20) +
                    "\" height=\"" + std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<text x=\"10\" y=\"18\">a2a3 AI Core: " + std::to_string(timer.total()) + " cycles</text>\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    const unsigned p = rows[r];
    const int y = kTop + kRow * static_cast<int>(r);
    out += "<text x=\"10\" y=\"" + std::to_string(y + 17) + "\">" + pipe_name(p) + " (" +
           std::to_string(timer.busy(p)) + " busy)</text>\n";
    for (const Slice& s : timer.slices()) {
      if (s.pipe != p) continue;
      const double x0 = kLeft + static_cast<double>(s.start) * kWidth / static_cast<double>(total);
      const double w = std::max(0.5, static_cast<double>(s.end - s.start) * kWidth / static_cast<double>(total));
      char buf[160];
      std::snprintf(buf, sizeof buf, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" opacity=\"0.8\">",
                    x0, y + 4, w, kRow - 8, kColours[p]);
      out += buf;
      out += "<title>" + xml_escape(s.name) + " [" + std::to_string(s.start) + ", " + std::to_string(s.end) +
             ")</title></rect>\n";
    }
  }
  const int axis = kTop + kRow * static_cast<int>(rows.size()) + 15;
  out += "<text x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(axis) + "\">0</text>\n";
  out += "<text x=\"" + std::to_string(kLeft + kWidth - 60) + "\" y=\"" + std::to_string(axis) + "\">" +
         std::to_string(total) + " cycles</text>\n</svg>\n";
  return out;
}

}  // namespace tilefw::port::host::timing
