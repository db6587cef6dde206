// Hugging Face config.json -> HfConfig, and the rotary tables. See gen_config.hpp for what is
// read and refused. Every refusal goes through `refuse`, which throws Refused inside this file
// only: parse_hf_config catches it (and anything nlohmann or the allocator throws), so the
// caller sees a bool and a message, never an exception.
#include "formats/gen_config.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string_view>

namespace tilefw::tools {
namespace {

using nlohmann::json;
using gen::ModelType;

struct Refused {
  std::string what;
};

[[noreturn]] void refuse(const std::string& key, const std::string& what) {
  throw Refused{"config key '" + key + "': " + what};
}

// A value for a message. Nested values print as their type only: dumping is recursive, and a
// hostile file may nest deeper than the stack allows.
std::string shown(const json& j) {
  if (j.is_structured()) return std::string("an ") + j.type_name();
  std::string s = j.dump();
  return s.size() > 64 ? s.substr(0, 61) + "..." : s;
}

// Absent and null mean the same to transformers (the attribute is None).
const json* find(const json& o, std::string_view key) {
  const auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

// Shape keys above this are not a model the generator can lay out; most likely a typo.
constexpr uint64_t kMaxDim = uint64_t{1} << 20;
// Context lengths of real models reach 10M tokens.
constexpr uint64_t kMaxPositions = uint64_t{1} << 27;

uint32_t as_count(const json& j, const std::string& key, uint64_t max = kMaxDim,
                  bool allow_zero = false) {
  if (!j.is_number_integer()) refuse(key, "expected a positive integer, got " + shown(j));
  if (!j.is_number_unsigned() && j.get<int64_t>() < 0) refuse(key, "negative value " + shown(j));
  const uint64_t v = j.get<uint64_t>();
  if (v == 0 && !allow_zero) refuse(key, "must be positive, got 0");
  if (v > max) refuse(key, "value " + shown(j) + " is absurd (limit " + std::to_string(max) + ")");
  return static_cast<uint32_t>(v);
}

uint32_t req_count(const json& o, const char* key, uint64_t max = kMaxDim) {
  const json* j = find(o, key);
  if (j == nullptr) refuse(key, "required key missing");
  return as_count(*j, key, max);
}

uint32_t opt_count(const json& o, const char* key, uint32_t def, uint64_t max = kMaxDim,
                   bool allow_zero = false) {
  const json* j = find(o, key);
  return j == nullptr ? def : as_count(*j, key, max, allow_zero);
}

double as_number(const json& j, const std::string& key, double lo, double hi) {
  if (!j.is_number()) refuse(key, "expected a number, got " + shown(j));
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    refuse(key, "value " + shown(j) + " out of range [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  }
  return v;
}

bool opt_bool(const json& o, const char* key, bool def, const std::string& prefix = "") {
  const json* j = find(o, key);
  if (j == nullptr) return def;
  if (!j->is_boolean()) refuse(prefix + key, "expected true or false, got " + shown(*j));
  return j->get<bool>();
}

std::string as_string(const json& j, const std::string& key) {
  if (!j.is_string()) refuse(key, "expected a string, got " + shown(j));
  return j.get<std::string>();
}

bool is_moe(ModelType t) {
  return t == ModelType::mixtral || t == ModelType::qwen3_moe || t == ModelType::deepseek_v3;
}
bool is_qwen(ModelType t) {
  return t == ModelType::qwen2 || t == ModelType::qwen3 || t == ModelType::qwen3_moe;
}

void parse_type(const json& root, HfConfig& out) {
  static constexpr std::pair<std::string_view, ModelType> kTypes[] = {
      {"llama", ModelType::llama},         {"mistral", ModelType::mistral},
      {"qwen2", ModelType::qwen2},         {"qwen3", ModelType::qwen3},
      {"mixtral", ModelType::mixtral},     {"qwen3_moe", ModelType::qwen3_moe},
      {"deepseek_v3", ModelType::deepseek_v3}};
  const json* j = find(root, "model_type");
  if (j == nullptr) refuse("model_type", "required key missing");
  out.model_type = as_string(*j, "model_type");
  for (const auto& [name, type] : kTypes) {
    if (name == out.model_type) {
      out.model.type = type;
      return;
    }
  }
  refuse("model_type", "unsupported value " + shown(*j) +
                           " (llama, mistral, qwen2, qwen3, mixtral, qwen3_moe, deepseek_v3)");
}

void parse_mla(const json& root, HfConfig& out) {
  MlaConfig& m = out.mla;
  m.q_lora_rank = opt_count(root, "q_lora_rank", 0);
  m.kv_lora_rank = req_count(root, "kv_lora_rank");
  m.qk_nope_head_dim = req_count(root, "qk_nope_head_dim");
  m.qk_rope_head_dim = req_count(root, "qk_rope_head_dim");
  m.v_head_dim = req_count(root, "v_head_dim");
  m.rope_interleave = opt_bool(root, "rope_interleave", true);
}

void parse_shapes(const json& root, HfConfig& out) {
  gen::ModelConfig& m = out.model;
  m.hidden = req_count(root, "hidden_size");
  m.heads = req_count(root, "num_attention_heads");
  m.kv_heads = opt_count(root, "num_key_value_heads", m.heads);
  if (m.heads % m.kv_heads != 0) {
    refuse("num_key_value_heads", std::to_string(m.kv_heads) + " does not divide num_attention_heads " +
                                      std::to_string(m.heads));
  }
  m.intermediate = req_count(root, "intermediate_size");
  m.num_layers = req_count(root, "num_hidden_layers");
  // The whole model's ends (tilefw gen --model); one layer does not read them. Every supported
  // model type's transformers config defaults tie_word_embeddings to false.
  m.vocab = opt_count(root, "vocab_size", 0);
  m.tie_embeddings = opt_bool(root, "tie_word_embeddings", false);
  const json* eps = find(root, "rms_norm_eps");
  if (eps == nullptr) refuse("rms_norm_eps", "required key missing");
  m.rms_eps = static_cast<float>(as_number(*eps, "rms_norm_eps", 1e-30, 1.0));
  if (m.type == ModelType::deepseek_v3) {
    // DeepseekV3Config sets head_dim = qk_rope_head_dim: the rotated part of a q/k head.
    parse_mla(root, out);
    m.head_dim = out.mla.qk_rope_head_dim;
  } else if (const json* hd = find(root, "head_dim")) {
    m.head_dim = as_count(*hd, "head_dim");  // qwen3: head_dim * heads != hidden is fine
  } else {
    if (m.hidden % m.heads != 0) {
      refuse("num_attention_heads", std::to_string(m.heads) + " does not divide hidden_size " +
                                        std::to_string(m.hidden) + " and head_dim is absent");
    }
    m.head_dim = m.hidden / m.heads;
  }
  out.rope_dim = m.head_dim;
  // rotate_half pairs dimension i with i + head_dim/2.
  if (out.rope_dim % 2 != 0) {
    refuse(m.type == ModelType::deepseek_v3 ? "qk_rope_head_dim" : "head_dim",
           "rotary dimension " + std::to_string(out.rope_dim) + " is odd");
  }
  out.max_position_embeddings = opt_count(root, "max_position_embeddings", 0, kMaxPositions);
}

void parse_act(const json& root, HfConfig& out) {
  const json* j = find(root, "hidden_act");
  if (j == nullptr) return;  // every supported config class defaults to silu
  const std::string act = as_string(*j, "hidden_act");
  if (act == "silu") {
    out.model.act = gen::Activation::silu;
  } else if (act == "gelu") {
    out.model.act = gen::Activation::gelu;  // transformers' "gelu" is the exact erf form
  } else if (act == "gelu_pytorch_tanh") {
    out.model.act = gen::Activation::gelu_tanh;
  } else {
    refuse("hidden_act", "unsupported value " + shown(*j) + " (silu, gelu, gelu_pytorch_tanh)");
  }
}

void parse_dtype(const json& root, std::optional<DType> dtype_override, HfConfig& out) {
  if (dtype_override) {
    if (*dtype_override != DType::bf16 && *dtype_override != DType::f16) {
      throw Refused{std::string("--dtype: unsupported value \"") + dtype_name(*dtype_override) +
                    "\" (f16 or bf16)"};
    }
    out.model.dtype = *dtype_override;  // also overrides quantization_config
    return;
  }
  if (const json* q = find(root, "quantization_config")) {
    std::string method;
    if (q->is_object()) {
      if (const json* m = find(*q, "quant_method"); m != nullptr && m->is_string()) {
        method = " (quant_method " + shown(*m) + ")";
      }
    }
    refuse("quantization_config", "quantized weights" + method +
                                      " are not supported; pass --dtype bf16 or f16 to use "
                                      "unquantized weights");
  }
  // transformers >= 4.56 writes "dtype"; earlier versions "torch_dtype".
  const char* key = find(root, "torch_dtype") != nullptr || find(root, "dtype") == nullptr
                        ? "torch_dtype" : "dtype";
  const json* j = find(root, key);
  if (j == nullptr) refuse(key, "missing (weights dtype unknown); pass --dtype bf16 or f16");
  const std::string d = as_string(*j, key);
  if (d == "bfloat16") {
    out.model.dtype = DType::bf16;
  } else if (d == "float16") {
    out.model.dtype = DType::f16;
  } else {
    refuse(key, "unsupported value " + shown(*j) + " (bfloat16 or float16; --dtype overrides)");
  }
}

void parse_bias(const json& root, HfConfig& out) {
  gen::ModelConfig& m = out.model;
  m.qk_norm = m.type == ModelType::qwen3 || m.type == ModelType::qwen3_moe;
  switch (m.type) {
    case ModelType::llama:
      m.qkv_bias = m.o_bias = opt_bool(root, "attention_bias", false);
      m.mlp_bias = opt_bool(root, "mlp_bias", false);
      break;
    case ModelType::qwen2:  // Qwen2Attention: q/k/v bias=True, o_proj bias=False, no MLP bias
      m.qkv_bias = true;
      break;
    case ModelType::qwen3:
    case ModelType::qwen3_moe:
    case ModelType::deepseek_v3:  // q_a/q, kv_a_proj_with_mqa and o_proj
      m.qkv_bias = m.o_bias = opt_bool(root, "attention_bias", false);
      break;
    case ModelType::mistral:  // bias=False hard-coded in the modeling code
    case ModelType::mixtral:
      break;
  }
}

// Whether the layer's attention is windowed per transformers, and refusal when it would be.
void parse_window(const json& root, HfConfig& out) {
  const ModelType t = out.model.type;
  bool used = false;
  if (t == ModelType::mistral || t == ModelType::mixtral) {
    used = true;
  } else if (is_qwen(t)) {
    used = opt_bool(root, "use_sliding_window", false);
    if (const json* lt = find(root, "layer_types")) {
      if (!lt->is_array()) refuse("layer_types", "expected an array, got " + shown(*lt));
      for (const json& e : *lt) {
        const std::string s = as_string(e, "layer_types");
        if (s == "sliding_attention") {
          used = true;
        } else if (s != "full_attention") {
          refuse("layer_types", "unsupported value " + shown(e));
        }
      }
    }
  }
  const json* sw = find(root, "sliding_window");
  if (!used || sw == nullptr) return;
  const uint32_t window = as_count(*sw, "sliding_window", kMaxPositions);
  const uint32_t ctx = out.max_position_embeddings;
  if (ctx == 0 || window < ctx) {
    refuse("sliding_window", std::to_string(window) + " is smaller than max_position_embeddings " +
                                 (ctx == 0 ? std::string("(absent)") : std::to_string(ctx)) +
                                 ": sliding-window attention is not generated");
  }
  out.sliding_window = window;
}

double rope_num(const json& rs, const std::string& prefix, const char* key, bool required,
                double def, double lo, double hi) {
  const json* j = find(rs, key);
  if (j == nullptr) {
    if (required) refuse(prefix + key, "required key missing");
    return def;
  }
  return as_number(*j, prefix + key, lo, hi);
}

void parse_yarn(const json& rs, const std::string& p, RopeScaling& r) {
  r.factor_given = find(rs, "factor") != nullptr;
  r.factor = rope_num(rs, p, "factor", r.original_max_position_embeddings == 0, 1, 1e-6, 1e6);
  // transformers: `rope_scaling.get("beta_fast") or 32`, so 0 means the default too.
  const double bf = rope_num(rs, p, "beta_fast", false, 32, 0, 1e6);
  const double bs = rope_num(rs, p, "beta_slow", false, 1, 0, 1e6);
  r.beta_fast = bf == 0 ? 32 : bf;
  r.beta_slow = bs == 0 ? 1 : bs;
  r.mscale = rope_num(rs, p, "mscale", false, 0, 0, 1e6);
  r.mscale_all_dim = rope_num(rs, p, "mscale_all_dim", false, 0, 0, 1e6);
  if (find(rs, "attention_factor") != nullptr) {
    r.attention_factor = rope_num(rs, p, "attention_factor", true, 1, 0, 1e6);
  }
  r.truncate = opt_bool(rs, "truncate", true, p);
}

void parse_rope_type(const json& rs, const std::string& p, HfConfig& out) {
  RopeScaling& r = out.rope;
  const char* type_key = find(rs, "rope_type") != nullptr ? "rope_type" : "type";
  const json* tj = find(rs, type_key);
  const std::string type = tj == nullptr ? "default" : as_string(*tj, p + type_key);
  r.original_max_position_embeddings =
      opt_count(rs, "original_max_position_embeddings", 0, kMaxPositions);
  if (type == "default") {
    r.type = RopeScaling::Type::none;
  } else if (type == "linear") {
    r.type = RopeScaling::Type::linear;
    r.factor = rope_num(rs, p, "factor", true, 1, 1e-6, 1e6);
  } else if (type == "llama3") {
    r.type = RopeScaling::Type::llama3;
    r.factor = rope_num(rs, p, "factor", true, 1, 1e-6, 1e6);
    r.low_freq_factor = rope_num(rs, p, "low_freq_factor", true, 1, 1e-6, 1e6);
    r.high_freq_factor = rope_num(rs, p, "high_freq_factor", true, 4, 1e-6, 1e6);
    if (r.high_freq_factor == r.low_freq_factor) {  // the smoothing divides by their difference
      refuse(p + "high_freq_factor", "equals low_freq_factor");
    }
  } else if (type == "yarn") {
    r.type = RopeScaling::Type::yarn;
    parse_yarn(rs, p, r);
  } else {
    refuse(p + type_key, "unsupported value " + shown(*tj) + " (default, linear, llama3, yarn)");
  }
  // llama3 and yarn fall back to max_position_embeddings for the pre-training context.
  if (r.type == RopeScaling::Type::llama3 || r.type == RopeScaling::Type::yarn) {
    if (r.original_max_position_embeddings == 0) {
      if (out.max_position_embeddings == 0) {
        refuse(p + "original_max_position_embeddings",
               "required key missing (and max_position_embeddings is absent)");
      }
      r.original_max_position_embeddings = out.max_position_embeddings;
    }
  }
  if (r.type == RopeScaling::Type::yarn && !r.factor_given && out.max_position_embeddings == 0) {
    refuse(p + "factor", "required key missing (and max_position_embeddings is absent)");
  }
}

// rope_theta and partial_rotary_factor may sit at the top level or inside the rope dict.
void parse_theta_and_partial(const json& o, const std::string& prefix, HfConfig& out) {
  if (const json* th = find(o, "rope_theta")) {
    out.rope_theta = as_number(*th, prefix + "rope_theta", 1.0001, 1e12);
  }
  const json* pr = find(o, "partial_rotary_factor");
  if (pr != nullptr && as_number(*pr, prefix + "partial_rotary_factor", 0, 1) != 1) {
    refuse(prefix + "partial_rotary_factor", "value " + shown(*pr) + " unsupported (only 1: full rotary)");
  }
}

void parse_rope(const json& root, HfConfig& out) {
  // transformers v5 writes rope_parameters (with rope_theta inside); earlier, rope_scaling.
  const char* key = find(root, "rope_scaling") != nullptr ? "rope_scaling" : "rope_parameters";
  parse_theta_and_partial(root, "", out);
  const json* rs = find(root, key);
  if (rs == nullptr) return;
  if (!rs->is_object()) refuse(key, "expected an object or null, got " + shown(*rs));
  const std::string p = std::string(key) + ".";
  parse_theta_and_partial(*rs, p, out);
  parse_rope_type(*rs, p, out);
}

std::string expect_string(const json& root, const char* key, const char* want) {
  const json* j = find(root, key);
  if (j == nullptr) return want;
  const std::string s = as_string(*j, key);
  if (s != want) refuse(key, "unsupported value " + shown(*j) + " (only \"" + want + "\")");
  return s;
}

void parse_deepseek_moe(const json& root, MoeConfig& m) {
  m.experts = req_count(root, "n_routed_experts");
  m.expert_intermediate = req_count(root, "moe_intermediate_size");
  m.shared_experts = opt_count(root, "n_shared_experts", 0, kMaxDim, true);
  m.norm_topk_prob = opt_bool(root, "norm_topk_prob", true);
  m.first_k_dense_replace = opt_count(root, "first_k_dense_replace", 0, kMaxDim, true);
  m.n_group = opt_count(root, "n_group", 1);
  m.topk_group = opt_count(root, "topk_group", 1);
  if (const json* f = find(root, "routed_scaling_factor")) {
    m.routed_scaling_factor = as_number(*f, "routed_scaling_factor", 0, 1e6);
  }
  if (opt_count(root, "moe_layer_freq", 1) != 1) refuse("moe_layer_freq", "only 1 is supported");
  expect_string(root, "scoring_func", "sigmoid");
  expect_string(root, "topk_method", "noaux_tc");
  if (m.experts % m.n_group != 0) {
    refuse("n_group", std::to_string(m.n_group) + " does not divide n_routed_experts");
  }
  if (m.topk_group > m.n_group) refuse("topk_group", "exceeds n_group");
}

void parse_moe(const json& root, HfConfig& out) {
  MoeConfig& m = out.moe;
  switch (out.model.type) {
    case ModelType::mixtral:
      m.experts = req_count(root, "num_local_experts");
      m.expert_intermediate = out.model.intermediate;
      m.norm_topk_prob = true;
      break;
    case ModelType::qwen3_moe:
      m.experts = req_count(root, "num_experts");
      m.expert_intermediate = req_count(root, "moe_intermediate_size");
      m.norm_topk_prob = opt_bool(root, "norm_topk_prob", false);
      m.decoder_sparse_step = opt_count(root, "decoder_sparse_step", 1);
      if (const json* l = find(root, "mlp_only_layers")) {
        if (!l->is_array()) refuse("mlp_only_layers", "expected an array, got " + shown(*l));
        for (const json& e : *l) m.mlp_only_layers.push_back(as_count(e, "mlp_only_layers", kMaxDim, true));
      }
      break;
    case ModelType::deepseek_v3:
      parse_deepseek_moe(root, m);
      break;
    default:
      return;
  }
  m.top_k = req_count(root, "num_experts_per_tok");
  if (m.top_k > m.experts) refuse("num_experts_per_tok", "exceeds the number of experts");
}

// transformers' yarn_get_mscale: 0.1 * mscale * ln(scale) + 1 for scale > 1.
double get_mscale(double scale, double mscale) {
  return scale <= 1 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

// The generator's view of a deepseek_v3 layer: MLA shapes, the softmax scale
// (DeepseekV3Attention: qk_head_dim^-0.5, times mscale(factor, mscale_all_dim)^2 when the
// rope scaling has mscale_all_dim), sigmoid group-limited routing and the shared experts.
void fill_deepseek(HfConfig& out) {
  gen::ModelConfig& m = out.model;
  m.mla.q_lora_rank = out.mla.q_lora_rank;
  m.mla.kv_lora_rank = out.mla.kv_lora_rank;
  m.mla.qk_nope_head_dim = out.mla.qk_nope_head_dim;
  m.mla.v_head_dim = out.mla.v_head_dim;
  m.mla.rope_interleave = out.mla.rope_interleave;
  double scale = 1.0 / std::sqrt(static_cast<double>(out.mla.qk_nope_head_dim + out.mla.qk_rope_head_dim));
  if (out.rope.type != RopeScaling::Type::none && out.rope.mscale_all_dim != 0) {
    const double ms = get_mscale(out.rope.factor, out.rope.mscale_all_dim);
    scale *= ms * ms;
  }
  m.attn_scale = static_cast<float>(scale);
  m.moe.routing = gen::Routing::sigmoid_grouped;
  m.moe.n_group = out.moe.n_group;
  m.moe.topk_group = out.moe.topk_group;
  m.moe.routed_scaling_factor = static_cast<float>(out.moe.routed_scaling_factor);
  // In 64 bits, and held to the limit of any dimension: the 32-bit product wrapped (2^20 x
  // 2^12 = 2^32 became 0, and the shared experts silently vanished).
  const uint64_t shared = uint64_t{out.moe.expert_intermediate} * out.moe.shared_experts;
  if (shared > kMaxDim) {
    refuse("n_shared_experts", "moe_intermediate_size x n_shared_experts = " + std::to_string(shared) +
                                   " is above the largest width tilefw maps (" + std::to_string(kMaxDim) + ")");
  }
  m.moe.shared_intermediate = static_cast<uint32_t>(shared);
}

void parse_root(const json& root, std::optional<DType> dtype_override, HfConfig& out) {
  if (!root.is_object()) throw Refused{"config: top level is " + shown(root) + ", not an object"};
  parse_type(root, out);
  parse_shapes(root, out);
  parse_act(root, out);
  parse_dtype(root, dtype_override, out);
  parse_bias(root, out);
  parse_window(root, out);
  parse_rope(root, out);
  parse_moe(root, out);
  if (is_moe(out.model.type)) {
    gen::MoeConfig& g = out.model.moe;
    g.experts = out.moe.experts;
    g.top_k = out.moe.top_k;
    g.expert_intermediate = out.moe.expert_intermediate;
    g.norm_topk_prob = out.moe.norm_topk_prob;
  }
  if (out.model.type == ModelType::deepseek_v3) fill_deepseek(out);
}

}  // namespace

bool parse_hf_config(const std::string& json_text, std::optional<DType> dtype_override,
                     HfConfig& out, std::string& error) {
  out = HfConfig{};
  try {
    const json root = json::parse(json_text);
    parse_root(root, dtype_override, out);
    return true;
  } catch (const Refused& r) {
    error = r.what;
  } catch (const json::parse_error& e) {
    error = "config: invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what();
  } catch (const std::exception& e) {
    error = std::string("config: ") + e.what();
  }
  return false;
}

namespace {

// The dimension index (of `dim`) whose wavelength makes `rotations` turns over `ctx`.
double yarn_correction_dim(double rotations, double dim, double base, double ctx) {
  return dim * std::log(ctx / (rotations * 2 * std::numbers::pi)) / (2 * std::log(base));
}

void yarn_parameters(const HfConfig& cfg, std::vector<double>& inv_freq, double& scaling) {
  const RopeScaling& r = cfg.rope;
  const double dim = cfg.rope_dim;
  const double ctx = r.original_max_position_embeddings;
  const double factor = r.factor_given ? r.factor : cfg.max_position_embeddings / ctx;
  if (r.attention_factor) {
    scaling = *r.attention_factor;
  } else if (r.mscale != 0 && r.mscale_all_dim != 0) {
    scaling = get_mscale(factor, r.mscale) / get_mscale(factor, r.mscale_all_dim);
  } else {
    scaling = get_mscale(factor, 1);
  }
  double low = yarn_correction_dim(r.beta_fast, dim, cfg.rope_theta, ctx);
  double high = yarn_correction_dim(r.beta_slow, dim, cfg.rope_theta, ctx);
  if (r.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, dim - 1);
  if (low == high) high += 0.001;  // transformers' guard against a zero-width ramp
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolation = 1 - ramp;  // weight of the unscaled frequency
    inv_freq[i] = inv_freq[i] / factor * (1 - extrapolation) + inv_freq[i] * extrapolation;
  }
}

void llama3_parameters(const RopeScaling& r, std::vector<double>& inv_freq) {
  const double ctx = r.original_max_position_embeddings;
  const double low_freq_wavelen = ctx / r.low_freq_factor;
  const double high_freq_wavelen = ctx / r.high_freq_factor;
  for (double& f : inv_freq) {
    const double wavelen = 2 * std::numbers::pi / f;
    if (wavelen > low_freq_wavelen) {
      f /= r.factor;  // long wavelengths: fully interpolated
    } else if (!(wavelen < high_freq_wavelen)) {
      const double smooth = (ctx / wavelen - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
      f = (1 - smooth) * f / r.factor + smooth * f;
    }  // short wavelengths: unchanged
  }
}

}  // namespace

void rope_parameters(const HfConfig& cfg, std::vector<double>& inv_freq, double& attention_scaling) {
  const uint32_t dim = cfg.rope_dim;
  inv_freq.assign(dim / 2, 0.0);
  for (uint32_t i = 0; i < dim / 2; ++i) {
    inv_freq[i] = 1.0 / std::pow(cfg.rope_theta, 2.0 * i / dim);
  }
  attention_scaling = 1.0;
  switch (cfg.rope.type) {
    case RopeScaling::Type::none: break;
    case RopeScaling::Type::linear:
      for (double& f : inv_freq) f /= cfg.rope.factor;
      break;
    case RopeScaling::Type::llama3: llama3_parameters(cfg.rope, inv_freq); break;
    case RopeScaling::Type::yarn: yarn_parameters(cfg, inv_freq, attention_scaling); break;
  }
}

void rope_tables(const HfConfig& cfg, uint32_t first, uint32_t count, std::vector<float>& cos,
                 std::vector<float>& sin) {
  std::vector<double> inv_freq;
  double scaling = 1;
  rope_parameters(cfg, inv_freq, scaling);
  const size_t half = inv_freq.size();
  const size_t dim = 2 * half;
  cos.assign(static_cast<size_t>(count) * dim, 0.0f);
  sin.assign(static_cast<size_t>(count) * dim, 0.0f);
  for (uint32_t r = 0; r < count; ++r) {
    const double pos = static_cast<double>(first) + r;
    float* c = cos.data() + r * dim;
    float* s = sin.data() + r * dim;
    for (size_t i = 0; i < half; ++i) {
      const double angle = pos * inv_freq[i];
      c[i] = c[i + half] = static_cast<float>(std::cos(angle) * scaling);
      s[i] = s[i + half] = static_cast<float>(std::sin(angle) * scaling);
    }
  }
}

bool is_moe_layer(const HfConfig& cfg, uint32_t layer) {
  const MoeConfig& m = cfg.moe;
  switch (cfg.model.type) {
    case gen::ModelType::mixtral:
      return true;
    case gen::ModelType::qwen3_moe:  // Qwen3MoeDecoderLayer: not in mlp_only_layers, every step-th
      for (uint32_t l : m.mlp_only_layers) {
        if (l == layer) return false;
      }
      return m.experts > 0 && m.decoder_sparse_step > 0 && (layer + 1) % m.decoder_sparse_step == 0;
    case gen::ModelType::deepseek_v3:
      return layer >= m.first_k_dense_replace;
    default:
      return false;
  }
}

}  // namespace tilefw::tools
