// gen layer: time to generate one Llama-3-8B decoder layer's SG2260 streams (size_layer +
// emit_layer, 8 cores, tp 8) against memcpy of the same number of bytes, in the same iteration.
//
// Model: test/data/models/llama-3-8b.json filled by hand (hidden 4096, 32 heads, 8 kv heads,
// head_dim 128, intermediate 14336, bf16, silu, rms_norm_eps 1e-5). Requests: prefill of 128
// tokens, and a decode step of batch 8 over 4096 cached positions.
//
// Each iteration plans the layer (pass 1: every stream counted), emits it into buffers
// allocated once before timing (pass 2), then copies the same number of bytes with memcpy
// from one buffer to another; both sides are timed with the thread's CPU clock, so both see
// the same machine load (the benchmark machine is shared). "Time" is plan + emit (manual
// time). Counters: plan_ms, emit_ms, gen_ms, memcpy_ms per layer, ratio = gen / memcpy,
// commands and bytes of the layer, cmd_per_s and bytes_per_s of plan + emit (CPU time).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "llama3_8b_shape.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/gen/generator.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

using bench::llama3_8b;

struct Streams {
  std::vector<uint8_t> bytes;  // all streams back to back
  StreamBuffers buffers;
  uint64_t total = 0;
  uint64_t commands = 0;
};

// Sizes the buffers from a first plan, emits once and validates every core (what the tool and
// rt::submit accept), so the timed loop measures a layer known to be valid.
bool prepare(const InferenceConfig& in, Streams& s, const char*& error) {
  static SizedLayer plan;
  GenError err;
  if (size_layer(llama3_8b(), in, ParallelConfig{8, 0}, plan, err) != Status::ok) {
    std::fprintf(stderr, "bench_gen: size_layer: %s (%llu)\n", err.what, static_cast<unsigned long long>(err.value));
    error = "size_layer failed";
    return false;
  }
  s.total = 0;
  s.commands = 0;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      s.total += plan.stream_bytes[c][e];
      s.commands += plan.stream_commands[c][e];
    }
  }
  s.bytes.assign(s.total, 0);
  uint64_t off = 0;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      s.buffers.stream[c][e] = ByteSpan(s.bytes.data() + off, plan.stream_bytes[c][e]);
      off += plan.stream_bytes[c][e];
    }
  }
  if (emit_layer(plan, s.buffers, err) != Status::ok) {
    error = "emit_layer failed";
    return false;
  }
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    const cmd::ValidationReport r = cmd::validate_core(
        cmd::CoreStreams{ConstByteSpan(s.buffers.stream[c][0].data(), s.buffers.stream[c][0].size()),
                         ConstByteSpan(s.buffers.stream[c][1].data(), s.buffers.stream[c][1].size()),
                         ConstByteSpan(s.buffers.stream[c][2].data(), s.buffers.stream[c][2].size())});
    if (!r.ok()) {
      error = "emitted streams invalid";
      return false;
    }
  }
  return true;
}

void run(benchmark::State& state, const InferenceConfig& in) {
  Streams s;
  const char* error = nullptr;
  if (!prepare(in, s, error)) {
    state.SkipWithError(error);
    return;
  }
  static SizedLayer plan;
  std::vector<uint8_t> dst(s.total, 1);  // memcpy target, pages faulted in before timing
  double plan_s = 0, emit_s = 0, copy_s = 0;
  for (auto _ : state) {
    GenError err;
    const double t0 = thread_seconds();
    const Status p = size_layer(llama3_8b(), in, ParallelConfig{8, 0}, plan, err);
    const double t1 = thread_seconds();
    const Status e = emit_layer(plan, s.buffers, err);
    const double t2 = thread_seconds();
    std::memcpy(dst.data(), s.bytes.data(), s.total);
    benchmark::ClobberMemory();
    const double t3 = thread_seconds();
    if (p != Status::ok || e != Status::ok) state.SkipWithError("generation failed");
    plan_s += t1 - t0;
    emit_s += t2 - t1;
    copy_s += t3 - t2;
    state.SetIterationTime(t2 - t0);
  }
  const double n = static_cast<double>(state.iterations());
  const double gen_s = plan_s + emit_s;
  state.counters["plan_ms"] = plan_s / n * 1e3;
  state.counters["emit_ms"] = emit_s / n * 1e3;
  state.counters["gen_ms"] = gen_s / n * 1e3;
  state.counters["memcpy_ms"] = copy_s / n * 1e3;
  state.counters["ratio"] = gen_s / copy_s;
  state.counters["commands"] = static_cast<double>(s.commands);
  state.counters["bytes"] = static_cast<double>(s.total);
  state.counters["cmd_per_s"] = static_cast<double>(s.commands) * n / gen_s;
  state.counters["bytes_per_s"] = static_cast<double>(s.total) * n / gen_s;
  state.counters["memcpy_bytes_per_s"] = static_cast<double>(s.total) * n / copy_s;
}

void BM_GenLlama3_8B_Prefill128(benchmark::State& state) {
  InferenceConfig in;
  in.phase = Phase::prefill;
  in.batch = 1;
  in.seq = 128;
  in.kv_len = 0;
  run(state, in);
}
BENCHMARK(BM_GenLlama3_8B_Prefill128)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_GenLlama3_8B_DecodeB8K4096(benchmark::State& state) {
  InferenceConfig in;
  in.phase = Phase::decode;
  in.batch = 8;
  in.seq = 1;
  in.kv_len = 4096;
  run(state, in);
}
BENCHMARK(BM_GenLlama3_8B_DecodeB8K4096)->Unit(benchmark::kMillisecond)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
