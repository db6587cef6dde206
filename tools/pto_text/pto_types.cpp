// Types of a `.pto` text: scalars (index, i64, f32, ...), `!pto.ptr<T>`, the 2-D views
// `!pto.tensor_view<RxCxT>` / `!pto.partition_tensor_view<RxCxT>` and the tile types
// `!pto.tile_buf<key=value, ...>` / `!pto.tile<...>` (the same type). Parsing and printing.
#include "pto_text/pto_types.hpp"

#include <string>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"

namespace tilefw::tools::pto_text {

namespace {

struct DTypeName {
  const char* name;
  DType dtype;
};
constexpr DTypeName kDTypes[] = {{"f16", DType::f16}, {"bf16", DType::bf16}, {"f32", DType::f32},
                                 {"i8", DType::i8},   {"u8", DType::u8},     {"i16", DType::i16},
                                 {"u16", DType::u16}, {"i32", DType::i32},   {"u32", DType::u32}};

bool dtype_of(const std::string& s, DType& out) {
  for (const DTypeName& d : kDTypes) {
    if (s == d.name) {
      out = d.dtype;
      return true;
    }
  }
  return false;
}

template <class E>
struct Named {
  const char* name;
  E value;
};
constexpr Named<tile::TileType> kLocs[] = {{"vec", tile::TileType::Vec},   {"mat", tile::TileType::Mat},
                                           {"left", tile::TileType::Left}, {"right", tile::TileType::Right},
                                           {"acc", tile::TileType::Acc},   {"bias", tile::TileType::Bias}};
constexpr Named<tile::BLayout> kBLayouts[] = {{"row_major", tile::BLayout::RowMajor},
                                              {"col_major", tile::BLayout::ColMajor}};
constexpr Named<tile::SLayout> kSLayouts[] = {{"none_box", tile::SLayout::NoneBox},
                                              {"row_major", tile::SLayout::RowMajor},
                                              {"col_major", tile::SLayout::ColMajor}};

template <class E, size_t N>
bool enum_of(const Named<E> (&table)[N], const std::string& s, E& out) {
  for (const Named<E>& n : table) {
    if (s == n.name) {
      out = n.value;
      return true;
    }
  }
  return false;
}
template <class E, size_t N>
const char* name_of(const Named<E> (&table)[N], E v) {
  for (const Named<E>& n : table) {
    if (v == n.value) return n.name;
  }
  return "?";
}

// "8x200xf32" (or 5-D with three leading 1s) as rows, cols and element type.
void view_shape(const Token& t, Type& out) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t x = t.text.find('x', start);
    parts.push_back(t.text.substr(start, x == std::string::npos ? std::string::npos : x - start));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  const bool two = parts.size() == 3;
  const bool five = parts.size() == 6 && parts[0] == "1" && parts[1] == "1" && parts[2] == "1";
  if ((!two && !five) || !dtype_of(parts.back(), out.dtype)) {
    throw TextError(t.pos, "bad view shape " + describe(t) + ": expected ROWSxCOLSxTYPE");
  }
  out.rows = parse_u32(Token{Tok::word, parts[parts.size() - 3], t.pos}, "view rows");
  out.cols = parse_u32(Token{Tok::word, parts[parts.size() - 2], t.pos}, "view cols");
  if (out.rows == 0 || out.cols == 0) throw TextError(t.pos, "bad view shape " + describe(t) + ": a zero size");
}

// "RxC" or "RxCxT" as numbers (and the element type).
void dims(const Token& t, uint32_t& r, uint32_t& c, DType* dt) {
  const size_t x1 = t.text.find('x');
  const size_t x2 = x1 == std::string::npos ? x1 : t.text.find('x', x1 + 1);
  const bool ok = t.kind == Tok::word && x1 != std::string::npos && (dt == nullptr) == (x2 == std::string::npos) &&
                  (dt == nullptr || dtype_of(t.text.substr(x2 + 1), *dt));
  if (!ok) throw TextError(t.pos, "bad tile shape " + describe(t) + (dt ? ": expected ROWSxCOLSxTYPE" : ": expected ROWSxCOLS"));
  r = parse_u32(Token{Tok::word, t.text.substr(0, x1), t.pos}, "rows");
  c = parse_u32(Token{Tok::word, t.text.substr(x1 + 1, x2 == std::string::npos ? x2 : x2 - x1 - 1), t.pos}, "cols");
}

void short_tile(TokenStream& ts, Type& out, uint32_t& seen) {
  const Token loc = ts.take();
  if (!enum_of(kLocs, loc.text, out.tile.loc)) throw TextError(loc.pos, "bad value " + describe(loc) + " for tile type key 'loc'");
  ts.expect(",");
  dims(ts.take(), out.tile.rows, out.tile.cols, &out.dtype);
  seen |= 0xFu;  // loc, dtype, rows, cols
}

void tile_key(TokenStream& ts, Type& out, uint32_t& seen) {
  if (ts.peek().kind == Tok::word && ts.peek().text == "valid") {  // the short spelling's valid=RxC
    const Token key = ts.take();
    if ((seen & 0x30u) != 0) throw TextError(key.pos, "tile type key 'valid' given twice");
    seen |= 0x30u;
    ts.expect("=");
    if (ts.peek().kind == Tok::punct && ts.peek().text == "?") {
      throw TextError(ts.peek().pos, "a dynamic valid region '?' is not supported");
    }
    dims(ts.take(), out.tile.v_row, out.tile.v_col, nullptr);
    return;
  }
  static const char* const kKeys[] = {"loc", "dtype", "rows", "cols", "v_row", "v_col",
                                      "blayout", "slayout", "fractal", "pad"};
  const Token key = ts.take();
  int k = -1;
  for (int i = 0; i < 10; ++i) {
    if (key.kind == Tok::word && key.text == kKeys[i]) k = i;
  }
  if (k < 0) throw TextError(key.pos, "unknown tile type key " + describe(key));
  if ((seen >> k) & 1u) throw TextError(key.pos, "tile type key " + describe(key) + " given twice");
  seen |= 1u << k;
  ts.expect("=");
  const Token v = ts.take();
  TileShape& s = out.tile;
  bool ok = v.kind == Tok::word;
  switch (k) {
    case 0: ok = ok && enum_of(kLocs, v.text, s.loc); break;
    case 1: ok = ok && dtype_of(v.text, out.dtype); break;
    case 2: s.rows = parse_u32(v, "rows"); break;
    case 3: s.cols = parse_u32(v, "cols"); break;
    case 4:
    case 5:
      if (v.kind == Tok::punct && v.text == "?") throw TextError(v.pos, "a dynamic valid region '?' is not supported");
      (k == 4 ? s.v_row : s.v_col) = parse_u32(v, kKeys[k]);
      break;
    case 6: ok = ok && enum_of(kBLayouts, v.text, s.blayout); break;
    case 7: ok = ok && enum_of(kSLayouts, v.text, s.slayout); break;
    case 8: s.fractal = parse_u32(v, "fractal"); break;
    default: {
      static const char* const kPads[] = {"null", "zero", "max", "min"};
      bool named = false;
      for (uint32_t i = 0; i < 4 && ok; ++i) {
        if (v.text == kPads[i]) {
          s.pad = i;
          named = true;
        }
      }
      if (!named) s.pad = parse_u32(v, "pad");
      ok = s.pad <= 3;
    }
  }
  if (!ok) throw TextError(v.pos, "bad value " + describe(v) + " for tile type key '" + kKeys[k] + "'");
}

// The rules a tile type must meet before anything runs (the Tile<> class's static checks).
void check_tile(const Token& at, Type& t, uint32_t seen) {
  for (int k = 0; k < 4; ++k) {
    static const char* const kRequired[] = {"loc", "dtype", "rows", "cols"};
    if (((seen >> k) & 1u) == 0) throw TextError(at.pos, std::string("tile type lacks key '") + kRequired[k] + "'");
  }
  TileShape& s = t.tile;
  if (((seen >> 4) & 1u) == 0) s.v_row = s.rows;
  if (((seen >> 5) & 1u) == 0) s.v_col = s.cols;
  if (s.rows == 0 || s.cols == 0) throw TextError(at.pos, "tile type has a zero size");
  if (s.v_row > s.rows || s.v_col > s.cols) throw TextError(at.pos, "tile type's valid region exceeds rows x cols");
  const uint64_t eb = dtype_size(t.dtype);
  // As Tile<>: a tile fits its space on some profile (rows * cols cannot wrap: both are below
  // 2^32); A5's spaces are at least a2a3's, and the run checks the placement on its chip.
  const uint64_t space = chip::region_size(chip::Chip::a5, tile::space_of(s.loc));
  if (uint64_t{s.rows} * s.cols > space / eb) {
    throw TextError(at.pos, "tile type: " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " " +
                                dtype_spelling(t.dtype) + " is larger than its space on any chip (" + std::to_string(space) + " bytes)");
  }
  if (s.slayout == tile::SLayout::NoneBox) {
    const bool row = s.blayout == tile::BLayout::RowMajor;
    if ((row ? s.cols : s.rows) * eb % 32 != 0) {
      throw TextError(at.pos, std::string("tile type: ") + (row ? "cols" : "rows") +
                                  " x element bytes must be a multiple of 32 for an unboxed tile");
    }
  }
}

}  // namespace

