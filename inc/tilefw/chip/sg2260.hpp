// Chip profile `sg2260`: Sophgo SG2260 / BM1690 TPU (8 cores x 64 lanes of LMEM, TIU + GDMA +
// SDMA engines). Numbers from docs/sg2260-commands.md (section 8, chip parameters; section 16,
// public sources). Source tags below: S5 tpu-mlir's SG2260 memory map (target_2260/memmap.py),
// S8 tpu-mlir's BM1690 profiler definitions (profile_helper/bm1690_defs.py), S12 an analysis of
// the SG2260 profiler, firmware and ISA V7.1 ("bigTpuProfile 设计与实现分析").
#pragma once

#include <cstdint>

#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::sg2260 {

// ---- chip parameters (docs/sg2260-commands.md section 8) --------------------------------
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
/// DDR bandwidth per chip: 8 x 68.264 = 546.112 GB/s (LPDDR5-8533; docs/sg2260-commands.md
/// section 8). Tier6's SG2260E preset says 273 GB/s (16 channels); the profiler's figure is used.
inline constexpr uint64_t kDdrBytesPerSecond = kCores * kDdrBytesPerSecondPerCore;
/// L2 SRAM bandwidth: 128 GB/s (S8 `L2 max BW`).
inline constexpr uint64_t kL2BytesPerSecond = 128'000'000'000ull;
/// Matrix unit (MM2) throughput per lane and cycle, as an N x K tile of the multiply-adds of
/// one output row per lane: bf16/f16 32 x 4 = 128 MAC, int8 64 x 4 = 256 MAC (ISA V7.1 13.1
/// "INT8 32T / FP16 16T" per core = 64 lanes x 128 MAC x 2 flops x 1 GHz; Tier6's SG2260E
/// preset: MAC per lane INT8 256 / BF16 128; N per cycle = the EU count of the dtype, S8).
/// f32 16 x 2 = 32 MAC is an ASSUMPTION (no source gives it; a quarter of bf16, as tf32/f32
/// paths are slower than bf16 on every TPU of the family). Timing model v2 costs MM2 with
/// exactly these (timing_v2::mm2_cycles) and peak_flops() derives from them, so no simulated
/// MM2 beats the reported peak.
inline constexpr uint32_t kMm2NPerCycleF16 = 32;
inline constexpr uint32_t kMm2KPerCycleF16 = 4;
inline constexpr uint32_t kMm2NPerCycleInt8 = 64;
inline constexpr uint32_t kMm2KPerCycleInt8 = 4;
inline constexpr uint32_t kMm2NPerCycleF32 = 16;  // assumption (see above)
inline constexpr uint32_t kMm2KPerCycleF32 = 2;   // assumption (see above)
inline constexpr uint32_t kMacPerLaneF16 = kMm2NPerCycleF16 * kMm2KPerCycleF16;
inline constexpr uint32_t kMacPerLaneInt8 = kMm2NPerCycleInt8 * kMm2KPerCycleInt8;
inline constexpr uint32_t kMacPerLaneF32 = kMm2NPerCycleF32 * kMm2KPerCycleF32;
static_assert(kMacPerLaneF16 == 128 && kMacPerLaneInt8 == 256 && kMacPerLaneF32 == 32);

/// Peak flops of the chip by dtype name ("bf16", "f16", "int8", "f32"; 2 flops per MAC):
/// 8 cores x 64 lanes x 128 MAC x 2 x 1 GHz = 131.07 TFLOPS for bf16/f16; 0 for an unknown name.
constexpr double peak_flops(const char* dtype) noexcept {
  auto is = [dtype](const char* s) {
    const char* d = dtype;
    while (*d != 0 && *d == *s) ++d, ++s;
    return *d == 0 && *s == 0;
  };
  uint32_t mac = 0;
  if (is("bf16") || is("f16") || is("fp16") || is("float16") || is("bfloat16")) mac = kMacPerLaneF16;
  else if (is("int8") || is("i8")) mac = kMacPerLaneInt8;
  else if (is("f32") || is("fp32") || is("float32")) mac = kMacPerLaneF32;
  return 2.0 * mac * kLanes * kCores * static_cast<double>(kClockHz);
}
static_assert(peak_flops("bf16") == 131'072'000'000'000.0);
/// Execution units per lane by dtype (timing model v1): int8 64, f16/bf16 32, f32 16.
inline constexpr uint32_t kEuInt8 = 64;
inline constexpr uint32_t kEuF16 = 32;
inline constexpr uint32_t kEuF32 = 16;

