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

namespace {
// status_name's table: every name in one string (each ended by its NUL) and, per value, its
// number and the offset of its name. A firmware links status_name to print what failed; a
// lookup in 4 bytes per value costs it about a third less than a switch of every case.
#define TILEFW_STATUS_NAME_CHARS(name, number, cls, text) #name "\0"
constexpr char kNames[] = TILEFW_STATUS_TABLE(TILEFW_STATUS_NAME_CHARS);
#undef TILEFW_STATUS_NAME_CHARS
#define TILEFW_STATUS_NUMBER(name, number, cls, text) number,
constexpr uint16_t kNumbers[] = {TILEFW_STATUS_TABLE(TILEFW_STATUS_NUMBER)};
#undef TILEFW_STATUS_NUMBER
constexpr size_t kNameCount = sizeof kNumbers / sizeof kNumbers[0];

struct NameOffsets {
  uint16_t at[kNameCount] = {};
};
constexpr NameOffsets name_offsets() {
  NameOffsets o;
  size_t i = 0;
  for (size_t c = 0; c + 1 < sizeof kNames && i + 1 < kNameCount; ++c) {
    if (kNames[c] == '\0') o.at[++i] = static_cast<uint16_t>(c + 1);
  }
  return o;
}
constexpr NameOffsets kNameOffsets = name_offsets();
static_assert(sizeof kNames < 65536, "name offsets are 16-bit");
}  // namespace

const char* status_name(Status s) noexcept {
  for (size_t i = 0; i < kNameCount; ++i) {
    if (kNumbers[i] == static_cast<uint16_t>(s)) return kNames + kNameOffsets.at[i];
  }
  return "unknown_status";
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
