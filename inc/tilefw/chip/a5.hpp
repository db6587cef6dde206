// Chip profile `a5`: Ascend 950 AI Core as its buffers and vector register see it, beside a2a3.
// Every number names how it is known (docs/a5-profile.md: documented, or a tilefw decision).
// The device address map is a2a3's (same bases, A5 sizes): a machine maps one of the two.
#pragma once

#include <cstdint>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::a5 {

// ---- buffer sizes (docs/a5-profile.md section 2) -----------------------------------------
/// UB per vector core: 256 KB (documented: the PTO library's buffer limits for A5).
inline constexpr uint32_t kUbBytes = 256 * 1024;
/// L1: 512 KB, as on a2a3 (documented: A5 matmul kernels size L1 at 512 KB).
inline constexpr uint32_t kL1Bytes = 512 * 1024;
/// L0A / L0B: 64 KB each (documented: A5 matmul kernels).
inline constexpr uint32_t kL0ABytes = 64 * 1024;
inline constexpr uint32_t kL0BBytes = 64 * 1024;
/// L0C: 256 KB, twice a2a3's (documented: A5 matmul kernels, 262144 bytes).
inline constexpr uint32_t kL0CBytes = 256 * 1024;
/// BiasTable: 4 KB (documented: A5 matmul kernels, 4096 bytes).
inline constexpr uint32_t kBiasTableBytes = 4 * 1024;
/// Fixpipe buffer: a2a3's 2 KB (tilefw decision: no A5 figure is documented).
inline constexpr uint32_t kFixpipeBytes = 2 * 1024;
/// GM window of the simulator: a2a3's 16 MiB (tilefw decision).
inline constexpr uint32_t kGmWindowBytes = a2a3::kGmWindowBytes;

// ---- vector register (docs/a5-profile.md section 3) --------------------------------------
/// One vector register holds 256 B = 8 VLanes of 32 B (documented: PTO's A5 vector model).
inline constexpr uint32_t kVLaneBytes = 32;
inline constexpr uint32_t kVLanes = 8;
inline constexpr uint32_t kVectorRegisterBytes = kVLaneBytes * kVLanes;  // 256
/// Elements of `element_bytes` bytes in one vector register (128 for b16, 64 for b32): the
/// same figure as an a2a3 repeat, which is why one kernel plans alike on both.
constexpr uint32_t lanes_per_register(uint32_t element_bytes) noexcept {
  return kVectorRegisterBytes / element_bytes;
}

// ---- device address map: a2a3's bases and alignments, A5's sizes ---------------------------
inline constexpr MemoryRegion kGm{MemSpace::GM, "GM", a2a3::kGm.device_base, kGmWindowBytes, a2a3::kGmAlign};
inline constexpr MemoryRegion kUb{MemSpace::UB, "UB", a2a3::kUb.device_base, kUbBytes, a2a3::kUbAlign};
inline constexpr MemoryRegion kL1{MemSpace::L1, "L1", a2a3::kL1.device_base, kL1Bytes, a2a3::kL1Align};
inline constexpr MemoryRegion kL0A{MemSpace::L0A, "L0A", a2a3::kL0A.device_base, kL0ABytes, a2a3::kL0ABAlign};
inline constexpr MemoryRegion kL0B{MemSpace::L0B, "L0B", a2a3::kL0B.device_base, kL0BBytes, a2a3::kL0ABAlign};
inline constexpr MemoryRegion kL0C{MemSpace::L0C, "L0C", a2a3::kL0C.device_base, kL0CBytes, a2a3::kL0CAlign};
inline constexpr MemoryRegion kBiasTable{MemSpace::BiasTable, "BiasTable", a2a3::kBiasTable.device_base,
                                         kBiasTableBytes, a2a3::kBiasTableAlign};
inline constexpr MemoryRegion kFixpipe{MemSpace::Fixpipe, "Fixpipe", a2a3::kFixpipe.device_base, kFixpipeBytes,
                                       a2a3::kFixpipeAlign};

inline constexpr MemoryRegion kRegions[] = {kGm, kUb, kL1, kL0A, kL0B, kL0C, kBiasTable, kFixpipe};

/// The region of a space, or nullptr if the space does not exist on A5; its size and
/// alignment by value (0 / 1 if it does not exist).
constexpr const MemoryRegion* region_of(MemSpace space) noexcept { return find_region(kRegions, space); }
constexpr uint64_t region_size(MemSpace space) noexcept { return find_region_size(kRegions, space); }
constexpr uint32_t region_alignment(MemSpace space) noexcept { return find_region_alignment(kRegions, space); }

}  // namespace tilefw::chip::a5
