// The whole model as a sequence of steps on one chip (docs/whole-model.md): the embedding, every
// decoder layer with its kind from the config, and the head, each a gen plan, placed in one DDR
// memory map. Shared by `tilefw gen --model` (which writes the steps' streams) and `tilefw run`
// (which plans the same model again to generate a MoE layer's experts' phase as the control
// core does). Host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gen/gen_request.hpp"

namespace tilefw::tools {

/// A collective over the chips of a group (a ring over its neighbours, docs/whole-model.md).
/// a2a_combine: the token-selective combine (--ep-comm alltoall): each chip sends its experts'
/// partial of a row only to the row's owner, only when one of the row's experts is on the chip;
/// its CDMA streams are generated at run time from the routing (a manifest "alltoall" step).
enum class Collective : uint8_t { none, all_reduce, all_gather, reduce_scatter, a2a_combine };

struct ModelStep {
  std::string name;  // "embed", "layer.3", "head"
  gen::Program kind = gen::Program::layer;
  uint32_t layer = 0;     // the model's layer index
  uint32_t position = 0;  // layers: the index within the stage (which hidden buffers it uses)
  bool two_phase = false;  // a MoE layer whose experts' phase the control core generates
  /// A layer split over the chips of a tensor-parallel group runs as two steps ("layer.3.attn",
  /// "layer.3.mlp"), each followed by the group's all-reduce.
  gen::LayerPart part = gen::LayerPart::whole;
  /// The group's collective after the step (a transfer slot): a tensor-parallel part's and a
  /// replicated expert-parallel MoE layer's all-reduce; with data-parallel attention
  /// (ModelLayout::dp_attention) the all-gather of the attention part's rows (the dispatch) and
  /// the reduce-scatter of the MoE part's partial sums (the combine; an all-reduce at the
  /// stage's end, or an all-gather after a dense layer there).
  Collective collective = Collective::none;
  /// Where the collective's whole buffer (f32 [rows x seq, hidden]) starts on this chip.
  uint64_t group_buffer = 0;
  /// A part planned with only its own tensors and figures (data-parallel attention): the
  /// attention part without the MLP's, the MoE part without the attention's and the caches.
  bool own_tensors = false;
  /// A part planned on the chip's share of the heads (tensor-parallel attention in an expert
  /// group, ModelLayout::tp_attention): its attention weights and its kv heads' caches are
  /// slices of the whole layer's (MLA: q_b_proj, kv_b_proj, o_proj; the latent cache whole);
  /// or a dense MLA layer's FFN part there, on the chip's FFN columns.
  bool heads_cut = false;
  gen::SizedLayer plan;    // relocated into the model's memory map
};

/// The memory map of the whole model on one chip:
///   DDR tag 1 (coeff): the embedding table, then each layer's weights and constants in layer
///     order (each as its own plan places them), then the final norm, the LM head (absent
///     when tied) and the head's constant;
///   DDR tag 2 (neuron): input_ids, two f32 hidden-state buffers the layers alternate
///     between (layer L reads buffer L mod 2 and writes the other), the rotary tables and
///     mask every layer shares, each layer's cache in and out, one scratch area the layers
///     share (they run one after the other), then logits, next_token and the head's scratch.
/// How the chips share the model (docs/whole-model.md): `stages` pipeline stages of contiguous
/// layers (--pp), `replicas` data-parallel copies (--dp), each stage's share of the batch run
/// in `microbatches` (--microbatches). Chip c = replica x stages + stage.
/// Chip c = (replica x stages + stage) x tp + rank: the `tp` chips of a tensor-parallel group
/// (--tp) are neighbours, each holding 1 / tp of every layer's heads and FFN columns.
struct ModelLayout {
  uint32_t chips = 1, stages = 1, replicas = 1, microbatches = 1, tp = 1;
  /// A model with MoE layers on a group of tp > 1 chips: the group is an expert-parallel group
  /// (--ep = tp): every chip runs every layer whole on the group's rows (attention replicated),
  /// each holds and runs 1 / tp of every MoE layer's routed experts, and the MoE layers'
  /// outputs are all-reduced over the group.
  bool expert_group = false;
  /// An expert-parallel group whose rows per step split evenly over its chips: attention (and
  /// every dense layer) data-parallel, chip r on rows [r B / tp, (r + 1) B / tp) of the step's
  /// B; the attention outputs all-gathered (the dispatch), the MoE parts' partial sums
  /// reduce-scattered (the combine).
  bool dp_attention = false;
  /// An expert-parallel group whose attention splits by heads over its chips (rows that do not
  /// split, or an explicit --tp): chip r runs heads [r H / tp, (r + 1) H / tp) with their kv
  /// heads (MLA: the low-rank parts whole), the partial sums all-reduced; the MoE part then on
  /// every row with the chip's experts, all-reduced; dense GQA layers split as tensor
  /// parallelism splits them (else whole on every chip).
  bool tp_attention = false;
  uint32_t batch = 1;  // the request's batch rows (all replicas)
  uint32_t rows() const { return batch / replicas / microbatches; }  // batch rows of one step
  uint32_t chip(uint32_t replica, uint32_t stage, uint32_t rank = 0) const { return (replica * stages + stage) * tp + rank; }
  uint32_t stage_of(uint32_t chip) const { return chip / tp % stages; }
  uint32_t rank_of(uint32_t chip) const { return chip % tp; }
  uint32_t replica_of(uint32_t chip) const { return chip / tp / stages; }
  /// The plan a chip runs: stage x tp + rank (ModelPlan list order).
  uint32_t plan_of(uint32_t chip) const { return stage_of(chip) * tp + rank_of(chip); }
  /// Layers [first, last) of stage p: an even split, the earlier stages one more when uneven.
  void layers_of(uint32_t stage, uint32_t layers, uint32_t& first, uint32_t& last) const {
    first = stage * (layers / stages) + std::min(stage, layers % stages);
    last = first + layers / stages + (stage < layers % stages ? 1 : 0);
  }
};

/// With the head split over a tensor-parallel group, the logits stay where each chip computed
/// its columns (the manifest lists a part per token row and chip) unless that is more parts than
/// a manifest holds (4096): then they are gathered on the group's first chip with the candidates.
inline bool logits_in_parts(const ModelLayout& l, uint32_t seq) {
  return l.tp > 1 && uint64_t{l.batch} * seq * l.tp <= 4096;
}

/// Whether a chip with this parallel config holds and runs expert e of `experts`
/// (ParallelConfig::expert_first, expert_count: strided).
inline bool holds_expert(const gen::ParallelConfig& p, uint32_t experts, uint32_t e) {
  return p.expert_count == 0 || e % (experts / p.expert_count) == p.expert_first;
}

/// Checks the chips options of a --model request (exit 2 naming the option) and fills `out`.
std::optional<Failure> model_layout(const GenCli& cli, const HfConfig& cfg, ModelLayout& out);

struct ModelPlan {
  HfConfig cfg;
  ModelLayout layout;
  uint32_t stage = 0;             // the stage this plan is for
  uint32_t rank = 0;              // its chip within the tensor-parallel group (0: adds the residual, runs the head)
  uint64_t partial = 0;           // tp > 1: where a layer's attention part leaves its (all-reduced) output
  gen::InferenceConfig inference;  // one step's request (layout.rows() batch rows)
  uint64_t hidden_in = 0;         // where the stage's input hidden states arrive (tag 2)
  uint64_t hidden_out = 0;        // where its last step leaves them
  std::vector<ModelStep> steps;
  uint64_t coeff_bytes = 0;
  uint64_t neuron_bytes = 0;
  uint64_t weight_bytes = 0;  // every weight tensor (the checkpoint's bytes in the model dtype)
  uint64_t cache_bytes = 0;   // every layer's past and present cache
  double flops = 0;           // the steps' analytic figures summed (static MoE: every expert)
  double bytes_ddr = 0;
};

/// Reads the config, checks the options and plans every step of stage `stage` (pass 1 of each,
/// sized once per distinct layer kind: layers of one kind differ only in their addresses). A
/// Failure names the option or config key (exit 2) or what cannot be mapped (exit 1).
/// `sized`, when given, keeps each layer kind's (MoE or not, and the data-parallel attention's
/// parts) sized plan across calls: the chips
/// of a request size a kind alike (before its addresses and its expert-parallel share).
std::optional<Failure> plan_model(const GenCli& cli, ModelPlan& out, uint32_t stage = 0, uint32_t rank = 0,
                                  std::map<int, gen::SizedLayer>* sized = nullptr);
/// Every (stage, rank) plan of a request in ModelLayout::plan_of order.
std::optional<Failure> plan_all(const GenCli& cli, std::vector<ModelPlan>& out);
/// The config a chip of a tensor-parallel group of `tp` chips holds: 1 / tp of the heads, kv
/// heads and FFN columns.
gen::ModelConfig tp_slice(const gen::ModelConfig& m, uint32_t tp);
/// The config of a chip's share of the attention heads (1 / tp of the heads and kv heads; an
/// MLA layer's kv heads as they are when they do not split): tensor-parallel attention of an
/// expert group.
gen::ModelConfig heads_slice(const gen::ModelConfig& m, uint32_t tp);

/// Step `s` of `mp` for micro-batch `m`: the per-request tensors (token ids, caches, routing
/// counts, logits, next token) hold every micro-batch's rows one after the other, so micro-batch
/// m's are m x their size further on.
gen::SizedLayer microbatch_plan(const ModelStep& s, uint32_t m);
/// Whether a tensor holds rows of the request (one copy per micro-batch, see microbatch_plan).
bool per_request_rows(gen::TensorId id);

/// The checkpoint name of a weight of step `s` ("model.layers.L.<name>", or the model-level
/// name as the plan gives it), expert `part` for per-expert tensors.
std::string step_weight_name(const ModelStep& s, const gen::TensorInfo& t, uint32_t part = 0);

/// The name of a per-layer cache tensor in the whole model's inputs / outputs
/// ("past_key.3"); other tensors keep their name.
std::string model_tensor_name(const ModelStep& s, const gen::TensorInfo& t);

}  // namespace tilefw::tools
