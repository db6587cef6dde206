// The whole model's two ends (docs/whole-model.md): the embedding lookup before the first decoder
// layer and the head after the last one. Each is a plan of its own (SizedLayer with `program`
// set), sized and emitted like a layer, so the tools chain embedding, layers and head as steps
// that share one DDR memory map (set_tensor_address).
//
// Embedding: token rows are taken in groups of 64 (group g on core g mod cores); each group is
// one GDMA gather of the table rows named by input_ids into LMEM (one row per lane, model
// dtype), a TIU cast to f32 and a store to hidden_states_out. An id >= vocab gathers a zero row
// (the gather's out-of-range rule).
//
// Head: core c owns the vocabulary columns [v0, v0 + vl) (an even split). For each block of
// token rows that fits LMEM: the rows' f32 hidden states are loaded one row group at a time
// and RMS-normalised with model.norm.weight into the model dtype (a matmul input); then, for
// each tile of kHeadTile vocabulary columns, the logits tile = xn x W^T (MM2, f32
// accumulation, W = lm_head.weight or the tied embedding; each weight tile streams once per
// block) is stored to `logits`, and each row's
// best (logit, index) of the tile is kept: m = row max; candidates = (tile == m) ? col : tile
// width (sel_eq with the head_iota constant); the row min is the lowest such column. After the
// core's tiles the same reduction over the tiles' candidates gives the core's best (the lowest
// index among equal maxima, tiles being in index order), stored to head_cand. After a barrier
// core 0 loads, for each batch row's last token, every core's best and reduces them the same
// way (cores in vocabulary order), then casts the index to int32: next_token.
#include "layer.hpp"

