// The static message check (cmd::validate_messages, Rule: reachable message waits): one test
// per rule, each naming the chip, engine or port, command, byte offset and the message it waits
// for; what the rule refuses deadlocks in the simulator; the barriers real models use and the
// CDMA / engine hand-offs pass. Every collective test's schedule passes the check too
// (Cluster::start).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cdma_fixture.hpp"

using namespace cdmatest;
using cmd::CdmaSysOp;
using cmd::Engine;
using tilefw::Span;

namespace {

// One engine's stream, built with the n-cmd builders.
struct EngineStream {
  std::vector<uint8_t> buffer = std::vector<uint8_t>(4096);
  cmd::CommandBuilder b;
  explicit EngineStream(Engine e) : b(e, ByteSpan(buffer.data(), buffer.size())) {}
  EngineStream& send(uint32_t id, uint32_t cnt = 1) {
    EXPECT_EQ(b.send_msg(id, cnt), Status::ok);
    return *this;
  }
  EngineStream& wait(uint32_t id, uint32_t cnt) {
    EXPECT_EQ(b.wait_msg(id, cnt), Status::ok);
    return *this;
  }
  tilefw::ConstByteSpan end() {
    EXPECT_EQ(b.end(), Status::ok);
    return b.bytes();
  }
};

// A CDMA stream of sys messages only.
struct PortStream {
  std::vector<uint8_t> buffer = std::vector<uint8_t>(1024);
  cmd::CommandBuilder b{Engine::cdma, ByteSpan(buffer.data(), buffer.size())};
  PortStream& msg(CdmaSysOp op, uint32_t id, uint32_t cnt = 1) {
    EXPECT_EQ(cmd::cdma_msg(b, op, id, cnt), Status::ok);
    return *this;
  }
  tilefw::ConstByteSpan end() {
    EXPECT_EQ(b.end(), Status::ok);
    return b.bytes();
  }
};

cmd::SystemValidation check(uint32_t chips, const std::vector<cmd::CoreStream>& cores,
                            const std::vector<cmd::CdmaStream>& cdma = {}) {
  return cmd::validate_messages(chips, Span<const cmd::CoreStream>(cores.data(), cores.size()),
                                Span<const cmd::CdmaStream>(cdma.data(), cdma.size()));
}

// Runs the core streams on chip 0 of a system: its status (the static refusal's
// meaning: the simulator deadlocks).
Status run_one_chip(const std::vector<cmd::CoreStream>& cores) {
  Cluster c(2, "ring:2");  // chip 1 idle
  uint64_t off = kStreamBase;
  for (const cmd::CoreStream& s : cores) {
    std::memcpy(c.ddr(0, off), s.bytes.data(), s.bytes.size());
    const uint32_t kind = s.engine == Engine::tiu ? sim::kTiu : s.engine == Engine::gdma ? sim::kGdma : sim::kSdma;
    c.sys().simulator(0).start(s.core, kind, sg::kDdrWindowBase + ddr1(off), s.bytes.size());
    off += (s.bytes.size() + 255) / 256 * 256;
  }
  return c.sys().run();
}

}  // namespace

// Rule 1: chip 1's RX thread waits for 2 sends of msg 42; its GDMA sends 42 once.
TEST(CdmaMessages, WaitAboveTheChipsSends) {
  EngineStream g(Engine::gdma);
  const auto gdma = g.send(42).end();
  PortStream p;
  p.msg(CdmaSysOp::tx_send, 7).msg(CdmaSysOp::rx_wait, 42, 2);
  const auto port = p.end();
  const cmd::SystemValidation v = check(2, {{1, 3, Engine::gdma, gdma}}, {{1, 0, port}});
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.chip, 1u);
  EXPECT_EQ(v.peer, 0u);
  EXPECT_EQ(v.report.engine, Engine::cdma);
  EXPECT_EQ(v.stream, 0u);
  EXPECT_EQ(v.report.command_id, 2u);
  EXPECT_EQ(v.report.offset, 16u);
  EXPECT_STREQ(v.report.field, "msg_cnt");
  EXPECT_STREQ(v.report.message, "a message wait for more sends than its chip makes of that id");
  EXPECT_EQ(v.msg_id, 42u);
  EXPECT_EQ(v.msg_cnt, 2u);
  EXPECT_EQ(v.msg_needed, 2u);
  EXPECT_EQ(v.msg_sends, 1u);
}

// Counters are per chip: chip 0's sends never release chip 1's wait.
TEST(CdmaMessages, OtherChipsSendsDoNotCount) {
  PortStream p0, p1;
  const auto s0 = p0.msg(CdmaSysOp::tx_send, 9).end();
  const auto s1 = p1.msg(CdmaSysOp::tx_wait, 9).end();
  const cmd::SystemValidation v = check(2, {}, {{0, 1, s0}, {1, 0, s1}});
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.chip, 1u);
  EXPECT_EQ(v.stream, 1u);
  EXPECT_EQ(v.msg_sends, 0u);
  // The same two threads on one chip's two ports pass.
  EXPECT_TRUE(check(2, {}, {{0, 1, s0}, {0, 2, s1}}).ok());
}

