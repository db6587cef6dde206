// Causal GQA attention of the core's heads, per batch row and kv head:
//   keys/values [K + S, head_dim] = past cache rows (DDR) ++ the new rows (LMEM),
//   per query head: scores = q k^T (MM2 nt) * 1/sqrt(head_dim) + mask (prefill), row max by an
//   AR max halving tree, exp(scores - max) (SFU taylor, see norm.cpp), row sums by MM2 with the
//   ones vector, probabilities = e / sum rounded to the model dtype, out = p v (MM2 nn).
// Decode (S = 1) reads K cached positions and needs no mask. Query rows are processed in
// chunks of 64 (one lane each).
#include "layer.hpp"

namespace tilefw::gen::detail {

// 1 / sqrt(n) rounded to f32, by Newton's iteration in double: no libm, the same bits on
// every target.
float inv_sqrt(uint32_t n) noexcept {
  double y = 1.0;  // scaled into n y^2 in (0.25, 1], where the iteration converges
  while (y * y * n > 1.0) y *= 0.5;
  while (y * y * n <= 0.25) y *= 2.0;
  for (int i = 0; i < 60; ++i) y = y * (1.5 - 0.5 * n * y * y);
  return static_cast<float>(y);
}

namespace {

// KA/VA <- the K cached rows of (pass row b, kv) followed by the S new rows of local kv head j.
Status load_kv(Layer& l, uint32_t b, uint32_t j) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint32_t kv = l.s.kv0 + j;
  const Shape4 past{1, l.K, 1, l.d}, fresh{1, l.S, 1, l.d};
  if (l.K > 0) {
    const uint64_t off = (uint64_t{l.b0 + b} * p.model.kv_heads + kv) * l.K * l.d * dtype_size(dt);
    TILEFW_TRY(dma(c, past, dt, ddr_rows(tensor(l, TensorId::past_key).device_addr + off, l.d), side_local(l.b.ka, 0, 0)));
    TILEFW_TRY(dma(c, past, dt, ddr_rows(tensor(l, TensorId::past_value).device_addr + off, l.d), side_local(l.b.va, 0, 0)));
  }
  if (l.s0 > 0) {  // chunked prefill: the earlier chunks' rows, as present_key/value hold them
    const uint64_t off = (uint64_t{l.b0 + b} * p.model.kv_heads + kv) * l.S_all * l.d * dtype_size(dt);
    const Shape4 done{1, l.s0, 1, l.d};
    TILEFW_TRY(dma(c, done, dt, ddr_rows(tensor(l, TensorId::present_key).device_addr + off, l.d), side_local(l.b.ka, l.K, 0)));
    TILEFW_TRY(dma(c, done, dt, ddr_rows(tensor(l, TensorId::present_value).device_addr + off, l.d), side_local(l.b.va, l.K, 0)));
  }
  TILEFW_TRY(dma(c, fresh, dt, side_local(l.b.kr, b * l.S, j * l.d), side_local(l.b.ka, l.K + l.s0, 0)));
  return dma(c, fresh, dt, side_local(l.b.vb, b * l.S, j * l.d), side_local(l.b.va, l.K + l.s0, 0));
}

// Softmax(q k^T * scale + mask) v for query rows [row, row + r) (r <= 64, one row group) of
// l.b.qh into l.b.oh, with mask rows [mask_row, mask_row + r) (prefill). The scores,
// probabilities and row statistics of one group at a time live in rows [0, r) of their buffers
// (a long prefill chunk does not hold S x nkv of them).
Status attend_rows(Layer& l, uint32_t row, uint32_t r, uint32_t mask_row = 0) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, l.nkv};
  const Opd sc = view(l.b.sc, 0, 0);
  TILEFW_TRY(mm2(c, true, r, l.nkv, l.d, sc, view(l.b.qh, row, 0), view(l.b.ka, 0, 0), false));
  const float scale = c.sized->model.attn_scale > 0.0f ? c.sized->model.attn_scale : inv_sqrt(l.d);
  TILEFW_TRY(ar(c, 0, sh, sc, sc, imm(scale)));
  if (l.S > 1) TILEFW_TRY(ar(c, 2, sh, sc, sc, view(l.b.mask, mask_row, 0)));
  TILEFW_TRY(softmax_rows(l, l.b.sc, 0, r, l.nkv, l.b.mx, l.b.rs, &l.b.pb));
  return mm2(c, false, r, l.d, l.nkv, view(l.b.oh, row, 0), view(l.b.pb, 0, 0), view(l.b.va, 0, 0), false);
}

}  // namespace

