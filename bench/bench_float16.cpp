// half conversions: tilefw's table-free bit-exact conversion vs the compiler's _Float16
// conversion (libgcc soft-float on x86-64 GCC 12) over the same 64 Ki floats.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tilefw/base/float16.hpp"

namespace {

std::vector<float> inputs() {
  std::vector<float> v(65536);
  uint32_t s = 0x2545F491u;
  for (float& f : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    f = std::bit_cast<float>((s & 0x8FFFFFFFu) | 0x30000000u);  // mostly in half range
  }
  return v;
}

void BM_FloatToHalf_Tilefw(benchmark::State& state) {
  const std::vector<float> in = inputs();
  std::vector<uint16_t> out(in.size());
  for (auto _ : state) {
    for (size_t i = 0; i < in.size(); ++i) out[i] = tilefw::to_half(in[i]).bits;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.size()));
}

void BM_FloatToHalf_CompilerFloat16(benchmark::State& state) {
  const std::vector<float> in = inputs();
  std::vector<uint16_t> out(in.size());
  for (auto _ : state) {
    for (size_t i = 0; i < in.size(); ++i) {
      const _Float16 h = static_cast<_Float16>(in[i]);
      std::memcpy(&out[i], &h, 2);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.size()));
}

void BM_HalfToFloat_Tilefw(benchmark::State& state) {
  std::vector<uint16_t> in(65536);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(i);
  std::vector<float> out(in.size());
  for (auto _ : state) {
    for (size_t i = 0; i < in.size(); ++i) out[i] = tilefw::to_float(tilefw::half{in[i]});
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.size()));
}

void BM_HalfToFloat_CompilerFloat16(benchmark::State& state) {
  std::vector<uint16_t> in(65536);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(i);
  std::vector<float> out(in.size());
  for (auto _ : state) {
    for (size_t i = 0; i < in.size(); ++i) {
      _Float16 h;
      std::memcpy(&h, &in[i], 2);
      out[i] = static_cast<float>(h);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.size()));
}

}  // namespace

BENCHMARK(BM_FloatToHalf_Tilefw);
BENCHMARK(BM_FloatToHalf_CompilerFloat16);
BENCHMARK(BM_HalfToFloat_Tilefw);
BENCHMARK(BM_HalfToFloat_CompilerFloat16);
BENCHMARK_MAIN();
