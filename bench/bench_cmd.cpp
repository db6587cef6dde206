// cmd layer throughput: walk + validate a 64 MiB synthetic TIU stream (sAR cast from the
// sg2260-mm0 buffer, long-form AR, SYS send; dependencies disabled) against memcpy of the same
// bytes. The mix averages 69 B per command so 64 MiB stays under the 2^20 - 1 command limit.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
// mm0.BD.0 command #3 (sAR cast, 64 B) with its dep cleared.
std::vector<uint8_t> make_stream(size_t bytes) {
  static const uint8_t sar[64] = {0x01, 0, 0, 0, 0, 0xc6, 0xa1, 0, 0x11, 0x10, 0x80, 0, 0x01, 0, 0x22, 0,
                                  0x01, 0, 0x02, 0, 0, 0, 0x02, 0};
  std::vector<uint8_t> buf(bytes);
  CommandBuilder b(Engine::tiu, ByteSpan(buf.data(), buf.size()));
  while (b.size() + 64 + 128 + 16 + 16 <= bytes) {
    if (b.append_copy(ConstByteSpan(sar, 64)) != Status::ok) break;
    if (!b.append(CmdClass::AR, 2).ok()) break;
    if (b.send_msg(24, 24) != Status::ok) break;
  }
  if (b.end() != Status::ok) std::abort();
  return buf;
}

const std::vector<uint8_t>& stream() {
  static const std::vector<uint8_t> s = make_stream(size_t{64} << 20);
  return s;
}

void BM_ValidateStream(benchmark::State& state) {
  const auto& s = stream();
  for (auto _ : state) {
    const ValidationReport r = validate_stream(Engine::tiu, ConstByteSpan(s.data(), s.size()));
    benchmark::DoNotOptimize(r.commands);
    if (!r.ok()) state.SkipWithError("stream invalid");
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(s.size()));
}
BENCHMARK(BM_ValidateStream)->Unit(benchmark::kMillisecond);

void BM_WalkOnly(benchmark::State& state) {
  const auto& s = stream();
  for (auto _ : state) {
    Walker w(Engine::tiu, ConstByteSpan(s.data(), s.size()));
    Command c;
    while (w.next(c)) {
    }
    benchmark::DoNotOptimize(w.count());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(s.size()));
}
BENCHMARK(BM_WalkOnly)->Unit(benchmark::kMillisecond);

void BM_MemcpyBaseline(benchmark::State& state) {
  const auto& s = stream();
  std::vector<uint8_t> dst(s.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), s.data(), s.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(s.size()));
}
BENCHMARK(BM_MemcpyBaseline)->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