// mx[:, 0] = max (eu 4) or min (eu 5) over `cols` columns of src, rows [row, row + r): each
// step halves the width; the upper half is read from columns the step does not write.
Status row_extreme(Layer& l, uint32_t eu, const Buf& src0, const Buf& mx, uint32_t row, uint32_t r,
                   uint32_t cols) noexcept {
  Ctx& c = *l.ctx;
  uint32_t n = cols;
  const Opd res = view(mx, row, 0);
  if (n == 1) return ar(c, 19, Shape4{1, r, 1, 1}, res, view(src0, row, 0));
  bool first = true;
  while (n > 1) {
    const uint32_t m = (n + 1) / 2, cnt = n - m;
    const Buf& src = first ? src0 : mx;
    if (first && cnt < m) {  // odd width: the middle column passes through
      TILEFW_TRY(ar(c, 19, Shape4{1, r, 1, 1}, view(mx, row, cnt), view(src0, row, cnt)));
    }
    TILEFW_TRY(ar(c, eu, Shape4{1, r, 1, cnt}, res, view(src, row, 0), view(src, row, m)));
    n = m;
    first = false;
  }
  return Status::ok;
}

Status softmax_rows(Layer& l, Buf& t, uint32_t row, uint32_t r, uint32_t cols, const Buf& mx, const Buf& stat,
                    const Buf* out) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, cols};
  const Opd x = view(t, row, 0);
  TILEFW_TRY(row_extreme(l, 4, t, mx, row, r, cols));
  TILEFW_TRY(ar(c, 3, sh, x, x, column(mx, row, 0)));
  TILEFW_TRY(exp_rows(l, t, row, r, cols));
  TILEFW_TRY(mm2(c, false, r, 1, cols, view(stat, row, 0), x, view(l.b.ones, 0, 0), false));
  return ar(c, 12, sh, view(out != nullptr ? *out : t, row, 0), x, column(stat, row, 0));
}

namespace {

// Decode: the local heads of kv head j (contiguous, [i0, i0 + n)) read the same keys and
// values, so they attend together, one head per lane (a one-row MM2 leaves 63 lanes idle): their
// q rows move from side by side in lane b to rows 0.. of qh, and their outputs back the same way.
Status attend_group_decode(Layer& l, uint32_t b, uint32_t i0, uint32_t n) noexcept {
  Ctx& c = *l.ctx;
  const DType dt = c.sized->model.dtype;
  const Side q = side_heads_in_row(l.b.qr, b, i0 * l.d, l.d), o = side_heads_in_row(l.b.ao, b, i0 * l.d, l.d);
  TILEFW_TRY(dma_reshape(c, dt, Shape4{1, 1, n, l.d}, q, Shape4{1, n, 1, l.d}, side_local(l.b.qh, 0, 0)));
  for (uint32_t g = 0; g < groups_of(n); ++g) TILEFW_TRY(attend_rows(l, g * sg::kLanes, rows_in(n, g)));
  return dma_reshape(c, dt, Shape4{1, n, 1, l.d}, side_local(l.b.oh, 0, 0), Shape4{1, 1, n, l.d}, o);
}

// This core's local heads [i0, i0 + n) that read kv head kv0 + j (contiguous: heads map to kv
// heads in order); n = 0 when none does.
void heads_of_kv(const Layer& l, uint32_t j, uint32_t& i0, uint32_t& n) noexcept {
  const uint32_t rep = l.ctx->sized->model.heads / l.ctx->sized->model.kv_heads;
  i0 = l.s.hl;
  n = 0;
  for (uint32_t i = 0; i < l.s.hl; ++i) {
    if ((l.s.h0 + i) / rep != l.s.kv0 + j) continue;
    if (n++ == 0) i0 = i;
  }
}

}  // namespace

