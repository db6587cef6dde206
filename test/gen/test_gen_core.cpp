// gen layer, core tests (host GoogleTest and QEMU Cortex-M4/M55 through minitest; no heap):
// the tensor-parallel rule (docs/generator.md section 3, Rule: Megatron tensor parallelism), the
// request checks of size_layer, LMEM / L2 mapping failures, the pass-2 size contract, every stream
// of a few tiny layers
// valid under cmd::validate_core with the plan's memory map, exact planned sizes, deterministic
// emission, the DDR memory plan, and the pinned tiny decode step (byte-identical on every
// target: test_gen_core_pinned.cpp).
#include <cstdint>
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/gen/generator.hpp"

#if !defined(TILEFW_TEST_MINITEST)
#include <cinttypes>
#include <cstdio>
#endif

using namespace tilefw;
using namespace tilefw::gen;

namespace gentest {  // test_gen_core_pinned.cpp
void tiny_decode(ModelConfig& m, InferenceConfig& in, ParallelConfig& par) noexcept;
uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept;
bool layout_streams(const SizedLayer& p, uint8_t* arena, size_t bytes, uint8_t fill, StreamBuffers& out) noexcept;
uint64_t hash_streams(const SizedLayer& p, const StreamBuffers& b) noexcept;
void pinned_stream(uint32_t core, uint32_t engine, uint64_t& bytes, uint64_t& fnv) noexcept;
}  // namespace gentest

namespace {

// Stream memory of the emits: static (no heap on the targets). The biggest layer below needs
// well under half of it; the Cortex-M4 board has 3 MB of RAM, the M55 board 512 KB.
constexpr size_t kArenaBytes = 160 * 1024;
alignas(16) uint8_t g_arena[kArenaBytes];
SizedLayer g_plan;  // ~2.5 KB: static, not on the 16 KB target stack

bool starts_with(const char* s, const char* prefix) noexcept {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

ModelConfig tiny_llama() noexcept {
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  return m;
}

InferenceConfig prefill(uint32_t batch, uint32_t seq) noexcept {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.batch = batch;
  in.seq = seq;
  in.kv_len = 0;
  return in;
}

InferenceConfig decode(uint32_t batch, uint32_t kv_len) noexcept {
  InferenceConfig in;
  in.phase = Phase::decode;
  in.batch = batch;
  in.seq = 1;
  in.kv_len = kv_len;
  return in;
}

ParallelConfig cores_tp(uint32_t cores, uint32_t tp) noexcept {
  ParallelConfig p;
  p.cores = cores;
  p.tp = tp;
  return p;
}

uint64_t planned_total(const SizedLayer& p) noexcept {
  uint64_t total = 0;
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) total += p.stream_bytes[c][e];
  }
  return total;
}

// Lays the plan's streams out in the arena (16-byte aligned), filled with `fill`.
bool layout(const SizedLayer& p, uint8_t fill, StreamBuffers& out) noexcept {
  return gentest::layout_streams(p, g_arena, kArenaBytes, fill, out);
}

uint64_t hash_all(const SizedLayer& p, const StreamBuffers& b) noexcept { return gentest::hash_streams(p, b); }

cmd::Engine engine_of(uint32_t e) noexcept {
  return e == 0 ? cmd::Engine::tiu : e == 1 ? cmd::Engine::gdma : cmd::Engine::sdma;
}

