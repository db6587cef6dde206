// The two passes and the per-core program of a dense decoder layer (graph: layer -> ops).
#include "layer.hpp"

namespace tilefw::gen {

Status place_tensors(SizedLayer& p, GenError& error) noexcept;  // plan.cpp

namespace detail {
namespace {

// Token rows of the pass: batch-major [B, S_all, hidden] in DDR. A pass is contiguous there:
// token chunks have one row (B = 1, from token s0), row passes every token (s0 = 0, from row b0).
uint64_t token_offset(const Layer& l, uint32_t row_elems, uint32_t esize) noexcept {
  return (uint64_t{l.b0} * l.S_all + l.s0) * row_elems * esize;
}

Status store_output(Layer& l) noexcept { return store_output_columns(l, 0, l.H); }

}  // namespace

Status load_input(Layer& l) noexcept {
  set_op(*l.ctx, "load_input");
  const TensorInfo& hs = tensor(l, TensorId::hidden_states);
  Side src;
  src.addr = hs.device_addr + token_offset(l, l.H, 4) + uint64_t{l.xc0} * 4;
  src.cs = l.H;
  src.hs = l.H;
  if (l.xw == 0) return Status::ok;
  return dma(*l.ctx, Shape4{1, l.T, 1, l.xw}, DType::f32, src, side_local(l.b.x, 0, 0));
}

Status store_output_columns(Layer& l, uint32_t col, uint32_t cols) noexcept {
  set_op(*l.ctx, "store_output");
  const TensorInfo& out = tensor(l, TensorId::hidden_states_out);
  Side dst;
  dst.addr = out.device_addr + token_offset(l, l.H, 4) + uint64_t{col} * 4;
  dst.cs = l.H;
  dst.hs = l.H;
  return dma(*l.ctx, Shape4{1, l.T, 1, cols}, DType::f32, side_local(l.b.x, 0, col - l.xc0), dst);
}

Status attention_block(Layer& l) noexcept {
  const SizedLayer& p = *l.ctx->sized;
  if (is_mla(p)) {
    TILEFW_TRY(mla_attention(l));
  } else {
    TILEFW_TRY(attention_front(l));
    TILEFW_TRY(linear(l, l.b.ao, l.s.hl * l.d, TensorId::o_proj_w, 0, l.s.h0 * l.d, l.H, l.b.p));
  }
  if (p.parallel.part == LayerPart::attention) {  // the part ends: each core stores its slice
    TILEFW_TRY(drop_residual(l));
    return reduce_into_residual(l, TensorId::o_proj_b, p.parallel.tp, attention_exchange(p), AfterReduce::store_slice);
  }
  return reduce_into_residual(l, TensorId::o_proj_b, p.parallel.tp, attention_exchange(p));
}

namespace {

Status mlp_block(Layer& l) noexcept {
  TILEFW_TRY(rms_norm(l, TensorId::post_attention_layernorm));
  TILEFW_TRY(ffn(l, TensorId::gate_proj_w, TensorId::up_proj_w, TensorId::down_proj_w, l.s.f0, l.s.fl, 0, l.s.f0,
                 l.b.p));
  TILEFW_TRY(drop_residual(l));
  const uint32_t tp = l.ctx->sized->parallel.tp;  // the layer ends: each core stores its slice
  return reduce_into_residual(l, TensorId::down_proj_b, tp, tp > 1, AfterReduce::store_slice);
}

}  // namespace

Status attention_phase(Layer& l) noexcept {
  TILEFW_TRY(load_constants(l));
  if (l.ctx->sized->parallel.part == LayerPart::mlp) {  // the residual is the attention's all-reduced output
    return l.s.active || l.s.moe_active ? load_input(l) : Status::ok;
  }
  if (!l.s.active) return join_attention_reduction(l);
  TILEFW_TRY(load_input(l));
  return attention_block(l);
}

namespace {

// One pass (the whole request, or one chunk of a chunked prefill) of one core.
Status core_pass(Layer& l) noexcept {
  Ctx& ctx = *l.ctx;
  const SizedLayer& p = *ctx.sized;
  const bool moe = p.model.moe_layer;
  TILEFW_TRY(attention_phase(l));
  if (l.overlay.end != l.overlay.second) {  // MLA: the MLP's buffers reuse the attention's bytes
    enter_overlay(ctx, l.overlay);
    l.b.use(l.b.next);
  }
  if (p.parallel.part == LayerPart::attention) {
    // the attention part ends with its reduction (attention_block): no MLP
  } else if (moe && l.s.moe_active) {
    TILEFW_TRY(moe_block(l));
  } else if (moe) {
    TILEFW_TRY(moe_barriers_only(l));
  } else {
    TILEFW_TRY(mlp_block(l));
  }
  if (ctx.core == 0 && !l.output_stored) TILEFW_TRY(store_output(l));  // x whole on core 0
  l.output_stored = false;
  if (l.overlay.end != l.overlay.second) {  // the next chunk's attention: its own slots again
    leave_overlay(ctx, l.overlay);
    l.b.use(l.b.first);
  }
  return Status::ok;
}

// The experts' phase straight from its boundary, as the control core generates it: the layer
// state there (buffers, overlay, pass) is set up without emitting phase 1's program again.
Status experts_phase_program(Layer& l) noexcept {
  Ctx& ctx = *l.ctx;
  const SizedLayer& p = *ctx.sized;
  if (moe_in_passes(p)) {
    set_pass(l, p.chunks - 1);
    return moe_pass_experts(l);
  }
  set_pass(l, 0);
  if (l.overlay.end != l.overlay.second) {
    enter_overlay(ctx, l.overlay);
    l.b.use(l.b.next);
  }
  TILEFW_TRY(l.s.moe_active ? moe_block_experts(l) : moe_barriers_only(l));
  if (ctx.core == 0 && !l.output_stored) TILEFW_TRY(store_output(l));  // x whole on core 0
  return Status::ok;
}

// One core's whole program. Inactive cores take part in the same barriers (barriers_per_pass
// of them per pass) and end.
Status core_program(Ctx& ctx) noexcept {
  const SizedLayer& p = *ctx.sized;
  if (p.program != Program::layer) return model_end_program(ctx);  // model.cpp
  Layer l;
  l.ctx = &ctx;
  l.s = slices_for(p, ctx.core);
  l.B = p.chunk_batch;  // rows of one pass
  l.S_all = p.inference.seq;
  l.S = p.chunk_tokens;  // buffers are sized for a whole pass
  l.K = p.inference.kv_len;
  l.T = l.B * l.S;
  l.nkv = l.K + l.S_all;
  l.H = p.model.hidden;
  l.d = p.model.head_dim;
  l.sliced = sliced_residual(p);
  l.xw = l.H;  // allocate_activations narrows it to the core's slice when sliced
  set_op(ctx, "barrier");
  if (!l.s.active && !l.s.moe_active) {
    const uint32_t n = barriers_per_pass(p) * p.chunks + (sliced_residual(p) ? 1 : 0);
    // The MoE reductions' barriers (one per pass) come after the experts' phase boundary.
    const uint32_t late = p.model.moe_layer && p.parallel.ep > 1 ? kBarriersPerReduction * p.chunks : 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (i == n - late) phase_boundary(ctx);
      TILEFW_TRY(barrier(ctx));
    }
    if (late == 0) phase_boundary(ctx);
    return finish(ctx);
  }
  TILEFW_TRY(allocate_buffers(l));
  if (l.sliced) {
    TILEFW_TRY(sliced_program(l));  // pipeline.cpp
    return finish(ctx);
  }
  if (ctx.phase.phase == 2 && p.model.moe_layer && !ctx.phase.replay) {
    TILEFW_TRY(experts_phase_program(l));
    return finish(ctx);
  }
  if (moe_in_passes(p)) {
    TILEFW_TRY(moe_pass_program(l));  // moe_passes.cpp
    return finish(ctx);
  }
  for (uint32_t i = 0; i < p.chunks; ++i) {
    set_pass(l, i);
    TILEFW_TRY(core_pass(l));
  }
  return finish(ctx);
}

// Runs one core's program: counting (out == nullptr: sizes into `bytes` / `counts`) or writing.
// `expect`: the sizes pass 2 must produce (the plan's for a static layer).
Status run_core(const SizedLayer& plan, uint32_t core, const StreamBuffers* out, uint32_t& lmem,
                uint64_t (&bytes)[kEngines], uint32_t (&counts)[kEngines], GenError& error,
                const OpSink* ops = nullptr, const PhaseRequest& phase = PhaseRequest{},
                const uint64_t* expect_bytes = nullptr, const uint32_t* expect_counts = nullptr,
                bool exact = true) noexcept {
  Ctx ctx;
  ctx.sized = &plan;
  ctx.core = core;
  ctx.error = &error;
  ctx.phase = phase;
  const bool counting = out == nullptr;
  if (expect_bytes == nullptr) expect_bytes = plan.stream_bytes[core];
  if (expect_counts == nullptr) expect_counts = plan.stream_commands[core];
  ctx.tiu.init(cmd::Engine::tiu, counting ? ByteSpan() : out->stream[core][0], counting);
  ctx.gdma.init(cmd::Engine::gdma, counting ? ByteSpan() : out->stream[core][1], counting);
  ctx.sdma.init(cmd::Engine::sdma, counting ? ByteSpan() : out->stream[core][2], counting);
  for (Stream* s : {&ctx.tiu, &ctx.gdma, &ctx.sdma}) {
    s->label_with(ops, &ctx.label, core);
    s->mute(phase.phase == 2);  // phase 2 starts at the boundary
  }
  const Status s = core_program(ctx);
  if (s != Status::ok) {
    if (error.status == Status::ok) error = GenError{s, "stream emission", core};
    return s;
  }
  lmem = ctx.lmem_used;
  const Stream* streams[3] = {&ctx.tiu, &ctx.gdma, &ctx.sdma};
  for (uint32_t e = 0; e < kEngines; ++e) {
    bytes[e] = streams[e]->bytes();
    counts[e] = streams[e]->count();
    if (!counting && exact && (bytes[e] != expect_bytes[e] || counts[e] != expect_counts[e])) {
      error = GenError{Status::gen_plan_mismatch, "stream size differs from the plan", core};
      return error.status;
    }
  }
  return Status::ok;
}

}  // namespace

}  // namespace detail

