// The multi-chip system's CDMA semantics and timing (Rule: CDMA timing v1: alpha 250 cycles,
// 11.2 bytes per cycle per directed link) against hand computation; messages shared with a
// chip's GDMA; the reduce rule; deadlock and fault reports naming chip, peer and command; the
// port registers; timing-only runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "cdma_fixture.hpp"
#include "tilefw/base/float16.hpp"

using namespace cdmatest;
using cmd::CdmaSysOp;

namespace {

constexpr uint64_t kAlpha = 250;
uint64_t data_cycles(double bytes) { return static_cast<uint64_t>(std::ceil(bytes / 11.2 - 1e-9)); }
// A thread's chain_end completes one cycle (sys) after the port drains.
constexpr uint64_t kEnd = 1;

}  // namespace

TEST(CdmaTiming, OneTransferAlone) {
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 280, false);  // 1120 bytes: 100 cycles of data
  c.recv(1, 0, 0x2000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().chip_stats(0).cycles, kAlpha + 100 + kEnd);
  EXPECT_EQ(c.sys().chip_stats(1).cycles, kAlpha + 100 + kEnd);
  EXPECT_EQ(c.sys().link_stats(0).bytes, 1120u);  // 0 -> 1
  EXPECT_EQ(c.sys().link_stats(0).busy_cycles, 100u);
  EXPECT_EQ(c.sys().link_stats(1).bytes, 0u);
  EXPECT_EQ(c.sys().chip_stats(0).cdma_wait_cycles, 0u);  // the credit was there at cycle 0
  EXPECT_EQ(c.sys().cdma_commands_executed(), 4u);
}

TEST(CdmaTiming, TwoOnOneDirectedLinkShare) {
  // chip 0 sends to chip 1 while chip 1 reads from chip 0: both cross 0 -> 1 at 5.6 B/cycle
  // until the shorter ends (1120 bytes: 200 cycles), then the longer alone at 11.2.
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  cmd::CdmaTensor src = Cluster::flat(0x3000, 560);
  cmd::CdmaTensor dst = Cluster::flat(0x4000, 560);
  EXPECT_EQ(cmd::cdma_read(c.on(1, 0), src, dst), Status::ok);  // 2240 bytes
  for (uint32_t i = 0; i < 560; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(c.ddr(0, 0x3000 + i * 4), &v, 4);
  }
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().chip_stats(0).cycles, kAlpha + 200 + kEnd);  // the send: 1120 B at 5.6
  // the read: 1120 B at 5.6 (200 cycles), the other 1120 B at 11.2 (100 cycles)
  EXPECT_EQ(c.sys().chip_stats(1).cycles, kAlpha + 300 + kEnd);
  EXPECT_EQ(c.sys().link_stats(0).bytes, 3360u);
  EXPECT_EQ(c.sys().link_stats(0).busy_cycles, 300u);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x3000), 2240), 0);
}

TEST(CdmaTiming, TwoOnDifferentLinksDoNotShare) {
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 280, false);
  c.recv(0, 1, 0x2000, 280, 0);
  c.send(1, 0, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.cycles(), kAlpha + 100 + kEnd);
  EXPECT_EQ(c.sys().link_stats(0).busy_cycles, 100u);
  EXPECT_EQ(c.sys().link_stats(1).busy_cycles, 100u);
}

TEST(CdmaTiming, SwitchHopsAddLatency) {
  // switch:2x1: chips 0 and 1 each linked to the switch (vertex 2): two hops, one switch.
  cmd::C2cFigures f;
  f.link_latency_ns = 50;
  Cluster c(2, "switch:2x1", true, f);
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  // the credit takes 2 x 50 + 100 to reach chip 0; the send then alpha + 2 x 50 + 100 + data
  EXPECT_EQ(c.sys().chip_stats(0).cycles, 200 + kAlpha + 200 + 100 + kEnd);
  EXPECT_EQ(c.sys().chip_stats(0).cdma_wait_cycles, 200u);  // blocked on the credit
}

