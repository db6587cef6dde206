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

// A tsk_typ names at most two long classes (CONV / CONV_BW, MM / MM2, SG / SGL), each for a set
// of tsk_eu_typ values: per tsk_typ, the two classes and their eu sets as 32-bit masks (192
// bytes where a class per (tsk_typ, eu) took 512 of the firmware image).
struct TiuDecodeTable {
  uint32_t eus[16][2];   // [tsk_typ][k]: bit eu set when (tsk_typ, eu) is cls[tsk_typ][k]
  CmdClass cls[16][2];   // the long form's classes (tsk_typ 7/12/15: the class); none if unused
  CmdClass short_of[kTiuClassCount];  // by long class: its short form's (cmd_short = 1)
};
/// The class of a TIU header (eu <= 31): two mask tests for the long form, one load more for
/// the short one.
constexpr CmdClass tiu_decode(const TiuDecodeTable& t, uint32_t tsk_typ, uint32_t eu, bool s) noexcept {
  const uint32_t bit = uint32_t{1} << eu;
  const CmdClass c = (t.eus[tsk_typ][0] & bit) != 0   ? t.cls[tsk_typ][0]
                     : (t.eus[tsk_typ][1] & bit) != 0 ? t.cls[tsk_typ][1]
                                                      : CmdClass::none;
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
