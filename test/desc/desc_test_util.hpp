// Shared helpers of the desc tests: short constructors for operands and descriptors.
#pragma once

#include <cstdint>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace desc_test {

using tilefw::DType;
using tilefw::Status;
using tilefw::chip::MemSpace;
using namespace tilefw::desc;

inline constexpr uint32_t kUb = tilefw::chip::a2a3::kUbBytes;

constexpr Operand ub(uint32_t offset) { return Operand{MemSpace::UB, offset}; }

// Contiguous binary issue (block stride 1, repeat stride 8) with full repeats.
constexpr BinIntrinsicDesc bin(uint32_t repeat, uint32_t dst, uint32_t src0, uint32_t src1,
                               BinaryOp op = BinaryOp::vadd) {
  BinIntrinsicDesc d{};
  d.op = op;
  d.repeat = repeat;
  d.dst = ub(dst);
  d.src0 = ub(src0);
  d.src1 = ub(src1);
  return d;
}

constexpr BinIntrinsicDesc bin_count(uint32_t count, uint32_t dst, uint32_t src0, uint32_t src1) {
  BinIntrinsicDesc d = bin(0, dst, src0, src1);
  d.mask_mode = MaskMode::count;
  d.vector_count = count;
  return d;
}

constexpr UnaryDesc un(uint32_t repeat, uint32_t dst, uint32_t src, UnaryOp op = UnaryOp::vabs) {
  UnaryDesc d{};
  d.op = op;
  d.repeat = repeat;
  d.dst = ub(dst);
  d.src = ub(src);
  return d;
}

constexpr ScalarDesc sc(uint32_t repeat, uint32_t dst, uint32_t src, ScalarOp op = ScalarOp::vadds) {
  ScalarDesc d{};
  d.op = op;
  d.repeat = repeat;
  d.dst = ub(dst);
  d.src = ub(src);
  return d;
}

constexpr ReduceDesc red(ReduceOp op, uint32_t repeat, uint32_t dst, uint32_t src,
                         ReduceOrder order = ReduceOrder::value_index) {
  ReduceDesc d{};
  d.op = op;
  d.repeat = repeat;
  d.order = order;
  d.dst = ub(dst);
  d.src = ub(src);
  return d;
}

}  // namespace desc_test
