// What an interrupted tool leaves behind: nothing. Temporaries (a staged output's `*.tmp-PID`,
// gen's hidden output directory, run --bmodel's folder) are registered while they exist; on
// SIGINT, SIGTERM or SIGHUP the handler removes them, then the signal ends the process as it
// would have (default action, re-raised). The handler uses only async-signal-safe calls
// (unlink, openat, getdents64, unlinkat, rmdir) over a fixed table: no allocation. A
// registered directory holds files only (every tool temporary does).
#pragma once

#include <string>

namespace tilefw::tools::signal_cleanup {

/// Installs the handlers (once; later calls do nothing).
void install() noexcept;
/// Registers a temporary file or a directory of files; returns its slot (-1: table full or path
/// too long; then it is simply not cleaned on a signal).
int add_file(const std::string& path) noexcept;
int add_dir(const std::string& path) noexcept;
/// The temporary is gone or has become a result: no longer removed on a signal.
void release(int slot) noexcept;

/// Releases its slot when it goes out of scope.
class Registered {
 public:
  explicit Registered(int slot) noexcept : slot_(slot) {}
  ~Registered() { release(slot_); }
  Registered(const Registered&) = delete;
  Registered& operator=(const Registered&) = delete;

 private:
  int slot_;
};

}  // namespace tilefw::tools::signal_cleanup
