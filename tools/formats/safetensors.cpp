// Safetensors reader: header validation in open(), seek + chunked read and dtype conversion in
// read(). See safetensors.hpp for the checks. Host-only; exceptions from nlohmann or the
// allocator are caught here and become error messages.
#include "formats/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tilefw/base/float16.hpp"

namespace tilefw::tools {
namespace {

using nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "the file's little-endian elements are reinterpreted in place");

struct Bad {
  std::string what;
};

// Element sizes in bits of the dtypes the safetensors format defines (sub-byte ones included,
// so a valid file holding them still opens); 0 = not a safetensors dtype.
uint32_t dtype_bits(std::string_view d) {
  static constexpr std::pair<std::string_view, uint32_t> kBits[] = {
      {"BOOL", 8},     {"U8", 8},       {"I8", 8},       {"F8_E5M2", 8},  {"F8_E4M3", 8},
      {"F8_E8M0", 8},  {"I16", 16},     {"U16", 16},     {"F16", 16},     {"BF16", 16},
      {"I32", 32},     {"U32", 32},     {"F32", 32},     {"F64", 64},     {"I64", 64},
      {"U64", 64},     {"C64", 64},     {"F4", 4},       {"F6_E2M3", 6},  {"F6_E3M2", 6}};
  for (const auto& [name, bits] : kBits) {
    if (name == d) return bits;
  }
  return 0;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

uint64_t as_u64(const json& j, const std::string& what) {
  if (!j.is_number_unsigned()) {
    // Nested values print as their type: dumping is recursive.
    throw Bad{what + " is " + (j.is_structured() ? std::string(j.type_name()) : j.dump()) +
              ", not a non-negative integer"};
  }
  return j.get<uint64_t>();
}

// A header name for a message: control bytes escaped (a NUL would cut the message short when
// printed) and at most 200 bytes shown.
std::string shown_name(const std::string& name) {
  std::string s;
  for (size_t i = 0; i < name.size() && i < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      s += b;
    } else {
      s += name[i];
    }
  }
  return name.size() > 200 ? s + "..." : s;
}

SafetensorsFile::Entry parse_entry(const std::string& name, const json& e, uint64_t data_size) {
  const std::string t = "tensor " + shown_name(name) + ": ";
  if (!e.is_object()) throw Bad{t + "entry is not an object"};
  SafetensorsFile::Entry out;
  const auto dt = e.find("dtype");
  const auto sh = e.find("shape");
  const auto off = e.find("data_offsets");
  if (dt == e.end() || !dt->is_string()) throw Bad{t + "dtype missing or not a string"};
  if (sh == e.end() || !sh->is_array()) throw Bad{t + "shape missing or not an array"};
  if (off == e.end() || !off->is_array()) throw Bad{t + "data_offsets missing or not an array"};
  out.dtype = dt->get<std::string>();
  const uint32_t bits = dtype_bits(out.dtype);
  if (bits == 0) throw Bad{t + "unknown dtype '" + out.dtype + "'"};
  uint64_t count = 1;
  for (const json& d : *sh) {
    const uint64_t v = as_u64(d, t + "shape entry");
    if (__builtin_mul_overflow(count, v, &count)) throw Bad{t + "shape element count overflows"};
    out.shape.push_back(v);
  }
  if (off->size() != 2) throw Bad{t + "data_offsets must hold 2 integers"};
  out.begin = as_u64((*off)[0], t + "data_offsets[0]");
  out.end = as_u64((*off)[1], t + "data_offsets[1]");
  if (out.end < out.begin) throw Bad{t + "data_offsets not ascending"};
  if (out.end > data_size) {
    throw Bad{t + "data_offsets end " + std::to_string(out.end) + " beyond the data section (" +
              std::to_string(data_size) + " bytes)"};
  }
  uint64_t total_bits = 0;
  if (__builtin_mul_overflow(count, uint64_t{bits}, &total_bits)) {
    throw Bad{t + "shape element count overflows"};
  }
  if (total_bits % 8 != 0 || total_bits / 8 != out.end - out.begin) {
    throw Bad{t + std::to_string(out.end - out.begin) + " bytes in data_offsets, shape " +
              shape_string(out.shape) + " of " + out.dtype + " needs " +
              (total_bits % 8 != 0 ? "a whole number of bytes" : std::to_string(total_bits / 8))};
  }
  return out;
}

// Top-level names seen by a SAX pass (no tree): the first one that appears twice. The DOM
// parser's callback form was quadratic in the entries (it walks the object at each close).
struct DuplicateFinder : json::json_sax_t {
  std::set<std::string> seen;
  std::string duplicate;
  int depth = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth, true; }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return ++depth, true; }
  bool end_array() override { return --depth, true; }
  bool key(string_t& k) override {
    if (depth == 1 && duplicate.empty() && !seen.insert(k).second) duplicate = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

// Parses the header, refusing duplicated top-level names: nlohmann keeps the last one silently,
// and a checkpoint with two different tensors under one name is ambiguous.
json parse_header(const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Bad{"header is not valid JSON at byte " + std::to_string(e.byte) + " of the header: " + e.what()};
  }
  DuplicateFinder dup;
  json::sax_parse(text, &dup);  // valid JSON (parsed above): only the names are looked at
  if (!dup.duplicate.empty()) throw Bad{"tensor " + shown_name(dup.duplicate) + ": name appears twice in the header"};
  if (!root.is_object()) throw Bad{std::string("header is a JSON ") + root.type_name() + ", not an object"};
  return root;
}

bool read_exact(std::FILE* f, uint64_t offset, void* dst, size_t n) {
  if (fseeko(f, static_cast<off_t>(offset), SEEK_SET) != 0) return false;
  return std::fread(dst, 1, n, f) == n;
}

