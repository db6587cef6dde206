// One decoder layer's semantics read from a Hugging Face config.json, per `model_type`, as the
// `transformers` modeling code builds the layer (modeling_llama / _mistral / _qwen2 / _qwen3 and
// modeling_rope_utils). Only facts are taken from there; nothing here is shared with the
// generator.
//
// The layer is described by kinds (attention kind, MLP kind): the dense GQA types, and the
// softmax-routed sparse MoE MLPs of mixtral (MixtralSparseMoeBlock) and qwen3_moe
// (Qwen3MoeSparseMoeBlock, or its dense Qwen3MoeMLP on the layers mlp_only_layers /
// decoder_sparse_step make dense). deepseek_v3 (MLA, sigmoid router) is refused with exit 2.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gref {

enum class Act { silu, gelu_erf, gelu_tanh };
enum class AttnKind { gqa };  // later: mla (deepseek_v3)
enum class MlpKind { dense, moe_softmax };  // later: moe_deepseek (sigmoid, groups, shared)

// Softmax-routed MoE (mixtral, qwen3_moe): logits = gate(x) [experts], p = softmax(logits) in
// f32, the top_k largest p (ties: the lower expert index first), weights = p of those,
// divided by their sum when `renormalize` (mixtral always; qwen3_moe when norm_topk_prob);
// out = sum over the chosen experts of weight * down(act(gate_proj x) * up_proj x).
struct MoeParams {
    int experts = 0, top_k = 0, intermediate = 0;
    bool renormalize = true;
    std::string router;         // checkpoint name after the layer prefix
    std::string expert_prefix;  // + e + "." + proj[i] + ".weight"
    std::string proj[3];        // gate, up, down (mixtral w1, w3, w2)
    std::string expert_name(int e, int i) const {
        return expert_prefix + std::to_string(e) + "." + proj[i] + ".weight";
    }
};

struct RopeParams {
    std::string type = "default";   // default | linear | llama3 | yarn
    std::vector<double> inv_freq;   // head_dim / 2 entries
    double attention_factor = 1.0;  // multiplies cos and sin (yarn)
    double base = 10000.0;
};

struct LayerConfig {
    std::string model_type;
    AttnKind attn = AttnKind::gqa;
    MlpKind mlp = MlpKind::dense;
    int hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
    double eps = 1e-6;
    bool q_bias = false, k_bias = false, v_bias = false, o_bias = false;
    bool mlp_bias = false;
    bool qk_norm = false;       // qwen3: RMSNorm over head_dim on q and k before RoPE
    int sliding_window = 0;     // > 0: key j visible from query i iff i - j < sliding_window
    Act act = Act::silu;
    RopeParams rope;
    MoeParams moe;              // mlp == moe_softmax
};

// Parses config.json for layer `layer`; throws UsageError naming the key it cannot honour.
LayerConfig parse_layer_config(const nlohmann::json& cfg, int layer);

// Checkpoint names of the layer's tensors.
std::string layer_prefix(int layer);

}  // namespace gref
