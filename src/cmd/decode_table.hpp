// Internal to the cmd layer: the class and length of every TIU header (tsk_typ, tsk_eu_typ,
// cmd_short), built at compile time in classes.cpp, so the walker decodes with one load.
#pragma once

#include <cstdint>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::cmd::detail {

struct TiuDecode {
  CmdClass cls = CmdClass::none;
  uint8_t length = 0;  // bytes; 0 for none
};
struct TiuDecodeTable {
  TiuDecode entry[16][32][2];  // [tsk_typ][tsk_eu_typ][cmd_short]; tsk_typ 7/12/15 ignore cmd_short
};
extern const TiuDecodeTable kTiuDecode;

}  // namespace tilefw::cmd::detail
