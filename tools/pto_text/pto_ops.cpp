// The instructions a `.pto` text may name: those `<pto/pto-inst.hpp>` provides, with their
// operand counts in the SSA and DPS forms (docs/pto-text.md, "Instructions").
#include <string>
#include <vector>

#include "pto_text/pto_ir.hpp"

namespace tilefw::tools::pto_text {

namespace {
const std::vector<OpInfo> kOps = {
    {"tadd", OpFamily::binary, 2, 2},           {"tsub", OpFamily::binary, 2, 2},
    {"tmul", OpFamily::binary, 2, 2},           {"tdiv", OpFamily::binary, 2, 2},
    {"tmax", OpFamily::binary, 2, 2},           {"tmin", OpFamily::binary, 2, 2},
    {"trowexpandadd", OpFamily::rowexpand2, 2, 3}, {"trowexpandsub", OpFamily::rowexpand2, 2, 3},
    {"trowexpandmul", OpFamily::rowexpand2, 2, 3}, {"trowexpanddiv", OpFamily::rowexpand2, 2, 3},
    {"tabs", OpFamily::unary, 1, 1},            {"texp", OpFamily::unary, 1, 1},
    {"tlog", OpFamily::unary, 1, 1},            {"tsqrt", OpFamily::unary, 1, 1},
    {"trsqrt", OpFamily::unary, 1, 1},          {"trecip", OpFamily::unary, 1, 1},
    {"trelu", OpFamily::unary, 1, 1},           {"tneg", OpFamily::unary, 1, 1},
    {"tcolmax", OpFamily::unary, 1, 1},         {"tcolmin", OpFamily::unary, 1, 1},
    {"tcolexpand", OpFamily::unary, 1, 1},      {"trowexpand", OpFamily::rowexpand, 1, 2},
    {"tadds", OpFamily::scalar, 2, 2},          {"tsubs", OpFamily::scalar, 2, 2},
    {"tmuls", OpFamily::scalar, 2, 2},          {"tmaxs", OpFamily::scalar, 2, 2},
    {"tmins", OpFamily::scalar, 2, 2},          {"texpands", OpFamily::expands, 1, 1},
    {"trowsum", OpFamily::reduce, 2, 2},        {"trowmax", OpFamily::reduce, 2, 2},
    {"trowmin", OpFamily::reduce, 2, 2},        {"tcolsum", OpFamily::colsum, 1, 2},
    {"tcvt", OpFamily::cvt, 1, 1},              {"tload", OpFamily::load, 1, 1},
    {"tstore", OpFamily::store, 1, 1},          {"tmov", OpFamily::mov, 1, 1},
    {"tmatmul", OpFamily::matmul, 2, 2},        {"tmatmul.acc", OpFamily::matmul_acc, 3, 3},
    {"tmatmul.bias", OpFamily::matmul_bias, 3, 3},
    // Layout and the column product (tilefw's TTRANS takes its tmp like trowsum).
    {"ttrans", OpFamily::reduce, 2, 2},         {"tcolprod", OpFamily::unary, 1, 1},
    {"tgather", OpFamily::gather, 3, 3},
    {"tsels", OpFamily::sels, 3, 3},            {"tfillpad", OpFamily::fillpad, 1, 1},
    {"tcmp", OpFamily::cmp, 2, 2},              {"tcmps", OpFamily::cmps, 2, 2},
    {"tsel", OpFamily::sel, 3, 3},
};
}  // namespace

const OpInfo* find_op(const std::string& mnemonic) {
  for (const OpInfo& o : kOps) {
    if (mnemonic == o.name) return &o;
  }
  return nullptr;
}

const std::vector<OpInfo>& all_ops() { return kOps; }

TextError::TextError(Pos p, const std::string& m)
    : std::runtime_error(std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + m), pos(p), message(m) {}

// PTO text spells element types as the conformance files do.
const char* dtype_spelling(DType d) { return dtype_name(d); }

Type implicit_tmp_type(const std::string& mnemonic, const Type& src) {
  if (mnemonic == "tgather" && src.kind == TypeKind::tile) {
    Type t = src;  // TGATHER's tmp is shaped as the indices' valid region
    t.tile.rows = src.tile.v_row;
    t.tile.cols = src.tile.v_col;
    return t;
  }
  if (mnemonic != "ttrans" || src.kind != TypeKind::tile || dtype_size(src.dtype) == 0) return src;
  // TTRANS needs ceil(rows / lanes of a 32 B block) groups of round8(cols) blocks: rows rounded
  // up to a whole block of lanes and cols to 8 give a tile at least that large.
  Type t = src;
  const uint32_t bse = 32 / dtype_size(src.dtype);
  t.tile.rows = (src.tile.rows + bse - 1) / bse * bse;
  t.tile.cols = (src.tile.cols + 7) / 8 * 8;
  t.tile.v_row = t.tile.rows;
  t.tile.v_col = t.tile.cols;
  return t;
}

uint64_t tile_bytes(const Type& t) { return uint64_t{t.tile.rows} * t.tile.cols * dtype_size(t.dtype); }

}  // namespace tilefw::tools::pto_text
