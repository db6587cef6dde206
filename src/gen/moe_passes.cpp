// A MoE layer whose request runs in passes (token chunks of a long prefill, row passes of a
// large decode batch): each expert runs once over its slots of the whole request instead of
// once per pass. Re-running every expert per pass streamed each expert's weights once per pass
// for a few token slots each time: DeepSeek-V3's prefill 4096 in 64 passes of 64 tokens moved
// every routed expert's 88 MB 64 times (72x its bound, 8.9 M commands).
//
// The capacity C of Rule: capacity (docs/generator.md section 3) counts the request's tokens, and
// the slots are numbered across the
// passes in token order (the flattened [batch, seq] rows: chunks and row passes both run in
// that order), so which tokens an expert keeps does not depend on how the request was cut.
//
//   1. Per pass: attention as usual; then post_attention_layernorm, the routing with the slots
//      continued from the earlier passes (the running count per expert goes through DDR,
//      TensorId::moe_cnt), and the dispatch by rank (rank_rows): for each q < min(top_k, local
//      experts), the row of every token's q-th kept choice among this core's experts in their
//      slots laid end to end (moe_idx) and its weight (moe_rw); one scatter per rank puts the
//      pass's normalised tokens into those slots (moe_xe). The residual waits in DDR (moe_res).
//   2. Each local expert once over its C slots, in a buffer set of its own over the whole LMEM
//      (everything else is parked in DDR by then), as many slots at a time as fit (all of
//      DeepSeek-V3 prefill's 160: each expert's weights streamed once): moe_xe -> SwiGLU ->
//      moe_ye.
//   3. Per pass: the residual and the ranks' weights back, the shared experts on the pass's
//      tokens, one gather per rank of the experts' outputs straight into the lanes, added
//      weighted (as in a one-pass layer), the expert-parallel reduction into the residual and
//      the output stored.
// The barriers keep their order on every core: all the passes' attention reductions, then all
// the MoE reductions (cores without experts join those with barriers only).
#include "expert_blocks.hpp"
#include "layer.hpp"

#include <utility>

