// Tiled matmuls and the tensor-parallel reduction.
//
// Tiling (docs/generator.md section 5): activations sit with one token per lane (64 rows per
// group), weights
// are tiled as they lie in DDR ([out, in], the checkpoint layout) into slots of up to 256 rows
// x 1024 columns (more rows when the matrix is narrower: tile_rows), so the MM2 runs in its nt
// form (right operand stored N x K). One weight tile
// serves every row group of tokens before the next is needed. The two slots alternate: the
// GDMA load of tile k+1 goes into the other slot and waits only for the MM2s that last read
// that slot (tile k-1), so it overlaps the MM2s of tile k (double buffering); the tracker in
// emit.cpp derives exactly these dependencies.
//
// Reduction (docs/generator.md section 3, Rule: Megatron tensor parallelism): with tp > 1 every
// core writes its f32 partial [tokens, hidden] to
// its own L2 slot (all but its own share of the columns, which stays in LMEM) and all cores
// meet at a barrier; then (reduce-scatter) core c adds the partials of its share of the hidden
// columns, in core order 0, 1, ..., P-1, to its copy of the residual and adds the bias. After
// the attention it writes that slice to the result slot and, after a second barrier, loads the
// other columns (all-gather); after the layer's last reduction it stores the slice to
// hidden_states_out instead (nobody needs the whole residual). Each core so moves about two
// partials' worth of L2 instead of P. The sum x + p0 + p1 + ... is rounded in f32
// after each addition, in the same order for every column and every T; results for different
// T differ only by this order (error bound: README). Dense tensor-parallel prefill keeps only
// each core's slice of the residual instead (sliced.cpp: partial sums per output tile, the
// post-attention norm on slices, the MLP's reduce-scatter deferred into the next pass).
#include "layer.hpp"

