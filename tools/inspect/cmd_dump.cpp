// `tilefw dump [--json] [--engine tiu|gdma|sdma|hau|cdma] FILE...`: decodes SG2260 command buffers
// (docs/cli.md section 2). Text: exactly one line per command,
//   <file>: #<id> @<offset> <length>B <class> eu=<eu> [type=<cmd_type>] dep=0x<raw>[(wait)] <field>=0x<v>...
// and a malformed buffer's error on stderr. --json: one array, one object per FILE in argument
// order (an unreadable one too, with its error). A `.bmodel` FILE gives one object per (core,
// engine) instead (so does any file starting with the bmodel magic), with `core` and each
// command's tpu-mlir `op` name; its text lines name
// `<file>[core<N>.<engine>]` and add `op=<name>`. Exit 0 when every buffer decodes, 1 for a
// malformed one, 2 when a file cannot be read (or its engine cannot be told from its name, or
// a bmodel is corrupt).
//
// The JSON is written as it is decoded, one command at a time, so memory stays at the size of
// the input however many commands it holds (hostile input: a legal 16 MB buffer in < 256 MB RSS).
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/bmodel.hpp"
#include "commands.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
using cmd::Command;
using cmd::Engine;

bool header_key(const char* name) {
  const std::string n = name;
  return n == "tsk_typ" || n == "tsk_eu_typ" || n == "cmd_id_dep" || n == "cmd_type" ||
         n == "cmd_special_function";
}

/// A JSON string literal; invalid UTF-8 (a non-UTF-8 file name) is replaced by U+FFFD, so the
/// output stays valid JSON.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct DumpOptions {
  bool json = false;
  std::string engine;
  std::vector<std::string> files;
};

/// One stream to print: where it comes from and how to name it.
struct Unit {
  std::string file;      // the FILE argument
  std::string label;     // text-mode prefix
  int core = -1;         // bmodel only
  std::string engine;    // "tiu", "gdma", "sdma", "hau", "cdma"
  size_t bytes = 0;      // JSON `bytes`
  ConstByteSpan data;
  bool with_op = false;  // bmodel objects carry `op`
};

class Printer {
 public:
  explicit Printer(bool json) : json_(json) {
    if (json_) std::fputs("[", stdout);
  }
  ~Printer() {
    if (json_) std::fputs(first_ ? "]\n" : "\n]\n", stdout);
  }

  /// An object for a FILE that could not be read at all.
  void unreadable(const std::string& file, const char* engine, const std::string& why) {
    if (!json_) return;
    open_object(file, -1, engine == nullptr ? "null" : quoted(engine), 0);
    std::printf("], \"error\": {\"offset\": 0, \"status\": \"unreadable\", \"message\": %s}}", quoted(why).c_str());
  }

  /// Decodes and prints one unit; returns 0, or 1 when the stream is malformed.
  int unit(const Unit& u) {
    if (json_) open_object(u.file, u.core, quoted(u.engine), u.bytes);
    first_cmd_ = true;
    return u.engine == "hau" ? hau_stream(u) : sg_stream(u);
  }

 private:
  void open_object(const std::string& file, int core, const std::string& engine_json, size_t bytes) {
    std::fputs(first_ ? "\n" : ",\n", stdout);
    first_ = false;
    std::printf("{\"file\": %s, ", quoted(file).c_str());
    if (core >= 0) std::printf("\"core\": %d, ", core);
    std::printf("\"engine\": %s, \"bytes\": %zu, \"commands\": [", engine_json.c_str(), bytes);
  }
  void begin_command() {
    std::fputs(first_cmd_ ? "\n  " : ",\n  ", stdout);
    first_cmd_ = false;
  }
  int finish(const Unit& u, Status s, size_t off, uint32_t id, const char* message) {
    if (json_) {
      std::fputs(first_cmd_ ? "]" : "\n]", stdout);
      if (s != Status::ok) {
        std::printf(", \"error\": {\"offset\": %zu, \"status\": \"%s\", \"message\": %s}", off, status_name(s),
                    quoted(message).c_str());
      }
      std::fputs("}", stdout);
    } else if (s != Status::ok) {  // stdout stays one line per command
      std::fprintf(stderr, "tilefw dump: %s: error at command %u, byte offset %zu: %s: %s\n", u.label.c_str(), id, off,
                   status_name(s), message);
    }
    return s == Status::ok ? 0 : 1;
  }