Token TokenStream::take() {
  const Token& t = toks_[i_];
  if (t.kind != Tok::end) ++i_;
  return t;
}

Token TokenStream::expect(const char* punct) {
  const Token t = take();
  if ((t.kind != Tok::punct && t.kind != Tok::arrow) || t.text != punct) {
    throw TextError(t.pos, std::string("expected '") + punct + "', found " + describe(t));
  }
  return t;
}

Token TokenStream::expect_word(const char* word) {
  const Token t = take();
  if (t.kind != Tok::word || t.text != word) {
    throw TextError(t.pos, std::string("expected '") + word + "', found " + describe(t));
  }
  return t;
}

bool TokenStream::accept(const char* punct) {
  const Token& t = peek();
  if ((t.kind == Tok::punct || t.kind == Tok::arrow) && t.text == punct) {
    take();
    return true;
  }
  return false;
}

uint64_t parse_u64(const Token& t, const char* what) {
  const std::string& s = t.text;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const size_t from = hex ? 2 : 0;
  uint64_t v = 0;
  bool ok = t.kind == Tok::word && s.size() > from;
  for (size_t i = from; ok && i < s.size(); ++i) {
    const char c = s[i];
    uint64_t d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint64_t>(c - '0');
    } else if (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      d = static_cast<uint64_t>((c | 0x20) - 'a' + 10);
    } else {
      ok = false;
      break;
    }
    const uint64_t base = hex ? 16 : 10;
    if (v > (~uint64_t{0} - d) / base) throw TextError(t.pos, std::string(what) + " " + describe(t) + " is too large");
    v = v * base + d;
  }
  if (!ok) throw TextError(t.pos, std::string("expected an unsigned integer for ") + what + ", found " + describe(t));
  return v;
}

