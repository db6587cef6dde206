// The a2a3 vector unit of the host simulator: attaches to a Machine, executes one issue per
// DOORBELL write from the registers of chip::a2a3::vreg, bit-exactly per
// docs/a2a3-vector-semantics.md.
#pragma once

#include <cstdint>

#include "a2a3/pipes.hpp"
#include "a2a3/timing.hpp"
#include "a2a3/vector_check.hpp"
#include "machine.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

namespace tilefw::port::host {

/// Numeric rules the simulator implements where the sources leave a choice (the rules of
/// docs/a2a3-vector-semantics.md and its section 12, open items), all pinned by tests:
/// - Every float result is correctly rounded to its dtype (nearest even), the transcendentals
///   and division included (Rule: correctly rounded transcendentals, section 6.2):
///   - f16: computed in double and rounded once to half. For add/sub/mul/div/sqrt/reciprocal the
///     double intermediate is innocuous (53 >= 2*11+2 bits); for exp, ln and rsqrt all 65536
///     inputs are checked against a binary128 reference (test/sim/a2a3/test_vector_cr.cpp).
///   - f32: add/sub/mul/div, sqrt and reciprocal are IEEE float operations. exp and ln are
///     evaluated in long double and rounded once (exact for every input: checked exhaustively
///     over all 2^32 inputs, see the .cpp); rsqrt takes a long double candidate and settles it
///     by an exact integer test against its neighbouring midpoints. Binades and a random sample
///     are re-checked against binary128 on every build.
/// - NaN results are the canonical quiet NaN (f16 0x7E00, f32 0x7FC00000).
/// - vmax/vmin/vcmax/vcmin: a NaN operand gives NaN (vcmax/vcmin: the first NaN lane wins);
///   max(-0,+0) = +0, min(-0,+0) = -0; ties give the smallest lane index. vrelu(x) = x > 0 ? x
///   : +0, NaN stays NaN.
/// - Saturation mode (CTRL[48] = 0) applies to the f16 results the unit computes: every
///   elementwise result (arithmetic, scalar ops, vmax/vmin, vabs, vrelu, transcendentals),
///   every step of the vcadd/vcgadd/vcpadd trees, and vconv to f16: +-inf -> +-65504, NaN -> 0.
///   Values selected or moved rather than computed are stored unsaturated: vcmax/vcmin store the
///   selected input (an inf stays inf; a NaN is stored as the canonical 0x7E00), vector_dup the
///   scalar's bits, copies and vbrcb the bytes. f32 ignores the mode (Inf/NaN only).
/// - Integers wrap (two's complement).
/// - vconv: f16/bf16 -> f32 exact; f32 -> f16 in the requested RoundMode (rint = nearest even,
///   round = nearest, ties away from zero, floor, ceil, trunc, odd = round to odd: an inexact
///   result takes the neighbour with an odd last bit); f32 -> bf16 nearest even; i32 -> f32
///   nearest even; f32/f16 -> i32 in the RoundMode, saturating to [INT32_MIN, INT32_MAX], NaN
///   -> 0. NaN results are canonical; saturation mode applies to f16 results.
/// - copy_ubuf_to_ubuf moves bytes; vector_dup writes the scalar's bits to every participating
///   lane; vbrcb writes E copies of src[8r + k] into dst block k of repeat r; vgather moves
///   the bytes of each gathered element (an address outside UB or misaligned faults the issue).
/// - vcmpv/vcmpvs/vsel (tilefw's model, tilefw/desc/data/vector_cmp_desc.hpp): predicate bit k
///   of a repeat is bit k % 8 of byte k / 8; compares are IEEE's (NaN: only NE true, +0 == -0);
///   vsel copies the chosen source's bits.
class A2a3VectorUnit {
 public:
  /// Hooks the DOORBELL of the register window at `register_base` (0: the profile's window) on
  /// `machine` and puts CTRL/MASK in the reset state (normal, Inf/NaN, MASK all ones). The unit must
  /// outlive the machine's use (it is neither copyable nor movable).
  /// `pipes` (optional, e.g. A2a3Core's) counts the unit's issues as pipe V and checks what
  /// each reads against other pipes' writes.
  explicit A2a3VectorUnit(Machine& machine, uint64_t register_base = 0, PipeTracker* pipes = nullptr);
  A2a3VectorUnit(const A2a3VectorUnit&) = delete;
  A2a3VectorUnit& operator=(const A2a3VectorUnit&) = delete;

  /// Status and validation report of the last issue (ok and an empty report before any).
  Status last_status() const noexcept { return status_; }
  const desc::DescReport& last_report() const noexcept { return report_; }
  /// Issues taken (doorbells), and how many of them were NOPs or faults.
  uint64_t issues() const noexcept { return issues_; }
  uint64_t nops() const noexcept { return nops_; }
  uint64_t faults() const noexcept { return faults_; }
  /// Times every issue on `timer` (optional; nullptr: no timing). Timing never changes a result.
  void set_timer(timing::PipeTimer* timer) noexcept { timer_ = timer; }

 private:
  void on_doorbell() noexcept;
  // Records the validation outcome (STATUS, FAULT_OFFSET, counters); true when the issue is to
  // be executed (ok, not a NOP).
  bool take(const desc::DescReport& r) noexcept;
  // copy_ubuf_to_ubuf, vector_dup, vconv and vbrcb (op classes 0x40..0x70).
  void on_move_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, uint64_t ctrl, desc::Mask128 mask,
                     uint32_t repeat, uint32_t dst_off, uint32_t src_off, uint32_t dst_stride,
                     uint32_t src_stride) noexcept;
  // vgather (op class 0xA0, a2a3/vector_gather.cpp): register checks, then every gathered
  // address, then the gather.
  void on_gather_issue(const vector_check::ArithIssue& a) noexcept;
  // vcmpv/vcmpvs and vsel (op classes 0x80, 0x90; a2a3/vector_cmp.cpp).
  void on_cmp_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, uint32_t repeat) noexcept;
  Machine& machine_;
  uint64_t base_;
  uint8_t* ub_ = nullptr;
  const uint32_t* words_ = nullptr;  // the register window in the machine's flat space, if there
  Status status_ = Status::ok;
  desc::DescReport report_{};
  uint64_t issues_ = 0;
  uint64_t nops_ = 0;
  uint64_t faults_ = 0;
  PipeTracker* pipes_ = nullptr;
  timing::PipeTimer* timer_ = nullptr;
  void time_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, bool counter, uint32_t count, uint32_t repeat) noexcept;
  vector_check::Checker checker_;    // the unit's own decode checks, bounded by the profile's UB
  bool sweep_down_ = false;          // the next contiguous elementwise run goes top down
};

}  // namespace tilefw::port::host
