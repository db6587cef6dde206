// HAU sync commands (format: tilefw/cmd/hau.hpp).

#include "tilefw/cmd/hau.hpp"

#include "tilefw/cmd/bits.hpp"

namespace tilefw::cmd {

namespace {
// The bits a sync command may set: cmd_type (0..7), eod (24), msg_op/cnt/id (320..343).
constexpr uint64_t kWord0Defined = 0xFFull | (1ull << 24);
constexpr uint64_t kWord5Defined = 0xFFFFFFull;
}  // namespace

Status decode_hau(ConstByteSpan buffer, size_t offset, HauCommand& out) noexcept {
  out = HauCommand{};
  out.offset = offset;
  if (offset > buffer.size() || buffer.size() - offset < kHauCommandBytes) return Status::cmd_truncated;
  const uint8_t* p = buffer.data() + offset;
  out.data = p;
  const uint64_t w0 = load_word(p, 0), w5 = load_word(p, 5);
  out.cmd_type = static_cast<uint32_t>(w0 & 0xFF);
  out.eod = ((w0 >> 24) & 1) != 0;
  out.msg_op = static_cast<uint32_t>(w5 & 0xFF);
  out.msg_cnt = static_cast<uint32_t>((w5 >> 8) & 0x7F);
  out.msg_id = static_cast<uint32_t>((w5 >> 15) & 0x1FF);
  if (out.cmd_type != kHauTypeSync) return Status::cmd_unknown_class;
  if (out.msg_op != kHauMsgSend && out.msg_op != kHauMsgWait) return Status::cmd_unknown_class;
  if ((w0 & ~kWord0Defined) != 0 || (w5 & ~kWord5Defined) != 0) return Status::cmd_bad_field;
  for (uint32_t w = 1; w < kHauCommandBytes / 8; ++w) {
    if (w != 5 && load_word(p, w) != 0) return Status::cmd_bad_field;
  }
  return Status::ok;
}

bool HauWalker::next(HauCommand& out) noexcept {
  if (!at_command(TILEFW_REASON("non-zero byte after the HAU eod command"),
      TILEFW_REASON("HAU stream ends without an eod command"))) return false;
  const Status s = decode_hau(buffer_, offset(), out);
  if (s != Status::ok) {
    const char* m = s == Status::cmd_truncated     ? TILEFW_REASON("buffer ends inside an 80-byte HAU command")
                    : s == Status::cmd_bad_field   ? TILEFW_REASON("HAU sync command sets a bit outside its fields")
                                                   : TILEFW_REASON("HAU cmd_type/msg_op names no command");
    return fail(s, offset(), m);
  }
  out.id = accept(kHauCommandBytes, out.eod);
  return true;
}

}  // namespace tilefw::cmd
