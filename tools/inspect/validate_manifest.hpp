// `tilefw validate --manifest FILE` without stream files (validate_manifest.cpp).
#pragma once

#include <string>

namespace tilefw::tools {

/// Validates every stream the manifest names, the CDMA streams of a system of chips paired
/// across it. Exit code: 0 all valid, 1 any invalid, 2 the manifest or a stream unreadable.
int validate_manifest_streams(const std::string& path);

}  // namespace tilefw::tools
