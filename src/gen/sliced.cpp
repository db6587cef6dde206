// The sliced residual of dense tensor-parallel layers (see sliced_residual in layer.hpp):
// partial sums leaving per output tile, the reduce-scatters into the core's slice (spread over
// later work by hook points, see pipeline.cpp), the post-attention norm computed on slices
// with every core's sums of squares exchanged, and the input norm over whole rows of
// hidden_states one row group at a time.
//
// L2 traffic per token and core (hidden H, P cores): the partial's other columns out and the
// other cores' partials of the slice in (2 x (P-1)/P x 4H bytes per reduction), and the P sums
// of squares. The normalised x is all-gathered through DDR ((P-1)/P x 2H bytes in for bf16).
#include "layer.hpp"

namespace tilefw::gen::detail {

namespace {
uint32_t min_u32(uint32_t a, uint32_t b) noexcept { return a < b ? a : b; }

uint64_t partial_region_bytes(const SizedLayer& p) noexcept {
  return (uint64_t{p.parallel.tp} - 1) * pass_tokens(p) * p.model.hidden * 4;
}
uint64_t result_region_bytes(const SizedLayer& p) noexcept {
  return (uint64_t{pass_tokens(p)} * p.parallel.tp * 4 + 63) / 64 * 64;  // every core's sums of squares
}
uint64_t l2_area_base(const Layer& l, uint32_t area) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  return sg::kL2Base + p.memory.l2_offset + uint64_t{area} * sliced_l2_area_bytes(p);
}
}  // namespace

uint64_t sliced_l2_area_bytes(const SizedLayer& p) noexcept {
  return partial_region_bytes(p) + result_region_bytes(p);
}

Side l2_part(const Layer& l, uint32_t area, uint32_t writer, uint32_t col) noexcept {
  const uint32_t P = l.ctx->sized->parallel.tp;
  uint32_t owner = 0, c0 = 0, w = 0;
  for (owner = 0; owner + 1 < P; ++owner) {  // the slice holding `col`
    slice_of(l, owner, P, c0, w);
    if (col < c0 + w) break;
  }
  slice_of(l, owner, P, c0, w);
  const uint32_t source = writer < owner ? writer : writer - 1;  // the owner writes no run
  const uint64_t region = (uint64_t{P} - 1) * l.T * c0 * 4;     // the slices before the owner's
  const uint64_t offset = region + (uint64_t{source} * l.T * w + (col - c0)) * 4;
  Side s;
  s.addr = sg::make_dma_address(sg::kTagL2, l2_area_base(l, area) + offset);
  s.cs = w;
  s.hs = w;
  return s;
}

Side l2_result(const Layer& l, uint32_t area) noexcept {
  Side s;
  s.addr = sg::make_dma_address(sg::kTagL2, l2_area_base(l, area) + partial_region_bytes(*l.ctx->sized));
  s.cs = l.H;
  s.hs = l.H;
  return s;
}


// Whole rows [row, row + r) of hidden_states into l.b.stage and their norm into l.b.xn.
Status rms_norm_staged(Layer& l, TensorId weight) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, op_name(weight));
  const bool shared = l.b.q.offset == l.b.stage.offset;  // q lives in stage's bytes
  if (shared) hand_over(c, l.b.q.id, l.b.q.id + 1u, l.b.stage.id, l.b.stage.id + 1u);
  TILEFW_TRY(load_replicated(l, weight, 0, l.H, l.b.wn));
  const TensorInfo& hs = tensor(l, TensorId::hidden_states);
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const uint64_t at = hs.device_addr + ((uint64_t{l.b0} * l.S_all + l.s0) + row) * l.H * 4;
    TILEFW_TRY(dma(c, Shape4{1, r, 1, l.H}, DType::f32, ddr(at, l.H, l.H), side_local(l.b.stage, 0, 0)));
    TILEFW_TRY(rms_norm_group(l, l.b.stage, 0, row, r, l.H, c.sized->model.rms_eps, l.b.xn));
  }
  if (shared) hand_over(c, l.b.stage.id, l.b.stage.id + 1u, l.b.q.id, l.b.q.id + 1u);
  return Status::ok;
}

