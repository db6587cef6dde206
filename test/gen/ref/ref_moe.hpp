// The MLP half of a decoder layer: the dense MLP, the softmax-routed sparse MoE block of
// mixtral (MixtralSparseMoeBlock) and qwen3_moe (Qwen3MoeSparseMoeBlock), and deepseek_v3's
// DeepseekV3MoE (sigmoid group-limited router, routed experts + shared experts), in double with
// the bounds of ref_bound.hpp ((G) (W) (X), (G') (W') for deepseek_v3). The routing itself
// (every consistent expert set of a token) is ref_route.hpp's; for deepseek_v3 the group choice
// is ambiguous the same way (near-equal group scores), and every consistent pair (groups,
// experts) is an alternative.
//
// Routing. Tokens are the flattened [B, S] rows (token t = b * S + s). For each token the
// reference computes p = softmax(logits) in double and chooses the top_k experts by p; equal
// probabilities: the lower expert index wins (torch.topk does not specify its order on ties;
// this is the reference's choice). The generator routes in f32 from bf16-rounded operands;
// the order of its p' is that of its shifted exponentials, i.e. of its logits within the (S)
// shift bounds E_j (ref_bound.hpp (G)): experts l and j may swap when
// |z_l - z_j| <= kSafety kLambda hypot(E_l, E_j). Expert j is surely chosen when fewer than
// top_k others can reach it, surely not chosen when at least top_k others surely beat it; the
// others are "maybe" (a k-th / (k+1)-th pair within the bound is the common case). When
// maybe experts compete for the remaining places the token is ambiguous: every such choice is
// an alternative (its weights and its experts evaluated in full), and the token's output row
// passes if it is within its bound for one alternative (all elements against the same one).
// Alternative 0 is always the reference's own choice.
//
// Capacity (docs/generator.md section 3, Rule: capacity). Without report.capacity every routed
// token is kept (C = tokens).
// With capacity C, expert e keeps the first C tokens routed to it in token order; later ones
// contribute 0 for e (their weight is not redistributed). The slot of token t at expert e is
// the number of earlier tokens routed to e; under ambiguity it lies between the count of the
// earlier tokens that surely chose e and those that may have: where that range straddles C,
// both "kept" and "dropped" are alternatives.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ref_bound.hpp"
#include "ref_config.hpp"

namespace gref {

// The branch of one MLP (gate/up/down, optional biases) on `rows` normed rows a (already
// rounded per policy): down(act(gate a) * up a), before the residual add.
BVec mlp_branch(const BVec& a, std::size_t rows, std::size_t hidden, std::size_t inter, const BVec& gate,
                const BVec& up, const BVec& down, const BVec* gb, const BVec* ub, const BVec* db, Act act,
                const RoundPolicy& pol, const Precision& p);

struct MoeWeights {
    BVec router;                             // [experts, hidden]
    std::vector<std::array<BVec, 3>> experts;  // gate [I, H], up [I, H], down [H, I]
    BVec choice_bias;                        // deepseek_v3: e_score_correction_bias [experts], f32
    std::optional<std::array<BVec, 3>> shared;  // deepseek_v3: shared_experts gate/up/down
};

// Rows of an output with more than one acceptable value: alternatives[0] equals the output's
// value there; a row passes when within its bound for any alternative.
struct AltRow {
    std::size_t offset = 0;  // first element of the row in the output
    std::vector<BVec> alternatives;
};

struct MoeResult {
    BVec out;                   // h1 + moe(a), [T, hidden], alternative 0 of every token
    std::vector<AltRow> alt_rows;
    std::string note;           // routing statistics for --verbose
    // Tokens that chose each expert over the request (before any capacity): between
    // count_min (the expert is in every alternative routing of the token) and count_max (in
    // some); equal unless a score tie makes the routing ambiguous.
    std::vector<long long> count_min, count_max;
};

// h1: the residual stream [T, hidden]; a: post_attention_layernorm(h1), rounded per policy.
// capacity < 0: none.
// `capacity` slots per expert and pass of `pass_tokens` consecutive tokens (report.chunks).
MoeResult moe_block(const LayerConfig& c, const MoeWeights& W, const BVec& h1, const BVec& a, std::size_t T,
                    long long capacity, std::size_t pass_tokens, const RoundPolicy& pol, const Precision& p);

}  // namespace gref