TEST(CdmaTiming, FakeP2p) {
  Cluster c(2, "ring:2", false);
  auto p = c.on(0, 1).append(cmd::CmdClass::cdma_fake_p2p, 0);
  ASSERT_TRUE(p.ok());
  cmd::CdmaFakeRef f(p.value());
  f.set_src_data_format(cmd::kCdmaFormatFp32);
  f.set_src_nsize(1);
  f.set_src_csize(1);
  f.set_src_hsize(1);
  f.set_src_wsize(280);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().chip_stats(0).cycles, kAlpha + 100 + kEnd);
  EXPECT_EQ(c.sys().link_stats(0).bytes, 0u);  // timed only, no link loaded
}

// Ring all-reduce of B bytes per chip over N chips (chunks of B / N bytes), the schedule of
// test_cdma_collectives.cpp: 2(N - 1) steps, each alpha + ceil(B / N / 11.2); between steps the
// recv's rx_send_msg (1 cycle) then the next send's tx_wait_msg (1 cycle); after the last step
// the last rx_send_msg and the chain_end (1 cycle each). So
//   cycles = 2(N - 1) (alpha + ceil(B / N / 11.2)) + 2 (2(N - 1) - 1) + 2,
// the ideal 2(N - 1)/N x B / bw + 2(N - 1) alpha plus the sys cycles and the rounding up.
TEST(CdmaTiming, RingAllReduceFormula) {
  for (uint32_t n : {2u, 4u, 8u}) {
    const uint32_t chunk = 2800;  // elements: 11200 bytes, 1000 cycles
    Cluster c(n, "ring:" + std::to_string(n), false);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t next = (i + 1) % n;
      const uint32_t prev = (i + n - 1) % n;
      for (uint32_t step = 0; step < 2 * (n - 1); ++step) {
        if (step > 0) c.msg(i, next, CdmaSysOp::tx_wait, 100 + step - 1);
        c.send(i, next, 0x1000, chunk, step < n - 1);
        c.recv(i, prev, 0x100000, chunk, step < n - 1 ? cmd::kCdmaReduceAdd : 0);
        c.msg(i, prev, CdmaSysOp::rx_send, 100 + step);
      }
    }
    ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
    const uint64_t steps = 2 * (n - 1);
    const uint64_t want = steps * (kAlpha + data_cycles(chunk * 4.0)) + 2 * (steps - 1) + 2;
    EXPECT_EQ(c.cycles(), want) << n << " chips";
    const double ideal = 2.0 * (n - 1) / n * (chunk * 4.0 * n) / 11.2 + 2.0 * (n - 1) * kAlpha;
    EXPECT_LE(static_cast<double>(c.cycles()), ideal * 1.01);
  }
}

TEST(CdmaSystem, SendWithoutReceiverDeadlocks) {
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 16, false);
  EXPECT_EQ(c.run(), Status::rt_deadlock);
  const std::string r = c.sys().blocked_report();
  EXPECT_NE(r.find("chip 0 cdma port->1 tx command 1: waits for a credit from chip 1"), std::string::npos) << r;
}

TEST(CdmaSystem, WaitWithoutSendDeadlocks) {
  Cluster c(2, "ring:2");
  c.check_messages = false;  // what the static check refuses, run anyway
  c.msg(1, 0, CdmaSysOp::rx_wait, 42, 2);
  EXPECT_EQ(c.run(), Status::rt_deadlock);
  const std::string r = c.sys().blocked_report();
  EXPECT_NE(r.find("chip 1 cdma port->0 rx command 1: waits for message 42 (count 0 of 2)"), std::string::npos)
      << r;
}

TEST(CdmaSystem, PeerNotLinkedFaults) {
  Cluster c(4, "ring:4");
  c.send(0, 2, 0x1000, 16, false);
  EXPECT_EQ(c.run(), Status::cmd_bad_field);
  EXPECT_NE(c.sys().port_fault_message(0, 2).find("chip 0 cdma port 0: chip 2 is not linked to chip 0"),
            std::string::npos)
      << c.sys().port_fault_message(0, 2);
}

TEST(CdmaSystem, UnsupportedNamesChip) {
  Cluster c(2, "ring:2");
  EXPECT_EQ(cmd::cdma_send(c.on(1, 0), Cluster::flat(0x1000, 16, cmd::kCdmaFormatFp20), false), Status::ok);
  c.recv(0, 1, 0x2000, 16, 0, cmd::kCdmaFormatFp20);
  EXPECT_EQ(c.run(), Status::sim_unsupported_op);
  EXPECT_NE(c.sys().blocked_report().find("chip 1 cdma port->0 command 1: send in FP20 is unsupported"),
            std::string::npos)
      << c.sys().blocked_report();
}

