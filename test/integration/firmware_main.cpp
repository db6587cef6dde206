// A firmware image built the way a Cortex-M project consumes tilefw: tilefw_dep only (no
// board_dep and its linker flags), its own linker script (firmware_m.ld) that INCLUDEs
// tilefw_device.ld. The window the script defines (UB) must map; every window it leaves to
// tilefw_device.ld's defaults must be absent. Startup and console are the QEMU board's.
#include <cstdint>

#include "board_print.h"
#include "tilefw/port/port.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace {

bool expect(const char* what, uint64_t device_address, uint64_t bytes, tilefw::Status want) {
  const tilefw::Status got = tilefw::port::map_memory(device_address, bytes).status();
  board_print(got == want ? "ok     " : "WRONG  ");
  board_print(what);
  board_print(": ");
  board_print(tilefw::status_name(got));
  board_print("\n");
  return got == want;
}

}  // namespace

int main() {
  namespace a2a3 = tilefw::chip::a2a3;
  using tilefw::Status;
  bool ok = expect("UB (the script's window)", a2a3::kUb.device_base, a2a3::kUbBytes, Status::ok);
  ok = expect("L1 (default: absent)", a2a3::kL1.device_base, 4, Status::unmapped_address) && ok;
  ok = expect("BiasTable (default: absent)", a2a3::kBiasTable.device_base, 4,
              Status::unmapped_address) && ok;
  ok = expect("Fixpipe (default: absent)", a2a3::kFixpipe.device_base, 4,
              Status::unmapped_address) && ok;
  ok = expect("SG2260 SMEM (default: absent)", tilefw::chip::sg2260::kSmemWindowBase, 4,
              Status::unmapped_address) && ok;
  return ok ? 0 : 1;
}