namespace {

// Every core's sums of squares (f32, P cores x T tokens) go to the result slot of the other
// area: the MLP's reduction, which comes next, uses only that area's partial slots (its result is
// stored to
// DDR from LMEM), and the slot's last reader finished before this reduction's first barrier.
Side squares_table(const Layer& l, uint32_t area, uint32_t core) noexcept {
  Side s = l2_result(l, area ^ 1u);
  s.addr += uint64_t{core} * l.T * 4;
  return s;
}

// Column 0 of l.b.ss = the sum of squares of this core's slice of every row.
Status slice_squares(Layer& l, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  if (w == 0) return dma_fill(c, Shape4{1, l.T, 1, 1}, DType::f32, 0, side_local(l.b.ss, 0, 0));
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const Opd x = view(l.b.x, row, 0), sq = view(l.b.scratch, scratch_row(l, row), 0);
    TILEFW_TRY(ar(c, 0, Shape4{1, r, 1, w}, sq, x, x));
    TILEFW_TRY(row_sums(l, view(l.b.ss, row, 0), sq, r, w));
  }
  return Status::ok;
}

}  // namespace

Status exchange_normalised(Layer& l, uint32_t area, uint32_t c0, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t P = p.parallel.tp;
  const DType dt = p.model.dtype;
  const uint32_t es = static_cast<uint32_t>(dtype_size(dt));
  const TensorId weight = TensorId::post_attention_layernorm;  // a dense layer's next norm
  set_op(c, op_name(weight));
  TILEFW_TRY(slice_squares(l, w));
  Side mine = squares_table(l, area, c.core);
  mine.cs = 1;
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, 1}, DType::f32, side_local(l.b.ss, 0, 0), mine));
  set_op(c, "attention_reduce");
  TILEFW_TRY(barrier(c));  // every core's sums of squares are in L2
  set_op(c, op_name(weight));
  Side all = squares_table(l, area, 0);
  all.cs = 1;
  all.ws = l.T;
  TILEFW_TRY(dma(c, Shape4{1, l.T, 1, P}, DType::f32, all, side_local(l.b.ssp, 0, 0)));
  if (w > 0) TILEFW_TRY(load_replicated(l, weight, c0, w, l.b.wn));
  const Buf xn_slice = columns_of(l.b.xn, c0, w);
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    TILEFW_TRY(row_sums(l, view(l.b.ss, row, 0), view(l.b.ssp, row, 0), r, P));
    TILEFW_TRY(inv_rms(l, row, r, 1, l.H, p.model.rms_eps));
    if (w == 0) continue;
    const Shape4 sh{1, r, 1, w};
    const Opd sq = view(l.b.scratch, scratch_row(l, row), 0);
    TILEFW_TRY(ar(c, 0, sh, sq, view(l.b.x, row, 0), column(l.b.ss, row, 0)));
    TILEFW_TRY(ar(c, 0, sh, view(xn_slice, row, 0), sq, view(l.b.wn, 0, 0)));
  }
  // This core's slice of the normalised x to DDR, then the others' from there. An all-gather of
  // activations, not a partial-sum reduction: through DDR (546 B/cycle for the chip against
  // L2's 128) it takes a quarter of the time, and the L2 keeps the reductions.
  const Side result = ddr(tensor(l, TensorId::xn_exchange).device_addr, l.H, l.H);
  if (w > 0) {
    Side dst = result;
    dst.addr += uint64_t{c0} * es;
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, w}, dt, side_local(l.b.xn, 0, c0), dst));
  }
  set_op(c, "attention_reduce");
  TILEFW_TRY(barrier(c));  // every slice of the normalised x is in DDR
  set_op(c, op_name(weight));
  if (c0 > 0) TILEFW_TRY(dma(c, Shape4{1, l.T, 1, c0}, dt, result, side_local(l.b.xn, 0, 0)));
  const uint32_t right = c0 + w;
  if (right < l.H) {
    Side src = result;
    src.addr += uint64_t{right} * es;
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, l.H - right}, dt, src, side_local(l.b.xn, 0, right)));
  }
  l.xn_ready = true;
  return Status::ok;
}

