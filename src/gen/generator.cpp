// The two passes and the per-core program of a dense decoder layer (graph: layer -> ops).
#include "layer.hpp"

namespace tilefw::gen {

Status place_tensors(SizedLayer& p, GenError& error) noexcept;  // plan.cpp

namespace detail {
namespace {

// Weight tiles: up to 256 rows (4 row groups of the 64 lanes) x 1024 columns, two slots so
// the GDMA loads tile k+1 while the TIU multiplies tile k. Shrunk when LMEM is short.
constexpr uint32_t kSlotRows = 256;
constexpr uint32_t kSlotCols = 1024;
// A MoE layer's slots (an MLA layer's MLP set: its attention and MLP take the same LMEM bytes
// in turn) take weight tiles as wide as the bytes allow: the experts' phase is generated on the
// control core at run time, which costs it per command, and wider tiles move the same bytes in
// fewer commands (a DeepSeek-V3 expert in 60 tiles instead of 168).
constexpr uint32_t kSlotColsWide = 1u << 16;
// Sliced residual: FFN intermediate columns whose gate/up are computed at once (the act(gate) x
// up of every column stays in LMEM in the model dtype for one down_proj).
constexpr uint32_t kFfnBlock = 512;

uint32_t min_u32(uint32_t a, uint32_t b) noexcept { return a < b ? a : b; }
uint32_t max_u32(uint32_t a, uint32_t b) noexcept { return a > b ? a : b; }

// Widths the MLA layer adds to the shared buffers (0 for GQA layers, so their layout stays).
uint32_t mla_width(const Layer& l) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  if (!is_mla(p)) return 0;
  return max_u32(p.model.mla.q_lora_rank, p.model.mla.kv_lora_rank + l.d);
}

// Columns of the local q and k heads: q_norm / k_norm square them in scratch.
uint32_t head_columns(const Layer& l) noexcept { return max_u32(l.s.hl, l.s.kvn) * l.d; }

Status allocate_sliced_activations(Layer& l) noexcept;
Status allocate_common_activations(Layer& l) noexcept;
Status allocate_projection_buffers(Layer& l) noexcept;

Status allocate_activations(Layer& l) noexcept {
  if (l.sliced) return allocate_sliced_activations(l);
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const DType dt = c.sized->model.dtype;
  const uint32_t wide = max_u32(l.H, mla_width(l));
  TILEFW_TRY(alloc(c, b.x, DType::f32, l.T, l.H, "residual x [tokens, hidden] f32"));
  TILEFW_TRY(alloc(c, b.xn, dt, l.T, l.H, "normalised x [tokens, hidden]"));
  l.ic = min_u32(max_u32(l.s.fl, l.s.sfl), kFfnChunk);
  TILEFW_TRY(alloc(c, b.scratch, DType::f32, l.T, max_u32(max_u32(wide, l.ic), head_columns(l)),
                   "scratch [tokens, max(hidden, ffn chunk, local heads)] f32"));
  TILEFW_TRY(alloc(c, b.p, DType::f32, l.T, l.H, "partial sums [tokens, hidden] f32"));
  TILEFW_TRY(allocate_common_activations(l));
  return allocate_projection_buffers(l);
}

// The sliced residual (see layer.hpp): the core's columns of x, whole rows one row group at a
// time, partial sums one output tile at a time, the FFN's gate/up in blocks of kFfnBlock.
Status allocate_sliced_activations(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const DType dt = c.sized->model.dtype;
  uint32_t c0 = 0, w = 0;
  slice_of(l, c.core, c.sized->parallel.tp, c0, w);
  l.xc0 = c0;
  l.xw = w;
  const uint32_t group = min_u32(l.T, sg::kLanes);
  TILEFW_TRY(alloc(c, b.x, DType::f32, l.T, w, "residual x [tokens, this core's hidden slice] f32"));
  if (c.sized->chunks > 1) {
    TILEFW_TRY(alloc(c, b.xp, DType::f32, l.T, w, "the previous pass's residual slice [tokens, slice] f32"));
  }
  TILEFW_TRY(alloc(c, b.ao, dt, l.T, l.s.hl * l.d, "attention output [tokens, local heads x head_dim]"));
  TILEFW_TRY(alloc(c, b.xn, dt, l.T, l.H, "normalised x [tokens, hidden]"));
  l.ic = min_u32(l.s.fl, kFfnBlock);
  TILEFW_TRY(alloc(c, b.scratch, DType::f32, group, max_u32(max_u32(l.H, l.ic), head_columns(l)),
                   "scratch [one row group, max(hidden, ffn block, local heads)] f32"));
  TILEFW_TRY(alloc(c, b.pt[0], DType::f32, l.T, min_u32(kSlotRows, l.H), "partial sum tile 0 [tokens, output tile] f32"));
  TILEFW_TRY(alloc(c, b.pt[1], DType::f32, l.T, min_u32(kSlotRows, l.H), "partial sum tile 1 [tokens, output tile] f32"));
  TILEFW_TRY(alloc(c, b.ssp, DType::f32, l.T, c.sized->parallel.tp, "every core's sums of squares [tokens, tp] f32"));
  return allocate_common_activations(l);
}

// The replicated bias buffer: the widest of hidden, the local q / kv heads and an FFN chunk.
Status allocate_bias(Layer& l) noexcept {
  const uint32_t qd = l.s.hl * l.d, kvd = l.s.kvn * l.d;
  return alloc(*l.ctx, l.b.bias, l.ctx->sized->model.dtype, sg::kLanes, max_u32(max_u32(l.H, qd), max_u32(kvd, l.ic)),
               "bias (replicated)");
}

// Whether any projection of the layer has a bias (the replicated bias buffer is needed).
bool has_biases(const SizedLayer& p) noexcept {
  for (TensorId id : {TensorId::q_proj_b, TensorId::k_proj_b, TensorId::v_proj_b, TensorId::o_proj_b,
                      TensorId::gate_proj_b, TensorId::up_proj_b, TensorId::down_proj_b}) {
    if (p.memory[id].present) return true;
  }
  return false;
}

Status allocate_common_activations(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint32_t wide = max_u32(l.H, mla_width(l));
  TILEFW_TRY(alloc(c, b.ss, DType::f32, l.T, max_u32(l.s.hl, 1), "row statistics"));
  TILEFW_TRY(alloc(c, b.wn, dt, sg::kLanes, wide, "norm weight (replicated)"));
  const uint32_t ones = max_u32(max_u32(max_u32(l.H, l.nkv), wide),
                                max_u32(l.d, p.model.moe_layer ? p.model.moe.experts : 1));
  TILEFW_TRY(alloc(c, b.ones, DType::f32, ones, 1, "ones vector"));
  TILEFW_TRY(alloc(c, b.tay, DType::f32, sg::kLanes, kExpTerms, "exp Taylor table (replicated)"));
  if (l.sliced && p.model.act == Activation::gelu) {  // loaded with the pass's constants
    TILEFW_TRY(alloc(c, b.erf, DType::f32, sg::kLanes, kErfTerms, "erf polynomial (replicated)"));
  }
  if (l.sliced && has_biases(p)) return allocate_bias(l);  // both phases use it: not overlaid
  return Status::ok;
}

// The q/k/v projections' outputs, RoPE's tables and temporaries (one row group of them when
// sliced), the bias and q/k norm weights (non-sliced layouts: the same order as always).
Status allocate_projection_buffers(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const bool mla = is_mla(p);
  const uint32_t qd = l.s.hl * l.d, kvd = mla ? l.d : l.s.kvn * l.d;
  if (!mla) {
    // Sliced: q shares the input norm's staged rows (dead once xn is computed; rms_norm_staged
    // hands the bytes over both ways).
    if (!l.sliced || !alloc_alias(c, b.q, b.stage, DType::f32, l.T, qd)) {
      TILEFW_TRY(alloc(c, b.q, DType::f32, l.T, qd, "q [tokens, local heads x head_dim] f32"));
    }
    TILEFW_TRY(alloc(c, b.kn, DType::f32, l.T, kvd, "k [tokens, local kv heads x head_dim] f32"));
    TILEFW_TRY(alloc(c, b.vn, DType::f32, l.T, kvd, "v f32"));
    TILEFW_TRY(alloc(c, b.qr, dt, l.T, qd, "q after RoPE"));
    TILEFW_TRY(alloc(c, b.kr, dt, l.T, kvd, "k after RoPE (new cache entries)"));
    TILEFW_TRY(alloc(c, b.vb, dt, l.T, kvd, "v (new cache entries)"));
  }
  TILEFW_TRY(alloc(c, b.cos, DType::f32, l.T, l.d, "rope cos"));
  TILEFW_TRY(alloc(c, b.sin, DType::f32, l.T, l.d, "rope sin"));
  const uint32_t trows = l.sliced ? min_u32(l.T, sg::kLanes) : l.T;
  TILEFW_TRY(alloc(c, b.ta, DType::f32, trows, max_u32(qd, kvd) / 2, "rope temporary"));
  TILEFW_TRY(alloc(c, b.tb, DType::f32, trows, max_u32(qd, kvd) / 2, "rope temporary"));
  if (mla) return Status::ok;  // MLA layers have no biases (valid_mla) and no q/k norm
  if (!l.sliced) TILEFW_TRY(allocate_bias(l));
  TILEFW_TRY(alloc(c, b.qkw, dt, sg::kLanes, l.d, "q_norm / k_norm weight (replicated)"));
  return Status::ok;
}

Status allocate_attention(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  // Query rows attending at once: one head's seq rows, or in decode the heads of one kv head.
  const uint32_t rep = p.model.heads / p.model.kv_heads;
  const uint32_t qrows = l.S == 1 ? max_u32(1, min_u32(rep, l.s.hl)) : l.S;
  const uint32_t group = min_u32(qrows, sg::kLanes);  // scores: one row group at a time
  // prefill attends one row group of queries at a time (decode: the heads of a kv head at once)
  const uint32_t qh_rows = l.S == 1 ? qrows : group;
  TILEFW_TRY(alloc(c, b.qh, dt, qh_rows, l.d, "query rows' q [row group or heads of a kv head, head_dim]"));
  TILEFW_TRY(alloc(c, b.ka, dt, l.nkv, l.d, "keys [kv_len + seq, head_dim]"));
  TILEFW_TRY(alloc(c, b.va, dt, l.nkv, l.d, "values [kv_len + seq, head_dim]"));
  TILEFW_TRY(alloc(c, b.sc, DType::f32, group, l.nkv, "scores [one row group of queries, kv_len + seq] f32"));
  if (l.sliced) {  // the row max is dead before the probabilities are written: one buffer
    TILEFW_TRY(alloc(c, b.pb, dt, group, l.nkv, "probabilities"));
    if (!alloc_alias(c, b.mx, b.pb, DType::f32, group, (l.nkv + 1) / 2)) {
      TILEFW_TRY(alloc(c, b.mx, DType::f32, group, (l.nkv + 1) / 2, "row max scratch"));
    }
    TILEFW_TRY(alloc(c, b.rs, DType::f32, group, 1, "row sums"));
  } else {
    TILEFW_TRY(alloc(c, b.mx, DType::f32, group, (l.nkv + 1) / 2, "row max scratch"));
    TILEFW_TRY(alloc(c, b.rs, DType::f32, group, 1, "row sums"));
    TILEFW_TRY(alloc(c, b.pb, dt, group, l.nkv, "probabilities"));
  }
  TILEFW_TRY(alloc(c, b.oh, dt, qh_rows, l.d, "query rows' output"));
  if (!l.sliced) {  // sliced: an activation (it waits for o_proj beside the MLP, see pipeline.cpp)
    TILEFW_TRY(alloc(c, b.ao, dt, l.T, l.s.hl * l.d, "attention output [tokens, local heads x head_dim]"));
  }
  if (l.S > 1) TILEFW_TRY(alloc(c, b.mask, DType::f32, group, l.nkv, "causal mask [one row group of queries, kv_len + seq]"));
  return Status::ok;
}

Status allocate_mlp_buffers(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  // In a MoE layer the FFN runs on an expert's C slots (run_expert), on every token only for
  // shared experts; a dense layer's MLP runs on every token. A MoE layer in passes runs its
  // experts in a set of their own (allocate_expert_set): here only the shared experts' FFN.
  const bool slots_only = p.model.moe_layer && p.model.moe.shared_intermediate == 0;
  if (slots_only && moe_in_passes(p)) return Status::ok;
  const uint32_t rows = slots_only ? min_u32(expert_capacity(p), l.T) : l.T;
  TILEFW_TRY(alloc(c, b.gt, DType::f32, rows, l.ic, "gate [tokens or expert slots, local ffn] f32"));
  TILEFW_TRY(alloc(c, b.up, DType::f32, rows, l.ic, "up [tokens or expert slots, local ffn] f32"));
  TILEFW_TRY(alloc(c, b.ab, dt, rows, l.sliced ? l.s.fl : l.ic, "act(gate) x up"));
  if (p.model.act == Activation::gelu) {
    TILEFW_TRY(alloc(c, b.ex, DType::f32, rows, l.ic, "gelu temporary"));
    // load_constants fills it at the pass's start: with the sliced residual's overlay it is an
    // activation (allocate_common_activations), or the attention's buffers would overwrite it
    if (!l.sliced) TILEFW_TRY(alloc(c, b.erf, DType::f32, sg::kLanes, kErfTerms, "erf polynomial (replicated)"));
  }
  return Status::ok;
}

// The widest weight tile any projection of the layer needs: rows (max_n) and columns (max_k).
void tile_extent(const Layer& l, uint32_t& max_n, uint32_t& max_k) noexcept {
  max_n = max_u32(max_u32(l.H, l.s.hl * l.d), max_u32(l.s.kvn * l.d, l.ic));
  max_k = max_u32(l.H, max_u32(l.s.hl * l.d, l.ic));
  if (is_mla(*l.ctx->sized)) {  // q_a / q_b / kv_a rows, kv_b's W_v(h) columns, o_proj's input
    const MlaConfig& a = l.ctx->sized->model.mla;
    max_n = max_u32(max_n, max_u32(mla_width(l), l.s.hl * (a.qk_nope_head_dim + l.d)));
    max_k = max_u32(max_k, max_u32(max_u32(a.q_lora_rank, a.kv_lora_rank), l.s.hl * a.v_head_dim));
  }
}

Status allocate_slots(Layer& l, uint32_t col_cap) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const DType dt = c.sized->model.dtype;
  // Weight slots get what is left, at most kSlotRows x col_cap each.
  uint32_t max_n = 0, max_k = 0;
  tile_extent(l, max_n, max_k);
  b.slot_rows = min_u32(kSlotRows, max_n);
  b.slot_cols = min_u32(col_cap, max_k);
  const uint32_t es = static_cast<uint32_t>(dtype_size(dt));
  while (b.slot_cols > 32) {
    const uint64_t slot = uint64_t{groups_of(b.slot_rows)} * ((b.slot_cols * es + 63) / 64 * 64);
    if (c.lmem_used + 2 * slot <= sg::kLaneBytes) break;
    b.slot_cols /= 2;
  }
  // Squeezed: one row group of weight rows as wide as the bytes allow holds more of the matrix
  // per tile than four narrow ones (rows are padded to 64 B), so fewer commands move it
  // (DeepSeek-V3 prefill's attention phase: 64 x 448 instead of 256 x 64).
  const uint32_t want_cols = min_u32(col_cap, max_k);
  if (b.slot_cols < want_cols && b.slot_rows > sg::kLanes && c.lmem_used < sg::kLaneBytes) {
    const uint32_t per_slot = (sg::kLaneBytes - c.lmem_used) / 2 / 64 * 64;
    const uint32_t cols = min_u32(want_cols, per_slot / es / 32 * 32);
    if (uint64_t{sg::kLanes} * cols > uint64_t{b.slot_rows} * b.slot_cols) {
      b.slot_rows = min_u32(sg::kLanes, max_n);
      b.slot_cols = cols;
    }
  }
  TILEFW_TRY(alloc(c, b.w[0], dt, b.slot_rows, b.slot_cols, "weight tile slot 0"));
  TILEFW_TRY(alloc(c, b.w[1], dt, b.slot_rows, b.slot_cols, "weight tile slot 1"));
  return Status::ok;
}

// MLA: the attention's weight slots. When whole tiles (kSlotRows x kSlotCols) do not fit after
// the attention's buffers, the slots take the bytes of the buffers only attend_latent touches
// (the latent cache, the scores: idle while weights stream; attend_latent hands the bytes over
// both ways). Every GDMA command costs a fixed startup on top of its bytes, so DeepSeek-V3
// decode moves its attention weights in 512 KB tiles this way instead of 16 KB ones (256 B per
// lane was left after the attention's buffers).
Status allocate_attention_slots(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t end = c.lmem_used;
  uint32_t max_n = 0, max_k = 0;
  tile_extent(l, max_n, max_k);
  const uint32_t es = static_cast<uint32_t>(dtype_size(c.sized->model.dtype));
  const uint64_t whole = uint64_t{groups_of(min_u32(kSlotRows, max_n))} * ((min_u32(kSlotCols, max_k) * es + 63) / 64 * 64);
  if (end + 2 * whole <= sg::kLaneBytes || l.attend.end == l.attend.first) return allocate_slots(l, kSlotCols);
  c.lmem_used = l.attend.offset;  // the slots from the attention set's start
  TILEFW_TRY(allocate_slots(l, kSlotCols));
  l.attend.shared = true;
  c.lmem_used = max_u32(end, c.lmem_used);
  return Status::ok;
}

// Token rows of the pass: batch-major [B, S_all, hidden] in DDR. A pass is contiguous there:
// token chunks have one row (B = 1, from token s0), row passes every token (s0 = 0, from row b0).
uint64_t token_offset(const Layer& l, uint32_t row_elems, uint32_t esize) noexcept {
  return (uint64_t{l.b0} * l.S_all + l.s0) * row_elems * esize;
}

Status store_output(Layer& l) noexcept { return store_output_columns(l, 0, l.H); }

}  // namespace

