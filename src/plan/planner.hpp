// Internals shared by the planner's files (src/plan/): the segment Builder that tracks the MASK
// state, operand slot access, the common tile checks and each stream family's entry point.
// Not installed: nothing outside src/plan includes it.
#pragma once

#include <cstdint>

#include "tilefw/base/result.hpp"
#include "tilefw/plan/plan.hpp"

namespace tilefw::plan::detail {

using desc::Mask128;
using desc::MaskMode;

// Operand slot access (plan.cpp). Slot 0 is the destination, 1 the (first) source, 2 src1 of
// a binary issue.
desc::Operand* slot(Step& s, int k) noexcept;
void set_repeat(Step& s, uint32_t repeat) noexcept;
void set_mode(Step& s, MaskMode m, uint32_t count) noexcept;
void set_strides(Step& s, int k, uint32_t blk, uint32_t rep) noexcept;
int slot_count_of(const Step& s) noexcept;  // operand slots of the step's kind

// Checks every stream applies (plan.cpp).
Status check_vec(const TileDesc& t, chip::Chip on) noexcept;
Status same_valid(const TileDesc& a, const TileDesc& b) noexcept;
Status nonempty(const TileDesc& t) noexcept;
uint32_t lanes(DType t) noexcept;

inline constexpr uint32_t kB = chip::a2a3::kBlockBytes;
inline constexpr uint32_t kMaxRep = chip::a2a3::kMaxRepeat;

struct Builder {
  Plan& p;
  Status err = Status::ok;
  MaskMode mode = MaskMode::normal;
  Mask128 mask = Mask128::all();
  uint32_t count = 0;

  void push(const Segment& g) noexcept {
    if (err != Status::ok) return;
    err = p.append(g);
  }
  void mode_step(StepKind k, Mask128 m, uint32_t n) noexcept {
    Segment g{};
    g.step.kind = k;
    g.step.mask = m;
    g.step.count = n;
    push(g);
  }
  // Normal mode with MASK m (emits only the changes).
  void use_mask(Mask128 m) noexcept {
    if (mode == MaskMode::count) {
      mode_step(StepKind::set_mask_norm, mask, 0);
      mode = MaskMode::normal;
    }
    if (!(mask == m)) {
      mode_step(StepKind::set_mask, m, 0);
      mask = m;
    }
  }
  void use_count(uint32_t n) noexcept {
    if (mode != MaskMode::count || count != n) {
      mode_step(StepKind::set_mask_count, Mask128{0, n}, n);
      mode = MaskMode::count;
      count = n;
      mask = Mask128{0, n};
    }
  }
  void finish() noexcept { use_mask(Mask128::all()); }

  // Emits `g` with the current state recorded (normal: repeat as given; count: repeat 0).
  void issue(Segment g) noexcept {
    g.step.mode = mode;
    g.step.mask = mask;
    g.step.count = mode == MaskMode::count ? count : 0;
    set_mode(g.step, mode, g.step.count);
    if (mode == MaskMode::count) {
      set_repeat(g.step, 0);
      g.last_inner_repeat = 0;
    }
    push(g);
  }
};

// Operand geometry for the elementwise scheduler.

// A UB -> UB copy segment recorded under the builder's current MASK state (column.cpp).
Segment copy_segment(DType dt, uint32_t dst, uint32_t src, uint32_t nburst, uint32_t len, uint32_t src_gap,
                     uint32_t dst_gap, const Builder& b) noexcept;

// The stream families: each builds `out` for its ops (plan_tile validates it afterwards).
Status plan_elementwise(const Request& q, Plan& out) noexcept;  // elementwise.cpp
// The same for the binary ops only (plan_tile_binary): links no other family's prototype.
Status plan_elementwise_binary(const Request& q, Plan& out) noexcept;  // elementwise.cpp
Status plan_row_reduce(const Request& q, Plan& out) noexcept;   // row_reduce.cpp
Status plan_col(const Request& q, Plan& out) noexcept;          // column.cpp
Status plan_row_expand(const Request& q, Plan& out) noexcept;   // row_expand.cpp
// The transpose names its failing operand or field in `report` (when given).
Status plan_transpose(const Request& q, Plan& out, desc::DescReport* report) noexcept;  // transpose.cpp
Status plan_gather(const Request& q, Plan& out, desc::DescReport* report) noexcept;     // gather.cpp
// TSELS and TFILLPAD; on failure `report` (when given) names the failing operand or field.
Status plan_select_pad(const Request& q, Plan& out, desc::DescReport* report) noexcept;  // select_pad.cpp
// TCMP, TCMPS and TSEL; the same reporting.
Status plan_compare(const Request& q, Plan& out, desc::DescReport* report) noexcept;  // compare.cpp

}  // namespace tilefw::plan::detail
