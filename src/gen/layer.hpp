// The dense decoder layer as the generator maps it: per-core slices (tensor parallelism), the
// LMEM buffers of one core, and the modules that emit each step (norm, projections, RoPE,
// attention, MLP, the tensor-parallel reduction). See README.md, "The instruction generator".
#pragma once

#include "emit.hpp"

namespace tilefw::gen::detail {

/// exp(x) = p(x)^16 with p the degree-16 Taylor polynomial of exp(x / 16) (see norm.cpp).
inline constexpr uint32_t kExpTerms = 17;
inline constexpr uint32_t kExpSquarings = 4;
/// Arguments of exp are clamped to [-kExpClamp, kExpClamp] (see norm.cpp for the error).
inline constexpr float kExpClamp = 30.0f;
/// gelu (erf): erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), a degree-5 polynomial.
inline constexpr uint32_t kErfTerms = 6;
inline constexpr float kErfP = 0.3275911f;
/// FFN intermediate columns computed per chunk (bounds the gate/up buffers in LMEM).
inline constexpr uint32_t kFfnChunk = 2048;

/// What one core computes: attention heads [h0, h0 + hl), the kv heads [kv0, kv0 + kvn) they
/// read, and FFN columns [f0, f0 + fl). Inactive cores (index >= tp) hold only barriers.
struct Slices {
  bool active = false;      // computes attention (core < tp)
  bool moe_active = false;  // MoE layer: owns routed experts e with e % ep == core (core < ep)
  uint32_t h0 = 0, hl = 0;
  uint32_t kv0 = 0, kvn = 0;
  uint32_t f0 = 0, fl = 0;
  uint32_t sf0 = 0, sfl = 0;  // MoE: the shared experts' columns [sf0, sf0 + sfl)
};
Slices slices_for(const SizedLayer& plan, uint32_t core) noexcept;
/// Token slots per routed expert over the whole request (docs/generator.md, Rule: capacity): the
/// request's capacity, or every token.
uint32_t expert_capacity(const SizedLayer& p) noexcept;
/// Whether the experts' phase places the experts that received tokens by load (moe.cpp).
bool balancing_experts(const Ctx& c) noexcept;
/// The load-balancing placement of one pass's routed experts over the ep cores (moe.cpp):
/// call place() for each expert with tokens, in expert order; it returns the expert's core (at
/// most as many experts per core as it owns, e mod ep).
class ExpertBalance {
 public:
  explicit ExpertBalance(const SizedLayer& p) noexcept;
  uint32_t place(uint32_t rows) noexcept;

 private:
  uint32_t cores_ = 1, experts_ = 0;
  uint64_t weight_cycles_ = 0, row_cycles_ = 0;
  uint64_t load_[kMaxCores] = {};
  uint32_t placed_[kMaxCores] = {};
};
/// The experts' phase with fewer routed experts on the chip than cores that can hold one: this
/// core's slice of one expert's intermediate columns (moe.cpp; PhaseRequest::split_experts).
class ExpertSplit {
 public:
  ExpertSplit(const Ctx& c, uint32_t C) noexcept;
  bool active() const noexcept { return active_; }  // the experts are split (this core may have none)
  uint32_t expert() const noexcept { return expert_; }
  uint32_t col0() const noexcept { return col0_; }
  uint32_t cols() const noexcept { return cols_; }  // 0: no slice on this core