Status load_input(Layer& l) noexcept {
  set_op(*l.ctx, "load_input");
  const TensorInfo& hs = tensor(l, TensorId::hidden_states);
  Side src;
  src.addr = hs.device_addr + token_offset(l, l.H, 4) + uint64_t{l.xc0} * 4;
  src.cs = l.H;
  src.hs = l.H;
  if (l.xw == 0) return Status::ok;
  return dma(*l.ctx, Shape4{1, l.T, 1, l.xw}, DType::f32, src, side_local(l.b.x, 0, 0));
}

Status store_output_columns(Layer& l, uint32_t col, uint32_t cols) noexcept {
  set_op(*l.ctx, "store_output");
  const TensorInfo& out = tensor(l, TensorId::hidden_states_out);
  Side dst;
  dst.addr = out.device_addr + token_offset(l, l.H, 4) + uint64_t{col} * 4;
  dst.cs = l.H;
  dst.hs = l.H;
  return dma(*l.ctx, Shape4{1, l.T, 1, cols}, DType::f32, side_local(l.b.x, 0, col - l.xc0), dst);
}

Status attention_block(Layer& l) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  if (is_mla(p)) {
    TILEFW_TRY(mla_attention(l));
    return reduce_into_residual(l, TensorId::o_proj_b, p.parallel.tp, attention_exchange(p));
  }
  TILEFW_TRY(attention_front(l));
  TILEFW_TRY(linear(l, l.b.ao, l.s.hl * l.d, TensorId::o_proj_w, 0, l.s.h0 * l.d, l.H, l.b.p));
  if (p.parallel.part == LayerPart::attention) {  // the part ends: each core stores its slice
    TILEFW_TRY(drop_residual(l));
    return reduce_into_residual(l, TensorId::o_proj_b, p.parallel.tp, attention_exchange(p), AfterReduce::store_slice);
  }
  return reduce_into_residual(l, TensorId::o_proj_b, p.parallel.tp, attention_exchange(p));
}

