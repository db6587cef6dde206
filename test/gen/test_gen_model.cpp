// The whole model's two ends as core code (src/gen/model.cpp, docs/whole-model.md section 2):
// the embedding lookup and the head are planned and emitted like a layer, byte-identically on
// the host and the Cortex-M targets (this file runs in the gen_core group under QEMU too), every
// stream valid against the plan's memory map, and bad requests refused naming the key.
#include <cstdint>
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/gen/generator.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace gentest {  // test_gen_core_pinned.cpp
void tiny_decode(ModelConfig& m, InferenceConfig& in, ParallelConfig& par) noexcept;
uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept;
bool layout_streams(const SizedLayer& p, uint8_t* arena, size_t bytes, uint8_t fill, StreamBuffers& out) noexcept;
uint64_t hash_streams(const SizedLayer& p, const StreamBuffers& b) noexcept;
}  // namespace gentest

namespace {

// Small ends only: 64 KB of static stream memory (the M55 board has 512 KB of RAM).
constexpr size_t kArenaBytes = 64 * 1024;
alignas(16) uint8_t g_arena[kArenaBytes];
SizedLayer g_end;

ModelConfig tiny_model(uint32_t vocab, bool tied) noexcept {
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  m.vocab = vocab;
  m.tie_embeddings = tied;
  return m;
}

InferenceConfig request(uint32_t batch, uint32_t seq) noexcept {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.batch = batch;
  in.seq = seq;
  return in;
}

bool layout(const SizedLayer& p, uint8_t fill, StreamBuffers& out) noexcept {
  return gentest::layout_streams(p, g_arena, kArenaBytes, fill, out);
}

uint64_t hash_all(const SizedLayer& p, const StreamBuffers& b) noexcept { return gentest::hash_streams(p, b); }

// Emits twice (into 0x00 then 0xFF: every byte written, both equal), then validates each core
// against the plan's two DDR regions and walks every stream to its end command.
uint64_t check_end(const SizedLayer& p) {
  StreamBuffers bufs;
  GenError err;
  EXPECT_TRUE(layout(p, 0x00, bufs));
  EXPECT_EQ(emit_layer(p, bufs, err), Status::ok);
  const uint64_t first = hash_all(p, bufs);
  EXPECT_TRUE(layout(p, 0xFF, bufs));
  EXPECT_EQ(emit_layer(p, bufs, err), Status::ok);
  EXPECT_EQ(hash_all(p, bufs), first);
  const cmd::DdrRegion regions[2] = {{1, chip::sg2260::make_dma_address(1, 0), p.memory.coeff_bytes},
                                     {2, chip::sg2260::make_dma_address(2, 0), p.memory.neuron_bytes}};
  cmd::ValidateOptions with_map;
  with_map.use_memory_map = true;
  with_map.ddr_regions = Span<const cmd::DdrRegion>(regions, 2);
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    const cmd::CoreStreams cs{ConstByteSpan(bufs.stream[c][0].data(), bufs.stream[c][0].size()),
                              ConstByteSpan(bufs.stream[c][1].data(), bufs.stream[c][1].size()),
                              ConstByteSpan(bufs.stream[c][2].data(), bufs.stream[c][2].size())};
    const cmd::ValidationReport r = cmd::validate_core(cs, with_map);
    EXPECT_EQ(r.status, Status::ok);
    EXPECT_STREQ(r.message, "");
    for (uint32_t e = 0; e < kEngines; ++e) {
      const cmd::Engine engine = e == 0 ? cmd::Engine::tiu : e == 1 ? cmd::Engine::gdma : cmd::Engine::sdma;
      cmd::Walker w(engine, ConstByteSpan(bufs.stream[c][e].data(), bufs.stream[c][e].size()));
      cmd::Command cm;
      uint32_t count = 0;
      bool ended = false;
      while (w.next(cm)) {
        ++count;
        ended = cm.is_end();
      }
      EXPECT_EQ(w.status(), Status::ok);
      EXPECT_TRUE(ended);
      EXPECT_EQ(count, p.stream_commands[c][e]);
    }
  }
  return first;
}

}  // namespace

