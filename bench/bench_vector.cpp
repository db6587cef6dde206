// Simulated a2a3 vadd f32 (issue_once + simulator, one issue) vs a native loop doing the same
// arithmetic in the same run: 64x64 (normal mode, repeat 64) and 128x128 (counter mode, 16384).
#include <benchmark/benchmark.h>

#include <cstring>

#include "a2a3_vector_unit.hpp"
#include "machine.hpp"
#include "port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

using namespace tilefw;

namespace {
struct Fixture {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3VectorUnit sim{m};
  issue::VectorUnit vu{};
  float* ub = reinterpret_cast<float*>(*m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes));
  Fixture() {
    for (int i = 0; i < 3 * 16384; ++i) ub[i] = static_cast<float>(i % 97) * 0.25f;
  }
};

void BM_SimVadd(benchmark::State& state) {
  Fixture f;
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  desc::BinIntrinsicDesc d{};
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
  for (auto _ : state) {
    const Status s = issue::issue_once(f.vu, d, DType::f32);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_NativeVadd(benchmark::State& state) {
  Fixture f;
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  const float* a = f.ub;
  const float* b = f.ub + n;
  float* __restrict c = f.ub + 2 * n;
  for (auto _ : state) {
    for (uint32_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
}  // namespace

BENCHMARK(BM_SimVadd)->Arg(64 * 64)->Arg(128 * 128);
BENCHMARK(BM_NativeVadd)->Arg(64 * 64)->Arg(128 * 128);
BENCHMARK_MAIN();