uint32_t parse_u32(const Token& t, const char* what) {
  const uint64_t v = parse_u64(t, what);
  if (v > 0xFFFFFFFFu) throw TextError(t.pos, std::string(what) + " " + describe(t) + " is too large");
  return static_cast<uint32_t>(v);
}

Type parse_type(TokenStream& ts) {
  const Token t = ts.take();
  Type out;
  if (t.kind == Tok::word) {
    if (t.text == "index") {
      out.kind = TypeKind::index;
    } else if (t.text == "i64") {
      out.kind = TypeKind::scalar;
      out.is_i64 = true;
    } else if (dtype_of(t.text, out.dtype)) {
      out.kind = TypeKind::scalar;
    } else {
      throw TextError(t.pos, "unknown type " + describe(t));
    }
    return out;
  }
  if (t.kind != Tok::bang) throw TextError(t.pos, "expected a type, found " + describe(t));
  ts.expect("<");
  if (t.text == "pto.ptr") {
    const Token e = ts.take();
    if (e.kind != Tok::word || !dtype_of(e.text, out.dtype)) throw TextError(e.pos, "unknown element type " + describe(e));
    out.kind = TypeKind::ptr;
  } else if (t.text == "pto.tensor_view" || t.text == "pto.partition_tensor_view") {
    out.kind = t.text == "pto.tensor_view" ? TypeKind::tensor_view : TypeKind::partition_view;
    view_shape(ts.take(), out);
  } else if (t.text == "pto.tile_buf" || t.text == "pto.tile") {
    out.kind = TypeKind::tile;
    uint32_t seen = 0;
    // PTOAS's short spelling: `<vec, 16x16xf16, valid=8x16, blayout=col_major>`.
    bool keys = true;
    if (ts.peek().kind == Tok::word && ts.peek(1).kind == Tok::punct && ts.peek(1).text != "=") {
      short_tile(ts, out, seen);
      keys = ts.accept(",");
    }
    while (keys) {
      tile_key(ts, out, seen);
      keys = ts.accept(",");
    }
    check_tile(t, out, seen);
  } else {
    throw TextError(t.pos, "unknown type " + describe(t));
  }
  ts.expect(">");
  return out;
}

std::string type_text(const Type& t, bool tile_buf) {
  const std::string e = dtype_spelling(t.dtype);
  switch (t.kind) {
    case TypeKind::none: return "()";
    case TypeKind::index: return "index";
    case TypeKind::scalar: return t.is_i64 ? "i64" : e;
    case TypeKind::ptr: return "!pto.ptr<" + e + ">";
    case TypeKind::tensor_view:
    case TypeKind::partition_view:
      return std::string(t.kind == TypeKind::tensor_view ? "!pto.tensor_view<" : "!pto.partition_tensor_view<") +
             std::to_string(t.rows) + "x" + std::to_string(t.cols) + "x" + e + ">";
    case TypeKind::tile: break;
  }
  const TileShape& s = t.tile;
  return std::string(tile_buf ? "!pto.tile_buf<" : "!pto.tile<") + "loc=" + name_of(kLocs, s.loc) + ", dtype=" + e +
         ", rows=" + std::to_string(s.rows) + ", cols=" + std::to_string(s.cols) + ", v_row=" + std::to_string(s.v_row) +
         ", v_col=" + std::to_string(s.v_col) + ", blayout=" + name_of(kBLayouts, s.blayout) +
         ", slayout=" + name_of(kSLayouts, s.slayout) + ", fractal=" + std::to_string(s.fractal) +
         ", pad=" + std::to_string(s.pad) + ">";
}

}  // namespace tilefw::tools::pto_text