namespace {

// Landing j: piece j % pieces of the (j / pieces)-th other core's partial of the slice (core
// order), pieces of partial-tile width.
struct Piece {
  uint32_t core = 0, col = 0, cols = 0;  // col: in the slice
};
Piece deferred_piece(const Layer& l, const Layer::Deferred& d, uint32_t j) noexcept {
  const uint32_t pw = l.b.pt[0].cols, pieces = (d.w + pw - 1) / pw;
  const uint32_t s = j / pieces, q = j % pieces * pw;
  return Piece{s < l.ctx->core ? s : s + 1, q, min_u32(pw, d.w - q)};
}

// Loads landing j into pt[j & 1] on the GDMA; the tracker orders it after the TIU's add of
// landing j - 2 from that buffer.
Status land_partial(Layer& l, const Layer::Deferred& d, uint32_t j) noexcept {
  const Piece pc = deferred_piece(l, d, j);
  return dma(*l.ctx, Shape4{1, l.T, 1, pc.cols}, DType::f32, l2_part(l, d.area, pc.core, d.c0 + pc.col),
             side_local(l.b.pt[j & 1], 0, 0));
}

// Hook points of the next pass's gate and up weight tiles (the MLP's slots are in use now).
uint32_t gate_up_tiles(const Layer& l) noexcept {
  const uint32_t tiles_per_row = (l.H + l.b.slot_cols - 1) / l.b.slot_cols;
  uint32_t hooks = 0;
  for (uint32_t f = 0; f < l.s.fl; f += l.ic) {
    const uint32_t w = min_u32(l.ic, l.s.fl - f);
    const uint32_t rows = tile_rows(l.b, l.H, static_cast<uint32_t>(dtype_size(l.ctx->sized->model.dtype)));
    hooks += 2 * ((w + rows - 1) / rows) * tiles_per_row;
  }
  return hooks;
}

}  // namespace

Status begin_reduction(Layer& l, Layer::Deferred& d, TensorId bias, uint32_t hooks) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t P = c.sized->parallel.tp;
  const bool mlp = bias == TensorId::down_proj_b;
  d = Layer::Deferred{};
  d.op = mlp ? "mlp_reduce" : "attention_reduce";
  d.bias = bias;
  d.store = mlp;
  d.area = l.l2_area++ & 1;
  slice_of(l, c.core, P, d.c0, d.w);
  d.s0 = l.s0;
  d.b0 = l.b0;
  d.active = true;
  const uint32_t pw = l.b.pt[0].cols;
  d.landings = (P - 1) * ((d.w + pw - 1) / pw);
  if (d.landings > 0) d.every = hooks / d.landings > 1 ? hooks / d.landings : 1;
  return Status::ok;
}

Status begin_deferred_reduction(Layer& l) noexcept {
  set_op(*l.ctx, "mlp_reduce");
  l.output_stored = true;  // finish_deferred_reduction stores the slices
  // No barrier here: the landings start in the next pass's gate/up, after that pass's attention
  // barriers, which every core's GDMA reaches after writing these partials (the layer's last
  // pass takes one before finishing, see sliced_program).
  // Cores in four groups (core mod 4) take their landings in successive quarters of the next
  // pass's gate/up tiles: two of 8 cores on L2 at a time, each landing at four times the rate
  // of all 8 at once, while the others only load weights from DDR (what a quarter cannot take
  // spills into the next, the rest into finish_deferred_reduction).
  const uint32_t tiles = gate_up_tiles(l), quarter = tiles / 4;
  TILEFW_TRY(begin_reduction(l, l.deferred, TensorId::down_proj_b, quarter > 0 ? quarter : tiles));
  l.deferred.sites = kHookTiles;
  l.deferred.skip = (l.ctx->core & 3) * quarter;
  return Status::ok;
}

