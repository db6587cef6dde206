// The SG2260 simulator behind the runtime (host only): timing models v1 and v2 checked against
// a hand computation on a synthetic MM2 + DMA program, v2's MM2 costs and its shared DDR and L2
// bandwidth by hand, results independent of the order among ready engines, AR/cast semantics,
// fault injection (error, hang, late completion), deadlock, unsupported classes, and the trace
// exports. Tests that pin v1 figures ask for v1 explicitly (the default is v2).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "sg2260/sim.hpp"
#include "sg2260/trace.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/rt/runtime.hpp"

namespace {

using tilefw::ByteSpan;
using tilefw::ConstByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
using cmd::CmdClass;
namespace rt = tilefw::rt;
namespace sg = tilefw::chip::sg2260;
namespace regs = tilefw::chip::sg2260::regs;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;

constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
uint64_t ddr1(uint64_t off) { return sg::make_dma_address(1, off); }

sim::SimOptions v1_options() {
  sim::SimOptions o;
  o.timing = sim::TimingModel::v1;
  return o;
}

// A machine with DDR tag 1 (data, 64 KiB) and tag 29 (command streams), a simulator (timing
// model v1 unless the options say otherwise), and a runtime that submits core 0's streams
// through the engine registers.
struct Rig {
  host::Machine machine{host::kProfileSg2260};
  host::ScopedMachine scope{machine};
  sim::Simulator sim;
  std::vector<uint8_t> tiu = std::vector<uint8_t>(4096), gdma = std::vector<uint8_t>(4096);
  cmd::CommandBuilder t{cmd::Engine::tiu, ByteSpan(tiu.data(), tiu.size())};
  cmd::CommandBuilder g{cmd::Engine::gdma, ByteSpan(gdma.data(), gdma.size())};

  explicit Rig(sim::SimOptions o = v1_options()) : sim(machine, o) {
    EXPECT_EQ(machine.add_region(sg::ddr_region(1, 0, 65536)), Status::ok);
    EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok);
  }
  uint8_t* ddr(uint64_t off) { return machine.translate(sg::kDdrWindowBase + ddr1(off), 1).value(); }
  uint8_t* lmem(uint32_t lane, uint32_t off) {
    return machine.translate(sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off, 1).value();
  }
  rt::CoreSubmission submission() {
    const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
    EXPECT_EQ(tilefw::port::copy_to_device(base, tiu.data(), t.size()), Status::ok);
    EXPECT_EQ(tilefw::port::copy_to_device(base + 8192, gdma.data(), g.size()), Status::ok);
    rt::CoreSubmission s;
    s.tiu = rt::EngineStream{base, ConstByteSpan(machine.translate(base, t.size()).value(), t.size())};
    s.gdma = rt::EngineStream{base + 8192, ConstByteSpan(machine.translate(base + 8192, g.size()).value(), g.size())};
    return s;
  }
  Status run(rt::Runtime& r) {
    const Status s = r.submit(submission());
    return s != Status::ok ? s : r.wait();
  }
};

// Tensor move c x w elements (w contiguous; on LMEM c over lanes from lane 0), fmt 1 f16 / 2 f32.
void tensor(cmd::CommandBuilder& g, uint64_t src, uint64_t dst, uint32_t c, uint32_t w, uint32_t fmt,
            uint32_t dep) {
  cmd::DmaTensorRef d(g.append(CmdClass::dma_tensor, 0).value());
  d.set_src_data_format(fmt);
  d.set_nchw_copy(1);
  d.set_cmd_id_dep(dep);
  d.set_src_nsize(1); d.set_src_csize(c); d.set_src_hsize(1); d.set_src_wsize(w);
  const bool src_l = sg::dma_tag(src) == sg::kTagLmem, dst_l = sg::dma_tag(dst) == sg::kTagLmem;
  d.set_src_cstride(src_l ? 0 : w); d.set_src_hstride(w); d.set_src_wstride(1);
  d.set_dst_cstride(dst_l ? 0 : w); d.set_dst_hstride(w); d.set_dst_wstride(1);
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
}

