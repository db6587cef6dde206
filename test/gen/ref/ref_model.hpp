// The whole model (transformers' *ForCausalLM forward: token ids in, logits out) in double
// with the error bounds of ref_bound.hpp, built on the one-layer reference (ref_layer.hpp).
//
//   h_0   = embed_tokens[input_ids]        the model-dtype table rows, exact (e = 0), then f32
//   h_L+1 = layer L (h_L)                  eval_layer_on: the layer kind from the config (dense
//                                          or MoE per ref_config.hpp), positions K + s, the past
//                                          cache inputs past_*.{L}; h passes on in f32
//   x     = RMSNorm(h_N, model.norm.weight, rms_norm_eps), rounded to the model dtype (R)
//   logits = x W^T (f32 accumulation), W = lm_head.weight, or model.embed_tokens.weight when
//            tie_word_embeddings is true; prefill: every position, decode: the last one
//
// Bound. Each layer's output carries its bound e (ref_bound.hpp) and is the next layer's
// input with that bound, so the first-order RSS propagation runs through the whole stack
// (the residual stream stays f32: its storage rounding is the (+) step's f term); then (N) for
// the final norm, (R) for its cast, (M) for the LM head over hidden (K = hidden f32 terms).
// The weights are exact (e = 0) when stored in the model dtype, as in the one-layer check.
//
// MoE routing ambiguity across layers. A layer's token whose routing is ambiguous (ties
// within the bound) has several acceptable output rows (AltRow, ref_moe.hpp), and the next
// layers depend on which one the run took. The hidden state between layers is not an output,
// but each token's row of it is observable through outputs that depend on that row alone: the
// next layer's cache rows of the token (present_*.{L+1}: norm, k/v projections, RoPE at the
// token's position, nothing mixed across tokens), or, after the last layer, the token's logits
// row. So the reference resolves the ambiguity as the run did: for each alternative it
// evaluates those outputs and keeps, per token, the alternative they fit best (max
// |got - ref| / bound over the row; alternative 0, the reference's own routing, on equal fit)
// with that alternative's own value and bound, then goes on. Any consistent choice is thus
// accepted, as in the one-layer check, and the choice is reported. Where a row is observable
// nowhere (decode with S > 1: the last layer's rows before the last position) it affects no
// output and alternative 0 is kept. Without the run's outputs (observed() = nullptr) the row's
// bound is widened instead to cover every alternative (widen_ambiguous_rows: coarse; only
// first-order downstream).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ref_layer.hpp"

namespace gref {

struct ModelLayerInfo {
    std::string kind;         // "dense" or "moe", and the attention kind
    std::string note;         // the MoE routing statistics (ref_moe.hpp), empty for dense
    std::size_t ambiguous = 0;  // rows with ambiguous routing
    std::size_t other = 0;      // of those, resolved to another routing than the reference's
    std::size_t widened = 0;    // of those, widened (no observation)
    std::size_t unobserved = 0; // of those, in no output (decode, last layer, before the last position)
    std::string resolved_by;    // the outputs the choice was made from
    std::vector<long long> count_min, count_max;  // MoE: tokens per expert (ref_layer.hpp)
};

struct ModelRef {
    int vocab = 0, num_layers = 0;
    bool tied = false;                   // LM head = embed_tokens
    std::size_t logit_rows = 0;          // per batch element: S (prefill) or 1 (decode)
    std::map<std::string, RefOutput> outputs;  // logits, present_*.{L}
    std::vector<ModelLayerInfo> layers;
};

// The run's output `name` (DIR2/<name>.dat) in double, or nullptr when not available.
using Observed = std::function<const std::vector<double>*(const std::string& name)>;

// Evaluates the model described by cfg (config.json) on the manifest's input_ids and weights
// (report.kind "model", report.num_layers layers); `observed` resolves ambiguous MoE routing
// as described above. Throws UsageError for a missing or mis-shaped tensor, an out-of-range
// token id, or a key the reference cannot honour.
ModelRef eval_model(const nlohmann::json& cfg, const Manifest& m, const RoundPolicy& pol, const Observed& observed);

// The widening described above: rows of h [T, hidden] (alternative 0) get bounds covering
// every alternative; returns the number of rows widened.
std::size_t widen_ambiguous_rows(BVec& h, const std::vector<AltRow>& rows);

}  // namespace gref
