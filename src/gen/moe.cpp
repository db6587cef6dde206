// The sparse MoE block (mixtral, qwen3_moe; docs/generator.md section 3, Rules: two-phase MoE,
// capacity, Megatron tensor parallelism and expert placement), with the
// routing computed on the TPU and the tokens moved by DMA scatter/gather with the indices the
// TPU computed (the streams are static; nothing about the routing is known when generating).
//
// Every core of the expert-parallel group computes the routing for all tokens (it is small):
//   logits = x W_router^T (MM2), probabilities = row softmax (f32, as for attention);
//   top-k by k rounds of: m = row max; candidates = (p == m) ? expert index : E (AR sel_eq,
//   then arithmetic); first = row min (ties go to the lowest expert index); chosen = (index ==
//   first) (sel_eq against a 0..E-1 row); selection += chosen; p -= 3 chosen (never again max);
//   weights = p x selection, divided by their row sum when norm_topk_prob.
//   Token t's slot in expert e's list = number of selected tokens before t: one MM2 of the
//   strictly lower triangular ones [T, T] with the selection [T, E]; the expert's count is the
//   last row's slot + selection (written to `expert_tokens` by the expert's owner).
//   index(t, e) = selected ? slot : C, cast to uint32: slots >= C (capacity C) and unselected
//   tokens fall outside [0, C), so the scatter skips them and the gather fills 0 for them.
// Each core then runs its experts e = core, core + ep, ... : the normalised tokens are
// scattered into the expert's C-row buffer (DDR), loaded, run through the expert's SwiGLU
// (the dense MLP code on C rows), stored, gathered back into token order and added to the
// core's partial weighted by the routing weight column. The partials are reduced across the
// ep cores through L2 exactly as tensor-parallel partials are.
#include "expert_blocks.hpp"
#include "layer.hpp"

