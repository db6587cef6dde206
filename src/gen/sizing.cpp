// Pass 1 (sizing) where it does not depend on the streams: request checks, the tensor-parallel
// degree and slices, the DDR/L2 memory map (where each tensor lives), and the analytic FLOP / byte counts.
#include "layer.hpp"

namespace tilefw::gen {

namespace {

using detail::Slices;

Status bad(GenError& e, const char* what, uint64_t value = 0) noexcept {
  e = GenError{Status::gen_bad_config, what, value};
  return e.status;
}

bool valid_moe(const ModelConfig& m, GenError& e) noexcept {
  const MoeConfig& x = m.moe;
  if (x.experts == 0 || x.experts > 1024) return bad(e, "num_experts", x.experts) == Status::ok;
  if (x.top_k == 0 || x.top_k > x.experts) return bad(e, "num_experts_per_tok", x.top_k) == Status::ok;
  if (x.expert_intermediate == 0) return bad(e, "moe_intermediate_size") == Status::ok;
  if (x.routing == Routing::sigmoid_grouped) {
    if (x.n_group == 0 || x.experts % x.n_group != 0) return bad(e, "n_group (must divide the experts)", x.n_group) == Status::ok;
    // transformers scores a group by the sum of its top-2 experts
    if (x.experts / x.n_group < 2) return bad(e, "n_group (groups need at least 2 experts)", x.n_group) == Status::ok;
    if (x.topk_group == 0 || x.topk_group > x.n_group) return bad(e, "topk_group", x.topk_group) == Status::ok;
    if (x.top_k > x.topk_group * (x.experts / x.n_group)) {
      return bad(e, "num_experts_per_tok (more than the experts of topk_group groups)", x.top_k) == Status::ok;
    }
    if (!(x.routed_scaling_factor > 0.0f)) return bad(e, "routed_scaling_factor") == Status::ok;
  }
  return true;
}

bool valid_mla(const ModelConfig& m, GenError& e) noexcept {
  const MlaConfig& a = m.mla;
  if (a.kv_lora_rank == 0) return bad(e, "kv_lora_rank") == Status::ok;
  if (a.qk_nope_head_dim == 0) return bad(e, "qk_nope_head_dim") == Status::ok;
  if (a.v_head_dim == 0) return bad(e, "v_head_dim") == Status::ok;
  if (m.kv_heads != m.heads) return bad(e, "num_key_value_heads (MLA: equal to the heads)", m.kv_heads) == Status::ok;
  if (m.qkv_bias || m.o_bias) return bad(e, "attention_bias (MLA projections with bias)") == Status::ok;
  return true;
}

bool valid_model(const ModelConfig& m, GenError& e) noexcept {
  if (m.type != ModelType::llama && m.type != ModelType::mistral && m.type != ModelType::qwen2 &&
      m.type != ModelType::qwen3 && m.type != ModelType::mixtral && m.type != ModelType::qwen3_moe &&
      m.type != ModelType::deepseek_v3) {
    return bad(e, "model_type") == Status::ok;
  }
  if (m.moe_layer && !valid_moe(m, e)) return false;
  if (m.type == ModelType::deepseek_v3 && !valid_mla(m, e)) return false;
  if (m.hidden == 0) return bad(e, "hidden_size") == Status::ok;
  if (m.heads == 0) return bad(e, "num_attention_heads") == Status::ok;
  if (m.kv_heads == 0 || m.heads % m.kv_heads != 0) return bad(e, "num_key_value_heads", m.kv_heads) == Status::ok;
  if (m.head_dim == 0 || m.head_dim % 2 != 0) return bad(e, "head_dim", m.head_dim) == Status::ok;
  if (m.intermediate == 0) return bad(e, "intermediate_size") == Status::ok;
  if (m.dtype != DType::bf16 && m.dtype != DType::f16) return bad(e, "dtype") == Status::ok;
  if (!(m.rms_eps > 0.0f)) return bad(e, "rms_norm_eps") == Status::ok;
  if (!(m.attn_scale >= 0.0f)) return bad(e, "attention scale") == Status::ok;
  if (m.act != Activation::silu && m.act != Activation::gelu && m.act != Activation::gelu_tanh) {
    return bad(e, "hidden_act") == Status::ok;
  }
  return true;
}

bool valid_inference(const InferenceConfig& in, GenError& e) noexcept {
  if (in.batch == 0) return bad(e, "batch") == Status::ok;
  if (in.seq == 0) return bad(e, "seq") == Status::ok;
  if (in.phase == Phase::decode && in.kv_len == 0) return bad(e, "kv_len (decode needs kv_len >= 1)") == Status::ok;
  if (in.phase == Phase::decode && in.seq != 1) return bad(e, "seq (decode generates one token)", in.seq) == Status::ok;
  if (uint64_t{in.batch} * in.seq > 0xFFFF || uint64_t{in.kv_len} + in.seq > 0xFFFF) {
    return bad(e, "batch x seq or kv_len + seq beyond 65535") == Status::ok;
  }
  return true;
}

bool tp_ok(const ModelConfig& m, uint32_t t) noexcept {
  return t != 0 && m.heads % t == 0 && (m.kv_heads % t == 0 || t % m.kv_heads == 0);
}

uint64_t align64(uint64_t v) noexcept { return (v + 63) / 64 * 64; }

struct Placer {
  uint64_t next[2] = {0, 0};  // tag 1, tag 2
  void place(TensorInfo& t) noexcept {
    const uint32_t tag = t.role == TensorRole::weight || t.role == TensorRole::constant ? 1 : 2;
    uint64_t elems = 1;
    for (uint32_t i = 0; i < t.rank; ++i) elems *= t.shape[i];
    t.bytes = elems * dtype_size(t.dtype);
    t.device_addr = chip::sg2260::make_dma_address(tag, next[tag - 1]);
    next[tag - 1] = align64(next[tag - 1] + t.bytes);
  }
};

void define(MemoryMap& mp, TensorId id, TensorRole role, const char* name, DType dt, bool present,
            uint32_t d0, uint32_t d1 = 0, uint32_t d2 = 0, uint32_t d3 = 0) noexcept {
  TensorInfo& t = mp.tensors[static_cast<uint32_t>(id)];
  t.id = id;
  t.role = role;
  t.name = name;
  t.present = present;
  t.dtype = dt;
  const uint32_t dims[4] = {d0, d1, d2, d3};
  t.rank = 0;
  for (uint32_t i = 0; i < 4 && dims[i] != 0; ++i) t.shape[t.rank++] = dims[i];
}

void define_moe(const SizedLayer& p, MemoryMap& mp) noexcept;
void define_mla(const SizedLayer& p, MemoryMap& mp) noexcept;

void define_tensors(const SizedLayer& p, MemoryMap& mp) noexcept {
  const ModelConfig& m = p.model;
  const InferenceConfig& in = p.inference;
  const DType dt = m.dtype;
  const uint32_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim, B = in.batch, S = in.seq, K = in.kv_len;
  using R = TensorRole;
  define(mp, TensorId::hidden_states, R::input, "hidden_states", DType::f32, true, B, S, m.hidden);
  const bool gqa = m.type != ModelType::deepseek_v3;
  define(mp, TensorId::past_key, R::input, "past_key", dt, gqa && K > 0, B, m.kv_heads, K, m.head_dim);
  define(mp, TensorId::past_value, R::input, "past_value", dt, gqa && K > 0, B, m.kv_heads, K, m.head_dim);
  define(mp, TensorId::rope_cos, R::input, "rope_cos", DType::f32, true, S, m.head_dim);
  define(mp, TensorId::rope_sin, R::input, "rope_sin", DType::f32, true, S, m.head_dim);
  define(mp, TensorId::attn_mask, R::input, "attn_mask", DType::f32, S > 1, S, K + S);
  define(mp, TensorId::hidden_states_out, R::output, "hidden_states_out", DType::f32, true, B, S, m.hidden);
  define(mp, TensorId::present_key, R::output, "present_key", dt, gqa, B, m.kv_heads, S, m.head_dim);
  define(mp, TensorId::present_value, R::output, "present_value", dt, gqa, B, m.kv_heads, S, m.head_dim);
  define(mp, TensorId::input_layernorm, R::weight, "input_layernorm.weight", dt, true, m.hidden);
  define(mp, TensorId::q_proj_w, R::weight, "self_attn.q_proj.weight", dt, gqa || m.mla.q_lora_rank == 0,
         gqa ? q : m.heads * (m.mla.qk_nope_head_dim + m.head_dim), m.hidden);
  define(mp, TensorId::q_proj_b, R::weight, "self_attn.q_proj.bias", dt, m.qkv_bias, q);
  define(mp, TensorId::k_proj_w, R::weight, "self_attn.k_proj.weight", dt, gqa, kv, m.hidden);
  define(mp, TensorId::k_proj_b, R::weight, "self_attn.k_proj.bias", dt, m.qkv_bias, kv);
  define(mp, TensorId::v_proj_w, R::weight, "self_attn.v_proj.weight", dt, gqa, kv, m.hidden);
  define(mp, TensorId::v_proj_b, R::weight, "self_attn.v_proj.bias", dt, m.qkv_bias, kv);
  define(mp, TensorId::o_proj_w, R::weight, "self_attn.o_proj.weight", dt, true, m.hidden,
         gqa ? q : m.heads * m.mla.v_head_dim);
  define(mp, TensorId::o_proj_b, R::weight, "self_attn.o_proj.bias", dt, m.o_bias, m.hidden);
  define(mp, TensorId::q_norm, R::weight, "self_attn.q_norm.weight", dt, m.qk_norm, m.head_dim);
  define(mp, TensorId::k_norm, R::weight, "self_attn.k_norm.weight", dt, m.qk_norm, m.head_dim);
  define(mp, TensorId::post_attention_layernorm, R::weight, "post_attention_layernorm.weight", dt, true, m.hidden);
  const bool dense = !m.moe_layer;
  define(mp, TensorId::gate_proj_w, R::weight, "mlp.gate_proj.weight", dt, dense, m.intermediate, m.hidden);
  define(mp, TensorId::gate_proj_b, R::weight, "mlp.gate_proj.bias", dt, dense && m.mlp_bias, m.intermediate);
  define(mp, TensorId::up_proj_w, R::weight, "mlp.up_proj.weight", dt, dense, m.intermediate, m.hidden);
  define(mp, TensorId::up_proj_b, R::weight, "mlp.up_proj.bias", dt, dense && m.mlp_bias, m.intermediate);
  define(mp, TensorId::down_proj_w, R::weight, "mlp.down_proj.weight", dt, dense, m.hidden, m.intermediate);
  define(mp, TensorId::down_proj_b, R::weight, "mlp.down_proj.bias", dt, dense && m.mlp_bias, m.hidden);
  define_moe(p, mp);
  define_mla(p, mp);
  define(mp, TensorId::xn_exchange, R::scratch, "xn_exchange", dt, detail::sliced_residual(p), detail::pass_tokens(p),
         m.hidden);
  define(mp, TensorId::exp_taylor, R::constant, "gen.exp_taylor", DType::f32, true, detail::kExpTerms);
  define(mp, TensorId::erf_poly, R::constant, "gen.erf_poly", DType::f32, m.act == Activation::gelu, detail::kErfTerms);
}

void define_moe(const SizedLayer& p, MemoryMap& mp) noexcept {
  const ModelConfig& m = p.model;
  const bool on = m.moe_layer;
  const bool mixtral = m.type == ModelType::mixtral;
  const uint32_t E = m.moe.experts, I = m.moe.expert_intermediate, H = m.hidden;
  const uint32_t T = detail::pass_tokens(p), C = detail::expert_capacity(p);
  const uint32_t cores = p.parallel.cores;
  using R = TensorRole;
  const DType dt = m.dtype;
  const bool grouped = m.moe.routing == Routing::sigmoid_grouped;
  const uint32_t SI = m.moe.shared_intermediate;
  define(mp, TensorId::router_w, R::weight, mixtral ? "block_sparse_moe.gate.weight" : "mlp.gate.weight", dt, on, E, H);
  define(mp, TensorId::router_bias, R::weight, "mlp.gate.e_score_correction_bias", DType::f32, on && grouped, E);
  define(mp, TensorId::shared_gate_w, R::weight, "mlp.shared_experts.gate_proj.weight", dt, on && SI > 0, SI, H);
  define(mp, TensorId::shared_up_w, R::weight, "mlp.shared_experts.up_proj.weight", dt, on && SI > 0, SI, H);
  define(mp, TensorId::shared_down_w, R::weight, "mlp.shared_experts.down_proj.weight", dt, on && SI > 0, H, SI);
  define(mp, TensorId::experts_gate, R::weight,
         mixtral ? "block_sparse_moe.experts.{e}.w1.weight" : "mlp.experts.{e}.gate_proj.weight", dt, on, E, I, H);
  define(mp, TensorId::experts_up, R::weight,
         mixtral ? "block_sparse_moe.experts.{e}.w3.weight" : "mlp.experts.{e}.up_proj.weight", dt, on, E, I, H);
  define(mp, TensorId::experts_down, R::weight,
         mixtral ? "block_sparse_moe.experts.{e}.w2.weight" : "mlp.experts.{e}.down_proj.weight", dt, on, E, H, I);
  define(mp, TensorId::tri_lower, R::constant, "gen.tri_lower", DType::f32, on, T, T);
  // The combine gathers the experts' rows straight into LMEM (dma_gather_rows): no DDR copy.
  define(mp, TensorId::iota, R::constant, "gen.iota", DType::f32, on, E);
  define(mp, TensorId::expert_tokens, R::output, "expert_tokens", DType::f32, on, E);
  if (detail::moe_in_passes(p)) {  // moe_passes.cpp: every local expert's slots, the whole request's rows
    // moe_idx / moe_rw: per rank (a token's q-th choice among the core's experts), see rank_rows
    const uint32_t N = detail::request_tokens(p), L = (E + p.parallel.ep - 1) / p.parallel.ep;
    const uint32_t K = m.moe.top_k < L ? m.moe.top_k : L;
    define(mp, TensorId::moe_x, R::scratch, "moe_x", dt, on, cores, N, H);
    define(mp, TensorId::moe_idx, R::scratch, "moe_idx", DType::u32, on, cores, K, N);
    define(mp, TensorId::moe_xe, R::scratch, "moe_xe", dt, on, cores, L, C, H);
    define(mp, TensorId::moe_ye, R::scratch, "moe_ye", DType::f32, on, cores, L, C, H);
    define(mp, TensorId::moe_res, R::scratch, "moe_res", DType::f32, on, cores, N, H);
    define(mp, TensorId::moe_rw, R::scratch, "moe_rw", DType::f32, on, cores, K, N);
    define(mp, TensorId::moe_cnt, R::scratch, "moe_cnt", DType::f32, on, cores, E);
    return;
  }
  for (TensorId id : {TensorId::moe_res, TensorId::moe_rw, TensorId::moe_cnt}) {
    define(mp, id, R::scratch, id == TensorId::moe_res ? "moe_res" : id == TensorId::moe_rw ? "moe_rw" : "moe_cnt",
           DType::f32, false, 1);
  }
  define(mp, TensorId::moe_x, R::scratch, "moe_x", dt, on, cores, T, H);
  define(mp, TensorId::moe_idx, R::scratch, "moe_idx", DType::u32, on, cores, T);
  define(mp, TensorId::moe_xe, R::scratch, "moe_xe", dt, on, cores, C, H);
  define(mp, TensorId::moe_ye, R::scratch, "moe_ye", DType::f32, on, cores, C, H);
}

void define_mla(const SizedLayer& p, MemoryMap& mp) noexcept {
  const ModelConfig& m = p.model;
  const MlaConfig& a = m.mla;
  const bool on = m.type == ModelType::deepseek_v3, lora = on && a.q_lora_rank > 0;
  const uint32_t B = p.inference.batch, S = p.inference.seq, K = p.inference.kv_len;
  const uint32_t kvl = a.kv_lora_rank, rope = m.head_dim, qk = a.qk_nope_head_dim + rope;
  const DType dt = m.dtype;
  using R = TensorRole;
  define(mp, TensorId::past_kv_latent, R::input, "past_kv_latent", dt, on && K > 0, B, K, kvl);
  define(mp, TensorId::past_k_rope, R::input, "past_k_rope", dt, on && K > 0, B, K, rope);
  define(mp, TensorId::present_kv_latent, R::output, "present_kv_latent", dt, on, B, S, kvl);
  define(mp, TensorId::present_k_rope, R::output, "present_k_rope", dt, on, B, S, rope);
  define(mp, TensorId::q_a_proj_w, R::weight, "self_attn.q_a_proj.weight", dt, lora, a.q_lora_rank, m.hidden);
  define(mp, TensorId::q_a_layernorm, R::weight, "self_attn.q_a_layernorm.weight", dt, lora, a.q_lora_rank);
  define(mp, TensorId::q_b_proj_w, R::weight, "self_attn.q_b_proj.weight", dt, lora, m.heads * qk, a.q_lora_rank);
  define(mp, TensorId::kv_a_proj_w, R::weight, "self_attn.kv_a_proj_with_mqa.weight", dt, on, kvl + rope, m.hidden);
  define(mp, TensorId::kv_a_layernorm, R::weight, "self_attn.kv_a_layernorm.weight", dt, on, kvl);
  define(mp, TensorId::kv_b_proj_w, R::weight, "self_attn.kv_b_proj.weight", dt, on,
         m.heads * (a.qk_nope_head_dim + a.v_head_dim), kvl);
}

// Multiply-adds per token of the attention projections.
uint64_t attention_macs(const ModelConfig& m) noexcept {
  const uint64_t H = m.hidden, heads = m.heads;
  if (m.type != ModelType::deepseek_v3) {
    const uint64_t q = heads * m.head_dim, kv = uint64_t{m.kv_heads} * m.head_dim;
    return H * (q + 2 * kv) + q * H;
  }
  const MlaConfig& a = m.mla;
  const uint64_t qk = a.qk_nope_head_dim + m.head_dim;
  const uint64_t q = a.q_lora_rank > 0 ? H * a.q_lora_rank + uint64_t{a.q_lora_rank} * heads * qk : H * heads * qk;
  return q + H * (a.kv_lora_rank + m.head_dim) + uint64_t{a.kv_lora_rank} * heads * (a.qk_nope_head_dim + a.v_head_dim) +
         heads * a.v_head_dim * H;
}

void count_work(SizedLayer& p) noexcept {
  const ModelConfig& m = p.model;
  const uint64_t T = uint64_t{p.inference.batch} * p.inference.seq;
  const uint64_t ffn = m.moe_layer ? uint64_t{m.moe.experts} * m.hidden +
                                         3ull * m.moe.top_k * m.hidden * m.moe.expert_intermediate +
                                         3ull * m.hidden * m.moe.shared_intermediate
                                   : 3ull * m.hidden * m.intermediate;
  const uint64_t proj = attention_macs(m) + ffn;
  // Causal attention: token s sees K + s + 1 positions; QK^T and PV take the q/k and v head
  // widths in MACs (MLA counted in its expanded form: qk_nope + qk_rope and v_head_dim).
  const bool mla = m.type == ModelType::deepseek_v3;
  const uint64_t per_pos = mla ? uint64_t{m.mla.qk_nope_head_dim} + m.head_dim + m.mla.v_head_dim : 2ull * m.head_dim;
  uint64_t seen = 0;
  for (uint64_t s = 0; s < p.inference.seq; ++s) seen += p.inference.kv_len + s + 1;
  const uint64_t attn = uint64_t{p.inference.batch} * m.heads * per_pos * seen;
  p.flops = 2 * (T * proj + attn);
  uint64_t bytes = 0;
  for (const TensorInfo& t : p.memory.tensors) {
    if (t.present && t.role != TensorRole::scratch) bytes += t.bytes;
  }
  p.bytes_ddr = bytes;
}

}  // namespace

Status resolve_tp(const ModelConfig& model, const ParallelConfig& parallel, uint32_t& tp, GenError& error) noexcept {
  if (parallel.cores == 0 || parallel.cores > kMaxCores) {
    error = GenError{Status::gen_bad_config, "cores (1..8)", parallel.cores};
    return error.status;
  }
  if (model.heads == 0 || model.kv_heads == 0) {
    error = GenError{Status::gen_bad_config, "num_attention_heads / num_key_value_heads", 0};
    return error.status;
  }
  if (parallel.tp != 0) {
    if (parallel.tp > parallel.cores || !tp_ok(model, parallel.tp)) {
      error = GenError{Status::gen_bad_config,
                       "tp (must be <= cores, divide the attention heads and divide or be a multiple of "
                       "the kv heads)",
                       parallel.tp};
      return error.status;
    }
    tp = parallel.tp;
    return Status::ok;
  }
  for (uint32_t t = parallel.cores; t >= 1; --t) {
    if (tp_ok(model, t)) {
      tp = t;
      return Status::ok;
    }
  }
  tp = 1;
  return Status::ok;
}

namespace detail {
void define_tensor(MemoryMap& mp, TensorId id, TensorRole role, const char* name, DType dt, bool present, uint32_t d0,
                   uint32_t d1, uint32_t d2, uint32_t d3) noexcept {
  define(mp, id, role, name, dt, present, d0, d1, d2, d3);
}
void place_defined(MemoryMap& mp) noexcept {
  Placer placer;
  for (TensorInfo& t : mp.tensors) {
    if (t.present) placer.place(t);
  }
  mp.coeff_bytes = align64(placer.next[0]);
  mp.neuron_bytes = align64(placer.next[1]);
}
}  // namespace detail

Status set_tensor_address(SizedLayer& plan, TensorId id, uint64_t device_addr) noexcept {
  if (id >= TensorId::count) return Status::invalid_argument;
  TensorInfo& t = plan.memory.tensors[static_cast<uint32_t>(id)];
  const uint32_t tag = chip::sg2260::dma_tag(device_addr);
  if (!t.present || tag == 0 || tag > chip::sg2260::kMaxDdrTag) return Status::invalid_argument;
  t.device_addr = device_addr;
  return Status::ok;
}

Status place_tensors(SizedLayer& p, GenError& error) noexcept {
  if (!valid_model(p.model, error) || !valid_inference(p.inference, error)) return error.status;
  if (p.parallel.ep == 0) p.parallel.ep = p.parallel.cores;
  if (p.parallel.ep > p.parallel.cores) {
    error = GenError{Status::gen_bad_config, "ep (must be <= cores)", p.parallel.ep};
    return error.status;
  }
  if (!p.model.moe_layer) p.parallel.ep = 1;
  // The attention part of a MoE layer is planned as the layer without its MoE block (a dense
  // config, docs/whole-model.md section 3.2). The MLP part of an MLA layer is its MoE block, or
  // a dense layer's FFN (tensor-parallel attention in an expert group).
  if (p.parallel.part == LayerPart::attention && p.model.moe_layer) {
    error = GenError{Status::gen_bad_config, "part (the attention part of a MoE layer: plan it without its MoE block)", 0};
    return error.status;
  }
  if (!p.model.moe_layer && p.model.intermediate < p.parallel.tp) {
    error = GenError{Status::gen_bad_config, "intermediate_size (fewer FFN columns than tp cores)", p.model.intermediate};
    return error.status;
  }
  MemoryMap& mp = p.memory;
  mp = MemoryMap{};
  define_tensors(p, mp);
  Placer placer;
  for (TensorInfo& t : mp.tensors) {
    if (t.present) placer.place(t);
  }
  mp.coeff_bytes = align64(placer.next[0]);
  mp.neuron_bytes = align64(placer.next[1]);
  const uint64_t T = detail::pass_tokens(p);
  mp.l2_offset = 0;
  // Two reductions, each with a partial slot per participant and the result slot; none when
  // no reduction goes through L2 (one core computes everything).
  const bool uses_l2 = detail::attention_exchange(p) || (p.model.moe_layer && p.parallel.ep > 1);
  mp.l2_bytes = !uses_l2                    ? 0
                : detail::sliced_residual(p) ? 2 * detail::sliced_l2_area_bytes(p)
                                             : 2ull * (detail::l2_slots(p) + 1) * T * p.model.hidden * 4;
  if (detail::mla_lora_split(p)) mp.l2_bytes += T * detail::lora_width(p) * 4;  // after both areas
  if (detail::mla_rows_split(p)) mp.l2_bytes += detail::heads_exchange_bytes(p);  // after that
  if (mp.l2_bytes > chip::sg2260::kL2Bytes) {
    error = GenError{Status::gen_cannot_map, "L2 (tensor-parallel partial sums)", mp.l2_bytes};
    return error.status;
  }
  p.capacity = p.model.moe_layer ? detail::expert_capacity(p) : 0;
  count_work(p);
  return Status::ok;
}

namespace {
void put_f32(ByteSpan out, uint32_t index, float f) noexcept {
  uint32_t bits = 0;
  __builtin_memcpy(&bits, &f, 4);
  for (uint32_t b = 0; b < 4; ++b) out[index * 4 + b] = static_cast<uint8_t>(bits >> (8 * b));
}
}  // namespace

Status fill_constant(const SizedLayer& plan, TensorId id, ByteSpan out) noexcept {
  if (id == TensorId::exp_taylor) {
    if (out.size() < detail::kExpTerms * 4) return Status::buffer_too_small;
    // c_j = 1 / (16^j j!): the Taylor coefficients of exp(x / 16) in x.
    double c = 1.0;
    for (uint32_t j = 0; j < detail::kExpTerms; ++j) {
      put_f32(out, j, static_cast<float>(c));
      c /= 16.0 * (j + 1);
    }
    return Status::ok;
  }
  if (id == TensorId::erf_poly) {
    if (out.size() < detail::kErfTerms * 4) return Status::buffer_too_small;
    // Abramowitz & Stegun 7.1.26: erf(a) = 1 - (a1 t + ... + a5 t^5) exp(-a^2), t = 1/(1 + p a).
    const float c[detail::kErfTerms] = {0.0f, 0.254829592f, -0.284496736f, 1.421413741f, -1.453152027f, 1.061405429f};
    for (uint32_t j = 0; j < detail::kErfTerms; ++j) put_f32(out, j, c[j]);
    return Status::ok;
  }
  const uint32_t T = detail::pass_tokens(plan);
  if (id == TensorId::tri_lower) {
    if (out.size() < uint64_t{T} * T * 4) return Status::buffer_too_small;
    for (uint32_t r = 0; r < T; ++r) {
      for (uint32_t c = 0; c < T; ++c) put_f32(out, r * T + c, c < r ? 1.0f : 0.0f);
    }
    return Status::ok;
  }
  if (id == TensorId::head_iota) {  // col - kHeadTile: see the head's argmax (model.cpp)
    if (out.size() < uint64_t{kHeadTile} * 4) return Status::buffer_too_small;
    for (uint32_t j = 0; j < kHeadTile; ++j) put_f32(out, j, static_cast<float>(j) - static_cast<float>(kHeadTile));
    return Status::ok;
  }
  if (id == TensorId::moe_local) {  // the chip's experts (1 / 0), then e / S (moe_passes.cpp)
    const uint32_t E = plan.model.moe.experts, n = plan.parallel.expert_count;
    if (n == 0) return Status::invalid_argument;  // present only on a chip of an expert-parallel group
    if (out.size() < uint64_t{E} * 8) return Status::buffer_too_small;
    for (uint32_t e = 0; e < E; ++e) {
      put_f32(out, e, detail::local_expert(plan, e) ? 1.0f : 0.0f);
      put_f32(out, E + e, static_cast<float>(e / (E / n)));
    }
    return Status::ok;
  }
  if (id == TensorId::moe_own) {  // the chip's token rows (1 / 0): the token-selective combine
    const uint64_t first = plan.parallel.own_first, end = first + plan.parallel.own_count;
    if (plan.parallel.own_count == 0 || end > T) return Status::invalid_argument;
    if (out.size() < uint64_t{T} * 4) return Status::buffer_too_small;
    for (uint32_t t = 0; t < T; ++t) put_f32(out, t, t >= first && t < end ? 1.0f : 0.0f);
    return Status::ok;
  }
  if (id == TensorId::iota) {
    if (out.size() < uint64_t{plan.model.moe.experts} * 4) return Status::buffer_too_small;
    for (uint32_t e = 0; e < plan.model.moe.experts; ++e) put_f32(out, e, static_cast<float>(e));
    return Status::ok;
  }
  return Status::invalid_argument;
}

namespace detail {

// Rule: capacity (docs/generator.md section 3): C counts the request's tokens (all passes: the
// slots are numbered across them,
// moe_passes.cpp), at most every token.
uint32_t expert_capacity(const SizedLayer& p) noexcept {
  const uint32_t T = request_tokens(p);
  const MoeConfig& m = p.model.moe;
  uint32_t c = m.capacity;
  if (m.capacity_factor > 0.0 && m.experts > 0) {  // ceil without libm
    const double want = m.capacity_factor * T * m.top_k / m.experts;
    c = static_cast<uint32_t>(want < 4e9 ? want : 4e9);
    if (static_cast<double>(c) < want) ++c;
    if (c == 0) c = 1;
  }
  return c == 0 || c > T ? T : c;
}

uint32_t barriers_per_pass(const SizedLayer& p) noexcept {
  // Sliced residual: the attention's reduction takes three (reduce-scatter, sums of squares,
  // normalised x), the MLP's deferred one a barrier before the next down_proj (its L2 area read
  // by all); the layer ends with one more (sliced_program).
  if (sliced_residual(p)) return kBarriersPerReduction + 2;
  const uint32_t second = p.model.moe_layer ? p.parallel.ep : p.parallel.tp;
  const bool first_part = p.parallel.part != LayerPart::mlp, second_part = p.parallel.part != LayerPart::attention;
  return kBarriersPerReduction * ((first_part && attention_exchange(p) ? 1 : 0) + (second_part && second > 1 ? 1 : 0)) +
         (first_part && mla_lora_split(p) ? 1 : 0) + (first_part && mla_rows_split(p) ? 2 : 0);
}

bool sliced_residual(const SizedLayer& p) noexcept {
  // hidden >= tp: every core owns at least one column of the residual
  return !p.model.moe_layer && !is_mla(p) && p.parallel.tp > 1 && p.model.hidden >= p.parallel.tp &&
         p.inference.phase == Phase::prefill && p.parallel.part == LayerPart::whole;
}

bool attention_exchange(const SizedLayer& p) noexcept {
  return p.parallel.tp > 1 || (p.model.moe_layer && p.parallel.ep > p.parallel.tp);
}

bool mla_lora_split(const SizedLayer& p) noexcept {
  return is_mla(p) && p.parallel.tp > 1 && p.parallel.part != LayerPart::mlp;
}

uint32_t lora_width(const SizedLayer& p) noexcept {
  const MlaConfig& a = p.model.mla;
  return a.q_lora_rank + a.kv_lora_rank + p.model.head_dim;
}

uint64_t lora_exchange_offset(const SizedLayer& p) noexcept {
  return 2ull * (l2_slots(p) + 1) * pass_tokens(p) * p.model.hidden * 4;
}

bool mla_rows_split(const SizedLayer& p) noexcept {
  return mla_lora_split(p) && p.inference.phase == Phase::decode && p.chunk_tokens == 1 && p.chunk_batch >= 2;
}

uint64_t heads_exchange_offset(const SizedLayer& p) noexcept {
  return lora_exchange_offset(p) + uint64_t{pass_tokens(p)} * lora_width(p) * 4;
}

uint64_t heads_exchange_bytes(const SizedLayer& p) noexcept {
  const MlaConfig& a = p.model.mla;
  const uint64_t rows = uint64_t{pass_tokens(p)} * p.model.heads;  // [tokens, heads]
  return rows * (2ull * a.kv_lora_rank + p.model.head_dim) * dtype_size(p.model.dtype);
}

uint32_t l2_slots(const SizedLayer& p) noexcept {
  return p.parallel.tp > p.parallel.ep ? p.parallel.tp : p.parallel.ep;
}

Slices slices_for(const SizedLayer& plan, uint32_t core) noexcept {
  Slices s;
  const uint32_t tp = plan.parallel.tp;
  const ModelConfig& m = plan.model;
  s.moe_active = m.moe_layer && core < plan.parallel.ep;
  if (m.moe_layer) s.fl = m.moe.expert_intermediate;
  if (s.moe_active) {  // shared experts: their columns split evenly over the ep cores
    const uint32_t ep = plan.parallel.ep, si = m.moe.shared_intermediate;
    const uint32_t base = si / ep, extra = si % ep;
    s.sfl = base + (core < extra ? 1 : 0);
    s.sf0 = core * base + (core < extra ? core : extra);
  }
  if (core >= tp) return s;
  s.active = true;
  s.hl = m.heads / tp;
  s.h0 = core * s.hl;
  const uint32_t rep = m.heads / m.kv_heads;
  s.kv0 = s.h0 / rep;
  s.kvn = (s.h0 + s.hl - 1) / rep - s.kv0 + 1;
  if (!m.moe_layer) {
    const uint32_t base = m.intermediate / tp, extra = m.intermediate % tp;
    s.fl = base + (core < extra ? 1 : 0);
    s.f0 = core * base + (core < extra ? core : extra);
  }
  return s;
}

uint32_t kv_writer(const SizedLayer& plan, uint32_t kv) noexcept {
  for (uint32_t c = 0; c < plan.parallel.tp; ++c) {
    const Slices s = slices_for(plan, c);
    if (kv >= s.kv0 && kv < s.kv0 + s.kvn) return c;
  }
  return 0;
}

const TensorInfo& tensor(const Layer& l, TensorId id) noexcept { return l.ctx->sized->memory[id]; }

const char* op_name(TensorId id) noexcept {
  switch (id) {
    case TensorId::input_layernorm: return "input_layernorm";
    case TensorId::post_attention_layernorm: return "post_attention_layernorm";
    case TensorId::q_norm: return "q_norm";
    case TensorId::k_norm: return "k_norm";
    case TensorId::q_proj_w: case TensorId::q_proj_b: return "q_proj";
    case TensorId::k_proj_w: case TensorId::k_proj_b: return "k_proj";
    case TensorId::v_proj_w: case TensorId::v_proj_b: return "v_proj";
    case TensorId::o_proj_w: case TensorId::o_proj_b: return "o_proj";
    case TensorId::gate_proj_w: case TensorId::gate_proj_b: return "gate_proj";
    case TensorId::up_proj_w: case TensorId::up_proj_b: return "up_proj";
    case TensorId::down_proj_w: case TensorId::down_proj_b: return "down_proj";
    case TensorId::router_w: return "router";
    case TensorId::experts_gate: return "expert.gate_proj";
    case TensorId::experts_up: return "expert.up_proj";
    case TensorId::experts_down: return "expert.down_proj";
    case TensorId::q_a_proj_w: return "q_a_proj";
    case TensorId::q_a_layernorm: return "q_a_layernorm";
    case TensorId::q_b_proj_w: return "q_b_proj";
    case TensorId::kv_a_proj_w: return "kv_a_proj_with_mqa";
    case TensorId::kv_a_layernorm: return "kv_a_layernorm";
    case TensorId::kv_b_proj_w: return "kv_b_proj";
    case TensorId::shared_gate_w: return "shared_experts.gate_proj";
    case TensorId::shared_up_w: return "shared_experts.up_proj";
    case TensorId::shared_down_w: return "shared_experts.down_proj";
    default: return "tensor";
  }
}

}  // namespace detail
}  // namespace tilefw::gen
