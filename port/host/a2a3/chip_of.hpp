// The PTO chip profile a simulated machine maps: a5 when it was built with kProfileA5 alone,
// a2a3 otherwise (with both, a2a3's memories win: machine.hpp). Every engine of a simulated AI
// Core bounds its operands by this profile's space sizes.
#pragma once

#include "machine.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::port::host {

inline chip::Chip chip_of(const Machine& m) noexcept {
  return (m.profiles() & (kProfileA5 | kProfileA2a3)) == kProfileA5 ? chip::Chip::a5 : chip::Chip::a2a3;
}

}  // namespace tilefw::port::host
