// Element-wise and per-row steps of the layer: constants, RMSNorm (hidden and per head),
// rotary embedding, biases, exp and the SwiGLU activation.
//
// exp on the TIU: the SFU has no exp, only a Taylor polynomial over a coefficient table
// (taylor, eu 13). x is clamped to [-30, 30], then exp(x) = p(x)^16 where p is the degree-16
// Taylor polynomial of exp(x / 16) (table c_j = 1 / (16^j j!), fill_constant), followed by
// four squarings (AR mul). Error: |x / 16| <= 1.875, so the truncated series is off by at
// most 1.875^17 / 17! / e^-1.875 < 1e-9 relative; the f32 rounding of p (2^-24) and of each
// squaring doubles per squaring: about 16 x 2 x 2^-24 < 2e-6 relative in all. The clamp
// changes softmax weights of scores more than 30 below the row maximum (< 1e-13 each) and
// silu(x) for |x| > 30 by less than 30 e^-30 < 3e-12 absolute.
#include "layer.hpp"

namespace tilefw::gen::detail {

Side ddr(uint64_t addr, uint32_t cs, uint32_t hs) noexcept {
  Side s;
  s.addr = addr;
  s.cs = cs;
  s.hs = hs;
  return s;
}

Status load_replicated(Layer& l, TensorId id, uint32_t first, uint32_t count, Buf& dst, uint32_t lanes) noexcept {
  const TensorInfo& t = tensor(l, id);
  const uint64_t es = dtype_size(t.dtype);
  return dma(*l.ctx, Shape4{1, lanes, 1, count}, t.dtype, ddr(t.device_addr + first * es, 0, count),
             side_local(dst, 0, 0));
}

Status inv_rms(Layer& l, uint32_t row0, uint32_t r, uint32_t n, uint32_t count, float eps) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, n};
  const Opd s = view(l.b.ss, row0, 0);
  TILEFW_TRY(ar(c, 12, sh, s, s, imm(static_cast<float>(count))));
  TILEFW_TRY(ar(c, 2, sh, s, s, imm(eps)));
  return sfu(c, 17, sh, s, s);
}


Opd heads_view(const Buf& b, uint32_t row, uint32_t col, uint32_t head_stride, uint32_t w_stride) noexcept {
  Opd o = view(b, row, col);
  o.hs = head_stride;
  o.ws = w_stride;
  return o;
}

Status load_constants(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "load_constants");
  Side ones = side_local(l.b.ones, 0, 0);
  TILEFW_TRY(dma_fill(c, Shape4{1, l.b.ones.rows, 1, 1}, DType::f32, 0x3F800000u, ones));
  const TensorInfo& tay = tensor(l, TensorId::exp_taylor);
  TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, kExpTerms}, DType::f32, ddr(tay.device_addr, 0, kExpTerms),
                 side_local(l.b.tay, 0, 0)));
  if (c.sized->model.act == Activation::gelu) {
    const TensorInfo& erf = tensor(l, TensorId::erf_poly);
    TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, kErfTerms}, DType::f32, ddr(erf.device_addr, 0, kErfTerms),
                   side_local(l.b.erf, 0, 0)));
  }
  const TensorInfo& cs = tensor(l, TensorId::rope_cos);
  const TensorInfo& sn = tensor(l, TensorId::rope_sin);
  for (uint32_t b = 0; b < l.B; ++b) {  // every batch row has the same positions
    const uint64_t rows = uint64_t{l.s0} * l.d * 4;  // the chunk's positions
    TILEFW_TRY(dma(c, Shape4{1, l.S, 1, l.d}, DType::f32, ddr(cs.device_addr + rows, l.d, l.d), side_local(l.b.cos, b * l.S, 0)));
    TILEFW_TRY(dma(c, Shape4{1, l.S, 1, l.d}, DType::f32, ddr(sn.device_addr + rows, l.d, l.d), side_local(l.b.sin, b * l.S, 0)));
  }
  // A mask of every query row is loaded once per pass; one of a row group at a time is loaded
  // by the attention before each group (attend_rows).
  if (l.S > 1 && l.b.mask.rows >= l.S) TILEFW_TRY(load_mask_rows(l, 0, l.S));
  return Status::ok;
}