TEST(GenModel, EmbeddingGathersOneRowGroupPerCore) {
  GenError err;
  const ModelConfig m = tiny_model(200, false);
  ASSERT_EQ(size_embed(m, request(2, 40), ParallelConfig{8, 0, 0}, g_end, err), Status::ok);
  EXPECT_EQ(g_end.program, Program::embed);
  const TensorInfo& ids = g_end.memory[TensorId::input_ids];
  const TensorInfo& table = g_end.memory[TensorId::embed_tokens];
  const TensorInfo& out = g_end.memory[TensorId::hidden_states_out];
  EXPECT_TRUE(ids.present && table.present && out.present);
  EXPECT_EQ(ids.dtype, DType::i32);
  EXPECT_EQ(ids.bytes, 2u * 40 * 4);
  EXPECT_EQ(table.shape[0], 200u);
  EXPECT_EQ(table.shape[1], 64u);
  EXPECT_STREQ(table.name, "model.embed_tokens.weight");
  EXPECT_EQ(out.bytes, 2u * 40 * 64 * 4);
  // 80 tokens: row groups 0 and 1 on cores 0 and 1, one gather, one cast, one store each.
  EXPECT_EQ(g_end.stream_commands[0][1], g_end.stream_commands[1][1]);
  EXPECT_GT(g_end.stream_commands[0][1], g_end.stream_commands[2][1]);
  check_end(g_end);
}

TEST(GenModel, HeadSplitsTheVocabularyAndMeetsOnCoreZero) {
  GenError err;
  const ModelConfig m = tiny_model(1100, false);  // three 512-column tiles on one core
  ASSERT_EQ(size_head(m, request(2, 3), ParallelConfig{1, 0, 0}, g_end, err), Status::ok);
  EXPECT_EQ(g_end.program, Program::head);
  EXPECT_TRUE(g_end.memory[TensorId::lm_head_w].present);
  EXPECT_FALSE(g_end.memory[TensorId::embed_tokens].present);
  EXPECT_EQ(g_end.memory[TensorId::logits].bytes, 2u * 3 * 1100 * 4);
  EXPECT_EQ(g_end.memory[TensorId::next_token].dtype, DType::i32);
  EXPECT_EQ(g_end.flops, 2ull * 6 * 64 * 1100);
  check_end(g_end);
  ASSERT_EQ(size_head(m, request(3, 1), ParallelConfig{8, 0, 0}, g_end, err), Status::ok);
  const uint64_t eight = check_end(g_end);
  // Tied: the head reads the embedding table, no lm_head; the streams differ only by address.
  ASSERT_EQ(size_head(tiny_model(1100, true), request(3, 1), ParallelConfig{8, 0, 0}, g_end, err), Status::ok);
  EXPECT_FALSE(g_end.memory[TensorId::lm_head_w].present);
  EXPECT_TRUE(g_end.memory[TensorId::embed_tokens].present);
  EXPECT_NE(check_end(g_end), eight);
}

TEST(GenModel, RelocationMovesAddressesNotSizes) {
  GenError err;
  ASSERT_EQ(size_embed(tiny_model(200, false), request(1, 8), ParallelConfig{2, 0, 0}, g_end, err), Status::ok);
  const uint64_t before = check_end(g_end);
  const uint64_t bytes = g_end.stream_bytes[0][1];
  const uint64_t at = chip::sg2260::make_dma_address(2, 0x1000);
  EXPECT_EQ(set_tensor_address(g_end, TensorId::input_ids, at), Status::ok);
  EXPECT_EQ(g_end.memory[TensorId::input_ids].device_addr, at);
  g_end.memory.neuron_bytes += 0x1000;  // the region grows with it
  EXPECT_EQ(g_end.stream_bytes[0][1], bytes);
  EXPECT_NE(check_end(g_end), before);
  EXPECT_EQ(set_tensor_address(g_end, TensorId::logits, at), Status::invalid_argument);  // absent
  EXPECT_EQ(set_tensor_address(g_end, TensorId::input_ids, chip::sg2260::make_dma_address(0, 64)),
            Status::invalid_argument);  // not a DDR tag
  EXPECT_EQ(set_tensor_address(g_end, TensorId::count, at), Status::invalid_argument);
}