// ---- chip-to-chip (docs/sg2260-commands.md section 13.3 and 13.5) ---------------------
/// CDMA engines ("ports") per chip: the firmware's CONFIG_MAX_CDMA_NUM = 10; each port talks
/// to one directly linked peer, so a chip has at most 10 links.
inline constexpr uint32_t kCdmaPorts = 10;
/// Chips of one simulated system (tilefw's bound: the SG2260E notes allow 128 through PCIe
/// switches; 64 keeps the fixed topology tables small).
inline constexpr uint32_t kMaxChips = 64;
/// C2C link and CDMA figures (Rule: CDMA timing v1). Public source: TPUPerf's c2c/cdma model as
/// the Tier6-Model documents restate it (xiangli-sophgo/Tier6-Model, docs/design/
/// instruction-level-simulator/06-multicore-interconnect.md): link bandwidth 256 Gb/s / 8 / 2
/// x 0.7 = 11.2 GB/s per direction, internal link delay 0, pseudo-mode alpha 0.25 us and beta
/// 0.3 us, credit capacity 2. The switch hop of 100 ns is the SG2260E notes' PCIe latency
/// (xiangli-sophgo/C2C, config/constants.py).
inline constexpr double kC2cLinkGbytesPerSecond = 11.2;
inline constexpr double kC2cLinkLatencyNs = 0;
inline constexpr double kC2cAlphaNs = 250;
inline constexpr double kC2cBetaNs = 300;
inline constexpr double kC2cSwitchLatencyNs = 100;
inline constexpr uint32_t kC2cCredits = 2;

// ---- ids and dependencies (docs/sg2260-commands.md section 9, Rule: dependency encoding) --
/// Bit 20 of cmd_id_dep enables the wait; the low 20 bits count completed commands.
inline constexpr uint32_t kDepEnableBit = 1u << 20;
inline constexpr uint32_t kDepIdMask = 0xFFFFFu;
/// One stream holds at most 2^20 - 1 commands (ids are 1-based and 20 bits wide).
inline constexpr uint32_t kMaxCommandsPerStream = (1u << 20) - 1;
/// Message barriers: msg_id 9 bits, cnt 7 bits (docs/sg2260-commands.md section 9, Rule:
/// chip-wide barrier counters).
inline constexpr uint32_t kMsgIdBits = 9;
inline constexpr uint32_t kMsgCntBits = 7;

// ---- DMA addresses (docs/sg2260-commands.md section 6.3) --------------------------------
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
/// Register window of the 8 cores' TIU/GDMA/SDMA/HAU engines (queue, doorbell and completion
/// registers: tilefw's own map, Rule: own register map in docs/sg2260-commands.md section 8; see
/// `namespace regs` below).
inline constexpr RegisterWindow kEngineRegisters{"sg2260-engines", kRegisterSpaceBase + 0x8000, 0x8000};

