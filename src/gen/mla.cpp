// Multi-head latent attention (deepseek_v3; docs/generator.md section 4, "deepseek_v3 attention
// (MLA)", and section 5),
// in the absorbed form for prefill and decode alike, so the only cache the layer reads is the
// latent one (past_kv_latent, past_k_rope: K x (kv_lora_rank + qk_rope_head_dim) elements per
// batch row: only the compressed cache is loaded, docs/generator.md section 1).
//
// Per token (the heads are split by tp; the LoRA down-projections' columns too, exchanged
// through L2 so every core holds their whole rows for the norms: lora_down_split):
//   q  = q_b_proj(q_a_layernorm(q_a_proj(x)))  or q_proj(x)      [heads x (nope + rope)]
//   [c, k_pe] = kv_a_proj_with_mqa(x);  latent = kv_a_layernorm(c)  (eps 1e-6 both norms)
//   q_pe, k_pe rotated (interleaved RoPE); latent and k_pe are the new cache entries.
// kv_b_proj's rows of head h are W_k(h) [nope, kv_lora] then W_v(h) [v, kv_lora]. Since
// k_nope(h) = latent W_k(h)^T, the score q_nope . k_nope = (q_nope W_k(h)) . latent: the
// query is moved into the latent space once (q_lat [tokens, kv_lora], MM2 nn against the
// weight rows as stored), and per batch row and head
//   scores = q_lat latent_all^T + q_pe k_pe_all^T (two MM2 nt), * scale (+ causal mask),
//   p = softmax, o_lat = p latent_all (MM2 nn) [S, kv_lora],
// and after all rows o(h) = o_lat W_v(h)^T (MM2 nt, the linear tiles) -> o_proj. Decode of
// two or more rows attends by whole batch rows instead (attend_latent_by_rows).
// The absorbed form rounds q_lat and o_lat to the model dtype where the expanded form rounds
// k_nope and v; both are one dtype rounding of a kv_lora-long f32 dot product per element
// (the reference's bound, test/gen/ref, covers either). Prefill could expand K/V instead
// (fewer MACs when S is large); one form keeps prefill and decode consistent by construction.
#include "layer.hpp"

