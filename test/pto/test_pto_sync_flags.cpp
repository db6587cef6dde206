// Manual sync's reading of pipe_barrier and of waits on the scalar unit, as the device orders
// them: pipe_barrier(PIPE_V) orders the vector pipe's own instructions only (a load before it is
// still unordered against a later vector instruction), while wait_flag(src, PIPE_S) stalls the
// scalar unit, which issues every later instruction, so every pipe comes after the event.
#include <gtest/gtest.h>

#include <cstdint>

#include <pto/host.hpp>

namespace {

using namespace pto;
using tilefw::Status;

constexpr int kR = 8;
constexpr int kC = 64;
using VecT = Tile<TileType::Vec, float, kR, kC>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, kR, kC>, Stride<1, 1, 1, kC, 1>>;

float value(int i, int salt) { return static_cast<float>((i * 29 + salt * 13) % 97) * 0.25f - 7.0f; }

struct GmRun {
  float* x;
  float* y;
  float* z;
};

GmRun prepare() {
  GmRun r{pto::host::gm<float>(kR * kC), pto::host::gm<float>(kR * kC), pto::host::gm<float>(kR * kC)};
  for (int i = 0; i < kR * kC; ++i) {
    r.x[i] = value(i, 1);
    r.y[i] = value(i, 2);
  }
  return r;
}

// c = a + b with b only filled by TEXPANDS (same pipe as TADD): the one cross-pipe dependency is
// the load of a (MTE2) before TADD (V), covered or not by `barrier`.
void barrier_kernel(__gm__ float* x, __gm__ float* z, pipe_t barrier) {
  GmT gx(x), gz(z);
  VecT a, b, c;
  TEXPANDS(b, 1.5f);
  TLOAD(a, gx);
  pipe_barrier(barrier);
  TADD(c, a, b);
  pipe_barrier(PIPE_ALL);
  TSTORE(gz, c);
}

TEST(PtoSyncFlags, PipeBarrierOfTheVectorPipeDoesNotOrderTheLoad) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const GmRun r = prepare();
  barrier_kernel(r.x, r.z, PIPE_V);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 1u);
  EXPECT_STREQ(core.context().first_violation.instr, "TADD");
  EXPECT_STREQ(core.context().first_violation.report.field, "MTE2");
  EXPECT_GT(core.hazard_count(), 0u) << "the simulator must not see a barrier either";
}

TEST(PtoSyncFlags, PipeBarrierAllOrdersTheLoad) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const GmRun r = prepare();
  barrier_kernel(r.x, r.z, PIPE_ALL);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < kR * kC; ++i) ASSERT_EQ(r.z[i], r.x[i] + 1.5f) << i;
}

TEST(PtoSyncFlags, PipeBarrierOfNoPipeIsABadArgument) {
  pto::host::Core core;
  core.set_checked(true);
  pipe_barrier(static_cast<pipe_t>(PIPE_ALL + 1));
  EXPECT_EQ(pto::status(), Status::invalid_argument);
  EXPECT_STREQ(pto::last_failure().instr, "pipe_barrier");
  EXPECT_STREQ(pto::last_failure().report.field, "pipe");
}

// z = x + y, the loads and the store ordered only through the scalar unit.
void scalar_wait_kernel(__gm__ float* x, __gm__ float* y, __gm__ float* z) {
  GmT gx(x), gy(y), gz(z);
  VecT a, b, c;
  TLOAD(a, gx);
  TLOAD(b, gy);
  set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
  TADD(c, a, b);
  set_flag(PIPE_V, PIPE_S, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_S, EVENT_ID1);
  TSTORE(gz, c);
}

TEST(PtoSyncFlags, AWaitOnTheScalarUnitOrdersEveryLaterPipe) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const GmRun r = prepare();
  scalar_wait_kernel(r.x, r.y, r.z);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < kR * kC; ++i) ASSERT_EQ(r.z[i], r.x[i] + r.y[i]) << i;
}

}  // namespace
