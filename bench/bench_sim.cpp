// SG2260 simulator throughput: simulated commands per second on synthetic 8-core programs
// (per core a GDMA stream of tensor loads and a TIU stream of sMM2, each waiting on the other
// engine: a software pipeline), timing-only and functional. One iteration = one submission
// of all 16 streams (start + run to completion); streams are limited to 2^20 - 1 commands,
// so large totals come from many submissions. Baseline in the same run: the cmd walker over
// the same streams (decoding only), the floor any simulator pays.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;
namespace sg = tilefw::chip::sg2260;
namespace sim = tilefw::port::host::sg2260;

namespace {
constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;

struct Program {
  std::vector<uint8_t> tiu, gdma;
  uint32_t commands = 0;  // per core, both engines
};

// `pairs` (load, matmul) pairs; the load of pair i waits for matmul i-1 (buffer reuse).
Program make_program(uint32_t core, uint32_t pairs) {
  Program p;
  p.tiu.resize(size_t{pairs} * 32 + 16);
  p.gdma.resize(size_t{pairs} * 96 + 16);
  CommandBuilder t(Engine::tiu, ByteSpan(p.tiu.data(), p.tiu.size()));
  CommandBuilder g(Engine::gdma, ByteSpan(p.gdma.data(), p.gdma.size()));
  const uint64_t src = sg::make_dma_address(1, uint64_t{core} * 4096);
  for (uint32_t i = 0; i < pairs; ++i) {
    DmaTensorRef d(g.append(CmdClass::dma_tensor, 0).value());
    d.set_src_data_format(1);
    d.set_nchw_copy(1);
    d.set_cmd_id_dep(i == 0 ? 0 : CommandBuilder::dep_on(i));
    d.set_src_nsize(1); d.set_src_csize(16); d.set_src_hsize(1); d.set_src_wsize(34);
    d.set_src_cstride(34); d.set_src_hstride(34); d.set_src_wstride(1);
    d.set_dst_hstride(34); d.set_dst_wstride(1);
    d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
    const uint64_t dst = kLmem | 0x4000;
    d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
    d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
    SMm2Ref mm(t.append(CmdClass::sMM2, 4).value());
    mm.set_cmd_id_dep(CommandBuilder::dep_on(i + 1));
    mm.set_res0_c(4); mm.set_res0_w(34); mm.set_opd1_c(16); mm.set_opd1_w(34);
    mm.set_opt_res0_prec(1); mm.set_opt_opd0_prec(1); mm.set_opt_opd1_prec(1); mm.set_opt_opd2_const(1);
    mm.set_res0_addr(0x8000); mm.set_opd0_addr(0); mm.set_opd1_addr(0x4000);
  }
  if (t.end() != Status::ok || g.end() != Status::ok) std::abort();
  p.tiu.resize(t.size());
  p.gdma.resize(g.size());
  p.commands = t.count() + g.count();
  return p;
}

void run_sim(benchmark::State& state, bool functional, bool cold = false) {
  const uint32_t pairs = static_cast<uint32_t>(state.range(0));
  port::host::Machine machine(port::host::kProfileSg2260);
  if (machine.add_region(sg::ddr_region(1, 0, 65536)) != Status::ok) std::abort();
  const uint64_t stream_bytes = uint64_t{pairs} * 128 + 64;
  if (machine.add_region(sg::ddr_region(29, 0, 16 * stream_bytes + 4096)) != Status::ok) std::abort();
  sim::SimOptions o;
  o.functional = functional;
  o.cache_streams = !cold;
  sim::Simulator s(machine, o);
  uint64_t addr[sg::kCores][2];
  uint64_t bytes[sg::kCores][2];
  uint64_t commands = 0;
  uint64_t off = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
  for (uint32_t c = 0; c < sg::kCores; ++c) {
    const Program p = make_program(c, pairs);
    const std::vector<uint8_t>* v[2] = {&p.tiu, &p.gdma};
    for (int e = 0; e < 2; ++e) {
      std::copy(v[e]->begin(), v[e]->end(), machine.translate(off, v[e]->size()).value());
      addr[c][e] = off;
      bytes[c][e] = v[e]->size();
      off += (v[e]->size() + 255) / 256 * 256;
    }
    commands += p.commands;
  }
  uint64_t cycles = 0;
  for (auto _ : state) {
    const uint64_t begin = s.now();
    for (uint32_t c = 0; c < sg::kCores; ++c) {
      for (uint32_t e = 0; e < 2; ++e) s.start(c, e, addr[c][e], bytes[c][e]);
    }
    if (s.run() != Status::ok) std::abort();
    cycles = s.core_cycles(0) - begin;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * commands));
  state.counters["commands_per_submission"] = static_cast<double>(commands);
  state.counters["simulated_cycles"] = static_cast<double>(cycles);
}

// Resubmitting unchanged streams (a model run many times) reuses their decoded form.
void BM_SimTimingOnly(benchmark::State& state) { run_sim(state, false); }
// Every submission decodes its streams again (first run of new buffers).
void BM_SimTimingOnlyCold(benchmark::State& state) { run_sim(state, false, true); }
void BM_SimFunctional(benchmark::State& state) { run_sim(state, true); }

// Baseline: walking the same 16 streams (decode only, no scheduling).
void BM_WalkOnly(benchmark::State& state) {
  const uint32_t pairs = static_cast<uint32_t>(state.range(0));
  std::vector<Program> ps;
  uint64_t commands = 0;
  for (uint32_t c = 0; c < sg::kCores; ++c) {
    ps.push_back(make_program(c, pairs));
    commands += ps.back().commands;
  }
  for (auto _ : state) {
    uint64_t n = 0;
    for (const Program& p : ps) {
      for (int e = 0; e < 2; ++e) {
        const std::vector<uint8_t>& v = e == 0 ? p.tiu : p.gdma;
        Walker w(e == 0 ? Engine::tiu : Engine::gdma, ConstByteSpan(v.data(), v.size()));
        Command cmd;
        while (w.next(cmd)) ++n;
      }
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * commands));
}
}  // namespace

// 8 cores x (2 x 100000 + 2) commands = 1.6 M commands per submission (streams well under
// the 2^20 - 1 limit); functional runs move the data of every command.
BENCHMARK(BM_SimTimingOnly)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimTimingOnlyCold)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimFunctional)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WalkOnly)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