namespace tilefw::gen::detail {

namespace {

constexpr float kLoraNormEps = 1e-6f;  // q_a_layernorm / kv_a_layernorm as transformers builds them

const MlaConfig& mla(const Layer& l) noexcept { return l.ctx->sized->model.mla; }
uint32_t qk_dim(const Layer& l) noexcept { return mla(l).qk_nope_head_dim + l.d; }

// q [tokens, local heads x (nope + rope)] f32 from the normalised x (q_a_proj's output in l.b.qa
// already when `qa_done`).
Status query(Layer& l, bool qa_done) noexcept {
  const MlaConfig& a = mla(l);
  const uint32_t qk = qk_dim(l), rows = l.s.hl * qk;
  if (a.q_lora_rank == 0) return linear(l, l.b.xn, l.H, TensorId::q_proj_w, l.s.h0 * qk, 0, rows, l.b.qf);
  if (!qa_done) TILEFW_TRY(linear(l, l.b.xn, l.H, TensorId::q_a_proj_w, 0, 0, a.q_lora_rank, l.b.qa));
  TILEFW_TRY(rms_norm_rows(l, l.b.qa, a.q_lora_rank, TensorId::q_a_layernorm, kLoraNormEps, l.b.qan));
  return linear(l, l.b.qan, a.q_lora_rank, TensorId::q_b_proj_w, l.s.h0 * qk, 0, rows, l.b.qf);
}

// Core `core`'s share [c0, c0 + w) of n columns over the tp cores (the wider shares first).
void lora_share(const Layer& l, uint32_t n, uint32_t& c0, uint32_t& w) noexcept {
  const uint32_t tp = l.ctx->sized->parallel.tp, core = l.ctx->core;
  const uint32_t base = n / tp, extra = n % tp;
  w = base + (core < extra ? 1 : 0);
  c0 = core * base + (core < extra ? core : extra);
}

// Columns from `col` of the exchange area [tokens, lora_width] f32 in L2.
Side lora_area(const Layer& l, uint32_t col) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  const uint32_t width = lora_width(p);
  Side s;
  s.addr = sg::make_dma_address(sg::kTagL2, sg::kL2Base + p.memory.l2_offset + lora_exchange_offset(p) + col * 4ull);
  s.cs = width;
  s.hs = width;
  return s;
}

// The LoRA down-projections split over the tp cores (mla_lora_split): each core computes its
// share of q_a_proj's and kv_a_proj_with_mqa's output columns (every core streamed both whole
// weights before: 30 MB of DeepSeek-V3's per core and step, 8 times over the chip), writes it
// to the exchange area in L2 and, after a barrier, reads the assembled rows [q_a | kv_a] that
// the norms need whole. The area is used once per pass; a pass's attention reduction (its
// barriers) lies between two uses.
Status lora_down_split(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const MlaConfig& a = mla(l);
  const uint32_t q = a.q_lora_rank, kvw = a.kv_lora_rank + l.d;
  uint32_t k0 = 0, kw = 0, q0 = 0, qw = 0;
  lora_share(l, kvw, k0, kw);
  lora_share(l, q, q0, qw);
  Buf kv_out = columns_of(l.b.kva, k0, kw), q_out = columns_of(l.b.qa, q0, qw);
  if (kw > 0) TILEFW_TRY(linear(l, l.b.xn, l.H, TensorId::kv_a_proj_w, k0, 0, kw, kv_out));
  if (qw > 0) TILEFW_TRY(linear(l, l.b.xn, l.H, TensorId::q_a_proj_w, q0, 0, qw, q_out));
  set_op(c, "lora_exchange");
  if (kw > 0) TILEFW_TRY(dma(c, Shape4{1, l.T, 1, kw}, DType::f32, side_local(l.b.kva, 0, k0), lora_area(l, q + k0)));
  if (qw > 0) TILEFW_TRY(dma(c, Shape4{1, l.T, 1, qw}, DType::f32, side_local(l.b.qa, 0, q0), lora_area(l, q0)));
  TILEFW_TRY(barrier(c));
  set_op(c, "lora_exchange");
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, kvw}, DType::f32, lora_area(l, q), side_local(l.b.kva, 0, 0)));
  if (q > 0) TILEFW_TRY(dma(c, Shape4{1, l.T, 1, q}, DType::f32, lora_area(l, 0), side_local(l.b.qa, 0, 0)));
  return Status::ok;
}

// The new latent entries and k_pe, q_nope in the model dtype and q_pe rotated. The kv path
// runs first: q (which may live in l.b.scratch) is produced after the last norm that uses it.
Status projections(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const MlaConfig& a = mla(l);
  const uint32_t kvl = a.kv_lora_rank, nope = a.qk_nope_head_dim, qk = qk_dim(l);
  const bool split = mla_lora_split(*c.sized);
  if (split) TILEFW_TRY(lora_down_split(l));
  else TILEFW_TRY(linear(l, l.b.xn, l.H, TensorId::kv_a_proj_w, 0, 0, kvl + l.d, l.b.kva));
  TILEFW_TRY(rms_norm_rows(l, l.b.kva, kvl, TensorId::kv_a_layernorm, kLoraNormEps, l.b.lat));
  TILEFW_TRY(rope(l, l.b.kva, kvl, 0, l.b.kpe, 1, a.rope_interleave));
  TILEFW_TRY(query(l, split));
  TILEFW_TRY(rope(l, l.b.qf, nope, qk, l.b.qpe, l.s.hl, a.rope_interleave));
  set_op(c, "q_nope");
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    TILEFW_TRY(ar(c, 14, Shape4{1, rows_in(l.T, g), l.s.hl, nope}, heads_view(l.b.qn, row, 0, nope, 1),
                  heads_view(l.b.qf, row, 0, qk, 1)));
  }
  return Status::ok;
}