namespace tilefw::gen::detail {

namespace {

uint64_t lane_bytes(uint32_t rows, uint32_t cols, uint32_t esize) noexcept {
  return (uint64_t{cols} * esize + 63) / 64 * 64 * groups_of(rows);
}

// Swaps the expert set's buffers with the ones ffn() uses (twice: in, then back).
void swap_expert_set(Layer& l) noexcept {
  Bufs& b = l.b;
  Layer::ExpertSet& x = l.xs;
  for (auto [a, z] : {std::pair<Buf*, Buf*>{&b.xn, &x.xn}, {&b.ye, &x.ye}, {&b.gt, &x.gt}, {&b.up, &x.up},
                      {&b.ab, &x.ab}, {&b.ex, &x.ex}, {&b.erf, &x.erf}, {&b.scratch, &x.scratch}, {&b.tay, &x.tay},
                      {&b.w[0], &x.w[0]}, {&b.w[1], &x.w[1]}}) {
    const Buf t = *a;
    *a = *z;
    *z = t;
  }
  const uint32_t r = b.slot_rows, c = b.slot_cols;
  b.slot_rows = x.slot_rows;
  b.slot_cols = x.slot_cols;
  x.slot_rows = r;
  x.slot_cols = c;
}

// The pass's first token in the request's flattened [batch, seq] order.
uint32_t pass_row0(const Layer& l) noexcept { return l.chunk * l.T; }

// Row `row` of the j-th local expert's [rows, cols] block in a per-core scratch tensor.
uint64_t expert_block(const Layer& l, TensorId id, uint32_t j, uint32_t rows, uint64_t row, uint32_t cols,
                      uint32_t esize) noexcept {
  return core_slice(l, id) + ((uint64_t{j} * rows + row) * cols) * esize;
}

// The pass's rows of a per-core [request tokens, cols] scratch tensor.
uint64_t pass_rows(const Layer& l, TensorId id, uint32_t cols, uint32_t esize) noexcept {
  return core_slice(l, id) + uint64_t{pass_row0(l)} * cols * esize;
}

void use_moe_buffers(Layer& l) noexcept {
  if (l.overlay.end == l.overlay.second) return;  // MLA: the MoE's buffers reuse the attention's bytes
  enter_overlay(*l.ctx, l.overlay);
  l.b.use(l.b.next);
}

void use_attention_buffers(Layer& l) noexcept {
  if (l.overlay.end == l.overlay.second) return;
  leave_overlay(*l.ctx, l.overlay);
  l.b.use(l.b.first);
}

// This core's experts in passes and the routing columns it reads for them. One chip: experts e =
// core, core + ep, ... (columns strided by ep). A chip of an expert-parallel group holds the n
// experts e = expert_first + S j (S = experts / n); core c takes an even share of their indices
// j, contiguous ([j0, j0 + count)), and reads the columns [S j0, S (j0 + count)): whole blocks
// of S experts, each holding one of the chip's, which a per-chip mask (TensorId::moe_local)
// picks. So the routing phase's commands do not depend on which experts the chip holds (the
// chips after a group's first share their streams) and the experts spread over the cores (the
// one-chip rule, e mod ep, would leave a group of 8 or more chips with all of a chip's experts
// on one core).
struct OwnedExperts {
  uint32_t first = 0, ws = 1, cols = 0;  // the routing columns read: first, first + ws, ... (cols)
  uint32_t count = 0, e0 = 0, step = 1;  // the experts: e0, e0 + step, ... (count)
  uint32_t S = 1, j0 = 0;                // a group's chip: block width, first local index
};
OwnedExperts owned_experts(const Layer& l) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  const uint32_t E = p.model.moe.experts, ep = p.parallel.ep, n = p.parallel.expert_count, core = l.ctx->core;
  OwnedExperts o;
  if (n == 0) {
    o.first = o.e0 = core;
    o.ws = o.step = ep;
    o.count = o.cols = core < E ? (E - core + ep - 1) / ep : 0;
    return o;
  }
  o.S = E / n;
  o.count = core < ep ? n / ep + (core < n % ep ? 1 : 0) : 0;
  o.j0 = core * (n / ep) + (core < n % ep ? core : n % ep);
  o.first = o.S * o.j0;
  o.cols = o.S * o.count;
  o.e0 = p.parallel.expert_first + o.S * o.j0;
  o.step = o.S;
  return o;
}
// The expert's place in this chip's weight tensors (expert e at e / S: ParallelConfig).
uint32_t weight_index(const SizedLayer& p, uint32_t e) noexcept {
  const uint32_t n = p.parallel.expert_count;
  return n == 0 ? e : e / (p.model.moe.experts / n);
}

// Local experts of this core and the most of them one token can choose: the token's choices on
// this core, taken in expert order, are its "ranks" 0..K-1.
uint32_t local_count(const Layer& l) noexcept { return owned_experts(l).count; }
uint32_t rank_count(const Layer& l) noexcept {
  const uint32_t k = l.ctx->sized->model.moe.top_k, L = local_count(l);
  return k < L ? k : L;
}

// For the pass's rows [row, row + r): per rank q, the row of the token's q-th kept local choice
// in the local experts' slots laid end to end (expert j's slot s at j x C + s; none: L x C, out
// of range) into column q of l.b.ix (uint32), and its routing weight into column q of l.b.rw.
// One gather or scatter per rank then moves a token's rows for every local expert it chose
// (K = min(top_k, L) of them instead of one per local expert: the gathers fill zeros for the
// tokens that did not choose the expert, and moving those was most of the combine's time).
// Work buffers are the routing's, free by now: lg = slot rows, pr = kept (0/1), wk = running
// rank, eq = this rank's indicator, sel = the local weights, pos (once copied) a product.
Status rank_rows(Layer& l, uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  Bufs& b = l.b;
  const OwnedExperts o = owned_experts(l);
  const uint32_t L = o.cols, K = rank_count(l), C = expert_capacity(p), E = p.model.moe.experts;
  const float none = static_cast<float>(uint64_t{o.count} * C);
  const Shape4 sh{1, r, 1, L}, one{1, r, 1, 1};
  const bool masked = p.parallel.expert_count != 0;  // b.iota holds moe_local (dispatch_pass)
  const Opd slot = view(b.lg, row, 0), kept = view(b.pr, row, 0), rank = view(b.wk, row, 0);
  const Opd ind = view(b.eq, row, 0), wl = view(b.sel, row, 0), prod = view(b.pos, row, 0);
  Opd pos_local = view(b.pos, row, o.first), rw_local = view(b.rw, row, o.first);
  pos_local.ws = o.ws;  // this core's experts' columns
  rw_local.ws = o.ws;
  TILEFW_TRY(ar(c, 0, sh, slot, pos_local, imm(1.0f)));  // slot, or >= C (dropped / not chosen)
  TILEFW_TRY(ar(c, 0, sh, wl, rw_local, imm(1.0f)));
  // kept = C - min(max(slot, C - 1), C): 1 for a slot below C, else 0
  TILEFW_TRY(ar(c, 4, sh, kept, slot, imm(static_cast<float>(C) - 1.0f)));
  TILEFW_TRY(ar(c, 5, sh, kept, kept, imm(static_cast<float>(C))));
  TILEFW_TRY(ar(c, 0, sh, kept, kept, imm(-1.0f)));
  TILEFW_TRY(ar(c, 2, sh, kept, kept, imm(static_cast<float>(C))));
  if (masked) {  // only the chip's experts are kept; a block's one expert is local j = e / S - j0
    TILEFW_TRY(ar(c, 0, sh, kept, kept, view(b.iota, 0, o.first)));
    TILEFW_TRY(ar(c, 0, sh, ind, view(b.iota, 0, E + o.first), imm(static_cast<float>(C))));
    TILEFW_TRY(ar(c, 2, sh, ind, ind, imm(-static_cast<float>(uint64_t{o.j0} * C))));  // j x C
  } else {
    TILEFW_TRY(ar(c, 0, sh, ind, view(b.iota, 0, 0), imm(static_cast<float>(C))));  // j x C
  }
  TILEFW_TRY(ar(c, 2, sh, slot, slot, ind));
  TILEFW_TRY(ar(c, 0, one, view(b.wk, row, 0), view(b.pr, row, 0), imm(1.0f)));  // rank = running count of kept
  for (uint32_t j = 1; j < L; ++j) {
    TILEFW_TRY(ar(c, 2, one, view(b.wk, row, j), view(b.wk, row, j - 1), view(b.pr, row, j)));
  }
  const Opd got = view(b.rst, row, 0), any = view(b.rst, row, 1);
  for (uint32_t q = 0; q < K; ++q) {
    TILEFW_TRY(ar(c, 11, sh, ind, rank, imm(static_cast<float>(q + 1))));  // the (q+1)-th kept choice
    TILEFW_TRY(ar(c, 0, sh, ind, ind, kept));
    TILEFW_TRY(row_sums(l, any, ind, r, L));
    TILEFW_TRY(ar(c, 0, sh, prod, ind, slot));
    TILEFW_TRY(row_sums(l, got, prod, r, L));
    TILEFW_TRY(ar(c, 0, sh, prod, ind, wl));
    TILEFW_TRY(row_sums(l, view(b.rw, row, q), prod, r, L));
    // got + (1 - any) x none: the slot row, or out of range when the token has no such choice
    TILEFW_TRY(ar(c, 0, one, any, any, imm(-none)));
    TILEFW_TRY(ar(c, 2, one, got, got, any));
    TILEFW_TRY(ar(c, 2, one, got, got, imm(none)));
    TILEFW_TRY(ar(c, 14, one, view(b.ix, row, q), got));
  }
  return Status::ok;
}

// Step 1 after the pass's attention: route, dispatch by rank, park the residual and the ranks'
// rows and weights.
Status dispatch_pass(Layer& l, bool last_pass) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint32_t E = p.model.moe.experts, C = expert_capacity(p), N = request_tokens(p), es = dtype_size(dt);
  const uint32_t L = local_count(l);
  const uint64_t x = pass_rows(l, TensorId::moe_x, l.H, es);
  TILEFW_TRY(moe_setup(l, x));
  TILEFW_TRY(routing(l, C, core_slice(l, TensorId::moe_cnt)));
  // The owner reports how many tokens chose the expert in the whole request (dropped = count -
  // C when positive): the running total after the last pass (before rank_rows reuses eq).
  for (uint32_t e = c.core; last_pass && e < E; e += p.parallel.ep) TILEFW_TRY(store_expert_count(l, e));
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.H}, DType::f32, side_local(l.b.x, 0, 0), ddr_rows(pass_rows(l, TensorId::moe_res, l.H, 4), l.H)));
  if (p.parallel.expert_count != 0) {  // the routing is done: b.iota takes the chip's mask (moe_setup reloads it)
    Side rep = ddr_rows(tensor(l, TensorId::moe_local).device_addr, 2 * E);
    rep.cs = 0;
    TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, 2 * E}, DType::f32, rep, side_local(l.b.iota, 0, 0)));
  }
  for (uint32_t g = 0; g < groups_of(l.T); ++g) TILEFW_TRY(rank_rows(l, g * sg::kLanes, rows_in(l.T, g)));
  set_op(c, "moe_dispatch");
  for (uint32_t q = 0; q < rank_count(l); ++q) {
    const uint64_t idx = expert_block(l, TensorId::moe_idx, q, N, pass_row0(l), 1, 4);
    TILEFW_TRY(store_index_column(l, q, idx));
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, 1}, DType::f32, side_local(l.b.rw, 0, q),
                   ddr_rows(expert_block(l, TensorId::moe_rw, q, N, pass_row0(l), 1, 4), 1)));
    TILEFW_TRY(dma_index(c, true, dt, l.T, L * C, l.H, x, core_slice(l, TensorId::moe_xe), idx));
  }
  return Status::ok;
}

