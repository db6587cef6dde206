// Internal to the cmd layer: the class and length of every TIU header (tsk_typ, tsk_eu_typ,
// cmd_short), built at compile time in classes.cpp, so the walker decodes with one load.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::cmd::detail {

struct TiuDecodeTable {
  CmdClass entry[16][32][2];  // [tsk_typ][tsk_eu_typ][cmd_short]; tsk_typ 7/12/15 ignore cmd_short
};
/// Bytes of a command of each class (0 for none), by class value: one byte a class, so the
/// TIU table above holds classes only (1 KiB instead of 2 with the length beside each).
inline constexpr size_t kClassCount = static_cast<size_t>(CmdClass::none) + 1;
struct ClassLengths {
  uint8_t v[kClassCount];
};
extern const ClassLengths kClassLength;
extern const TiuDecodeTable kTiuDecode;

}  // namespace tilefw::cmd::detail
