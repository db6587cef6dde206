// The tile programming model's "dynamic valid region" fragment, as written, wrapped in a
// function that gives it `m` (the fragment's runtime row count) and returns what it built.
#include <pto/pto-inst.hpp>

void example_dynamic_valid(int m, unsigned& rows, unsigned& cols) {
  using TileT = pto::Tile<pto::TileType::Vec, float, 128, 256,
                          pto::BLayout::RowMajor,
                          pto::DYNAMIC /*row_valid*/, 127 /*col_valid*/>;

  TileT t(/*row_valid_runtime=*/m);
  rows = t.GetValidRow();
  cols = t.GetValidCol();
}
