// PTO's single-issue binary intrinsic: TBIN_INTRIN<Op>(dst, src0, src1, desc) issues exactly one
// vector binary instruction described by BinIntrinsicDesc (PTO's camelCase fields), validated by
// tilefw's descriptor validator (tilefw/desc/validate_vector.hpp) first; ValidateBinIntrinsicDesc
// and IsBinIntrinsicDescValid run that validator alone. Core header: no heap, no exceptions,
// builds for Cortex-M.
#pragma once

#include <cstdint>

#include "pto/forward.hpp"
#include "tilefw/base/dtype.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace pto {

enum class MaskMode : uint8_t { Normal, Count };

/// One binary issue. Units as PTO's: strides in 32 B blocks, vectorCount and tailElements in
/// elements. Wider than PTO's 8-bit fields so that an out-of-range value reaches the validator
/// (which names the field) instead of wrapping.
struct BinIntrinsicDesc {
  uint32_t repeat = 1;
  uint32_t dstBlockStride = 1;
  uint32_t src0BlockStride = 1;
  uint32_t src1BlockStride = 1;
  uint32_t dstRepeatStride = 8;
  uint32_t src0RepeatStride = 8;
  uint32_t src1RepeatStride = 8;
  MaskMode maskMode = MaskMode::Normal;
  uint32_t vectorCount = 0;
  uint32_t tailElements = 0;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

/// The validator's verdict: tilefw's Status (ok, or the desc_* rule that failed).
using BinIntrinsicDescStatus = tilefw::Status;

/// The operation types TBIN_INTRIN takes.
struct AddOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vadd;
};
struct SubOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vsub;
};
struct MulOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vmul;
};
struct DivOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vdiv;
};
struct MaxOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vmax;
};
struct MinOp {
  static constexpr tilefw::desc::BinaryOp kOp = tilefw::desc::BinaryOp::vmin;
};

namespace detail {
constexpr tilefw::desc::BinIntrinsicDesc to_tilefw(const BinIntrinsicDesc& d, tilefw::desc::BinaryOp op,
                                                   uint64_t dst, uint64_t src0, uint64_t src1) noexcept {
  tilefw::desc::BinIntrinsicDesc t{};
  t.op = op;
  t.repeat = d.repeat;
  t.dst_block_stride = d.dstBlockStride;
  t.src0_block_stride = d.src0BlockStride;
  t.src1_block_stride = d.src1BlockStride;
  t.dst_repeat_stride = d.dstRepeatStride;
  t.src0_repeat_stride = d.src0RepeatStride;
  t.src1_repeat_stride = d.src1RepeatStride;
  t.mask_mode = d.maskMode == MaskMode::Count ? tilefw::desc::MaskMode::count : tilefw::desc::MaskMode::normal;
  t.vector_count = d.vectorCount;
  t.tail_elements = d.tailElements;
  t.repeat_stride_mode = d.repeatStrideMode;
  t.stride_size_mode = d.strideSizeMode;
  t.dst = tilefw::desc::Operand{tilefw::chip::MemSpace::UB, static_cast<uint32_t>(dst)};
  t.src0 = tilefw::desc::Operand{tilefw::chip::MemSpace::UB, static_cast<uint32_t>(src0)};
  t.src1 = tilefw::desc::Operand{tilefw::chip::MemSpace::UB, static_cast<uint32_t>(src1)};
  return t;
}

/// Widens each operand's tracked bytes (dst, src0, src1: a tile's capacity) to the UB bytes the
/// descriptor's repeats and strides make it touch, when those reach past the tile, so Auto sync
/// waits for (and Manual sync checks) the writers and readers of every byte the issue uses.
/// `live` is the MASK a Normal-mode issue without a tail runs under.
void widen_to_footprint(Access (&ops)[3], const tilefw::desc::BinIntrinsicDesc& d, tilefw::DType dt,
                        tilefw::desc::Mask128 live) noexcept;

/// Waits on pipe V, validates and issues one binary descriptor; the event of the issue.
tilefw::Result<tilefw::tile::Event> issue_binary(tilefw::tile::Core& core, const tilefw::desc::BinIntrinsicDesc& d,
                                                 tilefw::DType dt, const tilefw::tile::Event* waits, size_t n) noexcept;
}  // namespace detail

/// The validator's verdict on `d` for element type T (operands at UB offset 0, so the memory
/// rules see the footprint from the start of UB): ok or the failing rule's Status.
template <class T>
constexpr BinIntrinsicDescStatus ValidateBinIntrinsicDesc(const BinIntrinsicDesc& d) noexcept {
  return tilefw::desc::validate(detail::to_tilefw(d, tilefw::desc::BinaryOp::vadd, 0, 0, 0),
                                tilefw::dtype_of<detail::elem_t<T>>)
      .status;
}

template <class T>
constexpr bool IsBinIntrinsicDescValid(const BinIntrinsicDesc& d) noexcept {
  return ValidateBinIntrinsicDesc<T>(d) == tilefw::Status::ok;
}

/// TBIN_INTRIN<Op>(dst, src0, src1, desc, events...): one issue of Op over the tiles' UB bytes as
/// `desc` lays them out (the tiles give the start addresses and the element type). The bytes
/// synchronised for each operand are its tile and, past it, whatever `desc` reaches.
template <class OpType, class D, class A, class B, class... E>
RecordEvent TBIN_INTRIN(D& dst, A& src0, B& src1, const BinIntrinsicDesc& desc, const E&... events) noexcept {
  static_assert(tilefw::tile::kIsVec<D> && tilefw::tile::kIsVec<A> && tilefw::tile::kIsVec<B>,
                "Fix: TBIN_INTRIN takes unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> &&
                    std::is_same_v<typename D::DType, typename B::DType>,
                "Fix: TBIN_INTRIN's operands share one element type");
  static constexpr const char* kNames[] = {"dst", "src0", "src1"};
  Context* c = detail::usable();
  if (c == nullptr || !detail::place_all(*c, "TBIN_INTRIN", kNames, dst, src0, src1)) return {};
  const tilefw::desc::BinIntrinsicDesc d =
      detail::to_tilefw(desc, OpType::kOp, dst.address(), src0.address(), src1.address());
  const auto call = [&](tilefw::tile::Core& k, const auto&... w) noexcept {
    const tilefw::tile::Event list[sizeof...(w) + 1] = {w..., tilefw::tile::Event{}};
    return detail::issue_binary(k, d, tilefw::dtype_of<typename D::DType>, list, sizeof...(w));
  };
  detail::Accesses<3> ops = detail::accesses(dst, src0, src1);
  detail::widen_to_footprint(ops.list, d, tilefw::dtype_of<typename D::DType>, c->tile.vu.mask);
  return detail::issue(*c, "TBIN_INTRIN", ops, call, events...);
}

}  // namespace pto
