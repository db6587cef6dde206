// Internal to the cmd layer: the class of every TIU header (tsk_typ, tsk_eu_typ, cmd_short) and
// the length of every class, built at compile time in classes.cpp, so the walker decodes with
// a load or two.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::cmd::detail {

// TIU classes and none (the last slot: a header of no class stays none in either form).
inline constexpr size_t kTiuClassCount = static_cast<size_t>(CmdClass::dma_tensor) + 1;

struct TiuDecodeTable {
  CmdClass entry[16][32];  // [tsk_typ][tsk_eu_typ]: the long form's class (tsk_typ 7/12/15: the class)
  CmdClass short_of[kTiuClassCount];  // by long class: its short form's (cmd_short = 1)
};
/// The class of a TIU header: one load for the long form, two for the short one.
constexpr CmdClass tiu_decode(const TiuDecodeTable& t, uint32_t tsk_typ, uint32_t eu, bool s) noexcept {
  const CmdClass c = t.entry[tsk_typ][eu];
  return s ? t.short_of[static_cast<size_t>(c) < kTiuClassCount ? static_cast<size_t>(c) : kTiuClassCount - 1] : c;
}
/// Bytes of a command of each class (0 for none), by class value: one byte a class, so the
/// TIU table above holds classes only.
inline constexpr size_t kClassCount = static_cast<size_t>(CmdClass::none) + 1;
struct ClassLengths {
  uint8_t v[kClassCount];
};
extern const ClassLengths kClassLength;
extern const TiuDecodeTable kTiuDecode;

}  // namespace tilefw::cmd::detail
