// PTO's GM view: GlobalTensor<T, Shape<...>, Stride<...>> over a `__gm__ T*`. tilefw's tensors
// are 2-D row-major, so the three outer dimensions must be 1 and the inner stride 1; at each
// TLOAD / TSTORE the pointer becomes a GM offset (pointer minus the current context's gm_base)
// and the view a tilefw::tile::GlobalTensor, which checks the GM window.
// Core header: no heap, no exceptions, builds for Cortex-M.
#pragma once

#include <cstdint>

#include "pto/types.hpp"
#include "tilefw/tile/tile.hpp"

namespace pto {

template <int N1 = 1, int N2 = 1, int N3 = 1, int N4 = DYNAMIC, int N5 = DYNAMIC>
struct Shape {
  static constexpr int kDims[5] = {N1, N2, N3, N4, N5};
  int rows = N4;
  int cols = N5;
  constexpr Shape() noexcept = default;
  /// The dynamic inner dimensions (rows, cols).
  constexpr Shape(int r, int c) noexcept : rows(N4 == DYNAMIC ? r : N4), cols(N5 == DYNAMIC ? c : N5) {}
};

template <int S1 = DYNAMIC, int S2 = DYNAMIC, int S3 = DYNAMIC, int S4 = DYNAMIC, int S5 = 1>
struct Stride {
  static constexpr int kStrides[5] = {S1, S2, S3, S4, S5};
  int row_stride = S4;
  constexpr Stride() noexcept = default;
  constexpr explicit Stride(int rs) noexcept : row_stride(S4 == DYNAMIC ? rs : S4) {}
};

template <class T, class ShapeT, class StrideT>
class GlobalTensor {
  static_assert(ShapeT::kDims[0] == 1 && ShapeT::kDims[1] == 1 && ShapeT::kDims[2] == 1,
                "Fix: tilefw's GM tensors are 2-D: the three outer Shape dimensions must be 1");
  static_assert(StrideT::kStrides[4] == 1, "Fix: tilefw's GM tensors are row-major: the inner Stride must be 1");

 public:
  using DType = detail::elem_t<T>;
  using Pointer = T*;
  static constexpr int kRows = ShapeT::kDims[3];
  static constexpr int kCols = ShapeT::kDims[4];
  static constexpr int kRowStride = StrideT::kStrides[3];

  constexpr GlobalTensor() noexcept = default;
  constexpr explicit GlobalTensor(T* data, ShapeT shape = ShapeT{}, StrideT stride = StrideT{}) noexcept
      : data_(data), shape_(shape), stride_(stride) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr void set_data(T* p) noexcept { data_ = p; }
  constexpr uint32_t rows() const noexcept { return static_cast<uint32_t>(shape_.rows); }
  constexpr uint32_t cols() const noexcept { return static_cast<uint32_t>(shape_.cols); }
  /// The row stride in elements; a dynamic one left unset is the row length.
  constexpr uint32_t row_stride() const noexcept {
    return static_cast<uint32_t>(stride_.row_stride == DYNAMIC ? shape_.cols : stride_.row_stride);
  }

 private:
  T* data_ = nullptr;
  ShapeT shape_{};
  StrideT stride_{};
};

namespace detail {
template <class G>
inline constexpr bool kIsGlobal = false;
template <class T, class S, class R>
inline constexpr bool kIsGlobal<GlobalTensor<T, S, R>> = true;
}  // namespace detail

/// TASSIGN(tensor, ptr): points the view at GM data.
template <class T, class S, class R>
constexpr void TASSIGN(GlobalTensor<T, S, R>& g, T* ptr) noexcept {
  g.set_data(ptr);
}

}  // namespace pto
