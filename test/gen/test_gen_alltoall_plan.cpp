// gen layer, core tests (host GoogleTest and QEMU Cortex-M4/M55; no heap): the all-to-all's
// rounds (gen::a2a_plan, tilefw/gen/alltoall.hpp), checked against the routing rule written out
// again (alltoall_support.hpp): each chip at most 10 peers a round, every pair with traffic (and
// no other) in one round, the rounds within their bound for 2..64 chips; on the balanced
// DeepSeek-V3 decode shape the busiest owner's recv-adds of a round, pinned against what
// ring-distance rounds (counted here) give.
#include <cstdint>
#include <cstring>

#include "alltoall_support.hpp"
#include "tftest.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/gen/alltoall.hpp"

using namespace tilefw;
using namespace tilefw::gen;
using namespace a2atest;

// For every group size from 2 to 64 chips, sparse (2 of 4n experts a token), random (8 of 4n)
// and dense (every token choosing one expert of every chip, so every pair has rows both ways):
// each chip has at most 10 peers a round; every pair with traffic has a round below the plan's
// rounds and no other pair has one; the rounds are at least ceil(d / 10) (d the most peers a chip
// has) and at most the bound 2 floor((n - 2) / 10) + 1; every planned round has traffic.
TEST(GenAlltoall, PlanFitsThePortsWithinTheBound) {
  uint32_t dense_rounds[kMaxChips + 1] = {};
  for (uint32_t n = 2; n <= kMaxChips; ++n) {
    for (uint32_t density = 0; density < 3; ++density) {
      const uint32_t experts = density == 2 ? n : 4 * n;
      const uint32_t k = density == 0 ? 2 : density == 1 ? (n < 4 ? 2 : kMaxK) : n;
      if (density == 2) {
        for (uint32_t t = 0; t < n; ++t) {
          for (uint32_t j = 0; j < n; ++j) g_choices[t * n + j] = (j + t) % n;
        }
      } else {
        make_choices(n, experts, k, 5 * n + density);
      }
      const A2aGroup g = group(n, 0, 1, experts, k, 8, cmd::kCdmaFormatFp32);
      ASSERT_TRUE(plan(g));
      uint32_t most_peers = 0;
      for (uint32_t c = 0; c < n; ++c) {
        uint32_t per_round[kA2aMaxRounds] = {}, peers = 0;
        for (uint32_t p = 0; p < n; ++p) {
          if (p == c) continue;
          const uint32_t r = a2a_round_of(g_plan, c, p);
          ASSERT_EQ(r, a2a_round_of(g_plan, p, c));  // both directions of a pair in one round
          // One token a chip (own 1): the pair has rows iff one's token routes to the other.
          const bool traffic = expect_holder(g, c, p) || expect_holder(g, p, c);
          ASSERT_EQ(r != kA2aNoIndex, traffic);
          if (!traffic) continue;
          ASSERT_LT(r, g_plan.rounds);
          per_round[r]++;
          peers++;
        }
        for (uint32_t r = 0; r < kA2aMaxRounds; ++r) EXPECT_LE(per_round[r], kA2aPeersPerRound);
        most_peers = peers > most_peers ? peers : most_peers;
      }
      EXPECT_GE(g_plan.rounds, (most_peers + kA2aPeersPerRound - 1) / kA2aPeersPerRound);
      EXPECT_LE(g_plan.rounds, 2 * ((n - 2) / kA2aPeersPerRound) + 1);
      EXPECT_EQ(g_plan.round_mask, (uint32_t{1} << g_plan.rounds) - 1);
      if (density == 2) dense_rounds[n] = g_plan.rounds;
    }
  }
  EXPECT_EQ(kA2aMaxRounds, 13u);
  EXPECT_EQ(dense_rounds[11], 1u);  // up to 11 chips: one round
  EXPECT_EQ(dense_rounds[12], 2u);
  EXPECT_EQ(dense_rounds[32], 4u);  // ceil(31 / 10): a perfect split
  EXPECT_EQ(dense_rounds[64], 7u);  // ceil(63 / 10)
  EXPECT_EQ(a2a_round_of(g_plan, 4, 4), kA2aNoIndex);
  EXPECT_EQ(a2a_round_of(g_plan, 0, 64), kA2aNoIndex);
}

