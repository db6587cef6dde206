// _tilefw: the extension behind the `tilefw` package. The command line as a call (run_cli, with
// the output captured), the Status table, and the bindings of bind_*.cpp. The Python layer
// (_api.py) turns exit codes and messages into the package's exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "capture.hpp"
#include "tilefw/base/status.hpp"
#include "commands.hpp"  // tools/: run_cli

namespace py = pybind11;

namespace tilefw::python {
namespace {

// One command line at a time: the subcommands keep their options in statics and the capture
// redirects the process's fds 1 and 2 (other Python threads keep running meanwhile).
std::mutex g_cli_lock;

/// `tilefw ARGS...` in this process: (exit code, stdout, stderr).
std::tuple<int, py::bytes, py::bytes> cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"tilefw"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  const char* tool = args.empty() ? "" : args[0].c_str();
  Captured c;
  {
    py::gil_scoped_release unlocked;  // a long run does not hold up other Python threads
    const std::lock_guard<std::mutex> one_at_a_time(g_cli_lock);
    c = capture_stdio(tool, [&argv] { return tools::run_cli(static_cast<int>(argv.size()), argv.data()); });
  }
  return {c.exit_code, py::bytes(c.out), py::bytes(c.err)};
}

py::list status_rows() {
  py::list rows;
  std::size_t count = 0;
  const StatusInfo* table = tilefw::status_table(count);
  for (std::size_t i = 0; i < count; ++i) {
    const StatusInfo& s = table[i];
    rows.append(py::make_tuple(s.name, static_cast<int>(s.value), status_class_name(s.cls), s.description));
  }
  return rows;
}

}  // namespace
}  // namespace tilefw::python

PYBIND11_MODULE(_tilefw, m) {
  m.doc() = "tilefw's C++ host library and tools (use the `tilefw` package, not this module)";
  m.def("cli", &tilefw::python::cli, py::arg("args"),
        "Runs `tilefw ARGS...` in this process: (exit code, stdout bytes, stderr bytes).");
  m.def("status_table", &tilefw::python::status_rows, "Every Status: (name, number, class, description).");
  tilefw::python::bind_commands(m);
  tilefw::python::bind_a2a3(m);
}