// The lowest core writes the new cache entries ([B, S, ...] rows are the token rows).
Status store_latent(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "store_cache");
  if (c.core != 0) return Status::ok;
  const DType dt = c.sized->model.dtype;
  const uint32_t kvl = mla(l).kv_lora_rank;
  // [B, S] rows of the pass: a token chunk has batch 1 (rows s0 ..), a row pass every token
  const uint64_t es = dtype_size(dt), first = uint64_t{l.b0} * l.S_all + l.s0;
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, kvl}, dt, side_local(l.b.lat, 0, 0),
                 ddr_rows(tensor(l, TensorId::present_kv_latent).device_addr + first * kvl * es, kvl)));
  return dma(c, Shape4{1, l.T, 1, l.d}, dt, side_local(l.b.kpe, 0, 0),
             ddr_rows(tensor(l, TensorId::present_k_rope).device_addr + first * l.d * es, l.d));
}

// q_lat(h) = q_nope(h) W_k(h) for every token, local head i into columns [i kvl, (i+1) kvl).
Status absorb_query(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const MlaConfig& a = mla(l);
  const uint32_t kvl = a.kv_lora_rank, nope = a.qk_nope_head_dim, per_head = nope + a.v_head_dim;
  const TensorInfo& w = tensor(l, TensorId::kv_b_proj_w);
  const uint32_t es = static_cast<uint32_t>(dtype_size(w.dtype));
  set_op(c, "kv_b_proj.absorb");
  for (uint32_t i = 0; i < l.s.hl; ++i) {
    c.label.n = i;
    const uint64_t first = uint64_t{l.s.h0 + i} * per_head * kvl;
    TILEFW_TRY(dma(c, Shape4{1, nope, 1, kvl}, w.dtype, ddr_rows(w.device_addr + first * es, kvl),
                   side_local(l.b.wkb, 0, 0)));
    for (uint32_t g = 0; g < groups_of(l.T); ++g) {
      const uint32_t row = g * sg::kLanes;
      TILEFW_TRY(mm2(c, false, rows_in(l.T, g), kvl, nope, view(l.b.qlat, row, i * kvl),
                     view(l.b.qn, row, i * nope), view(l.b.wkb, 0, 0), false));
    }
  }
  return Status::ok;
}

// latent_all / k_pe_all [K + S, ...] = pass row b's cached rows (DDR) ++ its new rows (LMEM).
Status load_latent(Layer& l, uint32_t b) noexcept {
  Ctx& c = *l.ctx;
  const DType dt = c.sized->model.dtype;
  const uint32_t kvl = mla(l).kv_lora_rank, es = static_cast<uint32_t>(dtype_size(dt));
  if (l.K > 0) {
    const uint64_t lat = tensor(l, TensorId::past_kv_latent).device_addr + uint64_t{l.b0 + b} * l.K * kvl * es;
    const uint64_t kpe = tensor(l, TensorId::past_k_rope).device_addr + uint64_t{l.b0 + b} * l.K * l.d * es;
    TILEFW_TRY(dma(c, Shape4{1, l.K, 1, kvl}, dt, ddr_rows(lat, kvl), side_local(l.b.lat_all, 0, 0)));
    TILEFW_TRY(dma(c, Shape4{1, l.K, 1, l.d}, dt, ddr_rows(kpe, l.d), side_local(l.b.kpe_all, 0, 0)));
  }
  if (l.s0 > 0) {  // chunked prefill: the earlier chunks' rows from present_kv_latent / k_rope
    const uint64_t lat = tensor(l, TensorId::present_kv_latent).device_addr + uint64_t{l.b0 + b} * l.S_all * kvl * es;
    const uint64_t kpe = tensor(l, TensorId::present_k_rope).device_addr + uint64_t{l.b0 + b} * l.S_all * l.d * es;
    TILEFW_TRY(dma(c, Shape4{1, l.s0, 1, kvl}, dt, ddr_rows(lat, kvl), side_local(l.b.lat_all, l.K, 0)));
    TILEFW_TRY(dma(c, Shape4{1, l.s0, 1, l.d}, dt, ddr_rows(kpe, l.d), side_local(l.b.kpe_all, l.K, 0)));
  }
  TILEFW_TRY(dma(c, Shape4{1, l.S, 1, kvl}, dt, side_local(l.b.lat, b * l.S, 0), side_local(l.b.lat_all, l.K + l.s0, 0)));
  return dma(c, Shape4{1, l.S, 1, l.d}, dt, side_local(l.b.kpe, b * l.S, 0), side_local(l.b.kpe_all, l.K + l.s0, 0));
}