namespace {

// Plans one pass size (`chunk` tokens of `rows` batch rows): memory, then every core's streams
// counted. Passes split the tokens (prefill) or the rows (decode), never both.
}  // namespace

namespace detail {
Status count_streams(SizedLayer& plan, GenError& error) noexcept {
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    uint32_t lmem = 0;
    TILEFW_TRY(run_core(plan, c, nullptr, lmem, plan.stream_bytes[c], plan.stream_commands[c], error));
    if (lmem > plan.memory.lmem_bytes_per_lane) plan.memory.lmem_bytes_per_lane = lmem;
  }
  return Status::ok;
}
}  // namespace detail

namespace {

Status choose_passes(SizedLayer& plan, uint32_t chunk, uint32_t rows, GenError& error) noexcept {
  plan.chunk_tokens = chunk;
  plan.chunk_batch = rows;
  // seq or batch 0 is refused by place_tensors
  if (rows != 0 && rows < plan.inference.batch) {
    plan.chunks = plan.inference.batch / rows;
  } else {
    plan.chunks = chunk == 0 ? 1 : plan.inference.seq / chunk;
  }
  plan.memory = MemoryMap{};
  for (uint32_t c = 0; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      plan.stream_bytes[c][e] = 0;
      plan.stream_commands[c][e] = 0;
    }
  }
  TILEFW_TRY(place_tensors(plan, error));
  return detail::count_streams(plan, error);
}

}  // namespace

