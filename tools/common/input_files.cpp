// Bounded reads of input files (input_files.hpp).
#include "common/input_files.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>

namespace tilefw::tools {

namespace {

// The size of a regular file, or false with the reason.
bool regular_size(const std::string& path, uint64_t& size, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = path + ": cannot read the file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a file";
    error = path + ": not a regular file (" + kind + ")";
    return false;
  }
  size = static_cast<uint64_t>(st.st_size);
  return true;
}

bool read_at(const std::string& path, uint64_t offset, uint64_t bytes, std::vector<uint8_t>& out, std::string& error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = path + ": cannot read the file";
    return false;
  }
  std::vector<uint8_t> b(static_cast<size_t>(bytes));
  f.seekg(static_cast<std::streamoff>(offset));
  if (bytes != 0) f.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(bytes));
  if (!f || static_cast<uint64_t>(f.gcount()) != bytes) {
    error = path + ": read failed (the file changed while it was read?)";
    return false;
  }
  out.swap(b);
  return true;
}

}  // namespace

bool regular_file_size(const std::string& path, uint64_t& size, std::string& error) {
  return regular_size(path, size, error);
}

bool read_file_into(const std::string& path, uint64_t offset, uint64_t bytes, uint8_t* dst, std::string& error) {
  uint64_t size = 0;
  if (!regular_size(path, size, error)) return false;
  if (offset > size || bytes > size - offset) {
    error = path + ": bytes [" + std::to_string(offset) + ", +" + std::to_string(bytes) + ") run past its end (" +
            std::to_string(size) + " bytes)";
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  if (f && bytes != 0) f.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (!f || (bytes != 0 && static_cast<uint64_t>(f.gcount()) != bytes)) {
    error = path + ": read failed (the file changed while it was read?)";
    return false;
  }
  return true;
}

bool read_whole_file(const std::string& path, uint64_t max_bytes, std::vector<uint8_t>& out, std::string& error) {
  uint64_t size = 0;
  if (!regular_size(path, size, error)) return false;
  if (size > max_bytes) {
    error = path + ": " + std::to_string(size) + " bytes, above the limit of " + std::to_string(max_bytes);
    return false;
  }
  return read_at(path, 0, size, out, error);
}

std::string escape_line(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      o += "\\\\";
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o;
}

bool parse_decimal_u64(const std::string& s, uint64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

}  // namespace tilefw::tools