namespace {

Status mlp_block(Layer& l) noexcept {
  TILEFW_TRY(rms_norm(l, TensorId::post_attention_layernorm));
  TILEFW_TRY(ffn(l, TensorId::gate_proj_w, TensorId::up_proj_w, TensorId::down_proj_w, l.s.f0, l.s.fl, 0, l.s.f0,
                 l.b.p));
  TILEFW_TRY(drop_residual(l));
  const uint32_t tp = l.ctx->sized->parallel.tp;  // the layer ends: each core stores its slice
  return reduce_into_residual(l, TensorId::down_proj_b, tp, tp > 1, AfterReduce::store_slice);
}

}  // namespace

Status attention_phase(Layer& l) noexcept {
  TILEFW_TRY(load_constants(l));
  if (l.ctx->sized->parallel.part == LayerPart::mlp) {  // the residual is the attention's all-reduced output
    return l.s.active ? load_input(l) : Status::ok;
  }
  if (!l.s.active) return join_attention_reduction(l);
  TILEFW_TRY(load_input(l));
  return attention_block(l);
}

namespace {

// One pass (the whole request, or one chunk of a chunked prefill) of one core.
Status core_pass(Layer& l) noexcept {
  Ctx& ctx = *l.ctx;
  const SizedLayer& p = *ctx.sized;
  const bool moe = p.model.moe_layer;
  TILEFW_TRY(attention_phase(l));
  if (l.overlay.end != l.overlay.second) {  // MLA: the MLP's buffers reuse the attention's bytes
    enter_overlay(ctx, l.overlay);
    l.b.use(l.b.next);
  }
  if (p.parallel.part == LayerPart::attention) {
    // the attention part ends with its reduction (attention_block): no MLP
  } else if (moe && l.s.moe_active) {
    TILEFW_TRY(moe_block(l));
  } else if (moe) {
    TILEFW_TRY(moe_barriers_only(l));
  } else {
    TILEFW_TRY(mlp_block(l));
  }
  if (ctx.core == 0 && !l.output_stored) TILEFW_TRY(store_output(l));  // x whole on core 0
  l.output_stored = false;
  if (l.overlay.end != l.overlay.second) {  // the next chunk's attention: its own slots again
    leave_overlay(ctx, l.overlay);
    l.b.use(l.b.first);
  }
  return Status::ok;
}

// The experts' phase straight from its boundary, as the control core generates it: the layer
// state there (buffers, overlay, pass) is set up without emitting phase 1's program again.
Status experts_phase_program(Layer& l) noexcept {
  Ctx& ctx = *l.ctx;
  const SizedLayer& p = *ctx.sized;
  if (moe_in_passes(p)) {
    set_pass(l, p.chunks - 1);
    return moe_pass_experts(l);
  }
  set_pass(l, 0);
  if (l.overlay.end != l.overlay.second) {
    enter_overlay(ctx, l.overlay);
    l.b.use(l.b.next);
  }
  TILEFW_TRY(l.s.moe_active ? moe_block_experts(l) : moe_barriers_only(l));
  if (ctx.core == 0 && !l.output_stored) TILEFW_TRY(store_output(l));  // x whole on core 0
  return Status::ok;
}

// One core's whole program. Inactive cores take part in the same barriers (barriers_per_pass
// of them per pass) and end.
Status core_program(Ctx& ctx) noexcept {
  const SizedLayer& p = *ctx.sized;
  if (p.program != Program::layer) return model_end_program(ctx);  // model.cpp
  Layer l;
  l.ctx = &ctx;
  l.s = slices_for(p, ctx.core);
  l.B = p.chunk_batch;  // rows of one pass
  l.S_all = p.inference.seq;
  l.S = p.chunk_tokens;  // buffers are sized for a whole pass
  l.K = p.inference.kv_len;
  l.T = l.B * l.S;
  l.nkv = l.K + l.S_all;
  l.H = p.model.hidden;
  l.d = p.model.head_dim;
  l.sliced = sliced_residual(p);
  l.xw = l.H;  // allocate_activations narrows it to the core's slice when sliced
  set_op(ctx, "barrier");
  if (!l.s.active && !l.s.moe_active) {
    const uint32_t n = barriers_per_pass(p) * p.chunks + (sliced_residual(p) ? 1 : 0);
    // The MoE reductions' barriers (one per pass) come after the experts' phase boundary.
    const uint32_t late = p.model.moe_layer && p.parallel.ep > 1 ? kBarriersPerReduction * p.chunks : 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (i == n - late) phase_boundary(ctx);
      TILEFW_TRY(barrier(ctx));
    }
    if (late == 0) phase_boundary(ctx);
    return finish(ctx);
  }
  TILEFW_TRY(allocate_buffers(l));
  if (l.sliced) {
    TILEFW_TRY(sliced_program(l));  // pipeline.cpp
    return finish(ctx);
  }
  if (ctx.phase.phase == 2 && p.model.moe_layer && !ctx.phase.replay) {
    TILEFW_TRY(experts_phase_program(l));
    return finish(ctx);
  }
  if (moe_in_passes(p)) {
    TILEFW_TRY(moe_pass_program(l));  // moe_passes.cpp
    return finish(ctx);
  }
  for (uint32_t i = 0; i < p.chunks; ++i) {
    set_pass(l, i);
    TILEFW_TRY(core_pass(l));
  }
  return finish(ctx);
}

