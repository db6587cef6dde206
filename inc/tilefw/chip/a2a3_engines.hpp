// Chip profile `a2a3`, the engines beside the vector unit: the pipes of an AI Core (MTE2, MTE1,
// M, V, MTE3, FIX), the register maps of the cube unit, the tile-move DMAs and the sync unit.
#pragma once

#include <cstdint>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::chip::a2a3 {

// ---- pipes ---------------------------------------------------------------------------------
/// The instruction queues of an AI Core that run concurrently on hardware (docs/a2a3-tile-model.md
/// section 6,
/// "events": set_flag/wait_flag(PIPE_x, PIPE_y)). Each executes its own instructions in order;
/// ordering between pipes exists only through events. MTE2 moves GM -> L1/UB, MTE1 L1 -> L0A/
/// L0B/BiasTable, M is the cube, V the vector unit, MTE3 UB -> GM, FIX L0C -> UB/GM (Fixpipe).
enum class Pipe : uint8_t { MTE2 = 0, MTE1 = 1, M = 2, V = 3, MTE3 = 4, FIX = 5 };
inline constexpr uint32_t kPipeCount = 6;

constexpr const char* pipe_name(Pipe p) noexcept {
  switch (p) {
    case Pipe::MTE2: return "MTE2";
    case Pipe::MTE1: return "MTE1";
    case Pipe::M: return "M";
    case Pipe::V: return "V";
    case Pipe::MTE3: return "MTE3";
    case Pipe::FIX: return "FIX";
  }
  return "?";
}

// ---- matmul limits (docs/a2a3-tile-model.md section 7.2: TMATMUL checks m, k, n in [1, 4095]) ---
inline constexpr uint32_t kMaxMatmulDim = 4095;
/// Box shapes the cube reads and writes (docs/a2a3-tile-model.md sections 2.1 and 2.2): L0A "Zz"
/// (on A5 "Nz": the same boxes in column order, docs/a5-profile.md section 6) and L0B "Zn" use 512 B
/// boxes (16 rows x 32 B, or its transpose), L0C "Nz" 16 x 16 boxes (1024 B for 32-bit data).
inline constexpr uint32_t kFractalAbBytes = 512;
inline constexpr uint32_t kAccBoxRows = 16;
inline constexpr uint32_t kAccBoxCols = 16;

// ---- register windows (tilefw's own map, beside the vector unit's) ---------------------------
// No public source gives the AI Core's control interface as MMIO (the real core issues these
// as instructions); tilefw defines one so the host simulator decodes it and a Cortex-M build
// writes it. Windows live in the shared device register space after the vector unit's.
inline constexpr RegisterWindow kCubeRegisters{"a2a3-cube", kRegisterSpaceBase + 0x1000, 0x100};
inline constexpr RegisterWindow kMte2Registers{"a2a3-mte2", kRegisterSpaceBase + 0x1100, 0x100};
inline constexpr RegisterWindow kMte1Registers{"a2a3-mte1", kRegisterSpaceBase + 0x1200, 0x100};
inline constexpr RegisterWindow kMte3Registers{"a2a3-mte3", kRegisterSpaceBase + 0x1300, 0x100};
inline constexpr RegisterWindow kFixRegisters{"a2a3-fix", kRegisterSpaceBase + 0x1400, 0x100};
inline constexpr RegisterWindow kSyncRegisters{"a2a3-sync", kRegisterSpaceBase + 0x1800, 0x100};

/// The register window of a move pipe (MTE2, MTE1, MTE3, FIX); nullptr for M and V.
constexpr const RegisterWindow* move_window(Pipe p) noexcept {
  switch (p) {
    case Pipe::MTE2: return &kMte2Registers;
    case Pipe::MTE1: return &kMte1Registers;
    case Pipe::MTE3: return &kMte3Registers;
    case Pipe::FIX: return &kFixRegisters;
    default: return nullptr;
  }
}

