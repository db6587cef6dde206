// Reuse of generated expert blocks in a MoE layer's experts' phase (docs/moe-phases.md,
// "Copied expert blocks"). The control core pays per command it builds; in decode most experts
// of a core run on the same number of rows, so their blocks differ only in the expert's weight
// addresses, its index and routing-weight columns, and their dependencies' ids. Every block
// starts from a settled dependency state (settle_tracker), so a block's dependencies are the
// same relative to its start wherever it stands; with two blocks of one shape already written,
// a third is their copy: each field that differs between the two is either a dependency
// (shifted by the other engine's commands since) or linear in the expert (extended along the
// line the two samples give). Anything else (a field whose change is not a whole multiple of
// the expert step, a dependency that is not start-relative, a command that differs in class)
// means no copy: the block is built as usual. The comparison runs once per shape and leaves a
// relocation plan (which word of which command moves, how); a copy is then the later sample's
// bytes with the plan applied. A copied command whose moved fields are only dependencies and
// linear DMA addresses that stay inside the validator's memory rule is marked checked
// (PhaseRequest::checked): its operands are the later sample's, which validation checks. Two samples cannot tell a linear field
// from any other that happens to change: the copies rest on a contract of run_expert (moe.cpp),
// that every field of a block that depends on the expert is linear in its index (weight rows
// e x I and e x H, the index and routing-weight columns e), and tests hold copied phases
// byte-equal to built ones.
#pragma once

#include <cstdint>

#include "emit.hpp"

namespace tilefw::gen::detail {

class ExpertBlocks {
 public:
  /// Copies are attempted when the phase asks for them and gives room for their plans, the
  /// streams are written (not counted) and a listening OpSink can take copied blocks.
  explicit ExpertBlocks(Ctx& ctx) noexcept;
  /// Where the next block starts (call after settle_tracker).
  void begin() noexcept;
  /// Writes the block of expert `e` with `rows` rows as a copy. `variant` tells apart blocks of
  /// one row count that differ otherwise (one pass: 1 when the block starts the partial; in
  /// passes: the block's first row within its expert);
  /// false when no pair of samples of this shape exists, no plan can be derived from them, or a
  /// moved field would leave its range (nothing is counted then; bytes may be left past the
  /// streams' used ends, where the next command is built over them). `slot` is set to the weight
  /// slot the block leaves next.
  bool copy(uint32_t e, uint32_t rows, uint32_t variant, uint32_t& slot) noexcept;
  /// Records the block just built (from begin() to here) as a sample of its shape.
  void record(uint32_t e, uint32_t rows, uint32_t variant, uint32_t slot) noexcept;

 private:
  struct Sample {
    uint32_t expert = 0;
    uint64_t start[kEngines] = {}, end[kEngines] = {};
    uint32_t count0[kEngines] = {}, count1[kEngines] = {};
    uint32_t slot = 0;
  };
  // A shape's relocation plan: entries [begin, end) of plans_ per engine (TIU, GDMA).
  enum class PlanState : uint8_t { none, ready, failed };
  struct Shape {
    uint32_t rows = 0;
    uint32_t variant = 0;
    uint8_t samples = 0;  // 0..2; [1] is the later one
    PlanState plan = PlanState::none;
    uint32_t begin[2] = {}, end[2] = {};
    Sample s[2];
  };
  static constexpr uint32_t kShapes = 8;

  Shape* find(uint32_t rows, uint32_t variant) noexcept;
  bool derive(Shape& sh) noexcept;
  bool derive_engine(uint32_t k, const Sample& a, const Sample& b) noexcept;
  bool push(uint64_t w0, uint64_t w1) noexcept;
  bool apply_engine(uint32_t k, const Shape& sh, uint32_t e, uint32_t& fields) noexcept;
  void mark_checked(uint32_t k, uint32_t first_id, uint32_t n, bool on) noexcept;

  Ctx& ctx_;
  bool enabled_ = false;
  Stream* streams_[kEngines] = {};
  uint64_t start_[kEngines] = {};
  uint32_t count0_[kEngines] = {};
  Shape shapes_[kShapes];
  uint32_t used_ = 0;
  Span<uint64_t> plans_{};
  uint32_t plan_words_ = 0;
  bool plan_full_ = false;  // the last derivation ran out of room
};

}  // namespace tilefw::gen::detail