namespace tilefw::gen::detail {

uint64_t core_slice(const Layer& l, TensorId id) noexcept {
  const TensorInfo& t = tensor(l, id);
  return t.device_addr + t.bytes / l.ctx->sized->parallel.cores * l.ctx->core;
}

Side ddr_rows(uint64_t addr, uint32_t cols) noexcept {
  Side s;
  s.addr = addr;
  s.cs = cols;
  s.hs = cols;
  return s;
}

namespace {

// k rounds over columns [0, n) of `work` (rows [row, row + r)): m = row max; candidates =
// (work == m) ? index : n (sel_eq, then arithmetic against `iota` = [0..n-1, -n..-1]); first =
// row min (ties go to the lowest index); chosen = (index == first); sel += chosen; work +=
// penalty x chosen (never the maximum again). `sel` must hold zeros. `ids`: round i's chosen
// index into its column i (the token-selective combine's choices).
Status topk_select(Layer& l, const Buf& work, const Buf& sel, const Buf& iota, uint32_t n, uint32_t k, float penalty,
                   uint32_t row, uint32_t r, const Buf* ids = nullptr) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const Shape4 sh{1, r, 1, n};
  const Opd wk = view(work, row, 0), sl = view(sel, row, 0), eq = view(b.eq, row, 0);
  for (uint32_t i = 0; i < k; ++i) {
    TILEFW_TRY(row_extreme(l, 4, work, b.rmx, row, r, n));
    TILEFW_TRY(ar(c, 11, sh, eq, wk, column(b.rmx, row, 0)));       // 1 where work == row max
    TILEFW_TRY(ar(c, 0, sh, eq, eq, view(iota, 0, n)));              // (index - n) there
    TILEFW_TRY(ar(c, 2, sh, eq, eq, imm(static_cast<float>(n))));   // index there, n elsewhere
    TILEFW_TRY(row_extreme(l, 5, b.eq, b.rmx, row, r, n));           // the lowest such index
    if (ids != nullptr) TILEFW_TRY(ar(c, 19, Shape4{1, r, 1, 1}, column(*ids, row, i), column(b.rmx, row, 0)));
    TILEFW_TRY(ar(c, 11, sh, eq, view(iota, 0, 0), column(b.rmx, row, 0)));
    TILEFW_TRY(ar(c, 2, sh, sl, sl, eq));
    TILEFW_TRY(ar(c, 0, sh, eq, eq, imm(penalty)));
    TILEFW_TRY(ar(c, 2, sh, wk, wk, eq));
  }
  return Status::ok;
}

// The token-selective combine's choices (TensorId::moe_choice present): where the final top-k
// leaves each round's expert id.
const Buf* choice_buf(const Layer& l) noexcept {
  return tensor(l, TensorId::moe_choice).present ? &l.b.ids : nullptr;
}

// Softmax routing (mixtral, qwen3_moe): top-k of the probabilities, renormalised on request.
Status route_rows(Layer& l, uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const MoeConfig& m = c.sized->model.moe;
  const uint32_t E = m.experts;
  const Shape4 sh{1, r, 1, E};
  Bufs& b = l.b;
  const Opd wk = view(b.wk, row, 0), sel = view(b.sel, row, 0);
  TILEFW_TRY(softmax_rows(l, b.lg, row, r, E, b.rmx, b.rst, &b.pr));
  TILEFW_TRY(ar(c, 19, sh, wk, view(b.pr, row, 0)));
  TILEFW_TRY(ar(c, 0, sh, sel, view(b.pr, row, 0), imm(0.0f)));
  TILEFW_TRY(topk_select(l, b.wk, b.sel, b.iota, E, m.top_k, -3.0f, row, r, choice_buf(l)));  // probabilities are <= 1
  const Opd rw = view(b.rw, row, 0);
  TILEFW_TRY(ar(c, 0, sh, rw, view(b.pr, row, 0), sel));
  if (m.norm_topk_prob) {
    TILEFW_TRY(mm2(c, false, r, 1, E, view(b.rst, row, 1), rw, view(b.ones, 0, 0), false));
    TILEFW_TRY(ar(c, 12, sh, rw, rw, column(b.rst, row, 1)));
  }
  return Status::ok;
}

// Chosen entries drop this far: below any sigmoid score plus a correction bias or group sum.
constexpr float kGroupedPenalty = -1.0e4f;

// Group scores: the sum of each group's two best choice scores (pos: a work copy; rw: scratch).
Status group_scores(Layer& l, uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const MoeConfig& m = c.sized->model.moe;
  const uint32_t E = m.experts, n = E / m.n_group;
  Bufs& b = l.b;
  TILEFW_TRY(ar(c, 19, Shape4{1, r, 1, E}, view(b.pos, row, 0), view(b.wk, row, 0)));
  TILEFW_TRY(ar(c, 0, Shape4{1, r, 1, E}, view(b.rw, row, 0), view(b.wk, row, 0), imm(0.0f)));
  for (uint32_t gi = 0; gi < m.n_group; ++gi) {
    const Buf work = columns_of(b.pos, gi * n, n), sel = columns_of(b.rw, gi * n, n);
    TILEFW_TRY(topk_select(l, work, sel, b.iota_g, n, 2, kGroupedPenalty, row, r));
    TILEFW_TRY(ar(c, 0, Shape4{1, r, 1, n}, view(sel, row, 0), view(sel, row, 0), view(b.wk, row, gi * n)));
    TILEFW_TRY(mm2(c, false, r, 1, n, view(b.gs, row, gi), view(sel, row, 0), view(b.ones, 0, 0), false));
  }
  return Status::ok;
}

// Sigmoid routing with group-limited top-k (deepseek_v3, noaux_tc), rows [row, row + r).
Status route_rows_grouped(Layer& l, uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const MoeConfig& m = c.sized->model.moe;
  const uint32_t E = m.experts, n = E / m.n_group, G = m.n_group;
  const Shape4 sh{1, r, 1, E};
  Bufs& b = l.b;
  const Opd pr = view(b.pr, row, 0), wk = view(b.wk, row, 0), sel = view(b.sel, row, 0), rw = view(b.rw, row, 0);
  TILEFW_TRY(ar(c, 0, sh, pr, view(b.lg, row, 0), imm(-1.0f)));  // sigmoid = 1 / (1 + exp(-x))
  TILEFW_TRY(exp_rows(l, b.pr, row, r, E));
  TILEFW_TRY(ar(c, 2, sh, pr, pr, imm(1.0f)));
  TILEFW_TRY(ar(c, 12, sh, pr, imm(1.0f), pr));
  TILEFW_TRY(ar(c, 2, sh, wk, pr, view(b.ebias, 0, 0)));  // choice scores
  TILEFW_TRY(group_scores(l, row, r));
  const Shape4 gsh{1, r, 1, G};
  TILEFW_TRY(ar(c, 19, gsh, view(b.gwk, row, 0), view(b.gs, row, 0)));
  TILEFW_TRY(ar(c, 0, gsh, view(b.gsel, row, 0), view(b.gs, row, 0), imm(0.0f)));
  TILEFW_TRY(topk_select(l, b.gwk, b.gsel, b.iota_n, G, m.topk_group, kGroupedPenalty, row, r));
  for (uint32_t gi = 0; gi < G; ++gi) {  // experts of groups not kept: choice score 0
    const Opd part = view(b.wk, row, gi * n);
    TILEFW_TRY(ar(c, 0, Shape4{1, r, 1, n}, part, part, column(b.gsel, row, gi)));
  }
  TILEFW_TRY(ar(c, 0, sh, sel, pr, imm(0.0f)));
  TILEFW_TRY(topk_select(l, b.wk, b.sel, b.iota, E, m.top_k, kGroupedPenalty, row, r, choice_buf(l)));
  TILEFW_TRY(ar(c, 0, sh, rw, pr, sel));  // weights: the sigmoid scores without the bias
  if (m.norm_topk_prob) {
    TILEFW_TRY(mm2(c, false, r, 1, E, view(b.rst, row, 1), rw, view(b.ones, 0, 0), false));
    TILEFW_TRY(ar(c, 2, Shape4{1, r, 1, 1}, view(b.rst, row, 1), view(b.rst, row, 1), imm(1e-20f)));
    TILEFW_TRY(ar(c, 12, sh, rw, rw, column(b.rst, row, 1)));
  }
  return ar(c, 0, sh, rw, rw, imm(m.routed_scaling_factor));
}

// index = selection x (slot - C) + C, as uint32, for rows [row, row + r).
Status index_rows(Layer& l, uint32_t row, uint32_t r, uint32_t C) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, c.sized->model.moe.experts};
  const Opd pos = view(l.b.pos, row, 0);
  TILEFW_TRY(ar(c, 2, sh, pos, pos, imm(-static_cast<float>(C))));
  TILEFW_TRY(ar(c, 0, sh, pos, pos, view(l.b.sel, row, 0)));
  TILEFW_TRY(ar(c, 2, sh, pos, pos, imm(static_cast<float>(C))));
  return ar(c, 14, sh, view(l.b.ix, row, 0), pos);
}

}  // namespace

