// The pinned tiny decode step of the gen layer (issue acceptance: the Cortex-M build regenerates
// it byte-identically to the host). Shared by the core test (host + QEMU) and the host test
// that runs `tilefw gen` on test/gen/configs/llama_gqa.json with the same request.
//
// The constants were produced on the host (x86-64, GCC) by the core test itself and pinned;
// QEMU Cortex-M4 and M55 produce the same values, and so do the files `tilefw gen` writes.
// A generator change that alters the streams must re-pin them (run test_gen_core on the host:
// a mismatch prints the new size and hash of each stream).
#include <cstdint>

#include "tilefw/gen/generator.hpp"

namespace gentest {

using namespace tilefw;

// test/gen/configs/llama_gqa.json as the tool reads it: hidden 64, heads 4, kv 2, head_dim 16,
// intermediate 160, bf16, silu, rms_norm_eps 1e-5; decode batch 1, kv_len 3; 8 cores, tp default.
// test/gen/configs/qwen3_moe_tiny.json as the tool reads it: hidden 64, 4 heads, 2 kv heads,
// head_dim 16, q/k norm, 7 experts of width 48, top-3, no renormalisation, bf16 (the MoE layer
// of the two-phase tests, shared by the gen and fw core tests).
void tiny_qwen3_moe(gen::ModelConfig& m) noexcept {
  m = gen::ModelConfig{};
  m.type = gen::ModelType::qwen3_moe;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.intermediate = 160;
  m.num_layers = 2;
  m.qk_norm = true;
  m.moe_layer = true;
  m.moe.experts = 7;
  m.moe.top_k = 3;
  m.moe.expert_intermediate = 48;
  m.moe.norm_topk_prob = false;
}

void tiny_decode(gen::ModelConfig& m, gen::InferenceConfig& in, gen::ParallelConfig& par) noexcept {
  m = gen::ModelConfig{};
  m.type = gen::ModelType::llama;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.intermediate = 160;
  m.num_layers = 2;
  m.rms_eps = 1e-5f;
  m.act = gen::Activation::silu;
  m.dtype = DType::bf16;
  in = gen::InferenceConfig{};
  in.phase = gen::Phase::decode;
  in.batch = 1;
  in.seq = 1;
  in.kv_len = 3;
  par = gen::ParallelConfig{};
  par.cores = 8;
  par.tp = 0;
}

uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {
struct Pinned {
  uint64_t bytes;
  uint64_t fnv;
};
// [core][engine: tiu (layer.BD.c), gdma (layer.GDMA.c), sdma (layer.SDMA.c)]
constexpr Pinned kPinned[gen::kMaxCores][gen::kEngines] = {
    // tp 4: cores 0..3 compute one attention head and 40 FFN columns each (re-pinned when decode
    // attention started moving its query rows with reshaping DMAs, nchw_copy 0, and when a core's
    // own columns of a reduction stopped going through L2 and the output became per-core slices,
    // and when the norm weights went only to the lanes that hold token rows: GDMA streams)
    {{8848, 0xdac30ed50d51f535ull}, {3312, 0x6d21147b3796c095ull}, {144, 0x94c591b72c1f8c4bull}},
    {{8848, 0xbe9bdaaf03e18e25ull}, {3408, 0x5bbf7737e9e6e64eull}, {144, 0x94c591b72c1f8c4bull}},
    {{8848, 0xb870260fc005208full}, {3600, 0x8f4fa30c2afe895dull}, {144, 0x94c591b72c1f8c4bull}},
    {{8848, 0xa7c8e1e1faebb5dfull}, {3120, 0x8afad73f16967898ull}, {144, 0x94c591b72c1f8c4bull}},
    // cores 4..7: the barriers of the two reductions (two each: reduce-scatter) and the end commands only
    {{144, 0x6051111ef0880ee8ull}, {144, 0x94c591b72c1f8c4bull}, {144, 0x94c591b72c1f8c4bull}},
    {{144, 0x6051111ef0880ee8ull}, {144, 0x94c591b72c1f8c4bull}, {144, 0x94c591b72c1f8c4bull}},
    {{144, 0x6051111ef0880ee8ull}, {144, 0x94c591b72c1f8c4bull}, {144, 0x94c591b72c1f8c4bull}},
    {{144, 0x6051111ef0880ee8ull}, {144, 0x94c591b72c1f8c4bull}, {144, 0x94c591b72c1f8c4bull}},
};
}  // namespace

void pinned_stream(uint32_t core, uint32_t engine, uint64_t& bytes, uint64_t& fnv) noexcept {
  bytes = kPinned[core][engine].bytes;
  fnv = kPinned[core][engine].fnv;
}

// Lays a plan's streams out in `arena` (16-byte aligned), each filled with `fill`: false when
// they do not fit.
bool layout_streams(const gen::SizedLayer& p, uint8_t* arena, size_t bytes, uint8_t fill, gen::StreamBuffers& out) noexcept {
  out = gen::StreamBuffers{};
  size_t off = 0;
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    for (uint32_t e = 0; e < gen::kEngines; ++e) {
      const uint64_t n = p.stream_bytes[c][e];
      if (off + n > bytes) return false;
      for (uint64_t i = 0; i < n; ++i) arena[off + i] = fill;
      out.stream[c][e] = ByteSpan(arena + off, static_cast<size_t>(n));
      off = (off + static_cast<size_t>(n) + 15) / 16 * 16;
    }
  }
  return true;
}

// One hash over every stream of the plan's cores.
uint64_t hash_streams(const gen::SizedLayer& p, const gen::StreamBuffers& b) noexcept {
  uint64_t h = 0;
  for (uint32_t c = 0; c < p.parallel.cores; ++c) {
    for (uint32_t e = 0; e < gen::kEngines; ++e) h = h * 31 + fnv1a64(b.stream[c][e].data(), b.stream[c][e].size());
  }
  return h;
}

}  // namespace gentest