// Runs one core's program: counting (out == nullptr: sizes into `bytes` / `counts`) or writing.
// `expect`: the sizes pass 2 must produce (the plan's for a static layer).
Status run_core(const SizedLayer& plan, uint32_t core, const StreamBuffers* out, uint32_t& lmem,
                uint64_t (&bytes)[kEngines], uint32_t (&counts)[kEngines], GenError& error,
                const OpSink* ops = nullptr, const PhaseRequest& phase = PhaseRequest{},
                const uint64_t* expect_bytes = nullptr, const uint32_t* expect_counts = nullptr,
                bool exact = true) noexcept {
  Ctx ctx;
  ctx.sized = &plan;
  ctx.core = core;
  ctx.error = &error;
  ctx.phase = phase;
  const bool counting = out == nullptr;
  if (expect_bytes == nullptr) expect_bytes = plan.stream_bytes[core];
  if (expect_counts == nullptr) expect_counts = plan.stream_commands[core];
  ctx.tiu.init(cmd::Engine::tiu, counting ? ByteSpan() : out->stream[core][0], counting);
  ctx.gdma.init(cmd::Engine::gdma, counting ? ByteSpan() : out->stream[core][1], counting);
  ctx.sdma.init(cmd::Engine::sdma, counting ? ByteSpan() : out->stream[core][2], counting);
  for (Stream* s : {&ctx.tiu, &ctx.gdma, &ctx.sdma}) {
    s->label_with(ops, &ctx.label, core);
    s->mute(phase.phase == 2);  // phase 2 starts at the boundary
  }
  const Status s = core_program(ctx);
  if (s != Status::ok) {
    if (error.status == Status::ok) error = GenError{s, "stream emission", core};
    return s;
  }
  lmem = ctx.lmem_used;
  const Stream* streams[3] = {&ctx.tiu, &ctx.gdma, &ctx.sdma};
  for (uint32_t e = 0; e < kEngines; ++e) {
    bytes[e] = streams[e]->bytes();
    counts[e] = streams[e]->count();
    if (!counting && exact && (bytes[e] != expect_bytes[e] || counts[e] != expect_counts[e])) {
      error = GenError{Status::gen_plan_mismatch, "stream size differs from the plan", core};
      return error.status;
    }
  }
  return Status::ok;
}

}  // namespace

