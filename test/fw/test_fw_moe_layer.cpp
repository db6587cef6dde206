// fw layer, core tests (host GoogleTest and QEMU Cortex-M4/M55; no heap): the control core's
// part of a MoE layer. It reads the routing's per-expert counts through the port (f32 in device
// memory: here the a2a3 UB window, device memory every test target maps) and generates the
// experts' phase of every core into static buffers, byte-identical to the host's (the pinned
// size and hash of core 2's streams are those of test/gen/test_gen_phases.cpp). Counts the
// routing cannot have written are refused naming the expert.
#include <cstdint>
#include <cstring>

#include "tilefw/port/port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/fw/moe_layer.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace gentest {
uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept;  // test_gen_core_pinned.cpp
void tiny_qwen3_moe(gen::ModelConfig& m) noexcept;
}

namespace {

constexpr size_t kArena = 160 * 1024;
alignas(16) uint8_t g_arena[kArena];
SizedLayer g_plan;
const uint64_t kCountsAt = chip::a2a3::kUb.device_base + 0x100;

// The tiny qwen3_moe layer (test_gen_core_pinned.cpp): prefill of 5 tokens on 8 cores.
bool plan_tiny() noexcept {
  ModelConfig m;
  gentest::tiny_qwen3_moe(m);
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.seq = 5;
  ParallelConfig par;
  par.cores = 8;
  GenError err;
  return size_layer(m, in, par, g_plan, err) == Status::ok;
}

void put_counts(const float* f, uint32_t n) noexcept {
  uint8_t bytes[64] = {};
  for (uint32_t i = 0; i < n; ++i) std::memcpy(bytes + 4 * i, &f[i], 4);
  ASSERT_EQ(port::copy_to_device(kCountsAt, bytes, 4 * n), Status::ok);
}

// Buffers sized for the worst case (every expert on its capacity), as firmware sizes them.
bool worst_case_buffers(fw::PhaseBuffers& b) noexcept {
  uint32_t cap[7];
  for (uint32_t& c : cap) c = g_plan.capacity;
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = cap;
  size_t off = 0;
  for (uint32_t c = 0; c < g_plan.parallel.cores; ++c) {
    uint64_t bytes[kEngines] = {};
    uint32_t n[kEngines] = {};
    GenError err;
    if (size_phase(g_plan, c, req, bytes, n, err) != Status::ok) return false;
    for (uint32_t e = 0; e < kEngines; ++e) {
      if (off + bytes[e] > kArena) return false;
      b.stream[c][e] = ByteSpan(g_arena + off, static_cast<size_t>(bytes[e]));
      b.device_addr[c][e] = 0x1000 + off;  // where the engines would read it (not submitted here)
      off = (off + static_cast<size_t>(bytes[e]) + 15) / 16 * 16;
    }
  }
  return true;
}

}  // namespace

TEST(FwMoeLayer, CountsThroughThePortThenTheExpertsPhase) {
  ASSERT_TRUE(plan_tiny());
  const float routed[7] = {3, 0, 5, 0, 2, 0, 5};
  put_counts(routed, 7);
  uint32_t counts[7] = {};
  uint32_t bad = 99;
  ASSERT_EQ(fw::read_expert_counts(kCountsAt, 7, 5, counts, bad), Status::ok);
  for (uint32_t e = 0; e < 7; ++e) EXPECT_EQ(counts[e], static_cast<uint32_t>(routed[e]));
  static fw::PhaseBuffers buffers;
  ASSERT_TRUE(worst_case_buffers(buffers));
  rt::CoreSubmission subs[8];
  uint32_t commands[8] = {};
  GenError err;
  ASSERT_EQ(fw::generate_experts_phase(g_plan, counts, buffers, subs, commands, err), Status::ok);
  for (uint32_t c = 0; c < 8; ++c) {
    EXPECT_EQ(subs[c].core, c);
    EXPECT_GT(commands[c], 3u);
    EXPECT_EQ(cmd::validate_core(cmd::CoreStreams{subs[c].tiu.bytes, subs[c].gdma.bytes, subs[c].sdma.bytes}).status,
              Status::ok);
  }
  // Core 2 (the second half of expert 2's columns: four routed experts split over seven
  // cores, into the worst-case buffers): the bytes the host generates (test_gen_phases.cpp's pin).
  uint64_t h = 0, n = 0;
  for (const rt::EngineStream* s : {&subs[2].tiu, &subs[2].gdma, &subs[2].sdma}) {
    h = h * 31 + gentest::fnv1a64(s->bytes.data(), s->bytes.size());
    n += s->bytes.size();
  }
  EXPECT_EQ(n, 4912u);
  EXPECT_EQ(h, 0xf6596a5b694661edull);
  EXPECT_EQ(subs[2].gdma.device_addr, buffers.device_addr[2][1]);
}

