// JSON and value helpers of the conform runner (see conform_json.hpp).
#include "conform/conform_json.hpp"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "tilefw/base/float16.hpp"

namespace tilefw::tools::conform {

void bad(const std::string& what) { throw BadCase(what); }

const json* opt(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}
const json& req(const json& o, const char* key, const std::string& where) {
  const json* j = opt(o, key);
  if (j == nullptr) bad(where + ": missing \"" + key + "\"");
  return *j;
}
std::string str(const json& j, const std::string& where) {
  if (!j.is_string()) bad(where + ": expected a string");
  return j.get<std::string>();
}
uint64_t uint_of(const json& j, const std::string& where, bool allow_hex) {
  if (allow_hex && j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) bad(where + ": expected \"0x...\"");
    for (size_t i = 2; i < s.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(s[i]))) bad(where + ": expected \"0x...\"");
    }
    // Leading zeros never change the value: only the significant digits must fit 64 bits
    // (the caller checks the dtype's or the register's own width).
    const size_t first = s.find_first_not_of('0', 2);
    if (first == std::string::npos) return 0;
    if (s.size() - first > 16) bad(where + ": \"" + s + "\" does not fit in 64 bits");
    return std::stoull(s.substr(first), nullptr, 16);
  }
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  bad(where + ": expected a non-negative integer");
}
uint32_t u32(const json& o, const char* key, uint32_t def, const std::string& where) {
  const json* j = opt(o, key);
  if (j == nullptr) return def;
  const uint64_t v = uint_of(*j, where + "." + key);
  if (v > 0xFFFFFFFFu) bad(where + "." + key + ": out of range");
  return static_cast<uint32_t>(v);
}
uint32_t req_u32(const json& o, const char* key, const std::string& where) {
  req(o, key, where);
  return u32(o, key, 0, where);
}

DType dtype_of_name(const std::string& s, const std::string& where) {
  for (DType t : kAllDTypes) {
    if (s == dtype_name(t)) return t;
  }
  bad(where + ": unknown dtype \"" + s + "\"");
}

namespace {
uint32_t float_to_bits(double d, DType t) {
  const float f = static_cast<float>(d);  // f16/bf16 from double: round once via exact path
  switch (t) {
    case DType::f32: return std::bit_cast<uint32_t>(f);
    case DType::f16: {
      // Round the double directly to half (nearest even): scale to the half quantum.
      if (std::isnan(d)) return 0x7E00;
      const uint32_t sign = std::signbit(d) ? 0x8000u : 0u;
      const double a = std::fabs(d);
      if (a >= 65520.0) return sign | 0x7C00u;
      int e = 0;
      std::frexp(a, &e);
      int q = e - 11;
      if (q < -24) q = -24;
      const double r = std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
      return sign | float_bits_to_half_bits(std::bit_cast<uint32_t>(static_cast<float>(r)));
    }
    case DType::bf16: {
      if (std::isnan(d)) return 0x7FC0;
      const uint32_t sign = std::signbit(d) ? 0x8000u : 0u;
      const double a = std::fabs(d);
      if (a >= 0x1.ffp127 * 1.0 + 0x1p119) return sign | 0x7F80u;  // halfway past bf16 max
      int e = 0;
      std::frexp(a, &e);
      int q = e - 8;
      if (q < -133) q = -133;
      const double r = std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
      return sign | float_bits_to_bf16_bits(std::bit_cast<uint32_t>(static_cast<float>(r)));
    }
    default: return 0;
  }
}

uint32_t int_bits(double d, bool is_int, DType t, const std::string& where) {
  if (!is_int && d != std::floor(d)) bad(where + ": integer dtype needs an integer");
  int64_t lo = 0, hi = 0;
  switch (t) {
    case DType::i8: lo = -128; hi = 127; break;
    case DType::u8: lo = 0; hi = 255; break;
    case DType::i16: lo = -32768; hi = 32767; break;
    case DType::u16: lo = 0; hi = 65535; break;
    case DType::i32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: lo = 0; hi = UINT32_MAX; break;
  }
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) bad(where + ": value out of range for " + dtype_name(t));
  const int64_t v = static_cast<int64_t>(d);
  const uint32_t w = dtype_size(t) * 8;
  return static_cast<uint32_t>(static_cast<uint64_t>(v) & (w == 32 ? 0xFFFFFFFFull : ((1ull << w) - 1)));
}

}  // namespace

uint32_t number_bits(double d, DType t, const std::string& where) {
  if (dtype_is_float(t)) return float_to_bits(d, t);
  return int_bits(d, false, t, where);
}

Val value_of(const json& j, DType t, const std::string& where, bool expect) {
  Val v;
  if (j.is_number()) {
    if (j.is_number_integer() && !dtype_is_float(t)) {
      const double d = j.is_number_unsigned() ? static_cast<double>(j.get<uint64_t>()) : static_cast<double>(j.get<int64_t>());
      v.raw = int_bits(d, true, t, where);
    } else {
      v.raw = number_bits(j.get<double>(), t, where);
    }
    return v;
  }
  if (!j.is_string()) bad(where + ": expected a number or string");
  const std::string s = j.get<std::string>();
  const bool fl = dtype_is_float(t);
  if (s == "inf" || s == "-inf") {
    if (!fl) bad(where + ": \"" + s + "\" needs a float dtype");
    v.raw = number_bits(s == "inf" ? INFINITY : -INFINITY, t, where);
    return v;
  }
  if (s == "nan") {
    if (!fl) bad(where + ": \"nan\" needs a float dtype");
    if (expect) v.kind = Val::any_nan;
    v.raw = t == DType::f32 ? 0x7FC00000u : (t == DType::f16 ? 0x7E00u : 0x7FC0u);
    return v;
  }
  if (s == "keep") {
    if (!expect) bad(where + ": \"keep\" is for expectations only");
    v.kind = Val::keep;
    return v;
  }
  const uint64_t b = uint_of(j, where, true);
  const uint32_t w = dtype_size(t) * 8;
  if (w < 64 && (b >> w) != 0) bad(where + ": raw bits wider than " + dtype_name(t));
  v.raw = static_cast<uint32_t>(b);
  return v;
}

}  // namespace tilefw::tools::conform
