// The name tpu-mlir's `bmodel_dis` prints for a command ("conv.normal", "arith.add_satu",
// "pord.maxpooling", "dma.sys.sys_send", "system.end", ...), so users can diff tilefw's view of
// a buffer against the vendor's. Every (class, eu) that classes.hpp accepts has a name: where
// tpu-mlir's BM1690 table lacks an entry the spec defines (SYS fork/join/exit, tensor collect),
// the name follows the same "<class>.<eu name>" pattern.
#pragma once

#include <cstdint>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::cmd {

/// Name of the command of class `c` with tsk_eu_typ / cmd_special_function `eu`; "unknown"
/// when `eu` is not defined for the class (never null).
const char* op_name(CmdClass c, uint32_t eu) noexcept;

}  // namespace tilefw::cmd
