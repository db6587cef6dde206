// A `.pto` text kernel as a program (docs/pto-text.md): one function of a module, its pointer
// arguments, constants, GM views, tiles and instructions in source order. The parser
// (pto_parse.cpp) builds it, the printer (pto_print.cpp) writes it back in canonical text and
// the runner (pto_exec.cpp) executes it on the simulator. Host-only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefw/base/dtype.hpp"
#include "tilefw/tile/tile.hpp"

namespace tilefw::tools::pto_text {

/// A position in the text (1-based), for messages.
struct Pos {
  uint32_t line = 1;
  uint32_t column = 1;
  friend bool operator==(const Pos&, const Pos&) = default;
};

/// Bad text: `message` names the token; what() is "line:column: message".
class TextError : public std::runtime_error {
 public:
  TextError(Pos p, const std::string& message);
  Pos pos;
  std::string message;
};

enum class TypeKind : uint8_t { none, index, scalar, ptr, tensor_view, partition_view, tile };

/// The tile type's keys (`!pto.tile_buf<...>` and `!pto.tile<...>` are the same type).
struct TileShape {
  tile::TileType loc = tile::TileType::Vec;
  uint32_t rows = 0;
  uint32_t cols = 0;
  uint32_t v_row = 0;
  uint32_t v_col = 0;
  tile::BLayout blayout = tile::BLayout::RowMajor;
  tile::SLayout slayout = tile::SLayout::NoneBox;
  uint32_t fractal = 512;
  uint32_t pad = 0;
  friend bool operator==(const TileShape&, const TileShape&) = default;
};

struct Type {
  TypeKind kind = TypeKind::none;
  DType dtype = DType::f32;  // element type (scalar, ptr, views, tile)
  bool is_i64 = false;       // scalar: i64 (an address constant), else dtype
  uint32_t rows = 0;         // views: the 2-D shape
  uint32_t cols = 0;
  TileShape tile{};
  friend bool operator==(const Type&, const Type&) = default;
};

/// How an instruction statement is written.
enum class Form : uint8_t { assembly, ssa, dps };

enum class StmtKind : uint8_t { constant, make_tensor_view, partition_view, alloc_tile, tassign, instr };

/// One statement. Operands and results index Function::values.
struct Stmt {
  StmtKind kind = StmtKind::instr;
  Form form = Form::dps;
  std::string op;                 // instruction mnemonic without `pto.` (tadd, trowsum, ...)
  std::vector<int> ins;           // operands (for DPS the ins, for SSA/assembly all operands)
  std::vector<int> outs;          // DPS outs
  int result = -1;                // SSA / assembly result, constant, view, alloc_tile
  std::vector<Type> in_types;     // as written in the signature
  std::vector<Type> out_types;    // result or outs types
  std::string literal;            // constant: the literal as a canonical string
  uint64_t addr = 0;              // tassign @tile(addr)
  int addr_value = -1;            // alloc_tile addr = %c
  std::string round;              // tcvt: CAST_RINT ...
  std::string cmp;                // tcmp, tcmps: EQ NE LT GT GE LE
  Pos pos{};
  friend bool operator==(const Stmt& a, const Stmt& b) {
    return a.kind == b.kind && a.form == b.form && a.op == b.op && a.ins == b.ins && a.outs == b.outs &&
           a.result == b.result && a.in_types == b.in_types && a.out_types == b.out_types &&
           a.literal == b.literal && a.addr == b.addr && a.addr_value == b.addr_value && a.round == b.round && a.cmp == b.cmp;
  }
};

struct Value {
  std::string name;  // without '%'
  Type type{};
  bool is_arg = false;
  friend bool operator==(const Value&, const Value&) = default;
};

struct Function {
  std::string name;  // without '@'
  std::vector<int> args;
  std::vector<Value> values;
  std::vector<Stmt> body;
  friend bool operator==(const Function&, const Function&) = default;
};

struct Module {
  Function func;
  friend bool operator==(const Module&, const Module&) = default;
};

/// Operand families of the instructions (pto_ops.cpp).
enum class OpFamily : uint8_t {
  binary,     // ins(src0, src1)
  rowexpand2, // ins(src0, src1 [, tmp])
  unary,      // ins(src)
  rowexpand,  // ins(src [, tmp])
  scalar,     // ins(src, scalar)
  expands,    // ins(scalar)
  reduce,     // ins(src, tmp); the assembly form's tmp is implicit
  colsum,     // ins(src [, tmp])
  cvt,        // ins(src) {round}
  load,       // ins(view) outs(tile)
  store,      // ins(tile) outs(view)
  mov,        // ins(tile) outs(tile)
  matmul,     // ins(a, b)
  matmul_acc, // ins(c_in, a, b)
  matmul_bias, // ins(a, b, bias)
  gather,     // ins(src, indices, tmp); the assembly form's tmp is implicit
  sels,       // ins(src0, src1, selectMode): an integer scalar
  fillpad,    // ins(src); the pad is the destination type's `pad`
  cmp,        // ins(src0, src1) {cmpMode}; dst: a u8 predicate tile
  cmps,       // ins(src, scalar) {cmpMode}; the scalar of src's element type
  sel         // ins(mask, src0, src1): mask a u8 predicate tile
};

/// Families whose assembly form leaves its last operand, a tmp, implicit.
constexpr bool implicit_tmp(OpFamily f) { return f == OpFamily::reduce || f == OpFamily::gather; }

struct OpInfo {
  const char* name;
  OpFamily family;
  uint8_t min_ins;  // DPS / SSA operand counts
  uint8_t max_ins;
};

/// The instruction named `mnemonic` (lower case, no `pto.`), or nullptr.
const OpInfo* find_op(const std::string& mnemonic);
/// Every instruction, for tests and docs.
const std::vector<OpInfo>& all_ops();

/// Text limits: larger input or deeper nesting is bad text, never a crash.
inline constexpr size_t kMaxTextBytes = size_t{4} << 20;
inline constexpr int kMaxNesting = 64;

/// Parses a module (throws TextError).
Module parse(const std::string& text);
/// The canonical text of `m`.
std::string print(const Module& m);
/// `m` with every instruction rewritten into `to` (pto_forms.cpp): the same values computed,
/// results that change form get new names and tiles (docs/pto-text.md, "Changing the form").
Module with_form(const Module& m, Form to);

/// Element type spelling (f32, f16, bf16, i8, u8, i16, u16, i32, u32).
const char* dtype_spelling(DType d);
/// The type of the assembly form's implicit tmp of `mnemonic` whose last written operand has
/// type `src` (src's own; for ttrans one large enough for its scratch; for tgather the
/// indices' valid region).
Type implicit_tmp_type(const std::string& mnemonic, const Type& src);
/// Bytes of a tile's capacity in its space.
uint64_t tile_bytes(const Type& t);

}  // namespace tilefw::tools::pto_text
