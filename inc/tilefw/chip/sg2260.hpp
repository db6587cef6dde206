// Chip profile `sg2260`: Sophgo SG2260 / BM1690 TPU (8 cores x 64 lanes of LMEM, TIU + GDMA +
// SDMA engines). Numbers from spec/sg2260-commands.md (section ids S1..S14 are its sources).
#pragma once

#include <cstdint>

#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::sg2260 {

// ---- chip parameters (sg2260-commands 6.1) ----------------------------------------------
/// Cores per chip (S8 `Core Num`, bmodel core_num = 8).
inline constexpr uint32_t kCores = 8;
/// Lanes (NPU_NUM) per core (S5 NPU_NUM = 64, S8, S12).
inline constexpr uint32_t kLanes = 64;
/// LMEM per lane: 256 KB, lane address width 18 (S5 LANE_SIZE = 1 << 18).
inline constexpr uint32_t kLaneBytes = 256 * 1024;
inline constexpr uint32_t kLaneAddressBits = 18;
/// LMEM per core: 64 x 256 KB = 16 MB.
inline constexpr uint64_t kLmemBytesPerCore = uint64_t{kLanes} * kLaneBytes;
/// 16 banks per lane, 16 KB each; bank = address bits 17:14 (S5 BANK_NUM = 16).
inline constexpr uint32_t kBanksPerLane = 16;
inline constexpr uint32_t kBankBytes = 16 * 1024;
inline constexpr uint32_t kBankShift = 14;
/// SMEM (static memory) per core: 64 KB; TIU address bit 26 selects it (S5, S12).
inline constexpr uint32_t kSmemBytes = 64 * 1024;
inline constexpr uint32_t kSmemSelectBit = 26;
/// L2 SRAM: 128 MB shared, at 0x69_8000_0000 (S5 memmap, TPU1686 memmap.h).
inline constexpr uint64_t kL2Base = 0x69'8000'0000ull;
inline constexpr uint64_t kL2Bytes = 128ull * 1024 * 1024;
/// TIU and GDMA clock: 1000 MHz (S8 BD_FREQ = GDMA_FREQ = 1000).
inline constexpr uint64_t kClockHz = 1'000'000'000ull;
/// DDR bandwidth per core: 68.264 GB/s (S8 `DDR Max BW(GB/s/Core)`).
inline constexpr uint64_t kDdrBytesPerSecondPerCore = 68'264'000'000ull;
/// Execution units per lane by dtype (timing model v1): int8 64, f16/bf16 32, f32 16.
inline constexpr uint32_t kEuInt8 = 64;
inline constexpr uint32_t kEuF16 = 32;
inline constexpr uint32_t kEuF32 = 16;

// ---- ids and dependencies (sg2260-commands decisions 3) ---------------------------------
/// Bit 20 of cmd_id_dep enables the wait; the low 20 bits count completed commands.
inline constexpr uint32_t kDepEnableBit = 1u << 20;
inline constexpr uint32_t kDepIdMask = 0xFFFFFu;
/// One stream holds at most 2^20 - 1 commands (ids are 1-based and 20 bits wide).
inline constexpr uint32_t kMaxCommandsPerStream = (1u << 20) - 1;
/// Message barriers: msg_id 9 bits, cnt 7 bits (decisions 4).
inline constexpr uint32_t kMsgIdBits = 9;
inline constexpr uint32_t kMsgCntBits = 7;

// ---- DMA addresses (sg2260-commands 2.3) ------------------------------------------------
/// DMA addresses are 45 bits; the tag is bits 44:40.
inline constexpr uint32_t kDmaAddressBits = 45;
inline constexpr uint32_t kTagShift = 40;
inline constexpr uint64_t kDmaOffsetMask = (uint64_t{1} << kTagShift) - 1;
inline constexpr uint32_t kTagLmem = 31;  // LMEM, or SMEM when address bit 26 is set
inline constexpr uint32_t kTagL2 = 30;
/// Tags 0..29 select DDR regions (users 0, weight 1, activation 2, global 3, ...).
inline constexpr uint32_t kMaxDdrTag = 29;
inline constexpr uint32_t kDdrTagCoeff = 1;   // real bmodel: coeff_addr = 1 << 40
inline constexpr uint32_t kDdrTagNeuron = 2;  // real bmodel: neuron_addr = 2 << 40

