// The chip-to-chip topology: every preset's links, directed link ids, adjacency,
// reachability through switch vertices, routes, and every refusal with its message.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/topology.hpp"

using tilefw::Span;
using tilefw::Status;
using tilefw::cmd::C2cFigures;
using tilefw::cmd::Topology;

namespace {

Status parse(Topology& t, const char* text, uint32_t chips) { return t.parse(text, std::strlen(text), chips); }

bool has_link(const Topology& t, uint32_t a, uint32_t b) {
  for (uint32_t i = 0; i < t.link_count(); ++i) {
    if (t.link(i).a == a && t.link(i).b == b) return true;
  }
  return false;
}

// parse() fails with invalid_argument and a message containing `part`.
bool refuses(const char* text, uint32_t chips, const char* part) {
  Topology t;
  if (parse(t, text, chips) != Status::invalid_argument) return false;
  if (t.chips() != 0 || t.link_count() != 0) return false;
  return std::strstr(t.message(), part) != nullptr;
}

}  // namespace

TEST(Topology, Defaults) {
  const C2cFigures f;
  EXPECT_EQ(f.link_gbytes_per_s, 11.2);
  EXPECT_EQ(f.link_latency_ns, 0.0);
  EXPECT_EQ(f.alpha_ns, 250.0);
  EXPECT_EQ(f.beta_ns, 300.0);
  EXPECT_EQ(f.switch_latency_ns, 100.0);
  EXPECT_EQ(f.credits, 2u);
  EXPECT_EQ(tilefw::chip::sg2260::kCdmaPorts, 10u);
  EXPECT_EQ(tilefw::chip::sg2260::kMaxChips, 64u);
}

TEST(Topology, Ring) {
  Topology t;
  ASSERT_TRUE(parse(t, "ring:4", 4) == Status::ok);
  EXPECT_STREQ(t.message(), "");
  EXPECT_EQ(t.chips(), 4u);
  EXPECT_EQ(t.link_count(), 4u);
  EXPECT_TRUE(has_link(t, 0, 1) && has_link(t, 1, 2) && has_link(t, 2, 3) && has_link(t, 0, 3));
  EXPECT_TRUE(t.adjacent(3, 0));
  EXPECT_FALSE(t.adjacent(0, 2));
  EXPECT_FALSE(t.reachable(0, 2));  // no chip forwards
  EXPECT_EQ(t.directed_link_count(), 8u);
  // link 3 is 0-3 (a < b): 6 from 0 to 3, 7 from 3 to 0
  EXPECT_EQ(t.directed_link(0, 3), 6);
  EXPECT_EQ(t.directed_link(3, 0), 7);
  EXPECT_EQ(t.directed_source(7), 3u);
  EXPECT_EQ(t.directed_target(7), 0u);
  ASSERT_TRUE(parse(t, "ring:2", 2) == Status::ok);
  EXPECT_EQ(t.link_count(), 1u);  // one link, two directed links
  EXPECT_EQ(t.directed_link_count(), 2u);
  EXPECT_EQ(t.directed_link(0, 1), 0);
  EXPECT_EQ(t.directed_link(1, 0), 1);
  ASSERT_TRUE(parse(t, "ring:64", 64) == Status::ok);
  EXPECT_EQ(t.link_count(), 64u);
}