Status routing(Layer& l, uint32_t C, uint64_t running) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t E = c.sized->model.moe.experts;
  TILEFW_TRY(linear(l, l.b.xn, l.H, TensorId::router_w, 0, 0, E, l.b.lg));
  set_op(c, "moe_routing");
  const bool grouped = c.sized->model.moe.routing == Routing::sigmoid_grouped;
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    TILEFW_TRY(grouped ? route_rows_grouped(l, row, r) : route_rows(l, row, r));
  }
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    TILEFW_TRY(mm2(c, false, rows_in(l.T, g), E, l.T, view(l.b.pos, row, 0), view(l.b.tri, row, 0),
                   view(l.b.sel, 0, 0), false));
  }
  if (running != 0 && l.chunk > 0) {  // later passes: the slots continue after the earlier passes' tokens
    Side counts = ddr_rows(running, E);
    counts.cs = 0;  // the one row of counts in every lane (eq is free until the count below)
    const uint32_t rows = rows_in(l.T, 0);
    TILEFW_TRY(dma(c, Shape4{1, rows, 1, E}, DType::f32, counts, side_local(l.b.eq, 0, 0)));
    for (uint32_t g = 0; g < groups_of(l.T); ++g) {
      const Opd pos = view(l.b.pos, g * sg::kLanes, 0);
      TILEFW_TRY(ar(c, 2, Shape4{1, rows_in(l.T, g), 1, E}, pos, pos, view(l.b.eq, 0, 0)));
    }
  }
  // Tokens routed to each expert: the last token's slot + its selection (row T-1 of eq).
  const uint32_t last = l.T - 1;
  TILEFW_TRY(ar(c, 2, Shape4{1, 1, 1, E}, view(l.b.eq, last, 0), view(l.b.pos, last, 0), view(l.b.sel, last, 0)));
  if (running != 0) {  // the totals so far, for the next pass
    TILEFW_TRY(dma(c, Shape4{1, 1, 1, E}, DType::f32, side_local(l.b.eq, last, 0), ddr_rows(running, E)));
  }
  for (uint32_t g = 0; g < groups_of(l.T); ++g) TILEFW_TRY(index_rows(l, g * sg::kLanes, rows_in(l.T, g), C));
  return Status::ok;
}

