// The SG2260 CDMA (chip-to-chip DMA) in the cmd layer: named constants of its data formats,
// reduce ops and sys sub-types, and typed builders for every descriptor a port stream holds
// (docs/sg2260-commands.md section 13). The layouts are in cdma_views.hpp, decoding is
// cmd::Walker with Engine::cdma, validation is validate_stream(Engine::cdma, ...).
#pragma once

#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::cmd {

// ---- data formats (src_data_format; recv data_format) -----------------------------------
inline constexpr uint32_t kCdmaFormatInt8 = 0;
inline constexpr uint32_t kCdmaFormatFp16 = 1;
inline constexpr uint32_t kCdmaFormatFp32 = 2;
inline constexpr uint32_t kCdmaFormatInt16 = 3;
inline constexpr uint32_t kCdmaFormatInt32 = 4;
inline constexpr uint32_t kCdmaFormatBf16 = 5;
/// FP20 has no byte size: its addresses must be 128-byte aligned and it is never in LMEM.
inline constexpr uint32_t kCdmaFormatFp20 = 6;
inline constexpr uint32_t kCdmaFormatCount = 7;

/// Bytes per element of a CDMA data format: 1, 2, 4, 2, 4, 2 for formats 0..5; 0 for FP20 and
/// for undefined formats (> 6).
constexpr uint32_t cdma_format_bytes(uint32_t format) noexcept {
  constexpr uint8_t k[kCdmaFormatCount] = {1, 2, 4, 2, 4, 2, 0};
  return format < kCdmaFormatCount ? k[format] : 0;
}

// ---- reduce ops (recv reduce_op) and psum ops (send psum_op) ------------------------------
inline constexpr uint32_t kCdmaReduceNone = 0;
inline constexpr uint32_t kCdmaReduceMul = 1;
inline constexpr uint32_t kCdmaReduceMax = 2;
inline constexpr uint32_t kCdmaReduceMin = 3;
inline constexpr uint32_t kCdmaReduceAdd = 4;
/// psum_op: 0 write only, 1 read-modify-write (set exactly when the recv reduces).
inline constexpr uint32_t kCdmaPsumWriteOnly = 0;
inline constexpr uint32_t kCdmaPsumReadWrite = 1;

/// True when reduce op `op` is defined for data format `format`: none for every format;
/// add/max/min need FP32, FP16, BF16, INT32 or FP20; mul needs FP32, FP16, BF16 or FP20.
constexpr bool cdma_reduce_valid(uint32_t format, uint32_t op) noexcept {
  if (format >= kCdmaFormatCount || op > kCdmaReduceAdd) return false;
  if (op == kCdmaReduceNone) return true;
  const bool fp = format == kCdmaFormatFp32 || format == kCdmaFormatFp16 || format == kCdmaFormatBf16 ||
                  format == kCdmaFormatFp20;
  return fp || (op != kCdmaReduceMul && format == kCdmaFormatInt32);
}

// ---- recv send_type (the paired send's cmd_type, cmodel only) ------------------------------
inline constexpr uint32_t kCdmaPairSend = 0;
inline constexpr uint32_t kCdmaPairLossyCompress = 1;
inline constexpr uint32_t kCdmaPairLossyDecompress = 2;

/// CDMA sys sub-types (cmd_special_function of cmd_type 7).
enum class CdmaSysOp : uint8_t {
  chain_end = 0,
  nop = 1,
  sys_tr_wr = 2,
  tx_send = 3,
  tx_wait = 4,
  rx_send = 5,
  rx_wait = 6,
};
/// sys_tr_wr reg_sel: which port register the value goes to.
inline constexpr uint32_t kCdmaRegCurrentId = 0;
inline constexpr uint32_t kCdmaRegSrcMacId = 1;
inline constexpr uint32_t kCdmaRegDstMacId = 2;

