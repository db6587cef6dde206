// MLA attention (ref_mla.hpp): the DeepseekV3Attention data flow with the bound steps of
// ref_bound.hpp.
#include "ref_mla.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gref {

void rope_apply_interleaved(double* v, double* e, const RopeTables& t, std::size_t pos) {
    const std::size_t h = t.half;
    std::vector<double> nv(2 * h), ne(2 * h);
    const double f = 0x1p-24;
    auto rss = [](double a, double b, double c, double d) { return std::sqrt(a * a + b * b + c * c + d * d); };
    for (std::size_t i = 0; i < h; ++i) {
        std::size_t k = pos * h + i;
        double c = t.cos.v[k], ce = t.cos.e[k], s = t.sin.v[k], se = t.sin.e[k];
        double x0 = v[2 * i], x1 = v[2 * i + 1], e0 = e[2 * i], e1 = e[2 * i + 1];
        nv[i] = x0 * c - x1 * s;
        nv[i + h] = x1 * c + x0 * s;
        ne[i] = rss(e0 * std::fabs(c), std::fabs(x0) * ce, e1 * std::fabs(s), std::fabs(x1) * se) +
                2 * f * (std::fabs(x0 * c) + std::fabs(x1 * s));
        ne[i + h] = rss(e1 * std::fabs(c), std::fabs(x1) * ce, e0 * std::fabs(s), std::fabs(x0) * se) +
                    2 * f * (std::fabs(x1 * c) + std::fabs(x0 * s));
    }
    std::copy(nv.begin(), nv.end(), v);
    std::copy(ne.begin(), ne.end(), e);
}

namespace {

// Columns [first, first + n) of a [rows, width] tensor.
BVec columns(const BVec& t, std::size_t rows, std::size_t width, std::size_t first, std::size_t n) {
    BVec out(rows * n);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < n; ++i) {
            out.v[r * n + i] = t.v[r * width + first + i];
            out.e[r * n + i] = t.e[r * width + first + i];
        }
    return out;
}

BVec concat_rows(const BVec& a, const BVec& b) {
    BVec out = a;
    out.v.insert(out.v.end(), b.v.begin(), b.v.end());
    out.e.insert(out.e.end(), b.e.begin(), b.e.end());
    return out;
}

void rotate(const MlaParams& m, double* v, double* e, const RopeTables& t, std::size_t pos) {
    if (m.interleave) rope_apply_interleaved(v, e, t, pos);
    else rope_apply(v, e, t, pos);
}

// q for every head, [S, heads, qk_nope + qk_rope], before RoPE.
BVec project_q(const LayerConfig& c, const MlaWeights& W, const BVec& a, std::size_t S, const RoundPolicy& pol,
               const Precision& p) {
    const MlaParams& m = c.mla;
    const std::size_t H = c.hidden, QD = static_cast<std::size_t>(c.heads) * (m.qk_nope + m.qk_rope);
    if (m.q_lora_rank == 0) return linear(a, S, H, W.q, QD, nullptr, p);
    const std::size_t QL = m.q_lora_rank;
    BVec qa = linear(a, S, H, W.q_a, QL, nullptr, p);
    if (pol.proj_outputs) round_model(qa, p);
    qa = rmsnorm(qa, S, QL, W.q_a_norm, m.lora_eps, p);
    if (pol.mm_inputs) round_model(qa, p);
    return linear(qa, S, QL, W.q_b, QD, nullptr, p);
}

}  // namespace

MlaOut mla_attention(const LayerConfig& c, const MlaWeights& W, const BVec& a, const BVec& past_latent,
                     const BVec& past_rope, std::size_t S, std::size_t K, const RopeTables& rope,
                     const RoundPolicy& pol, const Precision& p) {
    const MlaParams& m = c.mla;
    const std::size_t H = c.hidden, NH = c.heads, dn = m.qk_nope, dr = m.qk_rope, dv = m.v_head;
    const std::size_t R = m.kv_lora_rank, dq = dn + dr, dkv = dn + dv, L = K + S;
    BVec q = project_q(c, W, a, S, pol, p);
    if (pol.proj_outputs) round_model(q, p);
    BVec kv = linear(a, S, H, W.kv_a, R + dr, nullptr, p);
    if (pol.proj_outputs) round_model(kv, p);
    MlaOut out;
    out.latent = rmsnorm(columns(kv, S, R + dr, 0, R), S, R, W.kv_a_norm, m.lora_eps, p);
    out.k_rope = columns(kv, S, R + dr, R, dr);
    for (std::size_t s = 0; s < S; ++s) {
        rotate(m, &out.k_rope.v[s * dr], &out.k_rope.e[s * dr], rope, K + s);
        for (std::size_t h = 0; h < NH; ++h)
            rotate(m, &q.v[(s * NH + h) * dq + dn], &q.e[(s * NH + h) * dq + dn], rope, K + s);
    }
    if (pol.mm_inputs) round_model(q, p);
    // The attention reads the cache: the new latent / k_pe rows in the model dtype.
    BVec lat = out.latent, kr = out.k_rope;
    round_model(lat, p);
    round_model(kr, p);
    BVec all_lat = concat_rows(past_latent, lat), all_kr = concat_rows(past_rope, kr);
    BVec kvb = linear(all_lat, L, R, W.kv_b, NH * dkv, nullptr, p);  // per head [k_nope | v]
    if (pol.proj_outputs) round_model(kvb, p);
    BVec keys(L * NH * dq);  // per (position, head): [k_nope | k_pe]
    for (std::size_t j = 0; j < L; ++j)
        for (std::size_t h = 0; h < NH; ++h) {
            std::size_t dst = (j * NH + h) * dq, src = (j * NH + h) * dkv;
            std::copy_n(&kvb.v[src], dn, &keys.v[dst]);
            std::copy_n(&kvb.e[src], dn, &keys.e[dst]);
            std::copy_n(&all_kr.v[j * dr], dr, &keys.v[dst + dn]);
            std::copy_n(&all_kr.e[j * dr], dr, &keys.e[dst + dn]);
        }
    BVec o(S * NH * dv);
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t h = 0; h < NH; ++h) {
            KV rows;
            for (std::size_t j = 0; j <= K + s; ++j) {
                rows.kv.push_back(&keys.v[(j * NH + h) * dq]);
                rows.ke.push_back(&keys.e[(j * NH + h) * dq]);
                rows.vv.push_back(&kvb.v[(j * NH + h) * dkv + dn]);
                rows.ve.push_back(&kvb.e[(j * NH + h) * dkv + dn]);
            }
            std::size_t qo = (s * NH + h) * dq, oo = (s * NH + h) * dv;
            attend_row(&q.v[qo], &q.e[qo], rows, dq, dv, m.scale, pol, p, &o.v[oo], &o.e[oo]);
        }
    if (pol.mm_inputs) round_model(o, p);
    out.attn = linear(o, S, NH * dv, W.o, H, nullptr, p);
    if (pol.branch_outputs) round_model(out.attn, p);
    return out;
}

}  // namespace gref
