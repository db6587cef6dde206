// Host only: `tilefw gen` on test/gen/configs/llama_gqa.json with the pinned decode request
// writes stream files that hash to the same constants as the core test pins (and the Cortex-M
// builds reproduce), and equal what size_layer + emit_layer give in this process: host tool,
// host core and Cortex-M core agree byte for byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tilefw/gen/generator.hpp"

using namespace tilefw;
using namespace tilefw::gen;
namespace fs = std::filesystem;

namespace gentest {  // test_gen_core_pinned.cpp
void tiny_decode(ModelConfig& m, InferenceConfig& in, ParallelConfig& par) noexcept;
uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept;
void pinned_stream(uint32_t core, uint32_t engine, uint64_t& bytes, uint64_t& fnv) noexcept;
}  // namespace gentest

namespace {

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(GenCli, StreamFilesMatchPinnedAndCore) {
  ASSERT_TRUE(fs::exists(TILEFW_CLI)) << TILEFW_CLI << " not built (run ninja first)";
  const fs::path dir = fs::temp_directory_path() / ("tilefw_gen_core_cli." + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string cmd = std::string("'") + TILEFW_CLI + "' gen --config '" + TILEFW_GEN_CONFIG + "' --out '" +
                          dir.string() + "' --phase decode --kv-len 3 --seq 1 --batch 1 > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  // The same request through the core library in this process.
  ModelConfig m;
  InferenceConfig in;
  ParallelConfig par;
  gentest::tiny_decode(m, in, par);
  static SizedLayer plan;
  GenError err;
  ASSERT_EQ(size_layer(m, in, par, plan, err), Status::ok);
  std::vector<std::vector<uint8_t>> mem(kMaxCores * kEngines);
  StreamBuffers bufs;
  for (uint32_t c = 0; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      auto& v = mem[c * kEngines + e];
      v.resize(plan.stream_bytes[c][e]);
      bufs.stream[c][e] = ByteSpan(v.data(), v.size());
    }
  }
  ASSERT_EQ(emit_layer(plan, bufs, err), Status::ok);

  const char* ext[kEngines] = {"BD", "GDMA", "SDMA"};
  for (uint32_t c = 0; c < kMaxCores; ++c) {
    for (uint32_t e = 0; e < kEngines; ++e) {
      const fs::path f = dir / ("layer." + std::string(ext[e]) + "." + std::to_string(c));
      ASSERT_TRUE(fs::exists(f)) << f;
      const std::vector<uint8_t> bytes = read_all(f);
      uint64_t want_size = 0, want_fnv = 0;
      gentest::pinned_stream(c, e, want_size, want_fnv);
      EXPECT_EQ(bytes.size(), want_size) << f;
      EXPECT_EQ(gentest::fnv1a64(bytes.data(), bytes.size()), want_fnv) << f;
      EXPECT_EQ(bytes, mem[c * kEngines + e]) << f << " differs from size_layer + emit_layer";
    }
  }
  fs::remove_all(dir);
}

}  // namespace
