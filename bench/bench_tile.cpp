// Tile instructions through the tile API on the simulated AI Core (A2a3Core: planner, issue
// layer, register writes, the simulator with its hazard tracking) vs a native loop doing the
// same arithmetic, measured in the same iteration so both see the same machine load:
//   TADD f32 64x64 (one issue, repeat 64), TADD f32 128x128 (one counter-mode issue of 16384),
//   TROWSUM f32 64x64 -> 64x1 col-major (one counter-mode vcadd; native: the same adjacent-pair
//   tree per row), and for comparison TADD f32 120x128 (see BM_TADD_f32_120x128).
// Each iteration runs a batch of simulated instructions, then the same number of native loops,
// each batch timed with the thread's CPU clock (the benchmark machine is shared: wall time
// would count other jobs' time slices). "Time" is one simulated instruction (manual time);
// counters: sim_ns, native_ns per instruction and ratio = simulated / native. Before timing,
// the simulated and native results are compared bit for bit.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "paired_batches.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tilefw::tile;

namespace {

struct Sim {
  port::host::Machine m{port::host::kProfileA2a3};
  port::host::ScopedMachine scope{m};
  port::host::A2a3Core npu{m};
  Core core{};
  float* ub = reinterpret_cast<float*>(*m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes));
};

template <int R, int C>
struct TaddCase {
  static constexpr int kElems = R * C;
  Sim sim;
  Tile<TileType::Vec, float, R, C> a, b, c;
  std::vector<float> native_out = std::vector<float>(kElems);

  TaddCase() {
    TASSIGN<0>(a);
    TASSIGN<uint64_t{kElems} * 4>(b);
    TASSIGN<uint64_t{kElems} * 8>(c);
    for (int i = 0; i < 2 * kElems; ++i) sim.ub[i] = static_cast<float>(i % 97) * 0.37f - 11.0f;
  }
  bool simulated() noexcept {
    const Result<Event> r = TADD(sim.core, c, a, b);
    benchmark::DoNotOptimize(r);
    return r.ok();
  }
  void native() noexcept {
    const float* x = sim.ub;
    const float* y = sim.ub + kElems;
    float* __restrict z = native_out.data();
    for (int i = 0; i < kElems; ++i) z[i] = x[i] + y[i];
    benchmark::ClobberMemory();
  }
  bool same() const { return std::memcmp(sim.ub + 2 * kElems, native_out.data(), kElems * 4) == 0; }
};

struct TrowsumCase {
  static constexpr int kRows = 64;
  static constexpr int kCols = 64;
  Sim sim;
  Tile<TileType::Vec, float, kRows, kCols> src, tmp;
  Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor> dst;
  std::vector<float> native_out = std::vector<float>(kRows);

  TrowsumCase() {
    TASSIGN<0x0>(src);
    TASSIGN<0x4000>(tmp);
    TASSIGN<0x8000>(dst);
    for (int i = 0; i < kRows * kCols; ++i) sim.ub[i] = static_cast<float>(i % 89) * 0.13f - 5.0f;
  }
  bool simulated() noexcept {
    const Result<Event> r = TROWSUM(sim.core, dst, src, tmp);
    benchmark::DoNotOptimize(r);
    return r.ok();
  }
  // vcadd's order: adjacent pairs, then pairs of those (docs/a2a3-vector-semantics.md section 7).
  void native() noexcept {
    for (int r = 0; r < kRows; ++r) {
      float t[kCols];
      std::memcpy(t, sim.ub + r * kCols, sizeof t);
      for (int w = kCols / 2; w >= 1; w /= 2) {
        for (int k = 0; k < w; ++k) t[k] = t[2 * k] + t[2 * k + 1];
      }
      native_out[r] = t[0];
    }
    benchmark::ClobberMemory();
  }
  bool same() const { return std::memcmp(sim.ub + 0x8000 / 4, native_out.data(), kRows * 4) == 0; }
};

// Runs the case through the shared paired-batch loop, after checking its first simulated
// instruction against the native result.
template <class Case>
struct Checked : Case {
  const char* verify() {
    if (!this->simulated()) return "the simulated instruction failed";
    this->native();
    return this->same() ? nullptr : "simulated and native results differ";
  }
};

template <class Case>
void run_pair(benchmark::State& state) {
  auto c = std::make_unique<Checked<Case>>();
  tilefw_bench::run_paired_batches(state, *c);
  if (c->sim.npu.pipes().hazard_count() != 0) state.SkipWithError("hazards reported");
}

void BM_TADD_f32_64x64(benchmark::State& state) { run_pair<TaddCase<64, 64>>(state); }
void BM_TADD_f32_128x128(benchmark::State& state) { run_pair<TaddCase<128, 128>>(state); }
// Three 128x128 f32 tiles fill UB including its reserved top 8 KB, which desc's fast acceptance
// leaves to the precise validator (run by the planner, issue_once and the simulator); three
// 120x128 tiles (180 KB) stay inside the usable UB: one full-mask issue of 240 repeats that the
// fast path accepts.
void BM_TADD_f32_120x128(benchmark::State& state) { run_pair<TaddCase<120, 128>>(state); }
void BM_TROWSUM_f32_64x64(benchmark::State& state) { run_pair<TrowsumCase>(state); }

}  // namespace

// MinTime counts manual time, i.e. one simulated instruction per iteration, while an iteration
// runs 2 * kBatch instructions: 0.01 s of it is about 1.3 s of CPU.
BENCHMARK(BM_TADD_f32_64x64)->UseManualTime()->MinTime(0.01);
BENCHMARK(BM_TADD_f32_128x128)->UseManualTime()->MinTime(0.01);
BENCHMARK(BM_TADD_f32_120x128)->UseManualTime()->MinTime(0.01);
BENCHMARK(BM_TROWSUM_f32_64x64)->UseManualTime()->MinTime(0.01);
BENCHMARK_MAIN();