Status size_layer(const ModelConfig& model, const InferenceConfig& inference, const ParallelConfig& parallel,
                  SizedLayer& plan, GenError& error) noexcept {
  error = GenError{};
  plan = SizedLayer{};
  plan.model = model;
  plan.inference = inference;
  plan.parallel = parallel;
  TILEFW_TRY(resolve_tp(model, parallel, plan.parallel.tp, error));
  const uint32_t S = inference.seq;
  if (inference.chunk != 0) {  // an explicit chunk size
    if (inference.phase != Phase::prefill || inference.batch != 1 || inference.chunk > S || S % inference.chunk != 0) {
      error = GenError{Status::gen_bad_config, "chunk (prefill, batch 1, dividing seq)", inference.chunk};
      return error.status;
    }
    return choose_passes(plan, inference.chunk, inference.batch, error);
  }
  const uint32_t B = inference.batch;
  if (inference.decode_chunk != 0) {  // an explicit number of rows per pass
    if (inference.phase != Phase::decode || inference.decode_chunk > B || B % inference.decode_chunk != 0) {
      error = GenError{Status::gen_bad_config, "decode_chunk (decode, dividing batch)", inference.decode_chunk};
      return error.status;
    }
    return choose_passes(plan, S, inference.decode_chunk, error);
  }
  Status s = choose_passes(plan, S, B, error);
  // A batch-1 prefill too large for LMEM / L2 in one pass runs in chunks of 1024, 512, ... 64
  // tokens (the largest that maps and divides the sequence).
  const bool chunkable = inference.phase == Phase::prefill && inference.batch == 1;
  for (uint32_t chunk = 1024; s == Status::gen_cannot_map && chunkable && chunk >= 64; chunk /= 2) {
    if (chunk >= S || S % chunk != 0) continue;
    const GenError first = error;
    error = GenError{};
    s = choose_passes(plan, chunk, B, error);
    if (s == Status::gen_cannot_map && chunk == 64) error = first;  // report the whole-sequence reason
  }
  // A decode batch too large for LMEM in one pass runs in the fewest passes of equal rows that
  // map (rows are independent in decode; every pass streams the weights again). A failing
  // attempt stops at its first LMEM buffer, before any stream is counted.
  const bool row_passes = inference.phase == Phase::decode && B > 1;
  if (s == Status::gen_cannot_map && row_passes) {
    const GenError whole = error;
    for (uint32_t passes = 2; passes <= B; ++passes) {
      if (B % passes != 0) continue;
      const uint32_t rows = B / passes;
      error = GenError{};
      s = choose_passes(plan, S, rows, error);
      if (s != Status::gen_cannot_map) return s;
    }
    error = whole;  // report the whole-batch reason
  }
  return s;
}

