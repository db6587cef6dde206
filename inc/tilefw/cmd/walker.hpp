// The command-buffer walker: decodes one SG2260 stream (TIU, GDMA, SDMA or a CDMA port) command
// by command over caller bytes, yielding (id, offset, length, class, view) without copying
// anything.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/stream_cursor.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::cmd {

/// One decoded command: where it is, what it is, and its bytes (a view into the caller's
/// buffer, valid as long as that buffer is).
struct Command {
  Engine engine = Engine::tiu;
  /// Implicit 1-based id in its stream; SYS commands count (docs/sg2260-commands.md section 9).
  uint32_t id = 0;
  size_t offset = 0;
  uint32_t length = 0;
  CmdClass cls = CmdClass::none;
  /// TIU tsk_typ, or DMA / CDMA cmd_type.
  uint32_t type = 0;
  /// TIU tsk_eu_typ (3 bits on SYS_TR_ACC), or DMA / CDMA cmd_special_function (CDMA tcp:
  /// the low 3 bits of buffer_length).
  uint32_t eu = 0;
  /// Raw cmd_id_dep, enable bit included (TIU 23 bits, DMA 21 bits); 0 for LAR, SYS_TR_ACC
  /// and every CDMA command (CDMA descriptors have none).
  uint32_t dep = 0;
  const uint8_t* data = nullptr;

  constexpr bool dep_enabled() const noexcept { return (dep & chip::sg2260::kDepEnableBit) != 0; }
  constexpr uint32_t dep_id() const noexcept { return dep & chip::sg2260::kDepIdMask; }
  /// TIU SYS eu 31 (end), DMA sys sp_func 0 or CDMA sys sp_func 0 (chain_end).
  constexpr bool is_end() const noexcept {
    return (cls == CmdClass::SYS && eu == 31) ||
           ((cls == CmdClass::dma_sys || cls == CmdClass::cdma_sys) && eu == 0);
  }
  constexpr ConstByteSpan bytes() const noexcept { return ConstByteSpan(data, length); }
  /// Typed view: `cmd.as<SMm2View>()`. Precondition: the class uses that layout.
  template <typename View>
  constexpr View as() const noexcept {
    return View(data);
  }
};

/// Decodes the command at `offset` of `buffer` (no end or padding logic): ok, cmd_truncated
/// (fewer bytes left than the header or the command needs) or cmd_unknown_class. `out.id` is
/// left to the caller. On failure `out` holds what could be read (type, eu, length if known).
[[nodiscard]] Status decode_command(Engine engine, ConstByteSpan buffer, size_t offset,
                                    Command& out) noexcept;

/// Walks one stream. Usage:
///   Walker w(Engine::tiu, bytes);
///   Command c;
///   while (w.next(c)) { ... }
///   if (w.status() != Status::ok) { w.error_offset(), w.error_id(), w.message() }
/// The stream ends after the end command (TIU SYS eu 31, DMA or CDMA sys chain_end); what follows must
/// be zero bytes (padding, not commands). Errors: cmd_truncated, cmd_unknown_class (at the
/// command's offset and id), cmd_missing_end (offset = buffer size, id = commands + 1),
/// cmd_data_after_end (offset of the first non-zero byte, id = end id + 1).
class Walker : public StreamCursor {
 public:
  constexpr Walker(Engine engine, ConstByteSpan buffer) noexcept : StreamCursor(buffer), engine_(engine) {}

  /// Fills `out` with the next command and returns true; false at the clean end of the stream
  /// or on an error (see status()).
  bool next(Command& out) noexcept;

  constexpr Engine engine() const noexcept { return engine_; }

 private:
  Engine engine_;
};

}  // namespace tilefw::cmd