// Plans, emits twice (into memory pre-filled with 0x00, then 0xFF: every byte must be written
// and both emits equal), checks the streams against the plan and validates every core.
void check_layer(const ModelConfig& m, const InferenceConfig& in, const ParallelConfig& par,
                 uint32_t expect_tp) {
  GenError err;
  ASSERT_EQ(size_layer(m, in, par, g_plan, err), Status::ok);
  EXPECT_EQ(err.status, Status::ok);
  const SizedLayer& p = g_plan;
  EXPECT_EQ(p.parallel.tp, expect_tp);
  EXPECT_EQ(p.parallel.cores, par.cores);
  EXPECT_GT(p.memory.lmem_bytes_per_lane, 0u);
  EXPECT_LE(p.memory.lmem_bytes_per_lane, chip::sg2260::kLaneBytes);
  for (uint32_t c = par.cores; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) EXPECT_EQ(p.stream_bytes[c][e], 0u);
  }

  StreamBuffers bufs;
  ASSERT_TRUE(layout(p, 0x00, bufs));
  ASSERT_EQ(emit_layer(p, bufs, err), Status::ok);
  const uint64_t first = hash_all(p, bufs);
  ASSERT_TRUE(layout(p, 0xFF, bufs));
  ASSERT_EQ(emit_layer(p, bufs, err), Status::ok);
  EXPECT_EQ(hash_all(p, bufs), first);

  const cmd::DdrRegion regions[2] = {{1, chip::sg2260::make_dma_address(1, 0), p.memory.coeff_bytes},
                                     {2, chip::sg2260::make_dma_address(2, 0), p.memory.neuron_bytes}};
  cmd::ValidateOptions with_map;
  with_map.use_memory_map = true;
  with_map.ddr_regions = Span<const cmd::DdrRegion>(regions, 2);
  uint64_t written = 0;
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    const cmd::CoreStreams cs{ConstByteSpan(bufs.stream[c][0].data(), bufs.stream[c][0].size()),
                              ConstByteSpan(bufs.stream[c][1].data(), bufs.stream[c][1].size()),
                              ConstByteSpan(bufs.stream[c][2].data(), bufs.stream[c][2].size())};
    const cmd::ValidationReport plain = cmd::validate_core(cs);
    EXPECT_EQ(plain.status, Status::ok);
    const cmd::ValidationReport r = cmd::validate_core(cs, with_map);
    EXPECT_EQ(r.status, Status::ok);
    if (!r.ok()) {
      EXPECT_EQ(c, 0xFFFFFFFFu);  // which core
      EXPECT_EQ(static_cast<uint32_t>(r.engine), 0xFFFFFFFFu);
      EXPECT_EQ(r.command_id, 0xFFFFFFFFu);
      EXPECT_STREQ(r.field, "");
      EXPECT_STREQ(r.message, "");
    }
    for (uint32_t e = 0; e < kEngines; ++e) {
      // Walk: the commands fill the planned bytes exactly, the last is the end command.
      cmd::Walker w(engine_of(e), ConstByteSpan(bufs.stream[c][e].data(), bufs.stream[c][e].size()));
      cmd::Command cm;
      uint64_t bytes = 0;
      uint32_t count = 0;
      bool ended = false;
      while (w.next(cm)) {
        bytes += cm.length;
        ++count;
        ended = cm.is_end();
      }
      EXPECT_EQ(w.status(), Status::ok);
      EXPECT_TRUE(ended);
      EXPECT_EQ(bytes, p.stream_bytes[c][e]);
      EXPECT_EQ(count, p.stream_commands[c][e]);
      written += bytes;
    }
  }
  EXPECT_EQ(written, planned_total(p));
}

}  // namespace

// ---- Rule: Megatron tensor parallelism: the tensor-parallel degree ------------------------

TEST(GenTp, DefaultRule) {
  GenError err;
  uint32_t tp = 0;
  ModelConfig m = tiny_llama();
  m.heads = 32;
  m.kv_heads = 8;  // Llama-3-8B
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 8u);
  m.heads = 3;
  m.kv_heads = 1;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 3u);
  m.heads = 4;
  m.kv_heads = 2;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 4u);
  // 12 heads / 4 kv: 8 does not divide 12; 6 divides 12 but neither divides 4 nor is a
  // multiple of it; 4 qualifies.
  m.heads = 12;
  m.kv_heads = 4;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 4u);
  // Fewer cores bound T: 12 / 4 on 3 cores -> 2 (3 divides 12 but breaks the kv rule).
  EXPECT_EQ(resolve_tp(m, cores_tp(3, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 2u);
  // kv heads replicated: 32 / 2 on 8 cores -> 8 (a multiple of 2).
  m.heads = 32;
  m.kv_heads = 2;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 8u);
  m.heads = 7;
  m.kv_heads = 7;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 7u);
  EXPECT_EQ(resolve_tp(m, cores_tp(1, 0), tp, err), Status::ok);
  EXPECT_EQ(tp, 1u);
}

