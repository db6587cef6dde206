// Chip profile `a2a3`: Ascend 910B/910C AI Core (arch 2201) as the vector unit and its
// buffers see it. Every number names its source (docs/a2a3-vector-semantics.md sections, the
// public documentation and PTO).
#pragma once

#include <cstdint>

#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::a2a3 {

// ---- buffer sizes (docs/a2a3-vector-semantics.md section 10) -----------------------------
/// UB per AIV: 192 KB = 16 bank groups x 3 banks x 4 KB [DOC Vector逻辑架构].
inline constexpr uint32_t kUbBytes = 192 * 1024;
/// Ascend C reserves the top 8 KB of UB (TMP_UB_OFFSET = 184 KB); PTO on CANN 9.0 reads NaN
/// there (pto-isa#170). Legal for the vector unit; tilefw reports a diagnostic.
inline constexpr uint32_t kUbReservedTopBytes = 8 * 1024;
inline constexpr uint32_t kUbUsableBytes = kUbBytes - kUbReservedTopBytes;  // 184 KB
/// L1: 512 KB (asc-devkit, the PTO library's buffer limits header).
inline constexpr uint32_t kL1Bytes = 512 * 1024;
/// L0A / L0B: 64 KB each (the PTO library's buffer limits header, asc-devkit).
inline constexpr uint32_t kL0ABytes = 64 * 1024;
inline constexpr uint32_t kL0BBytes = 64 * 1024;
/// L0C: 128 KB on arch 2201 [DOC 2201 硬件约束].
inline constexpr uint32_t kL0CBytes = 128 * 1024;
/// BiasTable 1 KB, Fixpipe buffer 2 KB (PTO).
inline constexpr uint32_t kBiasTableBytes = 1024;
inline constexpr uint32_t kFixpipeBytes = 2 * 1024;
/// GM window of the simulator and of conformance cases: 16 MiB from address 0
/// (docs/cli.md section 4.2, "Initial state"). Real GM is HBM; this is the window tilefw maps.
inline constexpr uint32_t kGmWindowBytes = 16 * 1024 * 1024;

// ---- alignment (Ascend C's 表1 通用地址对齐约束; docs/a2a3-vector-semantics.md section 10) ---
inline constexpr uint32_t kGmAlign = 1;   // "Global Memory: 无对齐要求"
inline constexpr uint32_t kUbAlign = 32;  // "Unified Buffer: 32Byte对齐"
inline constexpr uint32_t kL1Align = 32;
inline constexpr uint32_t kL0ABAlign = 512;
inline constexpr uint32_t kL0CAlign = 64;
inline constexpr uint32_t kBiasTableAlign = 64;
/// 64 B per Ascend C's general alignment table; the 2201 hardware-constraints table says 128 B
/// (docs/a2a3-vector-semantics.md section 10 lists the discrepancy). tilefw follows the
/// general table.
inline constexpr uint32_t kFixpipeAlign = 64;

// ---- vector unit geometry (docs/a2a3-vector-semantics.md sections 1 and 2) ----------------
/// One repeat touches 8 DataBlocks of 32 B.
inline constexpr uint32_t kBlockBytes = 32;
inline constexpr uint32_t kBlocksPerRepeat = 8;
inline constexpr uint32_t kRepeatBytes = kBlockBytes * kBlocksPerRepeat;  // 256
/// repeat is a uint8 field: at most 255 (docs/a2a3-vector-semantics.md section 3.1).
inline constexpr uint32_t kMaxRepeat = 255;
/// Binary-op strides are uint8 (docs/a2a3-vector-semantics.md section 2, the table of widths);
/// unary/reduction strides uint16.
inline constexpr uint32_t kMaxBinaryStride = 255;
inline constexpr uint32_t kMaxWideStride = 65535;
/// Counter mode counts up to 2^32 - 1 elements (docs/a2a3-vector-semantics.md section 4).
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

/// Register window of the vector unit inside the device register space (tilefw's own map).
inline constexpr RegisterWindow kVectorUnitRegisters{"a2a3-vector-unit", kRegisterSpaceBase, 0x1000};