constexpr uint32_t dma_tag(uint64_t address) noexcept {
  return static_cast<uint32_t>((address >> kTagShift) & 0x1F);
}
constexpr uint64_t dma_offset(uint64_t address) noexcept { return address & kDmaOffsetMask; }
constexpr uint64_t make_dma_address(uint32_t tag, uint64_t offset) noexcept {
  return (uint64_t{tag & 0x1F} << kTagShift) | (offset & kDmaOffsetMask);
}

/// Local (LMEM/SMEM) addresses, as TIU commands and tag-31 DMA addresses carry them:
/// bit 26 = SMEM, bits 23:18 = lane, bits 17:0 = offset inside the lane, 17:14 = bank.
constexpr bool local_is_smem(uint64_t local) noexcept { return ((local >> kSmemSelectBit) & 1) != 0; }
constexpr uint32_t local_lane(uint64_t local) noexcept {
  return static_cast<uint32_t>((local >> kLaneAddressBits) & (kLanes - 1));
}
constexpr uint32_t local_offset(uint64_t local) noexcept {
  return static_cast<uint32_t>(local & (kLaneBytes - 1));
}
constexpr uint32_t local_bank(uint64_t local) noexcept {
  return static_cast<uint32_t>((local >> kBankShift) & (kBanksPerLane - 1));
}

// ---- device address map of the simulator (tilefw's own) ---------------------------------
// LMEM and SMEM are per core and have no chip-wide address in the commands; the simulator
// places core c's LMEM at kLmemWindowBase + c * kLmemBytesPerCore (lane-major), and its SMEM
// likewise. DDR regions are placed by the caller's memory map (one region per tag).
inline constexpr uint64_t kLmemWindowBase = 0x7000'0000'0000ull;
inline constexpr uint64_t kSmemWindowBase = 0x7100'0000'0000ull;
/// Host placement of DDR tag t: the tag's 40-bit offset space at kDdrWindowBase + (t << 40).
inline constexpr uint64_t kDdrWindowBase = 0x8000'0000'0000ull;  // clear of L2 at 0x69_8000_0000

constexpr MemoryRegion lmem_region(uint32_t core) noexcept {
  return MemoryRegion{MemSpace::LMEM, "LMEM", kLmemWindowBase + core * kLmemBytesPerCore,
                      kLmemBytesPerCore, 1};
}
constexpr MemoryRegion smem_region(uint32_t core) noexcept {
  return MemoryRegion{MemSpace::SMEM, "SMEM", kSmemWindowBase + uint64_t{core} * kSmemBytes,
                      kSmemBytes, 1};
}
/// Register window of the 8 cores' TIU/GDMA/SDMA engines (queue, doorbell and completion
/// registers: tilefw's own map, decisions 6; defined with the runtime layer).
inline constexpr RegisterWindow kEngineRegisters{"sg2260-engines", kRegisterSpaceBase + 0x8000, 0x8000};

inline constexpr MemoryRegion kL2{MemSpace::L2, "L2", kL2Base, kL2Bytes, 1};
/// Host placement of a DDR region given by (tag, offset inside the tag, bytes).
constexpr MemoryRegion ddr_region(uint32_t tag, uint64_t offset, uint64_t bytes) noexcept {
  return MemoryRegion{MemSpace::DDR, "DDR", kDdrWindowBase + (uint64_t{tag} << kTagShift) + offset,
                      bytes, 1};
}

}  // namespace tilefw::chip::sg2260