float scale_of(const Layer& l) noexcept {
  const float s = l.ctx->sized->model.attn_scale;
  return s > 0.0f ? s : inv_sqrt(qk_dim(l));  // (nope + rope)^-0.5 without yarn's mscale
}

// o_lat = softmax(q_lat latent^T + q_pe k_pe^T) latent for query rows [row, row + r).
Status attend_latent_rows(Layer& l, uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t kvl = mla(l).kv_lora_rank;
  const Shape4 sh{1, r, 1, l.nkv};
  const Opd sc = view(l.b.sc, row, 0);
  TILEFW_TRY(mm2(c, true, r, l.nkv, kvl, sc, view(l.b.qh, row, 0), view(l.b.lat_all, 0, 0), false));
  TILEFW_TRY(mm2(c, true, r, l.nkv, l.d, sc, view(l.b.qhr, row, 0), view(l.b.kpe_all, 0, 0), true));
  TILEFW_TRY(ar(c, 0, sh, sc, sc, imm(scale_of(l))));
  if (l.S > 1) TILEFW_TRY(ar(c, 2, sh, sc, sc, view(l.b.mask, row, 0)));
  TILEFW_TRY(softmax_rows(l, l.b.sc, row, r, l.nkv, l.b.mx, l.b.rs, &l.b.pb));
  return mm2(c, false, r, kvl, l.nkv, view(l.b.olb, row, 0), view(l.b.pb, row, 0), view(l.b.lat_all, 0, 0), false);
}

// Decode: every local head reads the same latent, so the heads of one batch row attend together,
// one head per lane (a one-row MM2 would leave 63 of the 64 lanes idle): q_lat and q_pe of row
// b move from side by side in lane b to rows 0.. of qh / qhr, and o_lat back the same way.
Status attend_latent_decode(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const DType dt = c.sized->model.dtype;
  const uint32_t kvl = mla(l).kv_lora_rank, hl = l.s.hl;
  for (uint32_t b = 0; b < l.B; ++b) {
    TILEFW_TRY(load_latent(l, b));
    TILEFW_TRY(dma_reshape(c, dt, Shape4{1, 1, hl, kvl}, side_heads_in_row(l.b.qlat, b, 0, kvl), Shape4{1, hl, 1, kvl},
                           side_local(l.b.qh, 0, 0)));
    TILEFW_TRY(dma_reshape(c, dt, Shape4{1, 1, hl, l.d}, side_heads_in_row(l.b.qpe, b, 0, l.d), Shape4{1, hl, 1, l.d},
                           side_local(l.b.qhr, 0, 0)));
    for (uint32_t g = 0; g < groups_of(hl); ++g) TILEFW_TRY(attend_latent_rows(l, g * sg::kLanes, rows_in(hl, g)));
    TILEFW_TRY(dma_reshape(c, dt, Shape4{1, hl, 1, kvl}, side_local(l.b.olb, 0, 0), Shape4{1, 1, hl, kvl},
                           side_heads_in_row(l.b.qlat, b, 0, kvl)));
  }
  return Status::ok;
}

Status attend_latent_rows_all(Layer& l) noexcept;

// An L2 side `offset` bytes into the heads' exchange areas, rows `cs` elements apart.
Side heads_area(const Layer& l, uint64_t offset, uint32_t cs) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  Side s;
  s.addr = sg::make_dma_address(sg::kTagL2, sg::kL2Base + p.memory.l2_offset + heads_exchange_offset(p) + offset);
  s.cs = cs;
  s.hs = cs;
  return s;
}

