// Drawing shared by the SG2260 SVG Gantt charts (trace.cpp: one chip's engines; system_svg.cpp:
// a System's chips, CDMA threads and links), so both draw the same frame, time axis and bars.
// Host-only.
#pragma once

#include <cstdint>
#include <string>

namespace tilefw::port::host::sg2260::draw {

/// printf onto `out`; a call writes at most 511 characters (longer text is cut there).
void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// The <svg> element's opening tag, `width` x `height` pixels, monospace 11 px text.
void svg_open(std::string& out, double width, double height);
/// The time axis: a grey rule from `top` to `bottom` and a cycle label under it every `step`
/// cycles over [0, end] (x = left + cycles x scale), then "cycles" one `row` lower.
void time_axis(std::string& out, double left, double scale, double top, double bottom, double row, uint64_t end,
               uint64_t step);
/// A bar from cycle `start` to `end` (at least half a pixel wide), `height` tall from `y`,
/// up to its open <title>: the caller writes the title text and closes both elements.
void open_bar(std::string& out, double left, double scale, uint64_t start, uint64_t end, double y, double height,
              const char* fill);

}  // namespace tilefw::port::host::sg2260::draw