void keep_previous_slice(Layer& l) noexcept {
  Buf t = l.b.x;
  l.b.x = l.b.xp;
  l.b.xp = t;
  l.deferred.prev = true;
}

// The first two landings; each later one is queued on the GDMA after the add that frees its
// buffer (deferred_step), between the weight loads of the work the steps are spread over.
// Queued all at once, the third would wait for an add that waits for weights queued behind it.
// Not before that work: the landing buffers are the partial tiles, which o_proj, down_proj and
// the other reduction use.
Status start_landings(Layer& l, Layer::Deferred& d) noexcept {
  if (d.started || d.w == 0) return Status::ok;
  d.started = true;
  set_op(*l.ctx, d.op);
  for (; d.queued < d.landings && d.queued < 2; ++d.queued) TILEFW_TRY(land_partial(l, d, d.queued));
  return Status::ok;
}

namespace {
// Runs `step` on the reduction's slice: swaps it into l.b.x while the step emits (add_part,
// add_bias_slice and store_output_columns work on x) when it waits in xp.
template <typename Step>
Status on_deferred_slice(Layer& l, const Layer::Deferred& d, Step step) noexcept {
  if (d.prev) {
    Buf t = l.b.x;
    l.b.x = l.b.xp;
    l.b.xp = t;
  }
  const Status s = step();
  if (d.prev) {
    Buf t = l.b.x;
    l.b.x = l.b.xp;
    l.b.xp = t;
  }
  return s;
}
}  // namespace

// x += landing `next` (the own partial is in x already), in core order. The landing into the
// buffer the previous step's add freed is queued first: one step after that add, so the GDMA
// commands of the work between two steps (weight tiles, a head's rows) are not queued behind a
// landing that waits for the TIU to reach the step.
Status deferred_step(Layer& l, Layer::Deferred& d) noexcept {
  Ctx& c = *l.ctx;
  if (d.next >= d.landings || d.w == 0) return Status::ok;
  const OpLabel caller = c.label;
  set_op(c, d.op);
  TILEFW_TRY(start_landings(l, d));
  if (d.queued < d.landings && d.queued <= d.next + 1) {  // its buffer: freed by add next - 1
    TILEFW_TRY(land_partial(l, d, d.queued));
    ++d.queued;
  }
  const uint32_t j = d.next++;
  const Piece pc = deferred_piece(l, d, j);
  TILEFW_TRY(on_deferred_slice(l, d, [&] { return add_part(l, pc.col, l.b.pt[j & 1], 0, pc.cols); }));
  c.label = caller;
  return Status::ok;
}

Status reduction_hook(Layer& l, uint8_t site) noexcept {
  for (Layer::Deferred* d : {&l.attn, &l.deferred}) {
    if (!d->active || !d->open || (d->sites & site) == 0) continue;
    if (++d->hooks > d->skip && (d->hooks - d->skip) % d->every == 0) TILEFW_TRY(deferred_step(l, *d));
  }
  return Status::ok;
}

Status finish_reduction(Layer& l, Layer::Deferred& d) noexcept {
  Ctx& c = *l.ctx;
  while (d.next < d.landings && d.w > 0) TILEFW_TRY(deferred_step(l, d));
  set_op(c, d.op);
  const uint32_t s0 = l.s0, b0 = l.b0;  // the slice belongs to the pass that computed it
  l.s0 = d.s0;
  l.b0 = d.b0;
  TILEFW_TRY(on_deferred_slice(l, d, [&] {
    TILEFW_TRY(add_bias_slice(l, d.bias, d.c0, d.w));
    return d.store && d.w > 0 ? store_output_columns(l, d.c0, d.w) : Status::ok;
  }));
  l.s0 = s0;
  l.b0 = b0;
  d.active = false;
  d.open = false;
  return Status::ok;
}

