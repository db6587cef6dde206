// Cortex-M port backend: registers are volatile MMIO in one CPU window (from the linker
// symbol __tilefw_regs_base), device memories are CPU windows from linker symbols, time is
// SysTick, critical sections mask interrupts with PRIMASK.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/result.hpp"
#include "tilefw/chip/memory.hpp"

extern "C" {
// Set by the board's linker script (linker/tilefw_device.ld gives size-0 defaults).
extern uint8_t __tilefw_regs_base[];
}

namespace tilefw::port {

namespace cortex_m {
inline volatile uint32_t* reg32(uint64_t address) noexcept {
  return reinterpret_cast<volatile uint32_t*>(
      __tilefw_regs_base + static_cast<uintptr_t>(address - chip::kRegisterSpaceBase));
}
}  // namespace cortex_m

inline uint32_t reg_read32(uint64_t address) noexcept { return *cortex_m::reg32(address); }
inline void reg_write32(uint64_t address, uint32_t value) noexcept {
  *cortex_m::reg32(address) = value;
}
// Low word first, as the device expects for its 64-bit registers.
inline uint64_t reg_read64(uint64_t address) noexcept {
  const uint32_t lo = *cortex_m::reg32(address);
  const uint32_t hi = *cortex_m::reg32(address + 4);
  return (uint64_t{hi} << 32) | lo;
}
inline void reg_write64(uint64_t address, uint64_t value) noexcept {
  *cortex_m::reg32(address) = static_cast<uint32_t>(value);
  *cortex_m::reg32(address + 4) = static_cast<uint32_t>(value >> 32);
}
// DSB: every earlier store (descriptors in device memory, operand registers) completes
// before the doorbell store reaches the device.
inline void ring_doorbell(uint64_t address, uint32_t value) noexcept {
  __asm__ volatile("dsb" ::: "memory");
  *cortex_m::reg32(address) = value;
}
inline uint32_t critical_enter() noexcept {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}
inline void critical_exit(uint32_t state) noexcept {
  __asm__ volatile("msr primask, %0" ::"r"(state) : "memory");
}

Result<uint8_t*> map_memory(uint64_t device_address, uint64_t bytes) noexcept;
Status poll_register(uint64_t address, uint32_t mask, uint32_t expected,
                     uint64_t timeout_ticks) noexcept;
uint64_t now_ticks() noexcept;
uint64_t ticks_per_second() noexcept;
void clean_dcache(const void* address, size_t bytes) noexcept;
void invalidate_dcache(const void* address, size_t bytes) noexcept;

namespace cortex_m {
/// One device memory window: [device_base, +size) appears at cpu_base. size 0 = absent.
struct Window {
  uint64_t device_base;
  uint8_t* cpu_base;
  uint32_t size;
};
/// The windows this board provides (from linker symbols), for diagnostics and tests.
const Window* windows(size_t* count) noexcept;
}  // namespace cortex_m

}  // namespace tilefw::port
