// Hugging Face `config.json` -> the generator's model description (Rule: config.json as
// is, docs/generator.md section 3), plus the rotary tables the host computes for the layer's positions. Host-only.
//
// What is read: the keys that change what one decoder layer computes, per `model_type`, with
// the semantics of that model's `transformers` modeling code. A key whose value cannot be
// honoured is refused with a message naming it ("config key 'hidden_act': unsupported value
// \"relu2\""); keys that do not change one layer (vocab, token ids, dropout, ...) are ignored.
// Notable choices (each mirrors what `transformers` does, not what a key's name suggests):
//   - mistral / mixtral: q/k/v/o and the MLP have no bias whatever `attention_bias` says
//     (their modeling code hard-codes bias=False); llama reads `attention_bias` (q,k,v,o) and
//     `mlp_bias`; qwen3 / qwen3_moe read `attention_bias` (q,k,v,o); qwen2 always has q/k/v
//     bias and no o_proj / MLP bias.
//   - sliding windows: mistral / mixtral use `sliding_window` whenever it is set, qwen2 / qwen3
//     / qwen3_moe only with `use_sliding_window` true (or a `layer_types` entry other than
//     "full_attention"); llama's modeling code never reads it. A window that is used and is
//     smaller than `max_position_embeddings` (or with that key absent) is refused: the
//     generator computes full causal attention only.
//   - rope: `rope_scaling` (or the newer `rope_parameters`), type under `rope_type` or the older
//     `type`; yarn and llama3 follow the current `transformers` rope init: an explicit
//     `factor` wins, `original_max_position_embeddings` defaults to `max_position_embeddings`
//     (yarn may omit `factor`, which is then max_position / original).
//   - dtype: `torch_dtype` (or the newer `dtype`) must be bfloat16/float16 unless --dtype
//     is given; `quantization_config` is refused unless --dtype overrides it.
//   - mixtral, qwen3_moe, deepseek_v3 are parsed and validated in full (`moe`, `mla` below are
//     filled) and passed to the generator (model.moe, model.mla, model.attn_scale).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilefw/base/dtype.hpp"
#include "tilefw/gen/config.hpp"

namespace tilefw::tools {

/// transformers' rope_scaling; the type under "rope_type" or the older "type".
struct RopeScaling {
  enum class Type { none, linear, llama3, yarn } type = Type::none;  // "default" == none
  double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
  uint32_t original_max_position_embeddings = 0;  // 0 = absent (max_position_embeddings)
  double beta_fast = 32, beta_slow = 1, mscale = 0, mscale_all_dim = 0;  // yarn (0 = absent)
  std::optional<double> attention_factor;  // yarn
  bool truncate = true;                    // yarn: floor/ceil the correction range
  bool factor_given = false;               // yarn may derive factor from the context lengths
};

/// Routed-expert parameters (mixtral, qwen3_moe, deepseek_v3), for the MoE issue.
struct MoeConfig {
  uint32_t experts = 0;             // num_local_experts / num_experts / n_routed_experts
  uint32_t top_k = 0;               // num_experts_per_tok
  uint32_t expert_intermediate = 0; // moe_intermediate_size (mixtral: intermediate_size)
  uint32_t shared_experts = 0;      // n_shared_experts (deepseek_v3)
  bool norm_topk_prob = true;       // mixtral always renormalises the top-k weights
  uint32_t decoder_sparse_step = 1; // qwen3_moe
  std::vector<uint32_t> mlp_only_layers;  // qwen3_moe: dense layers
  uint32_t first_k_dense_replace = 0;     // deepseek_v3: layers below are dense
  uint32_t n_group = 1, topk_group = 1;   // deepseek_v3 group-limited routing
  double routed_scaling_factor = 1;       // deepseek_v3
};

/// Multi-head latent attention (deepseek_v3).
struct MlaConfig {
  uint32_t q_lora_rank = 0;  // 0: q_lora_rank null (plain q_proj)
  uint32_t kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  bool rope_interleave = true;
};

struct HfConfig {
  gen::ModelConfig model;  // filled as far as the dense layer needs
  std::string model_type;  // as written
  double rope_theta = 10000;
  RopeScaling rope;
  uint32_t rope_dim = 0;  // rotated dims per head: head_dim (deepseek_v3: qk_rope_head_dim)
  uint32_t max_position_embeddings = 0;  // 0 = absent
  uint32_t sliding_window = 0;           // 0 = none/disabled
  MoeConfig moe;  // mixtral, qwen3_moe, deepseek_v3
  MlaConfig mla;  // deepseek_v3
};

/// Parses config.json text. dtype_override: from --dtype (DType::f16 / DType::bf16) or nullopt.
/// false with `error` naming the key (e.g. "config key 'hidden_act': unsupported value
/// \"relu2\""); malformed JSON gives the parser's byte position. Never throws.
bool parse_hf_config(const std::string& json_text, std::optional<DType> dtype_override,
                     HfConfig& out, std::string& error);

/// Whether decoder layer `layer` uses the sparse MoE block (mixtral: every layer; qwen3_moe:
/// not in mlp_only_layers and (layer + 1) % decoder_sparse_step == 0; deepseek_v3: layer >=
/// first_k_dense_replace).
bool is_moe_layer(const HfConfig& cfg, uint32_t layer);

/// inv_freq (rope_dim/2 values) and the attention scaling factor as transformers' rope init
/// functions define them for default / linear / llama3 / yarn, evaluated in double (transformers
/// evaluates the same formulas in float32).
void rope_parameters(const HfConfig& cfg, std::vector<double>& inv_freq,
                     double& attention_scaling);

/// cos/sin tables for positions [first, first+count): `count` rows of rope_dim values in
/// rotate_half form (emb = cat(freqs, freqs)), times attention_scaling, rounded once to float.
void rope_tables(const HfConfig& cfg, uint32_t first, uint32_t count, std::vector<float>& cos,
                 std::vector<float>& sin);

}  // namespace tilefw::tools
