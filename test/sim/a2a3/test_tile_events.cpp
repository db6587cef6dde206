// Events between the a2a3 pipes on the simulated AI Core (host only): every pipe pair a real
// flow uses (MTE2 -> V, V -> MTE3, MTE2 -> MTE1, MTE1 -> M, M -> FIX, FIX -> V, FIX -> MTE3)
// reports a hazard when its wait is missing and none when it is given; M -> M is ordered by
// the pipe itself; waits are transitive; pipe_barrier orders everything issued before it;
// a wait for an instruction never issued is refused before anything is emitted.
#include <gtest/gtest.h>

#include "tile_test_sim.hpp"

using namespace tile_test;
using tilefw::tile::BLayout;
using tilefw::tile::Event;
using tilefw::tile::GlobalTensor;
using tilefw::tile::Pipe;
using tilefw::tile::SLayout;
using tilefw::tile::Tile;
using tilefw::tile::TileType;

namespace {

/// The wait a flow leaves out.
enum class Drop { none, mte2_v, mte2_mte1, mte1_m, m_fix, fix_v, v_mte3 };

struct Flow {
  std::vector<port::host::Hazard> hazards;
  uint64_t count = 0;
};

// A, B -> L1 -> L0A / L0B; x = TLOAD(gx); acc = A x B; acc += A x B; v = acc (FIX);
// v = v + x; TSTORE(v). Every instruction waits for its producers unless `drop` removes that
// edge (an empty Event waits for nothing).
Flow run_flow(Drop drop) {
  Sim s;
  Rng rng(1);
  rng.fill(s.space(chip::MemSpace::GM), 0x20000);
  GlobalTensor<float, 16, 16> gx, gout;
  GlobalTensor<half, 16, 32> ga;
  GlobalTensor<half, 32, 16> gb;
  EXPECT_EQ(tile::TASSIGN(gx, 0x0), Status::ok);
  EXPECT_EQ(tile::TASSIGN(ga, 0x1000), Status::ok);
  EXPECT_EQ(tile::TASSIGN(gb, 0x2000), Status::ok);
  EXPECT_EQ(tile::TASSIGN(gout, 0x3000), Status::ok);
  Tile<TileType::Vec, float, 16, 16> x, v;
  Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor> ma;
  Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor> mb;
  tile::TileLeft<half, 16, 32> left;
  tile::TileRight<half, 32, 16> right;
  tile::TileAcc<float, 16, 16> acc;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x400>(v);
  tile::TASSIGN<0x0>(ma);
  tile::TASSIGN<0x400>(mb);
  tile::TASSIGN<0x0>(left);
  tile::TASSIGN<0x0>(right);
  tile::TASSIGN<0x0>(acc);
  auto keep = [&](Drop edge, Event e) { return drop == edge ? Event{} : e; };
  const Event ea = tile::TLOAD(s.core, ma, ga).value();
  const Event eb = tile::TLOAD(s.core, mb, gb).value();
  // Loaded last: the chain MTE2 -> MTE1 -> M -> FIX -> V covers MTE2 up to eb only.
  const Event ex = tile::TLOAD(s.core, x, gx).value();
  const Event el = tile::TMOV(s.core, left, ma, keep(Drop::mte2_mte1, ea)).value();
  const Event er = tile::TMOV(s.core, right, mb, keep(Drop::mte2_mte1, eb)).value();
  const Event em = tile::TMATMUL(s.core, acc, left, right, keep(Drop::mte1_m, el), keep(Drop::mte1_m, er)).value();
  const Event em2 = tile::TMATMUL_ACC(s.core, acc, left, right, em).value();  // same pipe: in order
  const Event ef = tile::TMOV(s.core, v, acc, keep(Drop::m_fix, em2)).value();
  const Event ev = tile::TADD(s.core, v, v, x, keep(Drop::fix_v, ef), keep(Drop::mte2_v, ex)).value();
  EXPECT_TRUE(tile::TSTORE(s.core, gout, v, keep(Drop::v_mte3, ev)).ok());
  return Flow{s.hazards(), s.hazard_count()};
}

void expect_only(const Flow& f, Pipe reader, Pipe writer, const char* what) {
  EXPECT_GE(f.count, 1u) << what;
  for (const port::host::Hazard& h : f.hazards) {
    EXPECT_EQ(h.reader, reader) << what;
    EXPECT_EQ(h.writer, writer) << what;
  }
}

}  // namespace

TEST(TileEvents, TheWholeFlowWithEveryWaitIsHazardFree) {
  const Flow f = run_flow(Drop::none);
  EXPECT_EQ(f.count, 0u);
  EXPECT_TRUE(f.hazards.empty());
}

