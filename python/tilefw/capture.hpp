// Runs a tool entry point (the same function the CLI's subcommand calls) with the process's
// stdout and stderr redirected to temporary files, so the module hands Python exactly the lines
// and messages the CLI prints. A C++ exception escaping the call becomes exit code 2 with its
// text, as the CLI's callbacks report it: nothing reaches the interpreter unhandled.
#pragma once

#include <functional>
#include <string>

namespace tilefw::python {

struct Captured {
  int exit_code = 0;
  std::string out;  // what the call wrote to stdout
  std::string err;  // what it wrote to stderr
};

/// `tool` names the subcommand in the message of an escaped exception ("tilefw run: ...").
Captured capture_stdio(const char* tool, const std::function<int()>& call);

}  // namespace tilefw::python
