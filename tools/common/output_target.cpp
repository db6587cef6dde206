// The output-target rule (output_target.hpp).
#include "common/output_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace tilefw::tools
