// The whole-model reference (ref_model.hpp).
#include "ref_model.hpp"

#include <algorithm>
#include <cmath>

namespace gref {

namespace {

using Shape = std::vector<std::int64_t>;

bool has(const nlohmann::json& j, const char* k) { return j.is_object() && j.contains(k) && !j.at(k).is_null(); }

int config_int(const nlohmann::json& cfg, const char* k) {
    if (!has(cfg, k) || !cfg.at(k).is_number_integer() || cfg.at(k).get<long long>() < 1)
        throw UsageError(std::string("config: key '") + k + "' missing or not a positive integer");
    return cfg.at(k).get<int>();
}

// transformers' configs of every supported model type default tie_word_embeddings to false.
bool tied_embeddings(const nlohmann::json& cfg) {
    if (!has(cfg, "tie_word_embeddings")) return false;
    if (!cfg.at("tie_word_embeddings").is_boolean())
        throw UsageError("config: key 'tie_word_embeddings' is not a boolean");
    return cfg.at("tie_word_embeddings").get<bool>();
}

// input_ids [B, S], int32, every id in [0, vocab).
std::vector<std::size_t> read_ids(const Manifest& m, int vocab) {
    auto it = m.inputs.find("input_ids");
    if (it == m.inputs.end()) throw UsageError("manifest inputs[]: missing tensor 'input_ids'");
    const RunReport& r = m.report;
    if (it->second.shape != Shape{r.batch, r.seq} || it->second.dtype != DType::i32)
        throw UsageError("tensor 'input_ids': " + shape_str(it->second.shape) + " " + dtype_name(it->second.dtype) +
                         ", expected " + shape_str({r.batch, r.seq}) + " i32");
    std::vector<std::size_t> ids;
    for (double v : read_tensor(m.dir, it->second)) {
        if (v < 0 || v >= vocab)
            throw UsageError("tensor 'input_ids': token id " + std::to_string(static_cast<long long>(v)) +
                             " outside [0, vocab_size " + std::to_string(vocab) + ")");
        ids.push_back(static_cast<std::size_t>(v));
    }
    return ids;
}

// h_0 = the embedding rows of the tokens, with their bounds (0 in the model dtype).
BVec embed(const BVec& table, const std::vector<std::size_t>& ids, std::size_t H) {
    BVec h(ids.size() * H);
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (std::size_t i = 0; i < H; ++i) {
            h.v[t * H + i] = table.v[ids[t] * H + i];
            h.e[t * H + i] = table.e[ids[t] * H + i];
        }
    return h;
}

std::string layer_kind(const LayerConfig& c) {
    std::string k = c.mlp == MlpKind::dense ? "dense" : "moe";
    return k + (c.attn == AttnKind::mla ? "+mla" : "+gqa");
}

// The rows the LM head sees: all S positions (prefill) or each batch element's last (decode).
BVec head_rows(const BVec& h, std::size_t B, std::size_t S, std::size_t H, std::size_t rows) {
    BVec x(B * rows * H);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t r = 0; r < rows; ++r) {
            std::size_t src = (b * S + (S - rows) + r) * H, dst = (b * rows + r) * H;
            std::copy_n(&h.v[src], H, &x.v[dst]);
            std::copy_n(&h.e[src], H, &x.e[dst]);
        }
    return x;
}

}  // namespace

std::size_t widen_ambiguous_rows(RefOutput& h) {
    const double K = kSafety * kLambda;
    for (const AltRow& row : h.alt_rows) {
        const BVec& base = row.alternatives[0];
        for (std::size_t j = 0; j < base.size(); ++j) {
            double e = h.value.e[row.offset + j];
            for (const BVec& alt : row.alternatives) e = std::max(e, std::fabs(alt.v[j] - base.v[j]) / K + alt.e[j]);
            h.value.e[row.offset + j] = e;
        }
    }
    std::size_t n = h.alt_rows.size();
    h.alt_rows.clear();
    return n;
}

ModelRef eval_model(const nlohmann::json& cfg, const Manifest& m, const RoundPolicy& pol) {
    const RunReport& r = m.report;
    const Precision p(r.dtype);
    ModelRef out;
    out.vocab = config_int(cfg, "vocab_size");
    out.num_layers = r.num_layers;
    out.tied = tied_embeddings(cfg);
    const int H = config_int(cfg, "hidden_size");
    if (r.num_layers > config_int(cfg, "num_hidden_layers"))
        throw UsageError("report.num_layers " + std::to_string(r.num_layers) + " > config num_hidden_layers");
    const std::size_t B = r.batch, S = r.seq, V = out.vocab;
    const Shape table_shape{out.vocab, H};
    BVec table = load_tensor(m, m.weights, "model.embed_tokens.weight", table_shape, r.dtype, "weights[]");
    BVec h = embed(table, read_ids(m, out.vocab), H);
    for (int L = 0; L < r.num_layers; ++L) {
        LayerConfig c = parse_layer_config(cfg, L);
        std::string suffix = "." + std::to_string(L);
        auto res = eval_layer_on(c, m, L, h, suffix, pol);
        ModelLayerInfo info;
        info.kind = layer_kind(c);
        RefOutput& ho = res.at("hidden_states_out");
        info.note = ho.note;
        info.count_min = ho.count_min;
        info.count_max = ho.count_max;
        info.widened = widen_ambiguous_rows(ho);
        out.layers.push_back(std::move(info));
        h = std::move(ho.value);
        for (auto& [name, ro] : res)
            if (name != "hidden_states_out") out.outputs[name + suffix] = std::move(ro);
    }
    // Final norm (N) in f32, its output a matmul operand (R); the LM head (M) kept in f32.
    const double eps = has(cfg, "rms_norm_eps") ? cfg.at("rms_norm_eps").get<double>() : 1e-6;
    out.logit_rows = r.phase == "decode" ? 1 : S;
    const std::size_t rows = B * out.logit_rows;
    BVec norm_w = load_tensor(m, m.weights, "model.norm.weight", {H}, r.dtype, "weights[]");
    BVec x = rmsnorm(head_rows(h, B, S, H, out.logit_rows), rows, H, norm_w, eps, p);
    if (pol.mm_inputs) round_model(x, p);
    BVec head = out.tied ? std::move(table)
                         : load_tensor(m, m.weights, "lm_head.weight", table_shape, r.dtype, "weights[]");
    RefOutput logits;
    logits.shape = {r.batch, static_cast<std::int64_t>(out.logit_rows), out.vocab};
    logits.dtype = DType::f32;
    logits.value = linear(x, rows, H, head, V, nullptr, p);
    out.outputs["logits"] = std::move(logits);
    return out;
}

}  // namespace gref
