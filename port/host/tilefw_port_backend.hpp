// Host port backend: the facade's operations on the simulated machine of machine.hpp.
// Register accesses go to register windows (and fire engine hooks); memory is host memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "machine.hpp"
#include "tilefw/base/result.hpp"

namespace tilefw::port {

inline uint32_t reg_read32(uint64_t address) noexcept {
  return host::current_machine().read32(address);
}
inline void reg_write32(uint64_t address, uint32_t value) noexcept {
  host::current_machine().write32(address, value);
}
inline uint64_t reg_read64(uint64_t address) noexcept {
  return host::current_machine().read64(address);
}
inline void reg_write64(uint64_t address, uint64_t value) noexcept {
  host::current_machine().write64(address, value);
}
inline Result<uint8_t*> map_memory(uint64_t device_address, uint64_t bytes) noexcept {
  return host::current_machine().translate(device_address, bytes);
}
// The simulator is sequentially consistent with the core: a doorbell is an ordinary write
// whose hook starts the engine.
inline void ring_doorbell(uint64_t address, uint32_t value) noexcept {
  host::current_machine().write32(address, value);
}
Status poll_register(uint64_t address, uint32_t mask, uint32_t expected,
                     uint64_t timeout_ticks) noexcept;
inline uint64_t now_ticks() noexcept { return host::current_machine().now(); }
/// Simulated ticks are device cycles at 1 GHz (both profiles' engine clocks).
inline uint64_t ticks_per_second() noexcept { return 1'000'000'000ull; }
inline uint32_t critical_enter() noexcept { return host::current_machine().enter_critical(); }
inline void critical_exit(uint32_t state) noexcept { host::current_machine().exit_critical(state); }
// Host memory is coherent with the simulated engines: nothing to maintain.
inline void clean_dcache(const void*, size_t) noexcept {}
inline void invalidate_dcache(const void*, size_t) noexcept {}

}  // namespace tilefw::port
