// Chip profile `a2a3`: Ascend 910B/910C AI Core (arch 2201) as the vector unit and its
// buffers see it. Every number names its source (spec/vector-semantics.md sections, seeds).
#pragma once

#include <cstdint>

#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::a2a3 {

// ---- buffer sizes (vector-semantics 7, "Hardware sizes and alignment") --------------------
/// UB per AIV: 192 KB = 16 bank groups x 3 banks x 4 KB [DOC Vector逻辑架构].
inline constexpr uint32_t kUbBytes = 192 * 1024;
/// Ascend C reserves the top 8 KB of UB (TMP_UB_OFFSET = 184 KB); PTO on CANN 9.0 reads NaN
/// there (pto-isa#170). Legal for the vector unit; tilefw reports a diagnostic.
inline constexpr uint32_t kUbReservedTopBytes = 8 * 1024;
inline constexpr uint32_t kUbUsableBytes = kUbBytes - kUbReservedTopBytes;  // 184 KB
/// L1: 512 KB (asc-devkit, PTO buffer_limits.hpp).
inline constexpr uint32_t kL1Bytes = 512 * 1024;
/// L0A / L0B: 64 KB each (PTO buffer_limits.hpp, asc-devkit).
inline constexpr uint32_t kL0ABytes = 64 * 1024;
inline constexpr uint32_t kL0BBytes = 64 * 1024;
/// L0C: 128 KB on arch 2201 [DOC 2201 硬件约束].
inline constexpr uint32_t kL0CBytes = 128 * 1024;
/// BiasTable 1 KB, Fixpipe buffer 2 KB (PTO).
inline constexpr uint32_t kBiasTableBytes = 1024;
inline constexpr uint32_t kFixpipeBytes = 2 * 1024;
/// GM window of the simulator and of conformance cases: 16 MiB from address 0
/// (spec/conformance.md "Initial state"). Real GM is HBM; this is the window tilefw maps.
inline constexpr uint32_t kGmWindowBytes = 16 * 1024 * 1024;

// ---- alignment (seed 004 表1 通用地址对齐约束; vector-semantics 7) ------------------------
inline constexpr uint32_t kGmAlign = 1;   // "Global Memory: 无对齐要求"
inline constexpr uint32_t kUbAlign = 32;  // "Unified Buffer: 32Byte对齐"
inline constexpr uint32_t kL1Align = 32;
inline constexpr uint32_t kL0ABAlign = 512;
inline constexpr uint32_t kL0CAlign = 64;
inline constexpr uint32_t kBiasTableAlign = 64;
/// 64 B per seed 004; the 2201 hardware-constraints table says 128 B (vector-semantics 7
/// lists the discrepancy). tilefw follows the seed.
inline constexpr uint32_t kFixpipeAlign = 64;

// ---- vector unit geometry (vector-semantics 1.1, seed 000 section 4) ---------------------
/// One repeat touches 8 DataBlocks of 32 B.
inline constexpr uint32_t kBlockBytes = 32;
inline constexpr uint32_t kBlocksPerRepeat = 8;
inline constexpr uint32_t kRepeatBytes = kBlockBytes * kBlocksPerRepeat;  // 256
/// repeat is a uint8 field: at most 255 (vector-semantics 1.3 "The hardware limit").
inline constexpr uint32_t kMaxRepeat = 255;
/// Binary-op strides are uint8 (vector-semantics 1.1 table); unary/reduction strides uint16.
inline constexpr uint32_t kMaxBinaryStride = 255;
inline constexpr uint32_t kMaxWideStride = 65535;
/// Counter mode counts up to 2^32 - 1 elements (vector-semantics 2).
inline constexpr uint64_t kMaxVectorCount = 0xFFFFFFFFu;
/// Lanes in one repeat for an element of `element_bytes` bytes (128 for b16, 64 for b32).
constexpr uint32_t lanes_per_repeat(uint32_t element_bytes) noexcept {
  return kRepeatBytes / element_bytes;
}

// ---- device address map (tilefw's own; the spaces are separate on hardware) -------------
// The simulator backs each space with host memory at these device addresses, so one 64-bit
// device address names any byte. Vector-unit operands are offsets inside their space.
inline constexpr MemoryRegion kGm{MemSpace::GM, "GM", 0x0000'0000'0000ull, kGmWindowBytes, kGmAlign};
inline constexpr MemoryRegion kUb{MemSpace::UB, "UB", 0x1000'0000'0000ull, kUbBytes, kUbAlign};
inline constexpr MemoryRegion kL1{MemSpace::L1, "L1", 0x1001'0000'0000ull, kL1Bytes, kL1Align};
inline constexpr MemoryRegion kL0A{MemSpace::L0A, "L0A", 0x1002'0000'0000ull, kL0ABytes, kL0ABAlign};
inline constexpr MemoryRegion kL0B{MemSpace::L0B, "L0B", 0x1003'0000'0000ull, kL0BBytes, kL0ABAlign};
inline constexpr MemoryRegion kL0C{MemSpace::L0C, "L0C", 0x1004'0000'0000ull, kL0CBytes, kL0CAlign};
inline constexpr MemoryRegion kBiasTable{MemSpace::BiasTable, "BiasTable", 0x1005'0000'0000ull,
                                         kBiasTableBytes, kBiasTableAlign};
inline constexpr MemoryRegion kFixpipe{MemSpace::Fixpipe, "Fixpipe", 0x1006'0000'0000ull,
                                       kFixpipeBytes, kFixpipeAlign};

inline constexpr MemoryRegion kRegions[] = {kGm, kUb, kL1, kL0A, kL0B, kL0C, kBiasTable, kFixpipe};

/// Register window of the vector unit inside the device register space (tilefw's own map;
/// the individual registers are defined with the single-issue layer).
inline constexpr RegisterWindow kVectorUnitRegisters{"a2a3-vector-unit", kRegisterSpaceBase, 0x1000};

/// The region of a space, or nullptr if the space does not exist on a2a3.
constexpr const MemoryRegion* region_of(MemSpace space) noexcept {
  for (const MemoryRegion& r : kRegions) {
    if (r.space == space) return &r;
  }
  return nullptr;
}

}  // namespace tilefw::chip::a2a3