/// Tile-move DMA (one window per move pipe, same layout): one 2-D move of a valid region of
/// `rows` x `cols` elements from a source operand to a destination operand, each described by
/// its space, offset, element type and layout; element (r, c) of the source lands at (r, c) of
/// the destination. FIX converts element types (f32 -> f32/f16/bf16, i32 -> i32, round to
/// nearest even); the other pipes copy. This models the MTE instructions (copy_gm_to_ubuf,
/// the nd2nz loads, load_cbuf_to_ca/cb, fixpipe) as one descriptor per instruction.
///
/// | offset | name        | width | fields                                                        |
/// |--------|-------------|-------|---------------------------------------------------------------|
/// | 0x000  | SRC_ADDR    | 64    | source byte offset inside its space                           |
/// | 0x008  | DST_ADDR    | 64    | destination byte offset inside its space                      |
/// | 0x010  | SPACES      | 32    | [7:0] source MemSpace, [15:8] destination MemSpace codes      |
/// | 0x014  | SRC_LAYOUT  | 32    | layout word (below) of the source                             |
/// | 0x018  | DST_LAYOUT  | 32    | layout word of the destination                                |
/// | 0x01C  | SRC_SHAPE   | 32    | [15:0] capacity rows, [31:16] capacity cols                   |
/// | 0x020  | DST_SHAPE   | 32    | [15:0] capacity rows, [31:16] capacity cols                   |
/// | 0x024  | SRC_STRIDE  | 32    | elements between rows (row-major) / columns (col-major); boxed |
/// |        |             |       | operands: ignored                                             |
/// | 0x028  | DST_STRIDE  | 32    | as SRC_STRIDE                                                 |
/// | 0x02C  | EXTENT      | 32    | [15:0] rows, [31:16] cols moved                               |
/// | 0x040  | DOORBELL    | 32    | write 1: execute one move                                     |
/// | 0x044  | STATUS      | 32    | Status of the last move (0 = ok), set before the write returns|
/// | 0x048  | ISSUE_COUNT | 32    | doorbells taken since reset                                   |
///
/// Layout word: [0] outer order (0 row-major, 1 col-major), [2:1] box (0 none, 1 row-major
/// inside a box, 2 col-major inside), [15:8] DType code, [23:16] box rows, [31:24] box cols
/// (1 x 1 when not boxed).
namespace dreg {
inline constexpr uint32_t kSrcAddr = 0x000;
inline constexpr uint32_t kDstAddr = 0x008;
inline constexpr uint32_t kSpaces = 0x010;
inline constexpr uint32_t kSrcLayout = 0x014;
inline constexpr uint32_t kDstLayout = 0x018;
inline constexpr uint32_t kSrcShape = 0x01C;
inline constexpr uint32_t kDstShape = 0x020;
inline constexpr uint32_t kSrcStride = 0x024;
inline constexpr uint32_t kDstStride = 0x028;
inline constexpr uint32_t kExtent = 0x02C;
inline constexpr uint32_t kDoorbell = 0x040;
inline constexpr uint32_t kStatus = 0x044;
inline constexpr uint32_t kIssueCount = 0x048;

constexpr uint32_t spaces_word(MemSpace src, MemSpace dst) noexcept {
  return static_cast<uint32_t>(src) | (static_cast<uint32_t>(dst) << 8);
}
constexpr uint32_t pair_word(uint32_t lo16, uint32_t hi16) noexcept {
  return (lo16 & 0xFFFFu) | ((hi16 & 0xFFFFu) << 16);
}
}  // namespace dreg

/// Cube unit (pipe M): C (L0C, Nz 16 x 16 boxes) = init + A (L0A, Zz; Nz on A5) x B (L0B, Zn) over the
/// m x k x n valid sizes; init is +0 (TMATMUL), C itself (TMATMUL_ACC) or the BiasTable row
/// (TMATMUL_BIAS).
///
/// | offset | name        | width | fields                                                        |
/// |--------|-------------|-------|---------------------------------------------------------------|
/// | 0x000  | OP          | 32    | [1:0] 0 matmul, 1 accumulate, 2 bias; [15:8] A/B DType code,  |
/// |        |             |       | [23:16] C DType code                                          |
/// | 0x004  | A_ADDR      | 32    | L0A byte offset                                               |
/// | 0x008  | B_ADDR      | 32    | L0B byte offset                                               |
/// | 0x00C  | C_ADDR      | 32    | L0C byte offset                                               |
/// | 0x010  | BIAS_ADDR   | 32    | BiasTable byte offset (op 2)                                  |
/// | 0x014  | A_SHAPE     | 32    | [15:0] capacity rows, [31:16] capacity cols of the A tile     |
/// | 0x018  | B_SHAPE     | 32    | the same for B                                                |
/// | 0x01C  | C_SHAPE     | 32    | the same for C                                                |
/// | 0x020  | M           | 32    | rows of A and C computed                                      |
/// | 0x024  | K           | 32    | cols of A = rows of B used                                    |
/// | 0x028  | N           | 32    | cols of B and C computed                                      |
/// | 0x040  | DOORBELL    | 32    | write 1: execute one matmul                                   |
/// | 0x044  | STATUS      | 32    | Status of the last matmul                                     |
/// | 0x048  | ISSUE_COUNT | 32    | doorbells taken since reset                                   |
namespace creg {
inline constexpr uint32_t kOp = 0x000;
inline constexpr uint32_t kAAddr = 0x004;
inline constexpr uint32_t kBAddr = 0x008;
inline constexpr uint32_t kCAddr = 0x00C;
inline constexpr uint32_t kBiasAddr = 0x010;
inline constexpr uint32_t kAShape = 0x014;
inline constexpr uint32_t kBShape = 0x018;
inline constexpr uint32_t kCShape = 0x01C;
inline constexpr uint32_t kM = 0x020;
inline constexpr uint32_t kK = 0x024;
inline constexpr uint32_t kN = 0x028;
inline constexpr uint32_t kDoorbell = 0x040;
inline constexpr uint32_t kStatus = 0x044;
inline constexpr uint32_t kIssueCount = 0x048;

constexpr uint32_t op_word(uint32_t kind, uint32_t ab_dtype, uint32_t c_dtype) noexcept {
  return (kind & 0x3u) | ((ab_dtype & 0xFFu) << 8) | ((c_dtype & 0xFFu) << 16);
}
}  // namespace creg