// ---- engine registers (tilefw's own map: docs/sg2260-commands.md section 8, Rule: own register
// map)
// No public source gives the SG2260 queue/doorbell/completion registers, so tilefw defines
// one block of 32-bit registers per (core, engine) inside kEngineRegisters. The runtime
// (inc/tilefw/rt) drives engines only through these; the host simulator implements them.
//   engine index: 0 TIU, 1 GDMA, 2 SDMA, 3 HAU (the order of cmd::Engine; the HAU only takes
//                 part in message barriers: tilefw/cmd/hau.hpp)
//   block(core, engine) = kEngineRegisters.base + core * kCoreBlockBytes + engine * kEngineBlockBytes
//   QUEUE_BASE_LO/HI  device address of the stream (port::map_memory address, in DDR)
//   QUEUE_BYTES       stream length in bytes
//   QUEUE_COUNT       commands in the stream (end command included), as validation counted
//   QUEUE_TAG         the submission's tag (1..4095), written before DOORBELL
//   DOORBELL          write 1: the engine latches QUEUE_* and starts at command 1
//   COMPLETED         bits 19:0 completed commands of the latched submission (the engine's id
//                     counter, ids fit in 20 bits), bits 31:20 that submission's QUEUE_TAG: a
//                     completion of an earlier submission that still lands after a RESET or a
//                     new DOORBELL carries the old tag, and the runtime ignores it
//   STATUS            EngineState below
//   FAULT_CODE        a tilefw Status value when STATUS = fault, else 0
//   FAULT_CMD         1-based id of the faulting command
//   RESET             write 1: stop, drop in-flight work (a completion that arrives later is
//                     discarded, or at least tagged as stale), COMPLETED = 0, STATUS = idle
//   CYCLE_LO/HI       device cycle of the last completion (informative, for profiling)
// CDMA ports (chip-to-chip DMA, docs/sg2260-commands.md section 13) have one block each, with
// the same registers, at cdma_port_block(port) = kEngineRegisters.base + 0x1000 + port *
// kEngineBlockBytes, plus:
//   PEER (0x34)       the chip id the port talks to, written before DOORBELL; DOORBELL starts
//                     the port's stream (its TX and RX threads, Rule: CDMA threads), COMPLETED
//                     counts the stream's completed commands, RESET stops both threads
namespace regs {
inline constexpr uint32_t kEngines = 4;
inline constexpr uint64_t kEngineBlockBytes = 0x40;
inline constexpr uint64_t kCoreBlockBytes = 0x100;
inline constexpr uint64_t kQueueBaseLo = 0x00;
inline constexpr uint64_t kQueueBaseHi = 0x04;
inline constexpr uint64_t kQueueBytes = 0x08;
inline constexpr uint64_t kQueueCount = 0x0C;
inline constexpr uint64_t kDoorbell = 0x10;
inline constexpr uint64_t kCompleted = 0x14;
inline constexpr uint64_t kStatus = 0x18;
inline constexpr uint64_t kFaultCode = 0x1C;
inline constexpr uint64_t kFaultCmd = 0x20;
inline constexpr uint64_t kReset = 0x24;
inline constexpr uint64_t kCycleLo = 0x28;
inline constexpr uint64_t kCycleHi = 0x2C;
inline constexpr uint64_t kQueueTag = 0x30;
/// COMPLETED = tag << kCompletedTagShift | count.
inline constexpr uint32_t kCompletedTagShift = 20;
inline constexpr uint32_t kCompletedCountMask = (1u << kCompletedTagShift) - 1;
inline constexpr uint32_t kQueueTagMask = 0xFFF;
constexpr uint32_t completed_value(uint32_t tag, uint32_t count) noexcept {
  return ((tag & kQueueTagMask) << kCompletedTagShift) | (count & kCompletedCountMask);
}

/// STATUS values. idle: nothing in flight (never started, finished, faulted-and-reset or reset).
enum EngineState : uint32_t {
  kIdle = 0,
  kRunning = 1,
  kBlockedDep = 2,  // waiting for the other engine's completed count (cmd_id_dep)
  kBlockedMsg = 3,  // waiting in a SYS/DMA-sys wait_msg barrier
  kFault = 4,       // stopped at FAULT_CMD with FAULT_CODE
};

constexpr uint64_t engine_block(uint32_t core, uint32_t engine) noexcept {
  return kEngineRegisters.base + uint64_t{core} * kCoreBlockBytes + uint64_t{engine} * kEngineBlockBytes;
}
constexpr uint64_t engine_reg(uint32_t core, uint32_t engine, uint64_t offset) noexcept {
  return engine_block(core, engine) + offset;
}
static_assert(kCores * kCoreBlockBytes <= kEngineRegisters.size, "engine blocks fit the window");
static_assert(kEngines * kEngineBlockBytes <= kCoreBlockBytes, "engine blocks fit a core block");
/// CDMA port blocks (see above): after the cores' blocks, inside the same window.
inline constexpr uint64_t kCdmaBlocksOffset = 0x1000;
inline constexpr uint64_t kCdmaPeer = 0x34;
constexpr uint64_t cdma_port_block(uint32_t port) noexcept {
  return kEngineRegisters.base + kCdmaBlocksOffset + uint64_t{port} * kEngineBlockBytes;
}
constexpr uint64_t cdma_port_reg(uint32_t port, uint64_t offset) noexcept { return cdma_port_block(port) + offset; }
static_assert(kCores * kCoreBlockBytes <= kCdmaBlocksOffset, "CDMA blocks follow the core blocks");
static_assert(kCdmaPeer + 4 <= kEngineBlockBytes, "PEER fits a block");
static_assert(kCdmaBlocksOffset + kCdmaPorts * kEngineBlockBytes <= kEngineRegisters.size,
              "CDMA port blocks fit the window");
}  // namespace regs

