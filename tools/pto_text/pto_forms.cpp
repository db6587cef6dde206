// Rewriting a `.pto` program's instructions into one form (`tilefw pto print --form`). DPS to
// SSA or assembly: each destination written becomes a new value (later uses renamed), so the
// result is a new tile placed by Auto mode; SSA or assembly to DPS: each result gets an
// `alloc_tile` just before its instruction (and the assembly form's implicit tmp one of its
// source's type). Values, not placements, are kept: the bits a kernel computes are the same.
#include <map>
#include <set>
#include <string>

#include "pto_text/pto_ir.hpp"

namespace tilefw::tools::pto_text {

namespace {

class Rewriter {
 public:
  explicit Rewriter(const Module& m) : m_(m) {
    for (const Value& v : m_.func.values) names_.insert(v.name);
  }

  Module run(Form to) {
    Function& f = m_.func;
    std::vector<Stmt> body;
    for (Stmt s : f.body) {
      for (int& v : s.ins) v = renamed(v);
      for (int& v : s.outs) v = renamed(v);
      if (s.addr_value >= 0) s.addr_value = renamed(s.addr_value);
      if (s.kind == StmtKind::instr && s.form != to) {
        const OpInfo& info = *find_op(s.op);
        if (to == Form::dps) {
          to_dps(s, info, body);
        } else {
          to_result_form(s, info, to, body);
        }
      }
      body.push_back(s);
    }
    f.body = std::move(body);
    return m_;
  }

 private:
  // The latest name of `v` (a value renamed twice is followed through both).
  int renamed(int v) const {
    for (auto it = rename_.find(v); it != rename_.end(); it = rename_.find(v)) v = it->second;
    return v;
  }

  int fresh(std::string base, const Type& t) {  // base by value: values grows below
    std::string name = base;
    for (int i = 1; names_.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
    names_.insert(name);
    m_.func.values.push_back(Value{name, t, false});
    const int v = static_cast<int>(m_.func.values.size()) - 1;
    base_[v] = base;  // a later version of it counts on: y, y_1, y_2
    return v;
  }

  static Stmt alloc(int value, const Type& t, Pos pos) {
    Stmt a;
    a.kind = StmtKind::alloc_tile;
    a.result = value;
    a.out_types = {t};
    a.pos = pos;
    return a;
  }

  // The assembly form's implicit tmp made explicit: an alloc_tile of the type the runner gives it.
  void add_tmp(Stmt& s, std::vector<Stmt>& body) {
    const Type t = implicit_tmp_type(s.op, s.in_types.back());
    const int tmp = fresh(m_.func.values[s.ins[0]].name + "_tmp", t);
    body.push_back(alloc(tmp, t, s.pos));
    s.ins.push_back(tmp);
    s.in_types.push_back(t);
  }

  void to_dps(Stmt& s, const OpInfo& info, std::vector<Stmt>& body) {
    if (s.form == Form::assembly && implicit_tmp(info.family)) add_tmp(s, body);
    if (s.result >= 0) {
      if (info.family == OpFamily::matmul_acc) {
        rename_[s.result] = s.ins[0];  // accumulates in place: the result is c_in
        s.outs = {s.ins[0]};
      } else {
        body.push_back(alloc(s.result, s.out_types[0], s.pos));
        s.outs = {s.result};
      }
      s.result = -1;
    }
    s.form = Form::dps;
  }

  void to_result_form(Stmt& s, const OpInfo& info, Form to, std::vector<Stmt>& body) {
    if (s.form == Form::dps && info.family != OpFamily::store) {
      const int d = s.outs[0];
      const auto b = base_.find(d);
      s.result = fresh(b != base_.end() ? b->second : m_.func.values[d].name, s.out_types[0]);
      rename_[d] = s.result;
      s.outs.clear();
    }
    if (to == Form::assembly && implicit_tmp(info.family) && s.ins.size() == info.max_ins) {
      s.ins.pop_back();  // the assembly form's tmp is implicit
      s.in_types.pop_back();
    } else if (to == Form::ssa && s.form == Form::assembly && implicit_tmp(info.family)) {
      add_tmp(s, body);
    }
    s.form = to;
  }

  Module m_;
  std::set<std::string> names_;
  std::map<int, int> rename_;
  std::map<int, std::string> base_;
};

}  // namespace

Module with_form(const Module& m, Form to) { return Rewriter(m).run(to); }

}  // namespace tilefw::tools::pto_text
