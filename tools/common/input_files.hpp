// Bounded reads of the files a command line or a manifest names (hostile input, docs/cli.md section 8): only regular files
// (a directory, a device such as /dev/zero or a FIFO is refused before any read), never more
// bytes than the caller's bound, and a message that says why. Shared by run and conform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilefw::tools {

/// The whole of `path` when it is a regular file of at most `max_bytes` bytes. false with
/// `error` ("<path>: not a regular file (a directory)", "...: 2147483648 bytes, above the
/// limit of ...") otherwise; `out` is then unchanged.
bool read_whole_file(const std::string& path, uint64_t max_bytes, std::vector<uint8_t>& out, std::string& error);

/// The size of the regular file `path` (false with `error` for anything else).
bool regular_file_size(const std::string& path, uint64_t& size, std::string& error);

/// Bytes [offset, offset + bytes) of the regular file `path` straight into `dst` (simulated
/// memory: no copy of the declared size in between). A range past the end of the file, or past
/// 2^64, is an error naming the file's size.
bool read_file_into(const std::string& path, uint64_t offset, uint64_t bytes, uint8_t* dst, std::string& error);

/// A decimal integer 0..2^64-1 ("-1", "1e23", "" and "+3" are refused, never wrapped or rounded).
bool parse_decimal_u64(const std::string& s, uint64_t& v);

/// `s` on one line: control bytes (below 0x20, 0x7F) and backslash as \n, \t, \\ or \xNN;
/// other bytes as they are (UTF-8 names stay readable). A name can neither forge a line nor be
/// cut by a NUL.
std::string escape_line(const std::string& s);

}  // namespace tilefw::tools
