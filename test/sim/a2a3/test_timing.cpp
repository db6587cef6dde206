// The a2a3 pipe timer (docs/a2a3-timing.md): issues occupy their pipe and complete a latency
// later; independent pipes overlap; a wait, a flag or a barrier delays the waiter to the
// completion it waits for; on the simulated AI Core the tile instructions' time follows their
// repeats and their events, and functional results are those of the untimed unit.
#include <gtest/gtest.h>

#include "a2a3/timing.hpp"
#include "tile_test_sim.hpp"

using namespace tile_test;
namespace timing = tilefw::port::host::timing;
using tilefw::tile::Event;
using tilefw::tile::GlobalTensor;
using tilefw::tile::Tile;
using tilefw::tile::TileType;

namespace {

// Every parameter 0 but the ones a test sets: expected values are exact sums.
timing::Params zero_with(std::initializer_list<std::pair<timing::Param, double>> set) {
  timing::Params p{};
  for (const auto& [k, v] : set) p[static_cast<unsigned>(k)] = v;
  return p;
}

TEST(PipeTimer, ChainOnOnePipePaysItsLatencyOnce) {
  timing::PipeTimer t(zero_with({{timing::Param::v_start_binary, 20}, {timing::Param::v_binary, 2}}));
  t.vector(timing::VecClass::binary, 10, "vadd");
  t.vector(timing::VecClass::binary, 5, "vadd");
  EXPECT_EQ(t.total(), 20u + 10 * 2 + 5 * 2);
  EXPECT_EQ(t.busy(timing::kPipeV), 30u);
  EXPECT_EQ(t.issues(timing::kPipeV), 2u);
}

TEST(PipeTimer, BarrierExposesTheLatency) {
  timing::PipeTimer t(zero_with({{timing::Param::v_start_binary, 20}, {timing::Param::v_binary, 2},
                                 {timing::Param::v_barrier, 3}}));
  t.vector(timing::VecClass::binary, 10, "vadd");
  t.pipe_barrier(timing::kPipeV);
  t.vector(timing::VecClass::binary, 5, "vadd");
  EXPECT_EQ(t.total(), (20u + 20) + 3 + (10 + 20));
}

TEST(PipeTimer, IndependentPipesOverlapAndAWaitSerialises) {
  const timing::Params p = zero_with({{timing::Param::mte2_startup, 100}, {timing::Param::mte2_block, 1},
                                      {timing::Param::v_binary, 1}, {timing::Param::sync_flag, 4}});
  timing::PipeTimer overlap(p);
  overlap.move(timing::kPipeMte2, 50, "load");
  overlap.vector(timing::VecClass::binary, 64, "vadd");
  EXPECT_EQ(overlap.total(), 150u);  // max(150, 64): the pipes run side by side
  timing::PipeTimer ordered(p);
  ordered.move(timing::kPipeMte2, 50, "load");
  ordered.wait(timing::kPipeV, timing::kPipeMte2, 1);
  ordered.vector(timing::VecClass::binary, 64, "vadd");
  EXPECT_EQ(ordered.total(), 150u + 4 + 64);
}

TEST(PipeTimer, FlagsPingPongBetweenVAndS) {
  timing::PipeTimer t(zero_with({{timing::Param::v_dup, 1}, {timing::Param::s_read, 2}, {timing::Param::sync_flag, 3}}));
  for (int i = 0; i < 4; ++i) {
    t.flag(timing::kPipeV, timing::kPipeS);
    t.scalar_read();
    t.flag(timing::kPipeS, timing::kPipeV);
    t.vector(timing::VecClass::dup, 1, "vector_dup");
  }
  EXPECT_EQ(t.total(), 4u * (3 + 2 + 3 + 1));
}

TEST(PipeTimer, EveryParameterHasASource) {
  for (const timing::ParamRow& r : timing::param_table()) {
    const std::string s = r.source;
    EXPECT_TRUE(s == "fit" || s == "doc" || s == "decision") << r.name;
    EXPECT_GE(r.value, 0.0) << r.name;
    EXPECT_EQ(timing::param_index(r.name), static_cast<unsigned>(&r - timing::param_table().data()));
  }
}

// The timer keeps only the last kKeptCompletions completions per pipe: a wait within them is
// exact, one further back waits for the latest dropped completion and is counted.
TEST(PipeTimer, CompletionsAreKeptForTheLastIssuesOnly) {
  timing::PipeTimer t(zero_with({{timing::Param::mte2_block, 1}, {timing::Param::mte2_startup, 100}}));
  const uint64_t n = timing::PipeTimer::kKeptCompletions + 10;
  for (uint64_t i = 0; i < n; ++i) t.move(timing::kPipeMte2, 1, "load");  // the (i+1)th issue completes at i + 101
  EXPECT_EQ(t.issues(timing::kPipeMte2), n);
  EXPECT_EQ(t.issues(), n);
  // The 11th issue is the oldest kept one: exact.
  EXPECT_TRUE(t.wait(timing::kPipeV, timing::kPipeMte2, 11));
  EXPECT_EQ(t.vector(timing::VecClass::binary, 0, "vadd"), 111u);
  EXPECT_EQ(t.stale_waits(), 0u);
  // The 10th issue is no longer kept: the wait is for its completion (the latest dropped one,
  // 110), counted, never earlier than the exact one.
  timing::PipeTimer u(zero_with({{timing::Param::mte2_block, 1}, {timing::Param::mte2_startup, 100}}));
  for (uint64_t i = 0; i < n; ++i) u.move(timing::kPipeMte2, 1, "load");
  EXPECT_FALSE(u.wait(timing::kPipeS, timing::kPipeMte2, 3));
  EXPECT_EQ(u.stale_waits(), 1u);
  EXPECT_EQ(u.scalar_read(), 110u);
}

TEST(PipeTimer, TimesSaturateAt2To53) {
  timing::PipeTimer t(zero_with({{timing::Param::v_binary, 1e300}}));
  EXPECT_FALSE(t.saturated());
  t.vector(timing::VecClass::binary, 1, "vadd");
  EXPECT_TRUE(t.saturated());
  EXPECT_EQ(t.total(), uint64_t{1} << 53);
  EXPECT_EQ(t.busy(timing::kPipeV), uint64_t{1} << 53);
}

// TADD f32 over R rows of 64 columns on the simulated core: V's busy time grows with the
// repeats the tile takes, and the tile result is the exact sum.
uint64_t tadd_busy(Sim& s, auto& dst, auto& a, auto& b) {
  const uint64_t before = s.core_model.timer().busy(timing::kPipeV);
  EXPECT_TRUE(tile::TADD(s.core, dst, a, b).ok());
  return s.core_model.timer().busy(timing::kPipeV) - before;
}

TEST(A2a3CoreTiming, VectorTimeScalesWithRepeats) {
  Sim s;
  Tile<TileType::Vec, float, 16, 64> a16, b16, d16;
  Tile<TileType::Vec, float, 64, 64> a64, b64, d64;
  tile::TASSIGN<0x0>(a16);
  tile::TASSIGN<0x1000>(b16);
  tile::TASSIGN<0x2000>(d16);
  tile::TASSIGN<0x4000>(a64);
  tile::TASSIGN<0x8000>(b64);
  tile::TASSIGN<0xC000>(d64);
  float* ub = reinterpret_cast<float*>(s.space(chip::MemSpace::UB));
  for (int i = 0; i < 1024; ++i) {
    ub[i] = static_cast<float>(i);
    ub[0x1000 / 4 + i] = 0.5f;
  }
  const uint64_t t16 = tadd_busy(s, d16, a16, b16);
  const uint64_t t64 = tadd_busy(s, d64, a64, b64);
  const double per_repeat = s.core_model.timer().params()[static_cast<unsigned>(timing::Param::v_binary)];
  // One issue each: its per-issue cost on top of the repeats.
  const double per_issue = s.core_model.timer().params()[static_cast<unsigned>(timing::Param::v_issue)];
  EXPECT_NEAR(static_cast<double>(t16), per_issue + 16 * per_repeat, 1.0);
  EXPECT_NEAR(static_cast<double>(t64), per_issue + 64 * per_repeat, 1.0);
  EXPECT_EQ(ub[0x2000 / 4 + 7], 7.5f);  // timing changes no result
}

TEST(A2a3CoreTiming, AnEventMakesVWaitForTheLoad) {
  Sim s;
  GlobalTensor<float, 64, 64> g;
  ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 64, 64> x, y;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  const Event e = tile::TLOAD(s.core, x, g).value();
  const timing::PipeTimer& t = s.core_model.timer();
  const uint64_t load_done = t.total();
  ASSERT_TRUE(tile::TADD(s.core, y, x, x, e).ok());
  // V started after the load completed: the program's end is the load plus the add.
  EXPECT_GE(t.total(), load_done + t.busy(timing::kPipeV));
  EXPECT_GT(t.busy(timing::kPipeMte2), 0u);
}

}  // namespace
