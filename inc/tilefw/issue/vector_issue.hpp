// Single-issue emission for the a2a3 vector unit: one validated descriptor becomes register
// writes (chip::a2a3::vreg) and exactly one doorbell, through the port. No loops, no splitting.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/validate_vector_cmp.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"
#include "tilefw/desc/validate_vector.hpp"
#include "tilefw/desc/validated.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::issue {

/// CTRL[48]: 1 = Inf/NaN (IEEE, tilefw's default), 0 = saturation (inf -> +-MAX, NaN -> 0 for
/// half results; f32 ignores it) (docs/a2a3-vector-semantics.md section 6.2).
enum class OverflowMode : uint8_t { saturate = 0, infnan = 1 };

/// Caller-owned state of one vector unit: where its registers are and a shadow copy of the
/// CTRL and MASK registers (validation needs the MASK in effect; the registers are write-only
/// in spirit, so the shadow is the truth the core keeps). The default shadow is tilefw's
/// initial state (normal mode, MASK all ones, Inf/NaN); call reset() to force it on a unit
/// whose state is unknown. `chip` is the profile whose UB size issue_once and issue_live
/// validate operands against (the build's by default; a5's UB is 256 KB, a2a3's 192 KB).
struct VectorUnit {
  uint64_t base = chip::a2a3::kVectorUnitRegisters.base;
  uint64_t ctrl = chip::a2a3::vreg::kCtrlReset;
  desc::Mask128 mask = desc::Mask128::all();
  chip::Chip chip = chip::kBuildChip;

  constexpr bool counter_mode() const noexcept {
    return (ctrl & chip::a2a3::vreg::kCtrlCounterMode) != 0;
  }
  constexpr OverflowMode overflow_mode() const noexcept {
    return (ctrl & chip::a2a3::vreg::kCtrlInfNan) != 0 ? OverflowMode::infnan : OverflowMode::saturate;
  }
};

/// Writes CTRL (normal mode, `mode`) and MASK (all ones) unconditionally and sets the shadow.
void reset(VectorUnit& vu, OverflowMode mode = OverflowMode::infnan) noexcept;

// ---- mask-state operations (each is plain register writes, always performed) -----------------
/// set_vector_mask(hi, lo): MASK = {hi, lo}. CTRL unchanged.
void set_mask(VectorUnit& vu, uint64_t hi, uint64_t lo) noexcept;
/// set_mask_count + set_vector_mask(0, n): CTRL[56] = 1, MASK = {0, n}. invalid_argument (and
/// nothing written) when n > 2^32 - 1.
[[nodiscard]] Status set_mask_count(VectorUnit& vu, uint64_t n) noexcept;
/// set_mask_norm: CTRL[56] = 0; MASK keeps its value (sticky, docs/a2a3-vector-semantics.md
/// section 4).
void set_mask_norm(VectorUnit& vu) noexcept;
/// CTRL[48] = mode.
void set_overflow_mode(VectorUnit& vu, OverflowMode mode) noexcept;

// ---- issue_once ----------------------------------------------------------------------------
// Validates `d` for dtype `dt` against the MASK in effect (the shadow), and on failure returns
// the validation status having written nothing. Otherwise: Count mode -> CTRL[56] = 1 and
// MASK = {0, vector_count}; Normal -> CTRL[56] = 0 and, when tail_elements > 0,
// MASK = continuous(tail_elements) (MASK untouched when tail is 0). CTRL/MASK are written only
// where the shadow differs; nothing is ever restored afterwards (the next issue or a mask
// operation decides). Then the operand registers, then exactly one doorbell; returns the
// STATUS the unit reports (ok on success; a NOP issue is still emitted and returns ok).
// `report`, when given, receives the validation report.
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::BinIntrinsicDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::UnaryDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::ScalarDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::ReduceDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;

