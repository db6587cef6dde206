// The `.pto` parser: a module with one function, its statements in the three instruction forms
// (docs/pto-text.md, "Grammar"). Every value is defined before use, once; every operand's
// written type is the type its value was defined with; operand counts are the instruction's.
// The grammar has no recursion, so no text can nest deeper than one type inside a statement.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "pto_text/pto_ir.hpp"
#include "pto_text/pto_types.hpp"

namespace tilefw::tools::pto_text {

namespace {

const char* const kRoundModes[] = {"CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR",
                                   "CAST_CEIL", "CAST_TRUNC", "CAST_ODD"};

class Parser {
 public:
  explicit Parser(const std::string& text) : ts_(lex(text)) {}

  Module module() {
    Module m;
    ts_.expect_word("module");
    ts_.expect("{");
    ts_.expect_word("func.func");
    const Token name = ts_.take();
    if (name.kind != Tok::symbol) throw TextError(name.pos, "expected the function's @name, found " + describe(name));
    f_.name = name.text;
    arguments();
    ts_.expect("{");
    while (!(ts_.peek().kind == Tok::word && ts_.peek().text == "return")) {
      if (ts_.peek().kind == Tok::end) throw TextError(ts_.peek().pos, "unterminated function: expected 'return'");
      statement();
    }
    ts_.take();
    expect_close("function");
    expect_close("module");
    const Token end = ts_.take();
    if (end.kind != Tok::end) throw TextError(end.pos, "unexpected " + describe(end) + " after the module");
    m.func = std::move(f_);
    return m;
  }

 private:
  void expect_close(const char* what) {
    const Token t = ts_.take();
    if (t.kind == Tok::end) throw TextError(t.pos, std::string("unterminated ") + what + ": expected '}'");
    if (t.kind != Tok::punct || t.text != "}") throw TextError(t.pos, "expected '}', found " + describe(t));
  }

  void arguments() {
    ts_.expect("(");
    if (ts_.accept(")")) return;
    do {
      const Token v = ts_.take();
      if (v.kind != Tok::value) throw TextError(v.pos, "expected an argument %name, found " + describe(v));
      ts_.expect(":");
      const Token at = ts_.peek();
      const Type t = parse_type(ts_);
      if (t.kind != TypeKind::ptr) throw TextError(at.pos, "argument " + describe(v) + " must be a !pto.ptr<...>");
      f_.args.push_back(define(v, t, true));
    } while (ts_.accept(","));
    ts_.expect(")");
  }

  int define(const Token& v, const Type& t, bool is_arg = false) {
    if (names_.count(v.text) != 0) throw TextError(v.pos, "redefinition of " + describe(v));
    names_[v.text] = static_cast<int>(f_.values.size());
    f_.values.push_back(Value{v.text, t, is_arg});
    return static_cast<int>(f_.values.size()) - 1;
  }

  int use(const Token& v) {
    if (v.kind != Tok::value) throw TextError(v.pos, "expected a %value, found " + describe(v));
    const auto it = names_.find(v.text);
    if (it == names_.end()) throw TextError(v.pos, "undefined value " + describe(v));
    return it->second;
  }

  int use_kind(const Token& v, TypeKind k, const char* what) {
    const int i = use(v);
    if (f_.values[i].type.kind != k) throw TextError(v.pos, describe(v) + " is not " + what);
    return i;
  }

  // A constant's integer value (shapes, offsets, addresses).
  uint64_t const_int(const Token& v) {
    const int i = use(v);
    const Stmt* def = nullptr;
    for (const Stmt& s : f_.body) {
      if (s.kind == StmtKind::constant && s.result == i) def = &s;
    }
    const Type& t = f_.values[i].type;
    if (def == nullptr || !(t.kind == TypeKind::index || t.is_i64)) {
      throw TextError(v.pos, describe(v) + " is not an integer arith.constant");
    }
    return std::strtoull(def->literal.c_str(), nullptr, 10);
  }

  void check_type(const Token& v, int value, const Type& written) {
    if (!(f_.values[value].type == written)) {
      throw TextError(v.pos, "type mismatch for " + describe(v) + ": written " + type_text(written, false) +
                                 ", defined as " + type_text(f_.values[value].type, false));
    }
  }