// Decode by whole batch rows (mla_rows_split): every head of a row reads the same latent cache,
// so the core that attends a row reads it once for the chip, where attending by local heads
// has every core read every row's cache (DeepSeek-V3 decode b32: 134 MB a core instead of 17).
// This core's q_lat / q_pe heads of every row go to L2; after a barrier the core attends its
// rows (b % tp == core), 64 heads at a time, one per lane (the same MM2 and softmax rows as by
// local heads: bit-identical); after a second barrier it reads its heads' o_lat of every row.
Status attend_latent_by_rows(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint64_t es = dtype_size(dt);
  const uint32_t kvl = mla(l).kv_lora_rank, H = p.model.heads, hl = l.s.hl, h0 = l.s.h0;
  const uint64_t qpe_at = uint64_t{l.T} * H * kvl * es, olat_at = qpe_at + uint64_t{l.T} * H * l.d * es;
  set_op(c, "attention_exchange");
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, hl * kvl}, dt, side_local(l.b.qlat, 0, 0), heads_area(l, h0 * kvl * es, H * kvl)));
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, hl * l.d}, dt, side_local(l.b.qpe, 0, 0),
                 heads_area(l, qpe_at + h0 * l.d * es, H * l.d)));
  TILEFW_TRY(barrier(c));
  for (uint32_t b = c.core; b < l.B; b += p.parallel.tp) {
    set_op(c, "attention");
    TILEFW_TRY(load_latent(l, b));
    for (uint32_t h = 0; h < H; h += sg::kLanes) {
      const uint32_t r = H - h < sg::kLanes ? H - h : sg::kLanes;
      const uint64_t row = uint64_t{b} * H + h;
      TILEFW_TRY(dma(c, Shape4{1, r, 1, kvl}, dt, heads_area(l, row * kvl * es, kvl), side_local(l.b.qh, 0, 0)));
      TILEFW_TRY(dma(c, Shape4{1, r, 1, l.d}, dt, heads_area(l, qpe_at + row * l.d * es, l.d), side_local(l.b.qhr, 0, 0)));
      TILEFW_TRY(attend_latent_rows(l, 0, r));
      TILEFW_TRY(dma(c, Shape4{1, r, 1, kvl}, dt, side_local(l.b.olb, 0, 0), heads_area(l, olat_at + row * kvl * es, kvl)));
    }
  }
  set_op(c, "attention_exchange");
  TILEFW_TRY(barrier(c));
  set_op(c, "attention_exchange");
  return dma(c, Shape4{1, l.T, 1, hl * kvl}, dt, heads_area(l, olat_at + h0 * kvl * es, H * kvl), side_local(l.b.qlat, 0, 0));
}

// Per batch row and local head: o_lat replaces q_lat in l.b.qlat (same columns). When the
// weight slots share the attention set's bytes, its buffers start after the slots' last use
// and the slots' next use waits for the attention's last (the tracker's hand-over).
Status attend_latent(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const Layer::AttendSet& a = l.attend;
  const uint32_t s0 = l.b.w[0].id, s1 = l.b.w[1].id + 1u;
  if (a.shared) hand_over(c, s0, s1, a.first, a.end);
  set_op(c, "attention");
  const bool by_rows = mla_rows_split(*c.sized);
  TILEFW_TRY(l.S > 1 ? attend_latent_rows_all(l) : by_rows ? attend_latent_by_rows(l) : attend_latent_decode(l));
  if (a.shared) hand_over(c, a.first, a.end, s0, s1);
  return Status::ok;
}

