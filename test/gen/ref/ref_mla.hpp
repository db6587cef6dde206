// deepseek_v3 multi-head latent attention (transformers' DeepseekV3Attention) for one batch
// element, in double with the bounds of ref_bound.hpp.
//
//   q      = q_b_proj(q_a_layernorm(q_a_proj(a)))   (or q_proj(a) when q_lora_rank is null),
//            per head [q_nope (qk_nope), q_pe (qk_rope)];
//   kv     = kv_a_proj_with_mqa(a) = [compressed (kv_lora_rank), k_pe (qk_rope)] per token;
//   latent = kv_a_layernorm(compressed)                  -> present_kv_latent (the cache);
//   [k_nope | v] per head = kv_b_proj(latent) over the K past latents and the S new ones;
//   RoPE on q_pe (every head) and the single shared k_pe at positions K + s:
//   apply_rotary_pos_emb_interleave views x as pairs (x[2i], x[2i+1]) and returns them
//   de-interleaved: y[i] = x[2i] cos_i - x[2i+1] sin_i, y[i + d/2] = x[2i+1] cos_i + x[2i] sin_i
//   (rope_interleave false: the rotate_half form). The rotated k_pe in this output order is
//   present_k_rope, and past_k_rope is read in the same order;
//   score = scale (q_nope . k_nope + q_pe . k_pe), causal softmax, o = sum p v; o_proj.
// The bound steps: (M) for every projection, (N) for the two norms (eps 1e-6), (P) for the
// interleaved RoPE (same formula: each output mixes one pair with one cos/sin entry), (S) (V)
// for the attention; the latent and k_pe rows the attention reads are the cache's, rounded to
// the model dtype (R) like the GQA cache, and kv_b_proj runs on them.
#pragma once

#include <cstddef>

#include "ref_bound.hpp"
#include "ref_config.hpp"

namespace gref {

struct MlaWeights {
    BVec q_a, q_a_norm, q_b;  // q_lora_rank > 0
    BVec q;                   // q_lora_rank == 0: q_proj
    BVec kv_a, kv_a_norm, kv_b, o;
};

struct MlaOut {
    BVec attn;     // o_proj output [S, hidden], before the residual add
    BVec latent;   // [S, kv_lora_rank]: kv_a_layernorm output, before the cache's rounding
    BVec k_rope;   // [S, qk_rope]: rotated k_pe in apply_rotary_pos_emb_interleave's order
};

// a: input_layernorm output [S, hidden] (rounded per policy); past_latent [K, kv_lora_rank],
// past_rope [K, qk_rope] (empty when K = 0); rope: tables over K + S positions of qk_rope dims.
MlaOut mla_attention(const LayerConfig& c, const MlaWeights& W, const BVec& a, const BVec& past_latent,
                     const BVec& past_rope, std::size_t S, std::size_t K, const RopeTables& rope,
                     const RoundPolicy& pol, const Precision& p);

// (P) for the interleaved form: rotates v[0, 2 half) in place at position pos, output in the
// de-interleaved order described above.
void rope_apply_interleaved(double* v, double* e, const RopeTables& t, std::size_t pos);

}  // namespace gref