// MLA layers and the sliced residual overlay the attention buffers with the MoE / MLP ones (the
// same LMEM bytes, the attention's dead before the MLP starts; enter_overlay() orders the two,
// see emit.hpp): [activations][max(attention + slots, MoE + MLP + slots)]; the sliced residual's
// attention set also holds the projections' outputs and the input norm's staged rows, which is
// what lets Llama-3-8B prefill run in passes of 512 tokens. Other layers keep the plain layout
// [activations][attention][MoE][MLP][slots] (decode streams unchanged).
Status allocate_buffers(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const bool moe = c.sized->model.moe_layer;
  TILEFW_TRY(allocate_activations(l));
  if (!is_mla(*c.sized) && !l.sliced) {
    TILEFW_TRY(allocate_attention(l));
    if (moe) TILEFW_TRY(allocate_moe(l));
    TILEFW_TRY(allocate_mlp_buffers(l));
    TILEFW_TRY(allocate_slots(l, moe ? kSlotColsWide : kSlotCols));
    return moe_in_passes(*c.sized) ? allocate_expert_set(l) : Status::ok;
  }
  // Each phase has its own pair of weight slots, sized by what its buffers leave.
  const uint32_t mark = c.lmem_used;
  l.overlay.first = c.next_buf;
  if (l.sliced) {  // the input norm's staged rows, the projections' and attention's buffers
    TILEFW_TRY(alloc(c, l.b.stage, DType::f32, min_u32(l.T, sg::kLanes), l.H,
                     "whole residual rows [one row group, hidden] f32"));
    TILEFW_TRY(allocate_projection_buffers(l));
    TILEFW_TRY(allocate_attention(l));
  } else {
    TILEFW_TRY(allocate_mla(l));
  }
  TILEFW_TRY(l.sliced ? allocate_slots(l, kSlotCols) : allocate_attention_slots(l));
  const uint32_t attention_end = c.lmem_used;
  Bufs& b = l.b;
  const Bufs::SlotSet attention = b.slots();
  c.lmem_used = mark;
  l.overlay.second = c.next_buf;
  if (moe) TILEFW_TRY(allocate_moe(l));
  TILEFW_TRY(allocate_mlp_buffers(l));
  TILEFW_TRY(allocate_slots(l, is_mla(*c.sized) || moe ? kSlotColsWide : kSlotCols));
  l.overlay.end = c.next_buf;
  b.next = b.slots();
  b.first = attention;
  b.use(attention);
  c.lmem_used = max_u32(attention_end, c.lmem_used);
  return moe_in_passes(*c.sized) ? allocate_expert_set(l) : Status::ok;
}

}  // namespace detail