namespace {

// Expert e on C token slots: scatter in, SwiGLU, gather out, weighted add into the partial.
// Contract with the experts' phase's copied blocks (expert_blocks.hpp): every field of the
// commands this emits that depends on `e` is linear in `e` (weight rows e x I and e x H, the
// index and routing-weight columns e); a new dependence on the expert must keep that, or turn
// the copies off for it.
// `store_count`: the owner reports the expert's count here (a static layer; a phased one
// reports every count before the experts' phase, for the control core).
// [col0, col0 + cols) of the expert's intermediate columns (all I unless the expert is split
// over cores, ExpertSplit): gate/up rows and down_proj columns of that slice, so the output
// is this slice's share of the expert's, summed over the cores by the reduction.
Status run_expert(Layer& l, uint32_t e, uint32_t C, bool first, bool store_count, uint32_t col0,
                  uint32_t cols) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t n = p.parallel.expert_count;  // the expert's place in this chip's weights
  const uint32_t w = n == 0 ? e : e / (p.model.moe.experts / n);
  const DType dt = p.model.dtype;
  const uint32_t T = l.T, H = l.H, I = p.model.moe.expert_intermediate;
  const uint64_t x = core_slice(l, TensorId::moe_x), idx = core_slice(l, TensorId::moe_idx);
  const uint64_t xe = core_slice(l, TensorId::moe_xe), ye = core_slice(l, TensorId::moe_ye);
  set_op(c, "moe_dispatch");
  c.label.expert = e;
  TILEFW_TRY(store_index_column(l, e, idx));
  TILEFW_TRY(dma_index(c, true, dt, T, C, H, x, xe, idx));
  TILEFW_TRY(dma(c, Shape4{1, C, 1, H}, dt, ddr_rows(xe, H), side_local(l.b.xn, 0, 0)));
  l.T = C;  // the expert's MLP runs on its C slots
  Status s = ffn(l, TensorId::experts_gate, TensorId::experts_up, TensorId::experts_down, w * I + col0, cols, w * H,
                 col0, l.b.ye);
  if (s == Status::ok) s = dma(c, Shape4{1, C, 1, H}, DType::f32, side_local(l.b.ye, 0, 0), ddr_rows(ye, H));
  l.T = T;
  TILEFW_TRY(s);
  TILEFW_TRY(combine_expert(l, e, e, ye, C, idx, first));
  // The owner reports how many tokens chose the expert (dropped = count - C when positive).
  return store_count ? store_expert_count(l, e) : Status::ok;
}

}  // namespace

Status store_index_column(Layer& l, uint32_t e, uint64_t addr) noexcept {
  return dma(*l.ctx, Shape4{1, l.T, 1, 1}, DType::u32, side_local(l.b.ix, 0, e), ddr_rows(addr, 1));
}

Status combine_expert(Layer& l, uint32_t e, uint32_t col, uint64_t ye, uint32_t src_rows, uint64_t idx,
                      bool first) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t T = l.T, H = l.H;
  set_op(c, "moe_combine");
  c.label.expert = e;
  for (uint32_t g = 0; g < groups_of(T); ++g) {
    const uint32_t row = g * sg::kLanes;
    // The group's rows gathered straight into their lanes (no DDR copy in token order first).
    TILEFW_TRY(dma_gather_rows(c, DType::f32, src_rows, H, ye, idx + uint64_t{row} * 4, rows_in(T, g),
                               side_local(l.b.scratch, row, 0)));
    const Shape4 sh{1, rows_in(T, g), 1, H};
    const Opd part = view(l.b.p, row, 0), got = view(l.b.scratch, row, 0);
    if (first) {
      TILEFW_TRY(ar(c, 0, sh, part, got, column(l.b.rw, row, col)));
    } else {
      TILEFW_TRY(ar(c, 0, sh, got, got, column(l.b.rw, row, col)));
      TILEFW_TRY(ar(c, 2, sh, part, part, got));
    }
  }
  return Status::ok;
}