TEST(CdmaSystem, BadTopologyRefused) {
  sim::SystemOptions o;
  o.chips = 4;
  o.topology = "ring:8";
  sim::System s(o);
  EXPECT_EQ(s.status(), Status::invalid_argument);
  EXPECT_NE(s.message().find("ring:8 has 8 chips, the system 4"), std::string::npos) << s.message();
}

// A GDMA copy on chip 0 fills the buffer the CDMA sends: its send_msg releases the CDMA's
// tx_wait_msg (the chip's shared counters). On chip 1 the recv's rx_send_msg releases a GDMA
// wait_msg that copies the arrived data on.
TEST(CdmaSystem, GdmaAndCdmaMessageOrdering) {
  Cluster c(2, "ring:2");
  std::vector<uint8_t> g0(4096), g1(4096);
  auto general = [](cmd::CommandBuilder& b, uint64_t src, uint64_t dst, uint32_t n) {
    auto p = b.append(cmd::CmdClass::dma_general, 0);
    ASSERT_TRUE(p.ok());
    cmd::DmaCommonRef d(p.value());
    d.set_src_data_format(2);
    d.set_src_cstride(n);
    d.set_src_start_addr_l32(static_cast<uint32_t>(src));
    d.set_src_start_addr_h13(src >> 32);
    d.set_dst_start_addr_l32(static_cast<uint32_t>(dst));
    d.set_dst_start_addr_h13(dst >> 32);
  };
  cmd::CommandBuilder b0(cmd::Engine::gdma, ByteSpan(g0.data(), g0.size()));
  general(b0, ddr1(0x1000), ddr1(0x2000), 64);
  ASSERT_EQ(b0.send_msg(5, 1), Status::ok);
  ASSERT_EQ(b0.end(), Status::ok);
  cmd::CommandBuilder b1(cmd::Engine::gdma, ByteSpan(g1.data(), g1.size()));
  ASSERT_EQ(b1.wait_msg(6, 1), Status::ok);
  general(b1, ddr1(0x3000), ddr1(0x4000), 64);
  ASSERT_EQ(b1.end(), Status::ok);
  for (uint32_t i = 0; i < 64; ++i) {
    const float v = 1.5f * static_cast<float>(i);
    std::memcpy(c.ddr(0, 0x1000 + i * 4), &v, 4);
  }
  std::memcpy(c.ddr(0, 0x200000), g0.data(), b0.size());
  std::memcpy(c.ddr(1, 0x200000), g1.data(), b1.size());
  c.msg(0, 1, CdmaSysOp::tx_wait, 5);
  c.send(0, 1, 0x2000, 64, false);
  c.recv(1, 0, 0x3000, 64, 0);
  c.msg(1, 0, CdmaSysOp::rx_send, 6);
  c.core_streams = {{0, 0, cmd::Engine::gdma, b0.bytes()}, {1, 0, cmd::Engine::gdma, b1.bytes()}};
  c.start();
  c.sys().simulator(0).start(0, sim::kGdma, sg::kDdrWindowBase + ddr1(0x200000), b0.size());
  c.sys().simulator(1).start(0, sim::kGdma, sg::kDdrWindowBase + ddr1(0x200000), b1.size());
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x1000), 256), 0);
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u);  // the message orders the copy after the recv
  // chip 0: GDMA copy 256 B from DDR to DDR (100 + ceil(256 / 68) = 104), send_msg (1), then
  // the CDMA's tx_wait (1) and the send (alpha + ceil(256 / 11.2) = 250 + 23)
  const uint64_t send_end = 104 + 1 + 1 + kAlpha + data_cycles(256);
  EXPECT_EQ(c.sys().chip_stats(0).cycles, send_end + kEnd);
  EXPECT_EQ(c.sys().chip_stats(0).cdma_wait_cycles, 105u);  // tx_wait blocked until the message
  // chip 1: rx_send_msg (1), the GDMA's wait (1), copy (104) and chain_end (1)
  EXPECT_EQ(c.sys().chip_stats(1).cycles, send_end + 1 + 1 + 104 + 1);
}