// The synthetic program: W (4x16 f16, ones) and Y (16x34 f16) DDR -> LMEM, MM2 nn, cast the
// f16 result to f32 (res0 in opd0's bank), store to DDR.
void build_program(Rig& r) {
  tensor(r.g, ddr1(0), kLmem | 0x0000, 4, 16, 1, 0);              // GDMA 1: W
  tensor(r.g, ddr1(0x100), kLmem | 0x4000, 16, 34, 1, 0);         // GDMA 2: Y
  cmd::SMm2Ref mm(r.t.append(CmdClass::sMM2, 4).value());          // TIU 1
  mm.set_cmd_id_dep(cmd::CommandBuilder::dep_on(2));
  mm.set_res0_c(4); mm.set_res0_w(34); mm.set_opd1_c(16); mm.set_opd1_w(34);
  mm.set_opt_res0_prec(1); mm.set_opt_opd0_prec(1); mm.set_opt_opd1_prec(1);
  mm.set_opt_opd2_const(1);
  mm.set_res0_addr(0x8000); mm.set_opd0_addr(0x0000); mm.set_opd1_addr(0x4000);
  cmd::SArRef ar(r.t.append(CmdClass::sAR, 14).value());           // TIU 2: cast f16 -> f32
  ar.set_res0_n(1); ar.set_res0_c(4); ar.set_res0_h(1); ar.set_res0_w(34);
  ar.set_opt_res0_prec(2); ar.set_opt_opd0_prec(1); ar.set_tsk_opd_num(1);
  ar.set_res0_addr(0x8100); ar.set_opd0_addr(0x8000);
  ASSERT_EQ(r.t.end(), Status::ok);                                 // TIU 3
  tensor(r.g, kLmem | 0x8100, ddr1(0x1000), 4, 34, 2, cmd::CommandBuilder::dep_on(2));  // GDMA 3
  ASSERT_EQ(r.g.end(), Status::ok);                                 // GDMA 4
  for (uint32_t i = 0; i < 64; ++i) {
    const uint16_t one = 0x3C00;
    std::memcpy(r.ddr(2 * i), &one, 2);
  }
  for (uint32_t k = 0; k < 16; ++k) {
    for (uint32_t j = 0; j < 34; ++j) {
      const float y = (static_cast<float>(k) - 8.0f) * 0.25f + static_cast<float>(j) * 0.125f;
      const uint16_t h = tilefw::float_bits_to_half_bits(std::bit_cast<uint32_t>(y));
      std::memcpy(r.ddr(0x100 + 2 * (k * 34 + j)), &h, 2);
    }
  }
}

void expect_program_result(Rig& r) {
  for (uint32_t i = 0; i < 4; ++i) {
    for (uint32_t j = 0; j < 34; ++j) {
      float v;
      std::memcpy(&v, r.ddr(0x1000 + 4 * (i * 34 + j)), 4);
      ASSERT_EQ(v, -2.0f + 2.0f * static_cast<float>(j)) << i << "," << j;
    }
  }
}

