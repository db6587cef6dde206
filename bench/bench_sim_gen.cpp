// SG2260 simulator throughput on generated streams (the performance goal: timing simulation >= 10 M
// commands/s on generated streams): a full-size Llama-3-8B layer (hidden 4096, 32 heads, 8 kv
// heads, head_dim 128, intermediate 14336, bf16, 8 cores, tp 8) generated in-process by
// size_layer + emit_layer, placed in simulated DDR, and run timing-only with every engine of
// every core started at once. Each iteration decodes the streams again (cache_streams off:
// the first run of new buffers, what `tilefw run` does). The runtime's validation of the
// streams (rt::submit) is not part of this figure; `tilefw run --report`'s
// sim_commands_per_second includes it. Baseline in the same run: the cmd walker over the
// same streams (decoding only, the floor any simulator pays).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "llama3_8b_shape.hpp"
#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/gen/generator.hpp"

using namespace tilefw;
using namespace tilefw::gen;
namespace sg = tilefw::chip::sg2260;
namespace sim = tilefw::port::host::sg2260;

namespace {

using bench::llama3_8b;

InferenceConfig request(int64_t which) {
  InferenceConfig in;
  if (which == 0) {  // prefill 2048 (8 passes of 256 tokens)
    in.phase = Phase::prefill;
    in.batch = 1;
    in.seq = 2048;
  } else {  // decode batch 16 over 2048 cached positions
    in.phase = Phase::decode;
    in.batch = 16;
    in.seq = 1;
    in.kv_len = 2048;
  }
  return in;
}

struct Layer {
  SizedLayer plan;
  std::vector<uint8_t> bytes;  // every stream back to back
  uint64_t offset[kMaxCores][kEngines] = {};
  uint64_t commands = 0;
};

bool generate(int64_t which, Layer& l) {
  GenError err;
  if (size_layer(llama3_8b(), request(which), ParallelConfig{8, 0}, l.plan, err) != Status::ok) return false;
  uint64_t total = 0;
  for (uint32_t c = 0; c < l.plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      l.offset[c][e] = total;
      total += (l.plan.stream_bytes[c][e] + 255) / 256 * 256;
      l.commands += l.plan.stream_commands[c][e];
    }
  }
  l.bytes.assign(total, 0);
  StreamBuffers buffers;
  for (uint32_t c = 0; c < l.plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      buffers.stream[c][e] = ByteSpan(l.bytes.data() + l.offset[c][e], l.plan.stream_bytes[c][e]);
    }
  }
  return emit_layer(l.plan, buffers, err) == Status::ok;
}

void BM_SimGeneratedLayer(benchmark::State& state) {
  static Layer l;  // ~12 MB of streams; generated once per request
  l = Layer{};
  if (!generate(state.range(0), l)) {
    state.SkipWithError("size_layer / emit_layer failed");
    return;
  }
  port::host::Machine machine(port::host::kProfileSg2260);
  // The layer's DDR is declared, never touched in timing-only runs (no data moves).
  if (machine.add_region(sg::ddr_region(1, 0, l.plan.memory.coeff_bytes)) != Status::ok ||
      machine.add_region(sg::ddr_region(2, 0, l.plan.memory.neuron_bytes)) != Status::ok ||
      machine.add_region(sg::ddr_region(29, 0, l.bytes.size())) != Status::ok) {
    state.SkipWithError("DDR regions");
    return;
  }
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
  std::copy(l.bytes.begin(), l.bytes.end(), machine.translate(base, l.bytes.size()).value());
  sim::SimOptions o;
  o.functional = false;
  o.cache_streams = false;
  sim::Simulator s(machine, o);
  uint64_t cycles = 0;
  for (auto _ : state) {
    const uint64_t begin = s.now();
    for (uint32_t c = 0; c < l.plan.parallel.cores; ++c) {
      for (uint32_t e = 0; e < kEngines; ++e) {
        s.start(c, e, base + l.offset[c][e], l.plan.stream_bytes[c][e]);
      }
    }
    if (s.run() != Status::ok) {
      state.SkipWithError("simulation failed");
      return;
    }
    cycles = s.core_cycles(0) - begin;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * l.commands));
  state.counters["commands_per_submission"] = static_cast<double>(l.commands);
  state.counters["simulated_cycles"] = static_cast<double>(cycles);
}

// Baseline: walking the same streams (decode only, no scheduling).
void BM_WalkGeneratedLayer(benchmark::State& state) {
  static Layer l;
  l = Layer{};
  if (!generate(state.range(0), l)) {
    state.SkipWithError("size_layer / emit_layer failed");
    return;
  }
  const cmd::Engine engines[kEngines] = {cmd::Engine::tiu, cmd::Engine::gdma, cmd::Engine::sdma};
  for (auto _ : state) {
    uint64_t n = 0;
    for (uint32_t c = 0; c < l.plan.parallel.cores; ++c) {
      for (uint32_t e = 0; e < kEngines; ++e) {
        cmd::Walker w(engines[e], ConstByteSpan(l.bytes.data() + l.offset[c][e], l.plan.stream_bytes[c][e]));
        cmd::Command cmd;
        while (w.next(cmd)) ++n;
      }
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * l.commands));
}

}  // namespace

// Arg 0: prefill 2048 (~104 K commands), arg 1: decode batch 16 at kv-len 2048 (~9 K).
BENCHMARK(BM_SimGeneratedLayer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WalkGeneratedLayer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
