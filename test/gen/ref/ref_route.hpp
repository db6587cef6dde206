// Per-token MoE routing in double, with every expert set a generator obeying the contract may
// choose (ref_moe.hpp explains how the alternatives are used).
//
// Consistent top-k. Values v_j with bounds e_j (the generator's value lies within
// kSafety kLambda e_j of v_j); the reference orders by v descending, ties to the lower index.
// j and l may swap when |v_l - v_j| <= kSafety kLambda hypot(e_l, e_j) (RSS, as everywhere).
// j is surely chosen when fewer than k others can reach it, surely not when at least k others
// surely beat it; the others are "maybe", and every way of filling the remaining places with
// maybe entries is an alternative. Set 0 is the reference's own top-k.
//
// Softmax routing (mixtral, qwen3_moe): the order of p is that of the logits within the (S)
// shift bounds E_j (ref_bound.hpp (G)); weights (W).
//
// Sigmoid group-limited routing (deepseek_v3, ref_config.hpp MoeParams): s_j = sigmoid(z_j),
// e_s = s(1 - s) e_z + (T + 3f) s; choice c_j = s_j + b_j (bias exact f32), e_c = e_s + f|c|.
// Group score = the sum of the group's two best choices; its bound is the RSS of the group's
// two largest e_c (the top-2 sum moves by at most the two largest changes) + f|score|. The
// groups are chosen by consistent top-k (topk_group), and for every consistent group set the
// experts by consistent top-k over the masked choices (0.0 with bound 0 outside the kept
// groups, as transformers' masked_fill). Expert sets reached through several group sets are
// kept once. Weights (W'): w_e = s_e / (sum_c s_c + 1e-20) when norm_topk_prob,
// dw_e = (ds_e - w_e sum_c ds_c) / sum: e_w = sqrt(e_se^2 + w_e^2 sum_c e_sc^2) / sum +
// (k + 3) f w_e; else w_e = s_e, e_w = e_se; then times routed_scaling_factor (+ f|w|).
#pragma once

#include <cstddef>
#include <vector>

#include "ref_bound.hpp"
#include "ref_config.hpp"

namespace gref {

struct TokenRouting {
    std::vector<std::vector<int>> sets;     // sets[0] = the reference's choice
    std::vector<std::vector<double>> w, we;  // per set, per expert: weight and bound (before (R))
};

// Every consistent top-k set of v (bounds e), the reference's first; t names the token in errors.
std::vector<std::vector<int>> consistent_topk(const std::vector<double>& v, const std::vector<double>& e, int k,
                                              std::size_t t);

// mixtral / qwen3_moe: z = router logits of one token, ze their bounds.
TokenRouting route_softmax(const std::vector<double>& z, const std::vector<double>& ze, int k, bool renormalize,
                           const Precision& p, std::size_t t);

// deepseek_v3: bias = e_score_correction_bias (exact).
TokenRouting route_sigmoid_grouped(const std::vector<double>& z, const std::vector<double>& ze,
                                   const std::vector<double>& bias, const MoeParams& m, const Precision& p,
                                   std::size_t t);

}  // namespace gref