TEST(GenTp, ExplicitValues) {
  GenError err;
  uint32_t tp = 0;
  ModelConfig m = tiny_llama();
  m.heads = 12;
  m.kv_heads = 4;
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 2), tp, err), Status::ok);
  EXPECT_EQ(tp, 2u);
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 1), tp, err), Status::ok);
  EXPECT_EQ(tp, 1u);
  // 6 divides the 12 heads but neither divides the 4 kv heads nor is a multiple of them.
  err = GenError{};
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 6), tp, err), Status::gen_bad_config);
  EXPECT_EQ(err.status, Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "tp"));
  EXPECT_EQ(err.value, 6u);
  // 8 does not divide 12.
  err = GenError{};
  EXPECT_EQ(resolve_tp(m, cores_tp(8, 8), tp, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "tp"));
  // Above the cores.
  m.heads = 32;
  m.kv_heads = 8;
  err = GenError{};
  EXPECT_EQ(resolve_tp(m, cores_tp(4, 8), tp, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "tp"));
  // size_layer passes the error through.
  err = GenError{};
  EXPECT_EQ(size_layer(tiny_llama(), decode(1, 3), cores_tp(8, 3), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "tp"));
}

TEST(GenTp, CoresOutOfRange) {
  GenError err;
  uint32_t tp = 0;
  const ModelConfig m = tiny_llama();
  EXPECT_EQ(resolve_tp(m, cores_tp(0, 0), tp, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "cores"));
  EXPECT_EQ(err.value, 0u);
  err = GenError{};
  EXPECT_EQ(resolve_tp(m, cores_tp(9, 0), tp, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "cores"));
  EXPECT_EQ(err.value, 9u);
  err = GenError{};
  EXPECT_EQ(size_layer(m, decode(1, 3), cores_tp(9, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "cores"));
}

// ---- size_layer request checks -------------------------------------------------------------

TEST(GenPlan, BadRequestNamesTheKey) {
  GenError err;
  const ModelConfig m = tiny_llama();
  EXPECT_EQ(size_layer(m, prefill(1, 0), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "seq"));
  EXPECT_EQ(size_layer(m, prefill(0, 4), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "batch"));
  EXPECT_EQ(size_layer(m, decode(1, 0), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "kv_len"));
  InferenceConfig two = decode(1, 3);
  two.seq = 2;
  EXPECT_EQ(size_layer(m, two, cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "seq"));

  {  // deepseek_v3 (MLA) needs its latent shapes; MoE blocks need experts and top_k <= experts
    ModelConfig x = m;
    x.type = ModelType::deepseek_v3;
    x.kv_heads = x.heads;
    err = GenError{};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "kv_lora_rank"));
    x.mla = MlaConfig{0, 32, 16, 16, true};
    err = GenError{};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::ok);
    x.moe_layer = true;
    x.moe = MoeConfig{12, 3, 32, true, 0, 0.0f, Routing::sigmoid_grouped, 5, 2, 2.5f, 32};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "n_group"));
    x.moe.n_group = 4;
    x.moe.topk_group = 5;
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "topk_group"));
    x.moe.topk_group = 1;  // 3 experts per group: top-4 cannot come from one group
    x.moe.top_k = 4;
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "num_experts_per_tok"));
    x.moe.top_k = 3;
    err = GenError{};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::ok);
    x.moe_layer = false;
    x.type = ModelType::mixtral;
    x.kv_heads = m.kv_heads;
    x.moe_layer = true;
    x.moe = MoeConfig{0, 2, 32, true, 0};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "num_experts"));
    x.moe = MoeConfig{5, 6, 32, true, 0};
    err = GenError{};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
    EXPECT_TRUE(starts_with(err.what, "num_experts_per_tok"));
    x.moe = MoeConfig{5, 2, 32, true, 0};
    err = GenError{};
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::ok);
    x.type = ModelType::qwen3_moe;  // a qwen3_moe dense layer (mlp_only_layers) plans like qwen3
    x.moe_layer = false;
    EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::ok);
  }
  // An activation the generator does not know (a value outside the enum, so the check holds
  // whichever of gelu / gelu_tanh the generator supports).
  ModelConfig x = m;
  x.act = static_cast<Activation>(0x7F);
  err = GenError{};
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "hidden_act"));
  x = m;
  x.dtype = DType::f32;
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "dtype"));
  x = m;
  x.head_dim = 15;
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "head_dim"));
  x = m;
  x.heads = 6;
  x.kv_heads = 4;  // 6 % 4 != 0
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(1, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "num_key_value_heads"));
  x = m;
  x.hidden = 0;
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "hidden_size"));
  // Fewer FFN columns than tensor-parallel cores (tp 4 here).
  x = m;
  x.intermediate = 3;
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "intermediate_size"));
  EXPECT_EQ(err.value, 3u);
  x.intermediate = 4;
  EXPECT_EQ(size_layer(x, decode(1, 3), cores_tp(8, 0), g_plan, err), Status::ok);
}