namespace tilefw::gen::detail {

namespace {
uint32_t min_u32(uint32_t a, uint32_t b) noexcept { return a < b ? a : b; }

}  // namespace

// Weight rows per tile. A slot holds slot_rows x slot_cols; a matrix narrower than the slot
// (its whole input width, Kd, fits in fewer columns) takes more rows per tile instead, as many
// row groups as the slot's bytes per lane hold (a tile is stored compact, each row group
// align64(Kd x es) bytes after the last): the same bytes move in fewer GDMA and MM2 commands,
// which the control core pays for per command in a MoE layer's experts' phase (DeepSeek-V3's
// down_proj, 2048 columns wide, in 448-row tiles instead of 256). Each output element still
// sums its K tiles in the same order, so results do not change.
uint32_t tile_rows(const Bufs& b, uint32_t Kd, uint32_t es) noexcept {
  if (Kd == 0 || Kd >= b.slot_cols) return b.slot_rows;
  const uint32_t row_bytes = (Kd * es + 63) / 64 * 64;
  const uint32_t slot_bytes = b.w[0].groups() * b.w[0].row_bytes;  // as allocated, per lane
  const uint32_t rows = min_u32(slot_bytes / row_bytes, 1023) * sg::kLanes;  // MM2 sizes are 16 bits
  return rows > b.slot_rows ? rows : b.slot_rows;
}

Status linear(Layer& l, const Buf& in, uint32_t Kd, TensorId w, uint32_t row0, uint32_t col0, uint32_t N,
              Buf& out, bool add) noexcept {
  Ctx& c = *l.ctx;
  const TensorInfo& t = tensor(l, w);
  const uint32_t w_cols = t.shape[t.rank - 1];  // [out, in] or [experts, out, in]
  const uint32_t es = static_cast<uint32_t>(dtype_size(t.dtype));
  const OpLabel caller = c.label;
  c.label.op = op_name(w);
  const uint32_t step = tile_rows(l.b, Kd, es);
  for (uint32_t n0 = 0; n0 < N; n0 += step) {
    c.label.n = n0 / step;
    const uint32_t nc = min_u32(step, N - n0);
    for (uint32_t k0 = 0; k0 < Kd; k0 += l.b.slot_cols) {
      const uint32_t kc = min_u32(l.b.slot_cols, Kd - k0);
      c.label.k = k0 / l.b.slot_cols;
      c.label.m = kNoTile;
      Buf& slot = l.b.w[l.slot++ & 1];
      Side src;
      src.addr = t.device_addr + (uint64_t{row0 + n0} * w_cols + col0 + k0) * es;
      src.cs = w_cols;
      src.hs = kc;
      Side dst = side_local(slot, 0, 0);
      dst.cs = (kc * es + 63) / 64 * 64 / es;  // the tile is compact: matrix2 rows of kc
      dst.hs = kc;
      TILEFW_TRY(dma(c, Shape4{1, nc, 1, kc}, t.dtype, src, dst));
      TILEFW_TRY(flush_partial_tile(l));  // linear_partial's previous tile, behind this load
      Opd right;
      right.addr = slot.at(0, 0);
      right.dt = slot.dt;
      right.buf = slot.id;
      if (l.sliced) {
        // The previous pass's reduction between tiles, before this tile's MM2s: the TIU adds a
        // landed piece as soon as the last tile's MM2s end, so the GDMA lands the next piece
        // (into the buffer just freed) and loads tile k + 1 while these MM2s run.
        const OpLabel here = c.label;
        TILEFW_TRY(reduction_hook(l, kHookTiles));
        c.label = here;
      }
      for (uint32_t g = 0; g < groups_of(l.T); ++g) {
        const uint32_t row = g * sg::kLanes;
        c.label.m = g;
        TILEFW_TRY(mm2(c, true, rows_in(l.T, g), nc, kc, view(out, row, n0), view(in, row, k0), right, add || k0 > 0));
      }
    }
  }
  c.label = caller;
  return Status::ok;
}

namespace {

// act(gate) x up of FFN columns [f, f + w) into ab (at column l.fcol).
Status gate_up_act(Layer& l, TensorId gate, TensorId up, uint32_t gate_row0, uint32_t f, uint32_t w) noexcept {
  l.fw = w;
  TILEFW_TRY(linear(l, l.b.xn, l.H, gate, gate_row0 + f, 0, w, l.b.gt));
  TILEFW_TRY(add_bias(l, TensorId::gate_proj_b, gate_row0 + f, w, l.b.gt, nullptr));
  TILEFW_TRY(linear(l, l.b.xn, l.H, up, gate_row0 + f, 0, w, l.b.up));
  TILEFW_TRY(add_bias(l, TensorId::up_proj_b, gate_row0 + f, w, l.b.up, nullptr));
  set_op(*l.ctx, "act");
  return mlp_activation(l);
}

}  // namespace

Status ffn(Layer& l, TensorId gate, TensorId up, TensorId down, uint32_t gate_row0, uint32_t cols,
           uint32_t down_row0, uint32_t down_col0, Buf& out) noexcept {
  if (l.sliced) {  // act(gate) x up of every column in ab, block by block, then one down_proj
    Layer::Deferred& d = l.deferred;
    if (d.active && d.skip == 0) TILEFW_TRY(start_landings(l, d));  // else at its first step
    d.open = d.active;
    for (uint32_t f = 0; f < cols; f += l.ic) {
      l.fcol = f;
      TILEFW_TRY(gate_up_act(l, gate, up, gate_row0, f, min_u32(l.ic, cols - f)));
    }
    d.open = false;
    l.fcol = 0;
    if (d.active) TILEFW_TRY(finish_deferred_reduction(l));
    set_op(*l.ctx, "mlp_reduce");
    TILEFW_TRY(barrier(*l.ctx));  // every core has read the L2 area down_proj's partials go to
    return linear_partial(l, l.b.ab, cols, down, down_row0, down_col0, l.H);
  }
  for (uint32_t f = 0; f < cols; f += l.ic) {  // one down_proj per block, into `out`
    const uint32_t w = min_u32(l.ic, cols - f);
    TILEFW_TRY(gate_up_act(l, gate, up, gate_row0, f, w));
    TILEFW_TRY(linear(l, l.b.ab, w, down, down_row0, down_col0 + f, l.H, out, f > 0));
  }
  return Status::ok;
}

void slice_of(const Layer& l, uint32_t core, uint32_t participants, uint32_t& c0, uint32_t& w) noexcept {
  const uint32_t base = l.H / participants, extra = l.H % participants;
  w = base + (core < extra ? 1 : 0);
  c0 = core * base + (core < extra ? core : extra);
}

Status add_part(Layer& l, uint32_t x_col, const Buf& part, uint32_t part_col, uint32_t w) noexcept {
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    const Opd x = view(l.b.x, row, x_col);
    TILEFW_TRY(ar(*l.ctx, 2, Shape4{1, rows_in(l.T, g), 1, w}, x, x, view(part, row, part_col)));
  }
  return Status::ok;
}

