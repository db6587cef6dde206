// The cross-chip hazard check in the directions beyond "a local engine reads what a recv wrote":
// a recv landing after an unordered local access of its bytes, a write pushed into the peer's
// memory that the peer's engines read with no ordering, and such a push landing on bytes the
// peer's engines accessed before it unordered, a send forwarding bytes a recv wrote before any
// message orders the two; the orderings SG2260 has across
// chips (a drained thread's send, the recv, rx_send_msg and a wait; a port ended before the
// host starts an engine) clear them. Exact messages.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cdma_fixture.hpp"

using namespace cdmatest;
using cmd::CdmaSysOp;

namespace {

// A GDMA stream: optional wait_msg, DMA general copies of FP32 elements, optional send_msg.
struct Gdma {
  std::vector<uint8_t> buffer = std::vector<uint8_t>(4096);
  cmd::CommandBuilder b{cmd::Engine::gdma, ByteSpan(buffer.data(), buffer.size())};
  Gdma& copy(uint64_t src, uint64_t dst, uint32_t n) {
    auto p = b.append(cmd::CmdClass::dma_general, 0);
    EXPECT_TRUE(p.ok());
    cmd::DmaCommonRef d(p.value());
    d.set_src_data_format(2);
    d.set_src_cstride(n);
    const uint64_t s = ddr1(src), t = ddr1(dst);
    d.set_src_start_addr_l32(static_cast<uint32_t>(s));
    d.set_src_start_addr_h13(s >> 32);
    d.set_dst_start_addr_l32(static_cast<uint32_t>(t));
    d.set_dst_start_addr_h13(t >> 32);
    return *this;
  }
  Gdma& send(uint32_t id) {
    EXPECT_EQ(b.send_msg(id, 1), Status::ok);
    return *this;
  }
  Gdma& wait(uint32_t id) {
    EXPECT_EQ(b.wait_msg(id, 1), Status::ok);
    return *this;
  }
  // Ends the stream, copies it to the chip's DDR at 2 MiB and registers it for the message check.
  void load(Cluster& c, uint32_t chip) {
    EXPECT_EQ(b.end(), Status::ok);
    std::memcpy(c.ddr(chip, 0x200000), buffer.data(), b.size());
    c.core_streams.push_back(cmd::CoreStream{chip, 0, cmd::Engine::gdma, b.bytes()});
  }
  void start(Cluster& c, uint32_t chip) {
    c.sys().simulator(chip).start(0, sim::kGdma, sg::kDdrWindowBase + ddr1(0x200000), b.size());
  }
};

std::string bytes_of(uint64_t off, uint64_t n) {
  char buf[64];
  const uint64_t a = sg::kDdrWindowBase + ddr1(off);
  std::snprintf(buf, sizeof buf, "0x%" PRIx64 "..0x%" PRIx64, a, a + n);
  return buf;
}

void fill(Cluster& c, uint32_t chip, uint64_t off, float scale) {
  for (uint32_t i = 0; i < 64; ++i) {
    const float v = scale * static_cast<float>(i);
    std::memcpy(c.ddr(chip, off + i * 4), &v, 4);
  }
}

}  // namespace

// Chip 1's GDMA reads the recv's destination at once (cycle 0); the data lands about 270
// cycles later, overtaking nothing that orders it: the landing is the hazard.
TEST(CdmaHazards, RecvLandingAfterAnUnorderedRead) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x3000, 0x4000, 64).load(c, 1);
  c.send(0, 1, 0x2000, 64, false);
  c.recv(1, 0, 0x3000, 64, 0);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 1 cdma port->0 rx command 1 writes device bytes " + bytes_of(0x3000, 256) +
                " that chip 1 core 0 gdma command 1 read with no message ordering them");
}

// The same read ordered before the recv: the GDMA sends msg 5 after its copy, the RX thread
// waits for it before posting the recv's credit.
TEST(CdmaHazards, RecvAfterAMessageFromTheReaderIsOrdered) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x3000, 0x4000, 64).send(5).load(c, 1);
  fill(c, 0, 0x2000, 0.5f);
  c.send(0, 1, 0x2000, 64, false);
  c.msg(1, 0, CdmaSysOp::rx_wait, 5);
  c.recv(1, 0, 0x3000, 64, 0);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x3000), c.ddr(0, 0x2000), 256), 0);
}

