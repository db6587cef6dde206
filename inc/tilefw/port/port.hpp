// The port facade: every operation the core needs from the machine it runs on (registers,
// device memory, doorbells, completion polling, time, critical sections, cache maintenance).
// The backend chosen at build time (Meson option `port`) supplies tilefw_port_backend.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"

// The backend header defines, in namespace tilefw::port, every function listed below.
// Backends are plain functions (often inline), never virtual: the hot path is a store.
#include "tilefw_port_backend.hpp"

namespace tilefw::port {

// ---- registers -----------------------------------------------------------------------
// uint32_t reg_read32(uint64_t address) noexcept;
// void     reg_write32(uint64_t address, uint32_t value) noexcept;
// uint64_t reg_read64(uint64_t address) noexcept;
// void     reg_write64(uint64_t address, uint64_t value) noexcept;
//   Device registers at device addresses. A write is a single store in program order.

// ---- device memory -------------------------------------------------------------------
// Result<uint8_t*> map_memory(uint64_t device_address, uint64_t bytes) noexcept;
//   CPU pointer through which [device_address, +bytes) can be read and written, or
//   unmapped_address / region_overrun. Host: simulator memory; target: the device window.

// ---- doorbells and completion --------------------------------------------------------
// void ring_doorbell(uint64_t address, uint32_t value) noexcept;
//   Makes every earlier register and memory write visible to the device, then writes
//   `value` to the doorbell register (target: DSB + store; host: the attached engine runs).
// Status poll_register(uint64_t address, uint32_t mask, uint32_t expected,
//                      uint64_t timeout_ticks) noexcept;
//   Reads until (value & mask) == expected: ok, or port_timeout after timeout_ticks.

// ---- time ----------------------------------------------------------------------------
// uint64_t now_ticks() noexcept;          monotonic (host: simulated cycles)
// uint64_t ticks_per_second() noexcept;

// ---- critical sections ---------------------------------------------------------------
// uint32_t critical_enter() noexcept;     returns the state to restore (nests)
// void     critical_exit(uint32_t state) noexcept;

// ---- cache maintenance ---------------------------------------------------------------
// void clean_dcache(const void* address, size_t bytes) noexcept;       CPU -> device
// void invalidate_dcache(const void* address, size_t bytes) noexcept;  device -> CPU

// The contract is checked here, so a backend that drifts fails to compile.
static_assert(std::is_same_v<decltype(&reg_read32), uint32_t (*)(uint64_t) noexcept>);
static_assert(std::is_same_v<decltype(&reg_write32), void (*)(uint64_t, uint32_t) noexcept>);
static_assert(std::is_same_v<decltype(&reg_read64), uint64_t (*)(uint64_t) noexcept>);
static_assert(std::is_same_v<decltype(&reg_write64), void (*)(uint64_t, uint64_t) noexcept>);
static_assert(std::is_same_v<decltype(&map_memory), Result<uint8_t*> (*)(uint64_t, uint64_t) noexcept>);
static_assert(std::is_same_v<decltype(&ring_doorbell), void (*)(uint64_t, uint32_t) noexcept>);
static_assert(std::is_same_v<decltype(&poll_register),
                             Status (*)(uint64_t, uint32_t, uint32_t, uint64_t) noexcept>);
static_assert(std::is_same_v<decltype(&now_ticks), uint64_t (*)() noexcept>);
static_assert(std::is_same_v<decltype(&ticks_per_second), uint64_t (*)() noexcept>);
static_assert(std::is_same_v<decltype(&critical_enter), uint32_t (*)() noexcept>);
static_assert(std::is_same_v<decltype(&critical_exit), void (*)(uint32_t) noexcept>);
static_assert(std::is_same_v<decltype(&clean_dcache), void (*)(const void*, size_t) noexcept>);
static_assert(std::is_same_v<decltype(&invalidate_dcache), void (*)(const void*, size_t) noexcept>);

/// Scoped critical section: interrupts (target) or re-entrancy (host) held off until the end
/// of the scope. Not copyable; nests.
class CriticalSection {
 public:
  CriticalSection() noexcept : state_(critical_enter()) {}
  ~CriticalSection() { critical_exit(state_); }
  CriticalSection(const CriticalSection&) = delete;
  CriticalSection& operator=(const CriticalSection&) = delete;

 private:
  uint32_t state_;
};

/// Copies host bytes into device memory (validated as one range before the first byte moves).
Status copy_to_device(uint64_t device_address, const void* source, size_t bytes) noexcept;
/// Copies device memory into host bytes.
Status copy_from_device(void* destination, uint64_t device_address, size_t bytes) noexcept;

}  // namespace tilefw::port
