// Simulated a2a3 vadd f32 (issue_once + simulator, one issue) vs a native loop doing the same
// arithmetic in the same run: 64x64 (normal mode, repeat 64) and 128x128 (counter mode, 16384).
// Both sides run in alternating batches through paired_batches.hpp (counters sim_ns,
// native_ns, ratio); before timing, the simulated result is compared bit for bit with the
// native one.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <vector>

#include "a2a3/vector_unit.hpp"
#include "machine.hpp"
#include "paired_batches.hpp"
#include "tilefw/port/port.hpp"
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
  // The simulated issue once, saved, then the native loop over the same bytes: bit-identical.
  const char* verify() {
    if (!simulated()) return "the simulated issue failed";
    std::vector<float> simulated_out(ub + 2 * n, ub + 3 * n);
    native();
    return std::memcmp(ub + 2 * n, simulated_out.data(), n * 4) == 0 ? nullptr
                                                                       : "simulated and native results differ";
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
  auto f = std::make_unique<Fixture>(static_cast<uint32_t>(state.range(0)));
  tilefw_bench::run_paired_batches(state, *f);
}

}  // namespace

// MinTime counts manual time, i.e. one simulated issue per iteration, while an iteration runs
// kBatch of each side: 0.01 s of it is about a second of wall time per case.
BENCHMARK(BM_Vadd)->Arg(64 * 64)->Arg(128 * 128)->UseManualTime()->MinTime(0.01);
BENCHMARK_MAIN();
