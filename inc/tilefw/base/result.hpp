// Result<T>: a value or a non-ok Status, [[nodiscard]], usable in constexpr code and without
// exceptions. TILEFW_TRY / TILEFW_TRY_ASSIGN propagate failures in one line.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "tilefw/base/status.hpp"

namespace tilefw {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result<T&> is not supported; return a pointer");

 public:
  // A value means success.
  constexpr Result(const T& value) noexcept(std::is_nothrow_copy_constructible_v<T>)  // NOLINT
      : status_(Status::ok), value_(value) {}
  constexpr Result(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT
      : status_(Status::ok), value_(std::move(value)) {}
  // A Status means failure; constructing from Status::ok would hold no value, so it becomes
  // invalid_argument (a programming error that must not look like success).
  constexpr Result(Status status) noexcept  // NOLINT
      : status_(status == Status::ok ? Status::invalid_argument : status), empty_{} {}

  constexpr Result(const Result& other) : status_(other.status_), empty_{} {
    if (other.ok()) std::construct_at(&value_, other.value_);
  }
  constexpr Result(Result&& other) noexcept : status_(other.status_), empty_{} {
    if (other.ok()) std::construct_at(&value_, std::move(other.value_));
  }
  constexpr Result& operator=(const Result& other) {
    if (this != &other) {
      reset();
      status_ = other.status_;
      if (other.ok()) std::construct_at(&value_, other.value_);
    }
    return *this;
  }
  constexpr Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      reset();
      status_ = other.status_;
      if (other.ok()) std::construct_at(&value_, std::move(other.value_));
    }
    return *this;
  }
  constexpr ~Result() { reset(); }

  constexpr bool ok() const noexcept { return status_ == Status::ok; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr Status status() const noexcept { return status_; }

  // Precondition: ok(). Reading the value of a failed Result is a programming error.
  constexpr T& value() & noexcept { return value_; }
  constexpr const T& value() const& noexcept { return value_; }
  constexpr T&& value() && noexcept { return std::move(value_); }
  constexpr T* operator->() noexcept { return &value_; }
  constexpr const T* operator->() const noexcept { return &value_; }
  constexpr T& operator*() & noexcept { return value_; }
  constexpr const T& operator*() const& noexcept { return value_; }

  constexpr T value_or(T fallback) const noexcept { return ok() ? value_ : fallback; }

 private:
  struct Empty {};
  constexpr void reset() noexcept {
    if (status_ == Status::ok) {
      if constexpr (!std::is_trivially_destructible_v<T>) value_.~T();
    }
  }

  Status status_;
  union {
    T value_;
    Empty empty_;
  };
};

namespace detail {
constexpr Status status_of(Status s) noexcept { return s; }
template <typename T>
constexpr Status status_of(const Result<T>& r) noexcept {
  return r.status();
}
}  // namespace detail

}  // namespace tilefw

#define TILEFW_CONCAT_INNER(a, b) a##b
#define TILEFW_CONCAT(a, b) TILEFW_CONCAT_INNER(a, b)

/// Evaluates `expr` (a Status or a Result<T>); returns its Status from the enclosing function
/// when it is not ok.
#define TILEFW_TRY(expr)                                                          \
  do {                                                                            \
    const ::tilefw::Status tilefw_try_status_ = ::tilefw::detail::status_of(expr); \
    if (tilefw_try_status_ != ::tilefw::Status::ok) return tilefw_try_status_;    \
  } while (false)

/// `TILEFW_TRY_ASSIGN(auto x, make_x());` declares x from a Result's value, or returns the
/// Result's Status from the enclosing function.
#define TILEFW_TRY_ASSIGN(decl, expr)                                        \
  auto TILEFW_CONCAT(tilefw_try_result_, __LINE__) = (expr);                 \
  if (!TILEFW_CONCAT(tilefw_try_result_, __LINE__).ok())                     \
    return TILEFW_CONCAT(tilefw_try_result_, __LINE__).status();             \
  decl = std::move(TILEFW_CONCAT(tilefw_try_result_, __LINE__)).value()