  void statement() {
    const Token first = ts_.take();
    Stmt s;
    s.pos = first.pos;
    if (first.kind == Tok::value) {
      ts_.expect("=");
      const Token op = ts_.take();
      if (op.kind != Tok::word) throw TextError(op.pos, "expected an operation, found " + describe(op));
      if (op.text == "arith.constant") return constant(first, s);
      if (op.text == "pto.make_tensor_view") return tensor_view(first, s);
      if (op.text == "pto.partition_view") return partition_view(first, s);
      if (op.text == "pto.alloc_tile") return alloc_tile(first, s);
      const bool ssa = op.text.rfind("pto.", 0) == 0;
      return instruction(op, ssa ? Form::ssa : Form::assembly, &first, s);
    }
    if (first.kind != Tok::word) throw TextError(first.pos, "expected a statement, found " + describe(first));
    if (first.text == "pto.tassign") return tassign(s);
    if (first.text.rfind("pto.", 0) == 0 && ts_.peek().kind == Tok::word && ts_.peek().text == "ins") {
      return instruction(first, Form::dps, nullptr, s);
    }
    const bool ssa = first.text.rfind("pto.", 0) == 0;
    instruction(first, ssa ? Form::ssa : Form::assembly, nullptr, s);
  }

  void constant(const Token& res, Stmt& s) {
    s.kind = StmtKind::constant;
    const Token lit = ts_.take();
    ts_.expect(":");
    const Token at = ts_.peek();
    const Type t = parse_type(ts_);
    if (t.kind != TypeKind::index && t.kind != TypeKind::scalar) throw TextError(at.pos, "arith.constant takes a scalar type");
    const bool is_float = t.kind == TypeKind::scalar && !t.is_i64 &&
                          (t.dtype == DType::f32 || t.dtype == DType::f16 || t.dtype == DType::bf16);
    if (lit.kind != Tok::word) throw TextError(lit.pos, "expected a literal, found " + describe(lit));
    if (is_float) {
      errno = 0;
      char* end = nullptr;
      const double d = std::strtod(lit.text.c_str(), &end);
      if (end == lit.text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(d) ||
          lit.text.find_first_of("xXpP") != std::string::npos) {
        throw TextError(lit.pos, "bad float literal " + describe(lit));
      }
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      s.literal = buf;
      if (s.literal.find_first_of(".en") == std::string::npos) s.literal += ".0";
    } else {
      const bool neg = !lit.text.empty() && lit.text[0] == '-';
      const uint64_t v = parse_u64(Token{lit.kind, neg ? lit.text.substr(1) : lit.text, lit.pos}, "the constant");
      if (neg && t.kind == TypeKind::index) throw TextError(lit.pos, "a negative index constant " + describe(lit));
      s.literal = (neg && v != 0 ? "-" : "") + std::to_string(v);
    }
    s.out_types.push_back(t);
    s.result = define(res, t);
    f_.body.push_back(s);
  }

  void int_list(Stmt& s) {
    ts_.expect("[");
    for (int i = 0; i < 2; ++i) {
      if (i != 0) ts_.expect(",");
      const Token v = ts_.take();
      const_int(v);
      s.ins.push_back(use(v));
    }
    const Token t = ts_.take();
    if (t.kind != Tok::punct || t.text != "]") throw TextError(t.pos, "expected ']' after two entries (views are 2-D), found " + describe(t));
  }

  void tensor_view(const Token& res, Stmt& s) {
    s.kind = StmtKind::make_tensor_view;
    s.ins.push_back(use_kind(ts_.take(), TypeKind::ptr, "a !pto.ptr"));
    ts_.expect(",");
    ts_.expect_word("shape");
    ts_.expect("=");
    int_list(s);
    ts_.accept(",");
    ts_.expect_word("strides");
    ts_.expect("=");
    int_list(s);
    ts_.expect(":");
    const Token at = ts_.peek();
    const Type t = parse_type(ts_);
    const Type& ptr = f_.values[s.ins[0]].type;
    if (t.kind != TypeKind::tensor_view || t.dtype != ptr.dtype) {
      throw TextError(at.pos, "make_tensor_view's type must be a !pto.tensor_view of the pointer's element type");
    }
    if (const_int_of(s.ins[1]) != t.rows || const_int_of(s.ins[2]) != t.cols || const_int_of(s.ins[4]) != 1 ||
        const_int_of(s.ins[3]) < t.cols) {
      throw TextError(at.pos, "make_tensor_view: shape must equal the type's, strides [row >= cols, 1]");
    }
    s.out_types.push_back(t);
    s.result = define(res, t);
    f_.body.push_back(s);
  }

  uint64_t const_int_of(int value) const {
    for (const Stmt& s : f_.body) {
      if (s.kind == StmtKind::constant && s.result == value) return std::strtoull(s.literal.c_str(), nullptr, 10);
    }
    return 0;
  }

