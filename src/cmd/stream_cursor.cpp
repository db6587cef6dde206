// The walkers' shared position, end and padding rules (tilefw/cmd/stream_cursor.hpp).

#include "tilefw/cmd/stream_cursor.hpp"

namespace tilefw::cmd {

bool StreamCursor::fail(Status s, size_t offset, const char* message) noexcept {
  status_ = s;
  error_offset_ = offset;
  error_id_ = count_ + 1;
  message_ = message;
  done_ = true;
  return false;
}

bool StreamCursor::at_command(const char* data_after_end, const char* missing_end) noexcept {
  if (done_) return false;
  if (ended_) {  // only zero padding may follow the end command
    for (size_t i = offset_; i < buffer_.size(); ++i) {
      if (buffer_[i] != 0) return fail(Status::cmd_data_after_end, i, data_after_end);
    }
    done_ = true;
    return false;
  }
  if (offset_ >= buffer_.size()) return fail(Status::cmd_missing_end, buffer_.size(), missing_end);
  return true;
}

}  // namespace tilefw::cmd
