// Double-precision evaluation with a running error bound: every tensor carries, per element,
// its exact (double) value v and a bound e >= |x_gen - v| on what any generator obeying the
// contract's numerics (docs/generator.md section 3, Rule: bf16/f16 storage, f32 compute) can
// compute for it.
//
// ---- Derivation -----------------------------------------------------------------------------
// Notation: u = unit roundoff of the model dtype (bf16 2^-8, f16 2^-11: p = 8 resp. 11
// significand bits, |fl(x) - x| <= 2^-p |x|), eta = 2^(emin-p) the absolute error in the
// subnormal range (f16 2^-25), f = 2^-24 (f32), T = 2^-19 (16 f32 ulps) the accuracy assumed of
// f32 transcendentals (exp, rsqrt, erf, tanh, sin/cos) however the TIU evaluates them.
// Inputs are read from the bytes the generator reads: e = 0 (a tensor in a dtype the generator
// may still convert: e = u|x|). The past cache is in the model dtype: e = 0.
// Why not a worst-case (sum of |terms|) bound: each matmul multiplies a worst-case bound by
// sum_k |W_k| ~ sqrt(K) while the values keep their size, and softmax/RMSNorm/silu turn that
// into exponential growth: on hidden 64-128 bf16 layers it exceeded the values themselves
// after the attention (tried first; useless as a check). So e is a first-order, root-sum-square
// bound: every elementary rounding is an independent mean-zero error bounded by b_r (round to
// nearest of data-dependent values), an element's error is sum_r c_r delta_r to first order,
// and e = sqrt(sum_r (c_r b_r)^2) is propagated with the same derivatives a worst-case analysis
// uses (|.| replaced by RSS over independent contributions). Hoeffding: P(|error| > lambda e) <=
// 2 exp(-lambda^2 / 2), lambda = 6 -> 3e-8 per element (kLambda). f32 accumulation terms
// (gamma_K) are added worst-case, linearly.
//  (R) rounding of y to the model dtype, wherever the generator may place one:
//      e' = hypot(e, u|y| + eta). Allowed places (RoundPolicy): every matmul operand (normed
//      activations, q, k, v, softmax weights, attention output, act(g)*up), the q/k/v/gate/up
//      projection outputs, the RoPE cos/sin tables (transformers casts them to the model dtype)
//      and the KV cache; --lenient adds the scores, router logits and the o_proj/down_proj/MoE outputs.
//  (M) y = sum_k x_k w_k: e_y = sqrt(sum_k (e_x|w|)^2 + (|x| e_w)^2) + (K+1) f sum(|x|+e_x)(|w|+e_w)
//      (any f32 summation order, TP partial sums included); bias: hypot(e_y, e_b) + f(...).
//  (N) RMSNorm y_i = x_i r w_i, dr = -r^3/n sum_j x_j dx_j: e_i = RSS(|w| r e_i, |w x_i| r^3/n
//      sqrt(sum (x_j e_j)^2), |x_i| r e_w) + ((n/2 + 4) f + T)|y_i|.
//  (P) RoPE y_i = x_i c_i +- x_p s_i: RSS(e_i|c|, |x_i| e_c, e_p|s|, |x_p| e_s) + 2f(...). cos/sin
//      of an f32 theta = pos * inv_freq (inv_freq from an f32 pow) are off by
//      A(|theta|(ln(base) + 8) f + T + 2f), A the yarn attention factor; then (R) for the table.
//  (S) softmax dp_j = p_j (dz_j - sum_l p_l dz_l): e_pj = p_j sqrt(E_j^2 + sum_l (p_l E_l)^2)
//      + (3L + 2) f p_j; E_j = RSS(score error, u if the exponentials/probabilities are rounded
//      (a relative change of exp(z_j - m) is a shift of z_j)) + f|z_j - m| + T. The last f term
//      covers the f32 sum, division and online-softmax (flash) rescaling.
//  (V) o = sum_j p_j v_j: (M) with x = p.
//  (A) act(g): mean value theorem, (|act'(g)| + M2 E) E with M2 = sup|act''| (silu 0.5, gelu
//      0.8, tanh-gelu 1.0 conservative) + (T + 4f)(|act| + |g|); m = a b: RSS(e_a|b|, |a|e_b) + e_a e_b.
//  (+) residual adds: hypot(e_a, e_b) + f(|a| + |b| + e_a + e_b).
//  MoE (mixtral, qwen3_moe; ref_moe.hpp):
//  (G) router: logits z = (M) of the normed (rounded) activation with gate.weight, kept in f32
//      (--lenient: (R) as transformers' bf16 Linear output); p = softmax(z) over all experts by
//      (S), L = experts, nothing rounded inside (the router is f32 by Rule: bf16/f16 storage, f32
// compute).
//  (W) weights. Renormalised (mixtral, norm_topk_prob): w_e = p_e / sum_{c in chosen} p_c is the
//      softmax of the chosen logits alone (the other logits and the full sum cancel to first
//      order), so (S) over the chosen set with the same per-logit E_c:
//      e_we = w_e (sqrt(E_e^2 + sum_c (w_c E_c)^2) + (3L + 3k + 2) f). Not renormalised: w = p
//      with its (S) bound. Then (R): transformers casts the weights to the model dtype (also
//      covers a generator that folds w into the down_proj operand).
//  (X) out = sum_{e kept} w_e y_e, y_e = the expert's MLP (as the dense MLP: (N) once, (M) (A) (M)
//      per expert): (M) with x = w over the kept experts, i.e. the weights' errors propagate
//      linearly: sqrt(sum_e (e_we |y_e|)^2 + (w_e e_ye)^2) + (k + 1) f sum_e (w_e + e_we)(|y_e| + e_ye).
//  deepseek_v3 (ref_mla.hpp, ref_route.hpp):
//  (L) MLA: every projection (q_a, q_b or q, kv_a_proj_with_mqa, kv_b_proj, o_proj) is (M) on
//      operands rounded per policy (R); q_a_layernorm / kv_a_layernorm are (N) with eps 1e-6;
//      the interleaved RoPE is (P) (each output combines one (x[2i], x[2i+1]) pair with one
//      cos/sin entry: the same four terms); the latent and rotated k_pe rows the attention
//      reads are the cache's, rounded to the model dtype (R), and kv_b_proj is applied to those
//      (a generator that absorbs kv_b_proj into q / o instead only reorders (M) sums over the
//      latent: the same first-order terms, covered by the RSS of (M) on both sides); scores
//      (M) over qk_nope + qk_rope with the softmax scale (an exact constant in double; its f32
//      rounding is one f relative, inside (S)'s f|z| term), (S), (V) over v_head_dim.
//      present_kv_latent / present_k_rope: their bound + half an ulp (stored in the model dtype).
//  (G') router: logits (M) kept in f32 (DeepseekV3TopkRouter computes in f32 even under
//      --lenient); s = sigmoid(z): e_s = s(1 - s) e_z + (T + 3f) s; choice c = s + bias (the f32
//      e_score_correction_bias read exactly), e_c = e_s + f|c|; group scores: RSS of the two
//      largest e_c of the group + f|score|; ambiguity as below, over groups and then experts.
//  (W') weights = s (no bias) of the chosen; norm_topk_prob: w = s / (sum + 1e-20),
//      e_w = sqrt(e_s^2 + w^2 sum_c e_sc^2) / sum + (k + 3) f w; times routed_scaling_factor
//      (+ f|w|); then (R) as (W). (X) for the routed sum; the shared experts are a dense MLP
//      branch ((M) (A) (M)) added with (+) (--lenient: the routed sum, the shared output and
//      their sum may each be rounded to the model dtype, as transformers' bf16 module does).
//  Routing is decided in double from p (ties: lower expert index first); where the generator's
//  logits (within kSafety kLambda E_j) could order the experts differently, every consistent choice is
//  evaluated and the token's row passes if within its bound for one of them (ref_moe.hpp).
//  Whole model (ref_model.hpp): the same steps run through every layer (each layer's output
//  bound is the next one's input bound), then (N) for the final norm, (R), (M) for the LM head.
// Check: |gen - ref| <= kSafety * kLambda * e, plus half an ulp of the model dtype for
// present_key/present_value (their storage rounding). kSafety = 2 covers what the model
// neglects: second-order terms (relative size ~ the first-order relative bound, a few % in bf16),
// correlations between roundings (e.g. one q error shared by all scores of a row, which the
// softmax formula already over-counts), and T / theta assumptions a table-based TIU might miss
// by a few times (those terms are 2^13 below u). It must stay small: the bound is what catches
// wrong semantics (the self-tests show RoPE position, causal mask, GQA mapping and yarn factor
// mistakes at 2-300x the bound while emulated bf16/f16 generators sit at 0.05-0.12).
// ---------------------------------------------------------------------------------------------
#pragma once