namespace {

// Plans one pass size (`chunk` tokens of `rows` batch rows): memory, then every core's streams
// counted. Passes split the tokens (prefill) or the rows (decode), never both.
}  // namespace

namespace detail {
Status count_streams(SizedLayer& plan, GenError& error) noexcept {
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    uint32_t lmem = 0;
    TILEFW_TRY(run_core(plan, c, nullptr, lmem, plan.stream_bytes[c], plan.stream_commands[c], error));
    if (lmem > plan.memory.lmem_bytes_per_lane) plan.memory.lmem_bytes_per_lane = lmem;
  }
  return Status::ok;
}
}  // namespace detail

namespace {

Status choose_passes(SizedLayer& plan, uint32_t chunk, uint32_t rows, GenError& error) noexcept {
  plan.chunk_tokens = chunk;
  plan.chunk_batch = rows;
  // seq or batch 0 is refused by place_tensors
  if (rows != 0 && rows < plan.inference.batch) {
    plan.chunks = plan.inference.batch / rows;
  } else {
    plan.chunks = chunk == 0 ? 1 : plan.inference.seq / chunk;
  }
  plan.memory = MemoryMap{};
  for (uint32_t c = 0; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      plan.stream_bytes[c][e] = 0;
      plan.stream_commands[c][e] = 0;
    }
  }
  TILEFW_TRY(place_tensors(plan, error));
  return detail::count_streams(plan, error);
}

}  // namespace