// A write from chip 0 into chip 1's memory, read by chip 1's GDMA after a long first copy (so
// after the data landed) with nothing ordering the two.
TEST(CdmaHazards, RemoteWriteReadWithoutOrdering) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x10000, 0x40000, 25000).copy(0x2000, 0x4000, 64).load(c, 1);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 1 core 0 gdma command 2 reads device bytes " + bytes_of(0x2000, 256) +
                " written by chip 0 cdma port->1 tx command 1 with no message ordering them");
}

// A general counts the same: pushed into the peer, read there unordered.
TEST(CdmaHazards, RemoteGeneralReadWithoutOrdering) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x10000, 0x40000, 25000).copy(0x2000, 0x4000, 16).load(c, 1);
  EXPECT_EQ(cmd::cdma_general(c.on(0, 1), ddr1(0x1000), ddr1(0x2000), cmd::kCdmaFormatFp32, 16, false), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 1 core 0 gdma command 2 reads device bytes " + bytes_of(0x2000, 64) +
                " written by chip 0 cdma port->1 tx command 1 with no message ordering them");
}

// Ordered the way SG2260 can: chip 0 writes, drains its TX thread (tx_send_msg waits for the
// write, tx_wait passes on it), then sends; chip 1's recv completes after that send started,
// its rx_send_msg releases the GDMA's wait. No hazard, and the GDMA copies the written data.
TEST(CdmaHazards, RemoteWriteOrderedBySendAndRecv) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.wait(6).copy(0x2000, 0x4000, 64).load(c, 1);
  fill(c, 0, 0x1000, 0.75f);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.msg(0, 1, CdmaSysOp::tx_send, 3);
  c.msg(0, 1, CdmaSysOp::tx_wait, 3);
  c.send(0, 1, 0x1000, 16, false);
  c.recv(1, 0, 0x5000, 16, 0);
  c.msg(1, 0, CdmaSysOp::rx_send, 6);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x1000), 256), 0);
}

// Without the drain the send may start (and its recv complete) while the write is still in
// flight: the same chain no longer orders the write, and the read (after a long copy, so after
// the data landed) is a hazard.
TEST(CdmaHazards, SendStartedWhileTheWriteIsInFlightDoesNotOrderIt) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.wait(6).copy(0x10000, 0x40000, 25000).copy(0x2000, 0x4000, 64).load(c, 1);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.send(0, 1, 0x1000, 16, false);
  c.recv(1, 0, 0x5000, 16, 0);
  c.msg(1, 0, CdmaSysOp::rx_send, 6);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 1 core 0 gdma command 3 reads device bytes " + bytes_of(0x2000, 256) +
                " written by chip 0 cdma port->1 tx command 1 with no message ordering them");
}

// The host starts chip 1's GDMA after chip 0's port ended: the write has landed, no hazard.
TEST(CdmaHazards, EngineStartedAfterTheWritersPortEndedIsOrdered) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x2000, 0x4000, 64).load(c, 1);
  fill(c, 0, 0x1000, 1.25f);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), c.ddr(0, 0x1000), 256), 0);
}

// The other direction of a push: chip 1's GDMA reads its bytes at once (cycle 0), chip 0's
// write lands on them about 270 cycles later with nothing ordering the read before it (the
// push may overtake the read: the read would see chip 0's data).
TEST(CdmaHazards, RemoteWriteLandingAfterAnUnorderedRead) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x2000, 0x4000, 64).load(c, 1);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 0 cdma port->1 tx command 1 writes device bytes " + bytes_of(0x2000, 256) +
                " that chip 1 core 0 gdma command 1 read with no message ordering them");
}

// A general landing on bytes chip 1's GDMA wrote before it: two unordered writes of one byte.
TEST(CdmaHazards, RemoteGeneralLandingAfterAnUnorderedWrite) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x4000, 0x2000, 16).load(c, 1);
  EXPECT_EQ(cmd::cdma_general(c.on(0, 1), ddr1(0x1000), ddr1(0x2000), cmd::kCdmaFormatFp32, 16, false), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 0 cdma port->1 tx command 1 writes device bytes " + bytes_of(0x2000, 64) +
                " that chip 1 core 0 gdma command 1 wrote with no message ordering them");
}