Status store_expert_count(Layer& l, uint32_t e) noexcept {
  const TensorInfo& counts = tensor(l, TensorId::expert_tokens);
  return dma(*l.ctx, Shape4{1, 1, 1, 1}, DType::f32, side_local(l.b.eq, l.T - 1, e),
             ddr_rows(counts.device_addr + uint64_t{e} * 4, 1));
}

Status allocate_moe(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  Bufs& b = l.b;
  const uint32_t E = c.sized->model.moe.experts, T = l.T;
  const char* what = "MoE routing [tokens, experts] f32";
  for (Buf* buf : {&b.lg, &b.pr, &b.wk, &b.sel, &b.pos, &b.rw, &b.eq}) TILEFW_TRY(alloc(c, *buf, DType::f32, T, E, what));
  TILEFW_TRY(alloc(c, b.ix, DType::u32, T, E, "MoE token indices (uint32)"));
  TILEFW_TRY(alloc(c, b.rmx, DType::f32, T, (E + 1) / 2, "MoE row max scratch"));
  TILEFW_TRY(alloc(c, b.rst, DType::f32, T, 2, "MoE row statistics"));
  TILEFW_TRY(alloc(c, b.tri, DType::f32, T, T, "lower triangular ones [tokens, tokens]"));
  TILEFW_TRY(alloc(c, b.iota, DType::f32, sg::kLanes, 2 * E, "expert indices 0..E-1, then -E..-1 (replicated)"));
  if (c.sized->model.moe.routing == Routing::sigmoid_grouped) {
    const uint32_t G = c.sized->model.moe.n_group, n = E / G;
    for (Buf* buf : {&b.gs, &b.gwk, &b.gsel}) TILEFW_TRY(alloc(c, *buf, DType::f32, T, G, "MoE group scores [tokens, n_group] f32"));
    TILEFW_TRY(alloc(c, b.ebias, DType::f32, sg::kLanes, E, "e_score_correction_bias (replicated)"));
    TILEFW_TRY(alloc(c, b.iota_g, DType::f32, sg::kLanes, 2 * n, "in-group indices (replicated)"));
    TILEFW_TRY(alloc(c, b.iota_n, DType::f32, sg::kLanes, 2 * G, "group indices (replicated)"));
  }
  if (tensor(l, TensorId::moe_choice).present) {
    TILEFW_TRY(alloc(c, b.ids, DType::f32, T, c.sized->model.moe.top_k, "MoE top-k expert ids [tokens, top_k] f32"));
  }
  if (owned_rows(l)) TILEFW_TRY(alloc(c, b.own, DType::f32, T, 1, "MoE owned-rows mask [tokens] f32"));
  // run_expert computes into it on the expert's C slots only
  if (moe_in_passes(*c.sized)) return Status::ok;  // the experts run in their own set (allocate_expert_set)
  const uint32_t C = expert_capacity(*c.sized);
  return alloc(c, b.ye, DType::f32, C, l.H, "expert output [expert slots, hidden] f32");
}

// `dst` (replicated) = 0..n-1 then -n..-1, from the iota constant (0..E-1, n <= E).
Status load_index_row(Layer& l, const Buf& dst, uint32_t n) noexcept {
  Ctx& c = *l.ctx;
  const TensorInfo& iota = tensor(l, TensorId::iota);
  Side rep = ddr_rows(iota.device_addr, n);
  rep.cs = 0;
  TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, n}, DType::f32, rep, side_local(dst, 0, 0)));
  return ar(c, 2, Shape4{1, sg::kLanes, 1, n}, view(dst, 0, n), view(dst, 0, 0), imm(-static_cast<float>(n)));
}