// Rule 2: the TIU waits for msg 7 before its own send of it; nothing else sends 7. The chip's
// sends (1) cover the count, but none can come before the wait.
TEST(CdmaMessages, WaitNeedingItsOwnLaterSend) {
  EngineStream t(Engine::tiu), g(Engine::gdma);
  const auto tiu = t.wait(7, 1).send(7).end();
  const auto gdma = g.send(8).wait(8, 1).end();
  const std::vector<cmd::CoreStream> cores = {{0, 0, Engine::gdma, gdma}, {0, 0, Engine::tiu, tiu}};
  const cmd::SystemValidation v = check(1, cores);
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.chip, 0u);
  EXPECT_EQ(v.core, 0u);
  EXPECT_EQ(v.report.engine, Engine::tiu);
  EXPECT_EQ(v.core_stream, 1u);
  EXPECT_EQ(v.stream, cmd::SystemValidation::kNoStream);
  EXPECT_EQ(v.report.command_id, 1u);
  EXPECT_EQ(v.report.offset, 0u);
  EXPECT_STREQ(v.report.message, "a message wait that needs sends following it on its own in-order thread");
  EXPECT_EQ(v.msg_id, 7u);
  EXPECT_EQ(v.msg_needed, 1u);
  EXPECT_EQ(v.msg_sends, 0u);
  EXPECT_EQ(run_one_chip(cores), Status::rt_deadlock);
  // Sending first is fine.
  EngineStream t2(Engine::tiu);
  EXPECT_TRUE(check(1, {{0, 0, Engine::tiu, t2.send(7).wait(7, 1).end()}}).ok());
}

// CDMA TX and RX of one port are two threads: an rx_send releases the same port's tx_wait,
// but a tx_send after a tx_wait on the same thread does not.
TEST(CdmaMessages, PortSidesAreSeparateThreads) {
  PortStream ok, bad;
  EXPECT_TRUE(check(2, {}, {{0, 1, ok.msg(CdmaSysOp::tx_wait, 3).msg(CdmaSysOp::rx_send, 3).end()}}).ok());
  const cmd::SystemValidation v =
      check(2, {}, {{0, 1, bad.msg(CdmaSysOp::tx_wait, 3).msg(CdmaSysOp::tx_send, 3).end()}});
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.report.command_id, 1u);
  EXPECT_STREQ(v.report.message, "a message wait that needs sends following it on its own in-order thread");
}

// Rule 3: two waits of count 1 on msg 9 and one send. Each wait alone could pass, but the first
// waiter resets the counter, so the second needs a send of its own: 2 needed, 1 made.
TEST(CdmaMessages, GroupsOfWaitersNeedTheirOwnSends) {
  EngineStream g(Engine::gdma), s(Engine::sdma);
  const auto gdma = g.send(9).wait(9, 1).end();
  const auto sdma = s.wait(9, 1).end();
  const std::vector<cmd::CoreStream> cores = {{0, 2, Engine::gdma, gdma}, {0, 2, Engine::sdma, sdma}};
  const cmd::SystemValidation v = check(1, cores);
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.core, 2u);
  EXPECT_EQ(v.report.engine, Engine::sdma);  // the last wait on msg 9
  EXPECT_EQ(v.core_stream, 1u);
  EXPECT_EQ(v.report.command_id, 1u);
  EXPECT_STREQ(v.report.field, "msg_id");
  EXPECT_STREQ(v.report.message,
               "the waits of this message id need more sends than its chip makes (every cnt waiters reset the "
               "counter, so each group needs cnt sends of its own)");
  EXPECT_EQ(v.msg_id, 9u);
  EXPECT_EQ(v.msg_needed, 2u);
  EXPECT_EQ(v.msg_sends, 1u);
  EXPECT_EQ(run_one_chip(cores), Status::rt_deadlock);
  // A second send makes it run.
  EngineStream g2(Engine::gdma);
  const std::vector<cmd::CoreStream> fixed = {{0, 2, Engine::gdma, g2.send(9).send(9).wait(9, 1).end()},
                                              {0, 2, Engine::sdma, sdma}};
  EXPECT_TRUE(check(1, fixed).ok());
  EXPECT_EQ(run_one_chip(fixed), Status::ok);
}

// The real models' barrier shape: every engine of every core sends then waits with the count
// of all engines, alternating two ids; waits of mixed counts are left to the first two rules.
TEST(CdmaMessages, AllCoreBarriersPass) {
  std::vector<EngineStream> engines;
  engines.reserve(12);
  std::vector<cmd::CoreStream> cores;
  for (uint32_t core = 0; core < 4; ++core) {
    for (Engine e : {Engine::tiu, Engine::gdma, Engine::sdma}) {
      engines.emplace_back(e);
      EngineStream& s = engines.back();
      for (int round = 0; round < 6; ++round) s.send(24 + round % 2, 12).wait(24 + round % 2, 12);
      cores.push_back(cmd::CoreStream{0, core, e, s.end()});
    }
  }
  EXPECT_TRUE(check(1, cores).ok());
  EXPECT_EQ(run_one_chip(cores), Status::ok);
  // One engine missing its last send: the last round's group is one send short.
  EngineStream shortened(Engine::sdma);
  for (int round = 0; round < 6; ++round) {
    if (round < 5) shortened.send(24 + round % 2, 12);
    shortened.wait(24 + round % 2, 12);
  }
  cores.back().bytes = shortened.end();
  const cmd::SystemValidation v = check(1, cores);
  ASSERT_EQ(v.report.status, Status::cmd_unsatisfiable_message);
  EXPECT_EQ(v.msg_id, 25u);
  EXPECT_EQ(v.msg_needed, 36u);
  EXPECT_EQ(v.msg_sends, 35u);
  EXPECT_EQ(v.core, 3u);
}

// A stream that does not walk takes no part (its own validation names it).
TEST(CdmaMessages, MalformedStreamIsLeftToItsOwnValidation) {
  EngineStream t(Engine::tiu);
  auto bytes = t.wait(5, 1).end();
  const std::vector<uint8_t> cut(bytes.data(), bytes.data() + 8);
  EXPECT_TRUE(check(1, {{0, 0, Engine::tiu, tilefw::ConstByteSpan(cut.data(), cut.size())}}).ok());
}
