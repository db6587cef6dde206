// Descriptors of tilefw's a2a3 compare and select issues: vcmpv/vcmpvs (a compare writing one
// predicate bit per lane) and vsel (a select reading one). Data only: the rules that accept
// them are in tilefw/desc/validate_vector_cmp.hpp.
//
// tilefw's model (the hardware's own mask layout is not public; these are tilefw's rules):
//  - An issue runs `repeat` repeats over lanes [0, lanes) of each repeat (lanes 1..EPR, EPR =
//    256 / sizeof(T)); MASK and CTRL are neither read nor written (the lane count stands for a
//    continuous MASK, so plans carry no mask steps for these issues).
//  - Predicate bits: lane k of repeat r is bit k % 8 of byte k / 8 of the predicate area of the
//    repeat (least significant bit first); bits of the last byte past `lanes` are written 0.
//  - Compare results: IEEE ordered compares. Any compare with a NaN operand is false, except NE
//    which is true; +0 and -0 are equal. f16 compares as its exact value.
#pragma once

#include <cstdint>

#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::desc {

/// Compare modes, numbered as PTO's CmpMode (EQ, NE, LT, GT, GE, LE).
enum class CmpMode : uint8_t { eq, ne, lt, gt, ge, le };

/// What a compare's right-hand operand is: a tile operand lane by lane (vcmpv), the scalar
/// `scalar_bits` (vcmpvs), or the first element of src1, read once (PTO's TCMPS tile form).
enum class CmpRhs : uint8_t { tile, scalar, first };

constexpr const char* cmp_mode_name(CmpMode m) noexcept {
  switch (m) {
    case CmpMode::eq: return "EQ";
    case CmpMode::ne: return "NE";
    case CmpMode::lt: return "LT";
    case CmpMode::gt: return "GT";
    case CmpMode::ge: return "GE";
    case CmpMode::le: return "LE";
  }
  return "?";
}

/// One compare issue. Repeat r compares src0 lanes [0, lanes) at src0 + r * src0_repeat_stride
/// * 32 (contiguous elements) with src1's (same geometry) or the scalar, and writes
/// ceil(lanes / 8) predicate bytes at dst + r * dst_repeat_stride (bytes). Types: f16, f32, i16,
/// u16, i32. Ranges: repeat 1..255, lanes 1..EPR, strides 0..65535. Sources 32 B aligned; the
/// predicate has no alignment. tilefw rule: the bytes written are disjoint from the bytes read.
struct CmpDesc {
  CmpMode mode = CmpMode::eq;
  CmpRhs rhs = CmpRhs::tile;
  uint32_t scalar_bits = 0;  // CmpRhs::scalar: raw bits of T (low 16 bits for 16-bit types)
  uint32_t repeat = 1;
  uint32_t lanes = 1;
  uint32_t src0_repeat_stride = 8;
  uint32_t src1_repeat_stride = 8;
  uint32_t dst_repeat_stride = 0;
  Operand dst{};
  Operand src0{};
  Operand src1{};  // unused for CmpRhs::scalar
};

/// One select issue: repeat r writes dst lanes [0, lanes) (dst + r * dst_repeat_stride * 32)
/// with src0's lane where the predicate bit is 1, else src1's; the predicate bits are read at
/// mask + r * mask_repeat_stride (bytes), laid out as CmpDesc writes them. Types: any 2- or
/// 4-byte type. Ranges as CmpDesc. Every bit of the chosen source is copied (NaN payloads, -0).
/// tilefw rule: dst is disjoint from the mask bytes and from each source, or is that source
/// exactly (same offset and repeat stride).
struct SelDesc {
  uint32_t repeat = 1;
  uint32_t lanes = 1;
  uint32_t dst_repeat_stride = 8;
  uint32_t src0_repeat_stride = 8;
  uint32_t src1_repeat_stride = 8;
  uint32_t mask_repeat_stride = 0;
  Operand dst{};
  Operand src0{};
  Operand src1{};
  Operand mask{};
};

}  // namespace tilefw::desc