// deepseek_v3: the correction bias and the group / in-group index rows.
Status load_grouped_constants(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const MoeConfig& m = c.sized->model.moe;
  const TensorInfo& bias = tensor(l, TensorId::router_bias);
  Side rep = ddr_rows(bias.device_addr, m.experts);
  rep.cs = 0;
  TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, m.experts}, DType::f32, rep, side_local(l.b.ebias, 0, 0)));
  TILEFW_TRY(load_index_row(l, l.b.iota_g, m.experts / m.n_group));
  return load_index_row(l, l.b.iota_n, m.n_group);
}

Status moe_setup(Layer& l, uint64_t x) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  TILEFW_TRY(rms_norm(l, TensorId::post_attention_layernorm));
  set_op(c, "moe_routing");
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.H}, p.model.dtype, side_local(l.b.xn, 0, 0), ddr_rows(x, l.H)));
  // Constants: the triangular matrix and the index row (0..E-1 and, shifted by -E, beside it).
  const TensorInfo& tri = tensor(l, TensorId::tri_lower);
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.T}, DType::f32, ddr_rows(tri.device_addr, l.T), side_local(l.b.tri, 0, 0)));
  TILEFW_TRY(load_index_row(l, l.b.iota, p.model.moe.experts));
  if (p.model.moe.routing == Routing::sigmoid_grouped) TILEFW_TRY(load_grouped_constants(l));
  if (owned_rows(l)) {  // one mask value a token row
    const TensorInfo& own = tensor(l, TensorId::moe_own);
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, 1}, DType::f32, ddr_rows(own.device_addr, 1), side_local(l.b.own, 0, 0)));
  }
  return Status::ok;
}

Status moe_block(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t E = p.model.moe.experts, C = expert_capacity(p), ep = p.parallel.ep;
  TILEFW_TRY(moe_setup(l, core_slice(l, TensorId::moe_x)));
  TILEFW_TRY(routing(l, C, 0));
  if (c.core == 0 && tensor(l, TensorId::moe_choice).present) {  // before the counts (see the tensor)
    const TensorInfo& ids = tensor(l, TensorId::moe_choice);
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, p.model.moe.top_k}, DType::f32, side_local(l.b.ids, 0, 0),
                   ddr_rows(ids.device_addr, p.model.moe.top_k)));
  }
  // Phased: the counts go to DDR for the control core, which generates what follows the
  // boundary with each expert on exactly its routed rows (none: no command, no weight load).
  // They go before the shared experts: the control core waits only for these stores, and
  // generates while the engines still run the shared experts.
  for (uint32_t e = c.core; phased(c) && e < E; e += ep) TILEFW_TRY(store_expert_count(l, e));
  // Shared experts (deepseek_v3): this core's columns of their SwiGLU start the partial, on
  // the normalised tokens still in l.b.xn (the routed experts overwrite it).
  if (l.s.sfl > 0 && shared_here(l)) {  // not on the other chips of an expert-parallel group
    TILEFW_TRY(ffn(l, TensorId::shared_gate_w, TensorId::shared_up_w, TensorId::shared_down_w, l.s.sf0, l.s.sfl, 0,
                   l.s.sf0, l.b.p));
    if (owned_rows(l)) TILEFW_TRY(mask_owned_rows(l, l.b.p, 0, l.H));  // a partial over every column
  }
  return moe_block_experts(l);
}

// The experts' phase knows every expert's rows, so the control core spreads the experts that
// received tokens over the ep cores instead of leaving each on its owner (e mod ep): every core
// holds all experts' index and weight columns after the routing, so any core can run any
// expert. Greedy in expert order: each expert goes to the least-loaded core so far (ties: the
// lowest core), its load the longer of its weight stream and its matrix work. One token each
// (decode) is a round robin, so the cores get equal counts of experts. A core takes at most as
// many experts as it owns (e mod ep), so buffers sized for the worst case (every expert on its
// capacity, each on its owner) hold every placement.
bool balancing_experts(const Ctx& c) noexcept {
  return c.phase.phase == 2 && c.phase.expert_tokens != nullptr && !c.phase.owner_placement;
}

