// gen layer, core tests (host GoogleTest and QEMU Cortex-M4/M55; no heap): a MoE layer in two
// phases joined by the control core. Phase 1 ends after the routing; phase 2 is generated from
// the routed counts, each expert on exactly its rows, and an expert with no tokens gets no
// command and no weight load. Every phase stream validates; the experts' phase of a pinned
// request is byte-identical on every target (its size and FNV-1a hash are constants here).
#include <cstdint>
#include <cstring>
#if !defined(TILEFW_TEST_MINITEST)
#include <cstdio>
#endif

#include "tftest.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/gen/generator.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace gentest {
uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept;  // test_gen_core_pinned.cpp
void tiny_qwen3_moe(gen::ModelConfig& m) noexcept;
}

namespace {

// One core's three streams at a time (the targets have no heap; the M55 board 512 KB of RAM).
constexpr size_t kPhaseArena = 96 * 1024;
alignas(16) uint8_t g_phase_arena[kPhaseArena];
SizedLayer g_moe_plan;

// The tiny MoE layer sized for a prefill of `seq` tokens (in chunks of `chunk`; 0: one) on
// `cores` cores at ep `ep`.
bool plan_tiny(uint32_t seq, uint32_t ep = 0, uint32_t cores = 8, uint32_t chunk = 0) noexcept {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.seq = seq;
  in.chunk = chunk;
  ParallelConfig par;
  par.cores = cores;
  par.ep = ep;
  GenError err;
  ModelConfig m;
  gentest::tiny_qwen3_moe(m);
  return size_layer(m, in, par, g_moe_plan, err) == Status::ok;
}

// A request in passes: a prefill of 8 tokens in two chunks of 4 on 4 cores at ep 2, so the MoE
// runs in passes (experts once over the request). False unless it sizes into several chunks.
bool plan_tiny_in_passes() noexcept { return plan_tiny(8, 2, 4, 4) && g_moe_plan.chunks > 1; }

// Whether `req` on `core` fits the worst-case buffers `room` asks for (every expert at its
// worst-case tokens): both size, and every engine's bytes and commands for `req` are within
// those for `room`.
bool fits_room(uint32_t core, const PhaseRequest& room, const PhaseRequest& req) noexcept {
  uint64_t cap[kEngines] = {}, used[kEngines] = {};
  uint32_t n_cap[kEngines] = {}, n_used[kEngines] = {};
  GenError err;
  if (size_phase(g_moe_plan, core, room, cap, n_cap, err) != Status::ok) return false;
  if (size_phase(g_moe_plan, core, req, used, n_used, err) != Status::ok) return false;
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (used[e] > cap[e] || n_used[e] > n_cap[e]) return false;
  }
  return true;
}

// Experts whose commands an emit labelled (bit e), and whether any weight load was seen.
struct Seen {
  uint32_t experts = 0;
};
void record(void* user, const OpMark& m) {
  if (m.expert != kNoTile && m.expert < 32) static_cast<Seen*>(user)->experts |= 1u << m.expert;
}

// Sizes, emit into the arena, validate: the phase's core streams. Returns false on any failure.
bool emit_checked(uint32_t core, const PhaseRequest& req, StreamBuffers& b, uint32_t (&commands)[kEngines],
                  Seen* seen) noexcept {
  uint64_t bytes[kEngines] = {};
  GenError err;
  if (size_phase(g_moe_plan, core, req, bytes, commands, err) != Status::ok) return false;
  size_t off = 0;
  b = StreamBuffers{};
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (off + bytes[e] > kPhaseArena) return false;
    b.stream[core][e] = ByteSpan(g_phase_arena + off, static_cast<size_t>(bytes[e]));
    off = (off + static_cast<size_t>(bytes[e]) + 15) / 16 * 16;
  }
  OpSink sink;
  sink.fn = record;
  sink.user = seen;
  uint64_t used[kEngines] = {};
  if (emit_phase(g_moe_plan, core, req, b, used, err, seen != nullptr ? sink : OpSink{}) != Status::ok) return false;
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (used[e] != bytes[e]) return false;  // one pass writes exactly what size_phase counted
  }
  const cmd::CoreStreams cs{ConstByteSpan(b.stream[core][0].data(), b.stream[core][0].size()),
                            ConstByteSpan(b.stream[core][1].data(), b.stream[core][1].size()),
                            ConstByteSpan(b.stream[core][2].data(), b.stream[core][2].size())};
  return cmd::validate_core(cs).status == Status::ok;
}

