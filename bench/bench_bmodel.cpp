// .bmodel throughput (the .bmodel reader's speed): reading YOLOv5s (test/data/sg2260-tdb, 13.6 k
// commands in 32 streams) against memcpy of the same stream bytes in the same run:
//   memcpy    copy every stream's bytes once (the floor of any pass over them)
//   parse     tools::parse_bmodel: header + FlatBuffer walk, every offset checked
//   decode    parse + walk every stream (cmd::Walker, cmd::HauWalker)
//   validate  parse + validate_core of every core (each stream, dependencies, TIU/GDMA dry run)
//             + the HAU walk: what `tilefw validate model.bmodel` does
//   timing    the timing-only simulation of the 32 streams on the 8-core simulator (timing
//             model v2, no data): decode, schedule, barriers, shared DDR/L2 bandwidth
//             (counter `sim_cmds_per_s`); what `tilefw run --bmodel --timing-only` runs after
//             reading and validating
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "formats/bmodel.hpp"
#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
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
// The streams placed in DDR tag 29 of a fresh machine, started directly on the engines (the
// doorbell path without the runtime's polling), run to the end in timing-only mode.
void BM_timing(benchmark::State& st) {
  namespace sg = chip::sg2260;
  namespace sim = port::host::sg2260;
  const tools::Bmodel m = parse();
  uint64_t commands = 0, cycles = 0;
  for (auto _ : st) {
    port::host::Machine machine{port::host::kProfileSg2260};
    if (machine.add_region(sg::ddr_region(29, 0, 4 << 20)) != Status::ok) std::abort();
    sim::SimOptions o;
    o.functional = false;
    sim::Simulator simulator(machine, o);
    uint64_t off = 0;
    for (size_t core = 0; core < m.cores.size(); ++core) {
      const tools::BmodelStream* s[4] = {&m.cores[core].tiu, &m.cores[core].gdma, &m.cores[core].sdma, &m.cores[core].hau};
      for (uint32_t e = 0; e < 4; ++e) {
        if (!s[e]->present()) continue;
        const uint64_t at = sg::kDdrWindowBase + sg::make_dma_address(29, off);
        std::memcpy(machine.translate(at, s[e]->bytes.size()).value(), s[e]->bytes.data(), s[e]->bytes.size());
        simulator.start(static_cast<uint32_t>(core), e, at, s[e]->bytes.size());
        off += (s[e]->bytes.size() + 255) / 256 * 256;
      }
    }
    if (simulator.run() != Status::ok) std::abort();
    commands = simulator.commands_executed();
    cycles = simulator.now();
  }
  st.counters["commands"] = static_cast<double>(commands);
  st.counters["cycles"] = static_cast<double>(cycles);
  st.counters["sim_cmds_per_s"] =
      benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsIterationInvariantRate);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * stream_bytes(m)));
}
}  // namespace

BENCHMARK(BM_memcpy);
BENCHMARK(BM_parse);
BENCHMARK(BM_decode);
BENCHMARK(BM_validate);
BENCHMARK(BM_timing);
BENCHMARK_MAIN();