TEST(SimSg2260, TimingModelV1ByHand) {
  sim::SimOptions o = v1_options();
  o.trace = true;
  Rig r(o);
  build_program(r);
  rt::Runtime runtime;
  ASSERT_EQ(r.run(runtime), Status::ok);
  expect_program_result(r);
  // By hand (timing model v1, docs/sg2260-commands.md section 12), 1 GHz, 64 lanes, eu f16 32 /
  // f32 16:
  //  GDMA 1: 4x16 f16 = 128 B DDR->LMEM: 100 + ceil(128/68) = 102           [0, 102]
  //  GDMA 2: 16x34 f16 = 1088 B: 100 + ceil(1088/68) = 116                   [102, 218]
  //  TIU 1: MM2 nn waits for 2 GDMA: ceil(4/64)*ceil(34/32)*ceil(16/32) + 44 = 46, banks
  //         res0 2 / opd0 0 / opd1 1: no conflict                           [218, 264]
  //  TIU 2: cast f16->f32, eu 16: 1*ceil(4/64)*ceil(34/16) + 10 = 13, + 1 for opd0 in
  //         res0's bank 2                                                    [264, 278]
  //  TIU 3: end, 1                                                           [278, 279]
  //  GDMA 3: waits for TIU 2; 4x34 f32 = 544 B LMEM->DDR: 100 + 8 = 108      [278, 386]
  //  GDMA 4: chain_end, 1                                                    [386, 387]
  const std::vector<sim::TraceRecord>& tr = r.sim.trace();
  ASSERT_EQ(tr.size(), 7u);
  auto find = [&](uint32_t engine, uint32_t id) {
    for (const sim::TraceRecord& x : tr) {
      if (x.engine == engine && x.id == id) return x;
    }
    return sim::TraceRecord{};
  };
  const uint64_t expect[][4] = {{1, 1, 0, 102}, {1, 2, 102, 218}, {0, 1, 218, 264}, {0, 2, 264, 278},
                                {0, 3, 278, 279}, {1, 3, 278, 386}, {1, 4, 386, 387}};
  for (const auto& e : expect) {
    const sim::TraceRecord x = find(static_cast<uint32_t>(e[0]), static_cast<uint32_t>(e[1]));
    EXPECT_EQ(x.start, e[2]) << "engine " << e[0] << " id " << e[1];
    EXPECT_EQ(x.end, e[3]) << "engine " << e[0] << " id " << e[1];
  }
  EXPECT_EQ(r.sim.core_cycles(0), 387u);
  EXPECT_EQ(find(0, 1).ops, 4u * 34 * 16);
  EXPECT_EQ(find(1, 3).bytes, 544u);
  EXPECT_EQ(r.machine.read32(regs::engine_reg(0, 1, regs::kCycleLo)), 387u);
  // Trace exports: one X event / one rectangle per command.
  const std::string json = sim::chrome_trace_json(tr);
  size_t xs = 0;
  for (size_t p = json.find("\"ph\":\"X\""); p != std::string::npos; p = json.find("\"ph\":\"X\"", p + 1)) ++xs;
  EXPECT_EQ(xs, 7u);
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"sMM2 #1\""), std::string::npos);
  const std::string svg = sim::svg_gantt(tr);
  size_t rects = 0;  // command rectangles carry a title; the legend's three do not
  for (size_t p = svg.find("</title></rect>"); p != std::string::npos; p = svg.find("</title></rect>", p + 1)) ++rects;
  EXPECT_EQ(rects, 7u);
  EXPECT_NE(svg.find(">cycles</text>"), std::string::npos);  // the time axis
  EXPECT_EQ(svg.rfind("</svg>"), svg.size() - 7);
  EXPECT_NE(sim::utilisation_summary(r.sim, 387).find("core 0 gdma:      4 commands"), std::string::npos);
}

TEST(SimSg2260, ResultsDoNotDependOnTheOrderAmongReadyEngines) {
  for (int policy = 0; policy < 6; ++policy) {
    sim::SimOptions o = v1_options();
    o.tie.kind = policy == 0 ? sim::TiePolicy::core_major : policy == 1 ? sim::TiePolicy::reverse : sim::TiePolicy::random;
    o.tie.seed = static_cast<uint64_t>(policy) * 7919u + 1;
    Rig r(o);
    build_program(r);
    rt::Runtime runtime;
    ASSERT_EQ(r.run(runtime), Status::ok);
    expect_program_result(r);
    EXPECT_EQ(r.sim.core_cycles(0), 387u);
  }
}

TEST(SimSg2260, TimingModelV2ByHand) {
  for (int policy = 0; policy < 3; ++policy) {
    sim::SimOptions o;  // v2, the default
    EXPECT_EQ(o.timing, sim::TimingModel::v2);
    o.trace = true;
    o.tie.kind = policy == 0 ? sim::TiePolicy::core_major : policy == 1 ? sim::TiePolicy::reverse : sim::TiePolicy::random;
    Rig r(o);
    build_program(r);
    rt::Runtime runtime;
    ASSERT_EQ(r.run(runtime), Status::ok);
    expect_program_result(r);
    // By hand (chip profile timing_v2), one core alone: every DMA as in v1 (no sharing)
    //  GDMA 1: 100 + ceil(128/68) = 102                                       [0, 102]
    //  GDMA 2: 100 + ceil(1088/68) = 116                                      [102, 218]
    //  TIU 1: MM2 nn f16, M 4 N 34 K 16, 32 x 4 per cycle:
    //         ceil(4/64)*ceil(34/32)*ceil(16/4) + 44 = 1*2*4 + 44 = 52          [218, 270]
    //  TIU 2: cast, as v1: 13 + 1 bank conflict = 14                          [270, 284]
    //  TIU 3: end                                                             [284, 285]
    //  GDMA 3: 544 B LMEM->DDR: 100 + ceil(544/68) = 108                      [284, 392]
    //  GDMA 4: chain_end                                                      [392, 393]
    const std::vector<sim::TraceRecord>& tr = r.sim.trace();
    ASSERT_EQ(tr.size(), 7u);
    const uint64_t expect[][4] = {{1, 1, 0, 102}, {1, 2, 102, 218}, {0, 1, 218, 270}, {0, 2, 270, 284},
                                  {0, 3, 284, 285}, {1, 3, 284, 392}, {1, 4, 392, 393}};
    for (const auto& e : expect) {
      bool found = false;
      for (const sim::TraceRecord& x : tr) {
        if (x.engine != e[0] || x.id != e[1]) continue;
        found = true;
        EXPECT_EQ(x.start, e[2]) << "engine " << e[0] << " id " << e[1];
        EXPECT_EQ(x.end, e[3]) << "engine " << e[0] << " id " << e[1];
      }
      EXPECT_TRUE(found);
    }
    EXPECT_EQ(r.sim.core_cycles(0), 393u);
  }
}