uint32_t total(const uint32_t (&c)[kEngines]) noexcept { return c[0] + c[1] + c[2]; }

// Pinned on the host (x86-64, GCC) by the test itself; QEMU Cortex-M4 and M55 must match.
constexpr uint64_t kPinnedBytes = 4912;
constexpr uint64_t kPinnedHash = 0xf6596a5b694661edull;

}  // namespace

TEST(GenPhases, RoutingPhaseThenOnlyTheRoutedExperts) {
  ASSERT_TRUE(plan_tiny(5));
  // 5 tokens x top-3 = 15 choices; experts 1, 3 and 5 got none.
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  PhaseRequest routing;
  routing.phase = 1;
  PhaseRequest experts;
  experts.phase = 2;
  experts.expert_tokens = counts;
  experts.owner_placement = true;  // each expert on its owner core (the balanced placement: below)
  StreamBuffers b;
  for (uint32_t core = 0; core < 8; ++core) {
    uint32_t c1[kEngines] = {}, c2[kEngines] = {}, c0[kEngines] = {};
    Seen s1, s2;
    ASSERT_TRUE(emit_checked(core, routing, b, c1, &s1));
    ASSERT_TRUE(emit_checked(core, experts, b, c2, &s2));
    PhaseRequest whole;
    ASSERT_TRUE(emit_checked(core, whole, b, c0, nullptr));
    EXPECT_EQ(s1.experts, 0u);  // no routed expert before the boundary
    // ep 8: core e owns expert e (7 experts; core 7 has none).
    const uint32_t mine = core < 7 ? 1u << core : 0u;
    const uint32_t routed = core < 7 && counts[core] > 0 ? mine : 0u;
    EXPECT_EQ(s2.experts, routed);
    // The two phases hold the static layer's work minus the idle expert (the static layer
    // runs every expert on its 5 slots); each phase ends its streams (3 end commands more).
    if (mine != 0 && routed == 0) {
      EXPECT_LT(total(c1) + total(c2), total(c0) + 3);
    } else if (mine == 0) {  // no expert: the same work split in two
      EXPECT_EQ(total(c1) + total(c2), total(c0) + 3);
    }
  }
}

// The control core's placement: the experts that received tokens (0, 2, 4, 6) spread over the
// cores in expert order, each to the least-loaded core (equal loads here: the tiny experts'
// weight streams outlast their few rows), so cores 0..3 get one each and 4..7 none; every
// routed expert runs exactly once.
TEST(GenPhases, RoutedExpertsAreSpreadOverTheCoresByLoad) {
  ASSERT_TRUE(plan_tiny(5));
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  PhaseRequest experts;
  experts.phase = 2;
  experts.expert_tokens = counts;
  experts.split_experts = false;  // four routed experts on seven cores would be split (below)
  StreamBuffers b;
  uint32_t all = 0;
  for (uint32_t core = 0; core < 8; ++core) {
    uint32_t n[kEngines] = {};
    Seen s;
    ASSERT_TRUE(emit_checked(core, experts, b, n, &s));
    const uint32_t want = core < 4 ? 1u << (2 * core) : 0u;
    EXPECT_EQ(s.experts, want);
    EXPECT_EQ(all & s.experts, 0u);  // no expert twice
    all |= s.experts;
  }
  EXPECT_EQ(all, (1u << 0) | (1u << 2) | (1u << 4) | (1u << 6));
}

// Loads decide, within each core's share: at ep 2, expert 0's 200 rows (400 cycles of matrix
// work against 270 of weight stream per tiny expert) outweigh two one-row experts, so core 1
// takes experts 1, 2 and 4; expert 6 would go to core 1 too, but core 1 owns only 3 of the 7
// experts (1, 3, 5): it goes to core 0, whose stream stays within its worst-case size.
TEST(GenPhases, PlacementKeepsEachCoreWithinTheExpertsItOwns) {
  ASSERT_TRUE(plan_tiny(200, 2));
  const uint32_t counts[7] = {200, 1, 1, 1, 1, 1, 1};
  const uint32_t worst[7] = {200, 200, 200, 200, 200, 200, 200};
  PhaseRequest req;
  req.phase = 2;
  StreamBuffers b;
  const uint32_t want[2] = {(1u << 0) | (1u << 3) | (1u << 5) | (1u << 6), (1u << 1) | (1u << 2) | (1u << 4)};
  PhaseRequest room = req;
  room.expert_tokens = worst;
  room.owner_placement = true;
  req.expert_tokens = counts;
  for (uint32_t core = 0; core < 2; ++core) {
    EXPECT_TRUE(fits_room(core, room, req));
    uint32_t c[kEngines] = {};
    Seen s;
    ASSERT_TRUE(emit_checked(core, req, b, c, &s));
    EXPECT_EQ(s.experts, want[core]);
  }
}

