// The buffer walker: robust length rule (docs/sg2260-commands.md sections 3 and 6.1), implicit
// ids, end and padding rules.

#include "tilefw/cmd/walker.hpp"

#include <cstdint>

#include "decode_table.hpp"

namespace tilefw::cmd {

Status decode_command(Engine engine, ConstByteSpan buffer, size_t offset, Command& out) noexcept {
  out = Command{};
  out.engine = engine;
  out.offset = offset;
  if (offset > buffer.size()) return Status::cmd_truncated;
  const size_t left = buffer.size() - offset;
  const uint8_t* p = buffer.data() + offset;
  out.data = p;
  if (engine == Engine::hau) return Status::invalid_argument;  // 80-byte syncs: HauWalker
  // Every command is at least 16 bytes and its header lies in the first 16.
  if (left < 16) return Status::cmd_truncated;
  // Streams are walked front to back once: ask for the lines 512 bytes ahead (bench_cmd:
  // decode + validate 1.3x faster). A hint never faults; the address is formed as an integer
  // because it may lie past the buffer's end.
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + 512));
  if (engine == Engine::tiu) {
    const uint64_t w0 = load_word(p, 0);
    const uint32_t t = static_cast<uint32_t>((w0 >> 41) & 15);
    const uint32_t eu = static_cast<uint32_t>((w0 >> 45) & 31);
    out.type = t;
    out.eu = t == 12 ? (eu & 7) : eu;
    // The robust length rule (docs/sg2260-commands.md section 3) is the class's length: the table
    // applied it.
    out.cls = detail::tiu_decode(detail::kTiuDecode, t, eu, (w0 & 1) != 0);
    out.length = detail::kClassLength.v[static_cast<size_t>(out.cls)];
    out.dep = (t == 7 || t == 12) ? 0 : static_cast<uint32_t>((w0 >> 17) & 0x7FFFFF);
  } else if (engine == Engine::cdma) {
    // CDMA: cmd_type at bits 4..7, sp_func at 8..10; no descriptor has a cmd_id_dep.
    const uint64_t w0 = load_word(p, 0);
    out.type = static_cast<uint32_t>((w0 >> 4) & 15);
    out.eu = static_cast<uint32_t>((w0 >> 8) & 7);
    out.cls = cdma_class(out.type, out.eu);
    out.length = cdma_length(p);
  } else {
    out.type = static_cast<uint32_t>(read_field(p, 32, 5));
    out.eu = static_cast<uint32_t>(read_field(p, 37, 3));
    out.cls = dma_class(out.type, out.eu);
    out.length = dma_length(p);
    out.dep = static_cast<uint32_t>(read_field(p, 64, 21));
  }
  if (out.cls == CmdClass::none) return Status::cmd_unknown_class;
  if (out.length > left) return Status::cmd_truncated;
  return Status::ok;
}

namespace {
// True when bytes [from, end) are all zero. A stream's padding is zeros, and no real command
// starts with 16 zero bytes, so the scan only runs where a command header is all zero.
bool zero_from(ConstByteSpan buffer, size_t from) noexcept {
  for (size_t i = from; i < buffer.size(); ++i) {
    if (buffer[i] != 0) return false;
  }
  return true;
}
bool zero_header(ConstByteSpan buffer, size_t at) noexcept {
  const size_t end = buffer.size() - at < 16 ? buffer.size() : at + 16;
  for (size_t i = at; i < end; ++i) {
    if (buffer[i] != 0) return false;
  }
  return true;
}
}  // namespace

bool Walker::next(Command& out) noexcept {
  const bool tiu = engine() == Engine::tiu;
  if (!at_command(TILEFW_REASON("non-zero byte after the end command"),
                  tiu ? TILEFW_REASON("buffer ends without SYS end (eu 31)") :
                      TILEFW_REASON("buffer ends without sys chain_end (sp_func 0)"))) {
    return false;
  }
  // Zero padding where the end command should be (an end turned into a nop, a stream cut
  // short): the stream misses its end, rather than a zero "command" truncated by the padding.
  if (engine() != Engine::hau && zero_header(buffer_, offset()) && zero_from(buffer_, offset())) {
    return fail(Status::cmd_missing_end, offset(),
                tiu ? TILEFW_REASON("only zero padding follows: no SYS end (eu 31) before it")
                    : TILEFW_REASON("only zero padding follows: no sys chain_end (sp_func 0) before it"));
  }
  const Status s = decode_command(engine(), buffer_, offset(), out);
  if (s != Status::ok) {
    const char* m = s == Status::invalid_argument    ? TILEFW_REASON("a HAU stream is walked by cmd::HauWalker")
                    : s == Status::cmd_unknown_class
                        ? (tiu ? TILEFW_REASON("tsk_typ/tsk_eu_typ names no command class")
                               : TILEFW_REASON("cmd_type/cmd_special_function names no command class"))
                        : TILEFW_REASON("buffer ends inside a command");
    return fail(s, offset(), m);
  }
  out.id = accept(out.length, out.is_end());
  return true;
}

}  // namespace tilefw::cmd