// An sMM2 (eu 4 nn, 5 nt, 6 tt) of M x N x K in precision `prec`, operands in banks 0 / 1,
// result in bank 2 (no bank conflict).
std::vector<uint8_t> mm2(uint32_t eu, uint32_t prec, uint32_t m, uint32_t n, uint32_t k) {
  std::vector<uint8_t> b(256);
  cmd::CommandBuilder t{cmd::Engine::tiu, ByteSpan(b.data(), b.size())};
  cmd::SMm2Ref mm(t.append(CmdClass::sMM2, eu).value());
  mm.set_res0_c(m); mm.set_res0_w(n);
  if (eu == 4) mm.set_opd1_c(k); else mm.set_opd1_w(k);
  if (eu == 4) mm.set_opd1_w(n); else mm.set_opd1_c(n);
  mm.set_opt_res0_prec(prec); mm.set_opt_opd0_prec(prec); mm.set_opt_opd1_prec(prec);
  mm.set_res0_addr(0x8000); mm.set_opd0_addr(0x0000); mm.set_opd1_addr(0x4000);
  return b;
}

TEST(SimSg2260, TimingModelV2Mm2NeverBeatsThePeak) {
  struct Case {
    uint32_t eu, prec, m, n, k;
    uint64_t v1, v2;  // by hand
  } cases[] = {
      // bf16 (prec 5) 64 x 32 x 32: v1 1*1*1 + 44 = 45 (65,536 MAC in 1 cycle: 8x the peak);
      // v2 1 * ceil(32/32) * ceil(32/4) + 44 = 8 + 44 = 52
      {4, 5, 64, 32, 32, 45, 52},
      // f16 (prec 1) nt 128 x 64 x 256: v2 2 * 2 * 64 + 44 = 300; v1 2 * 2 * 8 + 44 = 76
      {5, 1, 128, 64, 256, 76, 300},
      // bf16 tt 64 x 32 x 4096: v2 1 * 1 * 1024 + 47 = 1071; v1 1 * 1 * 128 + 47 = 175
      {6, 5, 64, 32, 4096, 175, 1071},
      // int8 (prec 0) 128 x 128 x 64: v2 2 * ceil(128/64) * ceil(64/4) + 44 = 2*2*16 + 44 = 108;
      // v1 2 * 2 * 1 + 44 = 48
      {4, 0, 128, 128, 64, 48, 108},
      // f32 (prec 2, assumed 16 x 2) 64 x 100 x 30 tt: v2 1 * 7 * 15 + 47 = 152; v1 1*7*2 + 47 = 61
      {6, 2, 64, 100, 30, 61, 152},
  };
  for (const Case& c : cases) {
    const std::vector<uint8_t> b = mm2(c.eu, c.prec, c.m, c.n, c.k);
    uint64_t cycles = 0, bytes = 0, ops = 0;
    EXPECT_TRUE(sim::command_cost(0, b.data(), cycles, bytes, ops, sim::TimingModel::v1));
    EXPECT_EQ(cycles, c.v1) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_TRUE(sim::command_cost(0, b.data(), cycles, bytes, ops, sim::TimingModel::v2));
    EXPECT_EQ(cycles, c.v2) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(ops, uint64_t{c.m} * c.n * c.k);
    // MAC per cycle per core never above 64 lanes x the profile's MAC per lane (the peak)
    const uint32_t mac = c.prec == 0 ? sg::kMacPerLaneInt8 : c.prec == 2 ? sg::kMacPerLaneF32 : sg::kMacPerLaneF16;
    EXPECT_LE(ops, cycles * sg::kLanes * mac) << c.m << "x" << c.n << "x" << c.k;
  }
  // The report's peak comes from the same constants: 8 x 64 x (32 x 4) x 2 x 1 GHz.
  EXPECT_EQ(sg::peak_flops("bf16"), 2.0 * sg::kCores * sg::kLanes * sg::kMm2NPerCycleF16 * sg::kMm2KPerCycleF16 * 1e9);
  EXPECT_EQ(sg::peak_flops("int8"), 2.0 * sg::kCores * sg::kLanes * sg::kMm2NPerCycleInt8 * sg::kMm2KPerCycleInt8 * 1e9);
}