// Fewer routed experts than cores: one expert with tokens (expert 1, 4 rows) runs as seven
// column slices, one on each core that holds an expert in the worst case (7 experts on 8
// cores: cores 0..6; core 7 none). Each slice fits the core's worst-case buffers (every expert
// on its capacity), is written in exactly the bytes size_phase counted (emit_checked), and on
// core 0 takes no more commands than the whole expert there. Two routed experts: cores 0..2
// and 3..6.
TEST(GenPhases, FewRoutedExpertsAreSplitOverTheCores) {
  ASSERT_TRUE(plan_tiny(5));
  const uint32_t one[7] = {0, 4, 0, 0, 0, 0, 0};
  const uint32_t two[7] = {0, 4, 0, 0, 0, 3, 0};
  const uint32_t worst[7] = {5, 5, 5, 5, 5, 5, 5};
  PhaseRequest whole;
  whole.phase = 2;
  whole.expert_tokens = one;
  whole.split_experts = false;  // expert 1 whole on core 0
  StreamBuffers b;
  uint32_t full[kEngines] = {};
  Seen s_full;
  ASSERT_TRUE(emit_checked(0, whole, b, full, &s_full));
  ASSERT_EQ(s_full.experts, 1u << 1);
  for (const uint32_t* counts : {one, two}) {
    PhaseRequest req;
    req.phase = 2;
    req.expert_tokens = counts;
    uint32_t busy = 0;
    for (uint32_t core = 0; core < 8; ++core) {
      uint32_t n[kEngines] = {};
      Seen s;
      ASSERT_TRUE(emit_checked(core, req, b, n, &s));
      const uint32_t want = core == 7 ? 0u : counts == one || core < 3 ? 1u << 1 : 1u << 5;
      EXPECT_EQ(s.experts, want);
      if (s.experts == 0) continue;
      ++busy;
      if (core == 0) {  // the tiny expert is one weight tile: a slice has as many commands, not more
        for (uint32_t e = 0; e < kEngines; ++e) EXPECT_LE(n[e], full[e]);
      }
      PhaseRequest room = req;
      room.expert_tokens = worst;
      EXPECT_TRUE(fits_room(core, room, req));
    }
    EXPECT_EQ(busy, 7u);
  }
}

TEST(GenPhases, AnExpertWithNoTokensGetsNoCommandAndNoWeightLoad) {
  ASSERT_TRUE(plan_tiny(5));
  const uint32_t none[7] = {0, 0, 0, 0, 0, 0, 0};
  const uint32_t some[7] = {0, 4, 0, 0, 0, 0, 0};
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = none;
  StreamBuffers b;
  uint32_t idle[kEngines] = {}, busy[kEngines] = {};
  Seen s_idle, s_busy;
  // Expert 1, the only routed one, goes to core 0 (the least-loaded core, ties to the lowest).
  ASSERT_TRUE(emit_checked(0, req, b, idle, &s_idle));
  req.expert_tokens = some;
  ASSERT_TRUE(emit_checked(0, req, b, busy, &s_busy));
  EXPECT_EQ(s_idle.experts, 0u);
  EXPECT_EQ(s_busy.experts, 1u << 1);
  // Idle: no TIU work at all and no weight DMA; with 4 tokens the gate/up/down tiles load.
  EXPECT_LT(idle[1], busy[1]);
  EXPECT_LT(idle[0], busy[0]);
  // Sized by its tokens: 4 rows never cost more commands than the static 5 slots (C).
  const uint32_t cap[7] = {5, 5, 5, 5, 5, 5, 5};
  req.expert_tokens = cap;
  uint32_t full[kEngines] = {};
  ASSERT_TRUE(emit_checked(0, req, b, full, nullptr));  // expert 0 on its 5 slots
  EXPECT_LE(total(busy), total(full));
}