TEST(CdmaSystem, ReduceRule) {
  Cluster c(2, "ring:2");
  const float nan = std::nanf("");
  const float in_dst[] = {1.0f, nan, 0.0f, -0.0f, 3.0f, -2.0f};
  const float in_src[] = {2.0f, 1.0f, -0.0f, 0.0f, nan, 1e-40f};
  std::memcpy(c.ddr(0, 0x1000), in_src, sizeof in_src);
  for (uint32_t op : {2u, 3u}) std::memcpy(c.ddr(1, 0x2000 + op * 0x100), in_dst, sizeof in_dst);
  for (uint32_t op : {2u, 3u}) {
    c.send(0, 1, 0x1000, 6, true);
    c.recv(1, 0, 0x2000 + op * 0x100, 6, op);
  }
  // FP16 add computed in f32, rounded once: 1 + 2^-11 (the halfway case) rounds to even 1.0
  const uint16_t h_dst[] = {0x3C00, 0x3C01};
  const uint16_t h_src[] = {0x1000, 0x1000};  // 2^-11
  std::memcpy(c.ddr(1, 0x3000), h_dst, sizeof h_dst);
  std::memcpy(c.ddr(0, 0x3000), h_src, sizeof h_src);
  c.send(0, 1, 0x3000, 2, true, cmd::kCdmaFormatFp16);
  c.recv(1, 0, 0x3000, 2, cmd::kCdmaReduceAdd, cmd::kCdmaFormatFp16);
  // INT32 add wraps
  const int32_t i_dst[] = {INT32_MAX, -5};
  const int32_t i_src[] = {1, 3};
  std::memcpy(c.ddr(1, 0x4000), i_dst, sizeof i_dst);
  std::memcpy(c.ddr(0, 0x4000), i_src, sizeof i_src);
  c.send(0, 1, 0x4000, 2, true, cmd::kCdmaFormatInt32);
  c.recv(1, 0, 0x4000, 2, cmd::kCdmaReduceAdd, cmd::kCdmaFormatInt32);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  float mx[6], mn[6];
  std::memcpy(mx, c.ddr(1, 0x2200), sizeof mx);
  std::memcpy(mn, c.ddr(1, 0x2300), sizeof mn);
  EXPECT_EQ(mx[0], 2.0f);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mn[1]));
  EXPECT_TRUE(mx[2] == 0.0f && !std::signbit(mx[2]));  // max(+0, -0) = +0
  EXPECT_TRUE(mx[3] == 0.0f && !std::signbit(mx[3]));
  EXPECT_TRUE(mn[2] == 0.0f && std::signbit(mn[2]));  // min(+0, -0) = -0
  EXPECT_TRUE(mn[3] == 0.0f && std::signbit(mn[3]));
  EXPECT_TRUE(std::isnan(mx[4]) && std::isnan(mn[4]));
  EXPECT_EQ(mx[5], 1e-40f);  // subnormal kept
  EXPECT_EQ(mn[0], 1.0f);
  uint16_t h[2];
  std::memcpy(h, c.ddr(1, 0x3000), sizeof h);
  EXPECT_EQ(h[0], 0x3C00);  // tie to even
  EXPECT_EQ(h[1], 0x3C02);  // 0x3C01 + half an ulp: tie to even upwards
  int32_t iv[2];
  std::memcpy(iv, c.ddr(1, 0x4000), sizeof iv);
  EXPECT_EQ(iv[0], INT32_MIN);
  EXPECT_EQ(iv[1], -2);
}