TEST(FwMoeLayer, CountsTheRoutingCannotHaveWrittenAreRefused) {
  ASSERT_TRUE(plan_tiny());
  uint32_t counts[7] = {};
  uint32_t bad = 99;
  const float fraction[7] = {3, 0, 2.5f, 0, 2, 0, 5};
  put_counts(fraction, 7);
  EXPECT_EQ(fw::read_expert_counts(kCountsAt, 7, 5, counts, bad), Status::fw_bad_counts);
  EXPECT_EQ(bad, 2u);
  const float negative[7] = {3, 0, 5, -1, 2, 0, 5};
  put_counts(negative, 7);
  EXPECT_EQ(fw::read_expert_counts(kCountsAt, 7, 5, counts, bad), Status::fw_bad_counts);
  EXPECT_EQ(bad, 3u);
  const float too_many[7] = {3, 0, 5, 0, 2, 0, 6};  // 6 > the request's 5 tokens
  put_counts(too_many, 7);
  EXPECT_EQ(fw::read_expert_counts(kCountsAt, 7, 5, counts, bad), Status::fw_bad_counts);
  EXPECT_EQ(bad, 6u);
  EXPECT_EQ(fw::read_expert_counts(0x7FFF'0000'0000ull, 7, 5, counts, bad), Status::unmapped_address);
}

// The control core waits for the counts, not for the routing phase's end: counts_ready finds,
// in each core's routing-phase GDMA stream, the last command storing into the counts. Core c
// owns expert c (7 experts over 8 cores, e mod 8) and stores its count; core 7 owns none.
TEST(FwMoeLayer, CountsReadyIsTheLastGdmaCommandStoringACount) {
  ASSERT_TRUE(plan_tiny());
  PhaseRequest req;
  req.phase = 1;
  static rt::CoreSubmission subs[8];
  size_t off = 0;
  for (uint32_t c = 0; c < 8; ++c) {
    uint64_t bytes[kEngines] = {};
    uint32_t n[kEngines] = {};
    GenError err;
    ASSERT_EQ(size_phase(g_plan, c, req, bytes, n, err), Status::ok);
    StreamBuffers b;
    for (uint32_t e = 0; e < kEngines; ++e) {
      ASSERT_TRUE(off + bytes[e] <= kArena);
      b.stream[c][e] = ByteSpan(g_arena + off, static_cast<size_t>(bytes[e]));
      off = (off + static_cast<size_t>(bytes[e]) + 15) / 16 * 16;
    }
    uint64_t used[kEngines] = {};
    ASSERT_EQ(emit_phase(g_plan, c, req, b, used, err), Status::ok);
    subs[c].core = c;
    subs[c].gdma.bytes = ConstByteSpan(b.stream[c][1].data(), static_cast<size_t>(used[1]));
    subs[c].sdma.bytes = ConstByteSpan(b.stream[c][2].data(), static_cast<size_t>(used[2]));
  }
  const uint64_t counts = g_plan.memory[TensorId::expert_tokens].device_addr;
  uint32_t ready[8] = {};
  // Every core together stores every count: the early wait applies.
  EXPECT_TRUE(fw::counts_ready(Span<const rt::CoreSubmission>(subs, 8), counts, 7 * 4, ready));
  for (uint32_t c = 0; c < 7; ++c) {
    ASSERT_GT(ready[c], 0u);
    cmd::Walker w(cmd::Engine::gdma, subs[c].gdma.bytes);
    cmd::Command cm;
    for (uint32_t id = 1; id <= ready[c]; ++id) ASSERT_TRUE(w.next(cm));
    const cmd::DmaOperand dst = cmd::dma_operands(cm).dst;
    EXPECT_EQ(dst.addr, counts + 4 * c);  // expert c's count
    EXPECT_EQ(dst.bytes, 4u);
  }
  EXPECT_EQ(ready[7], 0u);
  // Cores 1 and 7 alone store expert 1's count only: not every count, so no early wait; that
  // one word alone is covered whole.
  const rt::CoreSubmission two[2] = {subs[1], subs[7]};
  EXPECT_FALSE(fw::counts_ready(Span<const rt::CoreSubmission>(two, 2), counts, 7 * 4, ready));
  EXPECT_TRUE(fw::counts_ready(Span<const rt::CoreSubmission>(two, 2), counts + 4, 4, ready));
  EXPECT_GT(ready[0], 0u);
  EXPECT_EQ(ready[1], 0u);
  // A range nothing stores into (the experts' gate weights): no command to wait for.
  const uint64_t weights = g_plan.memory[TensorId::experts_gate].device_addr;
  EXPECT_FALSE(fw::counts_ready(Span<const rt::CoreSubmission>(subs, 1), weights, 4, ready));
  EXPECT_EQ(ready[0], 0u);
}
