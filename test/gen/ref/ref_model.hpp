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
// MoE routing ambiguity across layers. A layer's token whose routing (or, never here, capacity)
// is ambiguous has several acceptable output rows (AltRow, ref_moe.hpp); the run's hidden
// state between layers is not an output, so which one it took cannot be observed. The model
// reference goes on with alternative 0 (its own routing) and WIDENS that row's bound to cover
// every alternative: e_i := max(e_i, max_a(|v_a,i - v_0,i| / (kSafety kLambda) + e_a,i)), so
// kSafety kLambda e_i covers each alternative's value with its own bound. The widened row
// then propagates like any other error through the attention of later tokens of the same
// batch row and the next layers (first order: a coarse, large bound on those rows; the rows
// of other batch elements are unaffected). The number of widened rows per layer is reported.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ref_layer.hpp"

namespace gref {

struct ModelLayerInfo {
    std::string kind;         // "dense" or "moe", and the attention kind
    std::string note;         // the MoE routing statistics (ref_moe.hpp), empty for dense
    std::size_t widened = 0;  // rows whose bound was widened for ambiguous routing
    std::vector<long long> count_min, count_max;  // MoE: tokens per expert (ref_layer.hpp)
};

struct ModelRef {
    int vocab = 0, num_layers = 0;
    bool tied = false;                   // LM head = embed_tokens
    std::size_t logit_rows = 0;          // per batch element: S (prefill) or 1 (decode)
    std::map<std::string, RefOutput> outputs;  // logits, present_*.{L}
    std::vector<ModelLayerInfo> layers;
};

// Evaluates the model described by cfg (config.json) on the manifest's input_ids and weights
// (report.kind "model", report.num_layers layers). Throws UsageError for a missing or
// mis-shaped tensor, an out-of-range token id, or a key the reference cannot honour.
ModelRef eval_model(const nlohmann::json& cfg, const Manifest& m, const RoundPolicy& pol);

// The widening described above, on one layer output; returns the number of rows widened.
std::size_t widen_ambiguous_rows(RefOutput& h);

}  // namespace gref
