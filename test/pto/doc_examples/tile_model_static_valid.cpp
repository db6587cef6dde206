// The tile programming model's "static valid region" fragment: a declaration, as written, at
// namespace scope (wrapped only by the include it needs and a namespace to keep TileT apart
// from the dynamic fragment's), plus the facts the test checks.
#include <pto/pto-inst.hpp>

namespace doc_static {

using TileT = pto::Tile<pto::TileType::Vec, float, 128, 256,
                        pto::BLayout::RowMajor,
                        127 /*row_valid*/, 127 /*col_valid*/,
                        pto::SLayout::NoneBox, pto::TileConfig::fractalABSize,
                        pto::PadValue::Zero>;

static_assert(TileT::Rows == 128 && TileT::Cols == 256 && TileT::ValidRow == 127 && TileT::ValidCol == 127);
static_assert(TileT::PadVal == pto::PadValue::Zero && TileT::Bytes == 128 * 256 * 4);

}  // namespace doc_static

/// Valid region of a tile of the fragment's type (the test runs it).
void example_static_valid(unsigned& rows, unsigned& cols) {
  doc_static::TileT t;
  rows = t.GetValidRow();
  cols = t.GetValidCol();
}