// Step 2: every local expert over its C slots, l.xs.rows of them at a time.
Status run_experts(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint32_t C = expert_capacity(p), I = p.model.moe.expert_intermediate;
  const uint32_t T = l.T, H = l.H, es = dtype_size(dt), block = l.xs.rows;
  const OwnedExperts o = owned_experts(l);
  // In the experts' phase each block (an expert's r slots from row s) starts settled and on
  // weight slot 0, so blocks of one (r, s) are copies of each other up to the expert's
  // addresses and the dependency ids (expert_blocks.hpp; the slot addresses are linear in j,
  // so in the expert, on one core).
  const bool blocks_settle = c.phase.phase == 2;
  ExpertBlocks blocks(c);
  for (uint32_t e = o.e0, j = 0; j < o.count; e += o.step, ++j) {
    const uint32_t rows = expert_rows(c, e, C);  // the routed rows in the experts' phase
    const uint32_t w = weight_index(p, e);
    for (uint32_t s = 0; s < rows; s += block) {
      const uint32_t r = rows - s < block ? rows - s : block;
      if (blocks_settle) {
        settle_tracker(c);
        l.slot = 0;
        blocks.begin();
        if (blocks.copy(e, r, s, l.slot)) continue;
      }
      set_op(c, "moe_slots");  // the expert's slots in and out (its MLP's ops label themselves)
      c.label.expert = e;
      const uint64_t xe = expert_block(l, TensorId::moe_xe, j, C, s, H, es);
      TILEFW_TRY(dma(c, Shape4{1, r, 1, H}, dt, ddr_rows(xe, H), side_local(l.b.xn, 0, 0)));
      l.T = r;  // the expert's MLP on r of its slots
      Status st = ffn(l, TensorId::experts_gate, TensorId::experts_up, TensorId::experts_down, w * I, I, w * H, 0, l.b.ye);
      l.T = T;
      TILEFW_TRY(st);
      const uint64_t ye = expert_block(l, TensorId::moe_ye, j, C, s, H, 4);
      set_op(c, "moe_slots");
      c.label.expert = e;
      TILEFW_TRY(dma(c, Shape4{1, r, 1, H}, DType::f32, side_local(l.b.ye, 0, 0), ddr_rows(ye, H)));
      if (blocks_settle) blocks.record(e, r, s, l.slot);
    }
  }
  if (blocks_settle) settle_tracker(c);  // a copied block leaves no tracker state behind
  return Status::ok;
}