// Firmware sizes its static buffers once for the worst case (every expert on its capacity) and
// emits each step's experts' phase in one pass into them; a buffer that is too short is refused.
TEST(GenPhases, OnePassIntoWorstCaseBuffers) {
  ASSERT_TRUE(plan_tiny(5));
  const uint32_t worst[7] = {5, 5, 5, 5, 5, 5, 5};
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = worst;
  uint64_t cap[kEngines] = {}, exact[kEngines] = {};
  uint32_t n[kEngines] = {};
  GenError err;
  ASSERT_EQ(size_phase(g_moe_plan, 0, req, cap, n, err), Status::ok);
  req.expert_tokens = counts;
  ASSERT_EQ(size_phase(g_moe_plan, 0, req, exact, n, err), Status::ok);
  StreamBuffers b;
  size_t off = 0;
  for (uint32_t e = 0; e < kEngines; ++e) {
    ASSERT_LE(exact[e], cap[e]);
    ASSERT_LE(off + cap[e], kPhaseArena);
    b.stream[0][e] = ByteSpan(g_phase_arena + off, static_cast<size_t>(cap[e]));
    off += static_cast<size_t>(cap[e]);
  }
  uint64_t used[kEngines] = {};
  ASSERT_EQ(emit_phase(g_moe_plan, 0, req, b, used, err), Status::ok);
  for (uint32_t e = 0; e < kEngines; ++e) EXPECT_EQ(used[e], exact[e]);
  b.stream[0][1] = ByteSpan(b.stream[0][1].data(), static_cast<size_t>(exact[1] - 1));  // one byte short
  EXPECT_NE(emit_phase(g_moe_plan, 0, req, b, used, err), Status::ok);
  EXPECT_NE(err.status, Status::ok);
}

TEST(GenPhases, BadPhaseRequestsAreRefused) {
  ASSERT_TRUE(plan_tiny(5));
  uint64_t bytes[kEngines] = {};
  uint32_t commands[kEngines] = {};
  GenError err;
  PhaseRequest req;
  req.phase = 2;  // no counts
  EXPECT_EQ(size_phase(g_moe_plan, 0, req, bytes, commands, err), Status::invalid_argument);
  req.phase = 3;
  EXPECT_EQ(size_phase(g_moe_plan, 0, req, bytes, commands, err), Status::invalid_argument);
  req.phase = 1;
  EXPECT_EQ(size_phase(g_moe_plan, 8, req, bytes, commands, err), Status::invalid_argument);
}

// The experts' phase of the pinned request, core 2 (the second half of expert 2's columns: four
// routed experts split over seven cores): the control core on
// Cortex-M generates the same bytes as the host.
TEST(GenPhases, ExpertsPhaseIsByteIdenticalOnEveryTarget) {
  ASSERT_TRUE(plan_tiny(5));
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = counts;
  StreamBuffers b;
  uint32_t c[kEngines] = {};
  ASSERT_TRUE(emit_checked(2, req, b, c, nullptr));
  uint64_t h = 0, n = 0;
  for (uint32_t e = 0; e < kEngines; ++e) {
    h = h * 31 + gentest::fnv1a64(b.stream[2][e].data(), b.stream[2][e].size());
    n += b.stream[2][e].size();
  }
#if !defined(TILEFW_TEST_MINITEST)
  if (h != kPinnedHash || n != kPinnedBytes) std::printf("experts' phase core 2: %llu bytes, hash 0x%016llx\n",
                                                         static_cast<unsigned long long>(n), static_cast<unsigned long long>(h));
#endif
  EXPECT_EQ(n, kPinnedBytes);
  EXPECT_EQ(h, kPinnedHash);
}

namespace {

// Phase 2 of `core` generated from the boundary (the control core's way) and by replaying the
// whole program with phase 1 muted: the same bytes. Each into its half of the arena.
bool fast_equals_replay(uint32_t core, const uint32_t* counts) noexcept {
  PhaseRequest fast;
  fast.phase = 2;
  fast.expert_tokens = counts;
  PhaseRequest slow = fast;
  slow.replay = true;
  uint64_t bf[kEngines] = {}, bs[kEngines] = {};
  uint32_t cf[kEngines] = {}, cs[kEngines] = {};
  GenError err;
  if (size_phase(g_moe_plan, core, fast, bf, cf, err) != Status::ok) return false;
  if (size_phase(g_moe_plan, core, slow, bs, cs, err) != Status::ok) return false;
  StreamBuffers a, b;
  size_t off = 0;
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (bf[e] != bs[e] || cf[e] != cs[e]) {
#if !defined(TILEFW_TEST_MINITEST)
      std::printf("core %u engine %u: %llu/%u bytes/commands from the boundary, %llu/%u replayed\n", core, e,
                  static_cast<unsigned long long>(bf[e]), cf[e], static_cast<unsigned long long>(bs[e]), cs[e]);
#endif
      return false;
    }
    if (2 * (off + bf[e]) > kPhaseArena) return false;
    a.stream[core][e] = ByteSpan(g_phase_arena + off, static_cast<size_t>(bf[e]));
    b.stream[core][e] = ByteSpan(g_phase_arena + kPhaseArena / 2 + off, static_cast<size_t>(bf[e]));
    off += static_cast<size_t>(bf[e]);
  }
  uint64_t ua[kEngines] = {}, ub[kEngines] = {};
  if (emit_phase(g_moe_plan, core, fast, a, ua, err) != Status::ok) return false;
  if (emit_phase(g_moe_plan, core, slow, b, ub, err) != Status::ok) return false;
  for (uint32_t e = 0; e < kEngines; ++e) {
    for (size_t i = 0; i < a.stream[core][e].size(); ++i) {
      if (a.stream[core][e][i] == b.stream[core][e][i]) continue;
#if !defined(TILEFW_TEST_MINITEST)
      std::printf("core %u engine %u: first difference at byte %zu\n", core, e, i);
#endif
      return false;
    }
  }
  return true;
}

}  // namespace

