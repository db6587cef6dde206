#include "ref_layer.hpp"

#include <cmath>
#include <functional>
#include <optional>

namespace gref {

namespace {

using Shape = std::vector<std::int64_t>;

// Tensors are read as given. One whose bytes the generator may still convert (a dtype other
// than the model dtype, except the f32 residual-stream input) carries a rounding bound (R).
BVec load(const Manifest& m, const std::map<std::string, TensorDesc>& table, const std::string& name,
          const Shape& shape, const Precision& p, const char* kind, bool f32_is_exact = false) {
    auto it = table.find(name);
    if (it == table.end()) throw UsageError(std::string("manifest ") + kind + ": missing tensor '" + name + "'");
    if (it->second.shape != shape)
        throw UsageError("tensor '" + name + "': shape " + shape_str(it->second.shape) + ", expected " + shape_str(shape));
    BVec t(read_tensor(m.dir, it->second), {});
    t.e.assign(t.v.size(), 0.0);
    bool exact = it->second.dtype == p.model || (f32_is_exact && it->second.dtype == DType::f32);
    if (!exact) round_model(t, p);
    return t;
}

struct Weights {
    BVec in_norm, post_norm, q, k, v, o, gate, up, down;
    std::optional<BVec> qb, kb, vb, ob, gb, ub, db, q_norm, k_norm;
    MlaWeights mla;  // attn == mla (q/k/v/o then unused)
    MoeWeights moe;  // mlp == moe_* (gate/up/down then unused)
};

using LoadFn = std::function<BVec(const std::string&, Shape)>;

std::optional<BVec> load_opt(const LoadFn& w, bool want, const std::string& n, Shape s) {
    if (!want) return std::nullopt;
    return w(n, std::move(s));
}

void load_gqa(const LayerConfig& c, const LoadFn& w, Weights& W) {
    const std::int64_t H = c.hidden, D = c.head_dim;
    const std::int64_t QD = c.heads * D, KD = c.kv_heads * D;
    W.q = w("self_attn.q_proj.weight", {QD, H});
    W.k = w("self_attn.k_proj.weight", {KD, H});
    W.v = w("self_attn.v_proj.weight", {KD, H});
    W.o = w("self_attn.o_proj.weight", {H, QD});
    W.qb = load_opt(w, c.q_bias, "self_attn.q_proj.bias", {QD});
    W.kb = load_opt(w, c.k_bias, "self_attn.k_proj.bias", {KD});
    W.vb = load_opt(w, c.v_bias, "self_attn.v_proj.bias", {KD});
    W.ob = load_opt(w, c.o_bias, "self_attn.o_proj.bias", {H});
    W.q_norm = load_opt(w, c.qk_norm, "self_attn.q_norm.weight", {D});
    W.k_norm = load_opt(w, c.qk_norm, "self_attn.k_norm.weight", {D});
}

MlaWeights load_mla(const LayerConfig& c, const LoadFn& w) {
    const MlaParams& m = c.mla;
    const std::int64_t H = c.hidden, NH = c.heads, QL = m.q_lora_rank, R = m.kv_lora_rank;
    const std::int64_t QD = NH * (m.qk_nope + m.qk_rope);
    MlaWeights W;
    if (QL > 0) {
        W.q_a = w("self_attn.q_a_proj.weight", {QL, H});
        W.q_a_norm = w("self_attn.q_a_layernorm.weight", {QL});
        W.q_b = w("self_attn.q_b_proj.weight", {QD, QL});
    } else {
        W.q = w("self_attn.q_proj.weight", {QD, H});
    }
    W.kv_a = w("self_attn.kv_a_proj_with_mqa.weight", {R + m.qk_rope, H});
    W.kv_a_norm = w("self_attn.kv_a_layernorm.weight", {R});
    W.kv_b = w("self_attn.kv_b_proj.weight", {NH * (m.qk_nope + m.v_head), R});
    W.o = w("self_attn.o_proj.weight", {H, NH * m.v_head});
    return W;
}

// Router, e_score_correction_bias (deepseek_v3: an f32 buffer, read exactly: the router is
// f32), routed and shared experts.
MoeWeights load_moe(const LayerConfig& c, const LoadFn& w, const LoadFn& w_f32) {
    const std::int64_t H = c.hidden, E = c.moe.experts, MI = c.moe.intermediate, SI = c.moe.shared_intermediate;
    MoeWeights W;
    W.router = w(c.moe.router, {E, H});
    if (!c.moe.choice_bias.empty()) W.choice_bias = w_f32(c.moe.choice_bias, {E});
    for (int e = 0; e < c.moe.experts; ++e)
        W.experts.push_back({w(c.moe.expert_name(e, 0), {MI, H}), w(c.moe.expert_name(e, 1), {MI, H}),
                             w(c.moe.expert_name(e, 2), {H, MI})});
    if (SI > 0) {
        const std::string& sp = c.moe.shared_prefix;
        W.shared = std::array<BVec, 3>{w(sp + c.moe.proj[0] + ".weight", {SI, H}),
                                       w(sp + c.moe.proj[1] + ".weight", {SI, H}),
                                       w(sp + c.moe.proj[2] + ".weight", {H, SI})};
    }
    return W;
}

Weights load_weights(const LayerConfig& c, const Manifest& m, int layer, const Precision& p) {
    const std::string pre = layer_prefix(layer);
    LoadFn w = [&](const std::string& n, Shape s) { return load(m, m.weights, pre + n, s, p, "weights[]"); };
    LoadFn w_f32 = [&](const std::string& n, Shape s) { return load(m, m.weights, pre + n, s, p, "weights[]", true); };
    const std::int64_t H = c.hidden, I = c.intermediate;
    Weights W;
    W.in_norm = w("input_layernorm.weight", {H});
    W.post_norm = w("post_attention_layernorm.weight", {H});
    if (c.attn == AttnKind::mla) W.mla = load_mla(c, w);
    else load_gqa(c, w, W);
    if (c.mlp != MlpKind::dense) {
        W.moe = load_moe(c, w, w_f32);
        return W;
    }
    W.gate = w("mlp.gate_proj.weight", {I, H});
    W.up = w("mlp.up_proj.weight", {I, H});
    W.down = w("mlp.down_proj.weight", {H, I});
    W.gb = load_opt(w, c.mlp_bias, "mlp.gate_proj.bias", {I});
    W.ub = load_opt(w, c.mlp_bias, "mlp.up_proj.bias", {I});
    W.db = load_opt(w, c.mlp_bias, "mlp.down_proj.bias", {H});
    return W;
}

const BVec* ptr(const std::optional<BVec>& b) { return b ? &*b : nullptr; }

// Rows of one batch element: BVec slice [b*rows*cols, (b+1)*rows*cols).
BVec slice(const BVec& t, std::size_t b, std::size_t n) {
    auto first = static_cast<std::ptrdiff_t>(b * n), last = static_cast<std::ptrdiff_t>((b + 1) * n);
    return BVec({t.v.begin() + first, t.v.begin() + last}, {t.e.begin() + first, t.e.begin() + last});
}

struct Ctx {
    const LayerConfig& c;
    const Weights& W;
    const RoundPolicy& pol;
    const Precision& p;
    const RopeTables& rope;
    std::size_t S, K;
};

// q/k/v projections (M), (R), qwen3 q_norm/k_norm (N) and RoPE (P) for one batch element.
// q: [S, heads, D]; k, v: [S, kv_heads, D] (k after RoPE, before the cache's rounding).
void project_qkv(const Ctx& x, const BVec& a, BVec& q, BVec& k, BVec& v) {
    const auto& c = x.c;
    const std::size_t H = c.hidden, D = c.head_dim, QD = c.heads * D, KD = c.kv_heads * D;
    q = linear(a, x.S, H, x.W.q, QD, ptr(x.W.qb), x.p);
    k = linear(a, x.S, H, x.W.k, KD, ptr(x.W.kb), x.p);
    v = linear(a, x.S, H, x.W.v, KD, ptr(x.W.vb), x.p);
    if (x.pol.proj_outputs) {
        round_model(q, x.p);
        round_model(k, x.p);
        round_model(v, x.p);
    }
    if (c.qk_norm) {
        q = rmsnorm(q, x.S * c.heads, D, *x.W.q_norm, c.eps, x.p);
        k = rmsnorm(k, x.S * c.kv_heads, D, *x.W.k_norm, c.eps, x.p);
    }
    for (std::size_t s = 0; s < x.S; ++s) {
        for (std::size_t h = 0; h < static_cast<std::size_t>(c.heads); ++h)
            rope_apply(&q.v[(s * c.heads + h) * D], &q.e[(s * c.heads + h) * D], x.rope, x.K + s);
        for (std::size_t h = 0; h < static_cast<std::size_t>(c.kv_heads); ++h)
            rope_apply(&k.v[(s * c.kv_heads + h) * D], &k.e[(s * c.kv_heads + h) * D], x.rope, x.K + s);
    }
}

// Causal (optionally sliding-window) GQA attention for one batch element; returns [S, heads*D].
// pk/pv: the past cache of this element, [kv_heads, K, D]; k/v: the new rows, already rounded
// to the cache dtype.
BVec attention(const Ctx& x, const BVec& q, const BVec& k, const BVec& v, const BVec& pk, const BVec& pv) {
    const auto& c = x.c;
    const std::size_t D = c.head_dim, group = c.heads / c.kv_heads, KVH = c.kv_heads;
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    BVec o(x.S * c.heads * D);
    for (std::size_t s = 0; s < x.S; ++s) {
        const std::size_t i = x.K + s;
        std::size_t lo = 0;
        if (c.sliding_window > 0 && i + 1 > static_cast<std::size_t>(c.sliding_window)) lo = i + 1 - c.sliding_window;
        for (std::size_t h = 0; h < static_cast<std::size_t>(c.heads); ++h) {
            const std::size_t g = h / group;
            KV kv;
            for (std::size_t j = lo; j <= i; ++j) {
                bool past = j < x.K;
                std::size_t off = past ? (g * x.K + j) * D : ((j - x.K) * KVH + g) * D;
                const BVec& kk = past ? pk : k;
                const BVec& vv = past ? pv : v;
                kv.kv.push_back(&kk.v[off]);
                kv.ke.push_back(&kk.e[off]);
                kv.vv.push_back(&vv.v[off]);
                kv.ve.push_back(&vv.e[off]);
            }
            std::size_t qo = (s * c.heads + h) * D;
            attend_row(&q.v[qo], &q.e[qo], kv, D, scale, x.pol, x.p, &o.v[qo], &o.e[qo]);
        }
    }
    return o;
}

// [S, kv_heads, D] -> [kv_heads, S, D] into out at batch element b (the cache layout).
void to_cache_layout(const BVec& t, std::size_t S, std::size_t KVH, std::size_t D, std::size_t b, BVec& out) {
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t h = 0; h < KVH; ++h)
            for (std::size_t d = 0; d < D; ++d) {
                std::size_t src = (s * KVH + h) * D + d, dst = ((b * KVH + h) * S + s) * D + d;
                out.v[dst] = t.v[src];
                out.e[dst] = t.e[src];
            }
}

// The attention half of one batch element: h1 = hs + o_proj(attention(input_layernorm(hs))),
// and the new k/v rows (before the cache rounding).
struct BatchOut {
    BVec h1, k, v;  // k, v: [S, kv_heads, D]
};

BatchOut attention_half(const Ctx& x, const BVec& hs, const BVec& pk, const BVec& pv) {
    const auto& c = x.c;
    const std::size_t H = c.hidden, QD = c.heads * c.head_dim;
    BVec a = rmsnorm(hs, x.S, H, x.W.in_norm, c.eps, x.p);
    if (x.pol.mm_inputs) round_model(a, x.p);
    BatchOut out;
    BVec q;
    project_qkv(x, a, q, out.k, out.v);
    BVec kc = out.k, vc = out.v;  // the cache is in the model dtype whatever the policy
    round_model(kc, x.p);
    round_model(vc, x.p);
    if (x.pol.mm_inputs) round_model(q, x.p);
    BVec o = attention(x, q, kc, vc, pk, pv);
    if (x.pol.mm_inputs) round_model(o, x.p);
    BVec attn = linear(o, x.S, QD, x.W.o, H, ptr(x.W.ob), x.p);
    if (x.pol.branch_outputs) round_model(attn, x.p);
    out.h1 = add(hs, attn, x.p);
    return out;
}

// The MLP half on all T = B*S tokens (flattened [B, S], the MoE token order): post-attention
// RMSNorm (N), then the dense MLP (M) (A) (M) or the MoE block (G) (W) (X), and the residual add.
MoeResult mlp_half(const LayerConfig& c, const Weights& W, const BVec& h1, std::size_t T, long long capacity,
                   std::size_t pass_tokens, const RoundPolicy& pol, const Precision& p) {
    const std::size_t H = c.hidden;
    BVec a2 = rmsnorm(h1, T, H, W.post_norm, c.eps, p);
    if (pol.mm_inputs) round_model(a2, p);
    if (c.mlp != MlpKind::dense) return moe_block(c, W.moe, h1, a2, T, capacity, pass_tokens, pol, p);
    MoeResult r;
    BVec d = mlp_branch(a2, T, H, c.intermediate, W.gate, W.up, W.down, ptr(W.gb), ptr(W.ub), ptr(W.db), c.act,
                        pol, p);
    r.out = add(h1, d, p);
    return r;
}


void put(const BVec& src, std::size_t at, BVec& dst) {
    std::copy(src.v.begin(), src.v.end(), dst.v.begin() + static_cast<std::ptrdiff_t>(at));
    std::copy(src.e.begin(), src.e.end(), dst.e.begin() + static_cast<std::ptrdiff_t>(at));
}

// GQA attention half of every batch element into h1, present_key / present_value into out.
void gqa_half(const LayerConfig& c, const Manifest& m, const Weights& W, const BVec& hs, const std::string& suffix,
              const RoundPolicy& pol, const Precision& p, BVec& h1, std::map<std::string, RefOutput>& out) {
    const RunReport& r = m.report;
    const std::size_t B = r.batch, S = r.seq, K = r.kv_len, H = c.hidden, D = c.head_dim, KVH = c.kv_heads;
    BVec pk, pv;
    const Shape past{r.batch, c.kv_heads, r.kv_len, c.head_dim};
    if (K > 0) {
        pk = load(m, m.inputs, "past_key" + suffix, past, p, "inputs[]");
        pv = load(m, m.inputs, "past_value" + suffix, past, p, "inputs[]");
    }
    RopeTables rope = rope_tables(c.rope, K + S, D, pol.rope_tables, p);
    Ctx x{c, W, pol, p, rope, S, K};
    const Shape present{r.batch, c.kv_heads, r.seq, c.head_dim};
    out["present_key"] = {present, r.dtype, BVec(B * KVH * S * D), true, {}, {}, {}, {}};
    out["present_value"] = {present, r.dtype, BVec(B * KVH * S * D), true, {}, {}, {}, {}};
    for (std::size_t b = 0; b < B; ++b) {
        BVec pkb = K ? slice(pk, b, KVH * K * D) : BVec(), pvb = K ? slice(pv, b, KVH * K * D) : BVec();
        BatchOut o = attention_half(x, slice(hs, b, S * H), pkb, pvb);
        put(o.h1, b * S * H, h1);
        to_cache_layout(o.k, S, KVH, D, b, out["present_key"].value);
        to_cache_layout(o.v, S, KVH, D, b, out["present_value"].value);
    }
}

// deepseek_v3 MLA attention half (ref_mla.hpp) of every batch element into h1, the latent cache
// rows present_kv_latent / present_k_rope into out; decode reads past_kv_latent / past_k_rope.
void mla_half(const LayerConfig& c, const Manifest& m, const Weights& W, const BVec& hs, const std::string& suffix,
              const RoundPolicy& pol, const Precision& p, BVec& h1, std::map<std::string, RefOutput>& out) {
    const RunReport& r = m.report;
    const std::size_t B = r.batch, S = r.seq, K = r.kv_len, H = c.hidden;
    const std::size_t R = c.mla.kv_lora_rank, DR = c.mla.qk_rope;
    BVec pl, pr;
    if (K > 0) {
        pl = load(m, m.inputs, "past_kv_latent" + suffix, {r.batch, r.kv_len, c.mla.kv_lora_rank}, p, "inputs[]");
        pr = load(m, m.inputs, "past_k_rope" + suffix, {r.batch, r.kv_len, c.mla.qk_rope}, p, "inputs[]");
    }
    RopeTables rope = rope_tables(c.rope, K + S, DR, pol.rope_tables, p);
    out["present_kv_latent"] = {{r.batch, r.seq, c.mla.kv_lora_rank}, r.dtype, BVec(B * S * R), true, {}, {}, {}, {}};
    out["present_k_rope"] = {{r.batch, r.seq, c.mla.qk_rope}, r.dtype, BVec(B * S * DR), true, {}, {}, {}, {}};
    for (std::size_t b = 0; b < B; ++b) {
        BVec hb = slice(hs, b, S * H);
        BVec a = rmsnorm(hb, S, H, W.in_norm, c.eps, p);
        if (pol.mm_inputs) round_model(a, p);
        MlaOut o = mla_attention(c, W.mla, a, K ? slice(pl, b, K * R) : BVec(), K ? slice(pr, b, K * DR) : BVec(), S, K,
                                 rope, pol, p);
        put(add(hb, o.attn, p), b * S * H, h1);
        put(o.latent, b * S * R, out["present_kv_latent"].value);
        put(o.k_rope, b * S * DR, out["present_k_rope"].value);
    }
}

}  // namespace