// The exp Taylor table (and the erf polynomial for gelu) into l.b.tay (l.b.erf).
Status load_activation_tables(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "load_constants");
  TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, kExpTerms}, DType::f32,
                 ddr(tensor(l, TensorId::exp_taylor).device_addr, 0, kExpTerms), side_local(l.b.tay, 0, 0)));
  if (c.sized->model.act != Activation::gelu) return Status::ok;
  return dma(c, Shape4{1, sg::kLanes, 1, kErfTerms}, DType::f32,
             ddr(tensor(l, TensorId::erf_poly).device_addr, 0, kErfTerms), side_local(l.b.erf, 0, 0));
}

// Step 2 in the expert set: its bytes are everything's, so it starts after every earlier access
// and everything after waits for it (hand_over both ways).
Status experts_step(Layer& l) noexcept {
  Layer::ExpertSet& x = l.xs;
  Ctx& c = *l.ctx;
  hand_over(c, 0, x.first, x.first, x.end);
  swap_expert_set(l);
  Status s = load_activation_tables(l);
  if (s == Status::ok) s = run_experts(l);
  swap_expert_set(l);
  hand_over(c, x.first, x.end, 0, x.first);
  TILEFW_TRY(s);
  // The combine needs the pass's constants back where the experts' step overwrote them: the
  // tables of the shared experts' activation and the ones vector of the norms' row sums.
  TILEFW_TRY(load_activation_tables(l));
  return dma_fill(c, Shape4{1, l.b.ones.rows, 1, 1}, DType::f32, 0x3F800000u, side_local(l.b.ones, 0, 0));
}