Status size_layer(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                  SizedLayer& plan, GenError& error) noexcept {
  error = GenError{};
  plan = SizedLayer{};
  plan.model = model;
  plan.inference = inference;
  plan.parallel = parallel;
  TILEFW_TRY(resolve_tp(model, parallel, plan.parallel.tp, error));
  const uint32_t S = inference.seq;
  if (inference.chunk != 0) {  // an explicit chunk size
    if (inference.phase != Phase::prefill || inference.batch != 1 || inference.chunk > S || S % inference.chunk != 0) {
      error = GenError{Status::gen_bad_config, "chunk (prefill, batch 1, dividing seq)", inference.chunk};
      return error.status;
    }
    return choose_passes(plan, inference.chunk, inference.batch, error);
  }
  const uint32_t B = inference.batch;
  if (inference.decode_chunk != 0) {  // an explicit number of rows per pass
    if (inference.phase != Phase::decode || inference.decode_chunk > B || B % inference.decode_chunk != 0) {
      error = GenError{Status::gen_bad_config, "decode_chunk (decode, dividing batch)", inference.decode_chunk};
      return error.status;
    }
    return choose_passes(plan, S, inference.decode_chunk, error);
  }
  Status s = choose_passes(plan, S, B, error);
  // A batch-1 prefill too large for LMEM / L2 in one pass runs in chunks of 1024, 512, ... 64
  // tokens (the largest that maps and divides the sequence).
  const bool chunkable = inference.phase == Phase::prefill && inference.batch == 1;
  for (uint32_t chunk = 1024; s == Status::gen_cannot_map && chunkable && chunk >= 64; chunk /= 2) {
    if (chunk >= S || S % chunk != 0) continue;
    const GenError first = error;
    error = GenError{};
    s = choose_passes(plan, chunk, B, error);
    if (s == Status::gen_cannot_map && chunk == 64) error = first;  // report the whole-sequence reason
  }
  // A decode batch too large for LMEM in one pass runs in the fewest passes of equal rows that
  // map (rows are independent in decode; every pass streams the weights again). A failing
  // attempt stops at its first LMEM buffer, before any stream is counted.
  const bool row_passes = inference.phase == Phase::decode && B > 1;
  if (s == Status::gen_cannot_map && row_passes) {
    const GenError whole = error;
    for (uint32_t passes = 2; passes <= B; ++passes) {
      if (B % passes != 0) continue;
      const uint32_t rows = B / passes;
      error = GenError{};
      s = choose_passes(plan, S, rows, error);
      if (s != Status::gen_cannot_map) return s;
    }
    error = whole;  // report the whole-batch reason
  }
  return s;
}