// ---- issue_live ----------------------------------------------------------------------------
// Issues `d` under the live CTRL/MASK exactly as they are, for callers that drive the mask
// state themselves with the mask operations above (the conformance runner replaying program
// items, a kernel that sets a count once for several issues). issue_once would rewrite MASK to
// {0, vector_count} in counter mode and so lose a sticky MASK's hi word and lo bits 32..63 that
// a later set_mask_norm exposes again (docs/a2a3-vector-semantics.md section 4); issue_live never
// writes CTRL or MASK.
// The descriptor's mask fields are taken from the shadow, not from `d`: mask_mode = CTRL[56],
// vector_count = MASK[31:0] (the only bits counter mode reads). `d.tail_elements` must be 0 (a
// tail needs a MASK write): invalid_argument otherwise. Validation and the result are as for
// issue_once: on failure nothing is written; otherwise the operand registers, then exactly one
// doorbell, and the unit's STATUS is returned.
[[nodiscard]] Status issue_live(VectorUnit& vu, const desc::BinIntrinsicDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_live(VectorUnit& vu, const desc::UnaryDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_live(VectorUnit& vu, const desc::ScalarDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_live(VectorUnit& vu, const desc::ReduceDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;

/// copy_ubuf_to_ubuf: no mask and no mode (CTRL/MASK are neither checked nor written).
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::CopyDesc& d, desc::DescReport* report = nullptr) noexcept;
/// vector_dup of `d.scalar_bits` in dtype `dt`; mask state as the arithmetic issues.
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::DupDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
/// vconv from d.src_type to d.dst_type with d.round; mask state on the 64 lanes of a repeat.
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::CvtDesc& d, desc::DescReport* report = nullptr) noexcept;
/// vbrcb of dtype `dt` (b16/b32): no mask and no mode (CTRL/MASK neither checked nor written).
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::BrcbDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
/// vgather of dtype `dt` (b16/b32); mask state as the arithmetic issues. The unit checks each
/// gathered address when it runs (a fault is its STATUS; nothing is written then).
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::GatherDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;

/// FAULT_OFFSET: the UB byte the unit's last faulting issue names (a gathered address for a
/// vgather's data fault); 0 after an issue that ran.
[[nodiscard]] uint32_t fault_offset(const VectorUnit& vu) noexcept;

/// vcmpv/vcmpvs and vsel of dtype `dt`: no mask and no mode (CTRL/MASK neither checked nor
/// written; the descriptor's lane count stands for a continuous MASK).
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::CmpDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;
[[nodiscard]] Status issue_once(VectorUnit& vu, const desc::SelDesc& d, DType dt,
                                desc::DescReport* report = nullptr) noexcept;

// ---- emit: the trusted path ------------------------------------------------------------------
// Issues a descriptor validated once before (desc::Validator::check, or a step of a plan
// validated whole): no validation here, only the state it was validated in (CTRL[56] and MASK,
// written only where the shadow differs; nothing for copy and vbrcb), the operand registers and
// exactly one doorbell; returns the STATUS the unit reports. Defined for the nine vector
// descriptor kinds (BinIntrinsic, Unary, Scalar, Reduce, Copy, Dup, Cvt, Brcb, Gather) and
// Cmp, Sel.
template <class Desc>
[[nodiscard]] Status emit(VectorUnit& vu, const desc::Validated<Desc>& v) noexcept;

/// Typed form: T is the element type (half, float, int16_t, int32_t, ...).
template <class T, class Desc>
[[nodiscard]] Status issue_once(VectorUnit& vu, const Desc& d, desc::DescReport* report = nullptr) noexcept {
  return issue_once(vu, d, dtype_of<T>, report);
}

/// OP[7:0] codes of the register map (class nibble | op enum value).
constexpr uint32_t op_code(desc::BinaryOp op) noexcept {
  return chip::a2a3::vreg::kOpClassBinary | static_cast<uint32_t>(op);
}
constexpr uint32_t op_code(desc::UnaryOp op) noexcept {
  return chip::a2a3::vreg::kOpClassUnary | static_cast<uint32_t>(op);
}
constexpr uint32_t op_code(desc::ScalarOp op) noexcept {
  return chip::a2a3::vreg::kOpClassScalar | static_cast<uint32_t>(op);
}
constexpr uint32_t op_code(desc::ReduceOp op) noexcept {
  return chip::a2a3::vreg::kOpClassReduce | static_cast<uint32_t>(op);
}

}  // namespace tilefw::issue