TEST(Topology, ChainStarMesh) {
  Topology t;
  ASSERT_TRUE(parse(t, "chain:4", 4) == Status::ok);
  EXPECT_EQ(t.link_count(), 3u);
  EXPECT_TRUE(has_link(t, 0, 1) && has_link(t, 1, 2) && has_link(t, 2, 3));
  EXPECT_FALSE(t.adjacent(0, 3));
  ASSERT_TRUE(parse(t, "chain:1", 1) == Status::ok);
  EXPECT_EQ(t.link_count(), 0u);
  ASSERT_TRUE(parse(t, "star:4", 4) == Status::ok);
  EXPECT_EQ(t.link_count(), 3u);
  EXPECT_TRUE(has_link(t, 0, 1) && has_link(t, 0, 2) && has_link(t, 0, 3));
  EXPECT_FALSE(t.reachable(1, 2));
  EXPECT_EQ(t.degree(0), 3u);
  ASSERT_TRUE(parse(t, "star:11", 11) == Status::ok);
  EXPECT_EQ(t.degree(0), 10u);
  ASSERT_TRUE(parse(t, "mesh:8", 8) == Status::ok);
  EXPECT_EQ(t.link_count(), 28u);
  for (uint32_t a = 0; a < 8; ++a) {
    for (uint32_t b = 0; b < 8; ++b) EXPECT_EQ(t.adjacent(a, b), a != b);
  }
  ASSERT_TRUE(parse(t, "mesh:11", 11) == Status::ok);
  EXPECT_EQ(t.degree(5), 10u);
}

TEST(Topology, Sg2260Eight) {
  Topology t;
  ASSERT_TRUE(parse(t, "sg2260-8", 8) == Status::ok);
  EXPECT_EQ(t.link_count(), 10u);
  const uint32_t links[][2] = {{0, 1}, {0, 2}, {0, 4}, {1, 3}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {6, 7}};
  for (const auto& l : links) EXPECT_TRUE(has_link(t, l[0], l[1]));
  // The SCCL ring 0, 2, 6, 7, 3, 1, 5, 4 runs over direct links only.
  const uint32_t ring[] = {0, 2, 6, 7, 3, 1, 5, 4};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_TRUE(t.adjacent(ring[i], ring[(i + 1) % 8]));
  EXPECT_FALSE(t.adjacent(0, 7));
}

TEST(Topology, Edges) {
  Topology t;
  ASSERT_TRUE(parse(t, "edges:[0-1,1-2, 3-2]", 4) == Status::ok);
  EXPECT_EQ(t.link_count(), 3u);
  EXPECT_TRUE(has_link(t, 2, 3));  // stored a < b
  EXPECT_EQ(t.directed_link(3, 2), 5);
  ASSERT_TRUE(parse(t, "edges:[]", 3) == Status::ok);
  EXPECT_EQ(t.link_count(), 0u);
}

TEST(Topology, SwitchAndRoutes) {
  Topology t;
  ASSERT_TRUE(parse(t, "switch:2x4", 8) == Status::ok);
  EXPECT_EQ(t.vertices(), 9u);
  EXPECT_TRUE(t.is_switch(8));
  EXPECT_FALSE(t.is_switch(0));
  EXPECT_EQ(t.link_count(), 8u);  // 2 x 3 board links + 2 uplinks
  EXPECT_TRUE(has_link(t, 0, 8) && has_link(t, 4, 8) && has_link(t, 4, 5));
  EXPECT_TRUE(t.reachable(0, 4));   // through the switch
  EXPECT_FALSE(t.reachable(1, 4));  // chip 0 would have to forward
  uint32_t out[8];
  const auto r = t.route(0, 4, Span<uint32_t>(out));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), 2u);
  EXPECT_EQ(out[0], static_cast<uint32_t>(t.directed_link(0, 8)));
  EXPECT_EQ(out[1], static_cast<uint32_t>(t.directed_link(8, 4)));
  const auto direct = t.route(1, 0, Span<uint32_t>(out));
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct.value(), 1u);
  EXPECT_EQ(out[0], static_cast<uint32_t>(t.directed_link(1, 0)));
  EXPECT_TRUE(t.route(1, 4, Span<uint32_t>(out)).status() == Status::cmd_no_route);
  EXPECT_TRUE(t.route(0, 0, Span<uint32_t>(out)).status() == Status::invalid_argument);
  EXPECT_TRUE(t.route(0, 9, Span<uint32_t>(out)).status() == Status::invalid_argument);
  EXPECT_TRUE(t.route(0, 4, Span<uint32_t>(out, 1)).status() == Status::buffer_too_small);
  ASSERT_TRUE(parse(t, "switch:16x4", 64) == Status::ok);
  EXPECT_EQ(t.degree(64), 16u);  // a switch has no port bound
}

