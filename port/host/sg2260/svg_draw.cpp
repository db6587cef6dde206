// Drawing shared by the SG2260 SVG Gantt charts (see sg2260/svg_draw.hpp).
#include "sg2260/svg_draw.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace tilefw::port::host::sg2260::draw {

void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
}

void svg_open(std::string& out, double width, double height) {
  appendf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
          width, height);
}

void time_axis(std::string& out, double left, double scale, double top, double bottom, double row, uint64_t end,
               uint64_t step) {
  for (uint64_t t = 0; t <= end; t += step) {
    const double x = left + static_cast<double>(t) * scale;
    appendf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n", x, top, x, bottom);
    appendf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%" PRIu64 "</text>\n", x, bottom + 12, t);
  }
  appendf(out, "<text x=\"%.0f\" y=\"%.0f\">cycles</text>\n", left, bottom + row + 8);
}

void open_bar(std::string& out, double left, double scale, uint64_t start, uint64_t end, double y, double height,
              const char* fill) {
  appendf(out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>",
          left + static_cast<double>(start) * scale, y, std::max(0.5, static_cast<double>(end - start) * scale), height,
          fill);
}

}  // namespace tilefw::port::host::sg2260::draw