 private:
  bool active_ = false;
  uint32_t expert_ = 0, col0_ = 0, cols_ = 0;
};
/// Tokens one pass of the layer computes (chunk_batch rows x chunk_tokens).
inline uint32_t pass_tokens(const SizedLayer& p) noexcept { return p.chunk_batch * p.chunk_tokens; }
inline uint32_t request_tokens(const SizedLayer& p) noexcept { return p.inference.batch * p.inference.seq; }
/// A MoE layer whose request runs in passes (token chunks or row passes): routing and dispatch
/// per pass, each expert once over its slots of the whole request, the combine per pass
/// (moe_passes.cpp).
inline bool moe_in_passes(const SizedLayer& p) noexcept { return p.model.moe_layer && p.chunks > 1; }
/// L2 partial-sum slots per reduction: max(tp, ep).
uint32_t l2_slots(const SizedLayer& p) noexcept;
/// The core that writes kv head `kv`'s present_key/value (the lowest core holding it).
uint32_t kv_writer(const SizedLayer& plan, uint32_t kv) noexcept;

/// LMEM buffers of one core (every lane has the same layout).
struct Bufs {
  Buf x, xn, scratch, ss, wn, ones, tay;
  Buf q, kn, vn, qr, kr, vb, cos, sin, ta, tb, bias, qkw;
  Buf qh, ka, va, sc, mx, rs, pb, oh, mask, ao;
  Buf p, gt, up, ab, ex, erf;
  // Sliced residual (dense tensor-parallel layers, see sliced_residual): one row group of whole
  // rows for the input norm, the partial-sum output tiles (also the reduce-scatter's landing
  // buffers) and every core's sums of squares.
  Buf stage, pt[2], ssp;
  Buf xp;  // the previous pass's residual slice while its MLP reduction finishes
  // MoE routing: logits / probabilities / work copy, selection, prefix positions, weights
  Buf lg, pr, wk, sel, pos, rw, eq, ix, rmx, rst, tri, iota, ye;
  // deepseek_v3 routing: group scores / work copy / selection, correction bias, index rows
  Buf gs, gwk, gsel, ebias, iota_g, iota_n;
  // token-selective combine: the top-k ids [T, top_k] and the owned-rows mask [T, 1] (f32)
  Buf ids, own;
  // MLA (mla.cpp)
  Buf qa, qan, qf, qn, qpe, kva, lat, kpe, qlat, lat_all, kpe_all, qhr, olb, wkb, ov;
  // The weight slots in use (double-buffered weight tiles of at most slot_rows x slot_cols).
  Buf w[2];
  uint32_t slot_rows = 0, slot_cols = 0;
  /// A pair of weight slots with their tile bounds.
  struct SlotSet {
    Buf w[2];
    uint32_t rows = 0, cols = 0;
  };
  SlotSet next;   // MLA: the MLP phase's weight slots (see allocate_buffers)
  SlotSet first;  // MLA: the attention phase's (restored for the next chunk)
  SlotSet slots() const noexcept { return SlotSet{{w[0], w[1]}, slot_rows, slot_cols}; }
  void use(const SlotSet& s) noexcept {
    w[0] = s.w[0];
    w[1] = s.w[1];
    slot_rows = s.rows;
    slot_cols = s.cols;
  }
};

struct Layer {
  Ctx* ctx = nullptr;
  Slices s;
  Bufs b;
  uint32_t B = 0, S = 0, K = 0, T = 0, nkv = 0, H = 0, d = 0;
  uint32_t s0 = 0;      // chunked prefill: the chunk's first token (S tokens from there)
  uint32_t b0 = 0;      // decode in row passes: the pass's first batch row (B rows from there)
  uint32_t S_all = 0;   // the request's tokens per batch row (DDR row layouts)
  uint32_t chunk = 0;   // the chunk's index
  uint32_t slot = 0;  // next weight slot (double buffering)
  uint32_t ic = 0;    // FFN columns per chunk (the gate/up/act buffers' width)
  uint32_t fw = 0;    // width of the chunk being computed
  uint32_t l2_area = 0;
  bool output_stored = false;  // this pass's output slices are in hidden_states_out already
  // The residual's columns x holds: [xc0, xc0 + xw) of the hidden size (the core's slice when
  // sliced, else every column).
  uint32_t xc0 = 0, xw = 0;
  bool sliced = false;
  bool xn_ready = false;       // post_attention_layernorm is done (exchange_normalised)
  /// A reduce-scatter of the sliced residual whose landings and adds are spread over later
  /// work (hook points): the MLP's, deferred into the next pass's gate/up (`deferred`), and the
  /// attention's, spread over the next pass's attention (`attn`, see sliced_program). Its L2
  /// area, this core's slice, the next landing to add, the landings in all, and the pass whose
  /// output it is.
  struct Deferred {
    bool active = false;
    uint32_t area = 0, c0 = 0, w = 0, next = 0, landings = 0;
    uint32_t queued = 0;            // landings queued on the GDMA
    uint32_t hooks = 0, every = 1;  // reduction_hook calls seen; a step every `every` of them
    uint32_t skip = 0;              // hook calls before the first step
    bool started = false;  // the first two landings are queued
    bool prev = false;     // the slice is in l.b.xp (the next pass loaded its own into x)
    bool open = false;     // hook points are live
    uint8_t sites = 0;     // which hook points it steps at (kHookTiles | kHookHeads)
    bool store = false;    // the MLP's: store the slice to hidden_states_out when done
    TensorId bias = TensorId::count;
    const char* op = "";
    uint32_t s0 = 0, b0 = 0;
  } deferred, attn;
  uint32_t fcol = 0;           // sliced FFN: the block's first column in ab
  /// linear_partial: the output tile whose runs to L2 are queued with the next tile's first
  /// weight load (see flush_partial_tile).
  struct PartialTile {
    bool active = false;
    uint32_t area = 0, tile = 0, n0 = 0, nc = 0;
    OpLabel label;
  } pending_tile;
  Overlay overlay;  // MLA: attention buffers [first, second) share LMEM with [second, end)
  /// MLA: the buffers only attend_latent touches (ids [first, end), from LMEM offset `offset`);
  /// `shared`: the attention's weight slots lie in their bytes (allocate_buffers).
  struct AttendSet {
    uint8_t first = 0, end = 0;
    uint32_t offset = 0;
    bool shared = false;
  } attend;
  /// MoE in passes (moe_passes.cpp): the buffers of the experts' step, over the whole LMEM (all
  /// else is parked in DDR then), so an expert runs on `rows` of its slots at a time (its weights
  /// streamed once when rows >= C). Buffer ids [first, end).
  struct ExpertSet {
    Buf xn, ye, gt, up, ab, ex, erf, scratch, tay, w[2];
    uint32_t slot_rows = 0, slot_cols = 0, rows = 0;
    uint8_t first = 0, end = 0;
  } xs;
};

[[nodiscard]] Status allocate_buffers(Layer& l) noexcept;

/// Dense tensor-parallel prefill (not MoE, not MLA, tp > 1, hidden >= tp) keeps only the core's
/// slice of the f32 residual in LMEM: the o_proj / down_proj partials stream out per output
/// tile into the reduce-scatter, the input norm reads whole rows of hidden_states one row group
/// at a time, the post-attention norm is computed on slices (exchange_normalised), and the
/// layer ends with each core storing its slice. This frees LMEM for longer prefill passes (each
/// pass streams every weight again); the passes are pipelined (sliced_program, pipeline.cpp). Decode keeps the whole residual: its few rows fit, and
/// one reduce-scatter plus an f32 all-gather is cheaper there than tiles and an extra barrier
/// (Llama-3-8B decode b1 0.867 ms whole vs 0.900 ms sliced). Other layers keep it whole too.
bool sliced_residual(const SizedLayer& p) noexcept;
/// Columns [c0, c0 + w) of the residual that core `core` of `participants` reduces.
void slice_of(const Layer& l, uint32_t core, uint32_t participants, uint32_t& c0, uint32_t& w) noexcept;
/// The scratch row to use for token row `row`: scratch holds one row group when sliced.
inline uint32_t scratch_row(const Layer& l, uint32_t row) noexcept {
  return l.b.scratch.rows > row ? row : row % sg::kLanes;
}
/// After the attention's reduce-scatter of a sliced residual: post_attention_layernorm's
/// statistics from every core's slice, this core's slice of the normalised x, and the other
/// slices gathered into l.b.xn (model dtype through DDR, TensorId::xn_exchange: half the bytes of
/// the f32 residual, at the chip's DDR rate). Sets l.xn_ready; takes two barriers.
[[nodiscard]] Status exchange_normalised(Layer& l, uint32_t area, uint32_t c0, uint32_t w) noexcept;
/// The sliced residual's MLP reduction, deferred: the partials are in L2 once the next pass's
/// attention barriers are passed (or the layer's last barrier, sliced_program); the
/// slice moves to l.b.xp when the next pass loads its own (keep_previous_slice), and the TIU
/// adds the other cores' partials of it at hook points of the next pass's gate/up projections
/// (reduction_hook, after each weight tile), the GDMA landing them between that pass's gate/up
/// weight loads, where it has time (the MLP's matmuls are TIU-bound; the attention side of a pass
/// is GDMA-bound). finish_deferred_reduction adds what is left and the bias and stores the slice
/// to hidden_states_out; then a barrier (ffn, matmul.cpp) keeps every core's down_proj partials
/// out of the L2 area until all cores have read it. The landings must stay queued one step
/// behind the adds (deferred_step): queued eagerly, a landing waiting for an add that waits
/// for weights queued behind the landing would deadlock the GDMA and the TIU.
[[nodiscard]] Status begin_deferred_reduction(Layer& l) noexcept;
/// Starts reduction `d` (bias: o_proj_b or down_proj_b) of the partials this pass wrote, its
/// landings spread over `hooks` later hook points.
[[nodiscard]] Status begin_reduction(Layer& l, Layer::Deferred& d, TensorId bias, uint32_t hooks) noexcept;
[[nodiscard]] Status deferred_step(Layer& l, Layer::Deferred& d) noexcept;
/// Moves a deferred reduction's slice from x to l.b.xp (x then takes the next pass's slice).
void keep_previous_slice(Layer& l) noexcept;
/// Queues the first two landings of a reduction (once).
[[nodiscard]] Status start_landings(Layer& l, Layer::Deferred& d) noexcept;
/// A hook point (after a weight tile is queued, before its MM2s; after an attention head's row
/// group): each open reduction takes a step every so many calls.
[[nodiscard]] Status reduction_hook(Layer& l, uint8_t site) noexcept;
/// Hook sites: weight tiles of linear() (after the tile's load is queued), attention heads'
/// row groups (after their q rows are queued).
inline constexpr uint8_t kHookTiles = 1, kHookHeads = 2;
/// Adds what is left of `d`, its bias, and (the MLP's) stores the slice.
[[nodiscard]] Status finish_reduction(Layer& l, Layer::Deferred& d) noexcept;
[[nodiscard]] Status finish_deferred_reduction(Layer& l) noexcept;
/// Loads the pass's slice of hidden_states into x.
[[nodiscard]] Status load_input(Layer& l) noexcept;
/// Barriers per pass of a core that holds no part of the layer.
uint32_t barriers_per_pass(const SizedLayer& p) noexcept;
/// The input norm of a sliced residual: whole rows of hidden_states one row group at a time.
[[nodiscard]] Status rms_norm_staged(Layer& l, TensorId weight) noexcept;
/// L2 of reduction `area`: one [T, H] f32 slot per participating core, then the result slot;
/// `slot`'s column `col` of row 0.
Side l2_slot(const Layer& l, uint32_t area, uint32_t slot, uint32_t col = 0) noexcept;
/// The sliced residual's L2 area (two alternate): for each owning core o's slice [c0_o, +w_o),
/// in slice order, the tp - 1 other cores' partials of it ([T, w_o] f32 each, writer order
/// without o: nobody writes the owner's own columns), then the result region (every core's sums
/// of squares [tp, T] f32; the normalised x is exchanged through DDR, TensorId::xn_exchange). At
/// 512-token passes of Llama-3-8B that is 2 x 58.7 MB of the 128 MB, where whole [T, hidden] f32
/// slots per writer would take 151 MB.
uint64_t sliced_l2_area_bytes(const SizedLayer& p) noexcept;
/// Writer `writer`'s partial of output column `col` in `area` (row stride: the owning slice's
/// width; a run must stay inside one slice).
Side l2_part(const Layer& l, uint32_t area, uint32_t writer, uint32_t col) noexcept;
/// The result region of `area` (row stride hidden).
Side l2_result(const Layer& l, uint32_t area) noexcept;
/// x[:, c0:c0+w] += bias[c0:c0+w] (the slice owner adds the bias once).
[[nodiscard]] Status add_bias_slice(Layer& l, TensorId bias, uint32_t c0, uint32_t w) noexcept;
/// A DDR (or L2) side at `addr` with c stride `cs` and h stride `hs` (elements).
Side ddr(uint64_t addr, uint32_t cs, uint32_t hs) noexcept;
/// Loads `count` elements of a 1-D DDR tensor, starting at element `first`, into the first
/// `lanes` lanes of a replicated buffer (source c stride 0: the GDMA reads the same row for each
/// lane, so every lane costs the row's bytes).
[[nodiscard]] Status load_replicated(Layer& l, TensorId id, uint32_t first, uint32_t count, Buf& dst,
                                     uint32_t lanes = sg::kLanes) noexcept;
/// ss[:, 0:n] = rsqrt(ss / count + eps) for rows [row0, row0 + r).
[[nodiscard]] Status inv_rms(Layer& l, uint32_t row0, uint32_t r, uint32_t n, uint32_t count, float eps) noexcept;
/// dst[:, 0] = the sum of each of `r` rows of `cols` columns of f32 `src`: a matmul with the
/// ones vector, as TPU compilers reduce rows on the cube.
inline Status row_sums(Layer& l, const Opd& dst, const Opd& src, uint32_t r, uint32_t cols) noexcept {
  return mm2(*l.ctx, false, r, 1, cols, dst, src, view(l.b.ones, 0, 0), false);
}
/// x[:, x_col:x_col+w] += part[:, 0:w] for every token row of the pass (f32, row group by group).
[[nodiscard]] Status add_part(Layer& l, uint32_t x_col, const Buf& part, uint32_t part_col, uint32_t w) noexcept;
/// RMSNorm of rows [src_row, src_row + r) of `src` (`cols` columns) into rows [row, row + r) of
/// `dst` (l.b.wn holds the weight; l.b.ss rows [row, row + r) the statistics).
[[nodiscard]] Status rms_norm_group(Layer& l, const Buf& src, uint32_t src_row, uint32_t row, uint32_t r,
                                    uint32_t cols, float eps, const Buf& dst) noexcept;
/// out = in x W^T like linear(), for the partial sums of a tensor-parallel reduction: each
/// finished output tile (every k) goes straight to this core's L2 slot of the coming
/// reduction, its own columns added to x at once (sliced residual).
[[nodiscard]] Status linear_partial(Layer& l, const Buf& in, uint32_t Kd, TensorId w, uint32_t row0, uint32_t col0,
                                   uint32_t N) noexcept;
/// Queues the previous partial tile's runs to L2 (linear() calls it after the next tile's first
/// weight load: the GDMA loads that tile's weights while the TIU finishes the previous tile,
/// instead of waiting behind its runs).
[[nodiscard]] Status flush_partial_tile(Layer& l) noexcept;

// Modules (each emits one step of the layer for one core).
[[nodiscard]] Status load_constants(Layer& l) noexcept;
/// Mask rows [first, first + rows) of the pass's query rows (attn_mask input) into l.b.mask's
/// rows [0, rows).
[[nodiscard]] Status load_mask_rows(Layer& l, uint32_t first, uint32_t rows) noexcept;
[[nodiscard]] Status rms_norm(Layer& l, TensorId weight) noexcept;
[[nodiscard]] Status head_norm(Layer& l, Buf& t, uint32_t heads, TensorId weight) noexcept;
/// RMSNorm of `cols` columns of f32 `src` (all token rows) with `weight` into `dst`.
[[nodiscard]] Status rms_norm_rows(Layer& l, const Buf& src, uint32_t cols, TensorId weight, float eps,
                                   const Buf& dst) noexcept;
/// RoPE of `heads` heads (head_dim l.d) of `src` (heads `src_stride` apart from `src_col`) into
/// `dst` (heads l.d apart), rotate_half or interleaved form (see norm.cpp).
[[nodiscard]] Status rope(Layer& l, const Buf& src, uint32_t src_col, uint32_t src_stride, Buf& dst, uint32_t heads,
                          bool interleaved) noexcept;
/// A view of `b` with explicit h (head) and w strides in elements.
Opd heads_view(const Buf& b, uint32_t row, uint32_t col, uint32_t head_stride, uint32_t w_stride) noexcept;
/// A view of `b`'s bytes from `byte_offset` in each row as `cols` elements of `dt` (same LMEM
/// buffer for dependency tracking; the caller keeps it inside b's row).
inline Buf carve(const Buf& b, uint32_t byte_offset, DType dt, uint32_t cols) noexcept {
  Buf s = b;
  s.offset += byte_offset;
  s.dt = dt;
  s.cols = cols;
  return s;
}
/// A sub-buffer: columns [col, col + cols) of `b` (same LMEM buffer for dependency tracking).
inline Buf columns_of(const Buf& b, uint32_t col, uint32_t cols) noexcept {
  Buf s = b;
  s.offset += col * b.esize();
  s.cols = cols;
  return s;
}
[[nodiscard]] Status add_bias(Layer& l, TensorId bias, uint32_t first, uint32_t count, Buf& t, const Buf* out) noexcept;
[[nodiscard]] Status exp_rows(Layer& l, Buf& t, uint32_t row0, uint32_t rows, uint32_t cols) noexcept;
/// out[:, 0:N] (+)= in[:, 0:Kd] x W[row0:row0+N, col0:col0+Kd]^T, W of `w_cols` columns in DDR.
[[nodiscard]] Status linear(Layer& l, const Buf& in, uint32_t Kd, TensorId w, uint32_t row0, uint32_t col0,
                            uint32_t N, Buf& out, bool add = false) noexcept;
/// SwiGLU-style FFN of l.b.xn over `cols` intermediate columns in chunks of l.ic: gate/up rows
/// [gate_row0, +cols) (+ biases at the same columns), act, then down rows [down_row0, +hidden)
/// x columns [down_col0, +cols) accumulated into `out` (f32 [tokens, hidden]).
[[nodiscard]] Status ffn(Layer& l, TensorId gate, TensorId up, TensorId down, uint32_t gate_row0, uint32_t cols,
                         uint32_t down_row0, uint32_t down_col0, Buf& out) noexcept;
[[nodiscard]] Status attention(Layer& l) noexcept;
/// A GQA layer's attention up to its output in l.b.ao: input norm, q/k/v projections (+ biases,
/// q/k norms), RoPE, the new cache entries stored, attention of the pass's tokens.
[[nodiscard]] Status attention_front(Layer& l) noexcept;
/// The pass's attention and its reduction into the residual (both attention kinds).
[[nodiscard]] Status attention_block(Layer& l) noexcept;
/// A pass's constants, input and attention_block, or (a core without heads) its part in the
/// attention's reduction.
[[nodiscard]] Status attention_phase(Layer& l) noexcept;
/// A layer part on a chip that adds no residual (ParallelConfig::residual false): x = 0 before
/// the part's reduction, so the chip's output is its partial sum.
[[nodiscard]] Status drop_residual(Layer& l) noexcept;
/// Points the layer at pass `i` (its tokens, positions and keys; pipeline.cpp).
void set_pass(Layer& l, uint32_t i) noexcept;
/// attention_front up to the attention itself (the new cache entries stored).
[[nodiscard]] Status attention_projections(Layer& l) noexcept;
/// The whole program of a core of a sliced-residual layer (pipeline.cpp).
[[nodiscard]] Status sliced_program(Layer& l) noexcept;
[[nodiscard]] Status mlp_activation(Layer& l) noexcept;
/// What a core does with the residual after a reduction through L2: load it whole (the next
/// step reads every column), or store the columns it reduced to hidden_states_out (the layer
/// ends there; the cores' slices cover every column, so nobody gathers the whole residual).
enum class AfterReduce : uint8_t { load_whole, store_slice };
/// x += sum over the `participants` cores' partials p, then + bias. With `exchange` through L2
/// (reduce-scatter, two barriers, see matmul.cpp) `after` applies; without (one participant,
/// nobody joining) the partial is added directly and x stays whole on the core.
[[nodiscard]] Status reduce_into_residual(Layer& l, TensorId bias, uint32_t participants, bool exchange,
                                          AfterReduce after = AfterReduce::load_whole) noexcept;
/// Stores columns [col, col + cols) of the residual x (f32, every token of the pass) to
/// hidden_states_out.
[[nodiscard]] Status store_output_columns(Layer& l, uint32_t col, uint32_t cols) noexcept;
/// Barriers a core that holds no part of a reduction takes so the others can meet.
inline constexpr uint32_t kBarriersPerReduction = 2;
/// Whether the attention partials go through L2: tp > 1, or MoE cores beyond tp join.
bool attention_exchange(const SizedLayer& p) noexcept;
/// Loads the residual and joins the attention reduction on a core without attention heads.
[[nodiscard]] Status join_attention_reduction(Layer& l) noexcept;
[[nodiscard]] Status allocate_moe(Layer& l) noexcept;
[[nodiscard]] Status allocate_mla(Layer& l) noexcept;
/// MLA attention of the core's heads up to o_proj's partial in l.b.p (mla.cpp).
[[nodiscard]] Status mla_attention(Layer& l) noexcept;
/// 1 / sqrt(n) rounded to f32 (no libm; the same bits on every target).
float inv_sqrt(uint32_t n) noexcept;
/// Whether the layer uses multi-head latent attention (deepseek_v3).
inline bool is_mla(const SizedLayer& p) noexcept { return p.model.type == ModelType::deepseek_v3; }
/// MLA with tp > 1: q_a_proj's and kv_a_proj_with_mqa's output columns are split over the tp
/// cores and every core reads the assembled rows from L2 (one barrier per pass), so no core
/// streams their whole weights (mla.cpp).
bool mla_lora_split(const SizedLayer& p) noexcept;
/// Columns of the exchanged rows: q_lora_rank + kv_lora_rank + qk_rope_head_dim (f32).
uint32_t lora_width(const SizedLayer& p) noexcept;
/// The exchange's L2 area [pass tokens, lora_width] f32, after the reductions' two areas.
uint64_t lora_exchange_offset(const SizedLayer& p) noexcept;
/// MLA decode of two or more batch rows with tp > 1: each core attends whole batch rows (every
/// head, b % tp == core) instead of its heads of every row, so each row's latent cache is read
/// once on the chip; the queries and o_lat go through L2 (two barriers per pass; mla.cpp).
bool mla_rows_split(const SizedLayer& p) noexcept;
/// Its L2 areas after the LoRA exchange: q_lat [tokens, heads, kv_lora_rank], q_pe [tokens,
/// heads, rope], o_lat [tokens, heads, kv_lora_rank], in the model dtype.
uint64_t heads_exchange_offset(const SizedLayer& p) noexcept;
uint64_t heads_exchange_bytes(const SizedLayer& p) noexcept;
[[nodiscard]] Status moe_block(Layer& l) noexcept;
/// The part of moe_block after the experts' phase boundary (the boundary included).
[[nodiscard]] Status moe_block_experts(Layer& l) noexcept;
/// Whether this chip holds and runs expert e (ParallelConfig::expert_first, expert_count).
bool local_expert(const SizedLayer& p, uint32_t e) noexcept;
// The token-selective combine's owned rows (TensorId::moe_own present): the residual and the
// shared experts count on the chip's own token rows only.
bool owned_rows(const Layer& l) noexcept;
// The shared experts run here: the group's first chip, or every chip with owned rows.
bool shared_here(const Layer& l) noexcept;
// Columns [col0, col0 + cols) of `b`'s token rows times the owned-rows mask.
[[nodiscard]] Status mask_owned_rows(Layer& l, const Buf& b, uint32_t col0, uint32_t cols) noexcept;
/// The experts' phase boundary of a core with no routed expert: the MoE reduction's barriers.
[[nodiscard]] Status moe_barriers_only(Layer& l) noexcept;
uint64_t core_slice(const Layer& l, TensorId id) noexcept;  // this core's slice of a per-core scratch tensor
Side ddr_rows(uint64_t addr, uint32_t cols) noexcept;
/// post_attention_layernorm into l.b.xn, stored to `x` (DDR) for the dispatch; the routing's
/// constants loaded.
[[nodiscard]] Status moe_setup(Layer& l, uint64_t x) noexcept;
/// The routing of the pass's l.T tokens: weights in l.b.rw, each expert's slot indices in l.b.ix
/// (slot >= C: not dispatched), the tokens routed to each expert in row T-1 of l.b.eq. With
/// `running` (a DDR row of per-expert counts) the slots continue the earlier passes' (l.chunk >
/// 0) and the row holds the totals so far afterwards.
[[nodiscard]] Status routing(Layer& l, uint32_t C, uint64_t running) noexcept;
[[nodiscard]] Status store_index_column(Layer& l, uint32_t e, uint64_t addr) noexcept;
/// Rows of `ye` (`src_rows` expert slots) gathered into token order by `idx` and added into
/// the partial l.b.p weighted by column `col` of l.b.rw (first: the partial starts there);
/// labelled as expert e's (kNoTile: none).
[[nodiscard]] Status combine_expert(Layer& l, uint32_t e, uint32_t col, uint64_t ye, uint32_t src_rows, uint64_t idx,
                                    bool first) noexcept;
/// expert_tokens[e] = row T-1 of l.b.eq (the expert's owner writes it).
[[nodiscard]] Status store_expert_count(Layer& l, uint32_t e) noexcept;
[[nodiscard]] Status moe_pass_program(Layer& l) noexcept;  // moe_passes.cpp
/// Its part from the experts' phase boundary on (the experts' step, then every pass's combine).
[[nodiscard]] Status moe_pass_experts(Layer& l) noexcept;
[[nodiscard]] Status allocate_expert_set(Layer& l) noexcept;  // moe_passes.cpp
/// Row softmax of rows [row, row + r) x `cols` of f32 `t` in place; `mx` (>= (cols+1)/2 columns)
/// and `stat` (column 0) are scratch.
[[nodiscard]] Status softmax_rows(Layer& l, Buf& t, uint32_t row, uint32_t r, uint32_t cols, const Buf& mx,
                                  const Buf& stat, const Buf* out) noexcept;
/// Column 0 of `mx` = row max (eu 4) or min (eu 5) over `cols` columns of `src`.
[[nodiscard]] Status row_extreme(Layer& l, uint32_t eu, const Buf& src, const Buf& mx, uint32_t row, uint32_t r,
                                 uint32_t cols) noexcept;

/// Row-group helpers: rows [g*64, g*64 + rows_in(g)) of a T-row buffer.
inline uint32_t rows_in(uint32_t total, uint32_t g) noexcept {
  const uint32_t left = total - g * sg::kLanes;
  return left < sg::kLanes ? left : sg::kLanes;
}
inline uint32_t groups_of(uint32_t rows) noexcept { return (rows + sg::kLanes - 1) / sg::kLanes; }

/// Weight rows per tile of a matrix Kd columns wide whose elements are `es` bytes: slot_rows, or
/// more when the matrix is narrower than the slot (matmul.cpp).
uint32_t tile_rows(const Bufs& b, uint32_t Kd, uint32_t es) noexcept;

const TensorInfo& tensor(const Layer& l, TensorId id) noexcept;

/// model.cpp: one core's program of the embedding or the head (plan.program).
[[nodiscard]] Status model_end_program(Ctx& ctx) noexcept;
/// Pass 1 of a plan whose memory is placed: every core's streams counted (generator.cpp).
[[nodiscard]] Status count_streams(SizedLayer& plan, GenError& error) noexcept;
void define_tensor(MemoryMap& mp, TensorId id, TensorRole role, const char* name, DType dt, bool present, uint32_t d0,
                   uint32_t d1 = 0, uint32_t d2 = 0, uint32_t d3 = 0) noexcept;
/// Places every present tensor (weights and constants tag 1, the rest tag 2) in id order.
void place_defined(MemoryMap& mp) noexcept;
/// The op a weight (or norm / bias) belongs to in traces: "q_proj", "input_layernorm", ...
const char* op_name(TensorId id) noexcept;

}  // namespace tilefw::gen::detail
