// Simulated a2a3 vadd f32 (issue_once + simulator, one issue) vs a native loop doing the same
// arithmetic in the same run: 64x64 (normal mode, repeat 64) and 128x128 (counter mode, 16384).
// Each iteration runs a batch of simulated issues, then the same number of native loops over
// the same UB bytes, each batch timed with the thread's CPU clock: both see the same machine
// state (the benchmark machine is shared, and separate benchmarks for the two sides let other
// jobs' load land on one side only). "Time" is one simulated issue (manual time); counters:
// sim_ns, native_ns per issue and ratio = simulated / native. Before timing, the simulated
// result is compared bit for bit with the native one.
#include <benchmark/benchmark.h>

#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "a2a3_vector_unit.hpp"
#include "machine.hpp"
#include "port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

using namespace tilefw;

namespace {

constexpr int kBatch = 64;

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Fixture {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3VectorUnit sim{m};
  issue::VectorUnit vu{};
  float* ub = reinterpret_cast<float*>(*m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes));
  uint32_t n;
  desc::BinIntrinsicDesc d{};

  explicit Fixture(uint32_t elements) : n(elements) {
    issue::reset(vu);
    for (uint32_t i = 0; i < 2 * n; ++i) ub[i] = static_cast<float>(i % 97) * 0.25f - 7.0f;
    d.src0.offset = 0;
    d.src1.offset = n * 4;
    d.dst.offset = 2 * n * 4;
    if (n / 64 <= 255) {
      d.repeat = n / 64;
    } else {
      d.repeat = 0;
      d.mask_mode = desc::MaskMode::count;
      d.vector_count = n;
    }
  }
  bool simulated() noexcept {
    const Status s = issue::issue_once(vu, d, DType::f32);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
    return s == Status::ok;
  }
  // Writes the same UB bytes the simulated issue writes: the same memory traffic.
  void native() noexcept {
    const float* a = ub;
    const float* b = ub + n;
    float* __restrict out = ub + 2 * n;
    for (uint32_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
    benchmark::ClobberMemory();
  }
};

void BM_Vadd(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  auto f = std::make_unique<Fixture>(n);
  std::vector<float> simulated_out(n);
  if (!f->simulated()) {
    state.SkipWithError("the simulated issue failed");
    return;
  }
  std::memcpy(simulated_out.data(), f->ub + 2 * n, n * 4);
  f->native();
  if (std::memcmp(f->ub + 2 * n, simulated_out.data(), n * 4) != 0) {
    state.SkipWithError("simulated and native results differ");
    return;
  }
  double sim_s = 0;
  double native_s = 0;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    for (int i = 0; i < kBatch; ++i) f->simulated();
    const double t1 = thread_seconds();
    for (int i = 0; i < kBatch; ++i) f->native();
    const double t2 = thread_seconds();
    sim_s += t1 - t0;
    native_s += t2 - t1;
    state.SetIterationTime((t1 - t0) / kBatch);
  }
  const double issues = static_cast<double>(state.iterations()) * kBatch;
  state.counters["sim_ns"] = sim_s / issues * 1e9;
  state.counters["native_ns"] = native_s / issues * 1e9;
  state.counters["ratio"] = sim_s / native_s;
}

}  // namespace

// MinTime counts manual time, i.e. one simulated issue per iteration, while an iteration runs
// kBatch of each side: 0.01 s of it is about a second of wall time per case.
BENCHMARK(BM_Vadd)->Arg(64 * 64)->Arg(128 * 128)->UseManualTime()->MinTime(0.01);
BENCHMARK_MAIN();
