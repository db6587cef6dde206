// Generator inputs as plain structs: the model (what one decoder layer computes), the
// inference request (phase, batch, tokens, cache length) and the parallelism over the cores.
// Filled by the host tool from a Hugging Face config.json, or by firmware directly.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"

namespace tilefw::gen {

/// Supported `model_type`s (docs/generator.md section 3, Rule: config.json as is). Dense: llama,
/// mistral, qwen2, qwen3.
enum class ModelType : uint8_t { llama, mistral, qwen2, qwen3, mixtral, qwen3_moe, deepseek_v3 };

/// MLP activation (`hidden_act`).
enum class Activation : uint8_t { silu, gelu, gelu_tanh };

enum class Phase : uint8_t { prefill, decode };

/// How the router scores experts. softmax: top-k of softmax(logits) (mixtral, qwen3_moe).
/// sigmoid_grouped (deepseek_v3, topk_method noaux_tc): sigmoid(logits) + a correction bias
/// choose the experts among the `topk_group` best of `n_group` groups; the weights are the
/// sigmoid scores without the bias.
enum class Routing : uint8_t { softmax, sigmoid_grouped };

/// The sparse MoE block of a layer (mixtral, qwen3_moe, deepseek_v3): routed experts, router.
struct MoeConfig {
  uint32_t experts = 0;              // routed experts (num_local_experts / num_experts)
  uint32_t top_k = 0;                // num_experts_per_tok
  uint32_t expert_intermediate = 0;  // each expert's SwiGLU width
  bool norm_topk_prob = true;        // renormalise the top-k weights (mixtral: always)
  /// Token slots per expert (docs/generator.md section 3, Rule: capacity): 0 = every token
  /// (nothing can be dropped).
  uint32_t capacity = 0;
  /// When > 0, the capacity is ceil(capacity_factor x tokens x top_k / experts) of the request's
  /// tokens (all passes of a chunked prefill or a decode in row passes), replacing `capacity`.
  /// double: 0.3 as a float is 0.30000001, and ceil(0.3 x 10 x 2 / 6) must be 1, not 2.
  double capacity_factor = 0.0;
  Routing routing = Routing::softmax;
  uint32_t n_group = 1;                 // sigmoid_grouped: expert groups (divides experts)
  uint32_t topk_group = 1;              // sigmoid_grouped: groups kept per token
  float routed_scaling_factor = 1.0f;   // sigmoid_grouped: multiplies the routing weights
  uint32_t shared_intermediate = 0;     // shared experts' SwiGLU width (0: none)
};

/// Multi-head latent attention (deepseek_v3). The rotary part of a q/k head is
/// ModelConfig::head_dim (qk_rope_head_dim); kv heads equal the attention heads.
struct MlaConfig {
  uint32_t q_lora_rank = 0;       // 0: q_proj instead of q_a_proj / q_a_layernorm / q_b_proj
  uint32_t kv_lora_rank = 0;      // the latent (compressed_kv) width
  uint32_t qk_nope_head_dim = 0;  // the non-rotary part of a q/k head
  uint32_t v_head_dim = 0;
  bool rope_interleave = true;    // RoPE on (even, odd) pairs, output de-interleaved
};

/// One decoder layer's shapes and options. Rotary tables are not here: cos/sin of every
/// position the layer sees are an input tensor of the streams (the host computes them from the
/// rope parameters), so the streams do not depend on rope_theta or the scaling type.
struct ModelConfig {
  ModelType type = ModelType::llama;
  uint32_t hidden = 0;        // hidden_size
  uint32_t heads = 0;         // num_attention_heads
  uint32_t kv_heads = 0;      // num_key_value_heads
  uint32_t head_dim = 0;      // head_dim, or hidden / heads
  uint32_t intermediate = 0;  // intermediate_size (dense MLP)
  uint32_t num_layers = 0;    // num_hidden_layers (only to check --layer)
  uint32_t vocab = 0;         // vocab_size (the whole model's embedding and head)
  bool tie_embeddings = false;  // tie_word_embeddings: the head reads the embedding table
  float rms_eps = 1e-6f;      // rms_norm_eps
  bool qkv_bias = false;      // q/k/v_proj have a bias (qwen2; attention_bias)
  bool o_bias = false;        // o_proj has a bias (llama/qwen3 attention_bias)
  bool mlp_bias = false;      // gate/up/down_proj have a bias (llama mlp_bias)
  bool qk_norm = false;       // qwen3: q_norm / k_norm over head_dim, per head, before RoPE
  Activation act = Activation::silu;
  DType dtype = DType::bf16;  // weights, KV cache and matmul inputs: bf16 or f16
  bool moe_layer = false;     // this layer's MLP is the sparse MoE block `moe`
  MoeConfig moe;
  MlaConfig mla;              // deepseek_v3 only
  /// Softmax scale of the attention scores; 0: 1 / sqrt(head_dim). deepseek_v3:
  /// (qk_nope_head_dim + qk_rope_head_dim)^-0.5, times mscale^2 under yarn (host-computed).
  float attn_scale = 0.0f;
};

struct InferenceConfig {
  Phase phase = Phase::prefill;
  uint32_t batch = 1;
  uint32_t seq = 128;   // new tokens per batch row (S)
  uint32_t kv_len = 0;  // cached positions before them (K); token s is at position K + s
  /// Prefill in chunks of this many tokens (batch 1; must divide seq). 0: one pass when it
  /// maps, else the largest power of two <= 1024 that maps and divides seq.
  uint32_t chunk = 0;
  /// Decode in passes of this many batch rows (must divide batch): each pass is the layer
  /// over its rows, whose caches and positions are their own. 0: one pass when it maps, else
  /// the fewest passes of equal rows that map.
  uint32_t decode_chunk = 0;
};

/// Which part of a dense decoder layer the streams compute. A layer split over several chips
/// (the whole model's tensor parallelism, docs/whole-model.md) runs in two parts with a
/// cross-chip all-reduce after each: `attention` (input norm .. o_proj, reduced over the cores,
/// stored to hidden_states_out) and `mlp` (hidden_states as the residual, post-attention norm ..
/// down_proj, reduced over the cores, stored). An expert-parallel group with data-parallel
/// attention runs a MoE layer's attention (GQA or MLA; planned as the layer without its MoE
/// block: the attention part of a MoE layer is refused) on the chip's batch rows and its MoE
/// block (`mlp` of the MoE layer, any attention) on every row; with tensor-parallel attention
/// a dense MLA layer runs as both parts too (its FFN columns split over the chips).
enum class LayerPart : uint8_t { whole, attention, mlp };

struct ParallelConfig {
  uint32_t cores = 8;  // cores that get streams (1..8)
  uint32_t tp = 0;     // tensor-parallel degree; 0 = the default of Rule: Megatron tensor parallelism
  uint32_t ep = 0;     // expert-parallel degree (MoE layers); 0 = cores
  LayerPart part = LayerPart::whole;
  /// false: the part's output is its partial sum alone (no residual, no o_proj / down_proj
  /// bias): every chip of a tensor-parallel group but the first, so the all-reduce's sum
  /// counts the residual and the biases once.
  bool residual = true;
  /// The head over the chips of a tensor-parallel group (model.cpp): this chip computes the
  /// vocabulary rows [V r / n, V (r + 1) / n) (r = vocab_rank, n = vocab_ranks) with its slice
  /// of the LM head, writes their logits into the whole [tokens, V] layout and its cores' best
  /// (logit, index) into head_cand as cores r x cores ..; Program::head_merge on one chip then
  /// picks next_token from every chip's candidates.
  uint32_t vocab_rank = 0, vocab_ranks = 1;
  /// Experts over the chips of an expert-parallel group (the whole model's --ep): this chip
  /// holds and runs the expert_count experts e with e mod (experts / expert_count) =
  /// expert_first only (0: every expert), strided so that neighbouring experts (a routing
  /// group, the first of a balanced count) land on different chips; the experts' weight tensors
  /// hold only those, in expert order (expert e at e / (experts / expert_count)). With residual
  /// false a MoE layer's output is its routed experts' partial sum alone (no residual, no
  /// shared experts), so the group's all-reduce counts those once.
  uint32_t expert_first = 0, expert_count = 0;
  /// The token-selective combine (data-parallel attention): the chip owns token rows
  /// [own_first, own_first + own_count) of the MoE part's step (the tokens of its batch rows);
  /// the moe_own constant (fill_constant) holds 1 there and 0 elsewhere. 0 rows: not used.
  uint32_t own_first = 0, own_count = 0;
};

}  // namespace tilefw::gen