  void partition_view(const Token& res, Stmt& s) {
    s.kind = StmtKind::partition_view;
    const Token src = ts_.take();
    s.ins.push_back(use_kind(src, TypeKind::tensor_view, "a !pto.tensor_view"));
    ts_.expect(",");
    ts_.expect_word("offsets");
    ts_.expect("=");
    int_list(s);
    ts_.expect(",");
    ts_.expect_word("sizes");
    ts_.expect("=");
    int_list(s);
    ts_.expect(":");
    s.in_types.push_back(parse_type(ts_));
    check_type(src, s.ins[0], s.in_types[0]);
    ts_.expect("->");
    const Token at = ts_.peek();
    const Type t = parse_type(ts_);
    const Type& tv = s.in_types[0];
    const uint64_t r0 = const_int_of(s.ins[1]), c0 = const_int_of(s.ins[2]);
    if (t.kind != TypeKind::partition_view || t.dtype != tv.dtype || t.rows != const_int_of(s.ins[3]) ||
        t.cols != const_int_of(s.ins[4]) || r0 > tv.rows || c0 > tv.cols || r0 + t.rows > tv.rows ||
        c0 + t.cols > tv.cols) {
      throw TextError(at.pos, "partition_view: the result must be a !pto.partition_tensor_view of the sizes, inside the view");
    }
    s.out_types.push_back(t);
    s.result = define(res, t);
    f_.body.push_back(s);
  }

  void alloc_tile(const Token& res, Stmt& s) {
    s.kind = StmtKind::alloc_tile;
    if (ts_.peek().kind == Tok::word && ts_.peek().text == "addr") {
      ts_.take();
      ts_.expect("=");
      const Token c = ts_.take();
      s.addr = const_int(c);
      s.addr_value = use(c);
    }
    ts_.expect(":");
    const Token at = ts_.peek();
    const Type t = parse_type(ts_);
    if (t.kind != TypeKind::tile) throw TextError(at.pos, "alloc_tile's type must be a tile type");
    s.out_types.push_back(t);
    s.result = define(res, t);
    f_.body.push_back(s);
  }

  void tassign(Stmt& s) {
    s.kind = StmtKind::tassign;
    const Token t = ts_.take();
    s.ins.push_back(use_kind(t, TypeKind::tile, "a tile"));
    ts_.expect(",");
    const Token a = ts_.take();
    if (a.kind == Tok::symbol && a.text == "tile") {
      ts_.expect("(");
      s.addr = parse_u64(ts_.take(), "the tile address");
      ts_.expect(")");
    } else if (a.kind == Tok::value) {
      s.addr = const_int(a);
      s.addr_value = use(a);
    } else {
      throw TextError(a.pos, "expected @tile(ADDRESS) or an address constant, found " + describe(a));
    }
    if (ts_.accept(":")) {
      s.in_types.push_back(parse_type(ts_));
      check_type(t, s.ins[0], s.in_types[0]);
    }
    f_.body.push_back(s);
  }

  // {cmpMode = #pto<cmp EQ>} (IR levels) or {cmpMode = #pto.cmp<EQ>} (PTO-AS), in every form;
  // EQ when absent.
  void cmp_attr(Stmt& s) {
    s.cmp = "EQ";
    if (!ts_.accept("{")) return;
    ts_.expect_word("cmpMode");
    ts_.expect("=");
    const Token h = ts_.take();
    if (h.kind == Tok::word && h.text == "#pto.cmp") {
      ts_.expect("<");
    } else if (h.kind == Tok::word && h.text == "#pto") {
      ts_.expect("<");
      ts_.expect_word("cmp");
    } else {
      throw TextError(h.pos, "expected #pto<cmp MODE> or #pto.cmp<MODE>, found " + describe(h));
    }
    const Token m = ts_.take();
    s.cmp.clear();
    for (const char* c : {"EQ", "NE", "LT", "GT", "GE", "LE"}) {
      if (m.kind == Tok::word && m.text == c) s.cmp = c;
    }
    if (s.cmp.empty()) throw TextError(m.pos, "unknown compare mode " + describe(m) + " (EQ NE LT GT GE LE)");
    ts_.expect(">");
    ts_.expect("}");
  }

