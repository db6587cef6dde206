// Names, descriptions, bands and conformance classes of every Status value, all expanded from
// the one TILEFW_STATUS_TABLE in status.hpp. The switches are generated, so -Wswitch still
// proves every value is covered.

#include "tilefw/base/status.hpp"

#include <cstddef>
#include <cstdint>

// Firmware builds may drop the description sentences (meson option status_strings=names): the
// names stay, so a log still says what failed, and `tilefw status` on the host explains them.
#ifndef TILEFW_STATUS_DESCRIPTIONS
#define TILEFW_STATUS_DESCRIPTIONS 1
#endif

#if TILEFW_STATUS_DESCRIPTIONS
#define TILEFW_STATUS_TEXT(name, text) text
#else
#define TILEFW_STATUS_TEXT(name, text) #name
#endif

namespace tilefw {

// Never defined: called while the constant table below is computed, it makes the table fail to
// compile unless the values are ascending and each band's are band * 100, band * 100 + 1, ...
void status_numbers_not_dense();

namespace {
// status_name's table: every name in one string, each ended by its NUL, in table order. The
// values of a band (the hundreds of the number) are numbered from its first up without gaps
// (checked below), so a value's place in the table is its band's first place plus the tens
// and units: no table of numbers or offsets, and the name is found by counting NULs. A
// firmware links status_name to print what failed; it runs once per failure, and what it
// saves is image text (bench/RESULTS.md, the firmware footprint).
#define TILEFW_STATUS_NAME_CHARS(name, number, cls, text) #name "\0"
constexpr char kNames[] = TILEFW_STATUS_TABLE(TILEFW_STATUS_NAME_CHARS);
#undef TILEFW_STATUS_NAME_CHARS
#define TILEFW_STATUS_NUMBER(name, number, cls, text) number,
constexpr uint16_t kNumbers[] = {TILEFW_STATUS_TABLE(TILEFW_STATUS_NUMBER)};
#undef TILEFW_STATUS_NUMBER
constexpr size_t kNameCount = sizeof kNumbers / sizeof kNumbers[0];
constexpr unsigned kBandCount = 9;  // 0 .. 899

struct Bands {
  uint8_t first[kBandCount] = {};
  uint8_t count[kBandCount] = {};
};
constexpr Bands bands() {
  Bands b;
  for (size_t i = 0; i < kNameCount; ++i) {
    const unsigned band = kNumbers[i] / 100u;
    if (band >= kBandCount || (i > 0 && kNumbers[i] <= kNumbers[i - 1])) status_numbers_not_dense();
    if (b.count[band] == 0) b.first[band] = static_cast<uint8_t>(i);
    if (kNumbers[i] != band * 100u + b.count[band]) status_numbers_not_dense();
    ++b.count[band];
  }
  return b;
}
constexpr Bands kBands = bands();
static_assert(kNameCount < 256, "band places are 8-bit");
}  // namespace

const char* status_name(Status s) noexcept {
  const unsigned v = static_cast<unsigned>(s);
  const unsigned band = v / 100u, k = v % 100u;
  if (band >= kBandCount || k >= kBands.count[band]) return "unknown_status";
  const char* p = kNames;
  for (unsigned i = kBands.first[band] + k; i != 0; --i) {
    while (*p != '\0') ++p;
    ++p;
  }
  return p;
}

const char* status_description(Status s) noexcept {
  switch (s) {
#define TILEFW_STATUS_TEXT_CASE(name, number, cls, text) \
  case Status::name: return TILEFW_STATUS_TEXT(name, text);
    TILEFW_STATUS_TABLE(TILEFW_STATUS_TEXT_CASE)
#undef TILEFW_STATUS_TEXT_CASE
  }
  return "unknown status value";
}

StatusClass status_class(Status s) noexcept {
  switch (s) {
#define TILEFW_STATUS_CLASS_CASE(name, number, cls, text) \
  case Status::name: return StatusClass::cls;
    TILEFW_STATUS_TABLE(TILEFW_STATUS_CLASS_CASE)
#undef TILEFW_STATUS_CLASS_CASE
  }
  return StatusClass::other;
}

const char* status_band(Status s) noexcept {
  // The bands are the hundreds of the number (status.hpp); ok alone is band "ok".
  static constexpr const char* kBands[] = {"base", "chip/port", "desc", "issue/sim",
                                           "plan/tile", "cmd", "rt", "gen"};
  const unsigned v = static_cast<unsigned>(s);
  if (v == 0) return "ok";
  const unsigned band = v / 100;
  return band < sizeof(kBands) / sizeof(kBands[0]) ? kBands[band] : "unknown";
}

const char* status_class_name(StatusClass c) noexcept {
  switch (c) {
    case StatusClass::ok: return "ok";
    case StatusClass::invalid_descriptor: return "invalid_descriptor";
    case StatusClass::misaligned: return "misaligned";
    case StatusClass::out_of_bounds: return "out_of_bounds";
    case StatusClass::illegal_overlap: return "illegal_overlap";
    case StatusClass::other: return "other";
  }
  return "other";
}

namespace {
constexpr StatusInfo kStatusTable[] = {
#define TILEFW_STATUS_ROW(name, number, cls, text) \
  {Status::name, #name, StatusClass::cls, TILEFW_STATUS_TEXT(name, text)},
    TILEFW_STATUS_TABLE(TILEFW_STATUS_ROW)
#undef TILEFW_STATUS_ROW
};
}  // namespace

const StatusInfo* status_table(std::size_t& count) noexcept {
  count = sizeof(kStatusTable) / sizeof(kStatusTable[0]);
  return kStatusTable;
}

}  // namespace tilefw
