// StagedFiles (staged_files.hpp).
#include "common/staged_files.hpp"

#include "common/output_target.hpp"
#include "common/signal_cleanup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace tilefw::tools {

namespace fs = std::filesystem;

StagedFiles::~StagedFiles() {
  for (const Entry& e : staged_) {
    std::error_code ec;
    fs::remove(e.temp, ec);
    signal_cleanup::release(e.slot);
  }
}

void StagedFiles::expect(const std::string& path) { expected_.push_back(path); }

bool StagedFiles::write(const std::string& path, const uint8_t* data, uint64_t bytes, std::string& error) {
  // Same directory as the final path, so the rename is atomic and never crosses file systems.
  // Created exclusively: a file, link or device already at the temporary name is never
  // written through (a stale one from a killed run is removed first when it is a regular file).
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  std::string why;
  if (!output_target_ok(path, why)) {
    error = path + ": " + why;
    return false;
  }
  std::error_code ec;
  if (output_target_ok(temp, why)) fs::remove(temp, ec);
  const int slot = signal_cleanup::add_file(temp);  // before it exists: no window
  if (!write_new_file(temp, data, static_cast<size_t>(bytes), why)) {
    signal_cleanup::release(slot);
    error = "cannot write " + path + ": " + why;
    return false;
  }
  staged_.push_back(Entry{path, temp, slot});
  return true;
}

bool StagedFiles::commit(std::string& error) {
  for (size_t i = 0; i < staged_.size(); ++i) {
    std::error_code ec;
    std::string why;
    if (!output_target_ok(staged_[i].path, why)) {  // appeared while the run worked
      error = staged_[i].path + ": " + why;
      for (size_t k = 0; k < i; ++k) fs::remove(staged_[k].path, ec);
      return false;
    }
    fs::rename(staged_[i].temp, staged_[i].path, ec);
    if (ec) {
      error = "cannot write " + staged_[i].path + ": " + ec.message();
      for (size_t k = 0; k < i; ++k) fs::remove(staged_[k].path, ec);
      return false;
    }
  }
  for (const Entry& e : staged_) {
    committed_.push_back(e.path);
    signal_cleanup::release(e.slot);
  }
  staged_.clear();
  return true;
}

void StagedFiles::discard() {
  std::error_code ec;
  for (const Entry& e : staged_) {
    fs::remove(e.temp, ec);
    signal_cleanup::release(e.slot);
  }
  staged_.clear();
  for (const std::string& p : expected_) {
    if (std::find(committed_.begin(), committed_.end(), p) != committed_.end()) continue;
    if (fs::is_regular_file(fs::symlink_status(p, ec))) fs::remove(p, ec);
  }
}

}  // namespace tilefw::tools