TEST(GenModel, BadRequestsNameTheKey) {
  GenError err;
  EXPECT_EQ(size_embed(tiny_model(0, false), request(1, 4), ParallelConfig{8, 0, 0}, g_end, err), Status::gen_bad_config);
  EXPECT_EQ(std::strncmp(err.what, "vocab_size", 10), 0);
  EXPECT_EQ(size_head(tiny_model(1u << 24, false), request(1, 4), ParallelConfig{8, 0, 0}, g_end, err),
            Status::gen_bad_config);
  EXPECT_EQ(std::strncmp(err.what, "vocab_size", 10), 0);
  EXPECT_EQ(size_head(tiny_model(5, false), request(1, 4), ParallelConfig{8, 0, 0}, g_end, err), Status::gen_bad_config);
  EXPECT_EQ(std::strncmp(err.what, "vocab_size (fewer columns than cores)", 37), 0);
  EXPECT_EQ(size_embed(tiny_model(100, false), request(1, 4), ParallelConfig{0, 0, 0}, g_end, err), Status::gen_bad_config);
  EXPECT_STREQ(err.what, "cores");
  EXPECT_EQ(size_embed(tiny_model(100, false), request(300, 300), ParallelConfig{8, 0, 0}, g_end, err),
            Status::gen_bad_config);
  EXPECT_STREQ(err.what, "batch x seq");
  ModelConfig f32 = tiny_model(100, false);
  f32.dtype = DType::f32;
  EXPECT_EQ(size_head(f32, request(1, 4), ParallelConfig{8, 0, 0}, g_end, err), Status::gen_bad_config);
  EXPECT_STREQ(err.what, "dtype");
}

// A dense layer split over the chips of a tensor-parallel group (docs/whole-model.md section
// 3.1) runs in two parts; each part's streams validate against its memory map, each is shorter
// than the whole layer, a chip that adds no residual zeroes it (more TIU commands), and parts of
// a MoE layer are refused naming `part`.
TEST(GenModel, LayerPartsOfASplitLayer) {
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  GenError err;
  static SizedLayer whole;  // static: a plan is several KB (the Cortex-M stack is small)
  ASSERT_EQ(size_layer(m, in, par, whole, err), Status::ok);
  uint32_t whole_tiu = 0;
  for (uint32_t c = 0; c < par.cores; ++c) whole_tiu += whole.stream_commands[c][0];
  for (LayerPart part : {LayerPart::attention, LayerPart::mlp}) {
    uint32_t tiu[2] = {};
    for (bool residual : {true, false}) {
      ParallelConfig pp = par;
      pp.part = part;
      pp.residual = residual;
      ASSERT_EQ(size_layer(m, in, pp, g_end, err), Status::ok);
      check_end(g_end);
      for (uint32_t c = 0; c < par.cores; ++c) tiu[residual ? 0 : 1] += g_end.stream_commands[c][0];
    }
    EXPECT_LT(tiu[0], whole_tiu);
    EXPECT_GT(tiu[1], tiu[0]);
  }
  m.moe_layer = true;
  m.moe.experts = 4;
  m.moe.top_k = 2;
  m.moe.expert_intermediate = 32;
  // A MoE layer's MLP part (an expert-parallel group with data-parallel attention) is its MoE
  // block alone: fewer TIU commands than the whole MoE layer; its attention part is refused
  // (planned as the layer without its MoE block).
  ASSERT_EQ(size_layer(m, in, par, whole, err), Status::ok);
  uint32_t moe_tiu = 0, part_tiu = 0;
  for (uint32_t c = 0; c < par.cores; ++c) moe_tiu += whole.stream_commands[c][0];
  par.part = LayerPart::mlp;
  ASSERT_EQ(size_layer(m, in, par, g_end, err), Status::ok);  // (its streams outgrow this test's arena)
  for (uint32_t c = 0; c < par.cores; ++c) part_tiu += g_end.stream_commands[c][0];
  EXPECT_LT(part_tiu, moe_tiu);
  par.part = LayerPart::attention;
  EXPECT_EQ(size_layer(m, in, par, g_end, err), Status::gen_bad_config);
  EXPECT_EQ(std::strncmp(err.what, "part", 4), 0);
}

