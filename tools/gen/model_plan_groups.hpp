// The steps of a layer on a chip of a group of chips (tensor-parallel parts, a share of the
// experts, data-parallel or tensor-parallel attention of an expert group) and the planner's
// helpers they share with model_plan.cpp. Internal to the model planner; host-only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "gen/model_plan.hpp"

namespace tilefw::tools::plan_detail {

uint64_t align64(uint64_t v);
/// A per-layer cache (or the routing counts): a per-request tensor kept per layer.
bool is_cache(gen::TensorId id);
bool is_per_request(gen::TensorId id);
/// The rotary tables and the mask every layer shares.
bool is_shared_input(gen::TensorId id);
std::optional<Failure> gen_failure(Status s, const gen::GenError& ge, const std::string& step);
/// Moves `id` of `plan` to `addr` (a present tensor).
void move(gen::SizedLayer& plan, gen::TensorId id, uint64_t addr);

/// The two tensor-parallel parts of dense layer L on chip mp.rank (its heads and FFN columns).
std::optional<Failure> size_parts(const GenCli& cli, const ModelPlan& mp, uint32_t L, gen::SizedLayer (&parts)[2]);
/// Dense layer L as its two tensor-parallel parts (`parts`, from size_parts), each ending in an
/// all-reduce, appended to mp's steps (`first`: the stage's first layer).
void push_layer_parts(ModelPlan& mp, uint32_t L, uint32_t first, const gen::SizedLayer (&parts)[2]);
/// The chip's share of a MoE step's experts (every `rank`-th of `ep`); `every_row`: the MoE
/// part after tensor-parallel attention, which may run in passes; `own` > 0: the chip owns token
/// rows [rank x own, (rank + 1) x own) (owner rows: the token-selective combine), set before
/// the static program, if any, is sized.
std::optional<Failure> chip_experts(const GenCli& cli, ModelStep& s, uint32_t rank, uint32_t ep, bool every_row = false,
                                    uint32_t own = 0);
/// Layer L's steps with data-parallel attention (ModelLayout::dp_attention).
std::optional<Failure> dp_layer_steps(const GenCli& cli, const GenCli& one, ModelPlan& out, uint32_t L, uint32_t first,
                                      bool stage_end, std::map<int, gen::SizedLayer>& kinds);
/// Layers [first, last)'s steps with tensor-parallel attention (ModelLayout::tp_attention).
std::optional<Failure> tp_attention_steps(const GenCli& cli, const GenCli& one, ModelPlan& out, uint32_t first,
                                          uint32_t last, std::map<int, gen::SizedLayer>& kinds);

}  // namespace tilefw::tools::plan_detail
