// SG2260 simulator, hostile input (unbounded work and memory): commands no real buffer can be
// (zero strides over a
// huge shape: a one-element footprint that validation accepts) are refused at the simulator's
// command entry before any executor loops or allocates, with a message giving the count, the
// shape and the memory; legal commands of the largest real size still execute; and the run-wide
// work budget stops a run with capacity_exceeded on the command that would exceed it. Each of
// these commands made execute_command allocate tens of gigabytes or loop ~2^64 times before.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "sg2260/sim.hpp"
#include "fixture.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"

namespace {

using namespace simtest;

// Long CW&BC lane_bc, res0 n x c x h x w f32 with explicit zero strides (stride mode 3).
void cw_bc(Cmd& c, uint32_t n, uint32_t ch, uint32_t h, uint32_t w) {
  cmd::TiuLongRef u(c.b);
  u.set_res0_n(n); u.set_res0_c(ch); u.set_res0_h(h); u.set_res0_w(w); u.set_opt_res0_prec(2);
  u.set_opd0_n(n); u.set_opd0_c(1); u.set_opd0_h(h); u.set_opd0_w(w); u.set_opt_opd0_prec(2);
  u.set_short_res0_str(3); u.set_short_opd0_str(3);
}

TEST(SimLimits, ZeroStrideCwBcIsRefusedBeforeItAllocates) {
  Bench b;
  Cmd c(CmdClass::CW_BC, 3);
  cw_bc(c, 65535, 64, 65535, 65535);  // 1.8e16 elements in one element's footprint
  std::string msg;
  EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("CW&BC eu 3 res0: 18013573888344000 elements (65535 x 64 x 65535 x 65535)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("LMEM holds 16777216 bytes"), std::string::npos) << msg;
  // A legal lane broadcast of the same class still runs.
  Cmd ok(CmdClass::CW_BC, 3);
  cw_bc(ok, 1, 64, 1, 16);
  cmd::TiuLongRef(ok.b).set_short_res0_str(0);
  cmd::TiuLongRef(ok.b).set_short_opd0_str(0);
  EXPECT_EQ(b.exec(Engine::tiu, ok.b, &msg), Status::ok) << msg;
}

TEST(SimLimits, ZeroStrideArAndMm2AreRefused) {
  Bench b;
  Cmd ar(CmdClass::AR, 2);  // add
  cmd::TiuLongRef v(ar.b);
  v.set_res0_n(65535); v.set_res0_c(65535); v.set_res0_h(65535); v.set_res0_w(65535);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2);
  v.set_short_res0_str(3); v.set_short_opd0_str(3); v.set_short_opd1_str(3);
  std::string msg;
  EXPECT_EQ(b.exec(Engine::tiu, ar.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("AR eu 2 res0: 18445618199572250625 elements"), std::string::npos) << msg;
  // MM2 nn: M x K left operand of 1024 x 65535 (512 MiB of doubles) in one LMEM of 16 MiB.
  Cmd mm(CmdClass::MM2, 4);
  cmd::TiuLongRef m(mm.b);
  m.set_res0_c(1024); m.set_res0_w(1); m.set_opd1_c(65535); m.set_opd0_w(65535);
  m.set_opt_res0_prec(2); m.set_opt_opd0_prec(2); m.set_opt_opd1_prec(2); m.set_opt_opd2_const(1);
  EXPECT_EQ(b.exec(Engine::tiu, mm.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("opd0: 67107840 elements (1024 x 65535)"), std::string::npos) << msg;
}

TEST(SimLimits, ZeroStrideDmaFillsAreRefusedAgainstTheMemoryOfTheirSide) {
  Bench b;
  std::string msg;
  // Tensor fill, dst 65535^4 int8 with zero strides into a 64 KiB DDR region.
  Cmd t(CmdClass::dma_tensor, 0);
  cmd::DmaCommonRef d(t.b);
  d.set_fill_constant_en(1);
  d.set_dst_nsize(65535); d.set_dst_csize(65535); d.set_dst_hsize(65535); d.set_dst_wsize(65535);
  d.set_src_nsize(1); d.set_src_csize(1); d.set_src_hsize(1); d.set_src_wsize(1);
  dma_addrs(d, 0, ddr1(0));
  EXPECT_EQ(b.exec(Engine::gdma, t.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("GDMA tensor dst: 18445618199572250625 elements"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the DDR region of tag 1 holds 65536 bytes"), std::string::npos) << msg;
  // The same fill into LMEM and into L2: the memory named is that of the dst side.
  dma_addrs(d, 0, uint64_t{sg::kTagLmem} << sg::kTagShift);
  EXPECT_EQ(b.exec(Engine::gdma, t.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("LMEM holds 16777216 bytes"), std::string::npos) << msg;
  dma_addrs(d, 0, (uint64_t{sg::kTagL2} << sg::kTagShift) | sg::kL2Base);
  EXPECT_EQ(b.exec(Engine::gdma, t.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("L2 holds 134217728 bytes"), std::string::npos) << msg;
  // A fill that fits its region runs.
  d.set_dst_nsize(1); d.set_dst_csize(1); d.set_dst_hsize(4); d.set_dst_wsize(16);
  d.set_dst_nstride(64); d.set_dst_cstride(64); d.set_dst_hstride(16); d.set_dst_wstride(1);
  dma_addrs(d, 0, ddr1(0));
  EXPECT_EQ(b.exec(Engine::gdma, t.b, &msg), Status::ok) << msg;
}

// Runs `commands` copies of a 64-element AR add on core 0 with a budget; returns the run's
// Status and the fault message.
Status run_with_budget(uint64_t max_work, uint32_t commands, std::string& message, uint64_t& work) {
  host::Machine machine{host::kProfileSg2260};
  host::ScopedMachine scope{machine};
  EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 1 << 20)), Status::ok);
  sim::SimOptions o;
  o.max_work = max_work;
  sim::Simulator s(machine, o);
  std::vector<uint8_t> buf(1 << 16);
  cmd::CommandBuilder w(Engine::tiu, ByteSpan(buf.data(), buf.size()));
  for (uint32_t i = 0; i < commands; ++i) {
    cmd::TiuLongRef v(w.append(CmdClass::AR, 2).value());
    v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(1);
    v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2);
    v.set_res0_addr(0x100); v.set_opd0_addr(0); v.set_opd1_addr(0x40);
  }
  EXPECT_EQ(w.end(), Status::ok);
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
  EXPECT_EQ(tilefw::port::copy_to_device(base, buf.data(), w.size()), Status::ok);
  s.start(0, 0, base, w.size());
  const Status st = s.run();
  message = s.fault_message(0, 0);
  work = s.work_done();
  return st;
}

TEST(SimLimits, WorkBudgetStopsTheRunAtTheCommandThatExceedsIt) {
  std::string msg;
  uint64_t work = 0;
  // 10 commands of 64 elements: 640 element operations.
  EXPECT_EQ(run_with_budget(640, 10, msg, work), Status::ok) << msg;
  EXPECT_EQ(work, 640u);
  EXPECT_EQ(run_with_budget(639, 10, msg, work), Status::capacity_exceeded);
  EXPECT_EQ(work, 576u);  // the 10th command never ran
  EXPECT_NE(msg.find("would bring the run to 640, above the budget of 639 (tilefw run --max-work raises it)"),
            std::string::npos) << msg;
  EXPECT_EQ(run_with_budget(0, 10, msg, work), Status::ok) << "0: no budget";
}

TEST(SimLimits, ConvWorkCountsItsTapsByTheirCost) {
  // 64 x 1 x 64 outputs, 64 input channels x 16 x 16 kernel: 16384 taps each. FP16 taps count
  // 1/64, FP32 and BF16 taps 1/8 (the fused sums; a window costs far more than its outputs:
  // before, work was 4096).
  for (const uint32_t prec : {1u, 2u, 5u}) {
    Cmd k(CmdClass::CONV, 0);
    cmd::TiuLongRef v(k.b);
    v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(64);
    v.set_opd0_c(64); v.set_opd0_h(16); v.set_opd0_w(79); v.set_opd1_h(16); v.set_opd1_w(16);
    v.set_opt_opd0_prec(prec); v.set_opt_opd1_prec(prec); v.set_opt_res0_prec(prec);
    host::Machine machine{host::kProfileSg2260};
    uint64_t work = 0;
    std::string msg;
    ASSERT_EQ(sim::command_extent(machine, 0, k.b, work, msg), Status::ok) << msg;
    EXPECT_EQ(work, 4096u + 4096u * 16384u / (prec == 1 ? 64u : 8u)) << "prec " << prec;
  }
}

TEST(SimLimits, TaylorWorkCountsItsTerms) {
  // 64 x 1 x 1 x 100 elements, a 32-term table: each term counts 1/8 of an element.
  Cmd k(CmdClass::SFU, 13);
  cmd::TiuLongRef v(k.b);
  v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(100);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opd1_n(32);
  host::Machine machine{host::kProfileSg2260};
  uint64_t work = 0;
  std::string msg;
  ASSERT_EQ(sim::command_extent(machine, 0, k.b, work, msg), Status::ok) << msg;
  EXPECT_EQ(work, 6400u + 6400u * 32u / 8u);
}

}  // namespace