// The head split over two chips by vocabulary rows: each chip's plan holds its rows of the LM
// head and the whole logits layout, candidates for both chips' cores; the merge reads them all.
TEST(GenModel, HeadSplitOverChipsAndMerge) {
  GenError err;
  const ModelConfig m = tiny_model(1100, false);
  ParallelConfig par{4, 0, 0};
  par.vocab_rank = 1;
  par.vocab_ranks = 2;
  ASSERT_EQ(size_head(m, request(2, 3), par, g_end, err), Status::ok);
  EXPECT_EQ(g_end.memory[TensorId::lm_head_w].shape[0], 550u);        // rows 550 .. 1099
  EXPECT_EQ(g_end.memory[TensorId::logits].bytes, 2u * 3 * 1100 * 4);  // the whole layout
  EXPECT_EQ(g_end.memory[TensorId::head_cand].shape[0], 8u);           // 2 chips x 4 cores
  EXPECT_EQ(g_end.flops, 2ull * 6 * 64 * 550);
  check_end(g_end);
  ASSERT_EQ(size_head_merge(m, request(2, 3), par, g_end, err), Status::ok);
  EXPECT_EQ(g_end.program, Program::head_merge);
  EXPECT_TRUE(g_end.memory[TensorId::next_token].present);
  EXPECT_FALSE(g_end.memory[TensorId::logits].present);
  check_end(g_end);
  par.vocab_rank = 2;
  EXPECT_EQ(size_head(m, request(2, 3), par, g_end, err), Status::gen_bad_config);
  EXPECT_STREQ(err.what, "vocab_rank");
}

// A MoE layer in passes on a chip of an expert-parallel group reads which experts the chip holds
// from gen.moe_local: 1 for the chip's experts (e mod chips = expert_first) and 0 for the
// others, then e / chips for every expert. Absent (invalid_argument) when the chip holds every
// expert.
TEST(GenModel, ChipExpertMaskForPasses) {
  g_end.model.moe.experts = 12;
  g_end.parallel.expert_count = 3;  // 4 chips
  g_end.parallel.expert_first = 2;
  alignas(4) uint8_t buf[96] = {};
  ASSERT_EQ(fill_constant(g_end, TensorId::moe_local, ByteSpan(buf, sizeof buf)), Status::ok);
  for (uint32_t e = 0; e < 12; ++e) {
    float mask = 0.0f, block = 0.0f;
    std::memcpy(&mask, buf + e * 4, 4);
    std::memcpy(&block, buf + (12 + e) * 4, 4);
    EXPECT_EQ(mask, e % 4 == 2 ? 1.0f : 0.0f);
    EXPECT_EQ(block, static_cast<float>(e / 4));
  }
  EXPECT_EQ(fill_constant(g_end, TensorId::moe_local, ByteSpan(buf, 95)), Status::buffer_too_small);
  g_end.parallel.expert_count = 0;
  g_end.parallel.expert_first = 0;
  EXPECT_EQ(fill_constant(g_end, TensorId::moe_local, ByteSpan(buf, sizeof buf)), Status::invalid_argument);
}
