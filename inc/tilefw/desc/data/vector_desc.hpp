// Descriptor structs of one a2a3 vector single issue (PTO's BinIntrinsicDesc of
// docs/a2a3-vector-semantics.md section 1, and its unary,
// scalar and reduction siblings), the 128-bit MASK value and the report validation returns.
#pragma once

#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::desc {

// ---- operations (docs/a2a3-vector-semantics.md section 6.1; spellings are the CCE intrinsic names) ---
enum class BinaryOp : uint8_t { vadd, vsub, vmul, vdiv, vmax, vmin };
enum class UnaryOp : uint8_t { vabs, vexp, vln, vsqrt, vrsqrt, vrec, vrelu };
enum class ScalarOp : uint8_t { vadds, vmuls, vmaxs, vmins };
enum class ReduceOp : uint8_t { vcadd, vcgadd, vcpadd, vcmax, vcmin };

/// Normal: the 128-bit MASK selects lanes, `repeat` repeats. Count: the first `vector_count`
/// logical elements, ceil(count / lanes-per-repeat) repeats (docs/a2a3-vector-semantics.md section
/// 4).
enum class MaskMode : uint8_t { normal, count };

/// vcmax/vcmin output layout (docs/a2a3-vector-semantics.md section 7). The index is stored in T's
/// bits, except
/// only_index which writes it as a uint32.
enum class ReduceOrder : uint8_t { value_index, index_value, only_value, only_index };

constexpr const char* op_name(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::vadd: return "vadd";
    case BinaryOp::vsub: return "vsub";
    case BinaryOp::vmul: return "vmul";
    case BinaryOp::vdiv: return "vdiv";
    case BinaryOp::vmax: return "vmax";
    case BinaryOp::vmin: return "vmin";
  }
  return "?";
}
constexpr const char* op_name(UnaryOp op) noexcept {
  switch (op) {
    case UnaryOp::vabs: return "vabs";
    case UnaryOp::vexp: return "vexp";
    case UnaryOp::vln: return "vln";
    case UnaryOp::vsqrt: return "vsqrt";
    case UnaryOp::vrsqrt: return "vrsqrt";
    case UnaryOp::vrec: return "vrec";
    case UnaryOp::vrelu: return "vrelu";
  }
  return "?";
}
constexpr const char* op_name(ScalarOp op) noexcept {
  switch (op) {
    case ScalarOp::vadds: return "vadds";
    case ScalarOp::vmuls: return "vmuls";
    case ScalarOp::vmaxs: return "vmaxs";
    case ScalarOp::vmins: return "vmins";
  }
  return "?";
}
constexpr const char* op_name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::vcadd: return "vcadd";
    case ReduceOp::vcgadd: return "vcgadd";
    case ReduceOp::vcpadd: return "vcpadd";
    case ReduceOp::vcmax: return "vcmax";
    case ReduceOp::vcmin: return "vcmin";
  }
  return "?";
}
constexpr const char* order_name(ReduceOrder o) noexcept {
  switch (o) {
    case ReduceOrder::value_index: return "value_index";
    case ReduceOrder::index_value: return "index_value";
    case ReduceOrder::only_value: return "only_value";
    case ReduceOrder::only_index: return "only_index";
  }
  return "?";
}

// ---- MASK ------------------------------------------------------------------------------------
/// The 128-bit MASK register: bit k selects lane k; `hi` holds lanes 64..127 (set_vector_mask
/// takes hi first). For 32-bit element types only `lo` applies.
struct Mask128 {
  uint64_t hi = 0;
  uint64_t lo = 0;

  static constexpr Mask128 all() noexcept { return Mask128{~uint64_t{0}, ~uint64_t{0}}; }
  static constexpr Mask128 none() noexcept { return Mask128{0, 0}; }
  /// The low n bits; n >= 128 is clamped to a full mask (Ascend C's SetMask rule; PTO's
  /// SetContinuousMask shifts by >= 64 there, which is undefined, docs/a2a3-vector-semantics.md
  /// section 3).
  static constexpr Mask128 continuous(uint32_t n) noexcept {
    if (n >= 128) return all();
    if (n > 64) return Mask128{(uint64_t{1} << (n - 64)) - 1, ~uint64_t{0}};
    if (n == 64) return Mask128{0, ~uint64_t{0}};
    return Mask128{0, (uint64_t{1} << n) - 1};
  }
  constexpr bool lane(uint32_t k) const noexcept {
    if (k < 64) return ((lo >> k) & 1u) != 0;
    if (k < 128) return ((hi >> (k - 64)) & 1u) != 0;
    return false;
  }
  constexpr bool empty() const noexcept { return hi == 0 && lo == 0; }
  friend constexpr bool operator==(Mask128 a, Mask128 b) noexcept {
    return a.hi == b.hi && a.lo == b.lo;
  }
};

// ---- operands and descriptors -----------------------------------------------------------------
/// Where an operand starts: a memory space and a byte offset inside it. The vector unit reads
/// and writes UB only; any other space is rejected.
struct Operand {
  chip::MemSpace space = chip::MemSpace::UB;
  uint32_t offset = 0;
};

// Strides are uint32_t (wider than the hardware fields) so that out-of-range values can be
// represented and rejected rather than silently truncated. Units: 32 B blocks, except the
// reduction dst_repeat_stride (see ReduceDesc).

