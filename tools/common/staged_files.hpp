// Outputs that appear all together or not at all (hostile input: no partial outputs, docs/cli.md section 8): each file is written to a
// temporary name next to its final path; commit() renames them all at the end. A run that
// fails instead calls discard(): the temporaries go, and so do files of the same final names
// left by an earlier run (they would otherwise pass for this run's results).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilefw::tools {

class StagedFiles {
 public:
  StagedFiles() = default;
  ~StagedFiles();  // removes temporaries not committed
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;

  /// Declares a final path this run produces (discard() removes a stale file there).
  void expect(const std::string& path);
  /// Writes `bytes` to a temporary file for `path` (declared or not). false with `error`.
  bool write(const std::string& path, const uint8_t* data, uint64_t bytes, std::string& error);
  bool write(const std::string& path, const std::string& text, std::string& error) {
    return write(path, reinterpret_cast<const uint8_t*>(text.data()), text.size(), error);
  }
  /// Renames every temporary to its final path. false with `error` (then nothing of this
  /// run is left: renamed files are removed again).
  bool commit(std::string& error);
  /// The run failed: temporaries and stale files of every declared path are removed (files
  /// this run committed stay: --strict keeps its report).
  void discard();

 private:
  struct Entry {
    std::string path, temp;
    int slot = -1;  // signal_cleanup's: removed if the process is interrupted
  };
  std::vector<Entry> staged_;
  std::vector<std::string> expected_;
  std::vector<std::string> committed_;  // kept by discard(): this run's own files
};

}  // namespace tilefw::tools
