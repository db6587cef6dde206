// A MoE layer as firmware runs it on the control core: two phases joined by the routing.
//
//   fw::PhaseBuffers bufs = ...;                  // static, sized once (size_phase, worst case)
//   fw::run_moe_layer(runtime, plan, phase1, counts_addr, counts, bufs, hooks);
//     submit phase 1 (attention .. routing, the shared experts);
//     wait until every core's GDMA has stored its counts (counts_ready: phase 1 goes on with
//     the shared experts meanwhile);
//     read the per-expert token counts through the port (f32 per expert, DDR);
//     generate the experts' phase with the gen layer into the static buffers, one pass per core;
//     wait for phase 1's end, submit the experts' phase (the runtime validates every stream
//     first), wait.
//
// No heap, no exceptions: the same code runs on Cortex-M and, in `tilefw run`, against the host
// simulator. The composition layer: it uses rt (submission) and gen (generation), which do not
// know each other.
#pragma once

#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/gen/generator.hpp"
#include "tilefw/rt/runtime.hpp"

namespace tilefw::fw {

/// Where the experts' phase is generated: per core and engine, the CPU view of a buffer and the
/// device address the engines read it from (QUEUE_BASE). Each buffer must hold the phase's
/// stream (size_phase sizes it; the worst case is every expert on its capacity).
struct PhaseBuffers {
  ByteSpan stream[gen::kMaxCores][gen::kEngines];
  uint64_t device_addr[gen::kMaxCores][gen::kEngines] = {};
  /// Room for the copied expert blocks' relocation plans, reused core after core
  /// (gen::PhaseRequest::copy_plans, gen::kCopyPlanWords; empty: every block is built).
  Span<uint64_t> copy_plans{};
  /// Per core, TIU and GDMA: one bit per command of the stream (gen::PhaseRequest::checked),
  /// passed to the runtime with the streams (rt::EngineStream::checked_copies); empty: every
  /// command is validated in full.
  Span<uint8_t> checked[gen::kMaxCores][2]{};
};

/// Reads `experts` f32 token counts at `device_addr` through the port into `counts`. Each must
/// be an integer 0..`tokens`: fw_bad_counts otherwise (the first bad index in `bad_index`).
[[nodiscard]] Status read_expert_counts(uint64_t device_addr, uint32_t experts, uint32_t tokens, uint32_t* counts,
                                        uint32_t& bad_index) noexcept;

/// Per core of `phase1`: the 1-based id of the last GDMA command whose destination overlaps the
/// `bytes` at DMA address `dma_addr` (the counts), 0 when none does. What the control core
/// waits for before it reads the counts: phase 1's GDMA runs in order, so once a core's GDMA
/// has completed that many commands its counts are in DDR.
void counts_ready(Span<const rt::CoreSubmission> phase1, uint64_t dma_addr, uint64_t bytes,
                  uint32_t* ready) noexcept;

/// Polls until every core c of `phase1` has completed `ready[c]` GDMA commands (or the whole
/// submission has ended). The runtime's Status on a fault, deadlock or timeout.
[[nodiscard]] Status wait_for_counts(rt::Runtime& runtime, Span<const rt::CoreSubmission> phase1,
                                     const uint32_t* ready) noexcept;

/// Generates every core's experts' phase for `counts` into `buffers` (one pass per core) and
/// fills `subs[0 .. plan.parallel.cores)` with the streams to submit. `commands[c]` receives
/// core c's generated commands (nullptr: not wanted), `stats[c]` what of them was copied
/// rather than built (nullptr: not wanted). `owner_placement`: PhaseRequest's. `memory`: the
/// rules the runtime validates the phase under (its Config::validate), so copied commands whose
/// moved operands keep to them are marked checked (PhaseRequest::memory); nullptr: none marked.
[[nodiscard]] Status generate_experts_phase(const gen::SizedLayer& plan, const uint32_t* counts,
                                            const PhaseBuffers& buffers, rt::CoreSubmission* subs,
                                            uint32_t* commands, gen::GenError& error,
                                            const gen::OpSink& ops = gen::OpSink{},
                                            bool owner_placement = false, gen::PhaseStats* stats = nullptr,
                                            const cmd::ValidateOptions* memory = nullptr) noexcept;

/// What a caller adds to run_moe_layer. All optional.
struct Hooks {
  /// The counts to use instead of reading them from DDR (a timing-only model has no data, so
  /// its routing comes from a routing model).
  const uint32_t* given_counts = nullptr;
  /// Where to generate, chosen once the counts are known (the host sizes a region exactly);
  /// nullptr: the `buffers` argument (firmware's static buffers).
  Status (*buffers_for)(void* user, const uint32_t* counts, const PhaseBuffers*& out) = nullptr;
  /// Once the counts are in DDR, before they are read (the control core starts there).
  void (*counts_landed)(void* user) = nullptr;
  /// After generating and after phase 1 has ended, before submitting (the host charges the
  /// control core's time there).
  void (*after_generate)(void* user, const uint32_t* counts, const uint32_t* commands) = nullptr;
  void* user = nullptr;
  gen::OpSink ops;  // the op of every generated command
  /// Each expert on its owner core instead of the load-balancing placement (PhaseRequest).
  bool owner_placement = false;
  /// Per core [plan.parallel.cores]: what generate_experts_phase copied (nullptr: not wanted).
  gen::PhaseStats* stats = nullptr;
};

/// The whole layer (see the top of this file). `counts` receives the routing's counts
/// ([experts]); a failure of phase 1 or 2 is the runtime's Status (its report names the core,
/// engine and command), of the counts fw_bad_counts, of the generation the gen Status.
/// `phase` tells which part failed: 1 phase 1, 0 the control core, 2 phase 2. `counts_addr` is
/// where the counts are (the CPU's view, through the port), read unless hooks.given_counts;
/// 0: none, and the control core waits for phase 1's end.
[[nodiscard]] Status run_moe_layer(rt::Runtime& runtime, const gen::SizedLayer& plan,
                                   Span<const rt::CoreSubmission> phase1, uint64_t counts_addr, uint32_t* counts,
                                   const PhaseBuffers* buffers, gen::GenError& error, uint32_t& phase,
                                   const Hooks& hooks = Hooks{}) noexcept;

}  // namespace tilefw::fw
