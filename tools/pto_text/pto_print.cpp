// The canonical text of a `.pto` program (docs/pto-text.md, "Canonical text"): two-space
// indentation, one statement a line, each instruction in the form it was written, tiles as
// `!pto.tile_buf<...>` in the DPS form, alloc_tile and tassign and as `!pto.tile<...>` in the SSA
// and assembly forms, every tile key written out. parse(print(p)) == p.
#include <cstdio>
#include <string>

#include "pto_text/pto_ir.hpp"
#include "pto_text/pto_types.hpp"

namespace tilefw::tools::pto_text {

namespace {

class Printer {
 public:
  explicit Printer(const Function& f) : f_(f) {}

  std::string run() {
    out_ = "module {\n  func.func @" + f_.name + "(";
    for (size_t i = 0; i < f_.args.size(); ++i) {
      if (i != 0) out_ += ", ";
      out_ += v(f_.args[i]) + ": " + type_text(f_.values[f_.args[i]].type, true);
    }
    out_ += ") {\n";
    for (const Stmt& s : f_.body) {
      out_ += "    ";
      statement(s);
      out_ += "\n";
    }
    out_ += "    return\n  }\n}\n";
    return out_;
  }

 private:
  std::string v(int i) const { return "%" + f_.values[i].name; }

  std::string list(const std::vector<int>& vals, size_t from, size_t n) const {
    std::string s;
    for (size_t i = from; i < from + n; ++i) s += (i != from ? ", " : "") + v(vals[i]);
    return s;
  }

  std::string types(const std::vector<Type>& ts, bool tile_buf) const {
    std::string s;
    for (size_t i = 0; i < ts.size(); ++i) s += (i != 0 ? ", " : "") + type_text(ts[i], tile_buf);
    return s;
  }

  std::string round(const Stmt& s) const {
    if (!s.cmp.empty()) {  // PTO-AS spells the mode #pto.cmp<EQ>, the IR levels #pto<cmp EQ>
      return s.form == Form::assembly ? " {cmpMode = #pto.cmp<" + s.cmp + ">}" : " {cmpMode = #pto<cmp " + s.cmp + ">}";
    }
    return s.round.empty() ? std::string() : " {rmode = #pto<round_mode " + s.round + ">}";
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::constant:
        out_ += v(s.result) + " = arith.constant " + s.literal + " : " + type_text(s.out_types[0], true);
        return;
      case StmtKind::make_tensor_view:
        out_ += v(s.result) + " = pto.make_tensor_view " + v(s.ins[0]) + ", shape = [" + list(s.ins, 1, 2) +
                "] strides = [" + list(s.ins, 3, 2) + "] : " + type_text(s.out_types[0], true);
        return;
      case StmtKind::partition_view:
        out_ += v(s.result) + " = pto.partition_view " + v(s.ins[0]) + ", offsets = [" + list(s.ins, 1, 2) +
                "], sizes = [" + list(s.ins, 3, 2) + "] : " + type_text(s.in_types[0], true) + " -> " +
                type_text(s.out_types[0], true);
        return;
      case StmtKind::alloc_tile:
        out_ += v(s.result) + " = pto.alloc_tile " + (s.addr_value >= 0 ? "addr = " + v(s.addr_value) + " " : "") +
                ": " + type_text(s.out_types[0], true);
        return;
      case StmtKind::tassign: {
        char addr[32];
        std::snprintf(addr, sizeof addr, "@tile(0x%llx)", static_cast<unsigned long long>(s.addr));
        out_ += "pto.tassign " + v(s.ins[0]) + ", " + (s.addr_value >= 0 ? v(s.addr_value) : std::string(addr));
        if (!s.in_types.empty()) out_ += " : " + type_text(s.in_types[0], true);
        return;
      }
      case StmtKind::instr: instruction(s); return;
    }
  }

  void instruction(const Stmt& s) {
    if (s.form == Form::dps) {
      out_ += "pto." + s.op + " ins(" + list(s.ins, 0, s.ins.size()) + round(s);
      if (!s.ins.empty()) out_ += " : " + types(s.in_types, true);
      out_ += ") outs(" + list(s.outs, 0, s.outs.size()) + " : " + types(s.out_types, true) + ")";
      return;
    }
    const std::string name = (s.form == Form::ssa ? "pto." : "") + s.op;
    if (s.result < 0) {  // tstore: tile, view
      out_ += name + " " + v(s.ins[0]) + ", " + v(s.outs[0]) + " : " + type_text(s.in_types[0], false) + ", " +
              type_text(s.out_types[0], false);
      return;
    }
    out_ += v(s.result) + " = " + name + " " + list(s.ins, 0, s.ins.size()) + round(s) + " : ";
    const std::string in = types(s.in_types, false);
    out_ += (s.in_types.size() == 1 ? in : "(" + in + ")") + " -> " + type_text(s.out_types[0], false);
  }

  const Function& f_;
  std::string out_;
};

}  // namespace

std::string print(const Module& m) { return Printer(m.func).run(); }

}  // namespace tilefw::tools::pto_text