Status finish_deferred_reduction(Layer& l) noexcept { return finish_reduction(l, l.deferred); }

namespace {

// Columns [a, b) of a partial tile whose column 0 is output column n0 to this core's runs in
// L2, one run per owning slice.
Status write_runs(Layer& l, uint32_t area, const Buf& tile, uint32_t n0, uint32_t a, uint32_t b) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t P = c.sized->parallel.tp;
  while (a < b) {
    uint32_t end = b;
    for (uint32_t o = 0; o < P; ++o) {
      uint32_t c0 = 0, w = 0;
      slice_of(l, o, P, c0, w);
      if (a < c0 + w) {
        end = min_u32(b, c0 + w);
        break;
      }
    }
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, end - a}, DType::f32, side_local(tile, 0, a - n0), l2_part(l, area, c.core, a)));
    a = end;
  }
  return Status::ok;
}

}  // namespace

// The partial tiles alternate between two buffers, so the MM2s of tile t + 1 overlap the GDMA's
// stores of tile t (the tracker orders tile t + 2's MM2s after those stores). The own columns
// are added to x at once: the residual (loaded before) plus the own partial, then the others'.
// The previous output tile's runs to L2 (the columns other cores own), if any.
Status flush_partial_tile(Layer& l) noexcept {
  Layer::PartialTile& pt = l.pending_tile;
  if (!pt.active) return Status::ok;
  pt.active = false;
  Ctx& c = *l.ctx;
  const OpLabel caller = c.label;
  c.label = pt.label;
  uint32_t c0 = 0, cw = 0;
  slice_of(l, c.core, c.sized->parallel.tp, c0, cw);
  const Buf& tile = l.b.pt[pt.tile & 1];
  // [n0, n0 + nc) minus the own columns [c0, c0 + cw): at most a left and a right run
  const uint32_t n0 = pt.n0, end = pt.n0 + pt.nc;
  const uint32_t own0 = c0 > n0 ? c0 : n0, own1 = min_u32(c0 + cw, end);
  TILEFW_TRY(write_runs(l, pt.area, tile, n0, n0, own0 < own1 ? own0 : end));
  if (own0 < own1) TILEFW_TRY(write_runs(l, pt.area, tile, n0, own1, end));
  c.label = caller;
  return Status::ok;
}

Status linear_partial(Layer& l, const Buf& in, uint32_t Kd, TensorId w, uint32_t row0, uint32_t col0,
                      uint32_t N) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t area = l.l2_area & 1;  // the area begin_reduction will take
  uint32_t c0 = 0, cw = 0;
  slice_of(l, c.core, c.sized->parallel.tp, c0, cw);
  const OpLabel caller = c.label;
  const uint32_t width = l.b.pt[0].cols;
  uint32_t t = 0;
  for (uint32_t n0 = 0; n0 < N; n0 += width, ++t) {
    const uint32_t nc = min_u32(width, N - n0);
    Buf& tile = l.b.pt[t & 1];
    TILEFW_TRY(linear(l, in, Kd, w, row0 + n0, col0, nc, tile));  // flushes tile t - 1's runs
    c.label.op = op_name(w);
    c.label.n = n0 / width;
    c.label.m = c.label.k = kNoTile;
    const uint32_t own0 = c0 > n0 ? c0 : n0, own1 = min_u32(c0 + cw, n0 + nc);
    if (own0 < own1) TILEFW_TRY(add_part(l, own0 - c0, tile, own0 - n0, own1 - own0));
    l.pending_tile = Layer::PartialTile{true, area, t, n0, nc, c.label};
  }
  TILEFW_TRY(flush_partial_tile(l));
  c.label = caller;
  return Status::ok;
}

}  // namespace tilefw::gen::detail
