// `tilefw validate --manifest FILE` without stream files (validate_manifest.cpp).
#pragma once

#include <string>

#include "tilefw/cmd/cdma_system.hpp"

namespace tilefw::tools {

/// What a cmd_unsatisfiable_message refusal waits for, to append to its message:
/// " (waits for msg 42 count 2: needs 2 sends of it, chip 1 makes 1 that can count)"; "" for
/// any other status.
std::string message_wait_detail(const cmd::SystemValidation& v);

/// Validates every stream the manifest names, the CDMA streams of a system of chips paired
/// across it, then the message check over the streams that run together (the top-level cores
/// and CDMA streams; a whole model's steps are not checked for messages: a step may count on
/// sends of the steps before it). Exit code: 0 all valid, 1 any invalid, 2 the manifest or a stream unreadable.
int validate_manifest_streams(const std::string& path);

}  // namespace tilefw::tools