// ---- timing model v1 (docs/sg2260-commands.md section 12) --------------------------------
// A project choice, not a measurement: every version is named and testable against hand
// computation. Cycles are device cycles at kClockHz (1 GHz). The simulator uses exactly these.
//   MM2 nn/nt: ceil(M/64) * ceil(N/eu) * ceil(K/eu) + 44; tt: + 47; eu by opd0's dtype
//   AR (cast included): n * ceil(c/64) * ceil(h*w/eu) + 10; eu by the wider of opd0 and res0
//   CMP: 2 * AR body + 10; LIN: 2*n*ceil(c/64)*h*ceil(w/eu) + 12
//   SFU: AR body * (2*table_len - 1 for taylor (eu 12, 13), 4 otherwise) + 13
//   +1 for each of opd0/opd1 (LMEM, not constant) in the same bank (bits 17:14) as res0
//   SYS, SYS_TR_ACC, LAR, DMA sys, HAU sync: 1 (plus the time spent blocked in wait_msg);
//   tilefw's choice: no source gives a barrier's latency, and a model's barriers are few
//   DMA: startup + ceil(bytes / bw), bytes = elements x element size; DDR on a side:
//        startup 100, bw 68 B/cycle; otherwise (L2, LMEM to LMEM): startup 30, bw 128 B/cycle
namespace timing_v1 {
inline constexpr uint32_t kMm2Overhead = 44;
inline constexpr uint32_t kMm2TtOverhead = 47;
inline constexpr uint32_t kArOverhead = 10;
inline constexpr uint32_t kCmpOverhead = 10;
inline constexpr uint32_t kLinOverhead = 12;
inline constexpr uint32_t kSfuOverhead = 13;
inline constexpr uint32_t kSfuOtherFactor = 4;
inline constexpr uint32_t kBankConflictCycles = 1;
inline constexpr uint32_t kSysCycles = 1;
inline constexpr uint32_t kDmaStartupDdr = 100;
inline constexpr uint32_t kDmaStartupOther = 30;
inline constexpr uint32_t kDmaBytesPerCycleDdr = 68;
inline constexpr uint32_t kDmaBytesPerCycleOther = 128;

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) noexcept { return (a + b - 1) / b; }
/// EU per lane by TIU precision code (0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16,
/// 6 INT4, 7 FP8): by element size, 64 B of lane row per cycle (INT4 counts as int8).
constexpr uint32_t eu_for_prec(uint32_t prec) noexcept {
  switch (prec) {
    case 1: case 3: case 5: return kEuF16;
    case 2: case 4: return kEuF32;
    default: return kEuInt8;
  }
}
constexpr uint64_t mm2_cycles(uint64_t m, uint64_t n, uint64_t k, uint32_t eu, bool tt) noexcept {
  return ceil_div(m, kLanes) * ceil_div(n, eu) * ceil_div(k, eu) + (tt ? kMm2TtOverhead : kMm2Overhead);
}
constexpr uint64_t ar_body(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint32_t eu) noexcept {
  return n * ceil_div(c, kLanes) * ceil_div(h * w, eu);
}
constexpr uint64_t dma_cycles(uint64_t bytes, bool ddr_side) noexcept {
  return ddr_side ? kDmaStartupDdr + ceil_div(bytes, kDmaBytesPerCycleDdr)
                  : kDmaStartupOther + ceil_div(bytes, kDmaBytesPerCycleOther);
}
}  // namespace timing_v1

