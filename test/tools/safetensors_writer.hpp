// Test-only builder of .safetensors images: valid files from a tensor list (packed in order,
// header padded with spaces to a multiple of 8 as the reference writer does) and raw images
// with any header text and length field, for the reader's bad-input tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "tilefw/base/float16.hpp"

namespace tilefw::test {

struct StTensor {
  std::string name;
  std::string dtype;  // "F32", "F16", "BF16", "I8", ...
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;  // little-endian elements
};

/// 8-byte little-endian length (or `length` when given), the header text, the data.
inline std::string raw_image(const std::string& header, const std::string& data,
                             std::optional<uint64_t> length = std::nullopt) {
  const uint64_t n = length ? *length : header.size();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

inline std::string shape_json(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {  // appended piece by piece: GCC 12 -O3 -Werror=restrict
    if (i != 0) s += ',';                      // flags `const char* + std::string&&` falsely
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

/// A valid image holding `tensors` (names are written unescaped: keep them plain).
inline std::string safetensors_image(const std::vector<StTensor>& tensors,
                                     const std::string& metadata_json = "") {
  std::string header = "{";
  std::string data;
  bool first = true;
  if (!metadata_json.empty()) {
    header += "\"__metadata__\":" + metadata_json;
    first = false;
  }
  for (const StTensor& t : tensors) {
    const size_t begin = data.size();
    data.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
    header += std::string(first ? "" : ",") + "\"" + t.name + "\":{\"dtype\":\"" + t.dtype +
              "\",\"shape\":" + shape_json(t.shape) + ",\"data_offsets\":[" +
              std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
    first = false;
  }
  header += "}";
  while (header.size() % 8 != 0) header += ' ';
  return raw_image(header, data);
}

/// Writes `bytes` to a fresh file in the test temp directory; returns its path.
inline std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto dir = std::filesystem::temp_directory_path() / ("tilefw_test_tools_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace tilefw::test