TEST(GenPhases, ExpertsPhaseFromTheBoundaryEqualsTheReplay) {
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  ASSERT_TRUE(plan_tiny(5));  // one pass
  for (uint32_t core = 0; core < 8; ++core) EXPECT_TRUE(fast_equals_replay(core, counts));
  // A prefill in two chunks of 4: the MoE runs in passes (experts once over the request).
  ASSERT_TRUE(plan_tiny_in_passes());
  const uint32_t over_request[7] = {4, 0, 8, 3, 0, 5, 4};  // 8 tokens x top-3
  for (uint32_t core = 0; core < 4; ++core) EXPECT_TRUE(fast_equals_replay(core, over_request));
}

namespace {

// The token-selective combine's tensors on the tiny plan: moe_choice [T, top_k] (output) and
// moe_own [tokens] (constant) after the plan's regions, the chip owning tokens [first, first + count).
void add_owner_rows(uint32_t first, uint32_t count) noexcept {
  const uint32_t T = g_moe_plan.inference.seq, k = g_moe_plan.model.moe.top_k;
  TensorInfo& ids = g_moe_plan.memory.tensors[static_cast<uint32_t>(TensorId::moe_choice)];
  ids = TensorInfo{TensorId::moe_choice, TensorRole::output, true, "moe_choice", 2, {T, k, 0, 0}, DType::f32,
                   chip::sg2260::make_dma_address(2, g_moe_plan.memory.neuron_bytes), uint64_t{T} * k * 4};
  TensorInfo& own = g_moe_plan.memory.tensors[static_cast<uint32_t>(TensorId::moe_own)];
  own = TensorInfo{TensorId::moe_own, TensorRole::constant, true, "gen.moe_own", 1, {T, 0, 0, 0}, DType::f32,
                   chip::sg2260::make_dma_address(1, g_moe_plan.memory.coeff_bytes), uint64_t{T} * 4};
  g_moe_plan.memory.neuron_bytes += 64;
  g_moe_plan.memory.coeff_bytes += 64;
  g_moe_plan.parallel.own_first = first;
  g_moe_plan.parallel.own_count = count;
  g_moe_plan.parallel.residual = false;
}

}  // namespace

// Owner rows: core 0 alone stores the top-k ids (one more GDMA command than without), every core
// loads the owned-rows mask (one more) and masks its residual; the routing phase validates, and
// the experts' phase from the boundary still equals the replay (the mask stays in LMEM across it).
TEST(GenPhases, OwnerRowsStoreTheChoicesOnCoreZeroAndMaskTheResidual) {
  ASSERT_TRUE(plan_tiny(5));
  PhaseRequest routing;
  routing.phase = 1;
  StreamBuffers b;
  uint32_t before[2][kEngines] = {}, after[2][kEngines] = {};
  for (uint32_t core = 0; core < 2; ++core) ASSERT_TRUE(emit_checked(core, routing, b, before[core], nullptr));
  add_owner_rows(2, 3);
  for (uint32_t core = 0; core < 2; ++core) ASSERT_TRUE(emit_checked(core, routing, b, after[core], nullptr));
  EXPECT_EQ(after[0][1], before[0][1] + 2);  // the mask in, the ids out
  EXPECT_EQ(after[1][1], before[1][1] + 1);  // the mask in
  EXPECT_GT(after[0][0], before[0][0]);      // the ids copied out of each top-k round
  const uint32_t counts[7] = {3, 0, 5, 0, 2, 0, 5};
  for (uint32_t core = 0; core < 8; ++core) EXPECT_TRUE(fast_equals_replay(core, counts));
  uint8_t mask[5 * 4] = {};
  ASSERT_EQ(fill_constant(g_moe_plan, TensorId::moe_own, ByteSpan(mask, sizeof mask)), Status::ok);
  for (uint32_t t = 0; t < 5; ++t) {
    float v = 0;
    std::memcpy(&v, mask + 4 * t, 4);
    EXPECT_EQ(v, t >= 2 ? 1.0f : 0.0f);
  }
  EXPECT_EQ(fill_constant(g_moe_plan, TensorId::moe_own, ByteSpan(mask, 19)), Status::buffer_too_small);
  g_moe_plan.parallel.own_count = 4;  // tokens 2..5 of 5: past the step
  EXPECT_EQ(fill_constant(g_moe_plan, TensorId::moe_own, ByteSpan(mask, sizeof mask)), Status::invalid_argument);
}

