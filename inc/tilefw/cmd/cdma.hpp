// The SG2260 CDMA engine (chip-to-chip DMA) in tilefw's command layer: its data formats, reduce
// ops and sys sub-types, and builders for the commands collectives need (docs/sg2260-commands.md
// section 13). The views are in tilefw/cmd/cdma_views.hpp; cmd::Walker and
// validate_stream(Engine::cdma) walk and check one stream; tilefw/cmd/cdma_system.hpp checks
// a whole system's streams together.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::cmd {

// ---- encodings (section 13.1) ---------------------------------------------------------------
inline constexpr uint32_t kCdmaFormatInt8 = 0;
inline constexpr uint32_t kCdmaFormatFp16 = 1;
inline constexpr uint32_t kCdmaFormatFp32 = 2;
inline constexpr uint32_t kCdmaFormatInt16 = 3;
inline constexpr uint32_t kCdmaFormatInt32 = 4;
inline constexpr uint32_t kCdmaFormatBf16 = 5;
inline constexpr uint32_t kCdmaFormatFp20 = 6;
/// Bytes of an element of a CDMA data format; 0 for FP20 (not byte-addressable) and unknown
/// formats.
constexpr uint32_t cdma_format_bytes(uint32_t format) noexcept {
  constexpr uint8_t k[7] = {1, 2, 4, 2, 4, 2, 0};
  return format < 7 ? k[format] : 0;
}
/// "INT8", "FP16", "FP32", "INT16", "INT32", "BF16", "FP20" ("?" otherwise).
const char* cdma_format_name(uint32_t format) noexcept;

inline constexpr uint32_t kCdmaReduceNone = 0;
inline constexpr uint32_t kCdmaReduceMul = 1;
inline constexpr uint32_t kCdmaReduceMax = 2;
inline constexpr uint32_t kCdmaReduceMin = 3;
inline constexpr uint32_t kCdmaReduceAdd = 4;
/// A reduce op the format allows: none always; add/max/min on FP32, FP16, BF16, INT32, FP20;
/// mul on FP32, FP16, BF16, FP20.
constexpr bool cdma_reduce_valid(uint32_t op, uint32_t format) noexcept {
  if (op == kCdmaReduceNone) return format <= kCdmaFormatFp20;
  const bool is_float = format == kCdmaFormatFp32 || format == kCdmaFormatFp16 || format == kCdmaFormatBf16 ||
                        format == kCdmaFormatFp20;
  if (op == kCdmaReduceMul) return is_float;
  return op <= kCdmaReduceAdd && (is_float || format == kCdmaFormatInt32);
}

/// sys sub-types (cmd_special_function of cmd_type 7).
enum class CdmaSysOp : uint32_t {
  chain_end = 0, nop = 1, sys_tr_wr = 2, tx_send_msg = 3, tx_wait_msg = 4, rx_send_msg = 5, rx_wait_msg = 6,
};
/// The RX thread of a port runs recv and the rx_* sys commands; everything else runs on TX
/// (Rule: CDMA threads).
constexpr bool cdma_on_rx(CmdClass c, uint32_t sp_func) noexcept {
  return c == CmdClass::cdma_recv || (c == CmdClass::cdma_sys && (sp_func == 5 || sp_func == 6));
}

// ---- builders ------------------------------------------------------------------------------
/// One side of a transfer: address (45 bits with the tag), data format, shape and element
/// strides (w is contiguous). A tensor of `n` x `c` x `h` x `w` elements.
struct CdmaTensor {
  uint64_t addr = 0;
  uint32_t format = kCdmaFormatFp32;
  uint32_t n = 1, c = 1, h = 1, w = 1;
  uint32_t nstride = 0, cstride = 0, hstride = 0;  // 0: packed (computed from the sizes)
  /// A contiguous vector of `elements` elements.
  static constexpr CdmaTensor vector(uint64_t addr, uint32_t format, uint32_t elements) noexcept {
    CdmaTensor t;
    t.addr = addr;
    t.format = format;
    t.w = elements;
    return t;
  }
};

/// send: `src` to the port's peer; `psum` when the matching recv reduces. Sets stride_enable.
[[nodiscard]] Status cdma_send(CommandBuilder& b, const CdmaTensor& src, bool psum) noexcept;
/// recv: into `dst`, reducing with `reduce_op` (psum of the matching send must then be set).
/// Writes the format into the cmodel format field, as the firmware does.
[[nodiscard]] Status cdma_recv(CommandBuilder& b, const CdmaTensor& dst, uint32_t reduce_op) noexcept;
/// write (push local `src` to `dst` on the peer) and read (pull the peer's `src` into local
/// `dst`); both sides with their own shapes, equal element counts.
[[nodiscard]] Status cdma_write(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept;
[[nodiscard]] Status cdma_read(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept;
/// general: `length` elements from local `src` to `dst` on the peer.
[[nodiscard]] Status cdma_general(CommandBuilder& b, uint64_t src, uint64_t dst, uint32_t format,
                                  uint32_t length) noexcept;
/// tx/rx send/wait msg on the chip's message counters (msg_id < 512, 1 <= cnt < 128).
[[nodiscard]] Status cdma_msg(CommandBuilder& b, CdmaSysOp op, uint32_t msg_id, uint32_t cnt) noexcept;

}  // namespace tilefw::cmd
