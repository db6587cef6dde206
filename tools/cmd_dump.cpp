// `tilefw dump [--json] [--engine tiu|gdma|sdma] FILE...`: decodes SG2260 command buffers
// (spec/conformance.md). Text: exactly one line per command,
//   <file>: #<id> @<offset> <length>B <class> eu=<eu> [type=<cmd_type>] dep=0x<raw>[(wait)] <field>=0x<v>...
// and a malformed buffer's error on stderr. --json: one array, one object per FILE in argument
// order (an unreadable one too, with its error). Exit 0 when every buffer decodes, 1 for a
// malformed one, 2 when a file cannot be read (or its engine cannot be told from its name).
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::tools {

namespace {
using cmd::Command;
using cmd::Engine;

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

bool header_key(const char* name) {
  const std::string n = name;
  return n == "tsk_typ" || n == "tsk_eu_typ" || n == "cmd_id_dep" || n == "cmd_type" ||
         n == "cmd_special_function";
}
}  // namespace

// Shared with cmd_validate.cpp (declared in commands.hpp).
bool read_file(const std::string& path, std::vector<uint8_t>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

bool engine_for(const std::string& path, const std::string& forced, Engine& e) {
  const std::string& s = forced;
  if (s == "tiu") { e = Engine::tiu; return true; }
  if (s == "gdma") { e = Engine::gdma; return true; }
  if (s == "sdma") { e = Engine::sdma; return true; }
  const std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (base.find(".BD") != std::string::npos) { e = Engine::tiu; return true; }
  if (base.find(".GDMA") != std::string::npos) { e = Engine::gdma; return true; }
  if (base.find(".SDMA") != std::string::npos) { e = Engine::sdma; return true; }
  return false;
}

namespace {
struct DumpOptions {
  bool json = false;
  std::string engine;
  std::vector<std::string> files;
};

int run_dump(const DumpOptions& o) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  int rc = 0;
  for (const std::string& path : o.files) {
    Engine e = Engine::tiu;
    std::vector<uint8_t> bytes;
    const bool known = engine_for(path, o.engine, e);
    if (!known || !read_file(path, bytes)) {
      // Still one object per FILE, in argument order (spec/conformance.md); exit 2.
      const char* why = known ? "cannot read the file" : "cannot tell the engine from the file name (use --engine)";
      std::fprintf(stderr, "tilefw dump: %s: %s\n", path.c_str(), why);
      rc = 2;
      nlohmann::ordered_json obj;
      obj["file"] = path;
      obj["engine"] = known ? cmd::engine_name(e) : nullptr;
      obj["bytes"] = 0;
      obj["commands"] = nlohmann::ordered_json::array();
      obj["error"] = nlohmann::ordered_json{{"offset", 0}, {"status", "unreadable"}, {"message", why}};
      all.push_back(obj);
      continue;
    }
    nlohmann::ordered_json obj;
    obj["file"] = path;
    obj["engine"] = cmd::engine_name(e);
    obj["bytes"] = bytes.size();
    nlohmann::ordered_json cmds = nlohmann::ordered_json::array();
    cmd::Walker w(e, ConstByteSpan(bytes.data(), bytes.size()));
    Command c;
    while (w.next(c)) {
      const Span<const cmd::FieldDesc> fields = cmd::fields_of(c.cls);
      if (o.json) {
        nlohmann::ordered_json j;
        j["id"] = c.id;
        j["offset"] = c.offset;
        j["length"] = c.length;
        j["class"] = cmd::class_name(c.cls);
        j["eu"] = c.eu;
        if (cmd::is_dma(e)) j["type"] = c.type;
        j["dep"] = c.dep;
        j["dep_enabled"] = c.dep_enabled();
        nlohmann::ordered_json f = nlohmann::ordered_json::object();
        for (const cmd::FieldDesc& d : fields) {
          const uint64_t v = cmd::read_field(c.data, d);
          if (v != 0 && !header_key(d.name)) f[d.name] = hex(v);
        }
        j["fields"] = f;
        cmds.push_back(j);
      } else {
        // One line per command, each naming its file (the same format for one file or many).
        std::printf("%s: #%u @%zu %uB %s eu=%u", path.c_str(), c.id, c.offset, c.length,
                    cmd::class_name(c.cls), c.eu);
        if (cmd::is_dma(e)) std::printf(" type=%u", c.type);
        std::printf(" dep=%s%s", hex(c.dep).c_str(), c.dep_enabled() ? "(wait)" : "");
        for (const cmd::FieldDesc& d : fields) {
          const uint64_t v = cmd::read_field(c.data, d);
          if (v != 0 && !header_key(d.name)) std::printf(" %s=%s", d.name, hex(v).c_str());
        }
        std::printf("\n");
      }
    }
    obj["commands"] = cmds;
    if (w.status() != Status::ok) {
      if (rc == 0) rc = 1;
      nlohmann::ordered_json err;
      err["offset"] = w.error_offset();
      err["status"] = status_name(w.status());
      err["message"] = w.message();
      obj["error"] = err;
      if (!o.json) {  // stdout stays one line per command
        std::fprintf(stderr, "tilefw dump: %s: error at command %u, byte offset %zu: %s: %s\n", path.c_str(),
                     w.error_id(), w.error_offset(), status_name(w.status()), w.message());
      }
    }
    all.push_back(obj);
  }
  if (o.json) std::printf("%s\n", all.dump(2).c_str());
  return rc;
}
}  // namespace

void register_dump(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("dump", "Decode SG2260 command buffers (.BD / .GDMA / .SDMA)");
  static DumpOptions opts;  // CLI11 binds by reference: must outlive parse()
  sub->add_flag("--json", opts.json, "print one JSON array with one object per file");
  sub->add_option("--engine", opts.engine, "tiu, gdma or sdma (default: from the file name)")
      ->check(CLI::IsMember({"tiu", "gdma", "sdma"}));
  sub->add_option("files", opts.files, "command buffer files")->required();
  sub->callback([&exit_code] { exit_code = run_dump(opts); });
}

}  // namespace tilefw::tools