// Llama-3-8B's layer shape on the tiny config's other fields.
ModelConfig llama_8b_shape() noexcept {
  ModelConfig m = tiny_llama();
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.intermediate = 14336;
  return m;
}

TEST(GenPlan, TooBigForMemoryNamesTheTensor) {
  const ModelConfig m = llama_8b_shape();
  GenError err;
  // Batch 2 x 4096 tokens x 4096 f32 of residual alone are 2 MiB per lane (LMEM: 256 KiB), and
  // a batch > 1 prefill is not chunked: the tensor is named.
  EXPECT_EQ(size_layer(m, prefill(2, 4096), cores_tp(1, 0), g_plan, err), Status::gen_cannot_map);
  EXPECT_EQ(err.status, Status::gen_cannot_map);
  EXPECT_TRUE(starts_with(err.what, "residual x"));
  EXPECT_GT(err.value, uint64_t{chip::sg2260::kLaneBytes});
  // Eight cores (tp 8), batch 2: the tensor-parallel partial sums do not fit L2 first.
  err = GenError{};
  EXPECT_EQ(size_layer(m, prefill(2, 4096), cores_tp(8, 0), g_plan, err), Status::gen_cannot_map);
  EXPECT_TRUE(starts_with(err.what, "L2"));
  EXPECT_GT(err.value, chip::sg2260::kL2Bytes);
  // Batch 1 runs in chunks: the largest power of two <= 1024 that maps and divides 4096.
  for (uint32_t cores : {1u, 8u}) {
    err = GenError{};
    ASSERT_EQ(size_layer(m, prefill(1, 4096), cores_tp(cores, 0), g_plan, err), Status::ok);
    EXPECT_LT(g_plan.chunk_tokens, 4096u);
    EXPECT_GE(g_plan.chunk_tokens, 64u);
    EXPECT_EQ(g_plan.chunk_tokens * g_plan.chunks, 4096u);
    EXPECT_LE(g_plan.memory.lmem_bytes_per_lane, chip::sg2260::kLaneBytes);
    EXPECT_LE(g_plan.memory.l2_bytes, chip::sg2260::kL2Bytes);
  }
}

