// MoE routing alternatives (ref_route.hpp).
#include "ref_route.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace gref {

namespace {

constexpr std::size_t kMaxAlternatives = 4096;  // per token; beyond: exit 2 (cannot check)

void too_many(std::size_t t) {
    throw UsageError("MoE routing of token " + std::to_string(t) + " has more than " +
                     std::to_string(kMaxAlternatives) + " consistent alternatives: the reference cannot check it");
}

// Reference order: values descending, ties to the lower index.
std::vector<int> order_of(const std::vector<double>& v) {
    std::vector<int> o(v.size());
    std::iota(o.begin(), o.end(), 0);
    std::stable_sort(o.begin(), o.end(),
                     [&](int a, int b) { return v[static_cast<std::size_t>(a)] > v[static_cast<std::size_t>(b)]; });
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
        if (out.size() > kMaxAlternatives) too_many(t);
        std::size_t i = need;
        while (i > 0 && idx[i - 1] == n - need + (i - 1)) --i;
        if (i == 0) return;
        ++idx[i - 1];
        for (std::size_t j = i; j < need; ++j) idx[j] = idx[j - 1] + 1;
    }
}

}  // namespace

std::vector<std::vector<int>> consistent_topk(const std::vector<double>& v, const std::vector<double>& e, int k,
                                              std::size_t t) {
    const std::size_t n = v.size();
    const double K = kSafety * kLambda;
    std::vector<int> sure, maybe;
    for (int jj : order_of(v)) {
        auto j = static_cast<std::size_t>(jj);
        int can_reach = 0, surely_beat = 0;
        for (std::size_t l = 0; l < n; ++l) {
            if (l == j) continue;
            double band = K * std::hypot(e[l], e[j]);
            if (v[l] - v[j] >= -band) ++can_reach;
            if (v[l] - v[j] > band) ++surely_beat;
        }
        if (can_reach < k) sure.push_back(jj);
        else if (surely_beat < k) maybe.push_back(jj);
    }
    const std::size_t need = static_cast<std::size_t>(k) - sure.size();
    std::vector<std::vector<int>> sets;
    if (need == 0 || need >= maybe.size()) {
        // sure + the first `need` maybe entries in the reference order is the reference's top-k
        std::vector<int> s = sure;
        s.insert(s.end(), maybe.begin(), maybe.begin() + static_cast<std::ptrdiff_t>(std::min(need, maybe.size())));
        sets.push_back(std::move(s));
    } else {
        combinations(maybe, need, sure, sets, t);
    }
    return sets;
}

TokenRouting route_softmax(const std::vector<double>& z, const std::vector<double>& ze, int k, bool renormalize,
                           const Precision& p, std::size_t t) {
    std::vector<double> pr, pe, E;
    softmax_row(z, ze, 0.0, p, pr, pe, &E);
    // The order of p (and of the generator's p') is that of the shifted exponentials: compare
    // the logits with the (S) shift bounds E_j; the shared normalisation cannot reorder.
    TokenRouting r;
    r.sets = consistent_topk(z, E, k, t);
    for (const auto& set : r.sets) {
        std::vector<double> w, we;
        if (renormalize) {
            renormalized_weights(pr, E, set, p, w, we);
        } else {
            for (int e : set) {
                w.push_back(pr[static_cast<std::size_t>(e)]);
                we.push_back(pe[static_cast<std::size_t>(e)]);
            }
        }
        r.w.push_back(std::move(w));
        r.we.push_back(std::move(we));
    }
    return r;
}

namespace {

// (W') of ref_route.hpp for one expert set.
void sigmoid_weights(const std::vector<double>& s, const std::vector<double>& es, const std::vector<int>& set,
                     const MoeParams& m, const Precision& p, std::vector<double>& w, std::vector<double>& we) {
    double sum = 0, sum_e2 = 0;
    for (int e : set) {
        sum += s[static_cast<std::size_t>(e)];
        sum_e2 += es[static_cast<std::size_t>(e)] * es[static_cast<std::size_t>(e)];
    }
    const double f32_rel = static_cast<double>(set.size() + 3) * p.f;
    for (int ei : set) {
        auto e = static_cast<std::size_t>(ei);
        double wv = s[e], wb = es[e];
        if (m.renormalize) {
            double denom = sum + 1e-20;
            wv = s[e] / denom;
            wb = std::sqrt(es[e] * es[e] + wv * wv * sum_e2) / denom + f32_rel * wv;
        }
        wv *= m.routed_scaling;
        wb = wb * std::fabs(m.routed_scaling) + p.f * std::fabs(wv);
        w.push_back(wv);
        we.push_back(wb);
    }
}

}  // namespace

TokenRouting route_sigmoid_grouped(const std::vector<double>& z, const std::vector<double>& ze,
                                   const std::vector<double>& bias, const MoeParams& m, const Precision& p,
                                   std::size_t t) {
    const std::size_t NE = z.size(), G = static_cast<std::size_t>(m.n_group), per = NE / G;
    std::vector<double> s(NE), es(NE), c(NE), ec(NE);
    for (std::size_t j = 0; j < NE; ++j) {
        s[j] = 1.0 / (1.0 + std::exp(-z[j]));
        es[j] = s[j] * (1 - s[j]) * ze[j] + (p.T + 3 * p.f) * s[j];
        c[j] = s[j] + bias[j];
        ec[j] = es[j] + p.f * std::fabs(c[j]);
    }
    std::vector<double> gs(G), ge(G);
    for (std::size_t g = 0; g < G; ++g) {
        std::vector<double> vals(c.begin() + static_cast<std::ptrdiff_t>(g * per),
                                 c.begin() + static_cast<std::ptrdiff_t>((g + 1) * per));
        std::vector<double> errs(ec.begin() + static_cast<std::ptrdiff_t>(g * per),
                                 ec.begin() + static_cast<std::ptrdiff_t>((g + 1) * per));
        std::sort(vals.begin(), vals.end(), std::greater<>());
        std::sort(errs.begin(), errs.end(), std::greater<>());
        gs[g] = vals[0] + vals[1];
        ge[g] = std::hypot(errs[0], errs[1]) + p.f * std::fabs(gs[g]);
    }
    TokenRouting r;
    std::vector<std::vector<int>> seen;  // sorted copies of r.sets
    for (const auto& groups : consistent_topk(gs, ge, m.topk_group, t)) {
        std::vector<double> cm(NE, 0.0), em(NE, 0.0);
        for (int g : groups)
            for (std::size_t j = static_cast<std::size_t>(g) * per; j < (static_cast<std::size_t>(g) + 1) * per; ++j)
                cm[j] = c[j], em[j] = ec[j];
        for (auto& set : consistent_topk(cm, em, m.top_k, t)) {
            std::vector<int> key = set;
            std::sort(key.begin(), key.end());
            if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
            seen.push_back(std::move(key));
            r.sets.push_back(std::move(set));
            if (r.sets.size() > kMaxAlternatives) too_many(t);
        }
    }
    for (const auto& set : r.sets) {
        std::vector<double> w, we;
        sigmoid_weights(s, es, set, m, p, w, we);
        r.w.push_back(std::move(w));
        r.we.push_back(std::move(we));
    }
    return r;
}

}  // namespace gref
