// Descriptor of the a2a3 vector pipe's conversion (vconv) and its rounding modes. Data only:
// the rules that accept it are in tilefw/desc/validate_vector_convert.hpp.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::desc {

// ---- conversion -------------------------------------------------------------------------------
/// vconv rounding modes (CCE suffixes: _r rint, _a round-away, _f floor, _c ceil, _z trunc,
/// _o odd; none for exact conversions).
enum class RoundMode : uint8_t { none, rint, round, floor, ceil, trunc, odd };

constexpr const char* round_name(RoundMode m) noexcept {
  switch (m) {
    case RoundMode::none: return "none";
    case RoundMode::rint: return "rint";
    case RoundMode::round: return "round";
    case RoundMode::floor: return "floor";
    case RoundMode::ceil: return "ceil";
    case RoundMode::trunc: return "trunc";
    case RoundMode::odd: return "odd";
  }
  return "?";
}

/// One vconv issue from src_type to dst_type. A repeat processes 256 / max(element sizes) = 64
/// lanes (every supported pair has a 32-bit side); lane k of an operand with E lanes per 32 B
/// block lives in its block k / E, so the 16-bit side of a repeat touches blocks 0..3 only.
/// The MASK applies to the 64 lanes (low word only). Block strides 0..65535, repeat strides
/// 0..255 (vconv's uint16 / uint8 fields).
struct CvtDesc {
  DType dst_type = DType::f16;
  DType src_type = DType::f32;
  RoundMode round = RoundMode::rint;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t src_block_stride = 1;
  uint32_t dst_repeat_stride = 4;
  uint32_t src_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
  Operand src{};
};

}  // namespace tilefw::desc