Side l2_slot(const Layer& l, uint32_t area, uint32_t slot, uint32_t col) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  const uint64_t bytes = uint64_t{l.T} * l.H * 4;
  Side s;
  s.addr = sg::make_dma_address(sg::kTagL2, sg::kL2Base + p.memory.l2_offset +
                                                 (uint64_t{area} * (l2_slots(p) + 1) + slot) * bytes + col * 4ull);
  s.cs = l.H;
  s.hs = l.H;
  return s;
}

Status add_bias_slice(Layer& l, TensorId bias, uint32_t c0, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  const TensorInfo& t = tensor(l, bias);
  if (!t.present || w == 0 || !c.sized->parallel.residual) return Status::ok;  // once per chip group
  const uint64_t es = dtype_size(t.dtype);
  TILEFW_TRY(dma(c, Shape4{1, sg::kLanes, 1, w}, t.dtype, Side{t.device_addr + c0 * es, 0, 0, w, 1, kNoBuf},
                 side_local(l.b.bias, 0, 0)));
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const uint32_t row = g * sg::kLanes;
    const Opd x = view(l.b.x, row, c0 - l.xc0);
    TILEFW_TRY(ar(c, 2, Shape4{1, rows_in(l.T, g), 1, w}, x, x, view(l.b.bias, 0, 0)));
  }
  return Status::ok;
}

namespace {


// This core's partial goes to its L2 slot except its own columns [c0, c0 + w): nobody else
// reads those, and the core adds them from LMEM (p) in reduce_slice.
Status write_partial(Layer& l, uint32_t area, uint32_t c0, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  if (c0 > 0) {
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, c0}, DType::f32, side_local(l.b.p, 0, 0), l2_slot(l, area, c.core)));
  }
  const uint32_t right = c0 + w;
  if (right >= l.H) return Status::ok;
  return dma(c, Shape4{1, l.T, 1, l.H - right}, DType::f32, side_local(l.b.p, 0, right),
             l2_slot(l, area, c.core, right));
}

// Reduce-scatter: the core owning columns [c0, c0 + w) adds every participant's partial of
// them to its residual in core order 0, 1, ..., P-1 (the order, hence the bits, of a plain
// sum; its own partial straight from p), then adds the bias.
Status reduce_slice(Layer& l, TensorId bias, uint32_t area, uint32_t participants, uint32_t c0, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  if (w == 0) return Status::ok;
  const Shape4 cols{1, l.T, 1, w};
  for (uint32_t i = 0; i < participants; ++i) {
    // Two landing buffers alternate so the load of partial i+1 overlaps the add of i. Landing
    // in p's columns [0, w) never meets this core's own columns in p: they start at c0 >= w
    // (slice_of gives the wider slices first), or core 0 adds its own (i = 0) before any landing.
    const bool own = i == c.core;
    const Buf& land = own ? l.b.p : (i & 1) == 0 ? l.b.scratch : l.b.p;
    const uint32_t col = own ? c0 : 0;
    if (!own) TILEFW_TRY(dma(c, cols, DType::f32, l2_slot(l, area, i, c0), side_local(land, 0, 0)));
    TILEFW_TRY(add_part(l, c0, land, col, w));
  }
  return add_bias_slice(l, bias, c0, w);
}

