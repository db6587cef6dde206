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

#include "gen/gen_request.hpp"
#include "formats/sg2260_manifest.hpp"

namespace tilefw::tools {

/// The "moe_phases" object gen writes beside the cores: the request (every option that shapes
/// the plan) and the config file copied next to the manifest.
nlohmann::json moe_phases_entry(const GenCli& cli, const std::string& config_file);

/// The generator request of a "generator" object (as moe_phases_entry writes it), with
/// `config` as its config file. false with `error` naming the key.
bool request_from_json(const nlohmann::json& generator, const std::string& config, GenCli& cli, std::string& error);

/// Plans the manifest's layer again from its "moe_phases" request. false with `error`.
bool layer_from_manifest(const nlohmann::json& moe_phases, const std::string& config, gen::SizedLayer& plan,
                        std::string& error);

/// Each token's top_k experts over the request, from a routing model (timing-only runs):
/// `choices[t * top_k + j]` is token t's j-th expert, t < T = batch x seq, the top_k ids of a
/// token distinct and below the layer's experts E.
///   balanced      token t's experts (t top_k + j) mod E, j < top_k: every expert gets
///                 floor(T top_k / E) tokens, the first (T top_k mod E) experts one more;
///   uniform:SEED  each token draws top_k distinct experts uniformly (grouped routing, as
///                 deepseek_v3's: among topk_group of the n_group groups, drawn uniformly first);
///   zipf:S:SEED   each token draws top_k distinct experts with popularity ~ rank^-S, the
///                 ranks given to the experts in an order drawn from SEED;
///   FILE          a JSON list of one non-negative integer per expert, each at most T, summing
///                 to T x top_k (e.g. expert_tokens recorded from a functional run); the file
///                 names no tokens, so the experts' slots are dealt expert-major, slot i to
///                 token i mod T (an expert's slots land on distinct tokens as its count <= T).
/// false with `error` naming the problem (exit 2).
bool routing_choices(const std::string& spec, const gen::SizedLayer& plan, std::vector<uint32_t>& choices,
                     std::string& error);

/// Tokens routed to each expert over the request: the histogram of routing_choices (one count
/// per expert). false with `error` as routing_choices.
bool routing_counts(const std::string& spec, const gen::SizedLayer& plan, std::vector<uint32_t>& counts,
                    std::string& error);

/// The control cores' busy spans, in device cycles from `start`: TPU core c's experts' phase
/// (`core_commands[c]` commands, generated and validated) is the work of control core
/// c % control_cores; each control core reads every count; they work in parallel. The model and
/// its parameters: docs/moe-phases.md.
struct ControlSpan {
  uint64_t start = 0, end = 0, commands = 0, copied = 0;
};
/// `copies[c]` (nullable): what of core c's commands the control core copied from earlier
/// expert blocks instead of building them (gen::PhaseStats).
std::vector<ControlSpan> control_spans(uint64_t start, uint64_t counts, const uint32_t* core_commands,
                                       const gen::PhaseStats* copies, uint32_t cores, uint32_t control_cores);
/// `trace` (a Chrome/Perfetto trace JSON text ending in "]}") with a `ctl` process: one row per
/// control core, one event per span ("generate experts' phase").
std::string with_control_rows(std::string trace, const std::vector<ControlSpan>& spans);

/// FLOPs and DDR bytes of the work that ran: the static plan's figures with the experts' part
/// counted for the routed rows (at most the capacity each) and only the experts with tokens.
void routed_figures(const gen::SizedLayer& plan, const std::vector<uint32_t>& counts, double& flops, double& bytes_ddr);

}  // namespace tilefw::tools
