#include "ref_moe.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include "ref_numeric.hpp"

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

// One way the generator may have treated a token: its experts, their weights, kept or dropped.
struct Choice {
    std::vector<int> experts;
    std::vector<double> w, we;
    std::vector<char> kept;
};

// Routing of one token: sure / maybe experts and the alternatives' expert sets (alternative 0
// = the reference's own top-k).
struct TokenRouting {
    std::vector<double> pr, pe, E;
    std::vector<int> sure, maybe;             // maybe: in the reference's order
    std::vector<std::vector<int>> sets;       // sets[0] = primary
};

// Reference order: logits (hence p) descending, ties to the lower expert index.
std::vector<int> order_of(const std::vector<double>& pr) {
    std::vector<int> o(pr.size());
    std::iota(o.begin(), o.end(), 0);
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return pr[static_cast<std::size_t>(a)] > pr[static_cast<std::size_t>(b)]; });
    return o;
}

void combinations(const std::vector<int>& pool, std::size_t need, const std::vector<int>& base,
                  std::vector<std::vector<int>>& out, std::size_t t) {
    std::vector<std::size_t> idx(need);
    std::iota(idx.begin(), idx.end(), 0);
    const std::size_t n = pool.size();
    while (true) {
        std::vector<int> s = base;
        for (std::size_t i : idx) s.push_back(pool[i]);
        out.push_back(std::move(s));
        if (out.size() > kMaxAlternatives)
            throw UsageError("MoE routing of token " + std::to_string(t) + " is ambiguous among " + std::to_string(n) +
                             " experts (more than " + std::to_string(kMaxAlternatives) +
                             " alternatives): the reference cannot check it");
        std::size_t i = need;
        while (i > 0 && idx[i - 1] == n - need + (i - 1)) --i;
        if (i == 0) return;
        ++idx[i - 1];
        for (std::size_t j = i; j < need; ++j) idx[j] = idx[j - 1] + 1;
    }
}

TokenRouting route(const std::vector<double>& z, const std::vector<double>& ze, int k, const Precision& p,
                   std::size_t t) {
    TokenRouting r;
    softmax_row(z, ze, 0.0, p, r.pr, r.pe, &r.E);
    const std::size_t E = r.pr.size();
    // The order of p (and of the generator's p') is that of the shifted exponentials: compare
    // the logits, E_j being the (S) bound on the shift z_j - m (logit error, f32 subtraction,
    // exp accuracy); the shared normalisation cannot reorder. A pair (l, j) may swap when
    // |z_l - z_j| <= kSafety kLambda hypot(E_l, E_j) (RSS of the two bounds, as everywhere).
    std::vector<int> order = order_of(z);
    const double K = kSafety * kLambda;
    for (int jj : order) {
        auto j = static_cast<std::size_t>(jj);
        int can_reach = 0, surely_beat = 0;
        for (std::size_t l = 0; l < E; ++l) {
            if (l == j) continue;
            double band = K * std::hypot(r.E[l], r.E[j]);
            if (z[l] - z[j] >= -band) ++can_reach;
            if (z[l] - z[j] > band) ++surely_beat;
        }
        if (can_reach < k) r.sure.push_back(jj);
        else if (surely_beat < k) r.maybe.push_back(jj);
    }
    std::size_t need = static_cast<std::size_t>(k) - r.sure.size();
    if (need == 0 || need == r.maybe.size()) {
        std::vector<int> s = r.sure;
        if (need) s.insert(s.end(), r.maybe.begin(), r.maybe.end());
        r.sets.push_back(std::move(s));
    } else {
        combinations(r.maybe, need, r.sure, r.sets, t);
    }
    // sets[0] is the reference's top-k: sure + the first `need` maybe experts in order.
    return r;
}

// Expand a token's expert sets into choices with weights and kept/dropped alternatives.
void expand(const TokenRouting& r, bool renormalize, const std::vector<std::vector<int>>& keep_opts,
            const Precision& p, std::vector<Choice>& out, std::size_t t) {
    for (const auto& set : r.sets) {
        Choice base;
        base.experts = set;
        if (renormalize) {
            renormalized_weights(r.pr, r.E, set, p, base.w, base.we);
        } else {
            for (int e : set) {
                base.w.push_back(r.pr[static_cast<std::size_t>(e)]);
                base.we.push_back(r.pe[static_cast<std::size_t>(e)]);
            }
        }
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
                    long long capacity, const RoundPolicy& pol, const Precision& p) {
    const std::size_t H = c.hidden, I = c.moe.intermediate, NE = c.moe.experts;
    const int k = c.moe.top_k;
    // (G): logits [T, E]
    BVec logits = linear(a, T, H, W.router, NE, nullptr, p);
    if (pol.scores) round_model(logits, p);  // --lenient: transformers' bf16 router Linear output

    std::vector<std::vector<Choice>> choices(T);
    std::vector<long long> prim_cnt(NE, 0), min_cnt(NE, 0), max_cnt(NE, 0);
    std::vector<long long> dropped(NE, 0);
    std::size_t ambiguous_routing = 0, ambiguous_capacity = 0;
    for (std::size_t t = 0; t < T; ++t) {
        std::vector<double> z(logits.v.begin() + static_cast<std::ptrdiff_t>(t * NE),
                              logits.v.begin() + static_cast<std::ptrdiff_t>((t + 1) * NE));
        std::vector<double> ze(logits.e.begin() + static_cast<std::ptrdiff_t>(t * NE),
                               logits.e.begin() + static_cast<std::ptrdiff_t>((t + 1) * NE));
        TokenRouting r = route(z, ze, k, p, t);
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
        expand(r, c.moe.renormalize, keep, p, choices[t], t);
        for (std::size_t j = 0; j < r.sets[0].size(); ++j) {
            auto e = static_cast<std::size_t>(r.sets[0][j]);
            if (!choices[t][0].kept[j]) ++dropped[e];
            ++prim_cnt[e];
        }
        for (int e : r.sure) ++min_cnt[static_cast<std::size_t>(e)], ++max_cnt[static_cast<std::size_t>(e)];
        for (int e : r.maybe) ++max_cnt[static_cast<std::size_t>(e)];
    }

    // The experts' MLPs on the tokens some alternative keeps for them.
    std::map<std::pair<std::size_t, int>, BVec> y;  // (token, expert) -> [H]
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
         << " renormalize=" << (c.moe.renormalize ? "yes" : "no") << " capacity="
         << (capacity < 0 ? std::string("none") : std::to_string(capacity))
         << " ambiguous_routing=" << ambiguous_routing << " ambiguous_capacity=" << ambiguous_capacity
         << " rows_with_alternatives=" << res.alt_rows.size() << " alternatives=" << alt_total << " dropped=[";
    for (std::size_t e = 0; e < NE; ++e) note << (e ? "," : "") << dropped[e];
    note << "]";
    res.note = note.str();
    return res;
}

}  // namespace gref