// Converts `n` source elements at `src` to `target` at `dst`, rounding to nearest even.
void convert(const uint8_t* src, const std::string& from, DType target, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t f32 = 0;  // the element as binary32 bits (exact for all three sources)
    if (from == "F32") {
      std::memcpy(&f32, src + 4 * i, 4);
    } else {
      uint16_t h = 0;
      std::memcpy(&h, src + 2 * i, 2);
      f32 = from == "F16" ? half_bits_to_float_bits(h) : bf16_bits_to_float_bits(h);
    }
    if (target == DType::f32) {
      std::memcpy(dst + 4 * i, &f32, 4);
      continue;
    }
    const uint16_t out = target == DType::bf16 ? float_bits_to_bf16_bits(f32) : float_bits_to_half_bits(f32);
    std::memcpy(dst + 2 * i, &out, 2);
  }
}

// Opened without blocking and checked before any read: a FIFO's open would otherwise wait for
// a writer forever (and a device be read without end). nullptr with `why` for anything but a
// regular file.
std::FILE* open_regular(const std::string& path, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = "cannot open: " + std::string(std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file" : "not a regular file";
    ::close(fd);
    return nullptr;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (f == nullptr) {
    why = "cannot open: " + std::string(std::strerror(errno));
    ::close(fd);
  }
  return f;
}

}  // namespace

std::string shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool SafetensorsFile::open(const std::string& path, std::string& error) {
  entries_.clear();
  metadata_.clear();
  path_ = path;
  try {
    std::string why;
    File f(open_regular(path, why));
    if (!f) throw Bad{why};
    if (fseeko(f.get(), 0, SEEK_END) != 0) throw Bad{"cannot seek"};
    const off_t size = ftello(f.get());
    if (size < 0) throw Bad{"cannot tell the file size"};
    const uint64_t file_size = static_cast<uint64_t>(size);
    uint8_t len_bytes[8] = {};
    if (file_size < 8 || !read_exact(f.get(), 0, len_bytes, 8)) {
      throw Bad{"shorter than the 8-byte header length"};
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | len_bytes[i];
    if (n > kMaxHeaderBytes) throw Bad{"header length " + std::to_string(n) + " is absurd (> 100 MB)"};
    if (n > file_size - 8) {
      throw Bad{"header length " + std::to_string(n) + " exceeds the " + std::to_string(file_size - 8) +
                " bytes after it (truncated file?)"};
    }
    std::string text(n, '\0');
    if (n != 0 && !read_exact(f.get(), 8, text.data(), n)) throw Bad{"cannot read the header"};
    const json root = parse_header(text);
    data_start_ = 8 + n;
    data_size_ = file_size - data_start_;
    for (const auto& [name, value] : root.items()) {
      if (name == "__metadata__") {
        if (!value.is_object()) throw Bad{"__metadata__ is not an object"};
        for (const auto& [k, v] : value.items()) {
          if (v.is_string()) metadata_[k] = v.get<std::string>();
        }
        continue;
      }
      entries_[name] = parse_entry(name, value, data_size_);
    }
    return true;
  } catch (const Bad& b) {
    error = path + ": " + b.what;
  } catch (const std::exception& e) {
    error = path + ": " + e.what();
  }
  entries_.clear();
  metadata_.clear();
  return false;
}

const SafetensorsFile::Entry* SafetensorsFile::find(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

bool SafetensorsFile::check(const std::string& name, const std::vector<uint64_t>& shape, std::string& error) const {
  const std::string t = path_ + ": tensor " + name + ": ";
  const Entry* e = find(name);
  if (e == nullptr) {
    error = t + "not in the file";
    return false;
  }
  if (e->shape != shape) {
    error = t + "shape " + shape_string(shape) + " expected, found " + shape_string(e->shape);
    return false;
  }
  if (e->dtype != "F32" && e->dtype != "F16" && e->dtype != "BF16") {
    error = t + "dtype " + e->dtype + " not supported (F32, F16, BF16)";
    return false;
  }
  return true;
}

bool SafetensorsFile::read(const std::string& name, const std::vector<uint64_t>& shape, DType target,
                           std::vector<uint8_t>& out, std::string& error) const {
  const std::string t = path_ + ": tensor " + name + ": ";
  if (!check(name, shape, error)) return false;
  const Entry* e = find(name);
  if (target != DType::f32 && target != DType::f16 && target != DType::bf16) {
    error = t + "target dtype " + dtype_name(target) + " not supported (f32, f16, bf16)";
    return false;
  }
  const size_t src_size = e->dtype == "F32" ? 4 : 2;
  const uint64_t count = (e->end - e->begin) / src_size;  // open() checked the span
  try {
    std::string why;
    File f(open_regular(path_, why));
    if (!f) throw Bad{why};
    out.resize(count * dtype_size(target));
    // Chunks bound the staging buffer; a large tensor is never held twice.
    constexpr uint64_t kChunk = uint64_t{1} << 18;  // elements
    std::vector<uint8_t> buf(std::min(count, kChunk) * src_size);
    for (uint64_t i = 0; i < count; i += kChunk) {
      const uint64_t n = std::min(kChunk, count - i);
      if (!read_exact(f.get(), data_start_ + e->begin + i * src_size, buf.data(), n * src_size)) {
        throw Bad{"short read (file changed or truncated since open?)"};
      }
      convert(buf.data(), e->dtype, target, n, out.data() + i * dtype_size(target));
    }
    return true;
  } catch (const Bad& b) {
    error = t + b.what;
  } catch (const std::exception& ex) {
    error = t + ex.what();
  }
  out.clear();
  return false;
}

}  // namespace tilefw::tools