Status load_mask_rows(Layer& l, uint32_t first, uint32_t rows) noexcept {
  const TensorInfo& m = tensor(l, TensorId::attn_mask);
  const uint32_t width = l.K + l.S_all;  // the mask is [S_all, K + S_all]: the chunk's rows, its columns
  const uint64_t at = m.device_addr + (uint64_t{l.s0} + first) * width * 4;
  return dma(*l.ctx, Shape4{1, rows, 1, l.nkv}, DType::f32, ddr(at, width, l.nkv), side_local(l.b.mask, 0, 0));
}

Status rms_norm_group(Layer& l, const Buf& src, uint32_t src_row, uint32_t row, uint32_t r, uint32_t cols, float eps,
                      const Buf& dst) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, cols};
  const uint32_t srow = scratch_row(l, row);
  const Opd x = view(src, src_row, 0), sq = view(l.b.scratch, srow, 0);
  TILEFW_TRY(ar(c, 0, sh, sq, x, x));
  TILEFW_TRY(row_sums(l, view(l.b.ss, row, 0), sq, r, cols));
  TILEFW_TRY(inv_rms(l, row, r, 1, cols, eps));
  TILEFW_TRY(ar(c, 0, sh, sq, x, column(l.b.ss, row, 0)));
  return ar(c, 0, sh, view(dst, row, 0), sq, view(l.b.wn, 0, 0));
}

Status rms_norm(Layer& l, TensorId weight) noexcept {
  if (l.sliced && l.xn_ready) {  // exchange_normalised did it with the reduction
    l.xn_ready = false;
    return Status::ok;
  }
  if (l.sliced) return rms_norm_staged(l, weight);
  return rms_norm_rows(l, l.b.x, l.H, weight, l.ctx->sized->model.rms_eps, l.b.xn);
}

Status rms_norm_rows(Layer& l, const Buf& src, uint32_t cols, TensorId weight, float eps, const Buf& dst) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, op_name(weight));
  // Only the lanes that hold token rows read the weight (a decode step of one token: one lane,
  // not 64 copies of a DeepSeek-V3 hidden-size weight per core).
  TILEFW_TRY(load_replicated(l, weight, 0, cols, l.b.wn, l.T < sg::kLanes ? l.T : sg::kLanes));
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    TILEFW_TRY(rms_norm_group(l, src, row, row, rows_in(l.T, g), cols, eps, dst));
  }
  return Status::ok;
}

Status head_norm(Layer& l, Buf& t, uint32_t heads, TensorId weight) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, op_name(weight));
  const uint32_t d = l.d;
  TILEFW_TRY(load_replicated(l, weight, 0, d, l.b.qkw));
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const uint32_t srow = scratch_row(l, row);
    const Opd x = view(t, row, 0), sq = view(l.b.scratch, srow, 0);
    TILEFW_TRY(ar(c, 0, Shape4{1, r, 1, heads * d}, sq, x, x));
    for (uint32_t h = 0; h < heads; ++h) {
      TILEFW_TRY(row_sums(l, view(l.b.ss, row, h), view(l.b.scratch, srow, h * d), r, d));  // each head
    }
    TILEFW_TRY(inv_rms(l, row, r, heads, d, c.sized->model.rms_eps));
    const Shape4 sh{1, r, heads, d};
    const Opd xh = heads_view(t, row, 0, d, 1);
    TILEFW_TRY(ar(c, 0, sh, xh, xh, heads_view(l.b.ss, row, 0, 1, 0)));
    TILEFW_TRY(ar(c, 0, sh, xh, xh, heads_view(l.b.qkw, 0, 0, 0, 1)));
  }
  return Status::ok;
}

