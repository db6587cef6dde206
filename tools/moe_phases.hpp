// A MoE layer as it runs (generator.hpp PhaseRequest): `tilefw gen` writes phase 1 (up to the
// routing) and, in the manifest's "moe_phases" object, what the control core needs to generate
// phase 2: the generator request and a copy of the config. `tilefw run` submits phase 1, waits,
// takes the per-expert token counts (read from `expert_tokens` in a functional run, drawn from
// a routing model in a timing-only run), generates the experts' phase with the gen layer as the
// control core does, validates and submits it, and charges the control core's time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gen_request.hpp"
#include "sg2260_manifest.hpp"

namespace tilefw::tools {

/// The "moe_phases" object gen writes beside the cores: the request (every option that shapes
/// the plan) and the config file copied next to the manifest.
nlohmann::json moe_phases_entry(const GenCli& cli, const std::string& config_file);

/// Plans the manifest's layer again from its "moe_phases" request. false with `error`.
bool plan_from_manifest(const Manifest& manifest, gen::LayerPlan& plan, std::string& error);

/// Tokens routed to each expert over the request, from a routing model (timing-only runs):
///   balanced      every expert floor(T k / E), the first (T k mod E) experts one more;
///   uniform:SEED  each token draws top_k distinct experts uniformly (deepseek_v3: among
///                 topk_group groups drawn uniformly first);
///   zipf:S:SEED   each token draws top_k distinct experts with popularity ~ rank^-S, the
///                 ranks given to the experts in an order drawn from SEED;
///   FILE          a JSON list of one non-negative integer per expert, each at most T, summing
///                 to T x top_k (e.g. expert_tokens recorded from a functional run).
/// T = batch x seq. false with `error` naming the problem (exit 2).
bool routing_counts(const std::string& spec, const gen::LayerPlan& plan, std::vector<uint32_t>& counts,
                    std::string& error);

/// The counts a functional phase 1 wrote to `expert_tokens` (f32 per expert).
bool counts_from_device(const uint8_t* expert_tokens, const gen::LayerPlan& plan, std::vector<uint32_t>& counts,
                        std::string& error);

/// The experts' phase of every core, generated as the control core does (plan_phase sizes,
/// emit_phase into buffers of exactly those sizes).
struct ExpertsPhase {
  std::vector<uint8_t> streams[gen::kMaxCores][gen::kEngines];
  uint64_t commands = 0;
};
/// `ops`, when given, receives the op of every generated command (traces, --summary).
bool generate_experts_phase(const gen::LayerPlan& plan, const std::vector<uint32_t>& counts, ExpertsPhase& out,
                            std::string& error, const gen::OpSink& ops = gen::OpSink{});

/// The control core's time to read `counts` counts and generate `commands` commands, in cycles
/// of the 1 GHz device clock (the model and its parameters: docs/moe-phases.md).
uint64_t control_cycles(uint64_t counts, uint64_t commands);

/// FLOPs and DDR bytes of the work that ran: the static plan's figures with the experts' part
/// counted for the routed rows (at most the capacity each) and only the experts with tokens.
void routed_figures(const gen::LayerPlan& plan, const std::vector<uint32_t>& counts, double& flops, double& bytes_ddr);

}  // namespace tilefw::tools
