// The token-selective all-to-all (tilefw/gen/alltoall.hpp) run on the multi-chip simulator: the
// generator's streams of every chip started together, round by round. The combine leaves on each
// owner its row plus the rows of the chips holding the token's experts, added round by round (the
// plan's rounds) in ascending chip order (the chain), FP32, bit for bit against a sum computed
// here; the dispatch copies BF16
// rows bit for bit to exactly the chips holding the token's experts; nothing else changes, the
// hazard checker reports nothing and every round passes the system and message checks first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "cdma_fixture.hpp"
#include "tilefw/gen/alltoall.hpp"

using namespace cdmatest;
namespace gen = tilefw::gen;

namespace {

constexpr uint64_t kRows = 0x10000;
constexpr uint32_t kHidden = 64;

// k distinct ids per token, drawn here (not the generator's rule).
std::vector<uint32_t> draw_choices(uint32_t tokens, uint32_t experts, uint32_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> c;
  for (uint32_t t = 0; t < tokens; ++t) {
    std::vector<uint32_t> ids;
    while (ids.size() < k) {
      const uint32_t e = rng() % experts;
      if (std::find(ids.begin(), ids.end(), e) == ids.end()) ids.push_back(e);
    }
    c.insert(c.end(), ids.begin(), ids.end());
  }
  return c;
}

gen::A2aGroup group(uint32_t chips, uint32_t rank, uint32_t own, uint32_t experts, uint32_t k, uint32_t format) {
  gen::A2aGroup g;
  g.chips = chips;
  g.rank = rank;
  g.tokens = chips * own;
  g.own = own;
  g.experts = experts;
  g.top_k = k;
  g.hidden = kHidden;
  g.format = format;
  g.rows = ddr1(kRows);
  return g;
}

bool holds(const std::vector<uint32_t>& choices, uint32_t k, uint32_t chips, uint32_t t, uint32_t chip) {
  for (uint32_t j = 0; j < k; ++j) {
    if (choices[t * k + j] % chips == chip) return true;
  }
  return false;
}

// Plans the rounds (into `plan`), generates every chip's streams of every round with traffic and
// runs the rounds one after another on the cluster (each round's streams through the system and
// message checks first).
void run_rounds(Cluster& c, const gen::A2aGroup& g0, gen::A2aDirection dir, const std::vector<uint32_t>& choices,
                gen::A2aPlan& plan) {
  const tilefw::Span<const uint32_t> ch(choices.data(), choices.size());
  gen::A2aError err;
  ASSERT_EQ(gen::a2a_plan(g0, ch, plan, err), Status::ok) << err.what;
  for (uint32_t r = 0; r < gen::kA2aMaxRounds; ++r) {
    if ((plan.round_mask & (1u << r)) == 0) continue;
    std::vector<std::vector<uint8_t>> bufs;
    std::vector<cmd::CdmaStream> streams;
    bufs.reserve(g0.chips * gen::kA2aPeersPerRound);
    for (uint32_t chip = 0; chip < g0.chips; ++chip) {
      gen::A2aGroup g = g0;
      g.rank = chip;
      gen::A2aPorts p, w;
      ASSERT_EQ(gen::size_a2a(g, dir, ch, plan, r, p, err), Status::ok) << err.what;
      std::vector<tilefw::ByteSpan> spans;
      for (uint32_t i = 0; i < p.count; ++i) {
        bufs.emplace_back(p.bytes[i]);
        spans.emplace_back(bufs.back().data(), bufs.back().size());
        streams.push_back(cmd::CdmaStream{chip, p.peer[i], tilefw::ConstByteSpan(bufs.back().data(), p.bytes[i])});
      }
      ASSERT_EQ(gen::emit_a2a(g, dir, ch, plan, r, tilefw::Span<const tilefw::ByteSpan>(spans.data(), spans.size()), w, err),
                Status::ok)
          << err.what;
    }
    // The system check `tilefw run` applies before anything runs: routes, ports, pairs, waits.
    const std::vector<cmd::ChipMemory> memory(g0.chips);
    const cmd::SystemValidation v = cmd::validate_system(
        c.sys().topology(), tilefw::Span<const cmd::CdmaStream>(streams.data(), streams.size()),
        tilefw::Span<const cmd::ChipMemory>(memory.data(), memory.size()), tilefw::Span<const cmd::CoreStream>());
    ASSERT_TRUE(v.ok()) << "chip " << v.chip << " peer " << v.peer << " command " << v.report.command_id << ": "
                        << v.report.message;
    uint64_t off[64] = {};
    for (const cmd::CdmaStream& s : streams) {
      const uint64_t at = kStreamBase + off[s.chip];
      std::memcpy(c.ddr(s.chip, at), s.bytes.data(), s.bytes.size());
      c.sys().start_cdma(s.chip, s.peer, sg::kDdrWindowBase + ddr1(at), s.bytes.size());
      off[s.chip] += (s.bytes.size() + 255) / 256 * 256;
    }
    ASSERT_EQ(c.sys().run(), Status::ok) << c.sys().blocked_report();
  }
}

// The combine on `chips` chips of `own` rows each, FP32: chip c's row t starts as its own values;
// afterwards the owner's row is its value plus the value of every other chip holding one of t's
// experts, round by round and in ascending chip order within a round (the chain); every other
// row on every chip is unchanged. The rounds are the plan's (its own properties are checked in
// test/gen/test_gen_alltoall.cpp); `rounds`: how many it must have.
void check_combine(uint32_t chips, const std::string& topology, uint32_t own, uint32_t experts, uint32_t k,
                   uint32_t seed, uint32_t rounds) {
  Cluster c(chips, topology);
  ASSERT_EQ(c.sys().status(), Status::ok) << c.sys().message();
  const uint32_t T = chips * own;
  const std::vector<uint32_t> choices = draw_choices(T, experts, k, seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<std::vector<float>> in(chips, std::vector<float>(size_t{T} * kHidden));
  for (uint32_t chip = 0; chip < chips; ++chip) {
    for (float& x : in[chip]) x = d(rng);
    std::memcpy(c.ddr(chip, kRows), in[chip].data(), in[chip].size() * 4);
  }
  const auto plan = std::make_unique<gen::A2aPlan>();
  run_rounds(c, group(chips, 0, own, experts, k, cmd::kCdmaFormatFp32), gen::A2aDirection::combine, choices, *plan);
  EXPECT_EQ(plan->rounds, rounds);
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
  uint32_t adds = 0;
  for (uint32_t chip = 0; chip < chips; ++chip) {
    std::vector<float> want = in[chip];
    for (uint32_t t = chip * own; t < (chip + 1) * own; ++t) {
      // Rounds one after another, ascending chips in each.
      for (uint32_t round = 0; round < gen::kA2aMaxRounds; ++round) {
        for (uint32_t src = 0; src < chips; ++src) {
          if (src == chip || gen::a2a_round_of(*plan, chip, src) != round || !holds(choices, k, chips, t, src)) continue;
          ++adds;
          for (uint32_t i = 0; i < kHidden; ++i) want[t * kHidden + i] += in[src][t * kHidden + i];
        }
      }
    }
    EXPECT_EQ(std::memcmp(c.ddr(chip, kRows), want.data(), want.size() * 4), 0) << "chip " << chip;
  }
  EXPECT_GT(adds, T);  // most rows get several partials
}

}  // namespace

TEST(CdmaAlltoall, CombineAddsRoutedRowsIntoOwners) { check_combine(4, "mesh:4", 2, 8, 3, 11, 1); }

// 12 chips: two rounds (a chip with 11 peers needs two), through one switch that reaches every
// pair.
TEST(CdmaAlltoall, CombineInTwoRounds) { check_combine(12, "switch:12x1", 2, 48, 8, 5, 2); }

// The dispatch, BF16: the owner's row lands bit for bit on exactly the chips holding one of the
// token's experts; other rows keep their sentinel, the owners' rows are untouched.
TEST(CdmaAlltoall, DispatchCopiesBf16Rows) {
  const uint32_t chips = 4, own = 2, T = chips * own, E = 8, k = 2;
  Cluster c(chips, "mesh:4");
  const std::vector<uint32_t> choices = draw_choices(T, E, k, 3);
  std::vector<std::vector<uint16_t>> in(chips, std::vector<uint16_t>(size_t{T} * kHidden, 0x7F7F));
  for (uint32_t chip = 0; chip < chips; ++chip) {
    for (uint32_t t = chip * own; t < (chip + 1) * own; ++t) {
      for (uint32_t i = 0; i < kHidden; ++i) in[chip][t * kHidden + i] = static_cast<uint16_t>(0x3F00 + t * 97 + i * 3);
    }
    std::memcpy(c.ddr(chip, kRows), in[chip].data(), in[chip].size() * 2);
  }
  const auto plan = std::make_unique<gen::A2aPlan>();
  run_rounds(c, group(chips, 0, own, E, k, cmd::kCdmaFormatBf16), gen::A2aDirection::dispatch, choices, *plan);
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
  uint32_t copies = 0;
  for (uint32_t chip = 0; chip < chips; ++chip) {
    std::vector<uint16_t> want = in[chip];
    for (uint32_t t = 0; t < T; ++t) {
      const uint32_t owner = t / own;
      if (owner == chip || !holds(choices, k, chips, t, chip)) continue;
      ++copies;
      std::memcpy(&want[t * kHidden], &in[owner][t * kHidden], kHidden * 2);
    }
    EXPECT_EQ(std::memcmp(c.ddr(chip, kRows), want.data(), want.size() * 2), 0) << "chip " << chip;
  }
  EXPECT_GT(copies, 0u);
}
