// One decoder layer (`model.layers.N` of the transformers modeling code) in double, with the
// error bounds of ref_bound.hpp carried alongside every tensor.
#pragma once

#include <map>
#include <string>

#include "ref_bound.hpp"
#include "ref_config.hpp"
#include "ref_io.hpp"
#include "ref_mla.hpp"
#include "ref_moe.hpp"

namespace gref {

struct RefOutput {
    std::vector<std::int64_t> shape;
    DType dtype = DType::f32;
    BVec value;          // exact value and propagated bound (before any storage rounding)
    bool stored_in_model_dtype = false;  // present_key/value: + half an ulp on top of the bound
    std::vector<AltRow> alt_rows;        // MoE tokens with ambiguous routing/capacity (ref_moe.hpp)
    std::string note;                    // printed with --verbose
    // MoE layers (hidden_states_out): tokens that chose each expert, a range when routing ties
    std::vector<long long> count_min, count_max;
};

// Evaluates the layer on the manifest's inputs and weights; keys: hidden_states_out, and
// present_key, present_value (GQA) or present_kv_latent, present_k_rope (MLA).
// Throws UsageError for a missing or mis-shaped tensor.
std::map<std::string, RefOutput> eval_layer(const LayerConfig& cfg, const Manifest& m,
                                            const RoundPolicy& pol);

// The same layer (`model.layers.<layer>`) on a given residual-stream input hs [B, S, hidden]
// with its bounds (a whole model passes each layer's output on); the past cache is read from
// inputs[] under the one-layer names + suffix (".L" in a whole-model manifest). Output keys
// as eval_layer's (without the suffix).
std::map<std::string, RefOutput> eval_layer_on(const LayerConfig& cfg, const Manifest& m, int layer, const BVec& hs,
                                               const std::string& suffix, const RoundPolicy& pol);

// A weights[] / inputs[] tensor of the given shape, with the rounding bound (R) when its dtype
// is not the model dtype (else exact, e = 0). Throws UsageError when missing or mis-shaped.
BVec load_tensor(const Manifest& m, const std::map<std::string, TensorDesc>& table, const std::string& name,
                 const std::vector<std::int64_t>& shape, DType model, const char* kind);

}  // namespace gref