// rotate_half form: out[:d/2] = x1 cos1 - x2 sin1, out[d/2:] = x2 cos2 + x1 sin2, per head,
// with x1 = x[:d/2], x2 = x[d/2:]. Interleaved (deepseek_v3's apply_rotary_pos_emb_interleave):
// x1 = the even elements, x2 = the odd ones, and the output in the same de-interleaved order.
// Source heads are `src_stride` elements apart from column `src_col`; destination heads d apart.
Status rope(Layer& l, const Buf& src, uint32_t src_col, uint32_t src_stride, Buf& dst, uint32_t heads,
            bool interleaved) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "rope");
  const uint32_t d = l.d, half = d / 2;
  const uint32_t second = interleaved ? 1 : half, step = interleaved ? 2 : 1;
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const Shape4 sh{1, r, heads, half};
    const Opd x1 = heads_view(src, row, src_col, src_stride, step);
    const Opd x2 = heads_view(src, row, src_col + second, src_stride, step);
    const Opd cos1 = heads_view(l.b.cos, row, 0, 0, 1), cos2 = heads_view(l.b.cos, row, half, 0, 1);
    const Opd sin1 = heads_view(l.b.sin, row, 0, 0, 1), sin2 = heads_view(l.b.sin, row, half, 0, 1);
    const uint32_t trow = l.b.ta.rows > row ? row : row % sg::kLanes;  // sliced: one row group of them
    const Opd ta = heads_view(l.b.ta, trow, 0, half, 1), tb = heads_view(l.b.tb, trow, 0, half, 1);
    TILEFW_TRY(ar(c, 0, sh, ta, x1, cos1));
    TILEFW_TRY(ar(c, 0, sh, tb, x2, sin1));
    TILEFW_TRY(ar(c, 3, sh, heads_view(dst, row, 0, d, 1), ta, tb));
    TILEFW_TRY(ar(c, 0, sh, ta, x2, cos2));
    TILEFW_TRY(ar(c, 0, sh, tb, x1, sin2));
    TILEFW_TRY(ar(c, 2, sh, heads_view(dst, row, half, d, 1), ta, tb));
  }
  return Status::ok;
}

Status add_bias(Layer& l, TensorId bias, uint32_t first, uint32_t count, Buf& t, const Buf* out) noexcept {
  Ctx& c = *l.ctx;
  const bool present = tensor(l, bias).present;
  if (!present && out == nullptr) return Status::ok;
  if (present) TILEFW_TRY(load_replicated(l, bias, first, count, l.b.bias));
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const Opd res = view(out != nullptr ? *out : t, row, 0);
    if (present) {
      TILEFW_TRY(ar(c, 2, Shape4{1, r, 1, count}, res, view(t, row, 0), view(l.b.bias, 0, 0)));
    } else {
      TILEFW_TRY(ar(c, 14, Shape4{1, r, 1, count}, res, view(t, row, 0)));  // cast to the model dtype
    }
  }
  return Status::ok;
}

Status exp_rows(Layer& l, Buf& t, uint32_t row0, uint32_t rows, uint32_t cols) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, rows, 1, cols};
  const Opd x = view(t, row0, 0);
  TILEFW_TRY(ar(c, 4, sh, x, x, imm(-kExpClamp)));
  TILEFW_TRY(ar(c, 5, sh, x, x, imm(kExpClamp)));
  TILEFW_TRY(sfu(c, 13, sh, x, x, view(l.b.tay, 0, 0), kExpTerms));
  for (uint32_t i = 0; i < kExpSquarings; ++i) TILEFW_TRY(ar(c, 0, sh, x, x, x));
  return Status::ok;
}

