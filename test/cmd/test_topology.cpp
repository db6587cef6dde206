// Topology presets, their refusals and routes (tilefw/cmd/topology.hpp).
#include <gtest/gtest.h>

#include <cstring>

#include "tilefw/cmd/topology.hpp"

namespace {
using tilefw::Span;
using tilefw::Status;
using tilefw::cmd::Topology;

Status parse(Topology& t, const char* text, uint32_t chips) { return t.parse(text, std::strlen(text), chips); }

TEST(Topology, RingOfTwoIsOneLink) {
  Topology t;
  ASSERT_EQ(parse(t, "ring:2", 2), Status::ok) << t.message();
  EXPECT_EQ(t.link_count(), 1u);
  EXPECT_TRUE(t.adjacent(0, 1));
  EXPECT_TRUE(t.adjacent(1, 0));
}

TEST(Topology, RingOfEight) {
  Topology t;
  ASSERT_EQ(parse(t, "ring:8", 8), Status::ok);
  EXPECT_EQ(t.link_count(), 8u);
  EXPECT_TRUE(t.adjacent(7, 0));
  EXPECT_FALSE(t.adjacent(0, 2));
  EXPECT_FALSE(t.reachable(0, 2));  // an SG2260 does not forward through chip 1
  for (uint32_t c = 0; c < 8; ++c) EXPECT_EQ(t.degree(c), 2u);
}

TEST(Topology, RingOfOneHasNoLink) {
  Topology t;
  ASSERT_EQ(parse(t, "ring:1", 1), Status::ok);
  EXPECT_EQ(t.link_count(), 0u);
}

TEST(Topology, ChainStarMesh) {
  Topology t;
  ASSERT_EQ(parse(t, "chain:4", 4), Status::ok);
  EXPECT_EQ(t.link_count(), 3u);
  EXPECT_FALSE(t.adjacent(0, 3));
  ASSERT_EQ(parse(t, "star:4", 4), Status::ok);
  EXPECT_EQ(t.link_count(), 3u);
  EXPECT_EQ(t.degree(0), 3u);
  EXPECT_FALSE(t.adjacent(1, 2));
  ASSERT_EQ(parse(t, "mesh:8", 8), Status::ok);
  EXPECT_EQ(t.link_count(), 28u);
  EXPECT_TRUE(t.adjacent(3, 6));
  ASSERT_EQ(parse(t, "mesh:11", 11), Status::ok);  // 10 links per chip: every port used
  EXPECT_EQ(t.degree(0), 10u);
}

TEST(Topology, MeshPastThePortsIsRefused) {
  Topology t;
  EXPECT_EQ(parse(t, "mesh:12", 12), Status::invalid_argument);
  EXPECT_NE(std::strstr(t.message(), "10 CDMA ports"), nullptr);
  EXPECT_EQ(t.link_count(), 0u);  // nothing half built
}

TEST(Topology, Server8IsThePublishedGraph) {
  Topology t;
  ASSERT_EQ(parse(t, "sg2260-8", 8), Status::ok);
  EXPECT_EQ(t.link_count(), 10u);
  const uint32_t ring[8] = {0, 2, 6, 7, 3, 1, 5, 4};  // the collective library's ring over it
  for (uint32_t i = 0; i < 8; ++i) EXPECT_TRUE(t.adjacent(ring[i], ring[(i + 1) % 8])) << i;
  EXPECT_FALSE(t.adjacent(0, 3));
  EXPECT_EQ(parse(t, "sg2260-8", 4), Status::invalid_argument);
}

TEST(Topology, SwitchJoinsTheBoardsFirstChips) {
  Topology t;
  ASSERT_EQ(parse(t, "switch:2x4", 8), Status::ok);
  EXPECT_TRUE(t.has_switch());
  EXPECT_EQ(t.vertices(), 9u);
  EXPECT_EQ(t.link_count(), 3u + 3u + 2u);
  EXPECT_TRUE(t.reachable(0, 4));   // both linked to the switch
  EXPECT_FALSE(t.adjacent(0, 4));
  EXPECT_FALSE(t.reachable(1, 5));  // would forward through chips 0 and 4
  uint32_t hops[4];
  ASSERT_EQ(t.route(0, 4, Span<uint32_t>(hops, 4)), 2u);
  EXPECT_EQ(t.directed_from(hops[0]), 0u);
  EXPECT_EQ(t.directed_to(hops[0]), 8u);
  EXPECT_EQ(t.directed_from(hops[1]), 8u);
  EXPECT_EQ(t.directed_to(hops[1]), 4u);
  EXPECT_TRUE(t.link(hops[0] / 2).through_switch);
}

TEST(Topology, DirectedLinksOfARoute) {
  Topology t;
  ASSERT_EQ(parse(t, "ring:4", 4), Status::ok);
  uint32_t hop = 0;
  ASSERT_EQ(t.route(1, 0, Span<uint32_t>(&hop, 1)), 1u);
  EXPECT_EQ(t.directed_from(hop), 1u);
  EXPECT_EQ(t.directed_to(hop), 0u);
  uint32_t back = 0;
  ASSERT_EQ(t.route(0, 1, Span<uint32_t>(&back, 1)), 1u);
  EXPECT_EQ(back / 2, hop / 2);  // one link, two directions
  EXPECT_NE(back, hop);
  EXPECT_EQ(t.route(0, 2, Span<uint32_t>(&hop, 1)), 0u);  // not adjacent
  EXPECT_EQ(t.route(0, 0, Span<uint32_t>(&hop, 1)), 0u);
}

TEST(Topology, Edges) {
  Topology t;
  ASSERT_EQ(parse(t, "edges:[0-1,1-2,2-0]", 3), Status::ok) << t.message();
  EXPECT_EQ(t.link_count(), 3u);
  ASSERT_EQ(parse(t, "edges:[]", 2), Status::ok);
  EXPECT_EQ(t.link_count(), 0u);
  EXPECT_EQ(parse(t, "edges:[0-3]", 3), Status::invalid_argument);
  EXPECT_EQ(t.bad_chip(), 3u);
  EXPECT_EQ(parse(t, "edges:[0-0]", 3), Status::invalid_argument);
  EXPECT_EQ(parse(t, "edges:[0-1,1-0]", 3), Status::invalid_argument);
  EXPECT_NE(std::strstr(t.message(), "twice"), nullptr);
  EXPECT_EQ(parse(t, "edges:[0-1", 3), Status::invalid_argument);
  EXPECT_EQ(parse(t, "edges:[0-1]x", 3), Status::invalid_argument);
  EXPECT_EQ(parse(t, "edges:0-1", 3), Status::invalid_argument);
}

TEST(Topology, Refusals) {
  Topology t;
  EXPECT_EQ(parse(t, "ring:4", 8), Status::invalid_argument);  // count differs
  EXPECT_EQ(parse(t, "ring:", 8), Status::invalid_argument);
  EXPECT_EQ(parse(t, "ring:8 ", 8), Status::invalid_argument);
  EXPECT_EQ(parse(t, "torus:8", 8), Status::invalid_argument);
  EXPECT_EQ(parse(t, "ring:0", 0), Status::invalid_argument);
  EXPECT_EQ(parse(t, "ring:65", 65), Status::invalid_argument);
  EXPECT_EQ(parse(t, "star:12", 12), Status::invalid_argument);  // the hub has 10 ports
  EXPECT_EQ(parse(t, "switch:2x", 8), Status::invalid_argument);
  EXPECT_EQ(parse(t, "switch:3x4", 8), Status::invalid_argument);
  EXPECT_EQ(parse(t, "ring:99999", 64), Status::invalid_argument);
  EXPECT_EQ(t.parse(nullptr, 0, 4), Status::invalid_argument);
  ASSERT_EQ(parse(t, "ring:64", 64), Status::ok);
  EXPECT_EQ(t.link_count(), 64u);
}

}  // namespace