namespace {

uint64_t g_copy_plans[4096];
uint8_t g_checked[2][2048];

// Phase 2 of `core` with copied expert blocks and with every block built: the same bytes
// (each into its half of the arena); `copied` gets the commands the first way copied, `checked`
// those of them marked checked under `memory` (nullptr: none marked). The copied phase must
// validate with its checked commands' operands skipped and in full.
struct Verdicts {
  cmd::ValidationReport full, marked;
};

bool copies_equal_built(uint32_t core, const uint32_t* counts, uint32_t& copied, uint32_t* checked = nullptr,
                        const cmd::ValidateOptions* memory = nullptr, Verdicts* verdicts = nullptr) noexcept {
  PhaseStats stats;
  PhaseRequest reuse;
  reuse.phase = 2;
  reuse.expert_tokens = counts;
  reuse.stats = &stats;
  reuse.copy_plans = Span<uint64_t>(g_copy_plans, sizeof g_copy_plans / sizeof g_copy_plans[0]);
  reuse.memory = memory;
  PhaseRequest built = reuse;
  built.reuse_blocks = false;
  built.stats = nullptr;
  built.memory = nullptr;
  uint64_t bytes[kEngines] = {};
  uint32_t n[kEngines] = {};
  GenError err;
  if (size_phase(g_moe_plan, core, reuse, bytes, n, err) != Status::ok) return false;
  for (uint32_t e = 0; e < 2; ++e) {
    if ((n[e] + 7) / 8 > sizeof g_checked[e]) return false;
    for (uint8_t& bit : g_checked[e]) bit = memory != nullptr ? 0xFF : 0;  // the generator clears what it does not mark
    reuse.checked[e] = Span<uint8_t>(g_checked[e], (n[e] + 7) / 8);
  }
  StreamBuffers a, b;
  size_t off = 0;
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (2 * (off + bytes[e]) > kPhaseArena) return false;
    a.stream[core][e] = ByteSpan(g_phase_arena + off, static_cast<size_t>(bytes[e]));
    b.stream[core][e] = ByteSpan(g_phase_arena + kPhaseArena / 2 + off, static_cast<size_t>(bytes[e]));
    off += static_cast<size_t>(bytes[e]);
  }
  uint64_t ua[kEngines] = {}, ub[kEngines] = {};
  if (emit_phase(g_moe_plan, core, reuse, a, ua, err) != Status::ok) return false;
  if (emit_phase(g_moe_plan, core, built, b, ub, err) != Status::ok) return false;
  copied = stats.commands_copied;
  if (checked != nullptr) *checked = stats.commands_checked;
  for (uint32_t e = 0; e < kEngines; ++e) {
    if (ua[e] != bytes[e] || ub[e] != bytes[e]) return false;
    for (size_t i = 0; i < a.stream[core][e].size(); ++i) {
      if (a.stream[core][e][i] == b.stream[core][e][i]) continue;
#if !defined(TILEFW_TEST_MINITEST)
      std::printf("core %u engine %u: copied blocks differ from built ones at byte %zu\n", core, e, i);
#endif
      return false;
    }
  }
  const cmd::CoreStreams cs{ConstByteSpan(a.stream[core][0].data(), a.stream[core][0].size()),
                            ConstByteSpan(a.stream[core][1].data(), a.stream[core][1].size()),
                            ConstByteSpan(a.stream[core][2].data(), a.stream[core][2].size())};
  cmd::CoreStreams trusted = cs;
  trusted.tiu_checked = reuse.checked[0];
  trusted.gdma_checked = reuse.checked[1];
  const cmd::ValidateOptions rules = memory != nullptr ? *memory : cmd::ValidateOptions{};
  Verdicts v{cmd::validate_core(cs, rules), cmd::validate_core(trusted, rules)};
  if (verdicts != nullptr) *verdicts = v;
  return v.full.status == Status::ok && v.marked.status == Status::ok;
}

}  // namespace

