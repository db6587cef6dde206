// The output-target rule (output_target.hpp).
#include "common/output_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tilefw::tools {

bool output_target_ok(const std::string& path, std::string& why) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return true;
    why = std::string("cannot be checked: ") + std::strerror(errno);
    return false;
  }
  if (S_ISREG(st.st_mode)) return true;
  why = S_ISLNK(st.st_mode)    ? "is a symbolic link (tilefw neither replaces one nor writes through it)"
        : S_ISCHR(st.st_mode)  ? "is a character device (tilefw never replaces one)"
        : S_ISBLK(st.st_mode)  ? "is a block device (tilefw never replaces one)"
        : S_ISFIFO(st.st_mode) ? "is a FIFO (tilefw never replaces one)"
        : S_ISSOCK(st.st_mode) ? "is a socket (tilefw never replaces one)"
        : S_ISDIR(st.st_mode)  ? "is a directory"
                               : "is not a regular file";
  return false;
}

bool write_new_file(const std::string& path, const void* data, size_t bytes, std::string& why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    why = std::string("cannot create ") + path + ": " + std::strerror(errno);
    return false;
  }
  const char* p = static_cast<const char*>(data);
  size_t left = bytes;
  while (left != 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = std::string("cannot write ") + path + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(path.c_str());
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    why = std::string("cannot write ") + path + ": " + std::strerror(errno);
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

namespace {

// One file: its device and inode when it exists, else its absolute lexical path.
struct FileKey {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;
  bool operator==(const FileKey& o) const {
    return exists == o.exists && (exists ? dev == o.dev && ino == o.ino : path == o.path);
  }
};

FileKey key_of(const std::string& path) {
  FileKey k;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    k.exists = true;
    k.dev = st.st_dev;
    k.ino = st.st_ino;
    return k;
  }
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::weakly_canonical(path, ec);
  k.path = ec ? std::filesystem::absolute(path, ec).lexically_normal().string() : abs.string();
  return k;
}

}  // namespace

bool outputs_distinct(const std::vector<std::pair<std::string, std::string>>& outputs,
                      const std::vector<std::string>& inputs, std::string& why) {
  std::vector<FileKey> in;
  for (const std::string& p : inputs) in.push_back(key_of(p));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [opt, path] = outputs[i];
    if (path.empty()) continue;
    const FileKey k = key_of(path);
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (k.exists && k == in[j]) {
        why = opt + " " + path + ": is the input " + inputs[j] + " (tilefw never replaces an input)";
        return false;
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].second.empty() && k == key_of(outputs[j].second)) {
        why = opt + " " + path + ": is also the file of " + outputs[j].first + " (each output needs its own file)";
        return false;
      }
    }
  }
  return true;
}

}  // namespace tilefw::tools
