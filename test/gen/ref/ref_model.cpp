// The whole-model reference (ref_model.hpp).
#include "ref_model.hpp"

#include <algorithm>
#include <cmath>

#include "ref_compare.hpp"

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

void put_row(const BVec& src, std::size_t row, std::size_t n, BVec& dst) {
    std::copy(src.v.begin(), src.v.end(), dst.v.begin() + static_cast<std::ptrdiff_t>(row * n));
    std::copy(src.e.begin(), src.e.end(), dst.e.begin() + static_cast<std::ptrdiff_t>(row * n));
}

// What the model-level steps share.
struct Model {
    const nlohmann::json& cfg;
    const Manifest& m;
    const RoundPolicy& pol;
    const Observed& observed;
    Precision p;
    std::size_t B, S, H, V, logit_rows;
    int N;
    double eps;
    BVec norm_w, head;
};

// Final norm (N) in f32, its output a matmul operand (R); the LM head (M) kept in f32.
BVec lm_head(const Model& x, const BVec& rows, std::size_t n) {
    BVec y = rmsnorm(rows, n, x.H, x.norm_w, x.eps, x.p);
    if (x.pol.mm_inputs) round_model(y, x.p);
    return linear(y, n, x.H, x.head, x.V, nullptr, x.p);
}

// The rows the LM head sees: all S positions (prefill) or each batch element's last (decode).
BVec head_rows(const Model& x, const BVec& h) {
    const std::size_t H = x.H, rows = x.logit_rows;
    BVec r(x.B * rows * H);
    for (std::size_t b = 0; b < x.B; ++b)
        for (std::size_t i = 0; i < rows; ++i) {
            std::size_t src = (b * x.S + (x.S - rows) + i) * H, dst = (b * rows + i) * H;
            std::copy_n(&h.v[src], H, &r.v[dst]);
            std::copy_n(&h.e[src], H, &r.e[dst]);
        }
    return r;
}

// max |got - ref| / bound over the elements of token (b, s) in a cache output: [B, X, S, D]
// (GQA present_key / present_value) or [B, S, R] (MLA present_kv_latent / present_k_rope).
double token_fit(const RefOutput& ref, const std::vector<double>& got, std::size_t b, std::size_t s, DType model) {
    const Shape& sh = ref.shape;
    const bool gqa = sh.size() == 4;
    const std::size_t X = gqa ? sh[1] : 1, S = gqa ? sh[2] : sh[1], D = gqa ? sh[3] : sh[2];
    double fit = 0;
    for (std::size_t x = 0; x < X; ++x)
        for (std::size_t d = 0; d < D; ++d) {
            std::size_t i = ((b * X + x) * S + s) * D + d;
            if (i >= got.size()) return INFINITY;  // mis-sized: the final comparison says so
            double r = std::fabs(got[i] - ref.value.v[i]) / elem_bound(ref.value, i, true, model);
            fit = std::max(fit, std::isfinite(r) ? r : INFINITY);
        }
    return fit;
}

// Per ambiguous row, the alternative with the smallest fit (the first on equal fits).
std::vector<std::size_t> best_of(const std::vector<std::vector<double>>& fit) {
    std::vector<std::size_t> best(fit.size(), 0);
    for (std::size_t r = 0; r < fit.size(); ++r)
        for (std::size_t a = 1; a < fit[r].size(); ++a)
            if (fit[r][a] < fit[r][best[r]]) best[r] = a;
    return best;
}

// Ambiguous rows of layer L's output resolved by layer L + 1's cache rows (ref_model.hpp);
// false when those outputs are not available.
bool resolve_by_next_layer(const Model& x, int next, BVec& h, const std::vector<AltRow>& alts, ModelLayerInfo& info) {
    const LayerConfig c = parse_layer_config(x.cfg, next);
    const std::string suffix = "." + std::to_string(next);
    std::size_t most = 0;
    for (const AltRow& row : alts) most = std::max(most, row.alternatives.size());
    std::vector<std::vector<double>> fit(alts.size());
    for (std::size_t r = 0; r < alts.size(); ++r) fit[r].assign(alts[r].alternatives.size(), 0.0);
    for (std::size_t a = 0; a < most; ++a) {
        BVec ha = h;
        for (const AltRow& row : alts)
            if (a < row.alternatives.size()) put_row(row.alternatives[a], row.offset / x.H, x.H, ha);
        auto res = eval_layer_on(c, x.m, next, ha, suffix, x.pol);
        for (const auto& [name, ref] : res) {
            if (name == "hidden_states_out") continue;
            const std::vector<double>* got = x.observed(name + suffix);
            if (!got) return false;
            if (a == 0) info.resolved_by += (info.resolved_by.empty() ? "" : ", ") + name + suffix;
            for (std::size_t r = 0; r < alts.size(); ++r) {
                if (a >= alts[r].alternatives.size()) continue;
                const std::size_t t = alts[r].offset / x.H;
                fit[r][a] = std::max(fit[r][a], token_fit(ref, *got, t / x.S, t % x.S, x.p.model));
            }
        }
    }
    std::vector<std::size_t> best = best_of(fit);
    for (std::size_t r = 0; r < alts.size(); ++r) {
        put_row(alts[r].alternatives[best[r]], alts[r].offset / x.H, x.H, h);
        info.other += best[r] != 0;
    }
    return true;
}