TEST(CdmaSystem, WriteGeneralReadAndLmem) {
  Cluster c(2, "ring:2");
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t v = 1000 + i;
    std::memcpy(c.ddr(0, 0x1000 + i * 4), &v, 4);
    std::memcpy(c.ddr(1, 0x5000 + i * 4), &v, 4);
  }
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 32), Cluster::flat(0x2000, 32)), Status::ok);
  EXPECT_EQ(cmd::cdma_write_fill(c.on(0, 1), 0xDEADBEEF, Cluster::flat(0x3000, 8)), Status::ok);
  EXPECT_EQ(cmd::cdma_general(c.on(0, 1), ddr1(0x1000), ddr1(0x4000), cmd::kCdmaFormatInt32, 16, false), Status::ok);
  EXPECT_EQ(cmd::cdma_read(c.on(0, 1), Cluster::flat(0x5000, 32), Cluster::flat(0x6000, 32)), Status::ok);
  // a send from chip 0's LMEM (core 0, flat lane-major) into chip 1's LMEM
  const uint64_t lmem_src = sg::make_dma_address(sg::kTagLmem, (uint64_t{3} << 18) | 0x100);
  uint8_t* lm0 = c.sys().machine(0).translate(sg::lmem_region(0).device_base + 3 * sg::kLaneBytes + 0x100, 64).value();
  for (uint32_t i = 0; i < 64; ++i) lm0[i] = static_cast<uint8_t>(i * 3);
  cmd::CdmaTensor ls;
  ls.addr = lmem_src;
  ls.format = cmd::kCdmaFormatInt8;
  ls.w = 64;
  EXPECT_EQ(cmd::cdma_send(c.on(0, 1), ls, false), Status::ok);
  cmd::CdmaTensor ld = ls;
  ld.addr = sg::make_dma_address(sg::kTagLmem, (uint64_t{5} << 18) | 0x40);
  EXPECT_EQ(cmd::cdma_recv(c.on(1, 0), ld, 0), Status::ok);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x2000), c.ddr(0, 0x1000), 128), 0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x1000), 64), 0);
  EXPECT_EQ(std::memcmp(c.ddr(0, 0x6000), c.ddr(1, 0x5000), 128), 0);
  uint32_t fill[8];
  std::memcpy(fill, c.ddr(1, 0x3000), sizeof fill);
  for (uint32_t v : fill) EXPECT_EQ(v, 0xDEADBEEFu);
  const uint8_t* lm1 = c.sys().machine(1).translate(sg::lmem_region(0).device_base + 5 * sg::kLaneBytes + 0x40, 64).value();
  EXPECT_EQ(std::memcmp(lm1, lm0, 64), 0);
}

TEST(CdmaSystem, TimingOnlyMovesNoData) {
  Cluster c(2, "ring:2", false);
  const uint32_t v = 77;
  std::memcpy(c.ddr(0, 0x1000), &v, 4);
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok);
  uint32_t got = 1;
  std::memcpy(&got, c.ddr(1, 0x2000), 4);
  EXPECT_EQ(got, 0u);
  EXPECT_EQ(c.cycles(), kAlpha + 100 + kEnd);
}

// A runtime drives the ports by registers: QUEUE_*, PEER, DOORBELL on each chip, then polls
// chip 1's STATUS; polling one chip makes every chip progress.
TEST(CdmaSystem, PortRegisters) {
  namespace regs = sg::regs;
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  uint64_t off = kStreamBase;
  for (auto& [key, s] : c.streams) {
    ASSERT_EQ(s->b.end(), Status::ok);
    std::memcpy(c.ddr(key.first, off), s->buffer.data(), s->b.size());
    host::Machine& m = c.sys().machine(key.first);
    const uint64_t dev = sg::kDdrWindowBase + ddr1(off);
    const uint32_t port = 3;
    m.write32(regs::cdma_port_reg(port, regs::kQueueBaseLo), static_cast<uint32_t>(dev));
    m.write32(regs::cdma_port_reg(port, regs::kQueueBaseHi), static_cast<uint32_t>(dev >> 32));
    m.write32(regs::cdma_port_reg(port, regs::kQueueBytes), static_cast<uint32_t>(s->b.size()));
    m.write32(regs::cdma_port_reg(port, regs::kQueueTag), 7);
    m.write32(regs::cdma_port_reg(port, regs::kCdmaPeer), key.second);
    m.write32(regs::cdma_port_reg(port, regs::kDoorbell), 1);
    off += 0x1000;
  }
  host::Machine& m1 = c.sys().machine(1);
  uint32_t polls = 0;
  while (m1.read32(regs::cdma_port_reg(3, regs::kStatus)) != regs::kIdle && polls < 100000) {
    m1.run_poll_hook();
    ++polls;
  }
  EXPECT_EQ(m1.read32(regs::cdma_port_reg(3, regs::kStatus)), regs::kIdle) << polls;
  EXPECT_GT(polls, 1u) << c.sys().blocked_report() << c.sys().port_fault_message(1, 0);
  EXPECT_EQ(m1.read32(regs::cdma_port_reg(3, regs::kCompleted)), regs::completed_value(7, 2));
  EXPECT_EQ(c.sys().machine(0).read32(regs::cdma_port_reg(3, regs::kCompleted)), regs::completed_value(7, 2));
  EXPECT_EQ(m1.read32(regs::cdma_port_reg(3, regs::kCycleLo)), kAlpha + 100 + kEnd);
  EXPECT_EQ(c.sys().machine(0).now(), m1.now());  // one clock
  m1.write32(regs::cdma_port_reg(3, regs::kReset), 1);
  EXPECT_EQ(m1.read32(regs::cdma_port_reg(3, regs::kCompleted)), 0u);
}