/// One binary issue: vadd/vsub/vmul/vdiv/vmax/vmin (PTO's BinIntrinsicDesc,
/// docs/a2a3-vector-semantics.md section 1).
/// Strides 0..255 (uint8 hardware fields).
struct BinIntrinsicDesc {
  BinaryOp op = BinaryOp::vadd;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t src0_block_stride = 1;
  uint32_t src1_block_stride = 1;
  uint32_t dst_repeat_stride = 8;
  uint32_t src0_repeat_stride = 8;
  uint32_t src1_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  /// Count mode: number of logical elements (must be > 0).
  uint32_t vector_count = 0;
  /// Normal mode: > 0 replaces the MASK by continuous(tail_elements) for this issue.
  uint32_t tail_elements = 0;
  /// Extension flags of BinIntrinsicDesc; the a2a3 toolchain supports neither, both must be false.
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
  Operand src0{};
  Operand src1{};
};

/// One unary issue: vabs/vexp/vln/vsqrt/vrsqrt/vrec/vrelu. Strides 0..65535 (uint16 fields).
struct UnaryDesc {
  UnaryOp op = UnaryOp::vabs;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t src_block_stride = 1;
  uint32_t dst_repeat_stride = 8;
  uint32_t src_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
  Operand src{};
};

/// One vector-scalar issue: vadds/vmuls/vmaxs/vmins. The scalar is held as raw bits of T
/// (low 16 bits for 16-bit types). Strides 0..65535.
struct ScalarDesc {
  ScalarOp op = ScalarOp::vadds;
  uint32_t scalar_bits = 0;
  uint32_t repeat = 1;
  uint32_t dst_block_stride = 1;
  uint32_t src_block_stride = 1;
  uint32_t dst_repeat_stride = 8;
  uint32_t src_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  Operand dst{};
  Operand src{};
};

/// One reduction issue: vcadd/vcgadd/vcpadd/vcmax/vcmin. The destination has no block stride;
/// its repeat stride unit depends on the op (docs/a2a3-vector-semantics.md section 7, the table):
/// vcadd 1 element,
/// vcgadd 8 elements, vcpadd 128 B, vcmax/vcmin 2 elements (value_index, index_value),
/// 1 element (only_value) or 4 B (only_index). Strides 0..65535.
struct ReduceDesc {
  ReduceOp op = ReduceOp::vcadd;
  uint32_t repeat = 1;
  uint32_t src_block_stride = 1;
  uint32_t dst_repeat_stride = 1;
  uint32_t src_repeat_stride = 8;
  MaskMode mask_mode = MaskMode::normal;
  uint32_t vector_count = 0;
  uint32_t tail_elements = 0;
  bool repeat_stride_mode = false;
  bool stride_size_mode = false;
  /// vcadd `mode`: only 0 (one sum per repeat) is supported; checked for vcadd only.
  uint32_t vcadd_mode = 0;
  /// vcmax/vcmin output layout; ignored by the sums.
  ReduceOrder order = ReduceOrder::value_index;
  Operand dst{};
  Operand src{};
  /// A5 only (its row reductions run in vector registers, docs/a5-profile.md section 4): each
  /// repeat's result is combined, in repeat order, into one accumulator that starts at the op's
  /// identity (+0, -inf, +inf); only the accumulator is written, once, to dst. vcadd, or
  /// vcmax/vcmin with only_value; dst_repeat_stride 0.
  bool fold = false;
};

// ---- validation report ------------------------------------------------------------------------
/// What validate() found. On failure `field` names the descriptor field ("dst_block_stride",
/// "repeat", "src1.offset") or, for bounds and overlap, the operand ("src1"); memory failures
/// also carry the UB byte offset, repeat index and block index of the failing block (for
/// reduction destinations: the first output of the failing written range).
/// [[nodiscard]]: a validation whose report is dropped checked nothing, so the compiler flags it.
struct [[nodiscard]] DescReport {
  Status status = Status::ok;
  /// Failing field or operand; "" when ok. Always a string literal.
  const char* field = "";
  /// The failing field's value (descriptor rules, misaligned: the offset); for bounds and
  /// overlap the failing byte offset, saturated to 32 bits.
  uint32_t value = 0;
  /// The limit the value broke (255, 65535, lanes per repeat, alignment, UB size); 0 if none.
  uint32_t limit = 0;
  /// Memory rules: UB byte offset, repeat and block (or output) index of the failing block.
  uint64_t byte_offset = 0;
  uint64_t repeat_index = 0;
  uint32_t block_index = 0;
  /// illegal_overlap: the source operand hit, and its block's offset, repeat and index.
  const char* other = "";
  uint64_t other_offset = 0;
  uint64_t other_repeat = 0;
  uint32_t other_block = 0;
  /// The issue is a NOP (normal-mode mask with no applicable bit): ok, nothing else checked.
  bool nop = false;
  /// Some participating block or written output lies in the top kUbReservedTopBytes of UB:
  /// legal, but tools print a diagnostic (docs/a2a3-vector-semantics.md section 9).
  bool touches_reserved_ub = false;
  /// Repeats the issue executes (normal: repeat; count: ceil(count / lanes)); 0 if not reached.
  uint64_t repeats = 0;

  constexpr bool ok() const noexcept { return status == Status::ok; }
};

}  // namespace tilefw::desc