// Ambiguous rows of the last layer's output resolved by their logits rows; rows without one
// (decode, before the last position) affect no output and keep alternative 0.
bool resolve_by_logits(const Model& x, BVec& h, const std::vector<AltRow>& alts, ModelLayerInfo& info) {
    const std::vector<double>* got = x.observed("logits");
    if (!got || got->size() != x.B * x.logit_rows * x.V) return false;
    info.resolved_by = "logits";
    for (const AltRow& row : alts) {
        const std::size_t t = row.offset / x.H, b = t / x.S, s = t % x.S;
        if (s < x.S - x.logit_rows) {
            ++info.unobserved;
            continue;
        }
        const std::size_t lr = b * x.logit_rows + (s - (x.S - x.logit_rows));
        std::vector<std::vector<double>> fit(1);
        for (const BVec& alt : row.alternatives) {
            BVec lg = lm_head(x, alt, 1);
            double f = 0;
            for (std::size_t j = 0; j < x.V; ++j) {
                double r = std::fabs((*got)[lr * x.V + j] - lg.v[j]) / elem_bound(lg, j, false, DType::f32);
                f = std::max(f, std::isfinite(r) ? r : INFINITY);
            }
            fit[0].push_back(f);
        }
        std::size_t best = best_of(fit)[0];
        put_row(row.alternatives[best], t, x.H, h);
        info.other += best != 0;
    }
    return true;
}

}  // namespace

std::size_t widen_ambiguous_rows(BVec& h, const std::vector<AltRow>& rows) {
    const double K = kSafety * kLambda;
    for (const AltRow& row : rows) {
        const BVec& base = row.alternatives[0];
        for (std::size_t j = 0; j < base.size(); ++j) {
            double e = h.e[row.offset + j];
            for (const BVec& alt : row.alternatives) e = std::max(e, std::fabs(alt.v[j] - base.v[j]) / K + alt.e[j]);
            h.e[row.offset + j] = e;
        }
    }
    return rows.size();
}

ModelRef eval_model(const nlohmann::json& cfg, const Manifest& m, const RoundPolicy& pol, const Observed& observed) {
    const RunReport& r = m.report;
    ModelRef out;
    out.vocab = config_int(cfg, "vocab_size");
    out.num_layers = r.num_layers;
    out.tied = tied_embeddings(cfg);
    const int H = config_int(cfg, "hidden_size");
    if (r.num_layers > config_int(cfg, "num_hidden_layers"))
        throw UsageError("report.num_layers " + std::to_string(r.num_layers) + " > config num_hidden_layers");
    out.logit_rows = r.phase == "decode" ? 1 : static_cast<std::size_t>(r.seq);
    const Shape table_shape{out.vocab, H};
    Model x{cfg, m, pol, observed, Precision(r.dtype), static_cast<std::size_t>(r.batch),
            static_cast<std::size_t>(r.seq), static_cast<std::size_t>(H), static_cast<std::size_t>(out.vocab),
            out.logit_rows, r.num_layers, has(cfg, "rms_norm_eps") ? cfg.at("rms_norm_eps").get<double>() : 1e-6,
            load_tensor(m, m.weights, "model.norm.weight", {H}, r.dtype, "weights[]"), BVec()};
    BVec table = load_tensor(m, m.weights, "model.embed_tokens.weight", table_shape, r.dtype, "weights[]");
    BVec h = embed(table, read_ids(m, out.vocab), x.H);
    x.head = out.tied ? std::move(table)
                      : load_tensor(m, m.weights, "lm_head.weight", table_shape, r.dtype, "weights[]");
    for (int L = 0; L < r.num_layers; ++L) {
        const std::string suffix = "." + std::to_string(L);
        auto res = eval_layer_on(parse_layer_config(cfg, L), m, L, h, suffix, pol);
        ModelLayerInfo info;
        info.kind = layer_kind(parse_layer_config(cfg, L));
        RefOutput& ho = res.at("hidden_states_out");
        info.note = ho.note;
        info.count_min = ho.count_min;
        info.count_max = ho.count_max;
        info.ambiguous = ho.alt_rows.size();
        h = std::move(ho.value);
        if (!ho.alt_rows.empty()) {
            bool done = L + 1 < r.num_layers ? resolve_by_next_layer(x, L + 1, h, ho.alt_rows, info)
                                             : resolve_by_logits(x, h, ho.alt_rows, info);
            if (!done) info.widened = widen_ambiguous_rows(h, ho.alt_rows);
        }
        out.layers.push_back(std::move(info));
        for (auto& [name, ro] : res)
            if (name != "hidden_states_out") out.outputs[name + suffix] = std::move(ro);
    }
    RefOutput logits;
    logits.shape = {r.batch, static_cast<std::int64_t>(out.logit_rows), out.vocab};
    logits.dtype = DType::f32;
    logits.value = lm_head(x, head_rows(x, h), x.B * out.logit_rows);
    out.outputs["logits"] = std::move(logits);
    return out;
}

}  // namespace gref
