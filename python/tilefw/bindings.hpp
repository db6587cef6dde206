// The pieces of the _tilefw extension module, each binding one part (module.cpp joins them).
#pragma once

#include <pybind11/pybind11.h>

namespace tilefw::python {

/// TIUCommand, DMACommand, HAUCommand and the stream/bmodel parsers.
void bind_commands(pybind11::module_& m);
/// The a2a3 vector descriptors and their validation.
void bind_a2a3(pybind11::module_& m);

}  // namespace tilefw::python
