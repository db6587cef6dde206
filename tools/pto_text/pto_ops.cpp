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

uint64_t tile_bytes(const Type& t) { return uint64_t{t.tile.rows} * t.tile.cols * dtype_size(t.dtype); }

}  // namespace tilefw::tools::pto_text
