// Strict JSON reading for `tilefw conform` case files (docs/cli.md section 4.2): every defined key
// is type-checked, a wrong one throws BadCase (a file-level FAIL), and values convert to the
// raw bits of their dtype exactly as the spec's "Values" section says. Host-only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tilefw/base/dtype.hpp"

namespace tilefw::tools::conform {

using nlohmann::json;

/// A defined key with a wrong type or value: the whole file fails (`FAIL <path>: <what>`).
struct BadCase : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void bad(const std::string& what);

const json* opt(const json& o, const char* key);
const json& req(const json& o, const char* key, const std::string& where);
std::string str(const json& j, const std::string& where);
/// A non-negative JSON integer, or with `allow_hex` also a "0x..." string whose value fits in
/// 64 bits (leading zeros allowed).
uint64_t uint_of(const json& j, const std::string& where, bool allow_hex = false);
/// `o[key]` as a 32-bit unsigned integer; `def` when the key is absent.
uint32_t u32(const json& o, const char* key, uint32_t def, const std::string& where);
/// `o[key]` as a 32-bit unsigned integer; the key is required.
uint32_t req_u32(const json& o, const char* key, const std::string& where);
DType dtype_of_name(const std::string& s, const std::string& where);

/// One value: raw bits of the dtype, or (expectations only) "nan" = any NaN / "keep".
struct Val {
  enum Kind { bits, any_nan, keep } kind = bits;
  uint32_t raw = 0;
};
/// A JSON number, "inf", "-inf", "nan", "0x..." raw bits, or (when `expect`) "keep".
Val value_of(const json& j, DType t, const std::string& where, bool expect);
/// A number in dtype t: floats round the double to nearest even, integers must be in range.
uint32_t number_bits(double d, DType t, const std::string& where);

}  // namespace tilefw::tools::conform
