// One decoder layer's semantics read from a Hugging Face config.json, per `model_type`, as the
// `transformers` modeling code builds the layer (modeling_llama / _mistral / _qwen2 / _qwen3 and
// modeling_rope_utils). Only facts are taken from there; nothing here is shared with the
// generator.
//
// The layer is described by kinds (attention kind, MLP kind): the dense GQA types, and the
// softmax-routed sparse MoE MLPs of mixtral (MixtralSparseMoeBlock) and qwen3_moe
// (Qwen3MoeSparseMoeBlock, or its dense Qwen3MoeMLP on the layers mlp_only_layers /
// decoder_sparse_step make dense), and deepseek_v3 (modeling_deepseek_v3: DeepseekV3Attention =
// multi-head latent attention, ref_mla.hpp; DeepseekV3MoE = sigmoid router with group-limited
// top-k and shared experts on the layers >= first_k_dense_replace, ref_route.hpp; its dense
// DeepseekV3MLP below). deepseek_v3 keys the reference cannot honour (attention_bias true,
// moe_layer_freq != 1, scoring_func != sigmoid, topk_method != noaux_tc, rope_scaling other than
// yarn) are refused with exit 2 naming the key.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gref {

enum class Act { silu, gelu_erf, gelu_tanh };
enum class AttnKind { gqa, mla };
enum class MlpKind { dense, moe_softmax, moe_sigmoid_grouped };

// Softmax-routed MoE (mixtral, qwen3_moe): logits = gate(x) [experts], p = softmax(logits) in
// f32, the top_k largest p (ties: the lower expert index first), weights = p of those,
// divided by their sum when `renormalize` (mixtral always; qwen3_moe when norm_topk_prob);
// out = sum over the chosen experts of weight * down(act(gate_proj x) * up_proj x).
//
// deepseek_v3 (moe_sigmoid_grouped, DeepseekV3TopkRouter with noaux_tc): s = sigmoid(logits) in
// f32; choice = s + e_score_correction_bias; the n_group groups (consecutive experts) score the
// sum of their two best choices; the topk_group best groups stay, the other experts' choice is
// set to 0.0 (transformers' masked_fill, not -inf); top_k by choice; weights = s of those (no
// bias), / (sum + 1e-20) when norm_topk_prob, times routed_scaling_factor; out = the weighted
// routed experts + shared_experts(x) (one MLP of intermediate moe_intermediate_size *
// n_shared_experts).
struct MoeParams {
    int experts = 0, top_k = 0, intermediate = 0;
    bool renormalize = true;
    int n_group = 1, topk_group = 1;    // moe_sigmoid_grouped
    double routed_scaling = 1.0;        // moe_sigmoid_grouped
    int shared_intermediate = 0;        // moe_sigmoid_grouped: 0 = no shared experts
    std::string choice_bias;            // moe_sigmoid_grouped: e_score_correction_bias name
    std::string shared_prefix;          // + proj[i] + ".weight"
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

// deepseek_v3 multi-head latent attention (DeepseekV3Attention). head_dim of LayerConfig is
// then qk_rope_head_dim (transformers aliases it so: the RoPE tables cover the rope part only).
struct MlaParams {
    int q_lora_rank = 0;     // 0 (null in the config): q_proj instead of q_a_proj/q_a_layernorm/q_b_proj
    int kv_lora_rank = 0, qk_nope = 0, qk_rope = 0, v_head = 0;
    bool interleave = true;  // rope_interleave: apply_rotary_pos_emb_interleave
    double scale = 0;        // (qk_nope + qk_rope)^-0.5, times mscale^2 under yarn with mscale_all_dim
    double lora_eps = 1e-6;  // q_a_layernorm / kv_a_layernorm (DeepseekV3RMSNorm default eps)
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
    MoeParams moe;              // mlp == moe_softmax / moe_sigmoid_grouped
    MlaParams mla;              // attn == mla
};

// Parses config.json for layer `layer`; throws UsageError naming the key it cannot honour.
LayerConfig parse_layer_config(const nlohmann::json& cfg, int layer);

// Checkpoint names of the layer's tensors.
std::string layer_prefix(int layer);

}  // namespace gref