// Prefill: one head's seq rows at a time.
Status attend_latent_rows_all(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const DType dt = c.sized->model.dtype;
  const uint32_t kvl = mla(l).kv_lora_rank;
  for (uint32_t b = 0; b < l.B; ++b) {
    TILEFW_TRY(load_latent(l, b));
    for (uint32_t i = 0; i < l.s.hl; ++i) {
      TILEFW_TRY(dma(c, Shape4{1, l.S, 1, kvl}, dt, side_local(l.b.qlat, b * l.S, i * kvl), side_local(l.b.qh, 0, 0)));
      TILEFW_TRY(dma(c, Shape4{1, l.S, 1, l.d}, dt, side_local(l.b.qpe, b * l.S, i * l.d), side_local(l.b.qhr, 0, 0)));
      for (uint32_t g = 0; g < groups_of(l.S); ++g) TILEFW_TRY(attend_latent_rows(l, g * sg::kLanes, rows_in(l.S, g)));
      TILEFW_TRY(dma(c, Shape4{1, l.S, 1, kvl}, dt, side_local(l.b.olb, 0, 0), side_local(l.b.qlat, b * l.S, i * kvl)));
    }
  }
  return Status::ok;
}

// o(h) = o_lat(h) W_v(h)^T (f32), then the attention output in the model dtype.
Status expand_output(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const MlaConfig& a = mla(l);
  const uint32_t kvl = a.kv_lora_rank, v = a.v_head_dim, per_head = a.qk_nope_head_dim + v;
  for (uint32_t i = 0; i < l.s.hl; ++i) {
    Buf out = columns_of(l.b.ov, i * v, v);
    TILEFW_TRY(linear(l, columns_of(l.b.qlat, i * kvl, kvl), kvl, TensorId::kv_b_proj_w,
                      (l.s.h0 + i) * per_head + a.qk_nope_head_dim, 0, v, out));
  }
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    TILEFW_TRY(ar(c, 14, Shape4{1, rows_in(l.T, g), 1, l.s.hl * v}, view(l.b.ao, row, 0), view(l.b.ov, row, 0)));
  }
  return Status::ok;
}

}  // namespace

