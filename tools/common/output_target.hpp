// Where a tool may put a file it writes. Every output (run's --report, --trace, --svg and
// output tensors, gen's --out) is written under a temporary name and renamed over its final
// path at the end; a rename replaces whatever is there. So the final path must be free or an
// ordinary file: a symbolic link, a device (/dev/null), a FIFO, a socket or a directory there
// is refused, never replaced and never written through. The check runs before any work, and
// again just before the rename, so one that appears meanwhile is refused too.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tilefw::tools {

/// true when `path` does not exist or is a regular file (not a symbolic link to one). false
/// with `why` ("is a symbolic link", "is a character device", ...) otherwise.
bool output_target_ok(const std::string& path, std::string& why);

/// Creates `path` exclusively (O_CREAT | O_EXCL | O_NOFOLLOW: never an existing file, link or
/// device) and writes `bytes` to it. false with `why` otherwise (then nothing is left there).
bool write_new_file(const std::string& path, const void* data, size_t bytes, std::string& why);

/// Outputs that would replace an input or each other: `outputs` as (option, path), e.g.
/// {"--trace", "t.json"}. false with `why` naming the option and path when an output is the
/// same file as an input (same device and inode) or two outputs name one file (same inode,
/// or for paths that do not exist yet the same absolute path). Empty paths are skipped.
bool outputs_distinct(const std::vector<std::pair<std::string, std::string>>& outputs,
                      const std::vector<std::string>& inputs, std::string& why);

}  // namespace tilefw::tools