std::map<std::string, RefOutput> eval_layer_on(const LayerConfig& c, const Manifest& m, int layer, const BVec& hs,
                                               const std::string& suffix, const RoundPolicy& pol) {
    const RunReport& r = m.report;
    const Precision p(r.dtype);
    const std::size_t B = r.batch, S = r.seq, H = c.hidden;
    if (hs.size() != B * S * H) throw UsageError("eval_layer_on: hidden state of the wrong size");
    Weights W = load_weights(c, m, layer, p);
    std::map<std::string, RefOutput> out;
    out["hidden_states_out"] = {{r.batch, r.seq, c.hidden}, DType::f32, BVec(B * S * H), false, {}, {}, {}, {}};
    BVec h1(B * S * H);
    if (c.attn == AttnKind::mla) mla_half(c, m, W, hs, suffix, pol, p, h1, out);
    else gqa_half(c, m, W, hs, suffix, pol, p, h1, out);
    // Rule: capacity (docs/generator.md section 3): the capacity counts the request's tokens, kept
    // in token order whatever passes
    // the generator ran (report.chunks does not change which tokens an expert keeps).
    MoeResult mo = mlp_half(c, W, h1, B * S, r.capacity, 0, pol, p);
    RefOutput& hout = out["hidden_states_out"];
    hout.value = std::move(mo.out);
    hout.alt_rows = std::move(mo.alt_rows);
    hout.note = std::move(mo.note);
    hout.count_min = std::move(mo.count_min);
    hout.count_max = std::move(mo.count_max);
    return out;
}

std::map<std::string, RefOutput> eval_layer(const LayerConfig& c, const Manifest& m, const RoundPolicy& pol) {
    const RunReport& r = m.report;
    const Precision p(r.dtype);
    BVec hs = load(m, m.inputs, "hidden_states", {r.batch, r.seq, c.hidden}, p, "inputs[]", true);
    return eval_layer_on(c, m, r.layer, hs, "", pol);
}

BVec load_tensor(const Manifest& m, const std::map<std::string, TensorDesc>& table, const std::string& name,
                 const std::vector<std::int64_t>& shape, DType model, const char* kind) {
    return load(m, table, name, shape, Precision(model), kind);
}

}  // namespace gref