// The cap per core counts the experts this chip holds (a share of the model's on a chip of an
// expert-parallel group), as the worst case that sizes the buffers does.
ExpertBalance::ExpertBalance(const SizedLayer& p) noexcept
    : cores_(p.parallel.ep),
      experts_(p.parallel.expert_count != 0 ? p.parallel.expert_count : p.model.moe.experts) {
  const uint64_t HI = uint64_t{p.model.hidden} * p.model.moe.expert_intermediate;
  // gate, up and down: 3 H I weights over one core's share of the DDR bandwidth; 3 H I MACs per
  // row over the core's MM2 (64 lanes x 128 MAC per cycle for 16-bit types, 32 for f32).
  const uint64_t bytes = 3 * HI * dtype_size(p.model.dtype);
  weight_cycles_ = bytes * (sg::kClockHz / 1'000'000) / (sg::kDdrBytesPerSecondPerCore / 1'000'000);
  const uint64_t mac = uint64_t{sg::kLanes} * (p.model.dtype == DType::f32 ? sg::kMacPerLaneF32 : sg::kMacPerLaneF16);
  row_cycles_ = (3 * HI + mac - 1) / mac;
}

uint32_t ExpertBalance::place(uint32_t rows) noexcept {
  uint32_t best = kMaxCores;
  for (uint32_t k = 0; k < cores_; ++k) {
    const uint32_t owned = k < experts_ ? (experts_ - k + cores_ - 1) / cores_ : 0;
    if (placed_[k] >= owned) continue;
    if (best == kMaxCores || load_[k] < load_[best]) best = k;
  }
  if (best == kMaxCores) return kMaxCores;  // more experts placed than exist: not a core
  const uint64_t work = uint64_t{rows} * row_cycles_;
  load_[best] += work > weight_cycles_ ? work : weight_cycles_;
  ++placed_[best];
  return best;
}

namespace {

// One expert's block of the experts' phase: from a settled dependency state and weight slot 0,
// so blocks of one shape are copies of each other up to the expert's addresses and the
// dependency ids (expert_blocks.hpp); copied when two such blocks were built before.
Status expert_block(Layer& l, ExpertBlocks& blocks, uint32_t e, uint32_t rows, bool first, bool store_count) noexcept {
  const uint32_t I = l.ctx->sized->model.moe.expert_intermediate;
  if (l.ctx->phase.phase != 2) return run_expert(l, e, rows, first, store_count, 0, I);
  settle_tracker(*l.ctx);
  l.slot = 0;
  blocks.begin();
  if (blocks.copy(e, rows, first ? 1 : 0, l.slot)) return Status::ok;
  TILEFW_TRY(run_expert(l, e, rows, first, store_count, 0, I));
  blocks.record(e, rows, first ? 1 : 0, l.slot);
  return Status::ok;
}

// A slice of an expert (ExpertSplit): built from a settled start on weight slot 0 like every
// block of the phase, never copied nor recorded as a sample (a core runs at most one slice,
// and a slice's fields are not linear in the expert alone: its columns move with the core).
Status expert_slice_block(Layer& l, uint32_t e, uint32_t rows, bool first, uint32_t col0, uint32_t cols) noexcept {
  settle_tracker(*l.ctx);
  l.slot = 0;
  return run_expert(l, e, rows, first, false, col0, cols);
}

}  // namespace

// Fewer routed experts than cores: the routed experts of the chip, in expert order, take
// consecutive ranges of the cores [0, n) (expert j of R: cores [j n / R, (j + 1) n / R)), and
// each splits its I columns evenly over its range (the wider slices first). n is the number of
// cores that run at least one whole expert when every expert is on its capacity (the chip's
// experts, at most ep), so a core's one slice (at most C rows, at most I columns: no more
// commands than a whole expert on C rows) fits buffers sized for that worst case.
ExpertSplit::ExpertSplit(const Ctx& c, uint32_t C) noexcept {
  const SizedLayer& p = *c.sized;
  if (c.phase.phase != 2 || c.phase.expert_tokens == nullptr || c.phase.owner_placement || !c.phase.split_experts ||
      moe_in_passes(p)) {
    return;
  }
  const uint32_t E = p.model.moe.experts, local = p.parallel.expert_count == 0 ? E : p.parallel.expert_count;
  const uint32_t n = local < p.parallel.ep ? local : p.parallel.ep;
  uint32_t routed = 0;
  for (uint32_t e = 0; e < E; ++e) routed += local_expert(p, e) && expert_rows(c, e, C) > 0 ? 1 : 0;
  if (routed == 0 || routed >= n) return;
  active_ = true;
  uint32_t j = 0;
  for (uint32_t e = 0; e < E && c.core < n; ++e) {
    if (!local_expert(p, e) || expert_rows(c, e, C) == 0) continue;
    const uint32_t lo = j * n / routed, hi = (j + 1) * n / routed;
    ++j;
    if (c.core < lo || c.core >= hi) continue;
    const uint32_t k = hi - lo, i = c.core - lo, I = p.model.moe.expert_intermediate;
    const uint32_t base = I / k, extra = I % k;
    expert_ = e;
    cols_ = base + (i < extra ? 1 : 0);
    col0_ = i * base + (i < extra ? i : extra);
    return;
  }
}