  void round_attr(Stmt& s) {
    if (!ts_.accept("{")) return;
    ts_.expect_word("rmode");
    ts_.expect("=");
    ts_.expect_word("#pto");
    ts_.expect("<");
    ts_.expect_word("round_mode");
    const Token m = ts_.take();
    for (const char* r : kRoundModes) {
      if (m.kind == Tok::word && (m.text == r || m.text == r + 5)) s.round = r;
    }
    if (s.round.empty()) throw TextError(m.pos, "unknown rounding mode " + describe(m));
    ts_.expect(">");
    ts_.expect("}");
  }

  std::vector<Token> operand_tokens() {
    std::vector<Token> v;
    if (ts_.peek().kind != Tok::value) return v;
    do {
      v.push_back(ts_.take());
    } while (ts_.accept(","));
    return v;
  }

  std::vector<Type> type_list(bool parenthesised) {
    std::vector<Type> v;
    if (parenthesised && ts_.accept(")")) return v;
    do {
      v.push_back(parse_type(ts_));
    } while (ts_.accept(","));
    if (parenthesised) ts_.expect(")");
    return v;
  }

  void bind(const std::vector<Token>& toks, const std::vector<Type>& types, const Token& at, std::vector<int>& out) {
    if (toks.size() != types.size()) {
      throw TextError(at.pos, std::to_string(toks.size()) + " operands but " + std::to_string(types.size()) + " types");
    }
    for (size_t i = 0; i < toks.size(); ++i) {
      out.push_back(use(toks[i]));
      check_type(toks[i], out.back(), types[i]);
    }
  }

  const OpInfo& op_info(const Token& op, Form form, std::string& mnemonic) {
    mnemonic = form == Form::assembly ? op.text : op.text.substr(op.text.rfind("pto.", 0) == 0 ? 4 : 0);
    const OpInfo* info = find_op(mnemonic);
    if (info == nullptr || (form == Form::assembly && op.text.rfind("pto.", 0) == 0)) {
      throw TextError(op.pos, "unknown operation " + describe(op));
    }
    return *info;
  }

  void instruction(const Token& op, Form form, const Token* res, Stmt& s) {
    s.kind = StmtKind::instr;
    s.form = form;
    const OpInfo& info = op_info(op, form, s.op);
    const bool store = info.family == OpFamily::store;
    if (form == Form::dps) {
      ts_.expect_word("ins");
      ts_.expect("(");
      const std::vector<Token> in = operand_tokens();
      if (info.family == OpFamily::cvt) round_attr(s);
      if (info.family == OpFamily::cmp || info.family == OpFamily::cmps) cmp_attr(s);
      if (!in.empty()) ts_.expect(":");
      s.in_types = in.empty() ? std::vector<Type>{} : type_list(false);
      bind(in, s.in_types, op, s.ins);
      ts_.expect(")");
      ts_.expect_word("outs");
      ts_.expect("(");
      const std::vector<Token> out = operand_tokens();
      ts_.expect(":");
      s.out_types = type_list(false);
      bind(out, s.out_types, op, s.outs);
      ts_.expect(")");
      if (s.outs.size() != 1) throw TextError(op.pos, "wrong operand count for " + describe(op) + ": outs takes one operand");
    } else {
      const std::vector<Token> in = operand_tokens();
      if (info.family == OpFamily::cvt) round_attr(s);
      if (info.family == OpFamily::cmp || info.family == OpFamily::cmps) cmp_attr(s);
      ts_.expect(":");
      s.in_types = type_list(ts_.accept("("));
      bind(in, s.in_types, op, s.ins);
      if (store) {
        if (res != nullptr) throw TextError(res->pos, describe(op) + " has no result");
        if (s.ins.size() != 2) throw TextError(op.pos, "wrong operand count for " + describe(op) + ": expected 2 (tile, view)");
        s.outs.push_back(s.ins[1]);
        s.out_types.push_back(s.in_types[1]);
        s.ins.pop_back();
        s.in_types.pop_back();
      } else {
        if (res == nullptr) throw TextError(op.pos, describe(op) + " needs a %result (or the ins/outs form)");
        ts_.expect("->");
        s.out_types.push_back(parse_type(ts_));
        s.result = define(*res, s.out_types[0]);
      }
    }
    if (info.family == OpFamily::cvt && s.round.empty()) s.round = "CAST_RINT";
    const size_t implicit = form == Form::assembly && implicit_tmp(info.family) ? 1 : 0;
    const size_t n = s.ins.size() + implicit;
    if (n < info.min_ins || n > info.max_ins) {
      const std::string want = info.min_ins == info.max_ins ? std::to_string(info.min_ins - implicit)
                                                            : std::to_string(info.min_ins) + " to " + std::to_string(info.max_ins);
      throw TextError(op.pos, "wrong operand count for " + describe(op) + ": " + std::to_string(s.ins.size()) +
                                  " operands, expected " + want);
    }
    check_kinds(op, info, s);
    f_.body.push_back(s);
  }