TEST(TileEvents, EachMissingWaitIsReportedForItsPipePair) {
  expect_only(run_flow(Drop::mte2_v), Pipe::V, Pipe::MTE2, "MTE2 -> V");
  expect_only(run_flow(Drop::mte2_mte1), Pipe::MTE1, Pipe::MTE2, "MTE2 -> MTE1");
  expect_only(run_flow(Drop::mte1_m), Pipe::M, Pipe::MTE1, "MTE1 -> M");
  expect_only(run_flow(Drop::m_fix), Pipe::FIX, Pipe::M, "M -> FIX");
  expect_only(run_flow(Drop::fix_v), Pipe::V, Pipe::FIX, "FIX -> V");
  expect_only(run_flow(Drop::v_mte3), Pipe::MTE3, Pipe::V, "V -> MTE3");
}

TEST(TileEvents, HazardNamesTheInstructionsAndTheGranule) {
  const Flow f = run_flow(Drop::mte2_v);
  ASSERT_EQ(f.hazards.size(), 1u);
  EXPECT_EQ(f.hazards[0].writer_seq, 3u);  // the third TLOAD (x)
  EXPECT_EQ(f.hazards[0].reader_seq, 1u);  // the TADD's single issue
  EXPECT_EQ(f.hazards[0].space, chip::MemSpace::UB);
  EXPECT_EQ(f.hazards[0].offset, 0u);  // x at UB 0
}

TEST(TileEvents, FixToMte3) {
  for (bool wait : {false, true}) {
    Sim s;
    tile::TileAcc<float, 16, 16> acc;
    Tile<TileType::Vec, half, 16, 16> v;
    GlobalTensor<half, 16, 16> g;
    tile::TASSIGN<0x0>(acc);
    tile::TASSIGN<0x0>(v);
    ASSERT_EQ(tile::TASSIGN(g, 0x100), Status::ok);
    const Event ef = tile::TMOV(s.core, v, acc).value();
    ASSERT_TRUE(tile::TSTORE(s.core, g, v, wait ? ef : Event{}).ok());
    if (wait) {
      EXPECT_EQ(s.hazard_count(), 0u);
    } else {
      ASSERT_EQ(s.hazards().size(), 1u);
      EXPECT_EQ(s.hazards()[0].reader, Pipe::MTE3);
      EXPECT_EQ(s.hazards()[0].writer, Pipe::FIX);
    }
  }
}

// M -> M: the accumulation reads C that the previous matmul wrote on the same pipe; pipes run
// their own instructions in order, so no wait is needed and none is reported. Waiting on an
// older M event than the one that last wrote C is not enough for another pipe.
TEST(TileEvents, MatmulAccumulateIsOrderedByItsPipe) {
  Sim s;
  tile::TileLeft<half, 16, 16> a;
  tile::TileRight<half, 16, 16> b;
  tile::TileAcc<float, 16, 16> c;
  Tile<TileType::Vec, float, 16, 16> v;
  tile::TASSIGN<0x0>(a);
  tile::TASSIGN<0x0>(b);
  tile::TASSIGN<0x0>(c);
  tile::TASSIGN<0x0>(v);
  const Event m1 = tile::TMATMUL(s.core, c, a, b).value();
  const Event m2 = tile::TMATMUL_ACC(s.core, c, a, b).value();
  const Event m3 = tile::TMATMUL_ACC(s.core, c, a, b, m2).value();  // a same-pipe wait costs nothing
  EXPECT_EQ(m2.seq, m1.seq + 1);
  EXPECT_EQ(m3.seq, m2.seq + 1);
  EXPECT_EQ(s.hazard_count(), 0u);
  ASSERT_TRUE(tile::TMOV(s.core, v, c, m1).ok());  // C was last written by m3
  ASSERT_EQ(s.hazards().size(), 1u);
  EXPECT_EQ(s.hazards()[0].reader, Pipe::FIX);
  EXPECT_EQ(s.hazards()[0].writer, Pipe::M);
  EXPECT_EQ(s.hazards()[0].writer_seq, m3.seq);
  s.core_model.pipes().clear_hazards();
  ASSERT_TRUE(tile::TMOV(s.core, v, c, m3).ok());
  EXPECT_EQ(s.hazard_count(), 0u);
}