// Two expert-parallel cores: core 0 runs four experts, core 1 three, so blocks of one shape
// repeat and the third and later are copies (the first of a core also starts the partial, a
// shape of its own). Copies equal built blocks byte for byte, for even and uneven rows.
TEST(GenPhases, CopiedExpertBlocksEqualBuiltOnes) {
  ASSERT_TRUE(plan_tiny(5, 2));
  const uint32_t ones[7] = {1, 1, 1, 1, 1, 1, 1};
  const uint32_t mixed[7] = {2, 1, 2, 1, 2, 2, 2};
  const uint32_t skewed[7] = {5, 0, 1, 1, 1, 1, 1};
  uint32_t copied_total = 0, checked_total = 0;
  const cmd::ValidateOptions tag_space;  // no memory map: each DDR tag's 40-bit space
  for (const uint32_t* counts : {ones, mixed, skewed}) {
    for (uint32_t core = 0; core < 2; ++core) {
      uint32_t copied = 0, checked = 0;
      EXPECT_TRUE(copies_equal_built(core, counts, copied, &checked, &tag_space));
      EXPECT_LE(checked, copied);
      copied_total += copied;
      checked_total += checked;
    }
  }
  EXPECT_GT(copied_total, 0u);  // the copies happened (else the test compares built with built)
  EXPECT_GT(checked_total, 0u);  // and most were marked checked
}

// The marks never hide a fault: with a memory map whose weights region ends before the last
// expert's gate weights, that expert's copied block reads outside the map, its moved operand is
// not marked, and validation with the marks refuses the phase exactly where validation in full
// does (the same Status and command).
TEST(GenPhases, MarkedValidationRefusesWhatFullValidationRefuses) {
  ASSERT_TRUE(plan_tiny(5, 2));
  const uint32_t ones[7] = {1, 1, 1, 1, 1, 1, 1};  // core 0: experts 0, 2, 4, 6 (the last two copied)
  static cmd::DdrRegion regions[kTensorCount + 1];
  uint32_t n = 0;
  const TensorInfo& gate = g_moe_plan.memory[TensorId::experts_gate];
  for (const TensorInfo& t : g_moe_plan.memory.tensors) {
    if (!t.present || t.bytes == 0 || (t.device_addr >> 40) != 1) continue;
    const uint64_t bytes = &t == &gate ? t.bytes / 7 * 6 : t.bytes;  // gate: experts 0..5 only
    regions[n++] = cmd::DdrRegion{1, t.device_addr, bytes};
  }
  regions[n++] = cmd::DdrRegion{2, uint64_t{2} << 40, g_moe_plan.memory.neuron_bytes};
  cmd::ValidateOptions map;
  map.use_memory_map = true;
  map.ddr_regions = Span<const cmd::DdrRegion>(regions, n);
  uint32_t copied = 0, checked = 0;
  Verdicts v;
  EXPECT_FALSE(copies_equal_built(0, ones, copied, &checked, &map, &v));
  EXPECT_GT(copied, 0u);
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(v.full.status, Status::cmd_bad_address_tag);  // outside the memory map
  EXPECT_EQ(v.marked.status, v.full.status);
  EXPECT_EQ(v.marked.engine, v.full.engine);
  EXPECT_EQ(v.marked.command_id, v.full.command_id);
  // Every other core's phase stays inside the map, marks or not.
  for (uint32_t core = 1; core < 2; ++core) EXPECT_TRUE(copies_equal_built(core, ones, copied, &checked, &map, &v));
}

// A request in passes (a prefill in two chunks): its experts' blocks (r slots from row s of an
// expert) are copied too. Four experts of four rows on core 0 and three on core 1 (ep 2): the
// third and fourth blocks of a core are copies, byte-equal to built ones.
TEST(GenPhases, CopiedBlocksInPassesEqualBuiltOnes) {
  ASSERT_TRUE(plan_tiny_in_passes());
  const uint32_t fours[7] = {4, 4, 4, 4, 4, 4, 0};  // 8 tokens x top-3
  const uint32_t mixed[7] = {6, 2, 2, 2, 6, 2, 4};
  const cmd::ValidateOptions tag_space;
  uint32_t copied_total = 0;
  for (const uint32_t* counts : {fours, mixed}) {
    for (uint32_t core = 0; core < 4; ++core) {
      uint32_t copied = 0, checked = 0;
      EXPECT_TRUE(copies_equal_built(core, counts, copied, &checked, &tag_space));
      copied_total += copied;
    }
  }
  EXPECT_GT(copied_total, 0u);
}

