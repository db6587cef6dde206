// The pass schedule of a sliced-residual layer (dense tensor-parallel prefill, see
// sliced_residual): the next pass's attention runs while this pass's attention reduce-scatter
// is in flight.
//
// The reduce-scatters go through the chip's L2 (128 B/cycle shared by the 8 cores), and the MLP
// depends on them; in a plain order the TIU idles while they move. The next pass's attention
// (input norm, q/k/v, heads) depends on none of it. Per pass i:
//   x(i) loaded; o_proj(i) partials out (own columns into x) beside A(i+1)'s input norm and
//   q/k/v (even cores write first, odd cores load first: half the cores on L2 at a time); barrier
//   A(i+1)'s heads, R_A(i)'s landings and adds between them (hook points after each head's q
//   rows; four core groups take successive quarters of the heads); the rest of R_A(i); the
//   post-attention norm (sums of squares exchanged through L2, the normalised x gathered
//   through DDR: two barriers)
//   gate/up(i) with R_M(i-1)'s landings and adds between its weight tiles (again a quarter of
//   them per core group); barrier; down_proj(i) partials out
// A(0) comes first; after the last pass a barrier and the rest of R_M. What makes it fit LMEM:
// ao (the attention's output) lives beside the MLP's buffers until o_proj of its pass.
#include "layer.hpp"

namespace tilefw::gen::detail {

void set_pass(Layer& l, uint32_t i) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  l.chunk = i;
  l.s0 = p.row_passes() ? 0 : i * p.chunk_tokens;
  l.b0 = p.row_passes() ? i * p.chunk_batch : 0;
  l.nkv = l.K + l.s0 + l.S;
}

namespace {

// Hook points of the attention heads (their row groups).
uint32_t head_hooks(const Layer& l) noexcept { return l.s.hl * l.B * groups_of(l.S); }

// Runs `part` of pass `next`'s attention (loading that pass's constants first when asked).
template <typename Part>
Status on_pass(Layer& l, uint32_t next, bool constants, Part part) noexcept {
  const uint32_t here = l.chunk;
  set_pass(l, next);
  if (constants) TILEFW_TRY(load_constants(l));
  TILEFW_TRY(part());
  set_pass(l, here);
  return Status::ok;
}

// The MLP of the pass: gate/up (R_M of the previous pass spread over it), barrier, down_proj's
// partials out; its own reduction deferred into the next pass.
Status mlp(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  if (l.overlay.end != l.overlay.second) {
    enter_overlay(c, l.overlay);
    l.b.use(l.b.next);
  }
  TILEFW_TRY(rms_norm(l, TensorId::post_attention_layernorm));  // done by exchange_normalised
  TILEFW_TRY(ffn(l, TensorId::gate_proj_w, TensorId::up_proj_w, TensorId::down_proj_w, l.s.f0, l.s.fl, 0, l.s.f0,
                 l.b.p));
  TILEFW_TRY(begin_deferred_reduction(l));
  if (l.overlay.end != l.overlay.second) {
    leave_overlay(c, l.overlay);
    l.b.use(l.b.first);
  }
  return Status::ok;
}

}  // namespace

Status sliced_program(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t P = p.parallel.tp;
  set_pass(l, 0);
  TILEFW_TRY(load_constants(l));
  TILEFW_TRY(attention_front(l));  // A(0)
  // Even cores write o_proj's partials first and then load the next pass's inputs and q/k/v
  // weights from DDR; odd cores the other way round: half the cores write to L2 at a time, at
  // twice the rate each, while the other half read DDR.
  const bool odd = (c.core & 1) != 0;
  for (uint32_t i = 0; i < p.chunks; ++i) {
    set_pass(l, i);
    if (l.deferred.active) keep_previous_slice(l);  // x(i - 1) waits in xp for the rest of R_M
    TILEFW_TRY(load_input(l));
    const bool more = i + 1 < p.chunks;
    const auto projections = [&] { return attention_projections(l); };
    if (more && odd) TILEFW_TRY(on_pass(l, i + 1, true, projections));
    TILEFW_TRY(linear_partial(l, l.b.ao, l.s.hl * l.d, TensorId::o_proj_w, 0, l.s.h0 * l.d, l.H));
    if (more && !odd) TILEFW_TRY(on_pass(l, i + 1, true, projections));
    set_op(c, "attention_reduce");
    TILEFW_TRY(barrier(c));  // every core's o_proj partials are in L2
    // Cores in four groups (core mod 4) land in successive quarters of the heads: two of 8
    // cores on L2 at a time instead of all of them, each landing at four times the rate.
    const uint32_t groups = 4, share = head_hooks(l) / groups;
    TILEFW_TRY(begin_reduction(l, l.attn, TensorId::o_proj_b, more && share > 0 ? share : 1));
    l.attn.sites = kHookHeads;
    l.attn.skip = more ? (c.core % groups) * share : 0;
    if (l.attn.skip == 0) TILEFW_TRY(start_landings(l, l.attn));
    if (more) {  // the next pass's attention heads, this reduction's landings between them
      l.attn.open = true;
      TILEFW_TRY(on_pass(l, i + 1, false, [&] { return attention(l); }));
      l.attn.open = false;
    }
    TILEFW_TRY(finish_reduction(l, l.attn));
    uint32_t c0 = 0, w = 0;
    slice_of(l, c.core, P, c0, w);
    TILEFW_TRY(exchange_normalised(l, l.attn.area, c0, w));
    TILEFW_TRY(mlp(l));
  }
  set_op(c, "mlp_reduce");
  TILEFW_TRY(barrier(c));  // the last pass's MLP partials are in L2
  return finish_deferred_reduction(l);
}

}  // namespace tilefw::gen::detail
