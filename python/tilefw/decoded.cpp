// Command decoding for the module (commands.hpp): cmd::Walker / cmd::HauWalker and the field
// tables of the core, nothing re-implemented.
#include "decoded.hpp"

#include <set>

#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::python {

std::optional<uint64_t> StreamCommand::field(const std::string& name) const {
  for (const cmd::FieldDesc& d : cmd::fields_of(c.cls)) {
    if (name == d.name) return cmd::read_field(c.data, d);
  }
  return std::nullopt;
}

const char* StreamCommand::op() const { return cmd::op_name(c.cls, c.eu); }

Walked walk(const std::shared_ptr<const FileBytes>& file, size_t base, size_t length, cmd::Engine engine) {
  Walked w;
  const ConstByteSpan span(file->bytes.data() + base, length);
  if (engine == cmd::Engine::hau) {
    cmd::HauWalker hw(span);
    cmd::HauCommand h;
    while (hw.next(h)) w.hau.push_back(HauCommand{file, h});
    w.status = hw.status();
    w.error_offset = hw.error_offset();
    w.error_id = hw.error_id();
    w.message = hw.message();
    return w;
  }
  cmd::Walker cw(engine, span);
  cmd::Command c;
  while (cw.next(c)) {
    if (engine == cmd::Engine::tiu) {
      w.tiu.push_back(TiuCommand{{file, base, c}});
    } else {
      w.dma.push_back(DmaCommand{{file, base, c}});
    }
  }
  w.status = cw.status();
  w.error_offset = cw.error_offset();
  w.error_id = cw.error_id();
  w.message = cw.message();
  return w;
}

namespace {
std::set<std::string> field_names(bool tiu) {
  std::set<std::string> names;
  for (uint32_t k = 0; k < static_cast<uint32_t>(cmd::CmdClass::none); ++k) {
    const auto cls = static_cast<cmd::CmdClass>(k);
    if (cmd::is_tiu_class(cls) != tiu) continue;
    for (const cmd::FieldDesc& d : cmd::fields_of(cls)) names.insert(d.name);
  }
  return names;
}
}  // namespace

bool known_field(bool tiu, const std::string& name) {
  // Built on first use (the module is host code; the set lives for the interpreter's lifetime).
  static const std::set<std::string> kTiu = field_names(true);
  static const std::set<std::string> kDma = field_names(false);
  return (tiu ? kTiu : kDma).count(name) != 0;
}

}  // namespace tilefw::python
