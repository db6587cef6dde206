// LMEM buffer allocation of one core's layer program: activations, attention, MLP and weight
// slots, in the layouts allocate_buffers describes.
#include "layer.hpp"

namespace tilefw::gen::detail {
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

}  // namespace tilefw::gen::detail