TEST(TileEvents, WaitsAreTransitive) {
  // MTE3 waits only for V, which waited for MTE2: MTE3 may read what MTE2 wrote.
  {
    Sim s;
    GlobalTensor<float, 8, 64> g, out;
    ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
    ASSERT_EQ(tile::TASSIGN(out, 0x8000), Status::ok);
    Tile<TileType::Vec, float, 8, 64> x, y;
    tile::TASSIGN<0x0>(x);
    tile::TASSIGN<0x4000>(y);
    const Event l = tile::TLOAD(s.core, x, g).value();
    const Event a = tile::TABS(s.core, y, x, l).value();
    ASSERT_TRUE(tile::TSTORE(s.core, out, x, a).ok());
    EXPECT_EQ(s.hazard_count(), 0u);
  }
  // The chain is broken when V did not wait for MTE2 (it worked on other data).
  {
    Sim s;
    GlobalTensor<float, 8, 64> g, out;
    ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
    ASSERT_EQ(tile::TASSIGN(out, 0x8000), Status::ok);
    Tile<TileType::Vec, float, 8, 64> x, y, z;
    tile::TASSIGN<0x0>(x);
    tile::TASSIGN<0x4000>(y);
    tile::TASSIGN<0x8000>(z);
    ASSERT_TRUE(tile::TLOAD(s.core, x, g).ok());
    const Event a = tile::TABS(s.core, y, z).value();
    ASSERT_TRUE(tile::TSTORE(s.core, out, x, a).ok());
    ASSERT_EQ(s.hazards().size(), 1u);
    EXPECT_EQ(s.hazards()[0].reader, Pipe::MTE3);
    EXPECT_EQ(s.hazards()[0].writer, Pipe::MTE2);
  }
  // A chain over three pipes: MTE2 -> MTE1 -> M, then FIX waits only for M and reads L0C;
  // and TSYNC makes V wait without an instruction.
  {
    Sim s;
    GlobalTensor<float, 8, 64> g;
    ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
    Tile<TileType::Vec, float, 8, 64> x, y;
    tile::TASSIGN<0x0>(x);
    tile::TASSIGN<0x4000>(y);
    const Event l = tile::TLOAD(s.core, x, g).value();
    EXPECT_EQ(tile::TSYNC(s.core, Pipe::V, l), Status::ok);
    ASSERT_TRUE(tile::TABS(s.core, y, x).ok());
    EXPECT_EQ(s.hazard_count(), 0u);
  }
}

// An older event of the producing pipe does not cover a later write by it.
TEST(TileEvents, WaitingForAnOlderInstructionIsNotEnough) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  const Event l1 = tile::TLOAD(s.core, x, g).value();
  const Event l2 = tile::TLOAD(s.core, x, g).value();
  ASSERT_TRUE(tile::TABS(s.core, y, x, l1).ok());
  ASSERT_EQ(s.hazards().size(), 1u);
  EXPECT_EQ(s.hazards()[0].writer_seq, l2.seq);
  s.core_model.pipes().clear_hazards();
  ASSERT_TRUE(tile::TABS(s.core, y, x, l2).ok());
  EXPECT_EQ(s.hazard_count(), 0u);
}

TEST(TileEvents, PipeBarrierOrdersWhatCameBefore) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y, z;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  tile::TASSIGN<0x8000>(z);
  ASSERT_TRUE(tile::TLOAD(s.core, x, g).ok());
  tile::pipe_barrier(s.core);
  ASSERT_TRUE(tile::TABS(s.core, y, x).ok());
  EXPECT_EQ(s.hazard_count(), 0u);
  // A load issued after the barrier is not covered by it.
  ASSERT_TRUE(tile::TLOAD(s.core, z, g).ok());
  ASSERT_TRUE(tile::TABS(s.core, y, z).ok());
  ASSERT_EQ(s.hazards().size(), 1u);
  EXPECT_EQ(s.hazards()[0].writer, Pipe::MTE2);
  EXPECT_EQ(s.hazards()[0].writer_seq, 2u);
}

TEST(TileEvents, WaitNeverSignalledIsRefusedBeforeIssuing) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(tile::TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y;
  tile::TASSIGN<0x0>(x);
  tile::TASSIGN<0x4000>(y);
  EXPECT_EQ(tile::TABS(s.core, y, x, Event{Pipe::MTE2, 1}).status(), Status::sim_wait_never_signalled);
  EXPECT_EQ(s.vector_issues(), 0u);
  EXPECT_EQ(tile::TLOAD(s.core, x, g, Event{Pipe::V, 3}).status(), Status::sim_wait_never_signalled);
  EXPECT_EQ(s.core_model.pipes().count(Pipe::MTE2), 0u);
  EXPECT_EQ(tile::TSYNC(s.core, Pipe::FIX, Event{Pipe::M, 1}), Status::sim_wait_never_signalled);
  // An empty event waits for nothing; a same-pipe event is ordered already.
  EXPECT_TRUE(tile::TABS(s.core, y, x, Event{}).ok());
  EXPECT_TRUE(tile::TABS(s.core, y, x, Event{Pipe::V, 1}).ok());
  const Event l = tile::TLOAD(s.core, x, g).value();
  EXPECT_EQ(l.seq, 1u);
  EXPECT_TRUE(tile::TABS(s.core, y, x, Event{Pipe::MTE2, l.seq}).ok());  // now it exists
}
