// Parsing of `tile` items into plan::Requests (see conform_tile.hpp).
#include "conform/conform_tile.hpp"

namespace tilefw::tools::conform {

namespace {

// Operand sets of the tile ops (docs/cli.md section 4.2, plus the planner's further ops).
enum class Shape {
  binary,      // dst src0 src1
  scalar,      // dst src + scalar
  unary,       // dst src
  reduce,      // dst src tmp
  expands,     // dst + scalar
  cvt,         // dst src + round (+ src_dtype)
  rowexpand,   // dst src [tmp]
  rowexpand2,  // dst src0 src1 [tmp]
};

struct OpEntry {
  const char* name;
  plan::TileOp op;
  Shape shape;
};

constexpr OpEntry kOps[] = {
    {"TADD", plan::TileOp::TADD, Shape::binary},
    {"TSUB", plan::TileOp::TSUB, Shape::binary},
    {"TMUL", plan::TileOp::TMUL, Shape::binary},
    {"TDIV", plan::TileOp::TDIV, Shape::binary},
    {"TMAX", plan::TileOp::TMAX, Shape::binary},
    {"TMIN", plan::TileOp::TMIN, Shape::binary},
    {"TADDS", plan::TileOp::TADDS, Shape::scalar},
    {"TMULS", plan::TileOp::TMULS, Shape::scalar},
    {"TMAXS", plan::TileOp::TMAXS, Shape::scalar},
    {"TMINS", plan::TileOp::TMINS, Shape::scalar},
    {"TABS", plan::TileOp::TABS, Shape::unary},
    {"TEXP", plan::TileOp::TEXP, Shape::unary},
    {"TLOG", plan::TileOp::TLOG, Shape::unary},
    {"TSQRT", plan::TileOp::TSQRT, Shape::unary},
    {"TRSQRT", plan::TileOp::TRSQRT, Shape::unary},
    {"TRECIP", plan::TileOp::TRECIP, Shape::unary},
    {"TRELU", plan::TileOp::TRELU, Shape::unary},
    {"TROWSUM", plan::TileOp::TROWSUM, Shape::reduce},
    {"TROWMAX", plan::TileOp::TROWMAX, Shape::reduce},
    {"TROWMIN", plan::TileOp::TROWMIN, Shape::reduce},
    {"TCOLSUM", plan::TileOp::TCOLSUM, Shape::reduce},
    {"TCOLMAX", plan::TileOp::TCOLMAX, Shape::unary},
    {"TCOLMIN", plan::TileOp::TCOLMIN, Shape::unary},
    {"TCOLEXPAND", plan::TileOp::TCOLEXPAND, Shape::unary},
    {"TEXPANDS", plan::TileOp::TEXPANDS, Shape::expands},
    {"TCVT", plan::TileOp::TCVT, Shape::cvt},
    {"TROWEXPAND", plan::TileOp::TROWEXPAND, Shape::rowexpand},
    {"TROWEXPANDADD", plan::TileOp::TROWEXPANDADD, Shape::rowexpand2},
    {"TROWEXPANDSUB", plan::TileOp::TROWEXPANDSUB, Shape::rowexpand2},
    {"TROWEXPANDMUL", plan::TileOp::TROWEXPANDMUL, Shape::rowexpand2},
    {"TROWEXPANDDIV", plan::TileOp::TROWEXPANDDIV, Shape::rowexpand2},
};

// A tile T = { offset, rows, cols, valid: [VR, VC], layout }: all five keys are required (the
// spec gives no defaults), a Vec tile in UB of the item's dtype.
plan::TileDesc tile_of(const json& o, const char* key, DType dt, const std::string& where) {
  const std::string w = where + "." + key;
  const json& j = req(o, key, where);
  if (!j.is_object()) bad(w + ": expected a tile object");
  const uint32_t offset = req_u32(j, "offset", w);
  const uint32_t rows = req_u32(j, "rows", w);
  const uint32_t cols = req_u32(j, "cols", w);
  const json& v = req(j, "valid", w);
  if (!v.is_array() || v.size() != 2) bad(w + ".valid: expected [valid rows, valid cols]");
  const uint64_t vr = uint_of(v[0], w + ".valid[0]");
  const uint64_t vc = uint_of(v[1], w + ".valid[1]");
  if (vr > 0xFFFFFFFFu || vc > 0xFFFFFFFFu) bad(w + ".valid: out of range");
  const std::string l = str(req(j, "layout", w), w + ".layout");
  plan::Layout layout = plan::Layout::row_major;
  if (l == "col_major") {
    layout = plan::Layout::col_major;
  } else if (l != "row_major") {
    bad(w + ".layout: expected \"row_major\" or \"col_major\"");
  }
  return plan::ub_tile(offset, dt, rows, cols, static_cast<uint32_t>(vr), static_cast<uint32_t>(vc), layout);
}

// An optional tile operand: absent means none (rows 0, as plan::Request expects).
plan::TileDesc optional_tile(const json& o, const char* key, DType dt, const std::string& where) {
  return opt(o, key) != nullptr ? tile_of(o, key, dt, where) : plan::TileDesc{};
}

uint32_t scalar_of(const json& o, DType dt, const std::string& where) {
  return value_of(req(o, "scalar", where), dt, where + ".scalar", false).raw;
}

desc::RoundMode round_of(const json& o, const std::string& where) {
  const std::string r = str(req(o, "round", where), where + ".round");
  for (desc::RoundMode m : {desc::RoundMode::rint, desc::RoundMode::round, desc::RoundMode::floor,
                            desc::RoundMode::ceil, desc::RoundMode::trunc, desc::RoundMode::odd,
                            desc::RoundMode::none}) {
    if (r == desc::round_name(m)) return m;
  }
  bad(where + ".round: unknown rounding mode \"" + r + "\"");
}

}  // namespace

TileItem parse_tile_item(const json& j, const std::string& where) {
  if (!j.is_object()) bad(where + ": expected an object");
  TileItem t;
  t.op = str(req(j, "op", where), where + ".op");
  const DType dt = dtype_of_name(str(req(j, "dtype", where), where + ".dtype"), where + ".dtype");
  const OpEntry* e = nullptr;
  for (const OpEntry& k : kOps) {
    if (t.op == k.name) e = &k;
  }
  if (e == nullptr) return t;
  t.implemented = true;
  plan::Request& q = t.request;
  switch (e->shape) {
    case Shape::binary:
      q = plan::Request::binary(e->op, tile_of(j, "dst", dt, where), tile_of(j, "src0", dt, where),
                                tile_of(j, "src1", dt, where));
      break;
    case Shape::scalar:
      q = plan::Request::scalar(e->op, tile_of(j, "dst", dt, where), tile_of(j, "src", dt, where),
                                scalar_of(j, dt, where));
      break;
    case Shape::unary:
      q = plan::Request::unary(e->op, tile_of(j, "dst", dt, where), tile_of(j, "src", dt, where));
      break;
    case Shape::reduce:
      q = plan::Request::reduce(e->op, tile_of(j, "dst", dt, where), tile_of(j, "src", dt, where),
                                tile_of(j, "tmp", dt, where));
      break;
    case Shape::expands:
      q = plan::Request::expands(tile_of(j, "dst", dt, where), scalar_of(j, dt, where));
      break;
    case Shape::cvt: {
      // "dtype" is the destination's; the source's is "src_dtype".
      const DType st = dtype_of_name(str(req(j, "src_dtype", where), where + ".src_dtype"), where + ".src_dtype");
      q = plan::Request::cvt(tile_of(j, "dst", dt, where), tile_of(j, "src", st, where), round_of(j, where));
      break;
    }
    case Shape::rowexpand:
      q = plan::Request::rowexpand(tile_of(j, "dst", dt, where), tile_of(j, "src", dt, where),
                                   optional_tile(j, "tmp", dt, where));
      break;
    case Shape::rowexpand2:
      q = plan::Request::rowexpand_binary(e->op, tile_of(j, "dst", dt, where), tile_of(j, "src0", dt, where),
                                          tile_of(j, "src1", dt, where), optional_tile(j, "tmp", dt, where));
      break;
  }
  return t;
}

}  // namespace tilefw::tools::conform