/// Recvs per port that may have credits out and be unfinished.
inline constexpr uint32_t kCdmaMaxCredits = 2;
/// CDMA engines ("ports") per chip.
inline constexpr uint32_t kCdmaPorts = 10;
/// Chip ids the 4-bit cmodel chip-id fields can name.
inline constexpr uint32_t kCdmaMaxChips = 16;

/// One side of a CDMA transfer: a 45-bit address (tag in bits 44:40), its data format and an
/// n, c, h, w shape with n/c/h strides in elements (w is contiguous).
struct CdmaTensor {
  uint64_t addr = 0;
  uint32_t format = kCdmaFormatFp32;
  uint32_t n = 1, c = 1, h = 1, w = 1;
  uint32_t nstride = 0, cstride = 0, hstride = 0;
};

// Every helper appends one command to a CDMA builder (Engine::cdma) and sets stride_enable
// as the firmware's generator does. All-or-nothing: invalid_argument (a builder of another
// engine, a format > 6, a reduce op > 4 or not defined for the format, an address above 45
// bits, n or c above 16 bits, an empty shape) writes nothing; then the builder's own errors
// (buffer_too_small, cmd_stream_too_long).

/// send (cmd_type 0): `src` on this chip to the peer's next recv; `psum` sets psum_op (1 when
/// the paired recv reduces).
[[nodiscard]] Status cdma_send(CommandBuilder& b, const CdmaTensor& src, bool psum) noexcept;
/// recv (cmd_type 4): the destination on this chip; reduce_op as kCdmaReduce*, psum implied.
/// The cmodel data_format field gets dst.format, send_type 0 (a plain send).
[[nodiscard]] Status cdma_recv(CommandBuilder& b, const CdmaTensor& dst, uint32_t reduce_op) noexcept;
/// write (cmd_type 2): local `src` pushed to `dst` on the peer; read (cmd_type 1): `src` on the
/// peer pulled into local `dst`. Both sides hold the same number of elements in src.format
/// (dst.format must equal it). Cmodel chip ids are left 0 (not checked).
[[nodiscard]] Status cdma_write(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept;
[[nodiscard]] Status cdma_read(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept;
/// write with fill_constant_en: the 32-bit `constant` (in src_nstride) written over `dst`.
[[nodiscard]] Status cdma_write_fill(CommandBuilder& b, uint32_t constant, const CdmaTensor& dst) noexcept;
/// general (cmd_type 3): `length` elements of `format` from local `src` to `dst` on the peer;
/// with `fill`, `src`'s low 32 bits are the constant written instead.
[[nodiscard]] Status cdma_general(CommandBuilder& b, uint64_t src, uint64_t dst, uint32_t format,
                                  uint32_t length, bool fill) noexcept;
/// tx/rx send_msg or wait_msg (sys sp_func 3..6): msg_id < 512, cnt 1..127; any other op is
/// invalid_argument (chain_end: CommandBuilder::end(); nop: cdma_nop).
[[nodiscard]] Status cdma_msg(CommandBuilder& b, CdmaSysOp op, uint32_t msg_id, uint32_t cnt) noexcept;
/// sys nop (sp_func 1).
[[nodiscard]] Status cdma_nop(CommandBuilder& b) noexcept;
/// sys_tr_wr (sp_func 2): `value` into the register `reg_sel` names (kCdmaReg*; > 2 invalid).
[[nodiscard]] Status cdma_sys_tr_wr(CommandBuilder& b, uint32_t reg_sel, uint64_t value) noexcept;

/// Transfers of a CDMA stream that pairing counts: send-class commands (send, lossy_compress,
/// lossy_decompress) and recvs.
struct CdmaTransferCounts {
  uint32_t sends = 0;
  uint32_t recvs = 0;
};
/// Counts the transfers of a CDMA stream in one walk without checking anything but its
/// structure; the counts of the commands before a structural error when there is one (a valid
/// stream's counts are also in ValidationReport::cdma_sends / cdma_recvs).
CdmaTransferCounts count_cdma_transfers(ConstByteSpan stream) noexcept;

}  // namespace tilefw::cmd