TEST(GenPlan, LargeDecodeBatchRunsInPassesOfRows) {
  const ModelConfig m = llama_8b_shape();
  GenError err;
  // Decode keeps the whole residual (the sliced one is for prefill passes): 256 rows of f32
  // residual are 64 KiB per lane on their own; four such activations do not
  // fit with the cache of 256 positions: the batch runs in the fewest passes of equal rows that
  // map (rows are independent in decode).
  ASSERT_EQ(size_layer(m, decode(256, 256), cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_LT(g_plan.chunk_batch, 256u);
  EXPECT_GE(g_plan.chunk_batch, 1u);
  EXPECT_EQ(g_plan.chunk_batch * g_plan.chunks, 256u);
  EXPECT_EQ(g_plan.chunk_tokens, 1u);
  EXPECT_LE(g_plan.memory.lmem_bytes_per_lane, chip::sg2260::kLaneBytes);
  const uint32_t rows = g_plan.chunk_batch;
  // Twice those rows do not map in one pass (that is why the passes have `rows`).
  InferenceConfig twice = decode(2 * rows, 256);
  twice.decode_chunk = 2 * rows;
  EXPECT_EQ(size_layer(m, twice, cores_tp(8, 0), g_plan, err), Status::gen_cannot_map);
  // Rows need not be a power of two: 192 rows (three per lane) do not map, two passes of 96
  // (two per lane, like 128) do, rather than three passes of 64.
  ASSERT_EQ(size_layer(m, decode(192, 256), cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.chunk_batch, 96u);
  EXPECT_EQ(g_plan.chunks, 2u);
  // An explicit row count must divide the batch, and only decode has rows to pass over.
  InferenceConfig bad = decode(6, 4);
  bad.decode_chunk = 4;
  EXPECT_EQ(size_layer(tiny_llama(), bad, cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  EXPECT_TRUE(starts_with(err.what, "decode_chunk"));
  EXPECT_EQ(err.value, 4u);
  bad = prefill(2, 8);
  bad.decode_chunk = 1;
  EXPECT_EQ(size_layer(tiny_llama(), bad, cores_tp(8, 0), g_plan, err), Status::gen_bad_config);
  bad = decode(6, 4);
  bad.decode_chunk = 3;
  ASSERT_EQ(size_layer(tiny_llama(), bad, cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.chunks, 2u);
  EXPECT_EQ(g_plan.chunk_batch, 3u);
}

TEST(GenPlan, SlicedResidualLengthensPrefillPasses) {
  const ModelConfig m = llama_8b_shape();
  GenError err;
  // tp 8: each core keeps 512 of the 4096 residual columns and one output tile of partial sums,
  // its attention buffers overlay its MLP's, and L2 holds only the exchanged partials, so 512
  // tokens map in one pass (each pass streams every weight again).
  ASSERT_EQ(size_layer(m, prefill(1, 1024), cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.chunk_tokens, 512u);
  EXPECT_EQ(g_plan.chunks, 2u);
  EXPECT_LE(g_plan.memory.lmem_bytes_per_lane, chip::sg2260::kLaneBytes);
  // Two areas of (tp - 1) f32 partials of every slice plus every core's sums of squares.
  EXPECT_EQ(g_plan.memory.l2_bytes, 2ull * (7ull * 512 * 4096 * 4 + 8ull * 512 * 4));
  EXPECT_LE(g_plan.memory.l2_bytes, chip::sg2260::kL2Bytes);
  // Four barriers per pass (three for the attention's reduction: reduce-scatter, sums of
  // squares, normalised x; one before down_proj reuses the deferred MLP reduction's L2 area) and
  // one before the last pass's MLP reduction, and the SDMA carries nothing else: on the SG2260
  // it cannot address LMEM, so every partial sum moves on the GDMA.
  for (uint32_t c = 0; c < 8; ++c) EXPECT_EQ(g_plan.stream_commands[c][2], 2u * (4u * g_plan.chunks + 1u) + 1u);
  // A layer on one core keeps the whole f32 residual and the whole partial sums: shorter passes.
  ASSERT_EQ(size_layer(m, prefill(1, 1024), cores_tp(1, 0), g_plan, err), Status::ok);
  EXPECT_LT(g_plan.chunk_tokens, 512u);
}

// Qwen3-30B-A3B's MoE layer shape (128 experts, top-8, 768 wide) on the tiny config's fields.
ModelConfig qwen3_30b_moe_shape() noexcept {
  ModelConfig m = tiny_llama();
  m.type = ModelType::qwen3_moe;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.head_dim = 128;
  m.qk_norm = true;
  m.moe_layer = true;
  m.moe = MoeConfig{128, 8, 768, true, 0, 1.25f};
  return m;
}

TEST(GenPlan, MoeInPassesRunsEachExpertOnceOverTheRequest) {
  const ModelConfig m = qwen3_30b_moe_shape();
  GenError err;
  ASSERT_EQ(size_layer(m, prefill(1, 2048), cores_tp(8, 0), g_plan, err), Status::ok);
  const SizedLayer& p = g_plan;
  ASSERT_GT(p.chunks, 1u);  // 2048 tokens do not map in one pass
  EXPECT_LE(p.memory.lmem_bytes_per_lane, chip::sg2260::kLaneBytes);
  // Rule: capacity: C = ceil(1.25 x 2048 x 8 / 128) = 160 slots of the request (not of a pass), and
  // one count per expert for the whole request.
  EXPECT_EQ(p.capacity, 160u);
  const TensorInfo& counts = p.memory[TensorId::expert_tokens];
  ASSERT_EQ(counts.rank, 1u);
  EXPECT_EQ(counts.shape[0], 128u);
  // Each core's 16 experts have their 160 slots end to end (dispatched into across passes), and
  // a token's choices on a core move by rank: min(top_k, 16) = 8 index and weight rows per token.
  const TensorInfo& xe = p.memory[TensorId::moe_xe];
  ASSERT_EQ(xe.rank, 4u);
  EXPECT_EQ(xe.shape[1], 16u);
  EXPECT_EQ(xe.shape[2], 160u);
  const TensorInfo& idx = p.memory[TensorId::moe_idx];
  ASSERT_EQ(idx.rank, 3u);
  EXPECT_EQ(idx.shape[1], 8u);
  EXPECT_EQ(idx.shape[2], 2048u);
  EXPECT_TRUE(p.memory[TensorId::moe_res].present);
  EXPECT_TRUE(p.memory[TensorId::moe_cnt].present);
  // One pass: the per-pass layout, none of the cross-pass scratch.
  ASSERT_EQ(size_layer(m, prefill(1, 64), cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.chunks, 1u);
  EXPECT_EQ(g_plan.capacity, 5u);  // ceil(1.25 x 64 x 8 / 128)
  EXPECT_FALSE(g_plan.memory[TensorId::moe_res].present);
  EXPECT_EQ(g_plan.memory[TensorId::moe_xe].rank, 3u);
  // An exact quotient is not rounded up: ceil(0.3 x 10 x 2 / 6) = 1 (0.3 as a float made it 2).
  ModelConfig six = m;
  six.moe.experts = 6;
  six.moe.top_k = 2;
  six.moe.capacity_factor = 0.3;
  ASSERT_EQ(size_layer(six, prefill(1, 10), cores_tp(8, 0), g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.capacity, 1u);
}

// ---- pass 2 --------------------------------------------------------------------------------

TEST(GenEmit, BufferSizeMustMatchPlan) {
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  GenError err;
  ASSERT_EQ(size_layer(m, in, par, g_plan, err), Status::ok);
  StreamBuffers b;
  ASSERT_TRUE(layout(g_plan, 0, b));
  const uint32_t cells[3][2] = {{0, 0}, {1, 1}, {7, 2}};  // core, engine
  for (const auto& ce : cells) {
    StreamBuffers s = b;
    ByteSpan& span = s.stream[ce[0]][ce[1]];
    ASSERT_GT(span.size(), size_t{0});
    span = ByteSpan(span.data(), span.size() - 1);
    err = GenError{};
    EXPECT_EQ(emit_layer(g_plan, s, err), Status::gen_plan_mismatch);
    EXPECT_EQ(err.status, Status::gen_plan_mismatch);
    EXPECT_EQ(err.value, uint64_t{ce[0]});
  }
  // The byte after the stream is not enough either.
  StreamBuffers s = b;
  s.stream[3][0] = ByteSpan(s.stream[3][0].data(), s.stream[3][0].size() + 1);
  EXPECT_EQ(emit_layer(g_plan, s, err), Status::gen_plan_mismatch);
  EXPECT_EQ(emit_layer(g_plan, b, err), Status::ok);
}

TEST(GenEmit, TinyLayersAreValidOnEveryCore) {
  const ModelConfig llama = tiny_llama();
  check_layer(llama, decode(1, 3), cores_tp(8, 0), 4);  // the pinned request
  check_layer(llama, prefill(1, 8), cores_tp(8, 1), 1);  // tp 1: cores 1..7 only end
  check_layer(llama, prefill(2, 5), cores_tp(8, 2), 2);
  check_layer(llama, decode(3, 9), cores_tp(4, 4), 4);
  check_layer(llama, prefill(1, 70), cores_tp(2, 0), 2);  // 70 tokens: two row groups
  check_layer(llama, prefill(1, 6), cores_tp(1, 0), 1);   // one core

  ModelConfig bias = tiny_llama();  // qwen2 qkv bias + llama attention/mlp bias
  bias.type = ModelType::qwen2;
  bias.qkv_bias = true;
  bias.o_bias = true;
  bias.mlp_bias = true;
  bias.intermediate = 150;  // uneven FFN split over 4 cores
  check_layer(bias, prefill(1, 7), cores_tp(8, 4), 4);
  check_layer(bias, decode(2, 5), cores_tp(8, 2), 2);

  ModelConfig qwen3 = tiny_llama();  // q_norm / k_norm, f16, head_dim != hidden / heads
  qwen3.type = ModelType::qwen3;
  qwen3.qk_norm = true;
  qwen3.dtype = DType::f16;
  qwen3.head_dim = 32;
  qwen3.rms_eps = 1e-6f;
  check_layer(qwen3, prefill(1, 4), cores_tp(8, 4), 4);
  check_layer(qwen3, decode(2, 6), cores_tp(8, 1), 1);
  check_layer(qwen3, decode(1, 2), cores_tp(8, 2), 2);

  ModelConfig mqa = tiny_llama();  // mistral, one kv head replicated on 4 cores
  mqa.type = ModelType::mistral;
  mqa.kv_heads = 1;
  check_layer(mqa, prefill(1, 3), cores_tp(8, 0), 4);
}

// ---- memory plan ---------------------------------------------------------------------------

TEST(GenPlan, MemoryMap) {
  ModelConfig m = tiny_llama();
  m.type = ModelType::qwen3;
  m.qk_norm = true;
  m.qkv_bias = true;
  m.mlp_bias = true;
  m.head_dim = 24;  // q = 96, kv = 48 != hidden
  GenError err;
  ASSERT_EQ(size_layer(m, decode(2, 5), cores_tp(8, 0), g_plan, err), Status::ok);
  const MemoryMap& mp = g_plan.memory;
  const uint32_t q = 4 * 24, kv = 2 * 24;
  struct Want {
    TensorId id;
    uint32_t d0, d1;
  };
  const Want linear[7] = {{TensorId::q_proj_w, q, 64},          {TensorId::k_proj_w, kv, 64},
                          {TensorId::v_proj_w, kv, 64},         {TensorId::o_proj_w, 64, q},
                          {TensorId::gate_proj_w, 160, 64},     {TensorId::up_proj_w, 160, 64},
                          {TensorId::down_proj_w, 64, 160}};
  for (const Want& w : linear) {  // [out, in], the checkpoint layout
    const TensorInfo& t = mp[w.id];
    EXPECT_TRUE(t.present);
    EXPECT_EQ(t.role, TensorRole::weight);
    EXPECT_EQ(t.rank, 2u);
    EXPECT_EQ(t.shape[0], w.d0);
    EXPECT_EQ(t.shape[1], w.d1);
    EXPECT_EQ(t.dtype, DType::bf16);
    EXPECT_EQ(t.bytes, uint64_t{w.d0} * w.d1 * 2);
  }
  EXPECT_STREQ(mp[TensorId::q_proj_w].name, "self_attn.q_proj.weight");
  EXPECT_STREQ(mp[TensorId::down_proj_w].name, "mlp.down_proj.weight");
  EXPECT_EQ(mp[TensorId::q_proj_b].shape[0], q);
  EXPECT_EQ(mp[TensorId::k_proj_b].shape[0], kv);
  EXPECT_TRUE(mp[TensorId::q_proj_b].present);
  EXPECT_TRUE(mp[TensorId::gate_proj_b].present);
  EXPECT_FALSE(mp[TensorId::o_proj_b].present);
  EXPECT_EQ(mp[TensorId::q_norm].rank, 1u);
  EXPECT_EQ(mp[TensorId::q_norm].shape[0], 24u);
  EXPECT_EQ(mp[TensorId::input_layernorm].shape[0], 64u);
  // Activations: f32 hidden states [B, S, hidden]; cache [B, kv_heads, K or S, head_dim].
  const TensorInfo& hs = mp[TensorId::hidden_states];
  EXPECT_EQ(hs.rank, 3u);
  EXPECT_EQ(hs.shape[0], 2u);
  EXPECT_EQ(hs.shape[1], 1u);
  EXPECT_EQ(hs.shape[2], 64u);
  EXPECT_EQ(hs.dtype, DType::f32);
  const TensorInfo& pk = mp[TensorId::past_key];
  EXPECT_EQ(pk.rank, 4u);
  EXPECT_EQ(pk.shape[2], 5u);
  EXPECT_EQ(pk.shape[3], 24u);
  EXPECT_EQ(mp[TensorId::present_value].shape[2], 1u);
  EXPECT_FALSE(mp[TensorId::attn_mask].present);  // decode: one query row sees everything

  // Every present tensor inside its region (tag 1: weights + constants, tag 2: activations),
  // 64-byte aligned, and no two of the same tag overlapping.
  for (uint32_t i = 0; i < kTensorCount; ++i) {
    const TensorInfo& a = mp.tensors[i];
    if (!a.present) continue;
    EXPECT_EQ(static_cast<uint32_t>(a.id), i);
    EXPECT_GT(a.bytes, 0u);
    const uint32_t tag = chip::sg2260::dma_tag(a.device_addr);
    const bool coeff = a.role == TensorRole::weight || a.role == TensorRole::constant;
    EXPECT_EQ(tag, coeff ? 1u : 2u);
    const uint64_t off = a.device_addr & chip::sg2260::kDmaOffsetMask;
    EXPECT_EQ(off % 64, 0u);
    EXPECT_LE(off + a.bytes, coeff ? mp.coeff_bytes : mp.neuron_bytes);
    for (uint32_t j = i + 1; j < kTensorCount; ++j) {
      const TensorInfo& b = mp.tensors[j];
      if (!b.present || chip::sg2260::dma_tag(b.device_addr) != tag) continue;
      const bool apart = a.device_addr + a.bytes <= b.device_addr || b.device_addr + b.bytes <= a.device_addr;
      EXPECT_TRUE(apart);
    }
  }
  // Tensor parallelism: two reductions through L2, each a partial per core and the result.
  EXPECT_EQ(g_plan.parallel.tp, 4u);
  EXPECT_EQ(mp.l2_bytes, uint64_t{2} * (4 + 1) * 2 * 64 * 4);
  EXPECT_LE(mp.l2_offset + mp.l2_bytes, chip::sg2260::kL2Bytes);
  // The exp table constant.
  uint8_t table[17 * 4];
  EXPECT_EQ(mp[TensorId::exp_taylor].bytes, sizeof table);
  EXPECT_EQ(fill_constant(g_plan, TensorId::exp_taylor, ByteSpan(table, sizeof table)), Status::ok);
  EXPECT_EQ(table[0], 0x00);  // 1.0f = 0x3F800000, little-endian
  EXPECT_EQ(table[3], 0x3F);
  EXPECT_EQ(fill_constant(g_plan, TensorId::exp_taylor, ByteSpan(table, sizeof table - 1)), Status::buffer_too_small);
  EXPECT_EQ(fill_constant(g_plan, TensorId::q_proj_w, ByteSpan(table, sizeof table)), Status::invalid_argument);
  // Analytic work: projections 2 x T x (64 x (96 + 2 x 48) + 96 x 64 + 3 x 64 x 160), attention
  // 2 x 2 x B x heads x head_dim x (K + 1).
  const uint64_t proj = 64ull * (q + 2 * kv) + uint64_t{q} * 64 + 3ull * 64 * 160;
  EXPECT_EQ(g_plan.flops, 2 * (2 * proj + 2ull * 2 * 4 * 24 * 6));
}

// ---- the pinned tiny decode step (byte-identical on host and Cortex-M) ----------------------

TEST(GenPinned, TinyDecodeMatchesPinnedHashes) {
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  GenError err;
  ASSERT_EQ(size_layer(m, in, par, g_plan, err), Status::ok);
  EXPECT_EQ(g_plan.parallel.tp, 4u);
  StreamBuffers b;
  ASSERT_TRUE(layout(g_plan, 0xA5, b));
  ASSERT_EQ(emit_layer(g_plan, b, err), Status::ok);
  bool all = true;
  for (uint32_t c = 0; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      uint64_t bytes = 0, fnv = 0;
      gentest::pinned_stream(c, e, bytes, fnv);
      const uint64_t got = gentest::fnv1a64(b.stream[c][e].data(), b.stream[c][e].size());
      EXPECT_EQ(b.stream[c][e].size(), bytes);
      EXPECT_EQ(got, fnv);
      all = all && b.stream[c][e].size() == bytes && got == fnv;
    }
  }
#if !defined(TILEFW_TEST_MINITEST)
  if (!all) {  // the table to pin in test_gen_core_pinned.cpp
    for (uint32_t c = 0; c < kMaxCores; ++c) {
      std::printf("    {");
      for (uint32_t e = 0; e < kEngines; ++e) {
        std::printf("{%zu, 0x%016" PRIx64 "ull}%s", b.stream[c][e].size(),
                    gentest::fnv1a64(b.stream[c][e].data(), b.stream[c][e].size()), e + 1 < kEngines ? ", " : "");
      }
      std::printf("},\n");
    }
  }
#endif
  EXPECT_TRUE(all);
}