TEST(Topology, Refusals) {
  EXPECT_TRUE(refuses("ring:4", 8, "ring:4 has 4 chips, the system 8"));
  EXPECT_TRUE(refuses("ring:1", 1, "at least 2"));
  EXPECT_TRUE(refuses("ring:65", 64, "at most 64"));
  EXPECT_TRUE(refuses("ring:4", 65, "1 to 64"));
  EXPECT_TRUE(refuses("ring:4", 0, "1 to 64"));
  EXPECT_TRUE(refuses("ring:", 4, "chip count"));
  EXPECT_TRUE(refuses("ring:4x", 4, "chip count"));
  EXPECT_TRUE(refuses("torus:4", 4, "unknown preset"));
  EXPECT_TRUE(refuses("", 4, "unknown preset"));
  EXPECT_TRUE(refuses("chain:3", 4, "chain:3 has 3 chips"));
  EXPECT_TRUE(refuses("star:12", 12, "hub 11 links"));
  EXPECT_TRUE(refuses("mesh:12", 12, "each chip 11 links"));
  EXPECT_TRUE(refuses("mesh:4", 5, "mesh:4 has 4"));
  EXPECT_TRUE(refuses("sg2260-8", 4, "sg2260-8 has 8 chips, the system 4"));
  EXPECT_TRUE(refuses("sg2260-8x", 8, "after sg2260-8"));
  EXPECT_TRUE(refuses("switch:2x4", 6, "switch has 8 chips, the system 6"));
  EXPECT_TRUE(refuses("switch:0x4", 4, "at least 1"));
  EXPECT_TRUE(refuses("switch:2-4", 8, "switch:BxN"));
  EXPECT_TRUE(refuses("edges:[0-1,1-1]", 2, "link 1-1 joins a chip to itself"));
  EXPECT_TRUE(refuses("edges:[0-1,1-0]", 2, "link 0-1 is listed twice"));
  EXPECT_TRUE(refuses("edges:[0-4]", 4, "link 0-4: no such chip"));
  EXPECT_TRUE(refuses("edges:[0-1", 2, "final ']'"));
  EXPECT_TRUE(refuses("edges:[0-1]x", 2, "final ']'"));
  EXPECT_TRUE(refuses("edges:[0+1]", 2, "chip-chip"));
  EXPECT_TRUE(refuses("edges:[0-1,0-2,0-3,0-4,0-5,0-6,0-7,0-8,0-9,0-10,0-11]", 12,
                      "chip 0 has 11 links, more than its 10 CDMA ports"));
  Topology t;
  EXPECT_TRUE(t.parse(nullptr, 0, 4) == Status::invalid_argument);
  EXPECT_TRUE(std::strstr(t.message(), "no text") != nullptr);
  // A refusal leaves the topology empty, a success clears the message.
  ASSERT_TRUE(parse(t, "ring:4", 4) == Status::ok);
  EXPECT_TRUE(parse(t, "ring:3", 4) == Status::invalid_argument);
  EXPECT_EQ(t.link_count(), 0u);
  ASSERT_TRUE(parse(t, "ring:3", 3) == Status::ok);
  EXPECT_STREQ(t.message(), "");
}

TEST(Topology, CdmaPortRegisters) {
  namespace regs = tilefw::chip::sg2260::regs;
  EXPECT_EQ(regs::cdma_port_block(0), tilefw::chip::sg2260::kEngineRegisters.base + 0x1000);
  EXPECT_EQ(regs::cdma_port_reg(3, regs::kDoorbell), regs::cdma_port_block(0) + 3 * 0x40 + 0x10);
  EXPECT_EQ(regs::cdma_port_reg(9, regs::kCdmaPeer), regs::cdma_port_block(9) + 0x34);
  EXPECT_GT(regs::cdma_port_block(0), regs::engine_block(tilefw::chip::sg2260::kCores - 1, regs::kEngines - 1));
}
