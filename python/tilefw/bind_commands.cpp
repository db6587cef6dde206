// TIUCommand / DMACommand / HAUCommand and the parsers of raw streams and .bmodel files. The
// attributes carry the modelling scripts' names (cmd_id, tsk_typ, eu_typ, res0_addr, src_shape, ...) and
// every other field of the command's layout under its ISA name; the errors are dump's, word
// for word, handed to the Python layer as dicts (it raises them as the package's exceptions).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "commands.hpp"  // tools/: read_input
#include "decoded.hpp"
#include "formats/bmodel.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/views.hpp"

namespace py = pybind11;

namespace tilefw::python {
namespace {
namespace sg = chip::sg2260;

py::object opt(std::optional<uint64_t> v) { return v ? py::object(py::int_(*v)) : py::object(py::none()); }

py::dict all_fields(const StreamCommand& s) {
  py::dict d;
  for (const cmd::FieldDesc& f : cmd::fields_of(s.c.cls)) d[f.name] = cmd::read_field(s.c.data, f);
  return d;
}

/// Any field of the layout by its ISA name; a name some other class of the family has gives
/// None (a SYS command has no res0_n); anything else is an AttributeError.
py::object field_attr(const StreamCommand& s, const std::string& name, bool tiu) {
  if (const auto v = s.field(name)) return py::int_(*v);
  if (known_field(tiu, name)) return py::none();
  throw py::attribute_error("'" + std::string(tiu ? "TIUCommand" : "DMACommand") + "' object has no attribute '" +
                            name + "'");
}

/// A 45-bit DMA address with its tag bits, from the _l32 / _h13 halves (as dump prints them).
std::optional<uint64_t> dma_address(const StreamCommand& s, const char* side) {
  const auto lo = s.field(std::string(side) + "_start_addr_l32");
  const auto hi = s.field(std::string(side) + "_start_addr_h13");
  if (!lo && !hi) return std::nullopt;
  return (hi.value_or(0) << 32) | lo.value_or(0);
}

/// (n, c, h, w) of `<side>_<n|c|h|w><what>`, the dimensions the class has; None without any.
py::object dims(const StreamCommand& s, const std::string& side, const char* what) {
  py::list out;
  for (const char* d : {"n", "c", "h", "w"}) {
    if (const auto v = s.field(side + "_" + d + what)) out.append(*v);
  }
  return out.empty() ? py::object(py::none()) : py::object(py::tuple(out));
}

const char* memory_of(uint64_t address) {
  const uint32_t tag = sg::dma_tag(address);
  if (tag == sg::kTagLmem) return sg::local_is_smem(sg::dma_offset(address)) ? "smem" : "lmem";
  return tag == sg::kTagL2 ? "l2" : "ddr";
}

py::object direction(const StreamCommand& s) {
  const auto src = dma_address(s, "src");
  const auto dst = dma_address(s, "dst");
  if (!src || !dst) return py::none();
  return py::str(std::string(memory_of(*src)) + "->" + memory_of(*dst));
}

py::bytes raw(const uint8_t* data, size_t n) { return py::bytes(reinterpret_cast<const char*>(data), n); }

template <class C>
void common(py::class_<C>& k, const char* kind) {
  k.def_property_readonly("cmd_id", [](const C& s) { return s.c.id; }, "1-based id in its stream (SYS counts)")
      .def_property_readonly("cmd_id_dep", [](const C& s) { return s.c.dep; }, "raw cmd_id_dep, enable bit included")
      .def_property_readonly("dep_enabled", [](const C& s) { return s.c.dep_enabled(); })
      .def_property_readonly("class_name", [](const C& s) { return cmd::class_name(s.c.cls); }, "as dump prints it")
      .def_property_readonly("op", [](const C& s) { return s.op(); }, "the tpu-mlir op name")
      .def_property_readonly("engine", [](const C& s) { return cmd::engine_name(s.c.engine); })
      .def_property_readonly("offset", [](const C& s) { return s.c.offset; }, "byte offset in its stream")
      .def_property_readonly("file_offset", [](const C& s) { return s.base + s.c.offset; }, "byte offset in its file")
      .def_property_readonly("length", [](const C& s) { return s.c.length; })
      .def_property_readonly("raw", [](const C& s) { return raw(s.c.data, s.c.length); }, "the command's bytes")
      .def_property_readonly("fields", [](const C& s) { return all_fields(s); }, "every field of the layout")
      .def("__repr__", [kind](const C& s) {
        return std::string("<") + kind + " #" + std::to_string(s.c.id) + " " + cmd::class_name(s.c.cls) + " " +
               s.op() + " @" + std::to_string(s.c.offset) + ">";
      });
}

py::dict error_dict(const std::string& status, const std::string& cls, size_t offset, uint32_t id,
                    const std::string& message, int exit_code) {
  py::dict e;
  e["status"] = status;
  e["status_class"] = cls;
  e["offset"] = offset;
  e["command_id"] = id;
  e["message"] = message;
  e["exit_code"] = exit_code;
  return e;
}

/// The walk's verdict as dump reports it on stderr (None when the stream decodes).
py::object verdict(const Walked& w, const std::string& label) {
  if (w.status == Status::ok) return py::none();
  const std::string msg = "tilefw dump: " + label + ": error at command " + std::to_string(w.error_id) +
                          ", byte offset " + std::to_string(w.error_offset) + ": " + status_name(w.status) + ": " +
                          w.message;
  return error_dict(status_name(w.status), status_class_name(status_class(w.status)), w.error_offset, w.error_id, msg,
                    1);
}

py::list commands_of(const Walked& w, cmd::Engine e) {
  if (e == cmd::Engine::tiu) return py::cast(w.tiu).cast<py::list>();
  if (e == cmd::Engine::hau) return py::cast(w.hau).cast<py::list>();
  return py::cast(w.dma).cast<py::list>();
}

/// The bytes after the last command (padding a real stream carries): a writer appends them
/// again, so a parse and write round trip is byte for byte.
py::bytes tail_of(const Walked& w, const FileBytes& f, size_t base, size_t length) {
  size_t end = 0;
  if (!w.tiu.empty()) end = w.tiu.back().c.offset + w.tiu.back().c.length;
  if (!w.dma.empty()) end = w.dma.back().c.offset + w.dma.back().c.length;
  if (!w.hau.empty()) end = w.hau.back().c.offset + cmd::kHauCommandBytes;
  if (end >= length) return py::bytes("");
  return raw(f.bytes.data() + base + end, length - end);
}

py::dict unreadable(const std::string& path, const std::string& why) {
  return error_dict("unreadable", "other", 0, 0, "tilefw dump: " + path + ": " + why, 2);
}

/// (commands, error or None) of a raw stream file, read as `tilefw dump --engine E` reads it.
py::tuple parse_stream(const std::string& path, const std::string& engine) {
  auto file = std::make_shared<FileBytes>();
  std::string why;
  if (!tools::read_input(path, file->bytes, why)) {
    return py::make_tuple(py::list(), unreadable(path, why), py::bytes(""));
  }
  cmd::Engine e = cmd::Engine::tiu;
  if (!tools::engine_for(path, engine, e)) {
    return py::make_tuple(py::list(), unreadable(path, "cannot tell the engine from the file name (use --engine)"),
                          py::bytes(""));
  }
  Walked w;
  {
    py::gil_scoped_release unlocked;
    w = walk(file, 0, file->bytes.size(), e);
  }
  return py::make_tuple(commands_of(w, e), verdict(w, path), tail_of(w, *file, 0, file->bytes.size()));
}

/// (one dict per core: engine -> commands (cdma: a list per port stream), notes, error or None).
py::tuple parse_bmodel(const std::string& path) {
  auto file = std::make_shared<FileBytes>();
  std::string why;
  if (!tools::read_input(path, file->bytes, why)) {
    return py::make_tuple(py::list(), py::list(), unreadable(path, why));
  }
  tools::Bmodel m;
  std::string error;
  if (!tools::parse_bmodel(ConstByteSpan(file->bytes.data(), file->bytes.size()), m, error)) {
    py::dict e = unreadable(path, "corrupt bmodel: " + error);
    e["status"] = "corrupt_bmodel";
    return py::make_tuple(py::list(), py::list(), e);
  }
  py::list notes;
  for (const std::string& o : m.others) notes.append("tilefw dump: " + path + ": not dumped: " + o);
  notes.append("tilefw dump: " + path + ": " + tools::bmodel_contents(m));
  py::list cores;
  for (size_t i = 0; i < m.cores.size(); ++i) cores.append(py::dict());
  for (const tools::BmodelUnit& u : tools::bmodel_units(m)) {
    const std::string engine = u.engine;
    cmd::Engine e = cmd::Engine::tiu;
    tools::engine_for("", engine, e);
    const size_t base = static_cast<size_t>(u.stream.bytes.data() - file->bytes.data());
    const Walked w = walk(file, base, u.stream.bytes.size(), e);
    const std::string label = path + "[core" + std::to_string(u.core) + "." + engine +
                              (engine == "cdma" ? std::to_string(u.index) : "") + "]";
    py::object err = verdict(w, label);
    if (!err.is_none()) return py::make_tuple(cores, notes, err);
    py::dict core = cores[u.core].cast<py::dict>();
    if (engine == "cdma") {
      if (!core.contains("cdma")) core["cdma"] = py::list();
      core["cdma"].cast<py::list>().append(commands_of(w, e));
    } else {
      core[py::str(engine)] = commands_of(w, e);
      core[py::str("_tail_" + engine)] = tail_of(w, *file, base, u.stream.bytes.size());
    }
  }
  return py::make_tuple(cores, notes, py::none());
}

}  // namespace

void bind_commands(py::module_& m) {
  py::class_<TiuCommand> tiu(m, "TIUCommand", "One TIU command: a view over the bytes of its file.");
  common(tiu, "TIUCommand");
  tiu.def_property_readonly("tsk_typ", [](const TiuCommand& s) { return s.c.type; })
      .def_property_readonly("eu_typ", [](const TiuCommand& s) { return s.c.eu; })
      .def_property_readonly("precision", [](const TiuCommand& s) { return opt(s.field("opt_res0_prec")); },
                             "opt_res0_prec (None when the class has no result)")
      .def("__getattr__", [](const TiuCommand& s, const std::string& n) { return field_attr(s, n, true); });

  py::class_<DmaCommand> dma(m, "DMACommand", "One GDMA, SDMA or CDMA command: a view over the bytes of its file.");
  common(dma, "DMACommand");
  dma.def_property_readonly("cmd_type", [](const DmaCommand& s) { return s.c.type; })
      .def_property_readonly("sp_func", [](const DmaCommand& s) { return s.c.eu; }, "cmd_special_function")
      .def_property_readonly("src_addr", [](const DmaCommand& s) { return opt(dma_address(s, "src")); },
                             "45-bit device address with its tag bits (None without one)")
      .def_property_readonly("dst_addr", [](const DmaCommand& s) { return opt(dma_address(s, "dst")); },
                             "45-bit device address with its tag bits (None without one)")
      .def_property_readonly("src_shape", [](const DmaCommand& s) { return dims(s, "src", "size"); })
      .def_property_readonly("dst_shape", [](const DmaCommand& s) { return dims(s, "dst", "size"); })
      .def_property_readonly("src_stride", [](const DmaCommand& s) { return dims(s, "src", "stride"); })
      .def_property_readonly("dst_stride", [](const DmaCommand& s) { return dims(s, "dst", "stride"); })
      .def_property_readonly("data_format", [](const DmaCommand& s) { return opt(s.field("src_data_format")); })
      .def_property_readonly("direction", [](const DmaCommand& s) { return direction(s); },
                             "'ddr->lmem', 'lmem->ddr', 'l2->lmem', ... (None without addresses)")
      .def("__getattr__", [](const DmaCommand& s, const std::string& n) { return field_attr(s, n, false); });

  py::class_<HauCommand>(m, "HAUCommand", "One HAU sync command (send_msg or wait_msg).")
      .def_property_readonly("cmd_id", [](const HauCommand& h) { return h.c.id; })
      .def_property_readonly("op", [](const HauCommand& h) { return h.c.is_send() ? "hau.send_msg" : "hau.wait_msg"; })
      .def_property_readonly("engine", [](const HauCommand&) { return "hau"; })
      .def_property_readonly("msg_id", [](const HauCommand& h) { return h.c.msg_id; })
      .def_property_readonly("msg_cnt", [](const HauCommand& h) { return h.c.msg_cnt; })
      .def_property_readonly("eod", [](const HauCommand& h) { return h.c.eod; })
      .def_property_readonly("offset", [](const HauCommand& h) { return h.c.offset; })
      .def_property_readonly("length", [](const HauCommand&) { return cmd::kHauCommandBytes; })
      .def_property_readonly("raw", [](const HauCommand& h) { return raw(h.c.data, cmd::kHauCommandBytes); })
      .def("__repr__", [](const HauCommand& h) {
        return "<HAUCommand #" + std::to_string(h.c.id) + (h.c.is_send() ? " send_msg" : " wait_msg") + ">";
      });

  m.def("parse_stream", &parse_stream, py::arg("path"), py::arg("engine"),
        "(commands, error dict or None, bytes after the last command) of a raw stream; engine '' = from the name.");
  m.def("parse_bmodel", &parse_bmodel, py::arg("path"), "(cores, notes, error dict or None) of a .bmodel.");
}

}  // namespace tilefw::python
