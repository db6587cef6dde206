#include "ref_moe.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "ref_numeric.hpp"
#include "ref_route.hpp"

namespace gref {

BVec mlp_branch(const BVec& a, std::size_t rows, std::size_t hidden, std::size_t inter, const BVec& gate,
                const BVec& up, const BVec& down, const BVec* gb, const BVec* ub, const BVec* db, Act act,
                const RoundPolicy& pol, const Precision& p) {
    BVec g = linear(a, rows, hidden, gate, inter, gb, p);
    BVec u = linear(a, rows, hidden, up, inter, ub, p);
    if (pol.proj_outputs) {
        round_model(g, p);
        round_model(u, p);
    }
    BVec m = act_mul(g, u, act, p);
    if (pol.mm_inputs) round_model(m, p);
    BVec d = linear(m, rows, inter, down, hidden, db, p);
    if (pol.branch_outputs) round_model(d, p);
    return d;
}

namespace {

constexpr std::size_t kMaxAlternatives = 4096;  // per token; beyond: exit 2 (cannot check)

BVec slice_row(const BVec& t, std::size_t row, std::size_t n) {
    auto first = static_cast<std::ptrdiff_t>(row * n), last = static_cast<std::ptrdiff_t>((row + 1) * n);
    return BVec({t.v.begin() + first, t.v.begin() + last}, {t.e.begin() + first, t.e.begin() + last});
}

// One way the generator may have treated a token: its experts, their weights, kept or dropped.
struct Choice {
    std::vector<int> experts;
    std::vector<double> w, we;
    std::vector<char> kept;
};

// Expand a token's expert sets into choices with weights and kept/dropped alternatives.
void expand(const TokenRouting& r, const std::vector<std::vector<int>>& keep_opts, const Precision& p,
            std::vector<Choice>& out, std::size_t t) {
    for (std::size_t si = 0; si < r.sets.size(); ++si) {
        Choice base;
        base.experts = r.sets[si];
        base.w = r.w[si];
        base.we = r.we[si];
        const std::vector<int>& set = r.sets[si];
        // (R): the weights cast to the model dtype
        for (std::size_t j = 0; j < base.w.size(); ++j)
            base.we[j] = std::hypot(base.we[j], p.u * std::fabs(base.w[j]) + p.eta);
        // every combination of the experts' keep options (first option = the primary's)
        std::vector<std::size_t> idx(set.size(), 0);
        while (true) {
            Choice c = base;
            c.kept.resize(set.size());
            for (std::size_t j = 0; j < set.size(); ++j)
                c.kept[j] = static_cast<char>(keep_opts[static_cast<std::size_t>(set[j])][idx[j]]);
            out.push_back(std::move(c));
            if (out.size() > kMaxAlternatives)
                throw UsageError("MoE routing/capacity of token " + std::to_string(t) +
                                 " has too many alternatives: the reference cannot check it");
            std::size_t j = 0;
            while (j < set.size() && ++idx[j] == keep_opts[static_cast<std::size_t>(set[j])].size()) idx[j++] = 0;
            if (j == set.size()) break;
        }
    }
}

}  // namespace

MoeResult moe_block(const LayerConfig& c, const MoeWeights& W, const BVec& h1, const BVec& a, std::size_t T,
                    long long capacity, std::size_t pass_tokens, const RoundPolicy& pol, const Precision& p) {
    const std::size_t H = c.hidden, I = c.moe.intermediate, NE = c.moe.experts;
    const int k = c.moe.top_k;
    // (G): logits [T, E]
    BVec logits = linear(a, T, H, W.router, NE, nullptr, p);
    const bool sigmoid = c.mlp == MlpKind::moe_sigmoid_grouped;
    // --lenient: transformers' bf16 router Linear output (DeepseekV3TopkRouter computes in f32)
    if (pol.scores && !sigmoid) round_model(logits, p);

    std::vector<std::vector<Choice>> choices(T);
    std::vector<long long> prim_cnt(NE, 0), min_cnt(NE, 0), max_cnt(NE, 0);
    std::vector<long long> dropped(NE, 0);
    std::size_t ambiguous_routing = 0, ambiguous_capacity = 0;
    std::vector<long long> req_min(NE, 0), req_max(NE, 0);  // over the whole request
    for (std::size_t t = 0; t < T; ++t) {
        if (pass_tokens > 0 && t % pass_tokens == 0) {  // a new pass: its own C slots per expert
            std::fill(prim_cnt.begin(), prim_cnt.end(), 0);
            std::fill(min_cnt.begin(), min_cnt.end(), 0);
            std::fill(max_cnt.begin(), max_cnt.end(), 0);
        }
        std::vector<double> z(logits.v.begin() + static_cast<std::ptrdiff_t>(t * NE),
                              logits.v.begin() + static_cast<std::ptrdiff_t>((t + 1) * NE));
        std::vector<double> ze(logits.e.begin() + static_cast<std::ptrdiff_t>(t * NE),
                               logits.e.begin() + static_cast<std::ptrdiff_t>((t + 1) * NE));
        TokenRouting r = sigmoid ? route_sigmoid_grouped(z, ze, W.choice_bias.v, c.moe, p, t)
                                 : route_softmax(z, ze, k, c.moe.renormalize, p, t);
        if (r.sets.size() > 1) ++ambiguous_routing;
        // keep options per expert: {1} kept, {0} dropped, or both (primary's first)
        std::vector<std::vector<int>> keep(NE, std::vector<int>{1});
        bool amb_cap = false;
        if (capacity >= 0) {
            for (std::size_t e = 0; e < NE; ++e) {
                int prim = prim_cnt[e] < capacity ? 1 : 0;
                if (max_cnt[e] < capacity) keep[e] = {1};
                else if (min_cnt[e] >= capacity) keep[e] = {0};
                else keep[e] = {prim, 1 - prim};
            }
            for (const auto& s : r.sets)
                for (int e : s) amb_cap = amb_cap || keep[static_cast<std::size_t>(e)].size() > 1;
        }
        if (amb_cap) ++ambiguous_capacity;
        expand(r, keep, p, choices[t], t);
        for (std::size_t j = 0; j < r.sets[0].size(); ++j) {
            auto e = static_cast<std::size_t>(r.sets[0][j]);
            if (!choices[t][0].kept[j]) ++dropped[e];
            ++prim_cnt[e];
        }
        // slots: experts in every alternative surely take one, those in some alternative may
        std::vector<int> in_sets(NE, 0);
        for (const auto& s : r.sets)
            for (int e : s) ++in_sets[static_cast<std::size_t>(e)];
        for (std::size_t e = 0; e < NE; ++e) {
            if (in_sets[e] == static_cast<int>(r.sets.size())) ++min_cnt[e], ++req_min[e];
            if (in_sets[e] > 0) ++max_cnt[e], ++req_max[e];
        }
    }

    std::optional<BVec> shared;
    if (W.shared) {
        const auto& sw = *W.shared;
        shared = mlp_branch(a, T, H, c.moe.shared_intermediate, sw[0], sw[1], sw[2], nullptr, nullptr, nullptr, c.act,
                            pol, p);
    }
    // The experts' MLPs on the tokens some alternative keeps for them.
    std::map<std::pair<std::size_t, int>, BVec> y;  // (token, expert) -> one hidden vector
    for (std::size_t e = 0; e < NE; ++e) {
        std::vector<std::size_t> rows;
        for (std::size_t t = 0; t < T; ++t) {
            bool need = false;
            for (const auto& ch : choices[t])
                for (std::size_t j = 0; j < ch.experts.size(); ++j)
                    need = need || (ch.experts[j] == static_cast<int>(e) && ch.kept[j]);
            if (need) rows.push_back(t);
        }
        if (rows.empty()) continue;
        BVec g(rows.size() * H);
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t h = 0; h < H; ++h) {
                g.v[i * H + h] = a.v[rows[i] * H + h];
                g.e[i * H + h] = a.e[rows[i] * H + h];
            }
        const auto& ew = W.experts[e];
        BVec d = mlp_branch(g, rows.size(), H, I, ew[0], ew[1], ew[2], nullptr, nullptr, nullptr, c.act, pol, p);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            auto first = static_cast<std::ptrdiff_t>(i * H), last = static_cast<std::ptrdiff_t>((i + 1) * H);
            y[{rows[i], static_cast<int>(e)}] = BVec({d.v.begin() + first, d.v.begin() + last},
                                                     {d.e.begin() + first, d.e.begin() + last});
        }
    }

    MoeResult res;
    res.out = BVec(T * H);
    std::size_t alt_total = 0;
    for (std::size_t t = 0; t < T; ++t) {
        auto first = static_cast<std::ptrdiff_t>(t * H), last = static_cast<std::ptrdiff_t>((t + 1) * H);
        BVec h1row({h1.v.begin() + first, h1.v.begin() + last}, {h1.e.begin() + first, h1.e.begin() + last});
        AltRow alt;
        alt.offset = t * H;
        for (const auto& ch : choices[t]) {
            std::vector<double> w, we;
            std::vector<const BVec*> ys;
            for (std::size_t j = 0; j < ch.experts.size(); ++j) {
                if (!ch.kept[j]) continue;
                w.push_back(ch.w[j]);
                we.push_back(ch.we[j]);
                ys.push_back(&y.at({t, ch.experts[j]}));
            }
            BVec m = weighted_sum(w, we, ys, H, p);
            if (pol.branch_outputs) round_model(m, p);
            if (shared) {  // deepseek_v3: routed sum + shared_experts(x)
                m = add(m, slice_row(*shared, t, H), p);
                if (pol.branch_outputs) round_model(m, p);
            }
            alt.alternatives.push_back(add(h1row, m, p));
        }
        const BVec& prim = alt.alternatives[0];
        std::copy(prim.v.begin(), prim.v.end(), res.out.v.begin() + first);
        std::copy(prim.e.begin(), prim.e.end(), res.out.e.begin() + first);
        if (alt.alternatives.size() > 1) {
            alt_total += alt.alternatives.size();
            res.alt_rows.push_back(std::move(alt));
        }
    }
    std::ostringstream note;
    note << "moe: tokens=" << T << " experts=" << NE << " top_k=" << k
         << " renormalize=" << (c.moe.renormalize ? "yes" : "no");
    if (sigmoid)
        note << " router=sigmoid n_group=" << c.moe.n_group << " topk_group=" << c.moe.topk_group
             << " routed_scaling=" << c.moe.routed_scaling << " shared=" << c.moe.shared_intermediate;
    note << " capacity="
         << (capacity < 0 ? std::string("none") : std::to_string(capacity))
         << " ambiguous_routing=" << ambiguous_routing << " ambiguous_capacity=" << ambiguous_capacity
         << " rows_with_alternatives=" << res.alt_rows.size() << " alternatives=" << alt_total << " dropped=[";
    for (std::size_t e = 0; e < NE; ++e) note << (e ? "," : "") << dropped[e];
    note << "]";
    res.note = note.str();
    res.count_min = std::move(req_min);
    res.count_max = std::move(req_max);
    return res;
}

}  // namespace gref
