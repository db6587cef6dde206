#include "ref_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "ref_numeric.hpp"

namespace gref {

using nlohmann::json;

std::string layer_prefix(int layer) { return "model.layers." + std::to_string(layer) + "."; }

namespace {

bool has(const json& j, const char* k) { return j.is_object() && j.contains(k) && !j.at(k).is_null(); }

double num(const json& j, const char* k, const std::string& where) {
    if (!has(j, k)) throw UsageError("config: missing key '" + where + k + "'");
    if (!j.at(k).is_number()) throw UsageError("config: key '" + where + k + "' is not a number");
    return j.at(k).get<double>();
}

double num_or(const json& j, const char* k, double dflt, const std::string& where) {
    return has(j, k) ? num(j, k, where) : dflt;
}

int pos_int(const json& j, const char* k) {
    double v = num(j, k, "");
    if (v < 1 || v != std::floor(v)) throw UsageError(std::string("config: key '") + k + "' must be a positive integer");
    return static_cast<int>(v);
}

int int_or(const json& j, const char* k, int dflt) {
    if (!has(j, k)) return dflt;
    double v = num(j, k, "");
    if (v < 0 || v != std::floor(v)) throw UsageError(std::string("config: key '") + k + "' must be a non-negative integer");
    return static_cast<int>(v);
}

void check_moe(const MoeParams& m, const char* experts_key) {
    if (m.experts < 1) throw UsageError(std::string("config: key '") + experts_key + "' must be >= 1");
    if (m.top_k < 1 || m.top_k > m.experts)
        throw UsageError(std::string("config: key 'num_experts_per_tok' must be in [1, ") + experts_key + "]");
    if (m.intermediate < 1) throw UsageError("config: the experts' intermediate size must be >= 1");
}

bool flag(const json& j, const char* k) {
    if (!has(j, k)) return false;
    if (!j.at(k).is_boolean()) throw UsageError(std::string("config: key '") + k + "' is not a boolean");
    return j.at(k).get<bool>();
}

Act parse_act(const json& cfg) {
    std::string a = has(cfg, "hidden_act") ? cfg.at("hidden_act").get<std::string>() : "silu";
    if (a == "silu") return Act::silu;
    if (a == "gelu") return Act::gelu_erf;
    if (a == "gelu_pytorch_tanh") return Act::gelu_tanh;
    throw UsageError("config: key 'hidden_act' = '" + a + "' is not supported (silu, gelu, gelu_pytorch_tanh)");
}

// transformers' base frequencies: base^(-2i/dim), dim = head_dim (partial_rotary_factor refused).
std::vector<double> base_inv_freq(double base, int dim) {
    std::vector<double> f(static_cast<std::size_t>(dim / 2));
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::pow(base, -2.0 * static_cast<double>(i) / dim);
    return f;
}

// Llama 3.1: wavelengths above original/low_freq_factor are divided by `factor`, below
// original/high_freq_factor kept, in between interpolated linearly in original/wavelen.
void llama3_freq(RopeParams& r, const json& rs) {
    const std::string w = "rope_scaling.";
    double factor = num(rs, "factor", w), lo = num(rs, "low_freq_factor", w);
    double hi = num(rs, "high_freq_factor", w), old_ctx = num(rs, "original_max_position_embeddings", w);
    for (double& f : r.inv_freq) {
        double wavelen = 2 * std::numbers::pi / f;
        if (wavelen < old_ctx / hi) continue;
        if (wavelen > old_ctx / lo) { f /= factor; continue; }
        double smooth = (old_ctx / wavelen - lo) / (hi - lo);
        f = (1 - smooth) * f / factor + smooth * f;
    }
}

double yarn_mscale(double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; }

// YaRN: frequencies blend interpolation (f / factor) and extrapolation (f) with a linear ramp
// over the dimensions between the correction bounds of beta_fast / beta_slow rotations;
// attention_factor scales cos/sin (given, or mscale ratios, or 0.1 ln(factor) + 1).
void yarn_freq(RopeParams& r, const json& cfg, const json& rs, int dim) {
    const std::string w = "rope_scaling.";
    double factor = num(rs, "factor", w);
    double orig = has(rs, "original_max_position_embeddings")
                      ? num(rs, "original_max_position_embeddings", w)
                      : num(cfg, "max_position_embeddings", "");
    // transformers 4.4x-4.5x replaced `factor` by max_position_embeddings / original when both
    // are given; later versions keep `factor`. This follows `factor` and says when they differ.
    if (has(rs, "original_max_position_embeddings") && has(cfg, "max_position_embeddings") &&
        std::fabs(num(cfg, "max_position_embeddings", "") / orig - factor) > 1e-9 * factor)
        std::fprintf(stderr, "gen_ref_check: note: yarn factor %g != max_position_embeddings / "
                     "original_max_position_embeddings; using factor\n", factor);
    double mscale = num_or(rs, "mscale", 0, w), mscale_all = num_or(rs, "mscale_all_dim", 0, w);
    if (has(rs, "attention_factor")) r.attention_factor = num(rs, "attention_factor", w);
    else if (mscale != 0 && mscale_all != 0)
        r.attention_factor = yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all);
    else r.attention_factor = yarn_mscale(factor, 1.0);
    double beta_fast = num_or(rs, "beta_fast", 0, w), beta_slow = num_or(rs, "beta_slow", 0, w);
    if (beta_fast == 0) beta_fast = 32;
    if (beta_slow == 0) beta_slow = 1;
    auto corr = [&](double rot) {
        return dim * std::log(orig / (rot * 2 * std::numbers::pi)) / (2 * std::log(r.base));
    };
    double low = corr(beta_fast), high = corr(beta_slow);
    if (!has(rs, "truncate") || rs.at("truncate").get<bool>()) { low = std::floor(low); high = std::ceil(high); }
    low = std::max(low, 0.0);
    high = std::min(high, dim - 1.0);
    if (low == high) high += 0.001;
    for (std::size_t i = 0; i < r.inv_freq.size(); ++i) {
        double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
        double extra = 1 - ramp, f = r.inv_freq[i];
        r.inv_freq[i] = (f / factor) * (1 - extra) + f * extra;
    }
}

RopeParams parse_rope(const json& cfg, int head_dim) {
    RopeParams r;
    r.base = num_or(cfg, "rope_theta", 10000.0, "");
    if (has(cfg, "partial_rotary_factor") && num(cfg, "partial_rotary_factor", "") != 1.0)
        throw UsageError("config: key 'partial_rotary_factor' != 1 is not supported");
    r.inv_freq = base_inv_freq(r.base, head_dim);
    if (!has(cfg, "rope_scaling")) return r;
    const json& rs = cfg.at("rope_scaling");
    if (!rs.is_object()) throw UsageError("config: key 'rope_scaling' is not an object");
    std::string t = has(rs, "rope_type") ? rs.at("rope_type").get<std::string>()
                    : has(rs, "type")    ? rs.at("type").get<std::string>() : "default";
    r.type = t;
    if (t == "default") return r;
    if (t == "linear") {
        double factor = num(rs, "factor", "rope_scaling.");
        for (double& f : r.inv_freq) f /= factor;
    } else if (t == "llama3") {
        llama3_freq(r, rs);
    } else if (t == "yarn") {
        yarn_freq(r, cfg, rs, head_dim);
    } else {
        throw UsageError("config: key 'rope_scaling.rope_type' = '" + t + "' is not supported");
    }
    return r;
}

bool flag_or(const json& j, const char* k, bool dflt) { return has(j, k) ? flag(j, k) : dflt; }

void require_string(const json& cfg, const char* k, const char* want) {
    if (!has(cfg, k)) return;
    if (!cfg.at(k).is_string() || cfg.at(k).get<std::string>() != want)
        throw UsageError(std::string("config: key '") + k + "' = " + cfg.at(k).dump() + " is not supported (only '" +
                         want + "')");
}

// DeepseekV3Attention: dimensions, and the softmax scale. transformers multiplies the scale by
// yarn_get_mscale(rope_scaling.factor, mscale_all_dim)^2 whenever mscale_all_dim is non-zero.
void deepseek_mla(LayerConfig& c, const json& cfg) {
    MlaParams& m = c.mla;
    m.q_lora_rank = has(cfg, "q_lora_rank") ? pos_int(cfg, "q_lora_rank") : 0;
    m.kv_lora_rank = pos_int(cfg, "kv_lora_rank");
    m.qk_nope = pos_int(cfg, "qk_nope_head_dim");
    m.qk_rope = pos_int(cfg, "qk_rope_head_dim");
    m.v_head = pos_int(cfg, "v_head_dim");
    m.interleave = flag_or(cfg, "rope_interleave", true);  // DeepseekV3Config default
    if (flag(cfg, "attention_bias")) throw UsageError("config: key 'attention_bias' true is not supported for deepseek_v3");
    if (c.kv_heads != c.heads)
        throw UsageError("config: key 'num_key_value_heads' must equal num_attention_heads for deepseek_v3 (MLA)");
    c.head_dim = m.qk_rope;  // the RoPE dimension (DeepseekV3Config.head_dim = qk_rope_head_dim)
    m.scale = 1.0 / std::sqrt(static_cast<double>(m.qk_nope + m.qk_rope));
    if (!has(cfg, "rope_scaling")) return;
    const json& rs = cfg.at("rope_scaling");
    if (!rs.is_object()) throw UsageError("config: key 'rope_scaling' is not an object");
    std::string t = has(rs, "rope_type") ? rs.at("rope_type").get<std::string>()
                    : has(rs, "type")    ? rs.at("type").get<std::string>() : "default";
    if (t != "yarn")
        throw UsageError("config: key 'rope_scaling.type' = '" + t + "' is not supported for deepseek_v3 (yarn or null)");
    double all_dim = num_or(rs, "mscale_all_dim", 0, "rope_scaling.");
    if (all_dim != 0) {
        double ms = yarn_mscale(num(rs, "factor", "rope_scaling."), all_dim);
        m.scale *= ms * ms;
    }
}

// DeepseekV3DecoderLayer: MLA attention; DeepseekV3MoE on layers >= first_k_dense_replace, else
// DeepseekV3MLP(intermediate_size). Defaults are DeepseekV3Config's.
void deepseek_traits(LayerConfig& c, const json& cfg, int layer) {
    c.attn = AttnKind::mla;
    deepseek_mla(c, cfg);
    if (int_or(cfg, "moe_layer_freq", 1) != 1) throw UsageError("config: key 'moe_layer_freq' != 1 is not supported");
    require_string(cfg, "scoring_func", "sigmoid");
    require_string(cfg, "topk_method", "noaux_tc");
    if (layer < int_or(cfg, "first_k_dense_replace", 3)) return;
    MoeParams& m = c.moe;
    c.mlp = MlpKind::moe_sigmoid_grouped;
    m.experts = int_or(cfg, "n_routed_experts", 256);
    m.top_k = int_or(cfg, "num_experts_per_tok", 8);
    m.intermediate = int_or(cfg, "moe_intermediate_size", 2048);
    m.renormalize = flag_or(cfg, "norm_topk_prob", true);
    m.n_group = int_or(cfg, "n_group", 8);
    m.topk_group = int_or(cfg, "topk_group", 4);
    m.routed_scaling = num_or(cfg, "routed_scaling_factor", 2.5, "");
    m.shared_intermediate = m.intermediate * int_or(cfg, "n_shared_experts", 1);
    m.router = "mlp.gate.weight";
    m.choice_bias = "mlp.gate.e_score_correction_bias";
    m.expert_prefix = "mlp.experts.";
    m.shared_prefix = "mlp.shared_experts.";
    m.proj[0] = "gate_proj", m.proj[1] = "up_proj", m.proj[2] = "down_proj";
    check_moe(m, "n_routed_experts");
    if (m.n_group < 1 || m.experts % m.n_group != 0 || m.experts / m.n_group < 2)
        throw UsageError("config: key 'n_group' must divide n_routed_experts into groups of >= 2 experts");
    if (m.topk_group < 1 || m.topk_group > m.n_group)
        throw UsageError("config: key 'topk_group' must be in [1, n_group]");
}

// Which tensors and options each model type's transformers module has.
void apply_model_traits(LayerConfig& c, const json& cfg, int layer) {
    const std::string& t = c.model_type;
    bool attn_bias = flag(cfg, "attention_bias");
    if (t == "llama") {
        c.q_bias = c.k_bias = c.v_bias = c.o_bias = attn_bias;
        c.mlp_bias = flag(cfg, "mlp_bias");
        return;
    }
    int window = has(cfg, "sliding_window") ? pos_int(cfg, "sliding_window") : 0;
    if (t == "mistral") {
        c.sliding_window = window;
        return;
    }
    if (t == "qwen2" || t == "qwen3") {
        c.q_bias = c.k_bias = c.v_bias = (t == "qwen2") || attn_bias;
        c.o_bias = (t == "qwen3") && attn_bias;
        c.qk_norm = (t == "qwen3");
        int max_window_layers = has(cfg, "max_window_layers") ? pos_int(cfg, "max_window_layers") : 0;
        if (flag(cfg, "use_sliding_window") && layer >= max_window_layers) c.sliding_window = window;
        return;
    }
    if (t == "mixtral") {  // attention as mistral (no biases), MLP = MixtralSparseMoeBlock
        c.sliding_window = window;
        c.mlp = MlpKind::moe_softmax;
        c.moe.experts = int_or(cfg, "num_local_experts", 8);  // MixtralConfig defaults
        c.moe.top_k = int_or(cfg, "num_experts_per_tok", 2);
        c.moe.intermediate = c.intermediate;
        c.moe.renormalize = true;
        c.moe.router = "block_sparse_moe.gate.weight";
        c.moe.expert_prefix = "block_sparse_moe.experts.";
        c.moe.proj[0] = "w1", c.moe.proj[1] = "w3", c.moe.proj[2] = "w2";
        check_moe(c.moe, "num_local_experts");
        return;
    }
    if (t == "qwen3_moe") {  // attention as qwen3; MLP sparse unless the layer is a dense one
        c.q_bias = c.k_bias = c.v_bias = c.o_bias = attn_bias;
        c.qk_norm = true;
        int max_window_layers = has(cfg, "max_window_layers") ? pos_int(cfg, "max_window_layers") : 0;
        if (flag(cfg, "use_sliding_window") && layer >= max_window_layers) c.sliding_window = window;
        // Qwen3MoeConfig defaults; Qwen3MoeDecoderLayer: sparse iff layer not in mlp_only_layers
        // and num_experts > 0 and (layer + 1) % decoder_sparse_step == 0 (step 0 would divide
        // by zero in transformers: refused).
        int experts = int_or(cfg, "num_experts", 128);
        int step = int_or(cfg, "decoder_sparse_step", 1);
        if (step < 1) throw UsageError("config: key 'decoder_sparse_step' must be >= 1");
        bool dense_listed = false;
        if (has(cfg, "mlp_only_layers")) {
            const json& l = cfg.at("mlp_only_layers");
            if (!l.is_array()) throw UsageError("config: key 'mlp_only_layers' is not an array");
            for (const auto& v : l) {
                if (!v.is_number_integer()) throw UsageError("config: key 'mlp_only_layers' holds a non-integer");
                dense_listed = dense_listed || v.get<int>() == layer;
            }
        }
        if (dense_listed || experts == 0 || (layer + 1) % step != 0) return;  // Qwen3MoeMLP(intermediate_size)
        c.mlp = MlpKind::moe_softmax;
        c.moe.experts = experts;
        c.moe.top_k = int_or(cfg, "num_experts_per_tok", 8);
        c.moe.intermediate = int_or(cfg, "moe_intermediate_size", 768);
        c.moe.renormalize = flag(cfg, "norm_topk_prob");  // default False
        c.moe.router = "mlp.gate.weight";
        c.moe.expert_prefix = "mlp.experts.";
        c.moe.proj[0] = "gate_proj", c.moe.proj[1] = "up_proj", c.moe.proj[2] = "down_proj";
        check_moe(c.moe, "num_experts");
        return;
    }
    if (t == "deepseek_v3") {
        deepseek_traits(c, cfg, layer);
        return;
    }
    throw UsageError("config: key 'model_type' = '" + t + "' is not supported");
}

}  // namespace

