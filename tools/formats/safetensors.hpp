// Reader for `.safetensors` weight files (docs/generator.md section 2, --weights): an 8-byte little-endian
// header length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]},
// "__metadata__": {...}}, then the data, offsets relative to the end of the header. Host-only.
//
// open() reads and validates the header only; read() seeks to one tensor and converts it, so a
// multi-GB checkpoint is never held in memory. Any bytes give an error message, never an
// exception or a crash. Checks: header length within the file and <= 100 MB, header a JSON
// object without duplicated names, each entry an object with a known safetensors dtype, a
// shape of non-negative integers whose element count does not overflow, and data_offsets of
// two ascending integers inside the data section whose span equals count * dtype size.
// Overlapping or gapped spans are accepted (they do not make any tensor unreadable).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tilefw/base/dtype.hpp"

namespace tilefw::tools {

class SafetensorsFile {
 public:
  struct Entry {
    std::string dtype;            // as written: "F32", "BF16", "I8", ...
    std::vector<uint64_t> shape;  // row-major
    uint64_t begin = 0, end = 0;  // byte range relative to the data section
  };

  /// Reads and validates the header of `path`. false with `error` naming the file and the
  /// problem (and the tensor, for a bad entry).
  bool open(const std::string& path, std::string& error);

  /// The entry named `name`, or nullptr.
  const Entry* find(const std::string& name) const;
  const std::map<std::string, Entry>& entries() const { return entries_; }
  /// "__metadata__" string values (non-string values are skipped).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  /// Checks that tensor `name` is there with shape `shape` and a readable dtype (F32, F16,
  /// BF16), without reading its data; false with `error` as read() words it.
  bool check(const std::string& name, const std::vector<uint64_t>& shape, std::string& error) const;

  /// Reads tensor `name`, checks (as check() does) that its shape equals `shape` (the error names the tensor,
  /// the expected and the found shape), converts F32/F16/BF16 to `target` (bf16, f16 or f32;
  /// round to nearest even) into `out` (row-major, little-endian). Other source dtypes are
  /// refused by name ("tensor X: dtype I8 not supported").
  bool read(const std::string& name, const std::vector<uint64_t>& shape, DType target,
            std::vector<uint8_t>& out, std::string& error) const;

  static constexpr uint64_t kMaxHeaderBytes = 100u * 1000u * 1000u;

 private:
  std::string path_;
  uint64_t data_start_ = 0;  // 8 + N
  uint64_t data_size_ = 0;   // file size - data_start_
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

/// "[a, b, c]" for messages.
std::string shape_string(const std::vector<uint64_t>& shape);

}  // namespace tilefw::tools