// Step 3 for one pass: shared experts, the weighted gathers, the reduction, the output.
Status combine_pass(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const DType dt = p.model.dtype;
  const uint32_t C = expert_capacity(p), N = request_tokens(p), ep = p.parallel.ep;
  set_op(c, "moe_combine");
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.H}, DType::f32, ddr_rows(pass_rows(l, TensorId::moe_res, l.H, 4), l.H), side_local(l.b.x, 0, 0)));
  bool first = true;
  // deepseek_v3's shared experts: this core's columns start the partial (on an expert-parallel
  // group's first chip only, as in one pass)
  if (l.s.sfl > 0 && p.parallel.residual) {
    const uint64_t x = pass_rows(l, TensorId::moe_x, l.H, dtype_size(dt));
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.H}, dt, ddr_rows(x, l.H), side_local(l.b.xn, 0, 0)));
    TILEFW_TRY(ffn(l, TensorId::shared_gate_w, TensorId::shared_up_w, TensorId::shared_down_w, l.s.sf0, l.s.sfl, 0,
                   l.s.sf0, l.b.p));
    first = false;
  }
  set_op(c, "moe_combine");
  for (uint32_t q = 0; q < rank_count(l); ++q) {
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, 1}, DType::f32, ddr_rows(expert_block(l, TensorId::moe_rw, q, N, pass_row0(l), 1, 4), 1),
                   side_local(l.b.rw, 0, q)));
  }
  for (uint32_t q = 0; q < rank_count(l); ++q) {
    const uint64_t idx = expert_block(l, TensorId::moe_idx, q, N, pass_row0(l), 1, 4);
    TILEFW_TRY(combine_expert(l, kNoTile, q, core_slice(l, TensorId::moe_ye), local_count(l) * C, idx, first));
    first = false;
  }
  if (first) {  // no expert on this core: a zero partial
    TILEFW_TRY(dma_fill(c, Shape4{1, l.T, 1, l.H}, DType::f32, 0, side_local(l.b.p, 0, 0)));
  }
  TILEFW_TRY(drop_residual(l));  // an expert-parallel group's other chips: their experts' share only
  return reduce_into_residual(l, TensorId::down_proj_b, ep, ep > 1, AfterReduce::store_slice);
}

}  // namespace

