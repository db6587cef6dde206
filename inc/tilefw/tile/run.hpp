// Tile instructions = plan + issue (docs/design.md section 5, data flowing through): a planned,
// fully validated step
// sequence is replayed through the issue layer, one port emission per issue. The typed
// instructions on Tile<> types (tilefw/tile/instr.hpp) are built on run().
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/status.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/issue/engine_issue.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/tile.hpp"

namespace tilefw::tile {

/// Where a run stopped, for the caller's message: "TADD step 3 (binary): ...".
struct RunReport {
  Status status = Status::ok;
  /// Steps taken (mode steps and issues), including the failing one.
  uint64_t steps = 0;
  /// Issues emitted (doorbells rung).
  uint64_t issues = 0;
  /// Validation report of the failing issue (plan or device), empty otherwise.
  desc::DescReport desc{};
  /// What the run cost on the core's clock (issue::read_cycle_counters before and after the
  /// replay): `cycles` is how far the run moved the cycle at which all issued work completes
  /// (on an idle core: the run's total), `pipe_busy` the cycles each pipe was occupied (Pipe
  /// codes, then S). 0 on a core without a clock and when nothing was emitted.
  uint64_t cycles = 0;
  uint64_t pipe_busy[chip::a2a3::sreg::kCounterPipes] = {};
};

/// Replays `p` on the vector unit. Plans assume normal mode with MASK all ones: the unit is put
/// in that state first when its shadow says otherwise, and every plan leaves it so. A plan
/// validated whole (p.trusted(): plan_tile, plan::plan_seal) is emitted through the trusted path,
/// issue::emit (register writes and exactly one doorbell, no validation again); any other plan
/// goes issue by issue through issue::issue_once (validated against the live MASK shadow first). The first non-ok status stops the run and is returned; steps before it
/// have executed (plan_tile validated the whole sequence, so on a consistent unit only a device
/// fault can stop a run midway).
[[nodiscard]] Status run_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report = nullptr) noexcept;

/// Plans `req` into the caller's `scratch` plan and runs it: nothing is emitted unless the
/// whole sequence validated. plan errors are returned as plan_tile returns them.
[[nodiscard]] Status run(issue::VectorUnit& vu, const plan::Request& req, plan::Plan& scratch,
                         RunReport* report = nullptr) noexcept;

namespace detail {
/// run_plan for a plan made by plan::plan_tile_binary (trusted; binary issues and mode steps
/// only), linking only the binary issue path; any other plan: invalid_argument, nothing emitted.
[[nodiscard]] Status run_binary_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report = nullptr) noexcept;

/// Raw bits of a scalar operand as the SCALAR register holds them (16-bit types in [15:0]).
template <class S>
constexpr uint32_t scalar_bits(S v) noexcept {
  if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bf16>) {
    return v.bits;
  } else if constexpr (sizeof(S) == 2) {
    return static_cast<uint16_t>(v);
  } else {
    return std::bit_cast<uint32_t>(v);
  }
}
}  // namespace detail

}  // namespace tilefw::tile