// Timing-only runs of DMA streams driven straight into the simulator: per (core, engine) one
// tensor move of `bytes` (f16, one channel) and a chain end, all started at cycle 0.
struct Flows {
  host::Machine machine{host::kProfileSg2260};
  host::ScopedMachine scope{machine};
  sim::Simulator sim;
  uint64_t off = 0;
  static sim::SimOptions options(sim::TimingModel m) {
    sim::SimOptions o;
    o.timing = m;
    o.functional = false;
    o.trace = true;
    return o;
  }
  explicit Flows(sim::TimingModel m = sim::TimingModel::v2) : sim(machine, options(m)) {
    EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok);
  }
  void add(uint32_t core, uint32_t engine, uint64_t src, uint64_t dst, uint32_t bytes) {
    std::vector<uint8_t> buf(1024);
    cmd::CommandBuilder b{engine == 1 ? cmd::Engine::gdma : cmd::Engine::sdma, ByteSpan(buf.data(), buf.size())};
    tensor(b, src, dst, 1, bytes / 2, 1, 0);
    ASSERT_EQ(b.end(), Status::ok);
    const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, off);
    ASSERT_EQ(tilefw::port::copy_to_device(base, buf.data(), b.size()), Status::ok);
    sim.start(core, engine, base, b.size());
    off += 1024;
  }
  // End cycle of the move (command 1) of (core, engine).
  uint64_t end(uint32_t core, uint32_t engine) const {
    for (const sim::TraceRecord& x : sim.trace()) {
      if (x.core == core && x.engine == engine && x.id == 1) return x.end;
    }
    return 0;
  }
};

constexpr uint64_t kL2 = uint64_t{sg::kTagL2} << sg::kTagShift;