namespace tilefw::gen {

namespace detail {
namespace {

uint32_t min_u32(uint32_t a, uint32_t b) noexcept { return a < b ? a : b; }
uint32_t max_u32(uint32_t a, uint32_t b) noexcept { return a > b ? a : b; }

// This chip's vocabulary rows of a head split over chips: [s0, s0 + sl).
void chip_vocab(const SizedLayer& p, uint32_t& s0, uint32_t& sl) noexcept {
  const uint64_t V = p.model.vocab, n = p.parallel.vocab_ranks, r = p.parallel.vocab_rank;
  s0 = static_cast<uint32_t>(V * r / n);
  sl = static_cast<uint32_t>(V * (r + 1) / n) - s0;
}

void define_ends(SizedLayer& p) noexcept {
  const ModelConfig& m = p.model;
  const InferenceConfig& in = p.inference;
  const uint32_t B = in.batch, S = in.seq, T = B * S;
  using R = TensorRole;
  MemoryMap& mp = p.memory;
  if (p.program == Program::embed) {
    define_tensor(mp, TensorId::input_ids, R::input, "input_ids", DType::i32, true, B, S);
    define_tensor(mp, TensorId::embed_tokens, R::weight, "model.embed_tokens.weight", m.dtype, true, m.vocab, m.hidden);
    define_tensor(mp, TensorId::hidden_states_out, R::output, "hidden_states_out", DType::f32, true, B, S, m.hidden);
    return;
  }
  const uint32_t cands = p.parallel.vocab_ranks * p.parallel.cores;
  if (p.program == Program::head_merge) {
    define_tensor(mp, TensorId::head_cand, R::scratch, "head_cand", DType::f32, true, cands, T, 2);
    define_tensor(mp, TensorId::next_token, R::output, "next_token", DType::i32, true, B);
    return;
  }
  uint32_t s0 = 0, sl = 0;
  chip_vocab(p, s0, sl);
  define_tensor(mp, TensorId::hidden_states, R::input, "hidden_states", DType::f32, true, B, S, m.hidden);
  define_tensor(mp, TensorId::final_norm, R::weight, "model.norm.weight", m.dtype, true, m.hidden);
  define_tensor(mp, TensorId::embed_tokens, R::weight, "model.embed_tokens.weight", m.dtype, m.tie_embeddings, sl,
                m.hidden);
  define_tensor(mp, TensorId::lm_head_w, R::weight, "lm_head.weight", m.dtype, !m.tie_embeddings, sl, m.hidden);
  define_tensor(mp, TensorId::logits, R::output, "logits", DType::f32, true, B, S, m.vocab);
  define_tensor(mp, TensorId::next_token, R::output, "next_token", DType::i32, true, B);
  define_tensor(mp, TensorId::head_cand, R::scratch, "head_cand", DType::f32, true, cands, T, 2);
  define_tensor(mp, TensorId::head_iota, R::constant, "gen.head_iota", DType::f32, true, kHeadTile);
}

Status check_ends(const SizedLayer& p, GenError& e) noexcept {
  const auto bad = [&](const char* what, uint64_t v) {
    e = GenError{Status::gen_bad_config, what, v};
    return e.status;
  };
  const InferenceConfig& in = p.inference;
  if (p.model.hidden == 0 || p.model.hidden > 0xFFFF) return bad("hidden_size", p.model.hidden);
  if (p.model.vocab == 0 || p.model.vocab >= (1u << 24)) return bad("vocab_size (1 .. 2^24 - 1: indices are exact in f32)", p.model.vocab);
  if (p.model.dtype != DType::bf16 && p.model.dtype != DType::f16) return bad("dtype", 0);
  if (in.batch == 0 || in.seq == 0 || uint64_t{in.batch} * in.seq > 0xFFFF) return bad("batch x seq", uint64_t{in.batch} * in.seq);
  if (p.parallel.cores == 0 || p.parallel.cores > kMaxCores) return bad("cores", p.parallel.cores);
  const ParallelConfig& par = p.parallel;
  if (par.vocab_ranks == 0 || par.vocab_ranks > 64 || par.vocab_rank >= par.vocab_ranks) return bad("vocab_rank", par.vocab_rank);
  if (p.program == Program::head && p.model.vocab / par.vocab_ranks < p.parallel.cores) {
    return bad("vocab_size (fewer columns than cores)", p.model.vocab);
  }
  return Status::ok;
}

Status size_end(Program program, const ModelConfig& model, const InferenceConfig& inference,
                const ParallelConfig& parallel, SizedLayer& plan, GenError& error) noexcept {
  error = GenError{};
  plan = SizedLayer{};
  plan.program = program;
  plan.model = model;
  plan.inference = inference;
  plan.parallel = parallel;
  plan.parallel.tp = 1;
  plan.parallel.ep = 1;
  plan.chunk_tokens = inference.seq;
  plan.chunk_batch = inference.batch;
  TILEFW_TRY(check_ends(plan, error));
  define_ends(plan);
  place_defined(plan.memory);
  const uint64_t T = uint64_t{inference.batch} * inference.seq, H = model.hidden, V = model.vocab;
  const uint64_t es = dtype_size(model.dtype);
  uint32_t s0 = 0, sl = 0;
  chip_vocab(plan, s0, sl);
  if (program == Program::embed) {
    plan.bytes_ddr = T * 4 + T * H * es + T * H * 4;  // ids, the rows read, hidden states written
  } else if (program == Program::head) {
    plan.flops = 2 * T * H * sl;
    plan.bytes_ddr = T * H * 4 + H * es + uint64_t{sl} * H * es + T * sl * 4 + inference.batch * 4;
  } else {
    plan.bytes_ddr = uint64_t{parallel.vocab_ranks} * parallel.cores * inference.batch * 8 + inference.batch * 4;
  }
  (void)V;
  return count_streams(plan, error);
}

// ---- embedding -------------------------------------------------------------------------------

Status embed_program(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t cores = p.parallel.cores, H = l.H;
  const TensorInfo& ids = tensor(l, TensorId::input_ids);
  const TensorInfo& table = tensor(l, TensorId::embed_tokens);
  const TensorInfo& out = tensor(l, TensorId::hidden_states_out);
  Buf raw[2], x[2];
  for (uint32_t i = 0; i < 2; ++i) {
    TILEFW_TRY(alloc(c, raw[i], p.model.dtype, sg::kLanes, H, "embedding rows (model dtype)"));
    TILEFW_TRY(alloc(c, x[i], DType::f32, sg::kLanes, H, "embedding rows (f32)"));
  }
  set_op(c, "embed_tokens");
  uint32_t n = 0;
  for (uint32_t g = c.core; g < groups_of(l.T); g += cores, ++n) {
    const uint32_t row = g * sg::kLanes, r = rows_in(l.T, g);
    const Buf& rb = raw[n & 1];
    const Buf& xb = x[n & 1];
    TILEFW_TRY(dma_gather_rows(c, p.model.dtype, p.model.vocab, H, table.device_addr, ids.device_addr + uint64_t{row} * 4,
                               r, side_local(rb, 0, 0)));
    TILEFW_TRY(ar(c, 14, Shape4{1, r, 1, H}, view(xb, 0, 0), view(rb, 0, 0)));
    TILEFW_TRY(dma(c, Shape4{1, r, 1, H}, DType::f32, side_local(xb, 0, 0),
                   ddr(out.device_addr + uint64_t{row} * H * 4, H, H)));
  }
  return finish(c);
}

// ---- head -------------------------------------------------------------------------------------

struct HeadBufs {
  Buf xs, xn, lt, mx, cand_v, cand_i, iota, best, bi;
  uint32_t block = 0;  // token rows per block (a multiple of 64, or T)
  uint32_t tiles = 0;  // vocabulary tiles of this core
};

// The core's vocabulary columns [v0, v0 + vl).
// (Within this chip's rows [s0, s0 + sl) when the head is split over chips.)
void vocab_slice(const SizedLayer& p, uint32_t core, uint32_t& v0, uint32_t& vl) noexcept {
  uint32_t s0 = 0, sl = 0;
  chip_vocab(p, s0, sl);
  const uint32_t n = p.parallel.cores;
  v0 = s0 + static_cast<uint32_t>(uint64_t{sl} * core / n);
  vl = s0 + static_cast<uint32_t>(uint64_t{sl} * (core + 1) / n) - v0;
}

Status allocate_head(Layer& l, HeadBufs& h, uint32_t vl) noexcept {
  Ctx& c = *l.ctx;
  const DType dt = c.sized->model.dtype;
  const uint32_t H = l.H;
  h.tiles = (vl + kHeadTile - 1) / kHeadTile;
  const uint32_t tile = min_u32(kHeadTile, vl);
  TILEFW_TRY(alloc(c, l.b.wn, dt, sg::kLanes, H, "final norm weight (replicated)"));
  TILEFW_TRY(alloc(c, l.b.ones, DType::f32, H, 1, "ones vector"));
  TILEFW_TRY(alloc(c, l.b.scratch, DType::f32, sg::kLanes, H, "norm scratch"));
  TILEFW_TRY(alloc(c, h.xs, DType::f32, sg::kLanes, H, "hidden rows (f32)"));
  TILEFW_TRY(alloc(c, h.iota, DType::f32, sg::kLanes, kHeadTile, "head column index (replicated)"));
  const uint32_t wide = max_u32(h.tiles, c.sized->parallel.cores);  // candidates per row
  TILEFW_TRY(alloc(c, l.b.eq, DType::f32, sg::kLanes, max_u32(tile, wide), "argmax candidates"));
  // Weight slots: a tile of up to 256 vocabulary rows x up to 512 hidden columns each.
  l.b.slot_rows = min_u32(256, tile);
  l.b.slot_cols = min_u32(512, H);
  TILEFW_TRY(alloc(c, l.b.w[0], dt, l.b.slot_rows, l.b.slot_cols, "LM head tile slot 0"));
  TILEFW_TRY(alloc(c, l.b.w[1], dt, l.b.slot_rows, l.b.slot_cols, "LM head tile slot 1"));
  // What is left holds the block of normalised rows and its candidates (per 64 rows: the xn
  // row group, two [tiles] columns and the statistics column).
  const uint32_t es = static_cast<uint32_t>(dtype_size(dt));
  const uint32_t mx_cols = max_u32((max_u32(tile, wide) + 1) / 2, 1);
  const auto row64 = [](uint32_t bytes) { return (bytes + 63) / 64 * 64; };
  const uint32_t per_group = row64(H * es) + row64(tile * 4) + 2 * row64(wide * 4) + row64(mx_cols * 4) + 64 + 64;
  const uint32_t free = sg::kLaneBytes > c.lmem_used ? sg::kLaneBytes - c.lmem_used : 0;
  const uint32_t groups = min_u32(free / per_group, groups_of(l.T));
  if (groups == 0) return fail(c, Status::gen_cannot_map, "LM head: normalised rows", H);
  h.block = min_u32(groups * sg::kLanes, l.T);
  TILEFW_TRY(alloc(c, l.b.ss, DType::f32, h.block, 1, "row statistics"));
  TILEFW_TRY(alloc(c, h.xn, dt, h.block, H, "normalised rows"));
  TILEFW_TRY(alloc(c, h.lt, DType::f32, h.block, tile, "logits tile"));
  TILEFW_TRY(alloc(c, h.cand_v, DType::f32, h.block, wide, "best logit per tile"));
  TILEFW_TRY(alloc(c, h.cand_i, DType::f32, h.block, wide, "best index per tile"));
  TILEFW_TRY(alloc(c, h.mx, DType::f32, h.block, mx_cols, "row max scratch"));
  TILEFW_TRY(alloc(c, h.best, DType::f32, h.block, 2, "core's best (logit, index)"));
  return alloc(c, h.bi, DType::i32, sg::kLanes, 1, "next token (int32)");
}

// Rows [row, row + r) of `vals` / `idx` ([., n] f32): column `out_col` (and + 1) of `best` =
// the largest value and the lowest index among its equals (`idx` holds indices < `none`).
Status best_of(Layer& l, const Buf& vals, const Buf& idx, uint32_t n, float none, const Buf& mx, const Buf& best,
               uint32_t row, uint32_t r) noexcept {
  Ctx& c = *l.ctx;
  const Shape4 sh{1, r, 1, n};
  const Opd eq = view(l.b.eq, 0, 0);
  TILEFW_TRY(row_extreme(l, 4, vals, mx, row, r, n));
  TILEFW_TRY(ar(c, 19, Shape4{1, r, 1, 1}, view(best, row, 0), view(mx, row, 0)));
  TILEFW_TRY(ar(c, 11, sh, eq, view(vals, row, 0), column(mx, row, 0)));  // 1 where the maximum
  TILEFW_TRY(ar(c, 2, sh, eq, eq, imm(-1.0f)));                            // 0 there, -1 elsewhere
  TILEFW_TRY(ar(c, 0, sh, eq, eq, imm(-none)));                             // 0 there, none elsewhere
  TILEFW_TRY(ar(c, 2, sh, eq, eq, view(idx, row, 0)));  // index there, >= none elsewhere
  Buf e = l.b.eq;
  TILEFW_TRY(row_extreme(l, 5, e, mx, 0, r, n));
  return ar(c, 19, Shape4{1, r, 1, 1}, view(best, row, 1), view(mx, 0, 0));
}

// One vocabulary tile of rows [row0, row0 + rows) of the block: the tile's weights stream once
// for the whole block (linear() runs every row group on each weight tile), the logits are
// stored, and each row's best (logit, index) goes into column `t` of cand_v / cand_i.
Status head_tile(Layer& l, HeadBufs& h, TensorId w, uint32_t row0, uint32_t rows, uint32_t t, uint32_t n0,
                 uint32_t nc) noexcept {
  Ctx& c = *l.ctx;
  const TensorInfo& lg = tensor(l, TensorId::logits);
  const uint32_t V = c.sized->model.vocab;
  const uint32_t T = l.T;
  l.T = rows;  // linear() takes its row count from the layer
  set_op(c, "lm_head");
  uint32_t s0 = 0, sl = 0;
  chip_vocab(*c.sized, s0, sl);  // the chip holds its rows of the weights only
  const Status s = linear(l, h.xn, l.H, w, n0 - s0, 0, nc, h.lt);
  l.T = T;
  TILEFW_TRY(s);
  for (uint32_t g = 0; g < groups_of(rows); ++g) {
    const uint32_t r = rows_in(rows, g), brow = g * sg::kLanes;
    set_op(c, "lm_head");
    TILEFW_TRY(dma(c, Shape4{1, r, 1, nc}, DType::f32, side_local(h.lt, brow, 0),
                   ddr(lg.device_addr + (uint64_t{row0 + brow} * V + n0) * 4, V, V)));
    set_op(c, "argmax");
    // candidates: tile == max ? col : kHeadTile; head_iota holds col - kHeadTile.
    const Shape4 sh{1, r, 1, nc};
    const Opd eq = view(l.b.eq, 0, 0);
    TILEFW_TRY(row_extreme(l, 4, h.lt, h.mx, brow, r, nc));
    TILEFW_TRY(ar(c, 19, Shape4{1, r, 1, 1}, view(h.cand_v, brow, t), view(h.mx, brow, 0)));
    TILEFW_TRY(ar(c, 11, sh, eq, view(h.lt, brow, 0), column(h.mx, brow, 0)));
    TILEFW_TRY(ar(c, 0, sh, eq, eq, view(h.iota, 0, 0)));                          // col - kHeadTile there
    TILEFW_TRY(ar(c, 2, sh, eq, eq, imm(static_cast<float>(kHeadTile))));          // col there, kHeadTile else
    // eq holds this row group at rows 0 .. r (it has 64): its minimum lands in mx's rows 0 .. r
    // (the row maxima there are used up).
    TILEFW_TRY(row_extreme(l, 5, l.b.eq, h.mx, 0, r, nc));
    TILEFW_TRY(ar(c, 2, Shape4{1, r, 1, 1}, view(h.cand_i, brow, t), view(h.mx, 0, 0), imm(static_cast<float>(n0))));
  }
  return Status::ok;
}

// Rows [row0, row0 + rows): normalised into h.xn, every vocabulary tile, the core's best stored.
Status head_block(Layer& l, HeadBufs& h, uint32_t row0, uint32_t rows, uint32_t v0, uint32_t vl) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t H = l.H, T = p.inference.batch * p.inference.seq;
  const TensorInfo& in = tensor(l, TensorId::hidden_states);
  set_op(c, "final_norm");
  for (uint32_t g = 0; g < groups_of(rows); ++g) {
    const uint32_t r = rows_in(rows, g), brow = g * sg::kLanes;
    TILEFW_TRY(dma(c, Shape4{1, r, 1, H}, DType::f32, ddr(in.device_addr + uint64_t{row0 + brow} * H * 4, H, H),
                   side_local(h.xs, 0, 0)));
    TILEFW_TRY(rms_norm_group(l, h.xs, 0, brow, r, H, p.model.rms_eps, h.xn));
  }
  const TensorId w = p.model.tie_embeddings ? TensorId::embed_tokens : TensorId::lm_head_w;
  for (uint32_t t = 0; t < h.tiles; ++t) {
    const uint32_t n0 = t * kHeadTile, nc = min_u32(kHeadTile, vl - n0);
    TILEFW_TRY(head_tile(l, h, w, row0, rows, t, v0 + n0, nc));
  }
  set_op(c, "argmax");
  const TensorInfo& cand = tensor(l, TensorId::head_cand);
  const float none = static_cast<float>(p.model.vocab);
  for (uint32_t g = 0; g < groups_of(rows); ++g) {
    const uint32_t r = rows_in(rows, g), brow = g * sg::kLanes;
    TILEFW_TRY(best_of(l, h.cand_v, h.cand_i, h.tiles, none, h.mx, h.best, brow, r));
    TILEFW_TRY(dma(c, Shape4{1, r, 1, 2}, DType::f32, side_local(h.best, brow, 0),
                   ddr(cand.device_addr + (uint64_t{p.parallel.vocab_rank * p.parallel.cores + c.core} * T + row0 + brow) * 8, 2, 2)));
  }
  return Status::ok;
}

// Core 0 after the barrier: for each batch row's last token, every core's best -> next_token.
Status head_final(Layer& l, HeadBufs& h) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  const uint32_t B = p.inference.batch, S = p.inference.seq, T = B * S, cores = p.parallel.cores * p.parallel.vocab_ranks;
  const TensorInfo& cand = tensor(l, TensorId::head_cand);
  const TensorInfo& next = tensor(l, TensorId::next_token);
  set_op(c, "next_token");
  // cand_v / cand_i rows of 64 batch rows x `cores` columns (the head's candidate buffers are
  // free now: the block is done).
  for (uint32_t g = 0; g < groups_of(B); ++g) {
    const uint32_t r = rows_in(B, g), b0 = g * sg::kLanes;
    for (uint32_t k = 0; k < 2; ++k) {
      Side src = ddr(cand.device_addr + ((uint64_t{b0} * S + S - 1) * 2 + k) * 4, 2 * S, 2 * T);
      Side dst = side_local(k == 0 ? h.cand_v : h.cand_i, 0, 0);
      dst.hs = 1;
      TILEFW_TRY(dma(c, Shape4{1, r, cores, 1}, DType::f32, src, dst));
    }
    TILEFW_TRY(best_of(l, h.cand_v, h.cand_i, cores, static_cast<float>(p.model.vocab), h.mx, h.best, 0, r));
    TILEFW_TRY(ar(c, 14, Shape4{1, r, 1, 1}, view(h.bi, 0, 0), view(h.best, 0, 1)));
    TILEFW_TRY(dma(c, Shape4{1, r, 1, 1}, DType::i32, side_local(h.bi, 0, 0), ddr(next.device_addr + uint64_t{b0} * 4, 1, 1)));
  }
  return Status::ok;
}

Status head_program(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  const SizedLayer& p = *c.sized;
  uint32_t v0 = 0, vl = 0;
  vocab_slice(p, c.core, v0, vl);
  HeadBufs h;
  TILEFW_TRY(allocate_head(l, h, vl));
  set_op(c, "load_constants");
  TILEFW_TRY(dma_fill(c, Shape4{1, l.b.ones.rows, 1, 1}, DType::f32, 0x3F800000u, side_local(l.b.ones, 0, 0)));
  TILEFW_TRY(load_replicated(l, TensorId::final_norm, 0, l.H, l.b.wn));
  TILEFW_TRY(load_replicated(l, TensorId::head_iota, 0, kHeadTile, h.iota));
  const uint32_t T = l.T;
  for (uint32_t row0 = 0; row0 < T; row0 += h.block) {
    TILEFW_TRY(head_block(l, h, row0, min_u32(h.block, T - row0), v0, vl));
  }
  TILEFW_TRY(barrier(c));
  if (c.core == 0 && p.parallel.vocab_ranks == 1) TILEFW_TRY(head_final(l, h));
  return finish(c);
}

// Program::head_merge: core 0 picks next_token from every chip's candidates.
Status head_merge_program(Layer& l) noexcept {
  Ctx& c = *l.ctx;
  if (c.core != 0) return finish(c);
  const uint32_t n = c.sized->parallel.cores * c.sized->parallel.vocab_ranks;
  HeadBufs h;
  TILEFW_TRY(alloc(c, h.cand_v, DType::f32, sg::kLanes, n, "every chip's best logits"));
  TILEFW_TRY(alloc(c, h.cand_i, DType::f32, sg::kLanes, n, "every chip's best indices"));
  TILEFW_TRY(alloc(c, h.mx, DType::f32, sg::kLanes, max_u32((n + 1) / 2, 1), "row max scratch"));
  TILEFW_TRY(alloc(c, h.best, DType::f32, sg::kLanes, 2, "best (logit, index)"));
  TILEFW_TRY(alloc(c, h.bi, DType::i32, sg::kLanes, 1, "next token (int32)"));
  TILEFW_TRY(alloc(c, l.b.eq, DType::f32, sg::kLanes, n, "argmax candidates"));
  TILEFW_TRY(head_final(l, h));
  return finish(c);
}

}  // namespace

Status model_end_program(Ctx& ctx) noexcept {
  const SizedLayer& p = *ctx.sized;
  Layer l;
  l.ctx = &ctx;
  l.B = p.inference.batch;
  l.S = l.S_all = p.inference.seq;
  l.T = l.B * l.S;
  l.H = p.model.hidden;
  l.xw = l.H;
  if (p.program == Program::head_merge) return head_merge_program(l);
  return p.program == Program::embed ? embed_program(l) : head_program(l);
}

}  // namespace detail

Status size_embed(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                  SizedLayer& plan, GenError& error) noexcept {
  return detail::size_end(Program::embed, model, inference, parallel, plan, error);
}

Status size_head(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                 SizedLayer& plan, GenError& error) noexcept {
  return detail::size_end(Program::head, model, inference, parallel, plan, error);
}

Status size_head_merge(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                       SizedLayer& plan, GenError& error) noexcept {
  return detail::size_end(Program::head_merge, model, inference, parallel, plan, error);
}

}  // namespace tilefw::gen