Status attention(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "attention");
  const DType dt = c.sized->model.dtype;
  for (uint32_t j = 0; j < l.s.kvn; ++j) {
    uint32_t i0 = 0, n = 0;
    heads_of_kv(l, j, i0, n);
    for (uint32_t b = 0; b < l.B && n > 0; ++b) {
      TILEFW_TRY(load_kv(l, b, j));
      if (l.S == 1) {
        TILEFW_TRY(attend_group_decode(l, b, i0, n));
        continue;
      }
      // Prefill: one row group of queries at a time for every head of the group, so a mask that
      // holds one row group is loaded once per group (load_constants loads a whole one).
      const bool whole_mask = l.b.mask.rows >= l.S;
      for (uint32_t g = 0; g < groups_of(l.S); ++g) {
        const uint32_t row = g * sg::kLanes, r = rows_in(l.S, g);
        if (!whole_mask) TILEFW_TRY(load_mask_rows(l, row, r));
        const Shape4 rows{1, r, 1, l.d};
        for (uint32_t i = i0; i < i0 + n; ++i) {
          TILEFW_TRY(dma(c, rows, dt, side_local(l.b.qr, b * l.S + row, i * l.d), side_local(l.b.qh, 0, 0)));
          if (l.sliced) {  // the previous pass's attention reduction goes on between heads: its
            // landing queued after this head's q rows, so this head does not wait for it
            TILEFW_TRY(reduction_hook(l, kHookHeads));
            set_op(c, "attention");
          }
          TILEFW_TRY(attend_rows(l, 0, r, whole_mask ? row : 0));
          TILEFW_TRY(dma(c, rows, dt, side_local(l.b.oh, 0, 0), side_local(l.b.ao, b * l.S + row, i * l.d)));
        }
      }
    }
  }
  return Status::ok;
}

namespace {

// Writes the new cache entries of the kv heads this core is the writer of.
Status store_present(Layer& l) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  const uint32_t kvh = p.model.kv_heads;
  const uint32_t es = static_cast<uint32_t>(dtype_size(p.model.dtype));
  set_op(*l.ctx, "store_cache");
  for (uint32_t j = 0; j < l.s.kvn; ++j) {
    const uint32_t kv = l.s.kv0 + j;
    if (kv_writer(p, kv) != l.ctx->core) continue;
    for (uint32_t b = 0; b < l.B; ++b) {
      const uint64_t off = ((uint64_t{l.b0 + b} * kvh + kv) * l.S_all + l.s0) * l.d * es;
      Side dst;
      dst.cs = l.d;
      dst.hs = l.d;
      dst.addr = tensor(l, TensorId::present_key).device_addr + off;
      TILEFW_TRY(dma(*l.ctx, Shape4{1, l.S, 1, l.d}, p.model.dtype, side_local(l.b.kr, b * l.S, j * l.d), dst));
      dst.addr = tensor(l, TensorId::present_value).device_addr + off;
      TILEFW_TRY(dma(*l.ctx, Shape4{1, l.S, 1, l.d}, p.model.dtype, side_local(l.b.vb, b * l.S, j * l.d), dst));
    }
  }
  return Status::ok;
}

}  // namespace

Status attention_front(Layer& l) noexcept {
  TILEFW_TRY(attention_projections(l));
  return attention(l);
}

Status attention_projections(Layer& l) noexcept {
  const uint32_t d = l.d, qd = l.s.hl * d, kvd = l.s.kvn * d;
  const uint32_t H = l.H;
  TILEFW_TRY(rms_norm(l, TensorId::input_layernorm));
  TILEFW_TRY(linear(l, l.b.xn, H, TensorId::q_proj_w, l.s.h0 * d, 0, qd, l.b.q));
  TILEFW_TRY(add_bias(l, TensorId::q_proj_b, l.s.h0 * d, qd, l.b.q, nullptr));
  TILEFW_TRY(linear(l, l.b.xn, H, TensorId::k_proj_w, l.s.kv0 * d, 0, kvd, l.b.kn));
  TILEFW_TRY(add_bias(l, TensorId::k_proj_b, l.s.kv0 * d, kvd, l.b.kn, nullptr));
  TILEFW_TRY(linear(l, l.b.xn, H, TensorId::v_proj_w, l.s.kv0 * d, 0, kvd, l.b.vn));
  TILEFW_TRY(add_bias(l, TensorId::v_proj_b, l.s.kv0 * d, kvd, l.b.vn, &l.b.vb));
  if (l.ctx->sized->model.qk_norm) {
    TILEFW_TRY(head_norm(l, l.b.q, l.s.hl, TensorId::q_norm));
    TILEFW_TRY(head_norm(l, l.b.kn, l.s.kvn, TensorId::k_norm));
  }
  TILEFW_TRY(rope(l, l.b.q, 0, d, l.b.qr, l.s.hl, false));
  TILEFW_TRY(rope(l, l.b.kn, 0, d, l.b.kr, l.s.kvn, false));
  return store_present(l);
}

}  // namespace tilefw::gen::detail