TEST(SimSg2260, TimingModelV2SharesDdrBandwidth) {
  // One engine alone: 68,000 B DDR -> LMEM = 100 + 68000 / 68 = 1100 (as v1).
  {
    Flows f;
    f.add(0, 1, ddr1(0), kLmem, 68000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    EXPECT_EQ(f.end(0, 1), 1100u);
  }
  // Two cores (or all 8 GDMA) at once: 8 x 68 = 544 <= 546 B/cycle, so the engine cap binds,
  // not DDR: still 1100 each.
  {
    Flows f;
    for (uint32_t c = 0; c < 8; ++c) f.add(c, 1, ddr1(0), kLmem, 68000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    for (uint32_t c = 0; c < 8; ++c) EXPECT_EQ(f.end(c, 1), 1100u) << c;
  }
  // GDMA and SDMA of all 8 cores (16 transfers), the SDMAs DDR -> DDR (the SDMA reaches DDR
  // and L2 only; a DDR -> DDR copy uses DDR twice, weight 2): total weight 8 + 16 = 24, so DDR
  // gives each 546 / 24 = 22.75 B/cycle (< 68): 100 + ceil(68000 / 22.75) = 100 +
  // ceil(2989.01) = 3090 each; v1 (no sharing): 1100. Chip DDR traffic (8 + 2 x 8) x 68000 B in
  // 2990 flowing cycles = 545.8 B/cycle <= 546.
  for (int v = 0; v < 2; ++v) {
    Flows f(v == 0 ? sim::TimingModel::v2 : sim::TimingModel::v1);
    for (uint32_t c = 0; c < 8; ++c) {
      f.add(c, 1, ddr1(0), kLmem, 68000);
      f.add(c, 2, ddr1(0x1000), ddr1(0x8000), 68000);
    }
    ASSERT_EQ(f.sim.run(), Status::ok);
    for (uint32_t c = 0; c < 8; ++c) {
      EXPECT_EQ(f.end(c, 1), v == 0 ? 3090u : 1100u) << c;
      EXPECT_EQ(f.end(c, 2), v == 0 ? 3090u : 1100u) << c;
    }
  }
  // DDR and L2 at once: the 8 SDMAs move DDR -> L2 beside the 8 GDMAs' DDR -> LMEM. L2 gives
  // the SDMAs 128 / 8 = 16 B/cycle (the first level of the max-min sharing), which leaves DDR
  // 546 - 8 x 16 = 418 for the GDMAs: 52.25 each (< 68). GDMAs: 100 + ceil(68000 / 52.25) =
  // 100 + ceil(1301.4) = 1402; the SDMAs stay L2-bound at 16 after that: 100 + 68000 / 16 =
  // 4350.
  {
    Flows f;
    for (uint32_t c = 0; c < 8; ++c) {
      f.add(c, 1, ddr1(0), kLmem, 68000);
      f.add(c, 2, ddr1(0x1000), kL2 | (uint64_t{c} << 20), 68000);
    }
    ASSERT_EQ(f.sim.run(), Status::ok);
    for (uint32_t c = 0; c < 8; ++c) {
      EXPECT_EQ(f.end(c, 1), 1402u) << c;
      EXPECT_EQ(f.end(c, 2), 4350u) << c;
    }
  }
}

TEST(SimSg2260, TimingModelV2SharesL2Bandwidth) {
  // LMEM -> L2 alone: 30 + 64000 / 128 = 530.
  {
    Flows f;
    f.add(0, 1, kLmem, kL2, 64000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    EXPECT_EQ(f.end(0, 1), 530u);
  }
  // Two cores at once: 64 B/cycle each: 30 + 64000 / 64 = 1030 (v1: 530 each).
  {
    Flows f;
    f.add(0, 1, kLmem, kL2, 64000);
    f.add(1, 1, kLmem, kL2 | 0x100000, 64000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    EXPECT_EQ(f.end(0, 1), 1030u);
    EXPECT_EQ(f.end(1, 1), 1030u);
  }
  // Rates are recomputed when a transfer ends: 64,000 B and 32,000 B start flowing at 30 at
  // 64 B/cycle each; the short one ends at 30 + 32000/64 = 530, the long one has 32,000 B left
  // and runs alone at 128: 530 + 250 = 780 (= 30 + 96000 / 128: L2 kept full).
  {
    Flows f;
    f.add(0, 1, kLmem, kL2, 64000);
    f.add(1, 1, kLmem, kL2 | 0x100000, 32000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    EXPECT_EQ(f.end(1, 1), 530u);
    EXPECT_EQ(f.end(0, 1), 780u);
  }
  // DDR -> L2 on two cores: engine cap 68, L2 share 64: 100 + ceil(68000 / 64) = 100 + 1063
  // = 1163, against 1100 for one alone: two cores streaming DDR into L2 take longer than one.
  {
    Flows f;
    f.add(0, 1, ddr1(0), kL2, 68000);
    f.add(1, 1, ddr1(0), kL2 | 0x100000, 68000);
    ASSERT_EQ(f.sim.run(), Status::ok);
    EXPECT_EQ(f.end(0, 1), 1163u);
    EXPECT_EQ(f.end(1, 1), 1163u);
  }
}

TEST(SimSg2260, ArithmeticAndCastRounding) {
  Rig r;
  // opd0 f32 at 0x0, opd1 f32 at 0x1000, 2 channels x 3 elements (alignEU: lane per channel).
  const float a[2][3] = {{1.5f, -2.0f, 1e-8f}, {3.0f, 0.25f, -7.5f}};
  const float b[2][3] = {{2.25f, 0.5f, 1.0f}, {-3.0f, 4.0f, 2.0f}};
  for (uint32_t c = 0; c < 2; ++c) {
    std::memcpy(r.lmem(c, 0), a[c], 12);
    std::memcpy(r.lmem(c, 0x1000), b[c], 12);
  }
  // f32 value exactly halfway between two f16 values: 1 + 2^-11 (ties: RNE -> 1.0, HAFZ -> up).
  const float tie = 1.0f + 1.0f / 2048.0f;
  std::memcpy(r.lmem(0, 0x3000), &tie, 4);
  const uint32_t ops[] = {2, 3, 0, 4, 5};  // add, sub, mul, max, min
  for (uint32_t i = 0; i < 5; ++i) {
    cmd::SArRef ar(r.t.append(CmdClass::sAR, ops[i]).value());
    ar.set_res0_n(1); ar.set_res0_c(2); ar.set_res0_h(1); ar.set_res0_w(3);
    ar.set_opt_res0_prec(2); ar.set_opt_opd0_prec(2); ar.set_opt_opd1_prec(2); ar.set_tsk_opd_num(2);
    ar.set_res0_addr(0x2000 + 0x100 * i); ar.set_opd0_addr(0); ar.set_opd1_addr(0x1000);
  }
  for (uint32_t mode = 0; mode < 2; ++mode) {
    cmd::SArRef cast(r.t.append(CmdClass::sAR, 14).value());
    cast.set_res0_n(1); cast.set_res0_c(1); cast.set_res0_h(1); cast.set_res0_w(1);
    cast.set_opt_res0_prec(1); cast.set_opt_opd0_prec(2); cast.set_tsk_opd_num(1); cast.set_opd2_n_str(mode);
    cast.set_res0_addr(0x3100 + 0x10 * mode); cast.set_opd0_addr(0x3000);
  }
  ASSERT_EQ(r.t.end(), Status::ok);
  ASSERT_EQ(r.g.end(), Status::ok);
  rt::Runtime runtime;
  ASSERT_EQ(r.run(runtime), Status::ok);
  for (uint32_t i = 0; i < 5; ++i) {
    for (uint32_t c = 0; c < 2; ++c) {
      float got[3];
      std::memcpy(got, r.lmem(c, 0x2000 + 0x100 * i), 12);
      for (int w = 0; w < 3; ++w) {
        const float x = a[c][w], y = b[c][w];
        const float want = i == 0 ? x + y : i == 1 ? x - y : i == 2 ? x * y : i == 3 ? std::max(x, y) : std::min(x, y);
        EXPECT_EQ(got[w], want) << "op " << ops[i] << " c " << c << " w " << w;
      }
    }
  }
  uint16_t rne, hafz;
  std::memcpy(&rne, r.lmem(0, 0x3100), 2);
  std::memcpy(&hafz, r.lmem(0, 0x3110), 2);
  EXPECT_EQ(rne, 0x3C00u);
  EXPECT_EQ(hafz, 0x3C01u);
}

TEST(SimSg2260, InjectedErrorIsAnEngineFault) {
  Rig r;
  build_program(r);
  r.sim.inject(sim::Injection{0, 1, 2, sim::InjectKind::error, 0, Status::region_overrun});
  rt::Runtime runtime;
  EXPECT_EQ(r.run(runtime), Status::rt_engine_fault);
  EXPECT_EQ(runtime.report().core, 0u);
  EXPECT_EQ(runtime.report().engine, cmd::Engine::gdma);
  EXPECT_EQ(runtime.report().command_id, 2u);
  EXPECT_EQ(runtime.report().device_code, Status::region_overrun);
  EXPECT_EQ(r.sim.state(0, 1), static_cast<uint32_t>(regs::kIdle));  // the runtime reset it
}

TEST(SimSg2260, HangingEngineTimesOut) {
  Rig r;
  build_program(r);
  r.sim.inject(sim::Injection{0, 0, 1, sim::InjectKind::hang, 0, Status::ok});
  rt::Config c;
  c.timeout_ticks = 5000;
  rt::Runtime runtime(c);
  EXPECT_EQ(r.run(runtime), Status::rt_timeout);
  EXPECT_EQ(runtime.report().engine, cmd::Engine::tiu);
  EXPECT_EQ(runtime.report().command_id, 1u);
  EXPECT_GE(r.sim.now(), 5000u);
}

TEST(SimSg2260, LateCompletionAfterTheTimeoutIsDiscarded) {
  Rig r;
  build_program(r);
  r.sim.inject(sim::Injection{0, 0, 1, sim::InjectKind::late, 100000, Status::ok});
  rt::Config c;
  c.timeout_ticks = 5000;
  rt::Runtime runtime(c);
  EXPECT_EQ(r.run(runtime), Status::rt_timeout);
  EXPECT_EQ(runtime.report().command_id, 1u);
  // The reset after the timeout cancelled the command, and with it its late completion:
  // nothing is left to happen, and nothing completes.
  EXPECT_EQ(r.sim.run(), Status::ok);
  EXPECT_LT(r.sim.now(), 100000u);
  EXPECT_EQ(r.sim.completed(0, 0), 0u);
  EXPECT_EQ(r.machine.read32(regs::engine_reg(0, 0, regs::kCompleted)), 0u);
  EXPECT_EQ(runtime.poll(), Status::ok);
  r.sim.clear_injections();
  ASSERT_EQ(r.run(runtime), Status::ok);  // the engines take the program again
  expect_program_result(r);
}

TEST(SimSg2260, ResubmissionReusesTheDecodedStreamOnlyWhenUnchanged) {
  Rig r;
  build_program(r);
  rt::Runtime runtime;
  ASSERT_EQ(r.run(runtime), Status::ok);
  ASSERT_EQ(r.run(runtime), Status::ok);  // same bytes: the cached decode, same result
  expect_program_result(r);
  EXPECT_EQ(r.sim.commands_executed(), 14u);
  // Change the MM2's K in place (16 -> 8): the stream must be decoded again.
  cmd::SMm2Ref mm(r.tiu.data());
  mm.set_opd1_c(8);
  std::memset(r.ddr(0x1000), 0, 544);
  ASSERT_EQ(r.run(runtime), Status::ok);
  float v;
  std::memcpy(&v, r.ddr(0x1000 + 4 * 5), 4);
  EXPECT_EQ(v, 0.25f * (-8 - 7 - 6 - 5 - 4 - 3 - 2 - 1) + 8 * 5 * 0.125f);  // k = 0..7 only
}

TEST(SimSg2260, BarrierNobodySendsIsADeadlock) {
  Rig r;
  ASSERT_EQ(r.t.wait_msg(7, 2), Status::ok);
  ASSERT_EQ(r.t.end(), Status::ok);
  ASSERT_EQ(r.g.send_msg(7, 2), Status::ok);  // one send of the two the barrier needs
  ASSERT_EQ(r.g.wait_msg(7, 2), Status::ok);
  ASSERT_EQ(r.g.end(), Status::ok);
  rt::Runtime runtime;
  EXPECT_EQ(r.run(runtime), Status::rt_deadlock);
  EXPECT_EQ(runtime.report().core, 0u);
  EXPECT_EQ(runtime.report().engine, cmd::Engine::tiu);
  EXPECT_EQ(runtime.report().command_id, 1u);
  EXPECT_EQ(runtime.report().engine_state, static_cast<uint32_t>(regs::kBlockedMsg));
}

TEST(SimSg2260, SdmaWithALocalMemorySideFaults) {
  // The simulator's own check (not the runtime's validation): the SDMA reaches DDR and L2 only.
  // A DDR -> L2 move runs; the next one, DDR -> LMEM, faults as command 2 and moves nothing.
  Flows f;
  std::vector<uint8_t> buf(1024);
  cmd::CommandBuilder b{cmd::Engine::sdma, ByteSpan(buf.data(), buf.size())};
  tensor(b, ddr1(0), kL2, 1, 64, 1, 0);
  tensor(b, ddr1(0), kLmem, 1, 64, 1, 0);
  ASSERT_EQ(b.end(), Status::ok);
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
  ASSERT_EQ(tilefw::port::copy_to_device(base, buf.data(), b.size()), Status::ok);
  f.sim.start(0, 2, base, b.size());
  EXPECT_EQ(f.sim.run(), Status::cmd_bad_address_tag);
  EXPECT_EQ(f.sim.fault_code(0, 2), Status::cmd_bad_address_tag);
  EXPECT_EQ(f.sim.completed(0, 2), 1u);
  EXPECT_NE(f.sim.fault_message(0, 2).find("local memory"), std::string::npos) << f.sim.fault_message(0, 2);
}

TEST(SimSg2260, UnsupportedClassFaultsWithItsName) {
  Rig r;
  cmd::SCwBcRef cw(r.t.append(CmdClass::sCW_sBC, 1).value());  // wc_ts: named, not defined
  cw.set_res0_n(1);
  ASSERT_EQ(r.t.end(), Status::ok);
  ASSERT_EQ(r.g.end(), Status::ok);
  rt::Runtime runtime;
  EXPECT_EQ(r.run(runtime), Status::rt_engine_fault);
  EXPECT_EQ(runtime.report().device_code, Status::sim_unsupported_op);
  EXPECT_EQ(runtime.report().command_id, 1u);
  EXPECT_NE(r.sim.fault_message(0, 0).find("sCW&sBC"), std::string::npos) << r.sim.fault_message(0, 0);
}

}  // namespace