// A copy is marked checked only when its moved operands keep to the memory rule it will be
// validated under: with a memory map that holds no region, no moved DDR operand does, so the
// same copies are made and only those that moved no operand (dependencies only) are marked
// (the phase's validation then refuses it, as it refuses the built blocks).
TEST(GenPhases, CopiesLeavingTheMemoryRuleAreNotMarkedChecked) {
  ASSERT_TRUE(plan_tiny(5, 2));
  const uint32_t ones[7] = {1, 1, 1, 1, 1, 1, 1};
  const cmd::ValidateOptions tag_space;
  cmd::ValidateOptions nothing;
  nothing.use_memory_map = true;
  uint32_t copied = 0, checked = 0, copied_nothing = 0, checked_nothing = 0;
  EXPECT_TRUE(copies_equal_built(0, ones, copied, &checked, &tag_space));
  EXPECT_FALSE(copies_equal_built(0, ones, copied_nothing, &checked_nothing, &nothing));  // nothing validates
  EXPECT_GT(copied, 0u);
  EXPECT_EQ(copied_nothing, copied);
  EXPECT_LT(checked_nothing, checked);  // the copies that moved a DDR operand are not marked
}

// With shared experts the partial is started before the experts' phase, so every routed block
// has one shape and the phase opens with an expert block at command 0 (the dependency that
// reads "none" there and "the block's start" later). Sixteen experts over two cores: six or
// more blocks a core, most of them copies, for even and uneven rows.
TEST(GenPhases, CopiedBlocksWithSharedExpertsEqualBuiltOnes) {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.seq = 5;
  ParallelConfig par;
  par.cores = 8;
  par.ep = 2;
  GenError err;
  ModelConfig m;
  gentest::tiny_qwen3_moe(m);
  m.moe.experts = 16;
  m.moe.shared_intermediate = 32;
  ASSERT_EQ(size_layer(m, in, par, g_moe_plan, err), Status::ok);
  uint32_t even[16], uneven[16];
  for (uint32_t e = 0; e < 16; ++e) {
    even[e] = e < 15 ? 1 : 0;  // 5 tokens x top-3 = 15 choices
    uneven[e] = e % 3 == 0 ? 2 : (e % 3 == 1 ? 1 : 0);
  }
  uneven[15] = 1;
  uint32_t copied_total = 0;
  for (const uint32_t* counts : {even, uneven}) {
    for (uint32_t core = 0; core < 2; ++core) {
      uint32_t copied = 0;
      EXPECT_TRUE(copies_equal_built(core, counts, copied));
      copied_total += copied;
    }
  }
  EXPECT_GT(copied_total, 0u);
}

// On a chip of an expert-parallel group (32 of 64 experts here) the placement by load caps each
// core at its share of the chip's experts, as the worst case gives it: one expert whose compute
// outweighs its weight stream (64 rows) and 31 on one row each fit every core's worst-case room
// (with the model's 64 as the cap, greedy placement put 5 experts on a core whose worst case
// holds 4: 109 TIU commands in the room of 91).
TEST(GenPhases, PlacementOnAnExpertParallelChipFitsItsWorstCase) {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.seq = 128;
  ParallelConfig par;
  par.cores = 8;
  par.expert_first = 0;
  par.expert_count = 32;
  GenError err;
  ModelConfig m;
  gentest::tiny_qwen3_moe(m);
  m.moe.experts = 64;
  m.moe.top_k = 2;
  m.moe.expert_intermediate = 4;
  m.moe.capacity = 64;
  ASSERT_EQ(size_layer(m, in, par, g_moe_plan, err), Status::ok);
  static uint32_t worst[64], counts[64];
  for (uint32_t e = 0; e < 64; ++e) {
    worst[e] = 64;
    counts[e] = e == 0 ? 64 : 1;
  }
  for (uint32_t core = 0; core < 8; ++core) {
    PhaseRequest room;
    room.phase = 2;
    room.expert_tokens = worst;
    PhaseRequest req = room;
    req.expert_tokens = counts;
    // before the cap counted the chip's experts: 109 TIU commands, room for 91
    EXPECT_TRUE(fits_room(core, room, req));
  }
}