// ---- timing model v2 (the default; defined here, refining timing model v1 of
// docs/sg2260-commands.md section 12: every version is named and testable against hand computation)
// v1 with two refinements; every other class costs as in v1 (timing_v1 above):
//   MM2 nn/nt: ceil(M/64) * ceil(N/n_pc) * ceil(K/k_pc) + 44; tt: + 47 (+1 per bank conflict
//        as v1), (n_pc, k_pc) by opd0's precision from the matrix-unit constants above:
//        bf16/f16 (and int16) 32 x 4, int8 (int4, fp8) 64 x 4, f32 (int32) 16 x 2. A core's MM2
//        therefore never exceeds 64 x kMacPerLane* MAC per cycle, the peak the report uses.
//   DMA (GDMA, SDMA): startup (100 cycles when DDR is a side, else 30; no bandwidth used), then
//        the bytes flow through shared servers by max-min fair processor sharing, recomputed
//        whenever a transfer starts or ends (port/host/sg2260/sim.cpp):
//          engine cap  68 B/cycle when DDR is a side, else 128 (one command per engine)
//          DDR server  kDdrBytesPerCycle = 546 B/cycle (8 x 68.264 GB/s, rounded down) for
//                      every transfer with a DDR side (weight 2 when both sides are DDR)
//          L2 server   kL2BytesPerCycle = 128 B/cycle for every transfer with an L2 side
//        A transfer ends at the first whole cycle by which its bytes have flowed; alone it
//        costs exactly v1's startup + ceil(bytes / cap). A fill's source is no memory side.
namespace timing_v2 {
/// DDR server: the chip's DDR bandwidth in bytes per cycle, rounded down (546.112 -> 546), so
/// bytes_ddr / kDdrBytesPerSecond can never exceed the simulated time.
inline constexpr uint32_t kDdrBytesPerCycle = static_cast<uint32_t>(kDdrBytesPerSecond / kClockHz);
/// L2 server: 128 GB/s at 1 GHz.
inline constexpr uint32_t kL2BytesPerCycle = static_cast<uint32_t>(kL2BytesPerSecond / kClockHz);
static_assert(kDdrBytesPerCycle == 546 && kL2BytesPerCycle == 128);
/// Engine caps and startups: v1's.
inline constexpr uint32_t kEngineBytesPerCycleDdr = timing_v1::kDmaBytesPerCycleDdr;
inline constexpr uint32_t kEngineBytesPerCycleOther = timing_v1::kDmaBytesPerCycleOther;
inline constexpr uint32_t kDmaStartupDdr = timing_v1::kDmaStartupDdr;
inline constexpr uint32_t kDmaStartupOther = timing_v1::kDmaStartupOther;

struct Mm2Rate {
  uint32_t n;  // output columns per cycle per lane
  uint32_t k;  // reduction steps per cycle
};
/// By TIU precision code (0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16, 6 INT4, 7 FP8).
constexpr Mm2Rate mm2_rate(uint32_t prec) noexcept {
  switch (prec) {
    case 1: case 3: case 5: return {kMm2NPerCycleF16, kMm2KPerCycleF16};
    case 2: case 4: return {kMm2NPerCycleF32, kMm2KPerCycleF32};
    default: return {kMm2NPerCycleInt8, kMm2KPerCycleInt8};
  }
}
constexpr uint64_t mm2_cycles(uint64_t m, uint64_t n, uint64_t k, uint32_t prec, bool tt) noexcept {
  const Mm2Rate r = mm2_rate(prec);
  return timing_v1::ceil_div(m, kLanes) * timing_v1::ceil_div(n, r.n) * timing_v1::ceil_div(k, r.k) +
         (tt ? timing_v1::kMm2TtOverhead : timing_v1::kMm2Overhead);
}
// 64 x 32 x 32 bf16: 1 * 1 * 8 + 44 = 52 cycles for 65,536 MAC (v1: 45).
static_assert(mm2_cycles(64, 32, 32, 5, false) == 52);

// Classes timing model v1 leaves without a formula (docs/sg2260-commands.md section 12:
// TPUPerf's per-class bodies as the Tier6 docs give them, the unknown shift_round / psum_lat /
// bias terms taken as 0). Costed
// the same in v1 and v2, +1 per bank conflict of opd0 / opd1 with res0 as every TIU class:
//   CONV (normal): 23 + n * ceil(oc/64) * ceil(oh*ow/4) * kh * kw * ceil(ic/ic_pc), 4 output
//        pixels per lane per cycle (the cube's OH x OW alignment) and ic_pc = MAC per lane / 4
//        by opd0's precision (f16/bf16 32, int8/fp8 64, f32 8): the MM2 peak above
//   PorD (depthwise, pooling): n * ceil(c/64) * ceil(oh*ow/eu) * kh * kw + 10 (eu by opd0)
//   MM (normal): 19 + ceil(res0_c/64) * ceil(res0_w/eu) * K * M + 13, K = opd0_c * opd0_w,
//        M = opd0_n, eu by opd0's precision
//   CW&BC (all eu): a data move, AR's body by res0's precision + 10
inline constexpr uint32_t kConvOverhead = 23;
inline constexpr uint32_t kConvPixelsPerCycle = 4;
inline constexpr uint32_t kPordOverhead = 10;
inline constexpr uint32_t kMmPreOverhead = 19;
inline constexpr uint32_t kMmPostOverhead = 13;
inline constexpr uint32_t kCwOverhead = 10;
/// Input channels a lane's cube consumes per cycle, by opd0's TIU precision.
constexpr uint32_t conv_ic_per_cycle(uint32_t prec) noexcept {
  switch (prec) {
    case 1: case 3: case 5: return kMacPerLaneF16 / kConvPixelsPerCycle;
    case 2: case 4: return kMacPerLaneF32 / kConvPixelsPerCycle;
    default: return kMacPerLaneInt8 / kConvPixelsPerCycle;
  }
}
constexpr uint64_t conv_cycles(uint64_t n, uint64_t oc, uint64_t oh, uint64_t ow, uint64_t kh, uint64_t kw,
                               uint64_t ic, uint32_t prec) noexcept {
  return kConvOverhead + n * timing_v1::ceil_div(oc, kLanes) * timing_v1::ceil_div(oh * ow, kConvPixelsPerCycle) *
                             kh * kw * timing_v1::ceil_div(ic, conv_ic_per_cycle(prec));
}
constexpr uint64_t pord_cycles(uint64_t n, uint64_t c, uint64_t oh, uint64_t ow, uint64_t kh, uint64_t kw,
                               uint32_t prec) noexcept {
  return n * timing_v1::ceil_div(c, kLanes) * timing_v1::ceil_div(oh * ow, timing_v1::eu_for_prec(prec)) * kh * kw +
         kPordOverhead;
}
constexpr uint64_t mm_cycles(uint64_t m, uint64_t k, uint64_t res_c, uint64_t res_w, uint32_t prec) noexcept {
  return kMmPreOverhead +
         timing_v1::ceil_div(res_c, kLanes) * timing_v1::ceil_div(res_w, timing_v1::eu_for_prec(prec)) * k * m +
         kMmPostOverhead;
}
// YOLOv5s' first conv (f16, 3 -> 32 channels, 6 x 6, 26 x 320 out): 23 + 2080 * 36 = 74,903.
static_assert(conv_cycles(1, 32, 26, 320, 6, 6, 3, 1) == 23 + 2080 * 36);
}  // namespace timing_v2

inline constexpr MemoryRegion kL2{MemSpace::L2, "L2", kL2Base, kL2Bytes, 1};
/// Host placement of a DDR region given by (tag, offset inside the tag, bytes).
constexpr MemoryRegion ddr_region(uint32_t tag, uint64_t offset, uint64_t bytes) noexcept {
  return MemoryRegion{MemSpace::DDR, "DDR", kDdrWindowBase + (uint64_t{tag} << kTagShift) + offset,
                      bytes, 1};
}

}  // namespace tilefw::chip::sg2260
