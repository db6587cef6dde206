// Parsing of `tilefw cycles` case files (see cycles_case.hpp).
#include "cycles/cycles_case.hpp"

#include <nlohmann/json.hpp>
#include <set>

namespace tilefw::tools::cycles {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& id, const std::string& key, const std::string& what) {
  throw CaseError("case " + id + ": " + key + ": " + what);
}

const json& need(const json& o, const char* key, const std::string& id, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) fail(id, where + key, "missing");
  return *it;
}

std::string need_str(const json& o, const char* key, const std::string& id, const std::string& where) {
  const json& j = need(o, key, id, where);
  if (!j.is_string()) fail(id, where + key, "expected a string");
  return j.get<std::string>();
}

uint32_t need_u32(const json& o, const char* key, const std::string& id, const std::string& where) {
  const json& j = need(o, key, id, where);
  if (!j.is_number_unsigned() || j.get<uint64_t>() > 0xFFFFu) fail(id, where + key, "expected an integer 0..65535");
  return static_cast<uint32_t>(j.get<uint64_t>());
}

DType dtype_named(const std::string& s, const std::string& id, const std::string& key) {
  static constexpr struct {
    const char* name;
    DType dt;
  } kNames[] = {{"f32", DType::f32}, {"f16", DType::f16}, {"bf16", DType::bf16}, {"i32", DType::i32},
                {"i16", DType::i16}, {"i8", DType::i8},   {"u8", DType::u8},     {"u16", DType::u16},
                {"u32", DType::u32}};
  for (const auto& n : kNames) {
    if (s == n.name) return n.dt;
  }
  fail(id, key, "unknown dtype \"" + s + "\"");
}

Operand operand_of(const json& o, size_t k, const std::string& id) {
  const std::string w = "operands[" + std::to_string(k) + "].";
  if (!o.is_object()) fail(id, "operands[" + std::to_string(k) + "]", "expected an object");
  Operand op;
  op.role = need_str(o, "role", id, w);
  op.space = need_str(o, "space", id, w);
  if (op.space != "UB" && op.space != "GM") fail(id, w + "space", "expected \"UB\" or \"GM\"");
  op.rows = need_u32(o, "rows", id, w);
  op.cols = need_u32(o, "cols", id, w);
  if (op.rows == 0) fail(id, w + "rows", "a tile has at least one row");
  if (op.cols == 0) fail(id, w + "cols", "a tile has at least one column");
  op.layout = need_str(o, "layout", id, w);
  op.dtype = dtype_named(need_str(o, "dtype", id, w), id, w + "dtype");
  if (op.space == "UB") {
    op.valid_rows = need_u32(o, "valid_rows", id, w);
    op.valid_cols = need_u32(o, "valid_cols", id, w);
    if (op.valid_rows > op.rows) fail(id, w + "valid_rows", "valid region exceeds the tile's rows");
    if (op.valid_cols > op.cols) fail(id, w + "valid_cols", "valid region exceeds the tile's cols");
    const json& off = need(o, "ub_offset", id, w);
    if (!off.is_number_unsigned() || off.get<uint64_t>() >= (uint64_t{192} << 10)) {
      fail(id, w + "ub_offset", "expected an offset inside UB (0..196607)");
    }
    op.ub_offset = off.get<uint64_t>();
    // The tile lies inside UB (192 KiB): this also bounds the issues a case can take.
    const uint64_t bytes = uint64_t{op.rows} * op.cols * dtype_size(op.dtype);
    if (op.ub_offset + bytes > (uint64_t{192} << 10)) fail(id, w + "ub_offset", "the tile runs past the end of UB");
    if (op.layout != "row_major" && op.layout != "col_major") fail(id, w + "layout", "expected row_major or col_major");
  } else {
    op.valid_rows = op.rows;
    op.valid_cols = op.cols;
    if (uint64_t{op.rows} * op.cols * dtype_size(op.dtype) > (uint64_t{16} << 20)) {
      fail(id, w + "rows", "a GM operand of more than 16 MiB");
    }
  }
  return op;
}

CycleCase case_of(const json& c, size_t index) {
  std::string id = "#" + std::to_string(index);
  if (!c.is_object()) fail(id, "case", "expected an object");
  auto it = c.find("id");
  if (it == c.end() || !it->is_string() || it->get<std::string>().empty()) fail(id, "id", "missing or not a string");
  CycleCase k;
  k.id = it->get<std::string>();
  id = k.id;
  k.instruction = need_str(c, "instruction", id, "");
  k.dtype = dtype_named(need_str(c, "dtype", id, ""), id, "dtype");
  const json& ops = need(c, "operands", id, "");
  if (!ops.is_array() || ops.empty()) fail(id, "operands", "expected a non-empty list");
  for (size_t i = 0; i < ops.size(); ++i) k.operands.push_back(operand_of(ops[i], i, id));
  if (auto p = c.find("profiled_cycles"); p != c.end() && !p->is_null()) {
    if (!p->is_number() || p->get<double>() <= 0) fail(id, "profiled_cycles", "expected a positive number");
    k.profiled = p->get<double>();
  }
  // The scalar's value never changes the cycles; it is checked so a typo is not silently taken.
  if (auto p = c.find("scalar"); p != c.end() && !p->is_null() && !p->is_number()) {
    fail(id, "scalar", "expected a number or null");
  }
  if (auto p = c.find("params"); p != c.end() && !p->is_null()) {
    if (!p->is_object()) fail(id, "params", "expected an object");
    if (auto b = p->find("is_binary"); b != p->end()) {
      if (!b->is_boolean()) fail(id, "params.is_binary", "expected true or false");
      k.is_binary = b->get<bool>();
    }
    if (auto s = p->find("src_dtype"); s != p->end()) {
      if (!s->is_string()) fail(id, "params.src_dtype", "expected a string");
      k.src_dtype = dtype_named(s->get<std::string>(), id, "params.src_dtype");
    }
  }
  if (k.find("dst") == nullptr) fail(id, "operands", "no operand with role \"dst\"");
  return k;
}

}  // namespace

const Operand* CycleCase::find(const std::string& role) const noexcept {
  for (const Operand& o : operands) {
    if (o.role == role) return &o;
  }
  return nullptr;
}

std::vector<CycleCase> parse_cases(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw CaseError(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_array()) throw CaseError("the case file must be a JSON list of cases");
  std::vector<CycleCase> out;
  std::set<std::string> ids;  // results are reported by id: one id, one case
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(case_of(j[i], i));
    if (!ids.insert(out.back().id).second) fail(out.back().id, "id", "duplicate");
  }
  return out;
}

}  // namespace tilefw::tools::cycles
