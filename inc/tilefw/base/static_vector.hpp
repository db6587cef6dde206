// Fixed-capacity containers with in-object storage: StaticVector<T, N> (a vector that never
// allocates; push_back reports capacity_exceeded) and RingBuffer<T, N> (a FIFO queue).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "tilefw/base/result.hpp"

namespace tilefw {

template <typename T, size_t N>
class StaticVector {
  static_assert(N > 0, "Fix: a StaticVector needs a capacity of at least 1");

 public:
  constexpr StaticVector() noexcept {}
  // Copies exist only for copyable T, so a vector of move-only items (handles, builders) is
  // itself move-only rather than failing deep inside an instantiation.
  constexpr StaticVector(const StaticVector& other) requires std::is_copy_constructible_v<T> {
    for (size_t i = 0; i < other.size_; ++i) std::construct_at(slot(i), other[i]);
    size_ = other.size_;
  }
  constexpr StaticVector& operator=(const StaticVector& other) requires std::is_copy_constructible_v<T> {
    if (this != &other) {
      clear();
      for (size_t i = 0; i < other.size_; ++i) std::construct_at(slot(i), other[i]);
      size_ = other.size_;
    }
    return *this;
  }
  /// Moves the elements one by one (storage is in-object, nothing to steal) and leaves
  /// `other` empty, so a moved-from vector is in a known state.
  constexpr StaticVector(StaticVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    take(other);
  }
  constexpr StaticVector& operator=(StaticVector&& other) noexcept(
      std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      clear();
      take(other);
    }
    return *this;
  }
  constexpr ~StaticVector() { clear(); }

  static constexpr size_t capacity() noexcept { return N; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr bool full() const noexcept { return size_ == N; }

  /// Appends a copy, or capacity_exceeded (the vector is unchanged).
  [[nodiscard]] constexpr Status push_back(const T& value) {
    if (size_ == N) return Status::capacity_exceeded;
    std::construct_at(slot(size_), value);
    ++size_;
    return Status::ok;
  }
  /// Appends by moving, or capacity_exceeded (the vector and `value` are unchanged).
  [[nodiscard]] constexpr Status push_back(T&& value) {
    if (size_ == N) return Status::capacity_exceeded;
    std::construct_at(slot(size_), std::move(value));
    ++size_;
    return Status::ok;
  }
  template <typename... Args>
  [[nodiscard]] constexpr Status emplace_back(Args&&... args) {
    if (size_ == N) return Status::capacity_exceeded;
    std::construct_at(slot(size_), std::forward<Args>(args)...);
    ++size_;
    return Status::ok;
  }
  /// Removes the last element; index_out_of_range when empty.
  [[nodiscard]] constexpr Status pop_back() noexcept {
    if (size_ == 0) return Status::index_out_of_range;
    --size_;
    std::destroy_at(slot(size_));
    return Status::ok;
  }
  constexpr void clear() noexcept {
    while (size_ > 0) {
      --size_;
      std::destroy_at(slot(size_));
    }
  }

  constexpr T& operator[](size_t i) noexcept { return *slot(i); }
  constexpr const T& operator[](size_t i) const noexcept { return *slot(i); }
  constexpr Result<T*> at(size_t i) noexcept {
    if (i >= size_) return Status::index_out_of_range;
    return slot(i);
  }
  constexpr T* begin() noexcept { return slot(0); }
  // One past the last element by pointer arithmetic: indexing storage_[size_] would read
  // past the array when the vector is full (UBSan caught exactly that).
  constexpr T* end() noexcept { return begin() + size_; }
  constexpr const T* begin() const noexcept { return slot(0); }
  constexpr const T* end() const noexcept { return begin() + size_; }
  constexpr T& back() noexcept { return *slot(size_ - 1); }

 private:
  constexpr void take(StaticVector& other) {
    for (size_t i = 0; i < other.size_; ++i) std::construct_at(slot(i), std::move(other[i]));
    size_ = other.size_;
    other.clear();
  }
  constexpr T* slot(size_t i) noexcept { return &storage_[i].value; }
  constexpr const T* slot(size_t i) const noexcept { return &storage_[i].value; }

  union Slot {
    constexpr Slot() noexcept : none() {}
    constexpr ~Slot() {}
    struct None {} none;
    T value;
  };
  Slot storage_[N];
  size_t size_ = 0;
};

/// Single-producer single-consumer FIFO of trivially copyable items (queues of command ids,
/// events). Capacity N; push on a full queue reports capacity_exceeded and changes nothing.
template <typename T, size_t N>
class RingBuffer {
  static_assert(N > 0, "Fix: a RingBuffer needs a capacity of at least 1");
  static_assert(std::is_trivially_copyable_v<T>, "Fix: RingBuffer holds trivially copyable items");

 public:
  static constexpr size_t capacity() noexcept { return N; }
  constexpr size_t size() const noexcept { return count_; }
  constexpr bool empty() const noexcept { return count_ == 0; }
  constexpr bool full() const noexcept { return count_ == N; }

  [[nodiscard]] constexpr Status push(const T& value) noexcept {
    if (count_ == N) return Status::capacity_exceeded;
    items_[(head_ + count_) % N] = value;
    ++count_;
    return Status::ok;
  }
  /// Removes and returns the oldest item, or index_out_of_range when empty.
  constexpr Result<T> pop() noexcept {
    if (count_ == 0) return Status::index_out_of_range;
    const T value = items_[head_];
    head_ = (head_ + 1) % N;
    --count_;
    return value;
  }
  constexpr Result<T> front() const noexcept {
    if (count_ == 0) return Status::index_out_of_range;
    return items_[head_];
  }
  constexpr void clear() noexcept { head_ = count_ = 0; }

 private:
  T items_[N]{};
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace tilefw