// The system's trace: a process per chip with its CDMA threads, a c2c process with one row per
// directed link, and each completed command.
TEST(CdmaSystem, Trace) {
  cmd::C2cFigures f;
  Cluster c(2, "ring:2", true, f);
  sim::SystemOptions o;
  o.chips = 2;
  o.topology = "ring:2";
  o.sim.trace = true;
  o.ddr = {sg::ddr_region(1, 0, kDdrBytes)};
  c.system = std::make_unique<sim::System>(o);
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok);
  const std::string j = c.sys().trace_json();
  for (const char* part : {R"("name": "chip 0")", R"("name": "chip 1")", R"("name": "c2c")", R"("name": "c2c 0->1")",
                           R"("name": "c2c 1->0")", R"("name": "cdma->1 tx")", R"("name": "cdma->0 rx")",
                           R"("name": "send #1")", R"("name": "recv #1")", R"("name": "busy")"}) {
    EXPECT_NE(j.find(part), std::string::npos) << part << "\n" << j;
  }
  ASSERT_GE(c.sys().cdma_trace().size(), 5u);  // send, recv, two chain_ends, the link's busy span
}

// A port reset while its transfer flies drops that side; the rest of the system goes on.
TEST(CdmaSystem, ResetInFlight) {
  Cluster c(2, "ring:2");
  c.send(0, 1, 0x1000, 280, false);
  c.recv(1, 0, 0x2000, 280, 0);
  c.start();
  while (c.sys().now() < 300 && c.sys().step()) {
  }
  c.sys().reset_port(0, static_cast<uint32_t>(c.sys().default_port(0, 1)));
  EXPECT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().port_completed(1, 0), 2u);  // the recv and the chain_end
}

// switch:12x1: every chip reaches 11 others through the switch, more than its 10 ports'
// default binding; the 11th peer gets the first idle port. Two hops, one switch crossed.
TEST(CdmaSystem, SwitchBeyondTenPeers) {
  Cluster c(12, "switch:12x1");
  c.send(0, 11, 0x1000, 280, false);
  c.recv(11, 0, 0x2000, 280, 0);
  for (uint32_t i = 0; i < 280; ++i) *c.ddr(0, 0x1000 + i) = static_cast<uint8_t>(i);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(std::memcmp(c.ddr(11, 0x2000), c.ddr(0, 0x1000), 1120), 0);
  // the credit crosses the switch (100), then alpha + 100 + the data
  EXPECT_EQ(c.sys().chip_stats(11).cycles, 100 + kAlpha + 100 + 100 + kEnd);
}

// Credits arriving at different cycles each wake the sender: over switch:2x1 with 50 ns links
// a credit takes 200 cycles. Chip 1's recv 2 waits (rx_wait_msg) for the message its TX
// thread's tx_send_msg gives at cycle 1, passes then and holds the RX head until 2: the
// credits reach chip 0 at 200 and 202. Send 1 flows alone from 650 to 652 (22.4 B), then both
// share the link at 5.6 B/cycle: send 1 ends at 652 + 1097.6 / 5.6 = 848, send 2 has 22.4 B
// left and ends at 850; chain_end at 851. (Were the second credit's wake-up lost, send 2
// would start only when send 1 ends, alone at 750, and end at 1300.)
TEST(CdmaTiming, CreditsArrivingApart) {
  cmd::C2cFigures f;
  f.link_latency_ns = 50;
  Cluster c(2, "switch:2x1", false, f);
  c.send(0, 1, 0x1000, 280, false);
  c.send(0, 1, 0x1000, 280, false);
  c.msg(1, 0, CdmaSysOp::tx_send, 9);
  c.recv(1, 0, 0x2000, 280, 0);
  c.msg(1, 0, CdmaSysOp::rx_wait, 9);
  c.recv(1, 0, 0x3000, 280, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().chip_stats(0).cycles, 851u);
  EXPECT_EQ(c.sys().link_stats(c.sys().topology().directed_link(0, 2)).busy_cycles, 200u);
}