Status moe_block_experts(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t E = p.model.moe.experts, C = expert_capacity(p), ep = p.parallel.ep;
  phase_boundary(c);
  if (phased(c)) {  // the experts' phase starts its weight slots and L2 areas afresh
    l.slot = 0;
    l.l2_area = 0;
  }
  ExpertBlocks blocks(c);
  bool first = l.s.sfl == 0 || !shared_here(l);  // the shared experts started the partial
  const ExpertSplit split(c, C);
  if (split.active()) {  // fewer routed experts than cores: at most one slice here
    if (split.cols() > 0) {
      TILEFW_TRY(expert_slice_block(l, split.expert(), expert_rows(c, split.expert(), C), first, split.col0(),
                                    split.cols()));
      first = false;
    }
  } else if (balancing_experts(c)) {
    ExpertBalance bal(p);
    for (uint32_t e = 0; e < E; ++e) {
      if (!local_expert(p, e)) continue;
      const uint32_t rows = expert_rows(c, e, C);
      if (rows == 0 || bal.place(rows) != c.core) continue;
      TILEFW_TRY(expert_block(l, blocks, e, rows, first, false));
      first = false;
    }
  } else {
    for (uint32_t e = c.core; e < E; e += ep) {
      const uint32_t rows = expert_rows(c, e, C);
      if (rows == 0 || !local_expert(p, e)) continue;
      TILEFW_TRY(expert_block(l, blocks, e, rows, first, !phased(c)));
      first = false;
    }
  }
  if (c.phase.phase == 2) settle_tracker(c);  // a copied block leaves no tracker state behind
  if (first) {  // no expert on this core: a zero partial
    TILEFW_TRY(dma_fill(c, Shape4{1, l.T, 1, l.H}, DType::f32, 0, side_local(l.b.p, 0, 0)));
  }
  TILEFW_TRY(drop_residual(l));  // an expert-parallel group's other chips: their experts' share only
  return reduce_into_residual(l, TensorId::down_proj_b, ep, ep > 1, AfterReduce::store_slice);
}

bool owned_rows(const Layer& l) noexcept { return tensor(l, TensorId::moe_own).present; }

bool shared_here(const Layer& l) noexcept { return l.ctx->sized->parallel.residual || owned_rows(l); }

Status mask_owned_rows(Layer& l, const Buf& b, uint32_t col0, uint32_t cols) noexcept {
  set_op(*l.ctx, "moe_owned_rows");
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    const Opd v = view(b, row, col0);
    TILEFW_TRY(ar(*l.ctx, 0, Shape4{1, rows_in(l.T, g), 1, cols}, v, v, column(l.b.own, row, 0)));
  }
  return Status::ok;
}

bool local_expert(const SizedLayer& p, uint32_t e) noexcept {
  const uint32_t n = p.parallel.expert_count;
  return n == 0 || e % (p.model.moe.experts / n) == p.parallel.expert_first;
}

Status moe_barriers_only(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  phase_boundary(c);
  if (c.sized->parallel.ep > 1) {  // attention-only core: the MoE reduction's barriers
    for (uint32_t i = 0; i < kBarriersPerReduction; ++i) TILEFW_TRY(barrier(c));
  }
  return Status::ok;
}

}  // namespace tilefw::gen::detail
