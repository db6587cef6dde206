// The HAU engine behind the runtime (host only): its sync commands take part in the chip-wide
// message barriers like TIU SYS and DMA sys ones (a barrier of cnt 3 = TIU + GDMA + HAU of one
// core completes only with the HAU stream; without it, it is a deadlock naming the count), the
// runtime validates the HAU stream before any doorbell, and the simulator's static memory
// starts with the firmware's exp Taylor tables that static_bc reads.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/rt/runtime.hpp"

namespace {
using tilefw::ByteSpan;
using tilefw::ConstByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
namespace rt = tilefw::rt;
namespace sg = tilefw::chip::sg2260;
namespace regs = tilefw::chip::sg2260::regs;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;

// One 80-byte HAU sync command (layout: tilefw/cmd/hau.hpp), little-endian words.
void append_hau(std::vector<uint8_t>& s, uint32_t op, uint32_t id, uint32_t cnt, bool eod) {
  const uint64_t w0 = cmd::kHauTypeSync | (eod ? uint64_t{1} << 24 : 0);
  const uint64_t w5 = op | (uint64_t{cnt} << 8) | (uint64_t{id} << 15);
  const size_t at = s.size();
  s.resize(at + cmd::kHauCommandBytes, 0);
  std::memcpy(s.data() + at, &w0, 8);
  std::memcpy(s.data() + at + 40, &w5, 8);
}

// Core 0 with TIU, GDMA and (optionally) HAU streams in DDR tag 29.
struct HauRig {
  host::Machine machine{host::kProfileSg2260};
  host::ScopedMachine scope{machine};
  sim::Simulator sim{machine};
  std::vector<uint8_t> tiu = std::vector<uint8_t>(1024), gdma = std::vector<uint8_t>(1024);
  std::vector<uint8_t> hau;
  cmd::CommandBuilder t{cmd::Engine::tiu, ByteSpan(tiu.data(), tiu.size())};
  cmd::CommandBuilder g{cmd::Engine::gdma, ByteSpan(gdma.data(), gdma.size())};
  HauRig() { EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok); }

  rt::EngineStream place(uint64_t offset, const uint8_t* bytes, size_t n) {
    const uint64_t at = sg::kDdrWindowBase + sg::make_dma_address(29, offset);
    EXPECT_EQ(tilefw::port::copy_to_device(at, bytes, n), Status::ok);
    return rt::EngineStream{at, ConstByteSpan(machine.translate(at, n).value(), n)};
  }
  Status run(rt::Runtime& r) {
    rt::CoreSubmission s;
    s.tiu = place(0, tiu.data(), t.size());
    s.gdma = place(4096, gdma.data(), g.size());
    if (!hau.empty()) s.hau = place(8192, hau.data(), hau.size());
    const Status st = r.submit(s);
    return st != Status::ok ? st : r.wait();
  }
  // TIU and GDMA: send and wait on message 48 with count `cnt`, then end.
  void barrier(uint32_t cnt) {
    ASSERT_EQ(t.send_msg(48, cnt), Status::ok);
    ASSERT_EQ(t.wait_msg(48, cnt), Status::ok);
    ASSERT_EQ(t.end(), Status::ok);
    ASSERT_EQ(g.send_msg(48, cnt), Status::ok);
    ASSERT_EQ(g.wait_msg(48, cnt), Status::ok);
    ASSERT_EQ(g.end(), Status::ok);
  }
};

TEST(SimHau, BarrierCountsTheHauEngine) {
  HauRig r;
  r.barrier(3);
  append_hau(r.hau, cmd::kHauMsgSend, 48, 3, false);
  append_hau(r.hau, cmd::kHauMsgWait, 48, 3, true);
  rt::Runtime runtime;
  ASSERT_EQ(r.run(runtime), Status::ok);
  EXPECT_EQ(runtime.completed(0, cmd::Engine::hau), 2u);
  const sim::EngineStats s = r.sim.stats(0, 3);
  EXPECT_EQ(s.commands, 2u);
  EXPECT_EQ(s.busy_cycles, 2u * sg::timing_v1::kSysCycles);  // a sync costs what a SYS one does
  EXPECT_EQ(r.sim.state(0, 3), static_cast<uint32_t>(regs::kIdle));
}

TEST(SimHau, WithoutTheHauStreamTheBarrierIsADeadlock) {
  HauRig r;
  r.barrier(3);  // counts three engines; only TIU and GDMA send
  rt::Config keep;
  keep.reset_on_error = false;  // the engines stay as they stopped, for the report
  rt::Runtime runtime(keep);
  EXPECT_EQ(r.run(runtime), Status::rt_deadlock);
  EXPECT_NE(r.sim.blocked_report().find("blocked on msg 48 (count 2 of 3)"), std::string::npos)
      << r.sim.blocked_report();
}

TEST(SimHau, AWaitBeforeItsSendsBlocksTheHauUntilTheOthersSend) {
  HauRig r;
  r.barrier(3);
  append_hau(r.hau, cmd::kHauMsgSend, 48, 3, false);
  append_hau(r.hau, cmd::kHauMsgWait, 48, 3, false);
  append_hau(r.hau, cmd::kHauMsgSend, 49, 1, false);  // a barrier of its own: cnt 1
  append_hau(r.hau, cmd::kHauMsgWait, 49, 1, true);
  rt::Runtime runtime;
  ASSERT_EQ(r.run(runtime), Status::ok);
  EXPECT_EQ(runtime.completed(0, cmd::Engine::hau), 4u);
}

TEST(SimHau, ABrokenHauStreamIsRefusedBeforeAnyDoorbell) {
  HauRig r;
  r.barrier(3);
  append_hau(r.hau, cmd::kHauMsgSend, 48, 3, false);
  append_hau(r.hau, cmd::kHauMsgWait, 48, 3, true);
  r.hau[80 + 16] = 1;  // a bit outside the sync fields of command 2
  rt::Runtime runtime;
  EXPECT_EQ(r.run(runtime), Status::cmd_bad_field);
  EXPECT_EQ(runtime.report().engine, cmd::Engine::hau);
  EXPECT_EQ(runtime.report().command_id, 2u);
  EXPECT_EQ(runtime.report().offset, 80u);
  EXPECT_EQ(r.sim.stats(0, 0).commands, 0u);  // nothing ran
}

TEST(SimHau, StaticMemoryStartsWithTheExpTaylorTables) {
  host::Machine m{host::kProfileSg2260};
  const sim::Simulator attached(m);
  for (uint32_t core : {0u, 7u}) {
    const uint8_t* smem = m.translate(sg::smem_region(core).device_base, sg::kSmemBytes).value();
    double inverse_factorial = 1.0;
    for (uint32_t k = 0; k < 8; ++k) {
      if (k > 0) inverse_factorial /= k;
      float f32;
      std::memcpy(&f32, smem + sim::kStaticExpF32Offset + 4 * k, 4);
      EXPECT_EQ(f32, static_cast<float>(inverse_factorial));
      uint16_t f16;
      std::memcpy(&f16, smem + sim::kStaticExpF16Offset + 2 * k, 2);
      EXPECT_EQ(f16, tilefw::float_bits_to_half_bits(std::bit_cast<uint32_t>(static_cast<float>(inverse_factorial))));
    }
  }
}

}  // namespace