  int sg_stream(const Unit& u) {
    const Engine e = u.engine == "tiu"    ? Engine::tiu
                     : u.engine == "gdma" ? Engine::gdma
                     : u.engine == "cdma" ? Engine::cdma
                                          : Engine::sdma;
    cmd::Walker w(e, u.data);
    Command c;
    while (w.next(c)) {
      const Span<const cmd::FieldDesc> fields = cmd::fields_of(c.cls);
      if (json_) {
        begin_command();
        std::printf("{\"id\": %u, \"offset\": %zu, \"length\": %u, \"class\": \"%s\", \"eu\": %u", c.id, c.offset,
                    c.length, cmd::class_name(c.cls), c.eu);
        if (cmd::is_dma(e) || e == Engine::cdma) std::printf(", \"type\": %u", c.type);
        if (u.with_op) std::printf(", \"op\": \"%s\"", cmd::op_name(c.cls, c.eu));
        std::printf(", \"dep\": %u, \"dep_enabled\": %s, \"fields\": {", c.dep, c.dep_enabled() ? "true" : "false");
        const char* sep = "";
        for (const cmd::FieldDesc& d : fields) {
          const uint64_t v = cmd::read_field(c.data, d);
          if (v == 0 || header_key(d.name)) continue;
          std::printf("%s\"%s\": \"0x%" PRIx64 "\"", sep, d.name, v);
          sep = ", ";
        }
        std::fputs("}}", stdout);
      } else {
        // One line per command, each naming its file (the same format for one file or many).
        std::printf("%s: #%u @%zu %uB %s eu=%u", u.label.c_str(), c.id, c.offset, c.length, cmd::class_name(c.cls),
                    c.eu);
        if (cmd::is_dma(e) || e == Engine::cdma) std::printf(" type=%u", c.type);
        if (u.with_op) std::printf(" op=%s", cmd::op_name(c.cls, c.eu));
        std::printf(" dep=0x%x%s", c.dep, c.dep_enabled() ? "(wait)" : "");
        for (const cmd::FieldDesc& d : fields) {
          const uint64_t v = cmd::read_field(c.data, d);
          if (v != 0 && !header_key(d.name)) std::printf(" %s=0x%" PRIx64, d.name, v);
        }
        std::fputs("\n", stdout);
      }
    }
    return finish(u, w.status(), w.error_offset(), w.error_id(), w.message());
  }

  int hau_stream(const Unit& u) {
    cmd::HauWalker w(u.data);
    cmd::HauCommand c;
    while (w.next(c)) {
      const char* op = c.is_send() ? "hau.send_msg" : "hau.wait_msg";
      if (json_) {
        begin_command();
        std::printf("{\"id\": %u, \"offset\": %zu, \"length\": %u, \"class\": \"sync\", \"eu\": %u, \"op\": \"%s\", "
                    "\"dep\": 0, \"dep_enabled\": false, \"fields\": {\"msg_id\": \"0x%x\", \"msg_cnt\": \"0x%x\"%s}}",
                    c.id, c.offset, cmd::kHauCommandBytes, c.msg_op, op, c.msg_id, c.msg_cnt,
                    c.eod ? ", \"eod\": \"0x1\"" : "");
      } else {
        std::printf("%s: #%u @%zu %uB sync eu=%u op=%s dep=0x0 msg_id=0x%x msg_cnt=0x%x%s\n", u.label.c_str(), c.id,
                    c.offset, cmd::kHauCommandBytes, c.msg_op, op, c.msg_id, c.msg_cnt, c.eod ? " eod=0x1" : "");
      }
    }
    return finish(u, w.status(), w.error_offset(), w.error_id(), w.message());
  }

