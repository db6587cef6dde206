// The measuring loop bench_vector and bench_tile share: each benchmark iteration runs a batch
// of simulated operations, then the same number of native loops, each batch timed with the
// thread's CPU clock, so both sides see the same machine state (the benchmark machine is
// shared, and two separate benchmarks let other jobs' load land on one side only). "Time" is
// one simulated operation (manual time); counters: sim_ns, native_ns per operation and
// ratio = simulated / native.
//
// A Case provides `const char* verify()` (runs both sides once and compares the results bit
// for bit: nullptr when they agree, else the reason to skip), `simulated()` and `native()`.
#pragma once

#include <benchmark/benchmark.h>

#include <ctime>

namespace tilefw_bench {

inline constexpr int kBatch = 64;

inline double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class Case>
void run_paired_batches(benchmark::State& state, Case& c) {
  if (const char* error = c.verify()) {
    state.SkipWithError(error);
    return;
  }
  double sim_s = 0;
  double native_s = 0;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    for (int i = 0; i < kBatch; ++i) c.simulated();
    const double t1 = thread_seconds();
    for (int i = 0; i < kBatch; ++i) c.native();
    const double t2 = thread_seconds();
    sim_s += t1 - t0;
    native_s += t2 - t1;
    state.SetIterationTime((t1 - t0) / kBatch);
  }
  const double n = static_cast<double>(state.iterations()) * kBatch;
  state.counters["sim_ns"] = sim_s / n * 1e9;
  state.counters["native_ns"] = native_s / n * 1e9;
  state.counters["ratio"] = sim_s / native_s;
}

}  // namespace tilefw_bench
