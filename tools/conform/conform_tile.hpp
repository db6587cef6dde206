// `tile` program items of `tilefw conform` (docs/cli.md section 4.2, program items): the JSON
// item becomes the plan::Request the Tile<> types would build, so the runner executes it
// through the same planner and tile::run. Host-only.
#pragma once

#include <string>

#include "conform/conform_json.hpp"
#include "tilefw/plan/plan.hpp"

namespace tilefw::tools::conform {

struct TileItem {
  std::string op;             // the item's "op" as written
  bool implemented = false;   // false: an op this runner does not know (the case FAILs)
  plan::Request request{};
};

/// Parses `{ "op", "dtype", <operands> }`. Operand keys per op are listed in README.md ("The
/// a2a3 vector unit and `tilefw conform`"); every tile needs offset, rows, cols, valid and
/// layout. A missing or wrongly typed key throws BadCase; an unknown op does not (it is not
/// implemented, so the case FAILs when it runs).
TileItem parse_tile_item(const json& j, const std::string& where);

}  // namespace tilefw::tools::conform