// Without the message, chip 1's GDMA copy out of the recv's destination is a cross-chip
// hazard: it runs after a long first copy (about 1.6 k cycles), so after the data landed, but
// nothing orders it after the recv.
TEST(CdmaSystem, CrossChipHazard) {
  Cluster c(2, "ring:2");
  std::vector<uint8_t> g(4096);
  cmd::CommandBuilder b(cmd::Engine::gdma, ByteSpan(g.data(), g.size()));
  for (const auto& [src, dst, n] : {std::tuple<uint64_t, uint64_t, uint32_t>{0x10000, 0x40000, 25000},
                                    std::tuple<uint64_t, uint64_t, uint32_t>{0x3000, 0x4000, 64}}) {
    auto p = b.append(cmd::CmdClass::dma_general, 0);
    ASSERT_TRUE(p.ok());
    cmd::DmaCommonRef d(p.value());
    d.set_src_data_format(2);
    d.set_src_cstride(n);
    const uint64_t s = ddr1(src), t = ddr1(dst);
    d.set_src_start_addr_l32(static_cast<uint32_t>(s));
    d.set_src_start_addr_h13(s >> 32);
    d.set_dst_start_addr_l32(static_cast<uint32_t>(t));
    d.set_dst_start_addr_h13(t >> 32);
  }
  ASSERT_EQ(b.end(), Status::ok);
  std::memcpy(c.ddr(1, 0x200000), g.data(), b.size());
  c.send(0, 1, 0x2000, 64, false);
  c.recv(1, 0, 0x3000, 64, 0);
  c.start();
  c.sys().simulator(1).start(0, sim::kGdma, sg::kDdrWindowBase + ddr1(0x200000), b.size());
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  const std::string m = c.sys().cross_hazard_messages().at(0);
  EXPECT_NE(m.find("hazard: chip 1 core 0 gdma command 2 reads device bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("written by chip 1 cdma port->0 rx command 1 with no message ordering them"), std::string::npos)
      << m;
}

// The host starts chip 1's GDMA only after the port's stream ended (as a runtime does between
// two submissions, having polled the port idle): the copy out of the recv's destination is
// ordered after the recv, no hazard. The same copy started together with the streams is one
// (CrossChipHazard above).
TEST(CdmaSystem, EngineStartedAfterThePortEndedIsOrdered) {
  Cluster c(2, "ring:2");
  std::vector<uint8_t> g(4096);
  cmd::CommandBuilder b(cmd::Engine::gdma, ByteSpan(g.data(), g.size()));
  auto p = b.append(cmd::CmdClass::dma_general, 0);
  ASSERT_TRUE(p.ok());
  cmd::DmaCommonRef d(p.value());
  d.set_src_data_format(2);
  d.set_src_cstride(64);
  d.set_src_start_addr_l32(static_cast<uint32_t>(ddr1(0x3000)));
  d.set_src_start_addr_h13(ddr1(0x3000) >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(ddr1(0x4000)));
  d.set_dst_start_addr_h13(ddr1(0x4000) >> 32);
  ASSERT_EQ(b.end(), Status::ok);
  std::memcpy(c.ddr(1, 0x200000), g.data(), b.size());
  for (uint32_t i = 0; i < 64; ++i) {
    const float v = 0.25f * static_cast<float>(i);
    std::memcpy(c.ddr(0, 0x2000 + i * 4), &v, 4);
  }
  c.send(0, 1, 0x2000, 64, false);
  c.recv(1, 0, 0x3000, 64, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();  // the streams end first
  c.sys().simulator(1).start(0, sim::kGdma, sg::kDdrWindowBase + ddr1(0x200000), b.size());
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x2000), 256), 0);
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
}
