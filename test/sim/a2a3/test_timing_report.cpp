// The core's cycle counters (the sync unit's CYCLE_LATCH, CYCLES and PIPE_BUSY registers,
// docs/a2a3-timing.md section 1): tile::RunReport carries what a run cost, read through the
// port as firmware would; the values are the simulated core's timer, exact under a parameter
// table whose sums are integers.
#include <gtest/gtest.h>

#include "a2a3/timing.hpp"
#include "tile_test_sim.hpp"

using namespace tile_test;
namespace timing = tilefw::port::host::timing;
using tilefw::tile::GlobalTensor;
using tilefw::tile::Tile;
using tilefw::tile::TileType;
namespace sreg = tilefw::chip::a2a3::sreg;

namespace {

// Every parameter 0 but: a vector binary issue = 10 cycles of latency + 2 per repeat, a load
// = 100 + 1 per 32 B block.
timing::Params small_table() {
  timing::Params p{};
  p[static_cast<unsigned>(timing::Param::v_start_binary)] = 10;
  p[static_cast<unsigned>(timing::Param::v_binary)] = 2;
  p[static_cast<unsigned>(timing::Param::mte2_startup)] = 100;
  p[static_cast<unsigned>(timing::Param::mte2_block)] = 1;
  return p;
}

Status tadd(Sim& s, const auto& d, const auto& a, const auto& b, tile::RunReport* rep) {
  return tile::run(s.core.vu, plan::Request::binary(plan::TileOp::TADD, d.desc(), a.desc(), b.desc()), s.core.plan,
                   rep);
}

TEST(CycleCounters, RunReportCarriesTheRunsCycles) {
  Sim s;
  s.core_model.timer() = timing::PipeTimer(small_table());
  Tile<TileType::Vec, float, 64, 64> a, b, d;
  tile::TASSIGN<0x0>(a);
  tile::TASSIGN<0x4000>(b);
  tile::TASSIGN<0x8000>(d);
  tile::RunReport rep{};
  ASSERT_EQ(tadd(s, d, a, b, &rep), Status::ok);
  // One vadd of 64 repeats (64 f32 columns fill a repeat): busy 128, done at 128 + 10.
  EXPECT_EQ(rep.pipe_busy[static_cast<unsigned>(tile::Pipe::V)], 128u);
  EXPECT_EQ(rep.cycles, 138u);
  for (unsigned p = 0; p < sreg::kCounterPipes; ++p) {
    if (p != static_cast<unsigned>(tile::Pipe::V)) {
      EXPECT_EQ(rep.pipe_busy[p], 0u) << timing::pipe_name(p);
    }
  }
  // A second run chains behind the first on V: it moves the completion by its throughput.
  ASSERT_EQ(tadd(s, d, a, b, &rep), Status::ok);
  EXPECT_EQ(rep.pipe_busy[static_cast<unsigned>(tile::Pipe::V)], 128u);
  EXPECT_EQ(rep.cycles, 128u);
  EXPECT_EQ(s.core_model.timer().total(), 266u);
}

TEST(CycleCounters, SnapshotsShowEveryPipe) {
  Sim s;
  s.core_model.timer() = timing::PipeTimer(small_table());
  GlobalTensor<float, 64, 64> g;
  ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 64, 64> x, y;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  const issue::CycleCounters c0 = issue::read_cycle_counters();
  EXPECT_EQ(c0.cycles, 0u);
  const tile::Event e = tile::TLOAD(s.core, x, g).value();
  ASSERT_TRUE(tile::TADD(s.core, y, x, x, e).ok());
  const issue::CycleCounters d = issue::elapsed(c0, issue::read_cycle_counters());
  // The load: 64 rows of 256 B = 512 blocks, busy 512, done at 612; V waits for it (the flag
  // costs 0 here), then 64 repeats: 612 + 128 + 10.
  EXPECT_EQ(d.busy[static_cast<unsigned>(tile::Pipe::MTE2)], 512u);
  EXPECT_EQ(d.busy[static_cast<unsigned>(tile::Pipe::V)], 128u);
  EXPECT_EQ(d.busy[sreg::kCounterPipeS], 0u);
  EXPECT_EQ(d.cycles, 750u);
  // The registers hold the snapshot, not a live value: reading again without a latch gives
  // the same.
  const uint64_t base = chip::a2a3::kSyncRegisters.base;
  EXPECT_EQ(s.m.read64(base + sreg::kCycles), 750u);
  EXPECT_EQ(s.m.read64(base + sreg::pipe_busy(static_cast<unsigned>(tile::Pipe::MTE2))), 512u);
}

TEST(CycleCounters, ACoreWithoutAClockReadsZero) {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  const issue::CycleCounters c = issue::read_cycle_counters();
  EXPECT_EQ(c.cycles, 0u);
  for (uint64_t b : c.busy) EXPECT_EQ(b, 0u);
}

TEST(CycleCounters, ElapsedNeverWraps) {
  issue::CycleCounters a{}, b{};
  a.cycles = 10;
  b.cycles = 4;
  a.busy[3] = 1;
  b.busy[3] = 7;
  const issue::CycleCounters d = issue::elapsed(a, b);
  EXPECT_EQ(d.cycles, 0u);
  EXPECT_EQ(d.busy[3], 6u);
}

TEST(CycleCounters, AFailedPlanReportsNoCycles) {
  Sim s;
  Tile<TileType::Vec, float, 64, 64> a, d;
  Tile<TileType::Vec, float, 32, 64> b;
  tile::TASSIGN<0x0>(a);
  tile::TASSIGN<0x4000>(b);
  tile::TASSIGN<0x8000>(d);
  tile::RunReport rep{};
  rep.cycles = 99;
  EXPECT_NE(tadd(s, d, a, b, &rep), Status::ok);
  EXPECT_EQ(rep.cycles, 0u);
  EXPECT_EQ(s.core_model.timer().issues(), 0u);
}

}  // namespace