#include <cstddef>
#include <vector>

#include "ref_config.hpp"
#include "ref_numeric.hpp"

namespace gref {

constexpr double kLambda = 6.0;  // Hoeffding: P(|sum| > 6 sqrt(sum b^2)) <= 2 exp(-18) = 3e-8
constexpr double kSafety = 2.0;

struct Precision {
    DType model = DType::bf16;
    double u = 0, eta = 0;
    double f = 0x1p-24;   // f32 unit roundoff
    double T = 0x1p-19;   // f32 transcendentals: 16 ulps
    explicit Precision(DType d) : model(d), u(unit_roundoff(d)), eta(subnormal_eta(d)) {}
};

struct RoundPolicy {
    bool mm_inputs = true;       // matmul operands in the model dtype
    bool proj_outputs = true;    // q/k/v/gate/up outputs stored in the model dtype
    bool rope_tables = true;     // cos/sin in the model dtype (as transformers casts them)
    bool scores = false;         // --lenient: QK^T and MoE router logits in the model dtype
    bool branch_outputs = false; // --lenient: o_proj/down_proj/expert/MoE outputs before the residual add
};

// A tensor of values and error bounds, row-major; the shape lives with the caller.
struct BVec {
    std::vector<double> v, e;
    BVec() = default;
    explicit BVec(std::size_t n) : v(n, 0.0), e(n, 0.0) {}
    BVec(std::vector<double> vals, std::vector<double> errs) : v(std::move(vals)), e(std::move(errs)) {}
    std::size_t size() const { return v.size(); }
};

// (R): possible rounding of every element to the model dtype.
void round_model(BVec& x, const Precision& p);

// (M): y[rows, out] = x[rows, in] W[out, in]^T (+ b[out]).
BVec linear(const BVec& x, std::size_t rows, std::size_t in, const BVec& w, std::size_t out,
            const BVec* bias, const Precision& p);

// (N): RMSNorm of each of `rows` rows of length n with weight w[n].
BVec rmsnorm(const BVec& x, std::size_t rows, std::size_t n, const BVec& w, double eps, const Precision& p);

// cos/sin tables for positions [0, npos): cos[pos * d/2 + i], with bounds (P).
struct RopeTables {
    std::size_t half = 0;
    BVec cos, sin;
};
RopeTables rope_tables(const RopeParams& r, std::size_t npos, std::size_t head_dim, bool round_tables,
                       const Precision& p);

// (P): rotate one vector of head_dim (= 2 half) elements in place at position pos.
void rope_apply(double* v, double* e, const RopeTables& t, std::size_t pos);

// Attention of one query row against L keys/values (pointers to rows of head_dim elements):
// (M) for the scores, (S) softmax, (V) the weighted sum into o/oe[head_dim].
struct KV {
    std::vector<const double*> kv, ke, vv, ve;
};
void attend_row(const double* q, const double* qe, const KV& kv, std::size_t d, double scale,
                const RoundPolicy& pol, const Precision& p, double* o, double* oe);
// The same with key rows of dk and value rows of dv elements (MLA: dk = qk_nope + qk_rope).
void attend_row(const double* q, const double* qe, const KV& kv, std::size_t dk, std::size_t dv, double scale,
                const RoundPolicy& pol, const Precision& p, double* o, double* oe);

// (S) on one row of logits z (bounds ze): probabilities pr and bounds pe. shift_round: u when the
// exponentials/probabilities may be rounded to the model dtype, else 0. E (optional) receives
// the per-logit shift bounds E_j the (S) formula uses.
void softmax_row(const std::vector<double>& z, const std::vector<double>& ze, double shift_round,
                 const Precision& p, std::vector<double>& pr, std::vector<double>& pe,
                 std::vector<double>* E = nullptr);

// (W), renormalised: weights over the chosen experts from the full softmax's p and E (n_all =
// number of experts), before the (R) cast.
void renormalized_weights(const std::vector<double>& pr, const std::vector<double>& E,
                          const std::vector<int>& chosen, const Precision& p, std::vector<double>& w,
                          std::vector<double>& we);

// (X): out[n] = sum_j w[j] y[j][n] over the given expert rows (each n elements).
BVec weighted_sum(const std::vector<double>& w, const std::vector<double>& we,
                  const std::vector<const BVec*>& y, std::size_t n, const Precision& p);

// (A): m = act(g) * up, elementwise.
BVec act_mul(const BVec& g, const BVec& up, Act act, const Precision& p);

// (+): a + b.
BVec add(const BVec& a, const BVec& b, const Precision& p);

}  // namespace gref
