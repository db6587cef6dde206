// Minimal a2a3 firmware image for the footprint measurement (bench/RESULTS.md): one TADD of two
// f32 64 x 64 tiles through the tile API (plan, validate, issue). Linked with --gc-sections, it
// holds exactly the tilefw code such a firmware pays for; scripts/firmware_size.py reports it.
// Built, not run: the QEMU boards have no vector unit behind the register window.
#include "board_print.h"
#include "tilefw/tile/instr.hpp"

namespace {
tilefw::tile::Core g_core;  // the unit's shadow and the planner's scratch plan: static, no heap

// The result as the firmware reports it. A build that strips the Status strings for footprint
// (-Dstatus_strings=names) prints the number (`tilefw status <n>` names it on the host), so the
// image links no name table; the default build prints the name.
void print_status(tilefw::Status s) {
#if defined(TILEFW_STATUS_DESCRIPTIONS) && !TILEFW_STATUS_DESCRIPTIONS
  char digits[8];
  char* p = digits + sizeof digits;
  *--p = '\0';
  unsigned v = static_cast<unsigned>(s);
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  board_print(p);
#else
  board_print(tilefw::status_name(s));
#endif
}
}  // namespace

int main() {
  using namespace tilefw;
  tile::Tile<tile::TileType::Vec, float, 64, 64> c, a, b;
  tile::TASSIGN<0x0>(c);
  tile::TASSIGN<0x4000>(a);
  tile::TASSIGN<0x8000>(b);
  const Result<tile::Event> r = tile::TADD(g_core, c, a, b);
  print_status(r.status());
  board_print("\n");
  return r.ok() ? 0 : 1;
}
