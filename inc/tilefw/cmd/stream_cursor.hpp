// What every stream walker shares: the position in the caller's bytes, the implicit ids, the end
// and padding rules, and the error it stopped on. cmd::Walker (TIU, GDMA, SDMA) and
// cmd::HauWalker differ only in how one command decodes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"

namespace tilefw::cmd {

class StreamCursor {
 public:
  constexpr explicit StreamCursor(ConstByteSpan buffer) noexcept : buffer_(buffer) {}

  constexpr Status status() const noexcept { return status_; }
  /// True once the walk stopped: at the clean end of the stream or on an error.
  constexpr bool finished() const noexcept { return done_; }
  /// Commands returned so far (the id of the last one).
  constexpr uint32_t count() const noexcept { return count_; }
  /// Offset of the next command.
  constexpr size_t offset() const noexcept { return offset_; }
  constexpr size_t error_offset() const noexcept { return error_offset_; }
  constexpr uint32_t error_id() const noexcept { return error_id_; }
  /// What is wrong, for people (static text).
  constexpr const char* message() const noexcept { return message_; }

 protected:
  /// True when a command is to be decoded at offset(); false when the walk stops here: after
  /// the end command only zero bytes may follow (cmd_data_after_end at the first other byte),
  /// and bytes that run out before it are cmd_missing_end (`missing_end` says which command).
  bool at_command(const char* data_after_end, const char* missing_end) noexcept;
  /// Takes the command just decoded (`length` bytes): returns its id, notes an end command.
  uint32_t accept(size_t length, bool is_end) noexcept {
    offset_ += length;
    if (is_end) ended_ = true;
    return ++count_;
  }
  /// Stops the walk on `s` at `offset` (the command's id is the next one); returns false.
  bool fail(Status s, size_t offset, const char* message) noexcept;

  ConstByteSpan buffer_;

 private:
  size_t offset_ = 0;
  uint32_t count_ = 0;
  bool ended_ = false;
  bool done_ = false;
  Status status_ = Status::ok;
  size_t error_offset_ = 0;
  uint32_t error_id_ = 0;
  const char* message_ = "";
};

}  // namespace tilefw::cmd
