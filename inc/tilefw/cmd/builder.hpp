// Builders: append SG2260 commands to a caller-provided buffer, all-or-nothing (a failed append
// writes no byte), plus field-table encode/decode used by round trips and generators.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/result.hpp"
#include "tilefw/base/span.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::cmd {

/// Largest command (TIU long form), in bytes.
inline constexpr uint32_t kMaxCommandBytes = 128;

/// Reads every field of `cls`'s layout from `command` into `values` (in fields_of(cls) order).
/// invalid_argument for CmdClass::none or a command shorter than the class;
/// buffer_too_small when `values` has fewer slots than the layout has fields.
[[nodiscard]] Status decode_fields(CmdClass cls, ConstByteSpan command, Span<uint64_t> values) noexcept;

/// Appends commands of one engine to `buffer`. The builder owns nothing: it writes into the
/// caller's bytes and remembers how many it used.
class CommandBuilder {
 public:
  constexpr CommandBuilder(Engine engine, ByteSpan buffer) noexcept
      : engine_(engine), buffer_(buffer) {}

  constexpr Engine engine() const noexcept { return engine_; }
  /// Bytes written so far.
  constexpr size_t size() const noexcept { return size_; }
  /// Commands appended so far (= the id of the last one).
  constexpr uint32_t count() const noexcept { return count_; }
  constexpr ConstByteSpan bytes() const noexcept { return ConstByteSpan(buffer_.data(), size_); }

  /// Appends a zeroed command of class `cls` with its header set (TIU: tsk_typ, tsk_eu_typ and
  /// cmd_short for the short forms; DMA: cmd_type, cmd_special_function, cmd_short on sys;
  /// CDMA: cmd_type and cmd_special_function, `eu` 0 except on sys) and
  /// returns a pointer to its bytes, to fill through a typed Ref:
  ///   TILEFW_TRY_ASSIGN(auto p, b.append(CmdClass::sMM2, 4)); SMm2Ref mm(p); mm.set_res0_c(4);
  /// Errors: invalid_argument (class of the other engine, or `eu` not defined for the class),
  /// buffer_too_small, cmd_stream_too_long (2^20 - 1 commands already; a CDMA builder:
  /// 2^24 - 1).
  Result<uint8_t*> append(CmdClass cls, uint32_t eu) noexcept;

  /// Same as append, returning the typed mutable view.
  template <typename Ref>
  Result<Ref> append_as(CmdClass cls, uint32_t eu) noexcept {
    Result<uint8_t*> r = append(cls, eu);
    if (!r.ok()) return r.status();
    return Ref(r.value());
  }

  /// Appends a command given as the values of every field of `cls`'s layout (fields_of(cls)
  /// order, as decode_fields produces them). invalid_argument when the count differs, a value
  /// does not fit its field, or the header values do not encode `cls`.
  [[nodiscard]] Status append_fields(CmdClass cls, Span<const uint64_t> values) noexcept;

  /// Appends one already-encoded command verbatim after checking it is exactly one whole
  /// command of a known class for this engine.
  [[nodiscard]] Status append_copy(ConstByteSpan command) noexcept;
  /// The whole caller buffer; bytes [size(), buffer().size()) are free.
  constexpr ByteSpan buffer() const noexcept { return buffer_; }
  /// Counts `commands` whole commands, `bytes` long together, that the caller wrote at
  /// buffer().data() + size() (a block copied from earlier commands of this stream and
  /// relocated: the generator's reuse of expert blocks). The bytes are not decoded here: the
  /// caller answers for them, and the stream is validated before it runs as every stream is.
  /// buffer_too_small / cmd_stream_too_long as append; nothing counted on error.
  [[nodiscard]] Status adopt(size_t bytes, uint32_t commands) noexcept;

  // ---- sync and end commands -------------------------------------------------------------
  /// TIU SYS send_msg (eu 8) / wait_msg (eu 9): imm = cnt << 16 | msg_id; DMA sys send (3) /
  /// wait (4): constant_value = cnt << 9 | msg_id. `dep` goes to cmd_id_dep as given.
  /// invalid_argument when msg_id >= 512 or cnt >= 128, and on a CDMA builder (its messages
  /// are TX or RX: cdma_msg in tilefw/cmd/cdma.hpp).
  [[nodiscard]] Status send_msg(uint32_t msg_id, uint32_t cnt, uint32_t dep = 0) noexcept;
  [[nodiscard]] Status wait_msg(uint32_t msg_id, uint32_t cnt, uint32_t dep = 0) noexcept;
  /// TIU SYS end (eu 31), DMA sys chain_end (sp_func 0), or CDMA sys chain_end (sp_func 0)
  /// with intr_en set, as the firmware ends a port's chain.
  [[nodiscard]] Status end() noexcept;

  /// The cmd_id_dep value that waits for `id` completed commands of the other engine.
  static constexpr uint32_t dep_on(uint32_t id) noexcept {
    return chip::sg2260::kDepEnableBit | (id & chip::sg2260::kDepIdMask);
  }

 private:
  Status commit(const uint8_t* bytes, uint32_t length) noexcept;
  Status msg(bool send, uint32_t msg_id, uint32_t cnt, uint32_t dep) noexcept;

  Engine engine_;
  ByteSpan buffer_;
  size_t size_ = 0;
  uint32_t count_ = 0;
};

}  // namespace tilefw::cmd
