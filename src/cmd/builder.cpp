// Builders: every append encodes into a local 128-byte image first, checks it, then copies it
// into the caller's buffer, so a failing append leaves the buffer untouched.

#include "tilefw/cmd/builder.hpp"

#include <cstring>

#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {
bool engine_matches(Engine e, CmdClass c) noexcept {
  if (e == Engine::tiu) return is_tiu_class(c);
  if (e == Engine::cdma) return is_cdma_class(c);
  return is_dma_class(c);
}

// The sub-function a class accepts in append: CDMA classes other than sys take 0 (tcp's bits
// 8..10 are buffer_length: append leaves them 0 for the caller to fill).
bool eu_valid(CmdClass cls, uint32_t eu) noexcept {
  if (is_tiu_class(cls)) return tiu_eu_valid(cls, eu);
  if (is_cdma_class(cls)) return cdma_class(class_type(cls), eu) == cls && (cls == CmdClass::cdma_sys || eu == 0);
  return dma_class(class_type(cls), eu) == cls;
}

// A CDMA port counts its commands in 24 bits, the core engines in 20 (cmd_id_dep).
constexpr uint32_t max_commands(Engine e) noexcept {
  return e == Engine::cdma ? kCdmaMaxCommandsPerPort : chip::sg2260::kMaxCommandsPerStream;
}

// Writes the header that makes `image` decode as `cls` with sub-function `eu`.
void write_header(CmdClass cls, uint32_t eu, uint8_t* image) noexcept {
  const uint32_t type = class_type(cls);
  if (is_tiu_class(cls)) {
    write_field(image, 41, 4, type);
    write_field(image, 45, cls == CmdClass::SYS_TR_ACC ? 3 : 5, eu);
    if (is_tiu_short(cls)) write_field(image, 0, 1, 1);
  } else if (is_cdma_class(cls)) {
    write_field(image, 4, 4, type);
    write_field(image, 8, 3, eu);
  } else {
    write_field(image, 32, 5, type);
    write_field(image, 37, 3, eu);
    if (cls == CmdClass::dma_sys) write_field(image, 3, 1, 1);
  }
}
}  // namespace

Status decode_fields(CmdClass cls, ConstByteSpan command, Span<uint64_t> values) noexcept {
  if (cls == CmdClass::none || command.size() < class_length(cls)) return Status::invalid_argument;
  const Span<const FieldDesc> f = fields_of(cls);
  if (values.size() < f.size()) return Status::buffer_too_small;
  for (size_t i = 0; i < f.size(); ++i) values[i] = read_field(command.data(), f[i]);
  return Status::ok;
}

Status CommandBuilder::commit(const uint8_t* bytes, uint32_t length) noexcept {
  if (count_ >= max_commands(engine_)) return Status::cmd_stream_too_long;
  if (length > buffer_.size() - size_) return Status::buffer_too_small;
  std::memcpy(buffer_.data() + size_, bytes, length);
  size_ += length;
  ++count_;
  return Status::ok;
}

Result<uint8_t*> CommandBuilder::append(CmdClass cls, uint32_t eu) noexcept {
  if (!engine_matches(engine_, cls) || !eu_valid(cls, eu)) return Status::invalid_argument;
  // Built in place (zeroed, then the header): no staging copy, the control core generates
  // thousands of commands per MoE step.
  const uint32_t length = class_length(cls);
  if (count_ >= max_commands(engine_)) return Status::cmd_stream_too_long;
  if (length > buffer_.size() - size_) return Status::buffer_too_small;
  uint8_t* at = buffer_.data() + size_;
  std::memset(at, 0, length);
  write_header(cls, eu, at);
  size_ += length;
  ++count_;
  return at;
}

Status CommandBuilder::append_fields(CmdClass cls, Span<const uint64_t> values) noexcept {
  if (!engine_matches(engine_, cls)) return Status::invalid_argument;
  const Span<const FieldDesc> f = fields_of(cls);
  if (values.size() != f.size()) return Status::invalid_argument;
  uint8_t image[kMaxCommandBytes] = {};
  for (size_t i = 0; i < f.size(); ++i) {
    if (!field_fits(f[i], values[i])) return Status::invalid_argument;
    write_field(image, f[i], values[i]);
  }
  Command c;
  const uint32_t length = class_length(cls);
  if (decode_command(engine_, ConstByteSpan(image, length), 0, c) != Status::ok || c.cls != cls) {
    return Status::invalid_argument;
  }
  return commit(image, length);
}

Status CommandBuilder::adopt(size_t bytes, uint32_t commands) noexcept {
  if (commands > max_commands(engine_) - count_) return Status::cmd_stream_too_long;
  if (bytes > buffer_.size() - size_) return Status::buffer_too_small;
  size_ += bytes;
  count_ += commands;
  return Status::ok;
}

Status CommandBuilder::append_copy(ConstByteSpan command) noexcept {
  Command c;
  if (decode_command(engine_, command, 0, c) != Status::ok || c.length != command.size()) {
    return Status::invalid_argument;
  }
  return commit(command.data(), c.length);
}

Status CommandBuilder::msg(bool send, uint32_t msg_id, uint32_t cnt, uint32_t dep) noexcept {
  // CDMA has TX and RX messages and no dependencies: cdma_msg (tilefw/cmd/cdma.hpp).
  if (engine_ == Engine::cdma) return Status::invalid_argument;
  if (msg_id >= (1u << chip::sg2260::kMsgIdBits) || cnt >= (1u << chip::sg2260::kMsgCntBits)) {
    return Status::invalid_argument;
  }
  uint8_t image[16] = {};
  if (engine_ == Engine::tiu) {
    write_header(CmdClass::SYS, send ? 8 : 9, image);
    SysRef v(image);
    v.set_cmd_id_dep(dep);
    v.set_imm((uint64_t{cnt} << 16) | msg_id);
  } else {
    write_header(CmdClass::dma_sys, send ? 3 : 4, image);
    DmaSysRef v(image);
    v.set_cmd_id_dep(dep);
    v.set_constant_value((cnt << 9) | msg_id);
  }
  return commit(image, 16);
}

Status CommandBuilder::send_msg(uint32_t msg_id, uint32_t cnt, uint32_t dep) noexcept {
  return msg(true, msg_id, cnt, dep);
}
Status CommandBuilder::wait_msg(uint32_t msg_id, uint32_t cnt, uint32_t dep) noexcept {
  return msg(false, msg_id, cnt, dep);
}

Status CommandBuilder::end() noexcept {
  uint8_t image[16] = {};
  if (engine_ == Engine::tiu) {
    write_header(CmdClass::SYS, 31, image);
  } else if (engine_ == Engine::cdma) {
    // The firmware's chain_end raises the interrupt that tells the host the port drained.
    write_header(CmdClass::cdma_sys, 0, image);
    CdmaSysRef(image).set_intr_en(1);
  } else {
    write_header(CmdClass::dma_sys, 0, image);
  }
  return commit(image, 16);
}

}  // namespace tilefw::cmd