// Ordered across the chips: chip 1's GDMA reads, then sends msg 5; chip 1's TX thread waits for
// it and sends to chip 0; chip 0's recv completes after that send started, its rx_send_msg 7
// releases chip 0's TX thread, which writes into chip 1. No hazard, and the GDMA read the data
// from before the write.
TEST(CdmaHazards, RemoteWriteAfterAChainFromTheReaderIsOrdered) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x2000, 0x4000, 64).send(5).load(c, 1);
  fill(c, 1, 0x2000, 0.5f);
  fill(c, 0, 0x1000, 0.75f);
  std::vector<uint8_t> before(c.ddr(1, 0x2000), c.ddr(1, 0x2000) + 256);
  c.msg(1, 0, CdmaSysOp::tx_wait, 5);
  c.send(1, 0, 0x5000, 16, false);
  c.recv(0, 1, 0x6000, 16, 0);
  c.msg(0, 1, CdmaSysOp::rx_send, 7);
  c.msg(0, 1, CdmaSysOp::tx_wait, 7);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x4000), before.data(), 256), 0);
  EXPECT_EQ(std::memcmp(c.ddr(1, 0x2000), c.ddr(0, 0x1000), 256), 0);
}

// The same chain, but chip 1's TX thread sends without waiting for the GDMA's message: the send
// says nothing about the read, and the write landing on the read bytes is a hazard.
TEST(CdmaHazards, RemoteWriteAfterASendNotOrderedAfterTheReadIsAHazard) {
  Cluster c(2, "ring:2");
  Gdma g;
  g.copy(0x2000, 0x4000, 64).load(c, 1);
  c.send(1, 0, 0x5000, 16, false);
  c.recv(0, 1, 0x6000, 16, 0);
  c.msg(0, 1, CdmaSysOp::rx_send, 7);
  c.msg(0, 1, CdmaSysOp::tx_wait, 7);
  EXPECT_EQ(cmd::cdma_write(c.on(0, 1), Cluster::flat(0x1000, 64), Cluster::flat(0x2000, 64)), Status::ok);
  c.start();
  g.start(c, 1);
  ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 0 cdma port->1 tx command 4 writes device bytes " + bytes_of(0x2000, 256) +
                " that chip 1 core 0 gdma command 1 read with no message ordering them");
}

// A chip forwarding what it received (a chain 2 -> 1 -> 0): chip 1's send to chip 0 reads the
// bytes its recv from chip 2 wrote. Its port to chip 0 first sends another 1024 elements, so
// the forwarded send starts well after the data from chip 2 landed, but nothing orders the
// two: the send is the hazard, named with the recv that wrote its source.
TEST(CdmaHazards, ForwardedSendWithoutOrderingReadsAnUnorderedRecv) {
  Cluster c(3, "ring:3");
  fill(c, 2, 0x2000, 0.75f);
  c.send(2, 1, 0x2000, 64, false);
  c.recv(1, 2, 0x3000, 64, 0);
  c.send(1, 0, 0x8000, 1024, false);
  c.send(1, 0, 0x3000, 64, false);
  c.recv(0, 1, 0x8000, 1024, 0);
  c.recv(0, 1, 0x5000, 64, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  ASSERT_EQ(c.sys().cross_hazard_count(), 1u);
  EXPECT_EQ(c.sys().cross_hazard_messages().at(0),
            "hazard: chip 1 cdma port->0 tx command 2 reads device bytes " + bytes_of(0x3000, 256) +
                " written by chip 1 cdma port->2 rx command 1 with no message ordering them");
}

// The same chain ordered as a forwarding chip must: the recv's thread signals message 7 once
// the data landed, the forwarding send waits for it. No hazard, and chip 2's data reaches 0.
TEST(CdmaHazards, ForwardedSendAfterTheRecvsMessageIsOrdered) {
  Cluster c(3, "ring:3");
  fill(c, 2, 0x2000, 0.75f);
  c.send(2, 1, 0x2000, 64, false);
  c.recv(1, 2, 0x3000, 64, 0);
  c.msg(1, 2, CdmaSysOp::rx_send, 7);
  c.msg(1, 0, CdmaSysOp::tx_wait, 7);
  c.send(1, 0, 0x3000, 64, false);
  c.recv(0, 1, 0x5000, 64, 0);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u) << c.sys().cross_hazard_messages().at(0);
  EXPECT_EQ(std::memcmp(c.ddr(0, 0x5000), c.ddr(2, 0x2000), 256), 0);
}