namespace {

// e = x / (1 + exp(e)) for the exponent already in e: silu when e = -x, gelu_tanh when
// e = -2 sqrt(2/pi) (x + 0.044715 x^3) (0.5 (1 + tanh z) = sigmoid(2 z)).
Status divide_by_one_plus_exp(Layer& l, uint32_t row, uint32_t r, const Opd& x, const Opd& e) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, l.fw};
  TILEFW_TRY(exp_rows(l, l.b.scratch, scratch_row(l, row), r, l.fw));
  TILEFW_TRY(ar(c, 2, sh, e, e, imm(1.0f)));
  return ar(c, 12, sh, e, x, e);
}

// gelu (erf): 0.5 x + 0.5 |x| erf(|x| / sqrt 2), with erf(a) = 1 - poly(t) exp(-a^2),
// t = 1 / (1 + p a) (Abramowitz & Stegun 7.1.26; the polynomial runs on the SFU taylor).
Status gelu_erf(Layer& l, uint32_t row, uint32_t r, const Opd& x, const Opd& e) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, l.fw};
  const Opd f = view(l.b.ex, row, 0);
  TILEFW_TRY(ar(c, 26, sh, f, x));                            // |x|
  TILEFW_TRY(ar(c, 0, sh, f, f, imm(0.70710678118654752f)));  // a = |x| / sqrt 2
  TILEFW_TRY(ar(c, 0, sh, e, f, f));                          // a^2
  TILEFW_TRY(ar(c, 0, sh, e, e, imm(-1.0f)));
  TILEFW_TRY(exp_rows(l, l.b.scratch, scratch_row(l, row), r, l.fw));  // exp(-a^2)
  TILEFW_TRY(ar(c, 0, sh, f, f, imm(kErfP)));
  TILEFW_TRY(ar(c, 2, sh, f, f, imm(1.0f)));
  TILEFW_TRY(ar(c, 12, sh, f, imm(1.0f), f));                 // t
  TILEFW_TRY(sfu(c, 13, sh, f, f, view(l.b.erf, 0, 0), kErfTerms));
  TILEFW_TRY(ar(c, 0, sh, f, f, e));
  TILEFW_TRY(ar(c, 3, sh, f, imm(1.0f), f));                  // erf(a)
  TILEFW_TRY(ar(c, 26, sh, e, x));
  TILEFW_TRY(ar(c, 0, sh, f, f, e));                          // |x| erf(a)
  TILEFW_TRY(ar(c, 2, sh, f, f, x));
  return ar(c, 0, sh, e, f, imm(0.5f));
}

}  // namespace

// act(gate) * up, rounded to the model dtype for down_proj.
Status mlp_activation(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const Activation act = c.sized->model.act;
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const Shape4 sh{1, r, 1, l.fw};
    const Opd gate = view(l.b.gt, row, 0), e = view(l.b.scratch, scratch_row(l, row), 0);
    if (act == Activation::silu) {
      TILEFW_TRY(ar(c, 0, sh, e, gate, imm(-1.0f)));
      TILEFW_TRY(divide_by_one_plus_exp(l, row, r, gate, e));
    } else if (act == Activation::gelu_tanh) {
      TILEFW_TRY(ar(c, 0, sh, e, gate, gate));
      TILEFW_TRY(ar(c, 0, sh, e, e, imm(0.044715f)));
      TILEFW_TRY(ar(c, 2, sh, e, e, imm(1.0f)));
      TILEFW_TRY(ar(c, 0, sh, e, e, gate));
      TILEFW_TRY(ar(c, 0, sh, e, e, imm(-1.5957691216057308f)));  // -2 sqrt(2 / pi)
      TILEFW_TRY(divide_by_one_plus_exp(l, row, r, gate, e));
    } else {
      TILEFW_TRY(gelu_erf(l, row, r, gate, e));
    }
    TILEFW_TRY(ar(c, 0, sh, view(l.b.ab, row, l.fcol), e, view(l.b.up, row, 0)));
  }
  return Status::ok;
}

}  // namespace tilefw::gen::detail
