// Memory spaces and regions shared by the chip profiles: what a region is (space, device base,
// size, alignment) and the constexpr lookups the port and the validators use.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilefw::chip {

/// Every memory space either chip family exposes. a2a3 uses GM..Fixpipe, sg2260 uses
/// LMEM..DDR. `none` marks "no region".
enum class MemSpace : uint8_t {
  none,
  // a2a3 (Ascend 910B/C AI Core)
  GM,
  UB,
  L1,
  L0A,
  L0B,
  L0C,
  BiasTable,
  Fixpipe,
  // sg2260 (per core unless noted)
  LMEM,
  SMEM,
  L2,   // shared by all cores
  DDR,  // one region per address tag
};

constexpr const char* mem_space_name(MemSpace s) noexcept {
  switch (s) {
    case MemSpace::none: return "none";
    case MemSpace::GM: return "GM";
    case MemSpace::UB: return "UB";
    case MemSpace::L1: return "L1";
    case MemSpace::L0A: return "L0A";
    case MemSpace::L0B: return "L0B";
    case MemSpace::L0C: return "L0C";
    case MemSpace::BiasTable: return "BiasTable";
    case MemSpace::Fixpipe: return "Fixpipe";
    case MemSpace::LMEM: return "LMEM";
    case MemSpace::SMEM: return "SMEM";
    case MemSpace::L2: return "L2";
    case MemSpace::DDR: return "DDR";
  }
  return "?";
}

/// One contiguous memory region at a device address. `alignment` is the start-address
/// alignment operands in this region need (1 = none).
struct MemoryRegion {
  MemSpace space = MemSpace::none;
  const char* name = "";
  uint64_t device_base = 0;
  uint64_t size = 0;
  uint32_t alignment = 1;

  constexpr uint64_t end() const noexcept { return device_base + size; }
  /// [address, address + bytes) lies inside the region (no wrap-around).
  constexpr bool contains(uint64_t address, uint64_t bytes = 1) const noexcept {
    return address >= device_base && bytes <= size && address - device_base <= size - bytes;
  }
};

/// Lookups in a profile's region table (each profile's region_of / region_size /
/// region_alignment). Size and alignment by value: usable in constant expressions under
/// sanitizers too (GCC's instrumented pointer comparison is not constexpr).
template <size_t N>
constexpr const MemoryRegion* find_region(const MemoryRegion (&regions)[N], MemSpace space) noexcept {
  for (const MemoryRegion& r : regions) {
    if (r.space == space) return &r;
  }
  return nullptr;
}
template <size_t N>
constexpr uint64_t find_region_size(const MemoryRegion (&regions)[N], MemSpace space) noexcept {
  for (const MemoryRegion& r : regions) {
    if (r.space == space) return r.size;
  }
  return 0;
}
template <size_t N>
constexpr uint32_t find_region_alignment(const MemoryRegion (&regions)[N], MemSpace space) noexcept {
  for (const MemoryRegion& r : regions) {
    if (r.space == space) return r.alignment;
  }
  return 1;
}

/// A window of device registers (base, size in bytes).
struct RegisterWindow {
  const char* name = "";
  uint64_t base = 0;
  uint32_t size = 0;
  constexpr bool contains(uint64_t address, uint32_t bytes) const noexcept {
    return address >= base && bytes <= size && address - base <= size - bytes;
  }
};

/// Device register space shared by both profiles (tilefw's own map): register windows of the
/// chip profiles live at offsets inside it. A target port maps the whole space to one CPU
/// window, so a register access is one subtraction and one store.
inline constexpr uint64_t kRegisterSpaceBase = 0x2000'0000'0000ull;
inline constexpr uint32_t kRegisterSpaceBytes = 64 * 1024;

constexpr uint64_t KiB(uint64_t n) noexcept { return n * 1024u; }
constexpr uint64_t MiB(uint64_t n) noexcept { return n * 1024u * 1024u; }

}  // namespace tilefw::chip
