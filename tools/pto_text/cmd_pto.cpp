// `tilefw pto run FILE.pto --in NAME=FILE.bin ... --out DIR [--chip a2a3]` and
// `tilefw pto print FILE.pto` (docs/pto-text.md, "The command line"): a PTO text kernel parsed,
// then run on the bit-exact a2a3 simulator (each pointer argument a tstore wrote saved as
// DIR/NAME.bin, all files renamed into place together at the end) or printed in canonical
// text. Exit 0; 1 when an instruction fails on the simulator; 2 for bad text
// ("FILE:line:column: message"), a bad --in, a tile outside its memory or an output that cannot
// be written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "common/input_files.hpp"
#include "common/output_target.hpp"
#include "common/staged_files.hpp"
#include "pto_text/pto_exec.hpp"
#include "pto_text/pto_ir.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace tilefw::tools {

namespace {

struct PtoCli {
  std::string file;
  std::vector<std::string> inputs;  // NAME=PATH
  std::string out;
  std::string chip = "a2a3";
  std::string form;  // print: asm, ssa or dps (empty: each statement as written)
};

int fail(const std::string& what, int code = 2) {
  std::fprintf(stderr, "tilefw pto: %s\n", escape_line(what).c_str());
  return code;
}

// The file parsed, or a message "FILE:line:column: ..." (false).
bool load(const std::string& file, pto_text::Module& m, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!read_whole_file(file, pto_text::kMaxTextBytes, bytes, error)) return false;
  try {
    m = pto_text::parse(std::string(bytes.begin(), bytes.end()));
  } catch (const pto_text::TextError& e) {
    error = file + ":" + e.what();
    return false;
  }
  return true;
}

int run_print(const PtoCli& cli) {
  pto_text::Module m;
  std::string error;
  if (!load(cli.file, m, error)) return fail(error);
  if (!cli.form.empty()) {
    const pto_text::Form to = cli.form == "asm" ? pto_text::Form::assembly
                              : cli.form == "ssa" ? pto_text::Form::ssa
                                                  : pto_text::Form::dps;
    m = pto_text::with_form(m, to);
  }
  std::fputs(pto_text::print(m).c_str(), stdout);
  return 0;
}

bool read_inputs(const PtoCli& cli, pto_text::RunRequest& req, std::string& error) {
  for (const std::string& s : cli.inputs) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      error = "--in " + s + ": expected NAME=FILE";
      return false;
    }
    const std::string name = s.substr(0, eq);
    for (const auto& have : req.inputs) {
      if (have.first == name) {
        error = "--in " + name + ": given twice";
        return false;
      }
    }
    std::vector<uint8_t> bytes;
    if (!read_whole_file(s.substr(eq + 1), chip::a2a3::kGm.size, bytes, error)) {
      error = "--in " + name + ": " + error;
      return false;
    }
    req.inputs.emplace_back(name, std::move(bytes));
  }
  return true;
}

int run_kernel(const PtoCli& cli) {
  if (cli.chip != "a2a3" && cli.chip != "a5") return fail("--chip " + cli.chip + ": expected a2a3 or a5");
  pto_text::Module m;
  std::string error;
  if (!load(cli.file, m, error)) return fail(error);
  pto_text::RunRequest req;
  req.chip = cli.chip == "a5" ? chip::Chip::a5 : chip::Chip::a2a3;
  if (!read_inputs(cli, req, error)) return fail(error);
  std::error_code ec;
  const bool have_dir = std::filesystem::is_directory(cli.out, ec);
  if (!have_dir && std::filesystem::exists(std::filesystem::symlink_status(cli.out, ec))) {
    return fail("--out " + cli.out + ": not a directory");
  }
  std::vector<std::string> paths;
  for (int a : m.func.args) {
    const std::string path = (std::filesystem::path(cli.out) / (m.func.values[a].name + ".bin")).string();
    if (!output_target_ok(path, error)) return fail(path + ": " + error);
  }
  const pto_text::RunOutcome r = pto_text::run_module(m, req);
  if (r.exit_code != 0) return fail(r.positional ? cli.file + ":" + r.message : r.message, r.exit_code);
  // An output at the kernel's file or an --in file (same inode, e.g. an in-place kernel run with
  // --in x=DIR/x.bin --out DIR) would replace what the run read: refused before anything is made.
  std::vector<std::pair<std::string, std::string>> outs;
  for (const auto& o : r.outputs) outs.emplace_back("--out", (std::filesystem::path(cli.out) / (o.first + ".bin")).string());
  std::vector<std::string> ins{cli.file};
  for (const std::string& s : cli.inputs) ins.push_back(s.substr(s.find('=') + 1));
  if (!outputs_distinct(outs, ins, error)) return fail(error);
  // --out is made only for a kernel that ran: a failed run leaves nothing behind.
  if (!have_dir && !std::filesystem::create_directory(cli.out, ec)) {
    return fail("--out " + cli.out + ": cannot create: " + ec.message());
  }
  // An output that cannot be written (e.g. a name past the file system's limit) takes back the
  // directory this run made: remove() takes only an empty one.
  const auto undo = [&](const std::string& what) {
    if (!have_dir) std::filesystem::remove(cli.out, ec);
    return fail(what);
  };
  StagedFiles staged;
  for (const auto& [name, bytes] : r.outputs) {
    const std::string path = (std::filesystem::path(cli.out) / (name + ".bin")).string();
    staged.expect(path);
    if (!output_target_ok(path, error) || !staged.write(path, bytes.data(), bytes.size(), error)) {
      staged.discard();
      return undo(path + ": " + error);
    }
    paths.push_back(path + " (" + std::to_string(bytes.size()) + " bytes)");
  }
  if (!staged.commit(error)) return undo(error);
  for (const std::string& p : paths) std::printf("wrote %s\n", p.c_str());
  return 0;
}

template <class F>
void guarded(int& exit_code, F f) {
  // Nothing escapes to main: out of memory or any other failure is a message and exit 2.
  try {
    exit_code = f();
  } catch (const std::exception& e) {
    exit_code = fail(std::string("cannot complete: ") + e.what());
  }
}

}  // namespace

void register_pto(CLI::App& app, int& exit_code) {
  auto cli = std::make_shared<PtoCli>();
  CLI::App* pto = app.add_subcommand("pto", "PTO text kernels (.pto): run on the a2a3 simulator, print (docs/pto-text.md)");
  pto->require_subcommand(1);
  CLI::App* run = pto->add_subcommand("run", "run a .pto kernel on the bit-exact a2a3 (or --chip a5) simulator");
  run->add_option("file", cli->file, "the .pto file")->required();
  run->add_option("--in", cli->inputs, "NAME=FILE: raw little-endian bytes for pointer argument %NAME (repeatable)");
  run->add_option("--out", cli->out, "directory for NAME.bin of every pointer argument a tstore wrote")->required();
  run->add_option("--chip", cli->chip, "chip profile: a2a3 (default) or a5 (Ascend 950)");
  run->callback([cli, &exit_code]() { guarded(exit_code, [&] { return run_kernel(*cli); }); });
  CLI::App* print = pto->add_subcommand("print", "print a .pto kernel in canonical text");
  print->add_option("file", cli->file, "the .pto file")->required();
  print->add_option("--form", cli->form, "rewrite every instruction into one form: asm, ssa or dps")
      ->check(CLI::IsMember({"asm", "ssa", "dps"}));
  print->callback([cli, &exit_code]() { guarded(exit_code, [&] { return run_print(*cli); }); });
}

}  // namespace tilefw::tools