Status emit_core(const SizedLayer& plan, uint32_t core, const StreamBuffers& buffers, GenError& error,
                 const OpSink& ops) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores) {
    error = GenError{Status::invalid_argument, "core (beyond the plan's cores)", core};
    return error.status;
  }
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (buffers.stream[core][e].size() != plan.stream_bytes[core][e]) {
      error = GenError{Status::gen_plan_mismatch, "stream buffer size differs from plan.stream_bytes", core};
      return error.status;
    }
  }
  uint32_t lmem = 0;
  uint64_t bytes[kEngines] = {};
  uint32_t counts[kEngines] = {};
  return detail::run_core(plan, core, &buffers, lmem, bytes, counts, error, &ops);
}

Status size_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase, uint64_t (&bytes)[kEngines],
                  uint32_t (&commands)[kEngines], GenError& error) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores || phase.phase > 2 || (phase.phase == 2 && plan.model.moe_layer && phase.expert_tokens == nullptr)) {
    error = GenError{Status::invalid_argument, "phase request", core};
    return error.status;
  }
  uint32_t lmem = 0;
  return detail::run_core(plan, core, nullptr, lmem, bytes, commands, error, nullptr, phase);
}

Status emit_phase(const SizedLayer& plan, uint32_t core, const PhaseRequest& phase, const StreamBuffers& buffers,
                  uint64_t (&used)[kEngines], GenError& error, const OpSink& ops) noexcept {
  error = GenError{};
  if (core >= plan.parallel.cores || phase.phase > 2 || (phase.phase == 2 && plan.model.moe_layer && phase.expert_tokens == nullptr)) {
    error = GenError{Status::invalid_argument, "phase request", core};
    return error.status;
  }
  if (phase.memory != nullptr) {  // every command starts unchecked; the copies mark theirs
    for (const Span<uint8_t>& bits : phase.checked) {
      for (uint8_t& b : bits) b = 0;
    }
  }
  uint32_t lmem = 0;
  uint32_t counts[kEngines] = {};
  return detail::run_core(plan, core, &buffers, lmem, used, counts, error, &ops, phase, nullptr, nullptr, false);
}

Status emit_layer(const SizedLayer& plan, const StreamBuffers& buffers, GenError& error, const OpSink& ops) noexcept {
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) TILEFW_TRY(emit_core(plan, c, buffers, error, ops));
  return Status::ok;
}

}  // namespace tilefw::gen
