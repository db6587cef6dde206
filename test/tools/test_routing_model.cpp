// The routing models of timing-only runs (tools/run/moe_phases.hpp): routing_choices gives each
// token its top-k expert ids, routing_counts is their histogram, and the counts are the ones the
// per-expert models gave before the per-token choices existed (pinned below as digests, captured
// from the counts-only implementation). step_choices (tools/run/run_steps_state.hpp): every chip
// of an expert-parallel group draws the same choices for a layer and micro-batch.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gen/gen_request.hpp"
#include "gen/model_plan.hpp"
#include "run/moe_phases.hpp"
#include "run/run_steps_state.hpp"

using namespace tilefw;
using namespace tilefw::tools;
namespace fs = std::filesystem;

namespace {

// FNV-1a over the counts' little-endian bytes: the pinned form of a count vector.
uint64_t digest(const std::vector<uint32_t>& v) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t x : v) {
    for (int b = 0; b < 4; ++b) {
      h ^= (x >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

std::string shown(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += std::to_string(x) + ",";
  return s;
}

// The requests the counts were pinned on: deepseek_v3 (256 experts, top 8 among 4 of 8 groups)
// and qwen3_moe (128 experts, top 8, softmax), decode and prefill, T k not a multiple of E.
struct Request {
  const char* name;
  const char* config;
  uint32_t layer;
  const char* phase;
  uint32_t batch, seq;
};
constexpr Request kRequests[] = {
    {"ds_dec33", "deepseek-v3.json", 3, "decode", 33, 1},
    {"ds_pre13", "deepseek-v3.json", 5, "prefill", 1, 13},
    {"qw_dec20", "qwen3-30b-a3b.json", 0, "decode", 20, 1},
    {"qw_pre74", "qwen3-30b-a3b.json", 2, "prefill", 2, 37},
};

gen::SizedLayer plan_for(const Request& r) {
  GenCli cli;
  cli.config = std::string(TILEFW_MODELS_DIR) + "/" + r.config;
  cli.layer = r.layer;
  cli.phase = r.phase;
  cli.batch = r.batch;
  cli.dtype = "bf16";  // the published deepseek_v3 config is fp8
  if (std::string(r.phase) == "decode") {
    cli.kv_len = 100;
  } else {
    cli.seq = r.seq;
  }
  gen::SizedLayer plan;
  HfConfig cfg;
  const auto f = generate(cli, plan, cfg);
  EXPECT_FALSE(f.has_value()) << r.name << ": " << (f ? f->message : "");
  return plan;
}

const std::vector<const char*> kSpecs = {"balanced",   "uniform:0", "uniform:1", "uniform:2",
                                         "uniform:3",  "zipf:1.1:7", "zipf:0:3", "zipf:2.5:0"};

// routing_counts of the counts-only implementation (the parent commit), per request and spec.
const std::map<std::string, uint64_t> kPinned = {
    {"ds_dec33 balanced", 0xa13e41244684e943ull},   {"ds_dec33 uniform:0", 0x3510b9dd9b0e7c35ull},
    {"ds_dec33 uniform:1", 0x30892cd7a8022d35ull},  {"ds_dec33 uniform:2", 0xe4bb9217c05d8743ull},
    {"ds_dec33 uniform:3", 0x61fefe5550716153ull},  {"ds_dec33 zipf:1.1:7", 0xcd2d887013996ff9ull},
    {"ds_dec33 zipf:0:3", 0x5003daf4bf28c855ull},   {"ds_dec33 zipf:2.5:0", 0x984bd18b69c8f843ull},
    {"ds_pre13 balanced", 0x531382f51596d643ull},   {"ds_pre13 uniform:0", 0x552aad7d9c808833ull},
    {"ds_pre13 uniform:1", 0x5d70e0c90edb3ae5ull},  {"ds_pre13 uniform:2", 0x60fb227abac690c1ull},
    {"ds_pre13 uniform:3", 0x39b2106ca5a5aba3ull},  {"ds_pre13 zipf:1.1:7", 0x90e982968e716d53ull},
    {"ds_pre13 zipf:0:3", 0xa86aee938c40ca43ull},   {"ds_pre13 zipf:2.5:0", 0x1f821bc3874ae91dull},
    {"qw_dec20 balanced", 0xbf3f6a9bc82cae83ull},   {"qw_dec20 uniform:0", 0xe5dbe32d167e9645ull},
    {"qw_dec20 uniform:1", 0xfd93f0f0b920b2f5ull},  {"qw_dec20 uniform:2", 0x7fc73baa61fff307ull},
    {"qw_dec20 uniform:3", 0xdacbb7003d7097e1ull},  {"qw_dec20 zipf:1.1:7", 0x4fcbe53a0a23ad2full},
    {"qw_dec20 zipf:0:3", 0x7f24ce51ac00bb17ull},   {"qw_dec20 zipf:2.5:0", 0x13059d373ed306d5ull},
    {"qw_pre74 balanced", 0x74baf0e126a63503ull},   {"qw_pre74 uniform:0", 0x6ae003dc3c7eb2bfull},
    {"qw_pre74 uniform:1", 0x64b36bf4ea86e9b3ull},  {"qw_pre74 uniform:2", 0x0886d2dc11cbac71ull},
    {"qw_pre74 uniform:3", 0x55ee19a048c1cf43ull},  {"qw_pre74 zipf:1.1:7", 0x846081ec9cb9bd5bull},
    {"qw_pre74 zipf:0:3", 0xdb0a0fa4a8013df1ull},   {"qw_pre74 zipf:2.5:0", 0x6a515fb1312f4c15ull},
};

std::vector<uint32_t> histogram(const std::vector<uint32_t>& choices, uint32_t experts) {
  std::vector<uint32_t> h(experts, 0);
  for (uint32_t e : choices) {
    if (e < experts) ++h[e];
  }
  return h;
}

// Each of the T tokens has top_k distinct ids below E.
void expect_top_k(const std::vector<uint32_t>& choices, const gen::SizedLayer& p, const std::string& what) {
  const uint32_t E = p.model.moe.experts, k = p.model.moe.top_k;
  const uint64_t T = uint64_t{p.inference.batch} * p.inference.seq;
  ASSERT_EQ(choices.size(), T * k) << what;
  for (uint64_t t = 0; t < T; ++t) {
    std::set<uint32_t> ids;
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t e = choices[t * k + j];
      EXPECT_LT(e, E) << what << ": token " << t << " choice " << j;
      ids.insert(e);
    }
    EXPECT_EQ(ids.size(), k) << what << ": token " << t << " repeats an expert";
  }
}

// A counts file in a fresh directory, removed with it.
struct CountsFile {
  fs::path dir, path;
  explicit CountsFile(const std::vector<uint32_t>& counts) {
    std::string t = (fs::temp_directory_path() / "tilefw-routing-XXXXXX").string();
    dir = mkdtemp(t.data());
    path = dir / "counts.json";
    std::ofstream(path) << "[" << shown(counts).substr(0, shown(counts).size() - 1) << "]";
  }
  ~CountsFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Counts summing to T k with experts at T (every token), at 0, and the rest spread.
std::vector<uint32_t> file_counts_for(const gen::SizedLayer& p) {
  const uint32_t E = p.model.moe.experts, k = p.model.moe.top_k;
  const uint32_t T = p.inference.batch * p.inference.seq;
  std::vector<uint32_t> c(E, 0);
  uint64_t left = uint64_t{T} * k;
  for (uint32_t e = E; e-- > 0 && left > 0;) {  // from the last expert: every 3rd full, others 1
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(e % 3 == 0 ? T : 1, left));
    c[e] = n;
    left -= n;
  }
  return c;
}

TEST(RoutingModel, CountsAreTodaysAndTheHistogramOfTheChoices) {
  for (const Request& r : kRequests) {
    const gen::SizedLayer p = plan_for(r);
    for (const char* spec : kSpecs) {
      const std::string what = std::string(r.name) + " " + spec;
      std::vector<uint32_t> counts, choices;
      std::string error;
      ASSERT_TRUE(routing_counts(spec, p, counts, error)) << what << ": " << error;
      ASSERT_TRUE(routing_choices(spec, p, choices, error)) << what << ": " << error;
      EXPECT_EQ(digest(counts), kPinned.at(what)) << what << ": " << shown(counts);
      EXPECT_EQ(histogram(choices, p.model.moe.experts), counts) << what;
      expect_top_k(choices, p, what);
    }
  }
}

TEST(RoutingModel, BalancedGoesRoundTheExperts) {
  for (const Request& r : kRequests) {
    const gen::SizedLayer p = plan_for(r);
    std::vector<uint32_t> choices;
    std::string error;
    ASSERT_TRUE(routing_choices("balanced", p, choices, error)) << error;
    const uint32_t E = p.model.moe.experts;
    for (size_t i = 0; i < choices.size(); ++i) ASSERT_EQ(choices[i], i % E) << r.name << " slot " << i;
  }
}

// deepseek_v3: a token's experts lie in at most topk_group of the n_group groups.
TEST(RoutingModel, UniformKeepsTheGroups) {
  for (const Request& r : kRequests) {
    const gen::SizedLayer p = plan_for(r);
    const gen::MoeConfig& m = p.model.moe;
    if (m.routing != gen::Routing::sigmoid_grouped) continue;
    ASSERT_EQ(m.n_group, 8u);
    ASSERT_EQ(m.topk_group, 4u);
    for (const char* spec : {"uniform:0", "uniform:1", "uniform:2", "uniform:3"}) {
      std::vector<uint32_t> choices;
      std::string error;
      ASSERT_TRUE(routing_choices(spec, p, choices, error)) << error;
      std::set<uint32_t> all_groups;
      for (size_t t = 0; t * m.top_k < choices.size(); ++t) {
        std::set<uint32_t> groups;
        for (uint32_t j = 0; j < m.top_k; ++j) groups.insert(choices[t * m.top_k + j] / (m.experts / m.n_group));
        EXPECT_LE(groups.size(), m.topk_group) << r.name << " " << spec << " token " << t;
        all_groups.insert(groups.begin(), groups.end());
      }
      EXPECT_EQ(all_groups.size(), m.n_group) << r.name << " " << spec;  // every group drawn by some token
    }
  }
}

TEST(RoutingModel, FileCountsAreDealtExpertMajor) {
  for (const Request& r : kRequests) {
    const gen::SizedLayer p = plan_for(r);
    const std::vector<uint32_t> want = file_counts_for(p);
    const CountsFile f(want);
    std::vector<uint32_t> counts, choices;
    std::string error;
    ASSERT_TRUE(routing_counts(f.path.string(), p, counts, error)) << error;
    EXPECT_EQ(counts, want) << r.name;
    ASSERT_TRUE(routing_choices(f.path.string(), p, choices, error)) << error;
    EXPECT_EQ(histogram(choices, p.model.moe.experts), want) << r.name;
    expect_top_k(choices, p, std::string(r.name) + " file");
    // Slot i (expert-major) is token i mod T's choice i / T.
    const uint64_t T = uint64_t{p.inference.batch} * p.inference.seq, k = p.model.moe.top_k;
    uint64_t i = 0;
    for (uint32_t e = 0; e < want.size(); ++e) {
      for (uint32_t c = 0; c < want[e]; ++c, ++i) ASSERT_EQ(choices[(i % T) * k + i / T], e) << r.name << " slot " << i;
    }
  }
}

TEST(RoutingModel, RefusalsNameTheProblem) {
  const gen::SizedLayer p = plan_for(kRequests[2]);
  std::vector<uint32_t> choices{1, 2, 3};
  std::string error;
  EXPECT_FALSE(routing_choices("uniform:x", p, choices, error));
  EXPECT_NE(error.find("uniform:SEED"), std::string::npos) << error;
  EXPECT_FALSE(routing_choices("zipf:-1:0", p, choices, error));
  EXPECT_NE(error.find("zipf:S:SEED"), std::string::npos) << error;
  EXPECT_FALSE(routing_choices("/nonexistent/counts.json", p, choices, error));
  EXPECT_EQ(error.rfind("--routing: ", 0), 0u) << error;
  std::vector<uint32_t> bad = file_counts_for(p);
  bad[0] += 1;  // sums to T k + 1
  const CountsFile f(bad);
  EXPECT_FALSE(routing_choices(f.path.string(), p, choices, error));
  EXPECT_NE(error.find("counts sum to"), std::string::npos) << error;
  EXPECT_TRUE(choices.empty());
  // A grouped router whose kept groups hold fewer than top_k experts: 1 group of 4 kept, top 8.
  gen::SizedLayer g = plan_for(kRequests[0]);
  g.model.moe.n_group = 64;
  g.model.moe.topk_group = 1;
  EXPECT_FALSE(routing_choices("uniform:0", g, choices, error));
  EXPECT_NE(error.find("topk_group"), std::string::npos) << error;
  EXPECT_TRUE(routing_choices("balanced", g, choices, error)) << error;  // groups play no part there
}

// A whole model on an expert-parallel group of 4 chips: every chip's MoE step of a layer and
// micro-batch draws the same choices (the routing model's seed moved by layer + 65536 mb), and
// step_counts is their histogram.
TEST(RoutingModel, StepChoicesAgreeOverTheGroup) {
  GenCli cli;
  cli.config = std::string(TILEFW_GEN_CONFIGS_DIR) + "/deepseek_v3_tiny3.json";
  cli.model = true;
  cli.timing_only = true;
  cli.chips = 4;
  cli.ep = 4;
  cli.batch = 8;
  cli.phase = "decode";
  cli.kv_len = 5;
  cli.microbatches = 2;
  cli.pp = 1;
  std::vector<ModelPlan> plans;
  const auto f = plan_all(cli, plans);
  ASSERT_FALSE(f.has_value()) << f->message;
  ASSERT_EQ(plans.size(), 4u);
  for (const char* routing : {"uniform:5", "zipf:1.2:9", "balanced"}) {
    RunCli run;
    run.routing = routing;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> seen;  // (layer, mb) -> choices
    uint32_t moe_steps = 0;
    for (const ModelPlan& mp : plans) {
      for (const ModelStep& s : mp.steps) {
        if (!s.two_phase) continue;
        ++moe_steps;
        for (uint32_t mb = 0; mb < 2; ++mb) {
          std::vector<uint32_t> choices, counts;
          std::string error;
          ASSERT_TRUE(step_choices(run, s, mb, choices, error)) << error;
          ASSERT_TRUE(step_counts(run, s, mb, counts, error)) << error;
          EXPECT_EQ(histogram(choices, s.plan.model.moe.experts), counts) << s.name;
          expect_top_k(choices, s.plan, s.name);
          const auto [it, first] = seen.emplace(std::make_pair(s.layer, mb), choices);
          if (!first) {
            EXPECT_EQ(it->second, choices) << routing << " " << s.name << " mb " << mb;
          }
          // The seed rule: SEED + layer + 65536 mb.
          std::string spec = routing;
          if (spec == "uniform:5") spec = "uniform:" + std::to_string(5 + s.layer + 65536 * mb);
          if (spec == "zipf:1.2:9") spec = "zipf:1.2:" + std::to_string(9 + s.layer + 65536 * mb);
          std::vector<uint32_t> direct;
          ASSERT_TRUE(routing_choices(spec, s.plan, direct, error)) << error;
          EXPECT_EQ(direct, choices) << spec;
        }
      }
    }
    EXPECT_EQ(moe_steps, 4u * 2u) << routing;  // layers 1 and 2 on each of the 4 chips
    if (std::string(routing) != "balanced") {  // layers and micro-batches route differently
      EXPECT_NE(seen.at({1, 0}), seen.at({2, 0})) << routing;
      EXPECT_NE(seen.at({1, 0}), seen.at({1, 1})) << routing;
    }
  }
}

}  // namespace
