// Internals the hazard checker's two files share (sg2260/hazard.cpp: the engines' vector clocks,
// a command's access log handed to the shadow, and the reports; sg2260/hazard_shadow.cpp: the
// shadow memory, its pages as runs, palette indexes or cells, the walks over them and the
// transition of one byte's state): the epoch and read-clock encodings and the page.
// Not installed.
#pragma once

#include <cstdint>
#include <vector>

#include "sg2260/hazard.hpp"

namespace tilefw::port::host::sg2260 {

namespace hazard_shadow {
inline constexpr uint32_t kFlag = 1u << 31;  // Cell::w: split; Cell::r: shared read clock
inline constexpr uint32_t kEngineBits = 5;   // epoch = clock << 5 | engine

constexpr uint32_t epoch_of(uint32_t engine, uint32_t clock) { return (clock << kEngineBits) | engine; }
constexpr uint32_t epoch_engine(uint32_t e) { return e & ((1u << kEngineBits) - 1); }
constexpr uint32_t epoch_clock(uint32_t e) { return e >> kEngineBits; }
}  // namespace hazard_shadow

struct HazardChecker::Page {
  std::vector<Run> runs;    // sorted, runs[0].begin == 0; empty: the page is dense
  std::vector<Cell> bytes;  // dense: one cell per byte
  // dense with at most 256 distinct states and no shared read clock (the common case: a
  // strided pattern of one engine): one palette index per byte, an eighth of the memory the
  // cells take (a strided row's steps are bound by that memory)
  std::vector<uint8_t> index;
  std::vector<Cell> palette;
};

}  // namespace tilefw::port::host::sg2260
