// `tilefw gen`'s output directory (gen_output.hpp).
#include "gen/gen_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include "common/signal_cleanup.hpp"

namespace tilefw::tools {

namespace fs = std::filesystem;

const char* json_dtype(DType d) {
  switch (d) {
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i32: return "i32";
    default: return "f32";
  }
}

ManifestTensor manifest_tensor(const gen::TensorInfo& t, const std::string& name) {
  ManifestTensor m;
  m.name = name;
  m.shape.assign(t.shape, t.shape + t.rank);
  m.dtype = json_dtype(t.dtype);
  m.device_addr = t.device_addr;
  m.bytes = t.bytes;
  return m;
}

// --out as a directory path: "DIR/" and "DIR/." name DIR (the temporary sibling must sit next
// to DIR, not inside it, or replacing DIR would delete it); "", ".", ".." and a root are refused,
// since replacing them would delete the current directory, its parent or the file system.
std::optional<Failure> out_path(const std::string& arg, fs::path& out) {
  out = fs::path(arg).lexically_normal();
  if (!out.empty() && !out.has_filename()) out = out.parent_path();  // "DIR/" -> "DIR"
  const fs::path name = out.filename();
  if (arg.empty() || out.empty() || name.empty() || name == "." || name == ".." || out == out.root_path()) {
    return Failure{2, "--out '" + arg + "': name a directory to create or replace (not '.', '..' or a root)"};
  }
  return std::nullopt;
}

// Checks --out without touching the file system (before any generation work).
std::optional<Failure> check_out(const GenCli& cli, const fs::path& out) {
  std::error_code ec;
  // A link at --out would be renamed aside and replaced by a directory: refused like every
  // output target that is not an ordinary file or directory (output_target.hpp).
  if (fs::is_symlink(fs::symlink_status(out, ec))) {
    return Failure{2, "--out " + cli.out + " is a symbolic link (tilefw neither replaces one nor writes through it)"};
  }
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) return Failure{2, "--out " + cli.out + " exists and is not a directory"};
    if (!fs::is_empty(out, ec) && !cli.force) {
      return Failure{2, "--out " + cli.out + " is not empty (use --force to replace it)"};
    }
  }
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return Failure{2, "--out: parent directory " + parent.string() + " does not exist"};
  return std::nullopt;
}

// The hidden sibling `.NAME.<what>-PID` of --out.
static fs::path sibling(const fs::path& out, const char* what) {
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  return parent / ("." + out.filename().string() + "." + what + "-" + std::to_string(::getpid()));
}

// `slot`: the temporary's signal_cleanup registration (made before it exists).
std::optional<Failure> prepare_out(const GenCli& cli, const fs::path& out, fs::path& tmp, int& slot) {
  if (auto f = check_out(cli, out)) return f;
  std::error_code ec;
  tmp = sibling(out, "tmp");
  fs::remove_all(tmp, ec);
  slot = signal_cleanup::add_dir(tmp.string());
  if (!fs::create_directory(tmp, ec)) return Failure{2, "--out: cannot create " + tmp.string() + ": " + ec.message()};
  return std::nullopt;
}

// Moves the finished `tmp` to `out`. Without --force the rename never replaces anything:
// an --out that became non-empty (or a link) while this run worked, a second gen to the same
// --out among them, is refused, not replaced (renameat2 RENAME_NOREPLACE decides atomically).
// With --force an existing `out` is first moved aside and deleted only once the new one is in
// place, so a failed rename leaves the old directory as it was.
std::optional<Failure> commit_out(const GenCli& cli, const fs::path& tmp, const fs::path& out) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(out, ec))) {
    return Failure{2, "--out " + out.string() + " became a symbolic link while generating; not replaced"};
  }
  fs::path old;
  if (fs::exists(out, ec)) {
    if (!cli.force) {
      // Still empty: remove it (fails when something arrived meanwhile) and take its place.
      if (::rmdir(out.c_str()) != 0) {
        return Failure{2, "--out " + out.string() + " is no longer empty (written while generating; use --force to replace it)"};
      }
    } else {
      old = sibling(out, "old");
      fs::remove_all(old, ec);
      fs::rename(out, old, ec);
      if (ec) return Failure{2, "--out: cannot move the existing " + out.string() + " aside: " + ec.message()};
    }
  }
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
    const int err = errno;
    if (!old.empty()) fs::rename(old, out, ec);
    if (err == EEXIST || err == ENOTEMPTY) {
      return Failure{2, "--out " + out.string() + " appeared while generating (another run?); not replaced"};
    }
    return Failure{2, "--out: cannot rename the output into " + out.string() + ": " + std::strerror(err)};
  }
  if (!old.empty()) fs::remove_all(old, ec);
  return std::nullopt;
}

bool write_bytes(const fs::path& p, const uint8_t* data, size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
  return static_cast<bool>(f);
}


}  // namespace tilefw::tools