Status allocate_mla(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const MlaConfig& a = mla(l);
  const DType dt = c.sized->model.dtype;
  const uint32_t kvl = a.kv_lora_rank, hl = l.s.hl, qk = qk_dim(l);
  if (a.q_lora_rank > 0) {
    TILEFW_TRY(alloc(c, b.qa, DType::f32, l.T, a.q_lora_rank, "q_a_proj output [tokens, q_lora_rank] f32"));
    TILEFW_TRY(alloc(c, b.qan, dt, l.T, a.q_lora_rank, "q_a_layernorm output [tokens, q_lora_rank]"));
  }
  // q (f32) and the f32 attention output are short-lived: they share l.b.scratch when it is
  // wide enough (decode at full size is LMEM-bound: a token row holds whole hidden vectors).
  const bool share_q = hl * qk <= b.scratch.cols, share_o = hl * a.v_head_dim <= b.scratch.cols;
  if (share_q) b.qf = columns_of(b.scratch, 0, hl * qk);
  else TILEFW_TRY(alloc(c, b.qf, DType::f32, l.T, hl * qk, "q [tokens, local heads x (nope + rope)] f32"));
  if (share_o) b.ov = columns_of(b.scratch, 0, hl * a.v_head_dim);
  else TILEFW_TRY(alloc(c, b.ov, DType::f32, l.T, hl * a.v_head_dim, "attention output f32"));
  TILEFW_TRY(alloc(c, b.qn, dt, l.T, hl * a.qk_nope_head_dim, "q_nope [tokens, local heads x nope]"));
  TILEFW_TRY(alloc(c, b.qpe, dt, l.T, hl * l.d, "q_pe after RoPE [tokens, local heads x rope]"));
  TILEFW_TRY(alloc(c, b.kva, DType::f32, l.T, kvl + l.d, "kv_a_proj_with_mqa output f32"));
  TILEFW_TRY(alloc(c, b.lat, dt, l.T, kvl, "new latent entries [tokens, kv_lora_rank]"));
  TILEFW_TRY(alloc(c, b.kpe, dt, l.T, l.d, "new k_pe entries [tokens, rope]"));
  TILEFW_TRY(alloc(c, b.qlat, dt, l.T, hl * kvl, "q_lat / o_lat [tokens, local heads x kv_lora_rank]"));
  TILEFW_TRY(alloc(c, b.wkb, dt, a.qk_nope_head_dim, kvl, "one head's W_k of kv_b_proj [nope, kv_lora_rank]"));
  TILEFW_TRY(alloc(c, b.ao, dt, l.T, hl * a.v_head_dim, "attention output [tokens, local heads x v_head_dim]"));
  if (l.S > 1) {  // the partial-sum buffer is idle until o_proj, after the last masked score
    if (l.S <= l.T && l.nkv * 4 <= b.p.row_bytes) b.mask = carve(b.p, 0, DType::f32, l.nkv);
    else TILEFW_TRY(alloc(c, b.mask, DType::f32, l.S, l.nkv, "causal mask"));
  }
  // The attention's own buffers come last: only attend_latent touches them, so the weight
  // slots may share their bytes (allocate_buffers; the mask above is loaded at the pass start).
  l.attend.first = c.next_buf;
  l.attend.offset = c.lmem_used;
  TILEFW_TRY(alloc(c, b.lat_all, dt, l.nkv, kvl, "latent cache [kv_len + seq, kv_lora_rank]"));
  TILEFW_TRY(alloc(c, b.kpe_all, dt, l.nkv, l.d, "k_pe cache [kv_len + seq, rope]"));
  // Query rows attending at once: one head's seq rows, or in decode every local head's row.
  // By whole batch rows (mla_rows_split): up to 64 of all the heads at once.
  const uint32_t all = c.sized->model.heads < sg::kLanes ? c.sized->model.heads : sg::kLanes;
  const uint32_t qrows = l.S > 1 ? l.S : mla_rows_split(*c.sized) ? all : hl > 0 ? hl : 1;
  TILEFW_TRY(alloc(c, b.qh, dt, qrows, kvl, "query rows' q_lat [seq or local heads, kv_lora_rank]"));
  TILEFW_TRY(alloc(c, b.qhr, dt, qrows, l.d, "query rows' q_pe [seq or local heads, rope]"));
  TILEFW_TRY(alloc(c, b.sc, DType::f32, qrows, l.nkv, "scores [query rows, kv_len + seq] f32"));
  // The softmax's row-max scratch and the probabilities: in l.b.scratch too when it fits
  // (scratch is idle while attending; q was consumed before, the output comes after).
  const uint32_t mx_cols = (l.nkv + 1) / 2, mx_bytes = (mx_cols * 4 + 63) / 64 * 64;
  // (Rows of a carve may pass scratch's T rows inside its row groups: every lane has them.)
  if (qrows <= groups_of(l.T) * sg::kLanes && mx_bytes + l.nkv * dtype_size(dt) <= b.scratch.row_bytes) {
    b.mx = carve(b.scratch, 0, DType::f32, mx_cols);
    b.pb = carve(b.scratch, mx_bytes, dt, l.nkv);
  } else {
    TILEFW_TRY(alloc(c, b.mx, DType::f32, qrows, mx_cols, "row max scratch"));
    TILEFW_TRY(alloc(c, b.pb, dt, qrows, l.nkv, "probabilities"));
  }
  TILEFW_TRY(alloc(c, b.rs, DType::f32, qrows, 1, "row sums"));
  TILEFW_TRY(alloc(c, b.olb, dt, qrows, kvl, "query rows' o_lat [seq or local heads, kv_lora_rank]"));
  l.attend.end = c.next_buf;
  return Status::ok;
}

Status mla_attention(Layer& l) noexcept {
  TILEFW_TRY(rms_norm(l, TensorId::input_layernorm));
  TILEFW_TRY(projections(l));
  TILEFW_TRY(store_latent(l));
  TILEFW_TRY(absorb_query(l));
  TILEFW_TRY(attend_latent(l));
  TILEFW_TRY(expand_output(l));
  return linear(l, l.b.ao, l.s.hl * mla(l).v_head_dim, TensorId::o_proj_w, 0, l.s.h0 * mla(l).v_head_dim, l.H, l.b.p);
}

}  // namespace tilefw::gen::detail
