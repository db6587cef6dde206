// Validate once, then trust (docs/design.md section 7): desc::Validated<D> is a descriptor
// together with the
// dtype and the MASK it passed validation against. Only validation makes one: its constructor
// is private, friend to desc::Validator (which runs the full rule set) and to
// plan::TrustedStep (a step of a plan that plan_seal validated whole). The issue layer emits a
// Validated<D> with register writes and the doorbell only; a plain descriptor goes through
// issue_once, which validates it first.
#pragma once

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/desc/validate_vector_cmp.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"
#include "tilefw/desc/validate_vector_gather.hpp"
#include "tilefw/desc/validate_tile_move.hpp"
#include "tilefw/desc/validate_vector.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::plan {
class TrustedStep;  // the plan layer's minter (steps of a plan validated whole); no include
}  // namespace tilefw::plan

namespace tilefw::desc {

template <class D>
class Validated {
 public:
  constexpr const D& desc() const noexcept { return d_; }
  /// The element type it was validated with (ignored by copy, cvt, moves and matmuls).
  constexpr DType dtype() const noexcept { return dt_; }
  /// The MASK it was validated against: the issue layer puts it back in place when the unit's
  /// shadow differs, so the issue runs in exactly the validated state.
  constexpr Mask128 mask() const noexcept { return live_; }

 private:
  constexpr Validated(const D& d, DType dt, Mask128 live) noexcept : d_(d), dt_(dt), live_(live) {}
  D d_;
  DType dt_;
  Mask128 live_;
  friend class Validator;
  friend class plan::TrustedStep;
};

namespace detail {
// The full rule set of each descriptor kind, under one signature (`on`: the chip profile).
using chip::Chip;
constexpr DescReport full_report(const BinIntrinsicDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const UnaryDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const ScalarDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const ReduceDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const CopyDesc& d, DType, Mask128, Chip on) noexcept { return validate(d, on); }
constexpr DescReport full_report(const DupDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const CvtDesc& d, DType, Mask128 m, Chip on) noexcept { return validate(d, m, on); }
constexpr DescReport full_report(const BrcbDesc& d, DType dt, Mask128, Chip on) noexcept { return validate(d, dt, on); }
constexpr DescReport full_report(const GatherDesc& d, DType dt, Mask128 m, Chip on) noexcept { return validate(d, dt, m, on); }
constexpr DescReport full_report(const CmpDesc& d, DType dt, Mask128, Chip on) noexcept { return validate(d, dt, on); }
constexpr DescReport full_report(const SelDesc& d, DType dt, Mask128, Chip on) noexcept { return validate(d, dt, on); }
constexpr DescReport full_report(const MoveDesc& d, DType, Mask128, Chip on) noexcept { return validate(d, on); }
constexpr DescReport full_report(const MatmulDesc& d, DType, Mask128, Chip on) noexcept { return validate(d, on); }

template <class D>
concept HasQuickPath = requires(const D& d, DType dt, Mask128 m) { quick_valid(d, dt, m, Chip::a2a3); };

template <class D>
[[gnu::noinline]] DescReport full_report_out_of_line(const D& d, DType dt, Mask128 m, Chip on) noexcept {
  return full_report(d, dt, m, on);
}
}  // namespace detail

class Validator {
 public:
  /// Validates `d` for dtype `dt` against the MASK `live` (what the unit will hold when the
  /// issue runs; moves and matmuls ignore both). The common, certainly-valid arithmetic issue
  /// is accepted by quick_valid without building a report; everything else runs the full
  /// rules. `report`, when given, receives the report (ok or the failure). `on`: the chip
  /// profile whose memory sizes bound the operands (the build's by default).
  template <class D>
  [[nodiscard]] static Result<Validated<D>> check(const D& d, DType dt = DType::f32, Mask128 live = Mask128::all(),
                                                  DescReport* report = nullptr,
                                                  chip::Chip on = chip::kBuildChip) noexcept {
    const Status s = verdict(d, dt, live, report, on);
    if (s != Status::ok) return s;
    return Validated<D>(d, dt, live);
  }

  /// The same verdict without making a Validated<> (issue_once validates and emits at once).
  template <class D>
  [[nodiscard]] static Status verdict(const D& d, DType dt, Mask128 live, DescReport* report = nullptr,
                                      chip::Chip on = chip::kBuildChip) noexcept {
    if constexpr (detail::HasQuickPath<D>) {
      if (const QuickVerdict v = quick_valid(d, dt, live, on)) {
        if (report != nullptr) *report = quick_report(v);
        return Status::ok;
      }
    }
    const DescReport r = detail::full_report_out_of_line(d, dt, live, on);
    if (report != nullptr) *report = r;
    return r.status;
  }
};

}  // namespace tilefw::desc