/// Sync unit: per-pipe instruction counters and the event wait. Pipe p's counter counts the
/// doorbells its engine has taken (the vector unit, the cube, the four move DMAs); an event is
/// (pipe, counter value after the instruction). WAIT makes pipe `dst` wait until pipe `src` has
/// completed its instruction number SEQ — the set_flag / wait_flag pair of hardware as one
/// register write.
///
/// | offset | name        | width | fields                                                        |
/// |--------|-------------|-------|---------------------------------------------------------------|
/// | 0x000  | WAIT_SEQ    | 32    | instruction number of the producing pipe                      |
/// | 0x004  | WAIT        | 32    | [3:0] producing pipe, [7:4] waiting pipe; the write waits     |
/// | 0x008  | BARRIER     | 32    | write 1: every pipe waits for everything issued so far        |
/// | 0x00C  | STATUS      | 32    | Status of the last WAIT (sim_wait_never_signalled, ...)       |
/// | 0x010  | HAZARDS     | 32    | unsynchronised reads seen since reset (simulator diagnostic)  |
/// | 0x020  | PIPE_COUNT  | 32x6  | at 0x020 + 4 * pipe: instructions the pipe has taken          |
/// | 0x040  | CYCLE_LATCH | 32    | write 1: copy the core's cycle counters into the registers    |
/// |        |             |       | below (one consistent snapshot)                               |
/// | 0x048  | CYCLES      | 64    | latched: cycle at which everything issued so far completes    |
/// | 0x050  | PIPE_BUSY   | 64x7  | latched, at 0x050 + 8 * pipe (pipe 6 = the scalar unit S):    |
/// |        |             |       | cycles the pipe was occupied since reset                      |
///
/// The cycle counters are the core's performance counters: a core whose port has no clock
/// (a build without a timing model) reads 0. Firmware latches, then reads; the difference of
/// two snapshots is what the work between them cost.
namespace sreg {
inline constexpr uint32_t kWaitSeq = 0x000;
inline constexpr uint32_t kWait = 0x004;
inline constexpr uint32_t kBarrier = 0x008;
inline constexpr uint32_t kStatus = 0x00C;
inline constexpr uint32_t kHazards = 0x010;
inline constexpr uint32_t kPipeCount0 = 0x020;

inline constexpr uint32_t kCycleLatch = 0x040;
inline constexpr uint32_t kCycles = 0x048;
inline constexpr uint32_t kPipeBusy0 = 0x050;
/// Pipes with a busy counter: the six of Pipe, then the scalar unit.
inline constexpr uint32_t kCounterPipes = kPipeCount + 1;
inline constexpr uint32_t kCounterPipeS = kPipeCount;

constexpr uint32_t pipe_count(Pipe p) noexcept { return kPipeCount0 + 4u * static_cast<uint32_t>(p); }
/// PIPE_BUSY of counter pipe `i` (0..5: Pipe codes, 6: S).
constexpr uint32_t pipe_busy(uint32_t i) noexcept { return kPipeBusy0 + 8u * i; }
constexpr uint32_t wait_word(Pipe producer, Pipe waiter) noexcept {
  return static_cast<uint32_t>(producer) | (static_cast<uint32_t>(waiter) << 4);
}
}  // namespace sreg

/// Every a2a3 register window (the vector unit's first).
inline constexpr RegisterWindow kRegisterWindows[] = {kVectorUnitRegisters, kCubeRegisters, kMte2Registers,
                                                      kMte1Registers,       kMte3Registers, kFixRegisters,
                                                      kSyncRegisters};

}  // namespace tilefw::chip::a2a3
