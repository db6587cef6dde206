// fd-level capture (capture.hpp): the tools print with stdio, which writes to fds 1 and 2.
#include "capture.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>

namespace tilefw::python {

namespace {
std::string slurp(std::FILE* f) {
  std::string s;
  std::fflush(f);
  std::rewind(f);
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

/// Points fd `target` at `file` for its lifetime and restores it afterwards (also on a throw).
class Redirect {
 public:
  Redirect(int target, std::FILE* file) : target_(target), saved_(::dup(target)) {
    if (saved_ >= 0 && file != nullptr) ::dup2(::fileno(file), target_);
  }
  ~Redirect() {
    if (saved_ < 0) return;
    ::dup2(saved_, target_);
    ::close(saved_);
  }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;

 private:
  int target_;
  int saved_;
};
}  // namespace

Captured capture_stdio(const char* tool, const std::function<int()>& call) {
  Captured c;
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  std::cout.flush();
  std::fflush(nullptr);
  {
    Redirect r_out(1, out);
    Redirect r_err(2, err);
    try {
      c.exit_code = call();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilefw %s: %s\n", tool, e.what());
      c.exit_code = 2;
    }
    std::cout.flush();
    std::fflush(nullptr);
  }
  if (out != nullptr) {
    c.out = slurp(out);
    std::fclose(out);
  }
  if (err != nullptr) {
    c.err = slurp(err);
    std::fclose(err);
  }
  return c;
}

}  // namespace tilefw::python