/// Registers of the vector unit: byte offsets inside kVectorUnitRegisters. This is tilefw's own
/// map (the real AIV keeps these values in SPRs and instruction fields); the simulator decodes
/// it and a Cortex-M build writes it as MMIO. 64-bit registers are written low word first.
/// Offsets 0x100..0xFFF are reserved (tests use 0xF00.. as scratch).
///
/// | offset | name         | width | fields                                                      |
/// |--------|--------------|-------|-------------------------------------------------------------|
/// | 0x000  | CTRL         | 64    | [56] counter mode (1 = counter, 0 = normal); [48] overflow  |
/// |        |              |       | mode (1 = Inf/NaN, 0 = saturation); other bits reserved, 0  |
/// | 0x008  | MASK_LO      | 64    | lanes 0..63 (normal); counter mode: [31:0] = element count  |
/// | 0x010  | MASK_HI      | 64    | lanes 64..127 (normal, b16 only); ignored in counter mode    |
/// | 0x018  | OP           | 32    | [7:0] op code (kOp*), [15:8] DType code (base/dtype.hpp)    |
/// | 0x01C  | REPEAT       | 32    | [7:0] repeat (uint8 field; counter mode: 0); rest ignored   |
/// | 0x020  | DST_ADDR     | 32    | dst UB byte offset                                          |
/// | 0x024  | SRC0_ADDR    | 32    | src0 (or src) UB byte offset                                |
/// | 0x028  | SRC1_ADDR    | 32    | src1 UB byte offset (binary ops)                            |
/// | 0x030  | DST_STRIDE   | 32    | [15:0] block stride, [31:16] repeat stride (32 B units;     |
/// |        |              |       | reductions: dst repeat unit of the op, no block stride)     |
/// | 0x034  | SRC0_STRIDE  | 32    | [15:0] block stride, [31:16] repeat stride                  |
/// | 0x038  | SRC1_STRIDE  | 32    | [15:0] block stride, [31:16] repeat stride                  |
/// | 0x03C  | SCALAR       | 32    | scalar raw bits (16-bit types: [15:0])                      |
/// | 0x040  | REDUCE       | 32    | [1:0] vcmax/vcmin order (ReduceOrder), [9:8] vcadd mode     |
/// | 0x044  | DOORBELL     | 32    | write 1: execute one issue from the registers above         |
/// | 0x048  | STATUS       | 32    | [15:0] Status code of the last issue (0 = ok), set before   |
/// |        |              |       | the doorbell write returns                                  |
/// | 0x04C  | FAULT_OFFSET | 32    | UB byte offset of the faulting block (saturated to 32 bits) |
/// | 0x050  | ISSUE_COUNT  | 32    | doorbells taken since reset (faulting issues included)      |
/// | 0x054  | COPY_BURST   | 32    | copy_ubuf_to_ubuf: [11:0] nburst, [31:16] burst_len (32 B)  |
/// | 0x058  | COPY_GAP     | 32    | copy_ubuf_to_ubuf: [15:0] src gap, [31:16] dst gap (32 B)   |
/// | 0x05C  | CVT_SRC      | 32    | vconv: [7:0] source DType code (OP[15:8] is the dst type,   |
/// |        |              |       | OP[3:0] the RoundMode)                                      |
/// | 0x060  | CMP_LANES    | 32    | vcmpv/vsel: [7:0] lanes per repeat, [17:16] CmpRhs          |
/// | 0x064  | MASK_ADDR    | 32    | vsel: UB byte offset of the predicate bits                  |
/// | 0x068  | MASK_STRIDE  | 32    | vsel: [15:0] predicate repeat stride (bytes)                |
///
/// Op classes beyond the arithmetic ones: copy (0x40; DST_ADDR, SRC0_ADDR, COPY_BURST,
/// COPY_GAP; MASK/CTRL ignored), vector_dup (0x50; DST_ADDR, DST_STRIDE, REPEAT, SCALAR, OP
/// dtype), vconv (0x60; DST/SRC0 ADDR and STRIDE, REPEAT, CVT_SRC), vbrcb (0x70; DST_ADDR,
/// SRC0_ADDR, DST_STRIDE, REPEAT, OP dtype; MASK/CTRL ignored), vcmpv (0x80, OP[3:0] the
/// CmpMode; DST_ADDR, SRC0/SRC1 ADDR, the [31:16] repeat strides of DST_STRIDE (bytes) and
/// SRC0/SRC1_STRIDE (32 B), SCALAR, CMP_LANES; MASK/CTRL ignored), vsel (0x90; DST/SRC0/SRC1
/// ADDR and repeat strides, MASK_ADDR, MASK_STRIDE, CMP_LANES; MASK/CTRL ignored), vgather
/// (0xA0; DST_ADDR, SRC0_ADDR = the u32 offsets, SRC1_ADDR = the base, DST_STRIDE[31:16],
/// REPEAT, OP dtype; MASK/CTRL apply). No two ops share an op class.
namespace vreg {
inline constexpr uint32_t kCtrl = 0x000;
inline constexpr uint32_t kMaskLo = 0x008;
inline constexpr uint32_t kMaskHi = 0x010;
inline constexpr uint32_t kOp = 0x018;
inline constexpr uint32_t kRepeat = 0x01C;
inline constexpr uint32_t kDstAddr = 0x020;
inline constexpr uint32_t kSrc0Addr = 0x024;
inline constexpr uint32_t kSrc1Addr = 0x028;
inline constexpr uint32_t kDstStride = 0x030;
inline constexpr uint32_t kSrc0Stride = 0x034;
inline constexpr uint32_t kSrc1Stride = 0x038;
inline constexpr uint32_t kScalar = 0x03C;
inline constexpr uint32_t kReduce = 0x040;
inline constexpr uint32_t kDoorbell = 0x044;
inline constexpr uint32_t kStatus = 0x048;
inline constexpr uint32_t kFaultOffset = 0x04C;
inline constexpr uint32_t kIssueCount = 0x050;
inline constexpr uint32_t kCopyBurst = 0x054;
inline constexpr uint32_t kCopyGap = 0x058;
inline constexpr uint32_t kCvtSrc = 0x05C;
inline constexpr uint32_t kCmpLanes = 0x060;
inline constexpr uint32_t kMaskAddr = 0x064;
inline constexpr uint32_t kMaskStride = 0x068;

/// CTRL bits (docs/a2a3-vector-semantics.md sections 4 and 6.2).
inline constexpr uint32_t kCtrlCounterModeBit = 56;
inline constexpr uint32_t kCtrlOverflowModeBit = 48;
inline constexpr uint64_t kCtrlCounterMode = uint64_t{1} << kCtrlCounterModeBit;
inline constexpr uint64_t kCtrlInfNan = uint64_t{1} << kCtrlOverflowModeBit;
/// tilefw's initial state: normal mode, Inf/NaN (docs/a2a3-vector-semantics.md section 3,
/// Rule: initial state).
inline constexpr uint64_t kCtrlReset = kCtrlInfNan;

/// OP[7:0]: the op class in the high nibble, the op (desc enums' order) in the low nibble.
inline constexpr uint32_t kOpClassBinary = 0x00;  // vadd vsub vmul vdiv vmax vmin
inline constexpr uint32_t kOpClassUnary = 0x10;   // vabs vexp vln vsqrt vrsqrt vrec vrelu
inline constexpr uint32_t kOpClassScalar = 0x20;  // vadds vmuls vmaxs vmins
inline constexpr uint32_t kOpClassReduce = 0x30;  // vcadd vcgadd vcpadd vcmax vcmin
inline constexpr uint32_t kOpClassCopy = 0x40;    // copy_ubuf_to_ubuf
inline constexpr uint32_t kOpClassDup = 0x50;     // vector_dup
inline constexpr uint32_t kOpClassCvt = 0x60;     // vconv; low nibble: desc::RoundMode
inline constexpr uint32_t kOpClassBrcb = 0x70;    // vbrcb
/// vgather (DST_ADDR, SRC0_ADDR = the u32 offsets, SRC1_ADDR = the base byte address,
/// DST_STRIDE[31:16] = dst repeat stride, REPEAT, OP dtype; MASK and CTRL apply).
inline constexpr uint32_t kOpClassGather = 0xA0;
inline constexpr uint32_t kOpClassCmp = 0x80;     // vcmpv / vcmpvs; low nibble: desc::CmpMode
inline constexpr uint32_t kOpClassSel = 0x90;     // vsel

constexpr uint32_t op_word(uint32_t op_code, uint32_t dtype_code) noexcept {
  return (op_code & 0xFFu) | ((dtype_code & 0xFFu) << 8);
}
constexpr uint32_t stride_word(uint32_t block_stride, uint32_t repeat_stride) noexcept {
  return (block_stride & 0xFFFFu) | ((repeat_stride & 0xFFFFu) << 16);
}
constexpr uint32_t copy_burst_word(uint32_t nburst, uint32_t burst_len) noexcept {
  return (nburst & 0xFFFu) | ((burst_len & 0xFFFFu) << 16);
}
constexpr uint32_t copy_gap_word(uint32_t src_gap, uint32_t dst_gap) noexcept {
  return (src_gap & 0xFFFFu) | ((dst_gap & 0xFFFFu) << 16);
}
/// Bit 16: fold (an A5 register reduction: the repeats fold into one accumulator).
inline constexpr uint32_t kReduceFold = 1u << 16;
constexpr uint32_t reduce_word(uint32_t order, uint32_t vcadd_mode, bool fold = false) noexcept {
  return (order & 0x3u) | ((vcadd_mode & 0x3u) << 8) | (fold ? kReduceFold : 0u);
}
constexpr uint32_t cmp_lanes_word(uint32_t lanes, uint32_t rhs) noexcept {
  return (lanes & 0xFFu) | ((rhs & 0x3u) << 16);
}
constexpr uint64_t address(uint32_t offset) noexcept { return kVectorUnitRegisters.base + offset; }
}  // namespace vreg

/// The region of a space, or nullptr if the space does not exist on a2a3; its size and
/// alignment by value (0 / 1 if it does not exist).
constexpr const MemoryRegion* region_of(MemSpace space) noexcept { return find_region(kRegions, space); }
constexpr uint64_t region_size(MemSpace space) noexcept { return find_region_size(kRegions, space); }
constexpr uint32_t region_alignment(MemSpace space) noexcept { return find_region_alignment(kRegions, space); }

}  // namespace tilefw::chip::a2a3