Status emit_core(const SizedLayer& plan, uint32_t core, const StreamBuffers& buffers, GenError& error,
                 const OpSink& ops) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores) {
    error = GenError{Status::invalid_argument, "core (beyond the plan's cores)", core};
    return error.status;
  }
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (buffers.stream[core][e].size() != plan.stream_bytes[core][e]) {
      error = GenError{Status::gen_plan_mismatch, "stream buffer size differs from plan.stream_bytes", core};
      return error.status;
    }
  }
  uint32_t lmem = 0;
  uint64_t bytes[kEngines] = {};
  uint32_t counts[kEngines] = {};
  return detail::run_core(plan, core, &buffers, lmem, bytes, counts, error, &ops);
}

Status size_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase, uint64_t (&bytes)[kEngines],
                  uint32_t (&commands)[kEngines], GenError& error) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores || phase.phase > 2 || (phase.phase == 2 && plan.model.moe_layer && phase.expert_tokens == nullptr)) {
    error = GenError{Status::invalid_argument, "phase request", core};
    return error.status;
  }
  uint32_t lmem = 0;
  return detail::run_core(plan, core, nullptr, lmem, bytes, commands, error, nullptr, phase);
}

Status emit_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase, const StreamBuffers& buffers,
                  uint64_t (&used)[kEngines], GenError& error, const OpSink& ops) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores || phase.phase > 2 || (phase.phase == 2 && plan.model.moe_layer && phase.expert_tokens == nullptr)) {
    error = GenError{Status::invalid_argument, "phase request", core};
    return error.status;
  }
  if (phase.memory != nullptr) {  // every command starts unchecked; the copies mark theirs
    for (const Span<uint8_t>& bits : phase.checked) {
      for (uint8_t& b : bits) b = 0;
    }
  }
  uint32_t lmem = 0;
  uint32_t counts[kEngines] = {};
  return detail::run_core(plan, core, &buffers, lmem, used, counts, error, &ops, phase, nullptr, nullptr, false);
}

Status emit_layer(const SizedLayer& plan, const StreamBuffers& buffers, GenError& error, const OpSink& ops) noexcept {
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) TILEFW_TRY(emit_core(plan, c, buffers, error, ops));
  return Status::ok;
}

}  // namespace tilefw::gen