namespace {

// Ring-distance rounds, the rule the plan replaced: pair (a, b) at ring distance d in round
// (d - 1) / 5.
uint32_t distance_round(uint32_t chips, uint32_t a, uint32_t b) noexcept {
  const uint32_t gap = a > b ? a - b : b - a, d = gap < chips - gap ? gap : chips - gap;
  return (d - 1) / 5;
}

// The combine's recv-adds per owner and round (a chain: they run one after another), counted
// from the routing rule with the pair's round given: the most of any owner in any round, and the
// sum over the rounds of each round's most (rounds run one after another, each as long as its
// busiest chain).
struct ChainRows {
  uint32_t most = 0;
  uint32_t sum = 0;
};
uint32_t g_chain[kMaxChips][16];

template <typename RoundOf>
ChainRows chain_rows(const A2aGroup& g, RoundOf round_of) noexcept {
  std::memset(g_chain, 0, sizeof g_chain);
  for (uint32_t t = 0; t < g.tokens; ++t) {
    const uint32_t owner = t / g.own;
    for (uint32_t p = 0; p < g.chips; ++p) {
      if (p != owner && expect_holder(g, t, p)) g_chain[owner][round_of(owner, p) % 16]++;
    }
  }
  ChainRows out;
  for (uint32_t r = 0; r < 16; ++r) {
    uint32_t most = 0;
    for (uint32_t c = 0; c < g.chips; ++c) most = g_chain[c][r] > most ? g_chain[c][r] : most;
    out.most = most > out.most ? most : out.most;
    out.sum += most;
  }
  return out;
}

}  // namespace

// DeepSeek-V3 decode, batch 32 on 32 chips (own 1), 256 experts, top 8, routing balanced: token
// t's experts (8t + j) mod 256, so its holders are the 8 chips 8 (t mod 4) .. + 7 and an owner
// receives 7 or 8 partials (7.75 on average). Ring-distance rounds (4) put 7 of an owner's
// partials into one round; the plan's 2 rounds keep each owner's chain to at most 5.
TEST(GenAlltoall, BalancedDeepSeekRoundsAreShort) {
  const uint32_t n = 32;
  for (uint32_t t = 0; t < n; ++t) {
    for (uint32_t j = 0; j < 8; ++j) g_choices[t * 8 + j] = (8 * t + j) % 256;
  }
  const A2aGroup g = group(n, 0, 1, 256, 8, 8, cmd::kCdmaFormatFp32);
  ASSERT_TRUE(plan(g));
  const ChainRows by_distance = chain_rows(g, [](uint32_t a, uint32_t b) { return distance_round(32, a, b); });
  const ChainRows by_plan = chain_rows(g, [](uint32_t a, uint32_t b) { return a2a_round_of(g_plan, a, b); });
  EXPECT_EQ(by_distance.most, 7u);
  EXPECT_EQ(by_distance.sum, 20u);  // 4 rounds: 7 + 5 + 7 + 1 (each round's busiest owner)
  EXPECT_EQ(g_plan.rounds, 2u);
  EXPECT_EQ(by_plan.most, 5u);  // 4 would be a perfect split of 8
  EXPECT_EQ(by_plan.sum, 10u);
  // The plan's own figures: the most rows a chip receives in one round, combine and dispatch.
  uint32_t combine = 0, dispatch = 0;
  for (uint32_t c = 0; c < n; ++c) {
    for (uint32_t r = 0; r < g_plan.rounds; ++r) {
      combine = g_plan.combine_rows[c][r] > combine ? g_plan.combine_rows[c][r] : combine;
      dispatch = g_plan.dispatch_rows[c][r] > dispatch ? g_plan.dispatch_rows[c][r] : dispatch;
    }
  }
  EXPECT_EQ(combine, by_plan.most);
  EXPECT_EQ(dispatch, 5u);
  EXPECT_EQ(same_plan_on_every_rank(g), 0u);
}
