// File input shared by dump, validate and run: whole-file reads of regular files only (a
// directory, device, FIFO or socket is refused before anything is read, so /dev/zero or a pipe
// never makes a tool read forever), with a size cap; and the engine of a buffer file.
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"

namespace tilefw::tools {

namespace {
// Far above any command buffer or model the tools read (YOLOv5s' bmodel is 0.8 MB); a larger
// file is refused rather than loaded.
constexpr uint64_t kMaxInputBytes = uint64_t{1} << 31;
}  // namespace

bool read_input(const std::string& path, std::vector<uint8_t>& out, std::string& why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    why = "cannot read the file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    why = S_ISDIR(st.st_mode) ? "is a directory, not a file" : "is not a regular file (device, FIFO or socket)";
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxInputBytes) {
    why = "larger than 2 GiB";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    why = "cannot read the file";
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  const size_t got = out.empty() ? 0 : std::fread(out.data(), 1, out.size(), f);
  // A file that grew or shrank while read: take what is there, never more than the cap.
  const bool ok = got == out.size() && std::ferror(f) == 0;
  std::fclose(f);
  if (!ok) {
    why = "cannot read the file";
    return false;
  }
  return true;
}

bool read_file(const std::string& path, std::vector<uint8_t>& out) {
  std::string why;
  return read_input(path, out, why);
}

bool engine_for(const std::string& path, const std::string& forced, cmd::Engine& e) {
  if (forced == "tiu") { e = cmd::Engine::tiu; return true; }
  if (forced == "gdma") { e = cmd::Engine::gdma; return true; }
  if (forced == "sdma") { e = cmd::Engine::sdma; return true; }
  if (forced == "hau") { e = cmd::Engine::hau; return true; }
  if (forced == "cdma") { e = cmd::Engine::cdma; return true; }
  const size_t slash = path.find_last_of('/');
  const std::string base = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (base.find(".BD") != std::string::npos) { e = cmd::Engine::tiu; return true; }
  if (base.find(".GDMA") != std::string::npos) { e = cmd::Engine::gdma; return true; }
  if (base.find(".SDMA") != std::string::npos) { e = cmd::Engine::sdma; return true; }
  if (base.find(".HAU") != std::string::npos) { e = cmd::Engine::hau; return true; }
  if (base.find(".CDMA") != std::string::npos) { e = cmd::Engine::cdma; return true; }
  return false;
}

bool is_bmodel_path(const std::string& path) {
  return path.size() >= 7 && path.compare(path.size() - 7, 7, ".bmodel") == 0;
}

}  // namespace tilefw::tools