LayerConfig parse_layer_config(const json& cfg, int layer) {
    LayerConfig c;
    if (!has(cfg, "model_type")) throw UsageError("config: missing key 'model_type'");
    c.model_type = cfg.at("model_type").get<std::string>();
    c.hidden = pos_int(cfg, "hidden_size");
    c.heads = pos_int(cfg, "num_attention_heads");
    c.kv_heads = has(cfg, "num_key_value_heads") ? pos_int(cfg, "num_key_value_heads") : c.heads;
    c.head_dim = has(cfg, "head_dim") ? pos_int(cfg, "head_dim") : c.hidden / c.heads;
    c.intermediate = pos_int(cfg, "intermediate_size");
    c.eps = num_or(cfg, "rms_norm_eps", 1e-6, "");
    if (c.heads % c.kv_heads != 0)
        throw UsageError("config: num_attention_heads is not a multiple of num_key_value_heads");
    if (has(cfg, "num_hidden_layers") && layer >= pos_int(cfg, "num_hidden_layers"))
        throw UsageError("report.layer " + std::to_string(layer) + " >= config num_hidden_layers");
    c.act = parse_act(cfg);
    apply_model_traits(c, cfg, layer);
    if (c.head_dim % 2 != 0)
        throw UsageError(std::string("config: key '") + (c.attn == AttnKind::mla ? "qk_rope_head_dim" : "head_dim") +
                         "' must be even for RoPE");
    c.rope = parse_rope(cfg, c.head_dim);
    return c;
}

}  // namespace gref
