// The multi-chip simulator (port/host/sg2260/system.hpp), timing-only: a ring all-reduce of
// 64 MB per chip over 8 chips (simulated time against the analytic ring bound
// 2(N-1)/N x B / bw + 2(N-1) alpha), and simulator speed in simulated CDMA commands per second
// on 8-chip ring streams of small transfers. One iteration = start every port's stream and
// run to completion (the System is built once).
#include <benchmark/benchmark.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "machine.hpp"
#include "sg2260/system.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/cdma.hpp"

using namespace tilefw;
namespace sg = tilefw::chip::sg2260;
namespace sim = tilefw::port::host::sg2260;

namespace {

constexpr uint32_t kChips = 8;
uint64_t ddr1(uint64_t off) { return sg::make_dma_address(1, off); }

struct Streams {
  std::unique_ptr<sim::System> system;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> bytes;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> place;
  uint64_t commands = 0;

  Streams() {
    sim::SystemOptions o;
    o.chips = kChips;
    o.topology = "ring:8";
    o.sim.functional = false;
    o.ddr = {sg::ddr_region(1, 0, 64u << 20)};
    system = std::make_unique<sim::System>(o);
  }
  cmd::CommandBuilder builder(uint32_t chip, uint32_t peer, size_t cap) {
    auto& b = bytes[{chip, peer}];
    b.assign(cap, 0);
    return cmd::CommandBuilder(cmd::Engine::cdma, ByteSpan(b.data(), b.size()));
  }
  void load() {
    uint64_t off = 0;
    for (auto& [key, b] : bytes) {
      std::memcpy(system->machine(key.first).translate(sg::kDdrWindowBase + ddr1(off), b.size()).value(), b.data(),
                  b.size());
      place[key] = off;
      off += (b.size() + 4095) / 4096 * 4096;
    }
  }
  void start() {
    for (auto& [key, b] : bytes) {
      system->start_cdma(key.first, key.second, sg::kDdrWindowBase + ddr1(place[key]), b.size());
    }
  }
};

cmd::CdmaTensor flat(uint64_t off, uint32_t elements) {
  cmd::CdmaTensor t;
  t.addr = ddr1(off);
  t.w = elements;
  t.nstride = t.cstride = t.hstride = elements;
  return t;
}

// Ring all-reduce: 2(N-1) steps of B/N bytes (the schedule of test_cdma_collectives.cpp).
void BM_RingAllReduce64MB(benchmark::State& state) {
  const uint64_t bytes = 64ull << 20;
  const uint32_t chunk = static_cast<uint32_t>(bytes / kChips / 4);
  Streams s;
  for (uint32_t i = 0; i < kChips; ++i) {
    const uint32_t next = (i + 1) % kChips;
    const uint32_t prev = (i + kChips - 1) % kChips;
    cmd::CommandBuilder tx = s.builder(i, next, 4096);
    cmd::CommandBuilder rx = s.builder(i, prev, 4096);
    for (uint32_t step = 0; step < 2 * (kChips - 1); ++step) {
      const bool rs = step < kChips - 1;
      if (step > 0) (void)cmd::cdma_msg(tx, cmd::CdmaSysOp::tx_wait, 100 + step - 1, 1);
      (void)cmd::cdma_send(tx, flat(0x100000, chunk), rs);
      (void)cmd::cdma_recv(rx, flat(0x200000, chunk), rs ? cmd::kCdmaReduceAdd : 0);
      (void)cmd::cdma_msg(rx, cmd::CdmaSysOp::rx_send, 100 + step, 1);
    }
    (void)tx.end();
    (void)rx.end();
  }
  s.load();
  uint64_t cycles = 0;
  for (auto _ : state) {
    const uint64_t t0 = s.system->now();
    s.start();
    if (s.system->run() != Status::ok) state.SkipWithError("run failed");
    cycles = 0;
    for (uint32_t k = 0; k < kChips; ++k) cycles = std::max(cycles, s.system->chip_stats(k).cycles - t0);
  }
  const double bw = s.system->c2c().link_gbytes_per_s;  // bytes per cycle at 1 GHz
  const double bound = 2.0 * (kChips - 1) / kChips * static_cast<double>(bytes) / bw + 2.0 * (kChips - 1) * 250.0;
  state.counters["sim_cycles"] = static_cast<double>(cycles);
  state.counters["ring_bound_cycles"] = bound;
  state.counters["sim_over_bound"] = static_cast<double>(cycles) / bound;
}
BENCHMARK(BM_RingAllReduce64MB)->Unit(benchmark::kMicrosecond);

// Simulator speed: each chip sends `n` small transfers to the next chip and receives `n` from
// the previous one; with `msgs`, every recv signals a message the next send waits for (the
// all-reduce pattern), so half the commands are sys.
void BM_CdmaCommands(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  const bool msgs = state.range(1) != 0;
  Streams s;
  for (uint32_t i = 0; i < kChips; ++i) {
    const uint32_t next = (i + 1) % kChips;
    const uint32_t prev = (i + kChips - 1) % kChips;
    cmd::CommandBuilder tx = s.builder(i, next, size_t{n} * 48 + 64);
    cmd::CommandBuilder rx = s.builder(i, prev, size_t{n} * 48 + 64);
    for (uint32_t k = 0; k < n; ++k) {
      if (msgs && k > 0) (void)cmd::cdma_msg(tx, cmd::CdmaSysOp::tx_wait, (k - 1) % 512, 1);
      (void)cmd::cdma_send(tx, flat(0x100000, 64), false);
      (void)cmd::cdma_recv(rx, flat(0x200000, 64), 0);
      if (msgs) (void)cmd::cdma_msg(rx, cmd::CdmaSysOp::rx_send, k % 512, 1);
    }
    (void)tx.end();
    (void)rx.end();
  }
  s.load();
  uint64_t before = s.system->cdma_commands_executed();
  for (auto _ : state) {
    s.start();
    if (s.system->run() != Status::ok) {
      state.SkipWithError(("run failed: " + s.system->blocked_report().substr(0, 400)).c_str());
      break;
    }
  }
  const uint64_t done = s.system->cdma_commands_executed() - before;
  state.counters["sim_commands_per_s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["commands_per_iteration"] = static_cast<double>(done) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_CdmaCommands)->Args({20000, 0})->Args({20000, 1})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
