// Text builders for the `.pto` tests: one module per (instruction, form), with the operands
// each instruction's family takes. Test-only.
#pragma once

#include <string>

#include "pto_text/pto_ir.hpp"

namespace pto_text_test {

using tilefw::tools::pto_text::Form;
using tilefw::tools::pto_text::OpFamily;
using tilefw::tools::pto_text::OpInfo;

inline const std::string kRow =
    "loc=vec, dtype=f32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
inline const std::string kCol =
    "loc=vec, dtype=f32, rows=8, cols=1, v_row=8, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>";
inline const std::string kHalf =
    "loc=vec, dtype=f16, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
inline const std::string kMask =
    "loc=vec, dtype=u8, rows=8, cols=32, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

inline const std::string kIdx =
    "loc=vec, dtype=i32, rows=8, cols=64, v_row=8, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

inline std::string buf(const std::string& keys) { return "!pto.tile_buf<" + keys; }
inline std::string tile(const std::string& keys) { return "!pto.tile<" + keys; }

/// The prologue every module shares: %x, a 8x64 view %pv and the constants.
inline std::string prologue() {
  return "module {\n  func.func @k(%x: !pto.ptr<f32>) {\n"
         "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
         "    %c8 = arith.constant 8 : index\n    %c64 = arith.constant 64 : index\n"
         "    %s = arith.constant 2.5 : f32\n"
         "    %tv = pto.make_tensor_view %x, shape = [%c8, %c64] strides = [%c64, %c1] : !pto.tensor_view<8x64xf32>\n"
         "    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c8, %c64] : !pto.tensor_view<8x64xf32> -> "
         "!pto.partition_tensor_view<8x64xf32>\n";
}

struct Operands {
  std::vector<std::pair<std::string, std::string>> ins;  // (name, tile keys or a type)
  std::pair<std::string, std::string> out;
};

// The operands of `info` at its largest count (the assembly form's implicit tmp left out).
inline Operands operands_of(const OpInfo& info, Form form) {
  const std::string pv = "!pto.partition_tensor_view<8x64xf32>";
  Operands o;
  o.out = {"d", kRow};
  switch (info.family) {
    case OpFamily::binary: o.ins = {{"a", kRow}, {"b", kRow}}; break;
    case OpFamily::rowexpand2: o.ins = {{"a", kRow}, {"v", kCol}, {"t", kRow}}; break;
    case OpFamily::unary: o.ins = {{"a", kRow}}; break;
    case OpFamily::rowexpand: o.ins = {{"v", kCol}, {"t", kRow}}; break;
    case OpFamily::scalar: o.ins = {{"a", kRow}, {"s", "f32"}}; break;
    case OpFamily::expands: o.ins = {{"s", "f32"}}; break;
    case OpFamily::reduce:
      o.ins = {{"a", kRow}};
      if (form != Form::assembly) o.ins.push_back({"t", kRow});
      o.out = {"d", kCol};
      break;
    case OpFamily::colsum: o.ins = {{"a", kRow}, {"t", kRow}}; break;
    case OpFamily::gather:
      o.ins = {{"a", kRow}, {"i", kIdx}};
      if (form != Form::assembly) o.ins.push_back({"t", kIdx});
      break;
    case OpFamily::cvt: o.ins = {{"a", kRow}}, o.out = {"d", kHalf}; break;
    case OpFamily::load: o.ins = {{"pv", pv}}; break;
    case OpFamily::store: o.ins = {{"a", kRow}}, o.out = {"pv", pv}; break;
    case OpFamily::mov: o.ins = {{"a", kRow}}; break;
    case OpFamily::matmul: o.ins = {{"a", kRow}, {"b", kRow}}; break;
    case OpFamily::matmul_acc: o.ins = {{"d", kRow}, {"a", kRow}, {"b", kRow}}; break;
    case OpFamily::matmul_bias: o.ins = {{"a", kRow}, {"b", kRow}, {"z", kRow}}; break;
    case OpFamily::sels: o.ins = {{"a", kRow}, {"b", kRow}, {"c1", "index"}}; break;
    case OpFamily::fillpad:
      o.ins = {{"a", kRow}};
      o.out = {"d", kRow.substr(0, kRow.size() - 2) + "3>"};  // pad=min
      break;
    case OpFamily::cmp: o.ins = {{"a", kRow}, {"b", kRow}}, o.out = {"d", kMask}; break;
    case OpFamily::cmps: o.ins = {{"a", kRow}, {"s", "f32"}}, o.out = {"d", kMask}; break;
    case OpFamily::sel: o.ins = {{"m", kMask}, {"a", kRow}, {"b", kRow}}; break;
  }
  return o;
}

inline bool is_tile(const std::string& t) { return t.rfind("loc=", 0) == 0; }

/// A module holding one statement of `info` in `form` (tiles declared by alloc_tile first).
inline std::string module_for(const OpInfo& info, Form form) {
  const Operands o = operands_of(info, form);
  std::string s = prologue();
  std::vector<std::string> declared;
  auto declare = [&](const std::pair<std::string, std::string>& v) {
    if (!is_tile(v.second)) return;
    for (const std::string& d : declared) {
      if (d == v.first) return;
    }
    declared.push_back(v.first);
    s += "    %" + v.first + " = pto.alloc_tile : " + buf(v.second) + "\n";
  };
  for (const auto& v : o.ins) declare(v);
  const bool store = info.family == OpFamily::store;
  const bool result_form = form != Form::dps && !store;
  if (!result_form && info.family != OpFamily::matmul_acc) declare(o.out);
  const std::string out_name = result_form ? "r" : o.out.first;
  const std::string op = std::string(form == Form::assembly ? "" : "pto.") + info.name;
  const bool cmp = info.family == OpFamily::cmp || info.family == OpFamily::cmps;
  const std::string rmode = info.family == OpFamily::cvt ? " {rmode = #pto<round_mode CAST_FLOOR>}"
                            : !cmp                       ? ""
                            : form == Form::assembly     ? " {cmpMode = #pto.cmp<GT>}"
                                                         : " {cmpMode = #pto<cmp GT>}";
  auto ty = [&](const std::string& t, bool tb) { return is_tile(t) ? (tb ? buf(t) : tile(t)) : t; };
  std::string names, types;
  for (size_t i = 0; i < o.ins.size(); ++i) {
    names += (i ? ", %" : "%") + o.ins[i].first;
    types += (i ? ", " : "") + ty(o.ins[i].second, form == Form::dps);
  }
  if (form == Form::dps) {
    s += "    " + op + " ins(" + names + rmode + " : " + types + ") outs(%" + o.out.first + " : " +
         ty(o.out.second, true) + ")\n";
  } else if (store) {
    s += "    " + op + " %a, %pv : " + tile(kRow) + ", " + o.out.second + "\n";
  } else {
    const std::string sig = o.ins.size() == 1 ? types : "(" + types + ")";
    s += "    %" + out_name + " = " + op + " " + names + rmode + " : " + sig + " -> " + ty(o.out.second, false) + "\n";
  }
  return s + "    return\n  }\n}\n";
}

}  // namespace pto_text_test
