// The decoded commands the Python module hands out: views over the bytes of the file they were
// read from (the bytes are shared, never copied per command), decoded by the core's walkers and
// field tables, the same code `tilefw dump` prints with.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::python {

/// The bytes of one file; every command of it keeps them alive.
struct FileBytes {
  std::vector<uint8_t> bytes;
};

/// A TIU, GDMA/SDMA or CDMA command (cmd::Command over a shared buffer).
struct StreamCommand {
  std::shared_ptr<const FileBytes> file;
  size_t base = 0;  // where the stream starts inside `file` (a .bmodel's stream)
  cmd::Command c;
  /// The value of the ISA field `name` in this command's layout, or nothing.
  std::optional<uint64_t> field(const std::string& name) const;
  const char* op() const;
};
struct TiuCommand : StreamCommand {};
struct DmaCommand : StreamCommand {};

/// A HAU sync command (80 bytes: send_msg or wait_msg).
struct HauCommand {
  std::shared_ptr<const FileBytes> file;
  cmd::HauCommand c;
};

/// The result of walking one stream: the commands, then the walker's verdict.
struct Walked {
  std::vector<TiuCommand> tiu;
  std::vector<DmaCommand> dma;  // gdma, sdma and cdma
  std::vector<HauCommand> hau;
  Status status = Status::ok;
  size_t error_offset = 0;
  uint32_t error_id = 0;
  std::string message;  // the walker's, as dump prints it after the status name
};

/// Walks the stream at [base, base + length) of `file` for `engine`.
Walked walk(const std::shared_ptr<const FileBytes>& file, size_t base, size_t length, cmd::Engine engine);

/// True when `name` is a field of some class's layout of this engine family (TIU, or DMA).
bool known_field(bool tiu, const std::string& name);

}  // namespace tilefw::python