  bool json_;
  bool first_ = true;
  bool first_cmd_ = true;
};

int dump_bmodel(const std::string& path, const std::vector<uint8_t>& bytes, Printer& out) {
  Bmodel m;
  std::string error;
  if (!parse_bmodel(ConstByteSpan(bytes.data(), bytes.size()), m, error)) {
    std::fprintf(stderr, "tilefw dump: %s: corrupt bmodel: %s\n", path.c_str(), error.c_str());
    out.unreadable(path, nullptr, "corrupt bmodel: " + error);
    return 2;
  }
  for (const std::string& o : m.others) {
    std::fprintf(stderr, "tilefw dump: %s: not dumped: %s\n", path.c_str(), o.c_str());
  }
  std::fprintf(stderr, "tilefw dump: %s: %s\n", path.c_str(), bmodel_contents(m).c_str());
  int rc = 0;
  for (const BmodelUnit& bu : bmodel_units(m)) {
    Unit u;
    u.file = path;
    u.label = path + "[core" + std::to_string(bu.core) + "." + bu.engine +
              (std::string(bu.engine) == "cdma" ? std::to_string(bu.index) : "") + "]";
    u.core = static_cast<int>(bu.core);
    u.engine = bu.engine;
    u.bytes = bu.stream.bytes.size();
    u.data = bu.stream.bytes;
    u.with_op = true;
    if (out.unit(u) != 0 && rc == 0) rc = 1;
  }
  return rc;
}

int run_dump(const DumpOptions& o) {
  int rc = 0;
  Printer out(o.json);
  auto worst = [&rc](int r) { rc = r > rc ? r : rc; };
  for (const std::string& path : o.files) {
    std::vector<uint8_t> bytes;
    std::string why;
    const bool readable = read_input(path, bytes, why);
    if (readable && o.engine.empty() &&
        (is_bmodel_path(path) || looks_like_bmodel(ConstByteSpan(bytes.data(), bytes.size())))) {
      worst(dump_bmodel(path, bytes, out));
      continue;
    }
    Engine e = Engine::tiu;
    const bool known = engine_for(path, o.engine, e);
    if (!known || !readable) {
      // Still one object per FILE, in argument order (docs/cli.md section 2); exit 2.
      if (readable) why = "cannot tell the engine from the file name (use --engine)";
      std::fprintf(stderr, "tilefw dump: %s: %s\n", path.c_str(), why.c_str());
      out.unreadable(path, known ? cmd::engine_name(e) : nullptr, why);
      worst(2);
      continue;
    }
    Unit u;
    u.file = path;
    u.label = path;
    u.engine = cmd::engine_name(e);
    u.bytes = bytes.size();
    u.data = ConstByteSpan(bytes.data(), bytes.size());
    worst(out.unit(u));
  }
  return rc;
}
}  // namespace

void register_dump(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("dump", "Decode SG2260 command buffers (.BD / .GDMA / .SDMA) or a .bmodel");
  static DumpOptions opts;  // CLI11 binds by reference: must outlive parse()
  sub->preparse_callback([](size_t) { opts = DumpOptions{}; });  // a second parse in one process starts afresh
  sub->add_flag("--json", opts.json,
                "print one JSON array with one object per file (per core and engine for a .bmodel)");
  sub->add_option("--engine", opts.engine, "tiu, gdma, sdma, hau or cdma (default: from the file name: .BD, .GDMA, .SDMA, .HAU, .CDMA)")
      ->check(CLI::IsMember({"tiu", "gdma", "sdma", "hau", "cdma"}));
  sub->add_option("files", opts.files, "command buffer files or .bmodel files")->required();
  sub->callback([&exit_code] { exit_code = run_dump(opts); });
}

}  // namespace tilefw::tools