// Columns [0, c0) and [c0 + w, H) of the reduced residual from the result slot: the core's own
// slice is in x already.
Status load_other_columns(Layer& l, uint32_t area, uint32_t c0, uint32_t w) noexcept {
  Ctx& c = *l.ctx;
  const uint32_t result = l2_slots(*c.sized);
  if (c0 > 0) {
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, c0}, DType::f32, l2_slot(l, area, result), side_local(l.b.x, 0, 0)));
  }
  const uint32_t right = c0 + w;
  if (right >= l.H) return Status::ok;
  return dma(c, Shape4{1, l.T, 1, l.H - right}, DType::f32, l2_slot(l, area, result, right),
             side_local(l.b.x, 0, right));
}

}  // namespace

// A part of a layer split over chips on every chip but the group's first: x (read by the norm
// before) becomes 0, so the reduction leaves the partial sum alone (its bias is skipped too,
// add_bias_slice). x is finite, so x times 0 is +0 or -0 and adds nothing.
// With an owned-rows mask (moe_own: the token-selective combine) x keeps the chip's own rows.
Status drop_residual(Layer& l) noexcept {
  if (l.ctx->sized->parallel.residual) return Status::ok;
  if (owned_rows(l)) return mask_owned_rows(l, l.b.x, 0, l.xw);
  set_op(*l.ctx, "drop_residual");
  for (uint32_t g = 0; g < groups_of(l.T); ++g) {
    const Opd x = view(l.b.x, g * sg::kLanes, 0);
    TILEFW_TRY(ar(*l.ctx, 0, Shape4{1, rows_in(l.T, g), 1, l.xw}, x, x, imm(0.0f)));
  }
  return Status::ok;
}

Status join_attention_reduction(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, "attention_reduce");
  const uint32_t area = l.l2_area++ & 1;  // two areas alternate (barriers separate their reuse)
  if (mla_lora_split(*c.sized)) TILEFW_TRY(barrier(c));  // the MLA LoRA rows are exchanged (mla.cpp)
  if (mla_rows_split(*c.sized)) {  // the queries, then o_lat, are exchanged (mla.cpp)
    TILEFW_TRY(barrier(c));
    TILEFW_TRY(barrier(c));
  }
  TILEFW_TRY(barrier(c));  // the partials are in L2 (joiners exist only when they go through L2)
  TILEFW_TRY(barrier(c));  // the slices are reduced
  return load_other_columns(l, area, 0, 0);
}

Status reduce_into_residual(Layer& l, TensorId bias, uint32_t participants, bool exchange, AfterReduce after) noexcept {
  Ctx& c = *l.ctx;
  set_op(c, bias == TensorId::o_proj_b ? "attention_reduce" : "mlp_reduce");
  const uint32_t area = l.l2_area++ & 1;  // two areas alternate (barriers separate their reuse)
  if (!exchange) {
    TILEFW_TRY(add_part(l, 0, l.b.p, 0, l.H));
    return add_bias_slice(l, bias, 0, l.H);
  }
  uint32_t c0 = 0, w = 0;
  slice_of(l, c.core, participants, c0, w);
  TILEFW_TRY(write_partial(l, area, c0, w));
  TILEFW_TRY(barrier(c));
  TILEFW_TRY(reduce_slice(l, bias, area, participants, c0, w));
  if (after == AfterReduce::store_slice) {  // the layer's output: no core needs it whole
    if (w > 0) TILEFW_TRY(store_output_columns(l, c0, w));
    l.output_stored = true;
    set_op(c, bias == TensorId::o_proj_b ? "attention_reduce" : "mlp_reduce");
    return barrier(c);
  }
  if (w > 0) {
    TILEFW_TRY(dma(c, Shape4{1, l.T, 1, w}, DType::f32, side_local(l.b.x, 0, c0),
                   l2_slot(l, area, l2_slots(*c.sized), c0)));
  }
  TILEFW_TRY(barrier(c));
  return load_other_columns(l, area, c0, w);
}

}  // namespace tilefw::gen::detail