// The experts' step needs only the expert's slots, its SwiGLU's buffers and the weight slots:
// they get the whole LMEM (offset 0 up), as many row groups of slots as fit. The MoE set then
// has no expert buffers of its own (a pass can be longer).
Status allocate_expert_set(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t C = expert_capacity(p), H = l.H, ic = l.ic;
  if (!l.s.moe_active) return Status::ok;
  const DType dt = p.model.dtype;
  const uint32_t es = static_cast<uint32_t>(dtype_size(dt));
  const bool erf = p.model.act == Activation::gelu;
  const uint32_t slot_rows = l.b.slot_rows, slot_cols = l.b.next.rows != 0 ? l.b.next.cols : l.b.slot_cols;
  const uint32_t rows_of_slots = l.b.next.rows != 0 ? l.b.next.rows : slot_rows;
  const uint64_t fixed = lane_bytes(sg::kLanes, ic, 4) + lane_bytes(sg::kLanes, kExpTerms, 4) +
                         (erf ? lane_bytes(sg::kLanes, kErfTerms, 4) : 0) + 2 * lane_bytes(rows_of_slots, slot_cols, es);
  const uint64_t group = lane_bytes(1, H, es) + lane_bytes(1, H, 4) + 2 * lane_bytes(1, ic, 4) + lane_bytes(1, ic, es) +
                         (erf ? lane_bytes(1, ic, 4) : 0);
  if (fixed + group > sg::kLaneBytes) {
    return fail(c, Status::gen_cannot_map, "experts' step: one row group of slots", static_cast<uint32_t>(fixed + group));
  }
  const uint64_t fit = (sg::kLaneBytes - fixed) / group;
  const uint32_t rows = fit >= groups_of(C) ? C : static_cast<uint32_t>(fit) * sg::kLanes;
  Layer::ExpertSet& x = l.xs;
  const uint32_t mark = c.lmem_used;
  c.lmem_used = 0;
  x.first = static_cast<uint8_t>(c.next_buf);
  TILEFW_TRY(alloc(c, x.xn, dt, rows, H, "experts' step: slots in [rows, hidden]"));
  TILEFW_TRY(alloc(c, x.ye, DType::f32, rows, H, "experts' step: slots out [rows, hidden] f32"));
  TILEFW_TRY(alloc(c, x.gt, DType::f32, rows, ic, "experts' step: gate f32"));
  TILEFW_TRY(alloc(c, x.up, DType::f32, rows, ic, "experts' step: up f32"));
  TILEFW_TRY(alloc(c, x.ab, dt, rows, ic, "experts' step: act(gate) x up"));
  if (erf) {
    TILEFW_TRY(alloc(c, x.ex, DType::f32, rows, ic, "experts' step: gelu temporary"));
    TILEFW_TRY(alloc(c, x.erf, DType::f32, sg::kLanes, kErfTerms, "experts' step: erf polynomial"));
  }
  TILEFW_TRY(alloc(c, x.scratch, DType::f32, sg::kLanes, ic, "experts' step: activation scratch f32"));
  TILEFW_TRY(alloc(c, x.tay, DType::f32, sg::kLanes, kExpTerms, "experts' step: exp Taylor table"));
  TILEFW_TRY(alloc(c, x.w[0], dt, rows_of_slots, slot_cols, "experts' step: weight tile slot 0"));
  TILEFW_TRY(alloc(c, x.w[1], dt, rows_of_slots, slot_cols, "experts' step: weight tile slot 1"));
  x.slot_rows = rows_of_slots;
  x.slot_cols = slot_cols;
  x.rows = rows;
  x.end = static_cast<uint8_t>(c.next_buf);
  c.lmem_used = c.lmem_used > mark ? c.lmem_used : mark;
  return Status::ok;
}

Status moe_pass_program(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  for (uint32_t i = 0; i < p.chunks; ++i) {
    set_pass(l, i);
    TILEFW_TRY(attention_phase(l));
    if (!l.s.moe_active) continue;
    use_moe_buffers(l);
    TILEFW_TRY(dispatch_pass(l, i + 1 == p.chunks));
    use_attention_buffers(l);
  }
  return moe_pass_experts(l);
}

Status moe_pass_experts(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  phase_boundary(c);  // every pass routed: the control core reads the request's counts
  if (phased(c)) {  // its weight slots and L2 areas afresh (phase 1 drained)
    l.slot = 0;
    l.l2_area = 0;
  }
  if (l.s.moe_active) {
    use_moe_buffers(l);
    TILEFW_TRY(experts_step(l));
  }
  for (uint32_t i = 0; i < p.chunks; ++i) {
    set_pass(l, i);
    if (l.s.moe_active) {
      TILEFW_TRY(combine_pass(l));
    } else if (p.parallel.ep > 1) {  // attention-only core: the MoE reduction's barriers
      set_op(c, "barrier");
      for (uint32_t k = 0; k < kBarriersPerReduction; ++k) TILEFW_TRY(barrier(c));
    }
    if (c.core == 0 && !l.output_stored) TILEFW_TRY(store_output_columns(l, 0, l.H));  // x whole on core 0
    l.output_stored = false;
  }
  return Status::ok;
}

}  // namespace tilefw::gen::detail
