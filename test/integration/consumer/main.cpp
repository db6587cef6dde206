// A firmware-style consumer of tilefw: uses the base, chip and port layers through the
// installed or subproject headers, exactly as a user's project would.
#include <cstdio>

#include "tilefw/port/port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"

int main() {
  const auto ub = tilefw::port::map_memory(tilefw::chip::a2a3::kUb.device_base, 32);
  const uint16_t one = tilefw::to_half(1.0f).bits;
  std::printf("UB mapped: %s, half(1.0) = 0x%04x\n", tilefw::status_name(ub.status()), one);
  return ub.ok() && one == 0x3C00 ? 0 : 1;
}