  // Operand kinds and element types (the planner checks shapes when the kernel runs).
  void check_kinds(const Token& op, const OpInfo& info, const Stmt& s) {
    const Type& dst = s.out_types[0];
    auto fail = [&](const std::string& why) { throw TextError(op.pos, "type mismatch in " + describe(op) + ": " + why); };
    if (info.family == OpFamily::load) {
      const Type& v = s.in_types[0];
      if (v.kind != TypeKind::partition_view || dst.kind != TypeKind::tile) fail("tload takes a partition view into a tile");
      if (v.dtype != dst.dtype) fail("the view's and the tile's element types differ");
      return;
    }
    if (info.family == OpFamily::store) {
      const Type& t = s.in_types[0];
      if (t.kind != TypeKind::tile || dst.kind != TypeKind::partition_view) fail("tstore takes a tile into a partition view");
      if (t.tile.loc == tile::TileType::Vec && t.dtype != dst.dtype) fail("the tile's and the view's element types differ");
      return;
    }
    if (dst.kind != TypeKind::tile) fail("the destination must be a tile");
    if (info.family == OpFamily::cmp || info.family == OpFamily::cmps || info.family == OpFamily::sel) {
      return check_compare(info, s, fail);
    }
    const bool has_scalar = info.family == OpFamily::scalar || info.family == OpFamily::expands ||
                            info.family == OpFamily::sels;
    for (size_t i = 0; i < s.in_types.size(); ++i) {
      const Type& t = s.in_types[i];
      const bool scalar_slot = has_scalar && i + 1 == s.in_types.size();
      if (scalar_slot && info.family == OpFamily::sels) {
        const bool integer = t.kind == TypeKind::index || (t.kind == TypeKind::scalar && (t.is_i64 || !dtype_is_float(t.dtype)));
        if (!integer) fail("tsels's selectMode must be an integer scalar");
        continue;
      }
      if (scalar_slot) {
        if (t.kind != TypeKind::scalar || t.is_i64 || t.dtype != dst.dtype) fail("the scalar must be of the tile's element type");
        continue;
      }
      if (t.kind != TypeKind::tile) fail("operand " + std::to_string(i + 1) + " must be a tile");
      // tgather: its source has dst's type; the indices and tmp are i32 or u32 (checked when it runs).
      const bool same_type = info.family != OpFamily::cvt && info.family != OpFamily::fillpad && info.family != OpFamily::mov &&
                             info.family != OpFamily::matmul && info.family != OpFamily::matmul_acc &&
                             info.family != OpFamily::matmul_bias && (info.family != OpFamily::gather || i == 0);
      if (same_type && t.dtype != dst.dtype) fail("operand " + std::to_string(i + 1) + " is " + dtype_spelling(t.dtype) +
                                                   ", the destination " + dtype_spelling(dst.dtype));
    }
  }

  // tcmp (tiles of one type into a u8 predicate), tcmps (a tile and a scalar of its type), tsel
  // (a u8 predicate, then two tiles of the destination's type).
  template <class Fail>
  static void check_compare(const OpInfo& info, const Stmt& s, const Fail& fail) {
    const Type& dst = s.out_types[0];
    const bool sel = info.family == OpFamily::sel;
    if (!sel && dst.dtype != DType::u8) fail("the destination is a u8 predicate tile");
    for (size_t i = 0; i < s.in_types.size(); ++i) {
      const Type& t = s.in_types[i];
      if (info.family == OpFamily::cmps && i == 1) {
        if (t.kind != TypeKind::scalar || t.is_i64 || t.dtype != s.in_types[0].dtype) {
          fail("the scalar must be of the source's element type");
        }
        continue;
      }
      if (t.kind != TypeKind::tile) fail("operand " + std::to_string(i + 1) + " must be a tile");
      const DType want = sel ? (i == 0 ? DType::u8 : dst.dtype) : s.in_types[0].dtype;
      if (t.dtype != want) {
        fail("operand " + std::to_string(i + 1) + " is " + dtype_spelling(t.dtype) + ", expected " + dtype_spelling(want));
      }
    }
  }

  TokenStream ts_;
  Function f_;
  std::map<std::string, int> names_;
};

}  // namespace

Module parse(const std::string& text) { return Parser(text).module(); }

}  // namespace tilefw::tools::pto_text
