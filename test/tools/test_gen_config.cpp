// tools/formats/gen_config: the five published configs (test/data/models), every refusal naming its
// key, biases per model_type, and the rope parameters against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "formats/gen_config.hpp"

namespace tilefw::tools {
namespace {

using nlohmann::json;

std::string model_text(const std::string& file) {
  std::ifstream f(std::string(TILEFW_MODELS_DIR) + "/" + file);
  EXPECT_TRUE(f.good()) << file;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

json model_json(const std::string& file) { return json::parse(model_text(file)); }

// Parses `j`; returns the error ("" on success).
std::string parse_error(const json& j, std::optional<DType> dtype = std::nullopt, HfConfig* out = nullptr) {
  HfConfig cfg;
  std::string error;
  const bool ok = parse_hf_config(j.dump(), dtype, cfg, error);
  if (out != nullptr) *out = cfg;
  EXPECT_EQ(ok, error.empty()) << error;
  return ok ? std::string() : error;
}

TEST(GenConfig, Llama3_8bFillsModelConfig) {
  HfConfig c;
  ASSERT_EQ(parse_error(model_json("llama-3-8b.json"), std::nullopt, &c), "");
  EXPECT_EQ(c.model_type, "llama");
  EXPECT_EQ(c.model.type, gen::ModelType::llama);
  EXPECT_EQ(c.model.hidden, 4096u);
  EXPECT_EQ(c.model.heads, 32u);
  EXPECT_EQ(c.model.kv_heads, 8u);
  EXPECT_EQ(c.model.head_dim, 128u);
  EXPECT_EQ(c.model.intermediate, 14336u);
  EXPECT_EQ(c.model.num_layers, 32u);
  EXPECT_EQ(c.model.rms_eps, 1e-5f);
  EXPECT_FALSE(c.model.qkv_bias || c.model.o_bias || c.model.mlp_bias || c.model.qk_norm);
  EXPECT_EQ(c.model.act, gen::Activation::silu);
  EXPECT_EQ(c.model.dtype, DType::bf16);
  EXPECT_EQ(c.rope_theta, 500000.0);
  EXPECT_EQ(c.rope.type, RopeScaling::Type::none);
  EXPECT_EQ(c.rope_dim, 128u);
  EXPECT_EQ(c.max_position_embeddings, 8192u);
  EXPECT_EQ(c.sliding_window, 0u);
}

TEST(GenConfig, Qwen3_8bFillsModelConfig) {
  HfConfig c;
  ASSERT_EQ(parse_error(model_json("qwen3-8b.json"), std::nullopt, &c), "");
  EXPECT_EQ(c.model.type, gen::ModelType::qwen3);
  EXPECT_EQ(c.model.hidden, 4096u);
  EXPECT_EQ(c.model.heads, 32u);
  EXPECT_EQ(c.model.kv_heads, 8u);
  EXPECT_EQ(c.model.head_dim, 128u);
  EXPECT_EQ(c.model.intermediate, 12288u);
  EXPECT_EQ(c.model.num_layers, 36u);
  EXPECT_EQ(c.model.rms_eps, 1e-6f);
  EXPECT_TRUE(c.model.qk_norm);
  EXPECT_FALSE(c.model.qkv_bias || c.model.o_bias);
  EXPECT_EQ(c.rope_theta, 1e6);
  EXPECT_EQ(c.sliding_window, 0u);  // sliding_window null, use_sliding_window false
}

TEST(GenConfig, MoeModelsFillTheMoeBlock) {
  HfConfig c;
  EXPECT_EQ(parse_error(model_json("mixtral-8x7b.json"), std::nullopt, &c), "");
  EXPECT_EQ(c.moe.experts, 8u);
  EXPECT_EQ(c.moe.top_k, 2u);
  EXPECT_EQ(c.moe.expert_intermediate, 14336u);
  EXPECT_EQ(c.model.moe.experts, 8u);
  EXPECT_EQ(c.model.moe.top_k, 2u);
  EXPECT_TRUE(c.model.moe.norm_topk_prob);  // mixtral always renormalises
  EXPECT_TRUE(is_moe_layer(c, 0));
  EXPECT_TRUE(is_moe_layer(c, 31));
  EXPECT_EQ(parse_error(model_json("qwen3-30b-a3b.json"), std::nullopt, &c), "");
  EXPECT_EQ(c.moe.experts, 128u);
  EXPECT_EQ(c.moe.top_k, 8u);
  EXPECT_EQ(c.moe.expert_intermediate, 768u);
  EXPECT_TRUE(c.moe.norm_topk_prob);
  EXPECT_EQ(c.model.moe.expert_intermediate, 768u);
  EXPECT_EQ(c.model.kv_heads, 4u);
  EXPECT_TRUE(is_moe_layer(c, 0));  // decoder_sparse_step 1, mlp_only_layers []
}

TEST(GenConfig, DeepseekV3NeedsDtypeForItsQuantizationConfig) {
  const json j = model_json("deepseek-v3.json");
  const std::string e = parse_error(j);
  EXPECT_NE(e.find("config key 'quantization_config'"), std::string::npos) << e;
  HfConfig c;
  EXPECT_EQ(parse_error(j, DType::bf16, &c), "");
  EXPECT_EQ(c.model.dtype, DType::bf16);
  EXPECT_EQ(c.mla.q_lora_rank, 1536u);
  EXPECT_EQ(c.mla.kv_lora_rank, 512u);
  EXPECT_EQ(c.mla.qk_nope_head_dim, 128u);
  EXPECT_EQ(c.mla.v_head_dim, 128u);
  EXPECT_EQ(c.rope_dim, 64u);
  EXPECT_EQ(c.moe.experts, 256u);
  EXPECT_EQ(c.moe.shared_experts, 1u);
  EXPECT_EQ(c.moe.n_group, 8u);
  EXPECT_EQ(c.moe.topk_group, 4u);
  EXPECT_EQ(c.moe.first_k_dense_replace, 3u);
  EXPECT_EQ(c.moe.routed_scaling_factor, 2.5);
  EXPECT_EQ(c.rope.type, RopeScaling::Type::yarn);  // under the older "type" key
  EXPECT_EQ(c.rope.factor, 40.0);
  EXPECT_EQ(c.rope.original_max_position_embeddings, 4096u);
  std::vector<double> inv;
  double scaling = 0;
  rope_parameters(c, inv, scaling);
  EXPECT_EQ(inv.size(), 32u);
  EXPECT_DOUBLE_EQ(scaling, 1.0);  // mscale == mscale_all_dim: their ratio is 1
  // What the generator gets: MLA shapes, the softmax scale with yarn's mscale^2, grouped
  // sigmoid routing and the shared experts' width.
  EXPECT_EQ(c.model.mla.q_lora_rank, 1536u);
  EXPECT_EQ(c.model.mla.kv_lora_rank, 512u);
  EXPECT_TRUE(c.model.mla.rope_interleave);
  const double mscale = 0.1 * std::log(40.0) + 1.0;
  EXPECT_FLOAT_EQ(c.model.attn_scale, static_cast<float>(mscale * mscale / std::sqrt(192.0)));
  EXPECT_EQ(c.model.moe.routing, gen::Routing::sigmoid_grouped);
  EXPECT_EQ(c.model.moe.n_group, 8u);
  EXPECT_EQ(c.model.moe.topk_group, 4u);
  EXPECT_FLOAT_EQ(c.model.moe.routed_scaling_factor, 2.5f);
  EXPECT_EQ(c.model.moe.shared_intermediate, 2048u);
  EXPECT_EQ(parse_error(j, DType::f16), "");
}

// Each mutation of the llama config must be refused with a message naming `key`.
struct Refusal {
  const char* what;
  json patch;  // merged into llama-3-8b.json (null values delete the key)
  const char* key;
};

TEST(GenConfig, EveryRefusalNamesItsKey) {
  const Refusal cases[] = {
      {"hidden_act", {{"hidden_act", "relu2"}}, "hidden_act"},
      {"hidden_act type", {{"hidden_act", 3}}, "hidden_act"},
      {"rope type dynamic", {{"rope_scaling", {{"rope_type", "dynamic"}, {"factor", 2}}}}, "rope_scaling.rope_type"},
      {"rope old type", {{"rope_scaling", {{"type", "longrope"}}}}, "rope_scaling.type"},
      {"rope not object", {{"rope_scaling", "linear"}}, "rope_scaling"},
      {"linear no factor", {{"rope_scaling", {{"rope_type", "linear"}}}}, "rope_scaling.factor"},
      {"linear factor string", {{"rope_scaling", {{"rope_type", "linear"}, {"factor", "2"}}}}, "rope_scaling.factor"},
      {"llama3 no low", {{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8}, {"high_freq_factor", 4}}}},
       "rope_scaling.low_freq_factor"},
      {"llama3 no factor", {{"rope_scaling", {{"rope_type", "llama3"}, {"low_freq_factor", 1}, {"high_freq_factor", 4}}}},
       "rope_scaling.factor"},
      {"partial rotary", {{"partial_rotary_factor", 0.5}}, "partial_rotary_factor"},
      {"partial rotary in rope", {{"rope_scaling", {{"rope_type", "default"}, {"partial_rotary_factor", 0.25}}}},
       "rope_scaling.partial_rotary_factor"},
      {"float32", {{"torch_dtype", "float32"}}, "torch_dtype"},
      {"no dtype", {{"torch_dtype", nullptr}}, "torch_dtype"},
      {"quantized", {{"quantization_config", {{"quant_method", "fp8"}}}}, "quantization_config"},
      {"model type", {{"model_type", "gpt2"}}, "model_type"},
      {"no model type", {{"model_type", nullptr}}, "model_type"},
      {"hidden % heads", {{"hidden_size", 4100}}, "num_attention_heads"},
      {"heads % kv", {{"num_key_value_heads", 5}}, "num_key_value_heads"},
      {"odd head_dim", {{"head_dim", 127}}, "head_dim"},
      {"missing hidden", {{"hidden_size", nullptr}}, "hidden_size"},
      {"missing heads", {{"num_attention_heads", nullptr}}, "num_attention_heads"},
      {"missing intermediate", {{"intermediate_size", nullptr}}, "intermediate_size"},
      {"missing layers", {{"num_hidden_layers", nullptr}}, "num_hidden_layers"},
      {"missing eps", {{"rms_norm_eps", nullptr}}, "rms_norm_eps"},
      {"hidden string", {{"hidden_size", "4096"}}, "hidden_size"},
      {"hidden negative", {{"hidden_size", -4096}}, "hidden_size"},
      {"hidden zero", {{"hidden_size", 0}}, "hidden_size"},
      {"hidden absurd", {{"hidden_size", (1 << 20) + 1}}, "hidden_size"},
      {"hidden fraction", {{"hidden_size", 4096.5}}, "hidden_size"},
      {"hidden bool", {{"hidden_size", true}}, "hidden_size"},
      {"hidden array", {{"hidden_size", {4096}}}, "hidden_size"},
      {"kv string", {{"num_key_value_heads", "8"}}, "num_key_value_heads"},
      {"intermediate negative", {{"intermediate_size", -1}}, "intermediate_size"},
      {"layers zero", {{"num_hidden_layers", 0}}, "num_hidden_layers"},
      {"eps string", {{"rms_norm_eps", "1e-5"}}, "rms_norm_eps"},
      {"eps negative", {{"rms_norm_eps", -1e-5}}, "rms_norm_eps"},
      {"theta string", {{"rope_theta", "500000"}}, "rope_theta"},
      {"theta zero", {{"rope_theta", 0}}, "rope_theta"},
      {"bias string", {{"attention_bias", "yes"}}, "attention_bias"},
      {"mlp bias number", {{"mlp_bias", 1}}, "mlp_bias"},
      {"max pos string", {{"max_position_embeddings", "8192"}}, "max_position_embeddings"},
  };
  const json base = model_json("llama-3-8b.json");
  for (const Refusal& c : cases) {
    json j = base;
    j.merge_patch(c.patch);
    const std::string e = parse_error(j);
    EXPECT_NE(e.find(std::string("config key '") + c.key + "'"), std::string::npos)
        << c.what << ": got \"" << e << "\"";
  }
  json j = base;
  j["hidden_act"] = "relu2";
  EXPECT_EQ(parse_error(j), "config key 'hidden_act': unsupported value \"relu2\" (silu, gelu, gelu_pytorch_tanh)");
}

TEST(GenConfig, DtypeOverride) {
  json j = model_json("llama-3-8b.json");
  j["torch_dtype"] = "float32";
  HfConfig c;
  EXPECT_EQ(parse_error(j, DType::f16, &c), "");
  EXPECT_EQ(c.model.dtype, DType::f16);
  j["quantization_config"] = {{"quant_method", "fp8"}};
  EXPECT_EQ(parse_error(j, DType::bf16, &c), "");  // --dtype overrides quantization too
  EXPECT_EQ(c.model.dtype, DType::bf16);
  EXPECT_NE(parse_error(j, DType::f32).find("--dtype"), std::string::npos);
  j = model_json("llama-3-8b.json");
  j["torch_dtype"] = "float16";
  EXPECT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_EQ(c.model.dtype, DType::f16);
  j.erase("torch_dtype");
  j["dtype"] = "float16";  // transformers >= 4.56 spelling
  EXPECT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_EQ(c.model.dtype, DType::f16);
}

TEST(GenConfig, SlidingWindowHonouredOrRefused) {
  json m = model_json("llama-3-8b.json");
  m["model_type"] = "mistral";
  m["max_position_embeddings"] = 32768;
  HfConfig c;
  m["sliding_window"] = nullptr;
  EXPECT_EQ(parse_error(m), "");
  m["sliding_window"] = 4096;  // Mistral-7B-v0.1: a real window, not generated -> refused
  EXPECT_NE(parse_error(m).find("config key 'sliding_window'"), std::string::npos);
  m["sliding_window"] = 32768;  // covers the whole context: full attention
  EXPECT_EQ(parse_error(m, std::nullopt, &c), "");
  EXPECT_EQ(c.sliding_window, 32768u);
  m["max_position_embeddings"] = nullptr;
  EXPECT_NE(parse_error(m).find("config key 'sliding_window'"), std::string::npos);

  json q = model_json("qwen3-8b.json");
  q["sliding_window"] = 4096;  // ignored while use_sliding_window is false
  EXPECT_EQ(parse_error(q, std::nullopt, &c), "");
  EXPECT_EQ(c.sliding_window, 0u);
  q["use_sliding_window"] = true;
  EXPECT_NE(parse_error(q).find("config key 'sliding_window'"), std::string::npos);
  q["use_sliding_window"] = false;
  q["layer_types"] = {"full_attention", "sliding_attention"};
  EXPECT_NE(parse_error(q).find("config key 'sliding_window'"), std::string::npos);
  q["layer_types"] = {"full_attention", "chunked_attention"};
  EXPECT_NE(parse_error(q).find("config key 'layer_types'"), std::string::npos);
  q["layer_types"] = {"full_attention", "full_attention"};
  EXPECT_EQ(parse_error(q), "");

  json l = model_json("llama-3-8b.json");
  l["sliding_window"] = 16;  // LlamaAttention never reads it
  EXPECT_EQ(parse_error(l), "");
}

TEST(GenConfig, HeadDimMayDifferFromHiddenOverHeads) {
  json q = model_json("qwen3-8b.json");
  q["hidden_size"] = 4100;  // not a multiple of 32, but head_dim is given
  HfConfig c;
  EXPECT_EQ(parse_error(q, std::nullopt, &c), "");
  EXPECT_EQ(c.model.head_dim, 128u);
  q["num_key_value_heads"] = nullptr;  // defaults to num_attention_heads
  EXPECT_EQ(parse_error(q, std::nullopt, &c), "");
  EXPECT_EQ(c.model.kv_heads, 32u);
}

TEST(GenConfig, BiasesPerModelType) {
  json j = model_json("llama-3-8b.json");
  HfConfig c;
  j["attention_bias"] = true;
  j["mlp_bias"] = true;
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_TRUE(c.model.qkv_bias && c.model.o_bias && c.model.mlp_bias);
  j["model_type"] = "mistral";  // MistralAttention / MistralMLP hard-code bias=False
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_FALSE(c.model.qkv_bias || c.model.o_bias || c.model.mlp_bias);
  j["model_type"] = "qwen2";  // q/k/v always biased, o_proj and MLP never
  j["attention_bias"] = false;
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_TRUE(c.model.qkv_bias);
  EXPECT_FALSE(c.model.o_bias || c.model.mlp_bias || c.model.qk_norm);
  j["model_type"] = "qwen3";
  j["attention_bias"] = true;
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_TRUE(c.model.qkv_bias && c.model.o_bias && c.model.qk_norm);
  EXPECT_FALSE(c.model.mlp_bias);
}

TEST(GenConfig, ActivationsAndUnknownKeys) {
  json j = model_json("llama-3-8b.json");
  HfConfig c;
  j["hidden_act"] = "gelu";
  j["some_future_key"] = {{"nested", {1, 2, 3}}};
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_EQ(c.model.act, gen::Activation::gelu);
  j["hidden_act"] = "gelu_pytorch_tanh";
  ASSERT_EQ(parse_error(j, std::nullopt, &c), "");
  EXPECT_EQ(c.model.act, gen::Activation::gelu_tanh);
}

TEST(GenConfig, MalformedJsonNeverThrows) {
  HfConfig c;
  std::string e;
  EXPECT_FALSE(parse_hf_config("{\"model_type\": \"llama\", ", std::nullopt, c, e));
  EXPECT_NE(e.find("invalid JSON at byte"), std::string::npos) << e;
  EXPECT_FALSE(parse_hf_config("", std::nullopt, c, e));
  EXPECT_NE(e.find("byte"), std::string::npos) << e;
  EXPECT_FALSE(parse_hf_config("[1, 2]", std::nullopt, c, e));
  EXPECT_NE(e.find("not an object"), std::string::npos) << e;
  EXPECT_FALSE(parse_hf_config(std::string(200000, '['), std::nullopt, c, e));  // no recursion blow-up
  json j = model_json("llama-3-8b.json");
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string text = j.dump();
  text.insert(1, "\"hidden_act\": " + deep + ", ");  // nlohmann keeps the last duplicate: hidden_act "silu"
  EXPECT_TRUE(parse_hf_config(text, std::nullopt, c, e)) << e;
  text = j.dump();
  text.insert(text.size() - 1, ", \"hidden_act\": " + deep);
  EXPECT_FALSE(parse_hf_config(text, std::nullopt, c, e));
  EXPECT_NE(e.find("config key 'hidden_act'"), std::string::npos) << e;
}

HfConfig rope_config(uint32_t head_dim, double theta, const json& rope_scaling, uint32_t max_pos = 8192) {
  json j = model_json("llama-3-8b.json");
  j["head_dim"] = head_dim;
  j["rope_theta"] = theta;
  j["rope_scaling"] = rope_scaling;
  j["max_position_embeddings"] = max_pos;
  HfConfig c;
  EXPECT_EQ(parse_error(j, std::nullopt, &c), "");
  return c;
}

TEST(GenRope, DefaultIsThetaToTheMinus2iOverD) {
  const HfConfig c = rope_config(128, 10000, nullptr);
  std::vector<double> inv;
  double scaling = 0;
  rope_parameters(c, inv, scaling);
  ASSERT_EQ(inv.size(), 64u);
  EXPECT_EQ(scaling, 1.0);
  EXPECT_EQ(inv[0], 1.0);
  EXPECT_DOUBLE_EQ(inv[32], 0.01);  // 10000^(-64/128) = 1/100
  for (uint32_t i = 0; i < 64; ++i) EXPECT_DOUBLE_EQ(inv[i], std::pow(10000.0, -2.0 * i / 128)) << i;
  // Linear scaling divides every frequency by the factor.
  rope_parameters(rope_config(128, 10000, {{"rope_type", "linear"}, {"factor", 4}}), inv, scaling);
  EXPECT_DOUBLE_EQ(inv[32], 0.0025);
  EXPECT_EQ(scaling, 1.0);
}

TEST(GenRope, Llama3ByHand) {
  // head_dim 6, theta 10000: base inv_freq = [1, 10000^(-1/3) = 0.0464158883, 10000^(-2/3)]
  // with wavelengths 2pi/f = [6.283, 135.367, 2916.40]. factor 8, low_freq_factor 1,
  // high_freq_factor 8, original context 1000: low_freq_wavelen = 1000/1 = 1000,
  // high_freq_wavelen = 1000/8 = 125.
  //   i=0: 6.283 < 125: unchanged, 1.
  //   i=1: 125 <= 135.367 <= 1000: smooth = (1000/135.367 - 1)/(8 - 1) = 0.912474;
  //        f = (1 - smooth) * f/8 + smooth * f = 0.0464158883 * 0.923415 = 0.0428611163.
  //   i=2: 2916.40 > 1000: f / 8 = 0.000269304336.
  const HfConfig c = rope_config(6, 10000,
                                 {{"rope_type", "llama3"}, {"factor", 8}, {"low_freq_factor", 1},
                                  {"high_freq_factor", 8}, {"original_max_position_embeddings", 1000}});
  std::vector<double> inv;
  double scaling = 0;
  rope_parameters(c, inv, scaling);
  ASSERT_EQ(inv.size(), 3u);
  EXPECT_EQ(scaling, 1.0);
  EXPECT_DOUBLE_EQ(inv[0], 1.0);
  EXPECT_NEAR(inv[1], 0.0428611163, 1e-10);
  EXPECT_NEAR(inv[2], 0.000269304336, 1e-12);
}

TEST(GenRope, YarnByHand) {
  // head_dim 8, theta 10000: base inv_freq = [1, 0.1, 0.01, 0.001]. factor 4, original context
  // 1000, beta_fast 32, beta_slow 1. correction_dim(r) = 8 ln(1000 / (2 pi r)) / (2 ln 10000):
  // r=32 -> 0.6967, floored to low = 0; r=1 -> 2.2018, ceiled to high = 3. ramp(i) =
  // clamp(i/3, 0, 1) = [0, 1/3, 2/3, 1]; inv = f/4 * ramp + f * (1 - ramp):
  //   [1, 0.1 * (1/12 + 2/3) = 0.075, 0.01 * (2/12 + 1/3) = 0.005, 0.001/4 = 0.00025].
  // attention_factor = 0.1 ln 4 + 1 = 1.13862943611.
  const json yarn = {{"rope_type", "yarn"}, {"factor", 4}, {"original_max_position_embeddings", 1000},
                     {"beta_fast", 32}, {"beta_slow", 1}};
  std::vector<double> inv;
  double scaling = 0;
  rope_parameters(rope_config(8, 10000, yarn), inv, scaling);
  ASSERT_EQ(inv.size(), 4u);
  EXPECT_DOUBLE_EQ(inv[0], 1.0);
  EXPECT_DOUBLE_EQ(inv[1], 0.075);
  EXPECT_DOUBLE_EQ(inv[2], 0.005);
  EXPECT_DOUBLE_EQ(inv[3], 0.00025);
  EXPECT_NEAR(scaling, 1.13862943611, 1e-10);

  // factor absent: max_position_embeddings / original = 4000 / 1000, the same tables.
  json no_factor = yarn;
  no_factor.erase("factor");
  std::vector<double> inv2;
  rope_parameters(rope_config(8, 10000, no_factor, 4000), inv2, scaling);
  EXPECT_EQ(inv, inv2);
  // mscale 0.707, mscale_all_dim 1: (0.1*0.707*ln4 + 1) / (0.1*ln4 + 1) = 0.964326914892.
  json ms = yarn;
  ms["mscale"] = 0.707;
  ms["mscale_all_dim"] = 1;
  rope_parameters(rope_config(8, 10000, ms), inv2, scaling);
  EXPECT_NEAR(scaling, 0.964326914892, 1e-10);
  EXPECT_EQ(inv, inv2);
  ms["attention_factor"] = 2.0;  // explicit wins
  rope_parameters(rope_config(8, 10000, ms), inv2, scaling);
  EXPECT_EQ(scaling, 2.0);
  // beta_fast / beta_slow absent take 32 / 1.
  json defaults = yarn;
  defaults.erase("beta_fast");
  defaults.erase("beta_slow");
  rope_parameters(rope_config(8, 10000, defaults), inv2, scaling);
  EXPECT_EQ(inv, inv2);
}

TEST(GenRope, TablesAreRotateHalfTimesScaling) {
  std::vector<float> cos, sin;
  // head_dim 4, theta 10000: inv_freq = [1, 0.01]; positions 3 and 4.
  rope_tables(rope_config(4, 10000, nullptr), 3, 2, cos, sin);
  ASSERT_EQ(cos.size(), 8u);
  ASSERT_EQ(sin.size(), 8u);
  const float want_cos[] = {static_cast<float>(std::cos(3.0)), static_cast<float>(std::cos(0.03)),
                            static_cast<float>(std::cos(3.0)), static_cast<float>(std::cos(0.03)),
                            static_cast<float>(std::cos(4.0)), static_cast<float>(std::cos(0.04)),
                            static_cast<float>(std::cos(4.0)), static_cast<float>(std::cos(0.04))};
  const float want_sin[] = {static_cast<float>(std::sin(3.0)), static_cast<float>(std::sin(0.03)),
                            static_cast<float>(std::sin(3.0)), static_cast<float>(std::sin(0.03)),
                            static_cast<float>(std::sin(4.0)), static_cast<float>(std::sin(0.04)),
                            static_cast<float>(std::sin(4.0)), static_cast<float>(std::sin(0.04))};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(cos[i], want_cos[i]) << i;
    EXPECT_EQ(sin[i], want_sin[i]) << i;
  }
  // yarn: position 0 gives cos = attention_factor, sin = 0.
  rope_tables(rope_config(8, 10000, {{"rope_type", "yarn"}, {"factor", 4}, {"original_max_position_embeddings", 1000}}),
              0, 1, cos, sin);
  ASSERT_EQ(cos.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(cos[i], 1.13862943611f);
    EXPECT_EQ(sin[i], 0.0f);
  }
}

}  // namespace
}  // namespace tilefw::tools
