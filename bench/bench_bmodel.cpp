// .bmodel throughput (issue 14 item 5): reading YOLOv5s (test/data/sg2260-tdb, 13.6 k
// commands in 32 streams) against memcpy of the same stream bytes in the same run:
//   memcpy    copy every stream's bytes once (the floor of any pass over them)
//   parse     tools::parse_bmodel: header + FlatBuffer walk, every offset checked
//   decode    parse + walk every stream (cmd::Walker, cmd::HauWalker)
//   validate  parse + validate_core of every core (each stream, dependencies, TIU/GDMA dry run)
//             + the HAU walk: what `tilefw validate model.bmodel` does
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bmodel.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;

namespace {
const std::vector<uint8_t>& model_bytes() {
  static const std::vector<uint8_t> b = [] {
    std::ifstream f(std::string(TILEFW_TDB_DIR) + "/yolov5s_bm1690_f16_core8.bmodel", std::ios::binary);
    std::vector<uint8_t> v((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (v.empty()) {
      std::fprintf(stderr, "bench_bmodel: cannot read the YOLOv5s model\n");
      std::abort();
    }
    return v;
  }();
  return b;
}

tools::Bmodel parse() {
  tools::Bmodel m;
  std::string err;
  const std::vector<uint8_t>& b = model_bytes();
  if (!tools::parse_bmodel(ConstByteSpan(b.data(), b.size()), m, err)) std::abort();
  return m;
}

size_t stream_bytes(const tools::Bmodel& m) {
  size_t n = 0;
  for (const tools::BmodelUnit& u : tools::bmodel_units(m)) n += u.stream.bytes.size();
  return n;
}

void BM_memcpy(benchmark::State& st) {
  const tools::Bmodel m = parse();
  std::vector<uint8_t> dst(stream_bytes(m));
  for (auto _ : st) {
    size_t off = 0;
    for (const tools::BmodelUnit& u : tools::bmodel_units(m)) {
      std::memcpy(dst.data() + off, u.stream.bytes.data(), u.stream.bytes.size());
      off += u.stream.bytes.size();
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * dst.size()));
}

void BM_parse(benchmark::State& st) {
  const std::vector<uint8_t>& b = model_bytes();
  for (auto _ : st) {
    tools::Bmodel m;
    std::string err;
    benchmark::DoNotOptimize(tools::parse_bmodel(ConstByteSpan(b.data(), b.size()), m, err));
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * stream_bytes(parse())));
}

uint64_t walk_all(const tools::Bmodel& m) {
  uint64_t n = 0;
  for (const tools::BmodelUnit& u : tools::bmodel_units(m)) {
    const std::string e = u.engine;
    if (e == "hau") {
      cmd::HauWalker w(u.stream.bytes);
      cmd::HauCommand c;
      while (w.next(c)) ++n;
      continue;
    }
    cmd::Walker w(e == "tiu" ? cmd::Engine::tiu : e == "gdma" ? cmd::Engine::gdma : cmd::Engine::sdma, u.stream.bytes);
    cmd::Command c;
    while (w.next(c)) ++n;
  }
  return n;
}

void BM_decode(benchmark::State& st) {
  uint64_t commands = 0;
  for (auto _ : st) {
    commands = walk_all(parse());
    benchmark::DoNotOptimize(commands);
  }
  st.counters["commands"] = static_cast<double>(commands);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * stream_bytes(parse())));
}

void BM_validate(benchmark::State& st) {
  for (auto _ : st) {
    const tools::Bmodel m = parse();
    for (const tools::BmodelCore& c : m.cores) {
      const cmd::ValidationReport r = cmd::validate_core({c.tiu.bytes, c.gdma.bytes, c.sdma.bytes});
      if (!r.ok()) std::abort();
      cmd::HauWalker w(c.hau.bytes);
      cmd::HauCommand h;
      while (w.next(h)) {
      }
    }
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * stream_bytes(parse())));
}
}  // namespace

BENCHMARK(BM_memcpy);
BENCHMARK(BM_parse);
BENCHMARK(BM_decode);
BENCHMARK(BM_validate);
BENCHMARK_MAIN();
