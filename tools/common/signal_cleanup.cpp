// Removal of temporaries on SIGINT / SIGTERM / SIGHUP (signal_cleanup.hpp).
#include "common/signal_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace tilefw::tools::signal_cleanup {

namespace {

constexpr int kSlots = 64;
constexpr size_t kPathBytes = 4096;

struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being written, 2 a file, 3 a directory
  char path[kPathBytes];
};
Slot g_slots[kSlots];
std::atomic<bool> g_installed{false};

// The files of `dir` (one level), then the directory: getdents64 straight from the kernel.
void remove_dir(const char* dir) noexcept {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        struct Entry {
          uint64_t ino;
          int64_t off;
          unsigned short reclen;
          unsigned char type;
          char name[1];
        };
        const Entry* e = reinterpret_cast<const Entry*>(buf + off);
        if (std::strcmp(e->name, ".") != 0 && std::strcmp(e->name, "..") != 0) ::unlinkat(fd, e->name, 0);
        off += e->reclen;
      }
    }
    ::close(fd);
  }
  ::rmdir(dir);
}

void on_signal(int sig) {
  for (Slot& s : g_slots) {
    const int state = s.state.load();
    if (state == 2) ::unlink(s.path);
    if (state == 3) remove_dir(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int add(const std::string& path, int kind) noexcept {
  if (path.size() + 1 > kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kind);
    return i;
  }
  return -1;
}

}  // namespace

void install() noexcept {
  if (g_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

int add_file(const std::string& path) noexcept { return add(path, 2); }
int add_dir(const std::string& path) noexcept { return add(path, 3); }

void release(int slot) noexcept {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(0);
}

}  // namespace tilefw::tools::signal_cleanup
