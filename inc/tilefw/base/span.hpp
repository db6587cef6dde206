// Span<T>: a non-owning view of contiguous caller memory (pointer + count), with checked
// access that returns Status instead of trapping. std::span exists in C++20, but firmware code
// here wants subspan/at that report errors rather than invoking undefined behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/result.hpp"

namespace tilefw {

template <typename T>
class Span {
 public:
  constexpr Span() noexcept = default;
  constexpr Span(T* data, size_t size) noexcept : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT
  // Span<const T> from Span<T>.
  template <typename U, typename = std::enable_if_t<std::is_same_v<const U, T>>>
  constexpr Span(Span<U> other) noexcept : data_(other.data()), size_(other.size()) {}  // NOLINT

  constexpr T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }

  // Unchecked element access (precondition: i < size()).
  constexpr T& operator[](size_t i) const noexcept { return data_[i]; }

  /// Checked element access.
  constexpr Result<T*> at(size_t i) const noexcept {
    if (i >= size_) return Status::index_out_of_range;
    return data_ + i;
  }

  /// [offset, offset + count) or index_out_of_range; never wraps.
  constexpr Result<Span> subspan(size_t offset, size_t count) const noexcept {
    if (offset > size_ || count > size_ - offset) return Status::index_out_of_range;
    return Span(data_ + offset, count);
  }
  /// [offset, size()) or index_out_of_range.
  constexpr Result<Span> subspan(size_t offset) const noexcept {
    if (offset > size_) return Status::index_out_of_range;
    return Span(data_ + offset, size_ - offset);
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

using ByteSpan = Span<uint8_t>;
using ConstByteSpan = Span<const uint8_t>;

}  // namespace tilefw
