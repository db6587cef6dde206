// The a2a3 timing model's cost: tile programs on the simulated AI Core with the pipe timer
// attached (every issue timed, docs/a2a3-timing.md) vs the same programs on a core whose
// engines have no timer (the functional model alone). Goal: timed within 1.2x of functional.
// Each iteration runs a batch on the timed core, then the same batch on the untimed one, each
// batch timed with the thread's CPU clock (the machine is shared: both sides see the same
// load). "Time" is one timed program (manual time); counters: timed_ns, functional_ns per
// program and ratio = timed / functional. Before timing, both cores' UB are compared byte for
// byte after one program (timing never changes a result).
//   TADD_f32_16x64: one vadd of 16 repeats (a short issue: the timer's share is largest)
//   TADD_f32_64x64: one vadd of 64 repeats
//   TROWSUM_f32_64x64: the row reduction (reduction issues and a barrier)
//   TLOAD_TADD_TSTORE_f32_64x64: MTE2, V and MTE3 with events between them (waits, flags)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <ctime>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tilefw::tile;

namespace {

constexpr int kBatch = 64;

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Sim {
  port::host::Machine m{port::host::kProfileA2a3};
  port::host::ScopedMachine scope{m};
  port::host::A2a3Core npu{m};
  Core core{};
  uint8_t* ub = *m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
  uint8_t* gm = *m.translate(chip::a2a3::kGm.device_base, 1u << 20);

  explicit Sim(bool timed) {
    if (timed) return;
    // The functional model alone: no engine times its issues, waits order no clock.
    npu.pipes().set_timer(nullptr);
    npu.vector_unit().set_timer(nullptr);
    npu.cube().set_timer(nullptr);
    for (port::host::A2a3MoveEngine* e : {&npu.mte2(), &npu.mte1(), &npu.mte3(), &npu.fix()}) e->set_timer(nullptr);
  }
};

// The programs, each on its own core (ScopedMachine: the core the tile API drives).
template <int R>
struct Tadd {
  Tile<TileType::Vec, float, R, 64> a, b, c;
  Tadd() {
    TASSIGN<0x0>(a);
    TASSIGN<0x10000>(b);
    TASSIGN<0x20000>(c);
  }
  bool run(Sim& s) { return TADD(s.core, c, a, b).ok(); }
};

struct Trowsum {
  Tile<TileType::Vec, float, 64, 64> src, tmp;
  Tile<TileType::Vec, float, 64, 1, BLayout::ColMajor> dst;
  Trowsum() {
    TASSIGN<0x0>(src);
    TASSIGN<0x4000>(tmp);
    TASSIGN<0x8000>(dst);
  }
  bool run(Sim& s) { return TROWSUM(s.core, dst, src, tmp).ok(); }
};

struct LoadAddStore {
  GlobalTensor<float, 64, 64> in, out;
  Tile<TileType::Vec, float, 64, 64> x, y;
  LoadAddStore() {
    (void)TASSIGN(in, 0x0);
    (void)TASSIGN(out, 0x10000);
    TASSIGN<0x0>(x);
    TASSIGN<0x4000>(y);
  }
  bool run(Sim& s) {
    const Result<Event> l = TLOAD(s.core, x, in);
    if (!l.ok()) return false;
    const Result<Event> a = TADD(s.core, y, x, x, l.value());
    if (!a.ok()) return false;
    return TSTORE(s.core, out, y, a.value()).ok();
  }
};

void fill(Sim& s) {
  float* u = reinterpret_cast<float*>(s.ub);
  float* g = reinterpret_cast<float*>(s.gm);
  for (int i = 0; i < 0x30000 / 4; ++i) u[i] = static_cast<float>(i % 97) * 0.37f - 11.0f;
  for (int i = 0; i < 0x4000 / 4; ++i) g[i] = static_cast<float>(i % 89) * 0.13f - 5.0f;
}

template <class Program>
void run_pair(benchmark::State& state) {
  Sim timed(true);
  Sim functional(false);
  fill(timed);
  fill(functional);
  Program p;
  bool ok = true;
  {
    port::host::ScopedMachine t(timed.m);
    ok = ok && p.run(timed);
  }
  {
    port::host::ScopedMachine f(functional.m);
    ok = ok && p.run(functional);
  }
  if (!ok || std::memcmp(timed.ub, functional.ub, 0x30000) != 0) {
    state.SkipWithError("the timed and the functional core disagree");
    return;
  }
  double timed_s = 0;
  double functional_s = 0;
  for (auto _ : state) {
    double t0 = 0, t1 = 0, f0 = 0, f1 = 0;
    {
      port::host::ScopedMachine t(timed.m);
      t0 = thread_seconds();
      for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(p.run(timed));
      t1 = thread_seconds();
    }
    {
      port::host::ScopedMachine f(functional.m);
      f0 = thread_seconds();
      for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(p.run(functional));
      f1 = thread_seconds();
    }
    timed_s += t1 - t0;
    functional_s += f1 - f0;
    state.SetIterationTime((t1 - t0) / kBatch);
  }
  const double n = static_cast<double>(state.iterations()) * kBatch;
  state.counters["timed_ns"] = timed_s / n * 1e9;
  state.counters["functional_ns"] = functional_s / n * 1e9;
  state.counters["ratio"] = timed_s / functional_s;
  state.counters["cycles_per_program"] =
      static_cast<double>(timed.npu.timer().total()) / (static_cast<double>(state.iterations()) * kBatch + 1);
}

void BM_TADD_f32_16x64(benchmark::State& state) { run_pair<Tadd<16>>(state); }
void BM_TADD_f32_64x64(benchmark::State& state) { run_pair<Tadd<64>>(state); }
void BM_TROWSUM_f32_64x64(benchmark::State& state) { run_pair<Trowsum>(state); }
void BM_TLOAD_TADD_TSTORE_f32_64x64(benchmark::State& state) { run_pair<LoadAddStore>(state); }

}  // namespace

BENCHMARK(BM_TADD_f32_16x64)->UseManualTime()->MinTime(0.05);
BENCHMARK(BM_TADD_f32_64x64)->UseManualTime()->MinTime(0.05);
BENCHMARK(BM_TROWSUM_f32_64x64)->UseManualTime()->MinTime(0.05);
BENCHMARK(BM_TLOAD_TADD_TSTORE_f32_64x64)->UseManualTime()->MinTime(0.05);
BENCHMARK_MAIN();
