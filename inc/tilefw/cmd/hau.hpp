// The HAU engine's command stream as tpu-mlir's multi-core BM1690 models carry it
// (`CoreCommands.hau_commands`). No public decoder documents it; this is tilefw's reading of
// the real streams of test/data/sg2260-tdb (both models, all 8 cores), in spec terms:
//
// - Every HAU command is 80 bytes (640 bits, the size tpu-mlir's bmodel_dis gives HAU).
// - Bits 0..7 `cmd_type`: 1 = message sync, the only type in the real streams.
//   Bit 24 `eod`: set on the last command of the stream only (the stream's end, like TIU SYS
//   end / DMA chain_end, but on a sync command that still executes).
// - Bits 320..327 `msg_op`: 1 send, 2 wait. Bits 328..334 `msg_cnt` (7 bits), bits 335..343
//   `msg_id` (9 bits): the same message barrier as TIU SYS send_msg/wait_msg (imm[8:0] id,
//   imm[22:16] cnt) and DMA sys send/wait (const[8:0] id, const[15:9] cnt).
// - Every other bit is 0. There is no cmd_id_dep: the HAU only takes part in barriers.
//
// Evidence: per core the HAU stream is exactly the sequence of the TIU stream's send_msg /
// wait_msg commands (same msg ids 48/49 alternating, same cnt 32), and every barrier's cnt is
// 32 = 8 cores x 4 engines (TIU, GDMA, SDMA, HAU), where mm0 (no HAU stream) uses 24 = 8 x 3.
// test/cmd/check_bmodel_cli.py checks on both models that every HAU command is a send/wait of
// cnt 32; the simulator treats a HAU send/wait like any other engine's
// (test/sim/sg2260/test_hau.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/cmd/stream_cursor.hpp"

namespace tilefw::cmd {

inline constexpr uint32_t kHauCommandBytes = 80;
inline constexpr uint32_t kHauTypeSync = 1;
inline constexpr uint32_t kHauMsgSend = 1;
inline constexpr uint32_t kHauMsgWait = 2;

/// One decoded HAU command (a view into the caller's bytes).
struct HauCommand {
  uint32_t id = 0;  // 1-based position in the stream
  size_t offset = 0;
  uint32_t cmd_type = 0;
  bool eod = false;
  uint32_t msg_op = 0;  // kHauMsgSend / kHauMsgWait
  uint32_t msg_id = 0;
  uint32_t msg_cnt = 0;
  const uint8_t* data = nullptr;
  constexpr bool is_send() const noexcept { return msg_op == kHauMsgSend; }
  constexpr bool is_wait() const noexcept { return msg_op == kHauMsgWait; }
};

/// Decodes the 80 bytes at `offset`: ok, cmd_truncated, cmd_unknown_class (cmd_type or msg_op
/// not defined above) or cmd_bad_field (a bit outside the defined fields is set).
[[nodiscard]] Status decode_hau(ConstByteSpan buffer, size_t offset, HauCommand& out) noexcept;

/// Walks a HAU stream like cmd::Walker walks the others: ends after the `eod` command, only
/// zero bytes may follow; errors cmd_truncated, cmd_unknown_class, cmd_bad_field,
/// cmd_missing_end, cmd_data_after_end with the offset and id of the culprit.
class HauWalker : public StreamCursor {
 public:
  constexpr explicit HauWalker(ConstByteSpan buffer) noexcept : StreamCursor(buffer) {}
  bool next(HauCommand& out) noexcept;
};

}  // namespace tilefw::cmd
