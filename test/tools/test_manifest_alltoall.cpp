// A transfer step generated at run time (tools/formats/sg2260_manifest.hpp, ManifestAlltoall):
// the writer's "alltoall" object reads back the same and writes back the same text; every bad
// value is refused naming its key; `tilefw validate --manifest` says the step is generated at
// run time and reads no stream for it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "formats/sg2260_manifest.hpp"
#include "inspect/validate_manifest.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma.hpp"

using namespace tilefw;
using namespace tilefw::tools;
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using json = nlohmann::json;

namespace {

// A system of 4 chips, each with a neuron region; one compute-free model: a combine over chips
// 0..3 of layer 3, micro-batch 1, then a dispatch over chips 2..3.
Manifest two_alltoalls() {
  Manifest m;
  m.system = default_system(4);
  m.system.given = true;
  for (uint32_t c = 0; c < 4; ++c) {  // chip 3's is smaller: an address of the others' lies outside it
    m.regions.push_back({2, sg::make_dma_address(2, 0), c == 3 ? 0x4000u : 1u << 20, "", "neuron", "", c});
  }
  m.model = {{"generator", {{"config", "config.json"}}}};
  ManifestStep combine;
  combine.name = "combine.4";
  combine.kind = "xfer";
  combine.slot = 4;
  combine.microbatch = 1;
  ManifestAlltoall a;
  a.direction = "combine";
  a.layer = 3;
  a.microbatch = 1;
  a.first_chip = 0;
  a.chips = 4;
  for (uint32_t c = 0; c < 4; ++c) {
    a.per_chip.push_back({sg::make_dma_address(2, 0x1000 + c), sg::make_dma_address(2, 0x3000 + 16 * c), cmd::kCdmaFormatFp32});
  }
  combine.alltoall = a;
  ManifestStep dispatch = combine;
  dispatch.name = "dispatch.5";
  dispatch.slot = 5;
  a.direction = "dispatch";
  a.first_chip = 2;
  a.chips = 2;
  a.per_chip = {{sg::make_dma_address(2, 0x2000), sg::make_dma_address(2, 0x9000), cmd::kCdmaFormatBf16},
                {sg::make_dma_address(2, 0x2000), sg::make_dma_address(2, 0x3100), cmd::kCdmaFormatFp16}};
  dispatch.alltoall = a;
  m.steps = {combine, dispatch};
  return m;
}

void expect_same(const ManifestAlltoall& a, const ManifestAlltoall& b) {
  EXPECT_EQ(a.direction, b.direction);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.microbatch, b.microbatch);
  EXPECT_EQ(a.first_chip, b.first_chip);
  EXPECT_EQ(a.chips, b.chips);
  ASSERT_EQ(a.per_chip.size(), b.per_chip.size());
  for (size_t i = 0; i < a.per_chip.size(); ++i) {
    EXPECT_EQ(a.per_chip[i].rows, b.per_chip[i].rows) << i;
    EXPECT_EQ(a.per_chip[i].choices, b.per_chip[i].choices) << i;
    EXPECT_EQ(a.per_chip[i].format, b.per_chip[i].format) << i;
  }
}

TEST(ManifestAlltoall, RoundTripsWithNoStreams) {
  const Manifest m = two_alltoalls();
  const json j = manifest_json(m);
  const json& st = j["model"]["steps"][0];
  EXPECT_FALSE(st.contains("cdma"));
  EXPECT_FALSE(st.contains("cores"));
  ASSERT_TRUE(st.contains("alltoall") && st["alltoall"].contains("per_chip")) << st.dump();
  EXPECT_EQ(st["alltoall"]["per_chip"].at(1).value("rows", ""), "0x20000001001");
  EXPECT_EQ(st["alltoall"]["per_chip"].at(1).value("format", ""), "f32");
  EXPECT_EQ(j["model"]["steps"][1].value("alltoall", json::object()).value("per_chip", json::array({json::object()})).at(0).value("format", ""), "bf16");
  Manifest back;
  std::string error;
  ASSERT_TRUE(parse_manifest(j, "/d", false, back, error)) << error;
  ASSERT_EQ(back.steps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(back.steps[i].alltoall.has_value()) << i;
    EXPECT_TRUE(back.steps[i].cdma.empty());
    expect_same(*back.steps[i].alltoall, *m.steps[i].alltoall);
  }
  // The config's path is resolved against the directory: set it back, then the same text.
  back.model["generator"]["config"] = "config.json";
  EXPECT_EQ(manifest_json(back).dump(1), j.dump(1));
}

// `edit` applied to the written manifest's first step's alltoall (or the step, or the whole).
std::string refusal(const std::function<void(json& whole, json& step, json& a2a)>& edit) {
  json j = manifest_json(two_alltoalls());
  json& step = j["model"]["steps"][0];
  edit(j, step, step["alltoall"]);
  Manifest out;
  std::string error;
  if (parse_manifest(j, "/d", false, out, error)) return "accepted";
  return error;
}

TEST(ManifestAlltoall, BadValuesAreRefusedNamingTheKey) {
  const std::string at = "model.steps[0].alltoall";
  struct Case {
    const char* what;
    std::function<void(json&, json&, json&)> edit;
    std::string key;
  } cases[] = {
      {"not an object", [](json&, json& s, json&) { s["alltoall"] = 3; }, at + ": expected an object"},
      {"direction", [](json&, json&, json& a) { a["direction"] = "gather"; }, at + ".direction: not \"combine\""},
      {"direction type", [](json&, json&, json& a) { a["direction"] = 1; }, at + ".direction: not"},
      {"no layer", [](json&, json&, json& a) { a.erase("layer"); }, at + ": missing key \"layer\""},
      {"layer", [](json&, json&, json& a) { a["layer"] = -1; }, at + ".layer: not a JSON integer"},
      {"microbatch", [](json&, json&, json& a) { a["microbatch"] = "12"; }, at + ".microbatch: not a JSON integer"},
      {"first_chip", [](json&, json&, json& a) { a["first_chip"] = 4; }, at + ".first_chip: 4 is out of range 0..3"},
      {"chips past", [](json&, json&, json& a) { a["first_chip"] = 2; }, at + ".chips: 4 is out of range 0..2"},
      {"one chip", [](json&, json&, json& a) { a["chips"] = 1; }, at + ".chips: 1: an all-to-all needs 2"},
      {"per_chip type", [](json&, json&, json& a) { a["per_chip"] = json::object(); }, at + ".per_chip: expected an array"},
      {"per_chip size", [](json&, json&, json& a) { a["chips"] = 3; }, at + ".per_chip: 4 entries for the group's 3"},
      {"entry", [](json&, json&, json& a) { a["per_chip"][2] = "x"; }, at + ".per_chip[2]: expected an object"},
      {"rows", [](json&, json&, json& a) { a["per_chip"][1]["rows"] = "0x30000000000"; },
       at + ".per_chip[1].rows: address 3298534883328 lies in no memory.ddr_regions entry of chip 1"},
      {"rows past", [](json&, json&, json& a) { a["per_chip"][1]["rows"] = "0x20000100000"; },
       at + ".per_chip[1].rows: address"},
      {"another chip's", [](json&, json&, json& a) { a["per_chip"][3]["choices"] = "0x20000008000"; },
       at + ".per_chip[3].choices: address 2199023288320 lies in no memory.ddr_regions entry of chip 3"},
      {"choices", [](json&, json&, json& a) { a["per_chip"][0]["choices"] = "0xZZ"; }, at + ".per_chip[0].choices: not a JSON integer"},
      {"no choices", [](json&, json&, json& a) { a["per_chip"][0].erase("choices"); }, at + ".per_chip[0]: missing key \"choices\""},
      {"format", [](json&, json&, json& a) { a["per_chip"][2]["format"] = "i8"; }, at + ".per_chip[2].format: not \"f32\""},
      {"format number", [](json&, json&, json& a) { a["per_chip"][2]["format"] = 2; }, at + ".per_chip[2].format: not"},
      {"with cdma", [](json&, json& s, json&) { s["cdma"] = json::array(); },
       "model.steps[0].cdma: a transfer generated at run time (alltoall) names no streams"},
      {"on a layer", [](json&, json& s, json&) { s["kind"] = "layer"; },
       at + ": only a transfer step (kind xfer) is generated at run time"},
      {"no system", [](json& j, json&, json&) {
         j.erase("system");  // one chip: its region only
         j["memory"]["ddr_regions"] = json::array({j["memory"]["ddr_regions"][0]});
       },
       at + ": an all-to-all needs a \"system\""},
  };
  for (const Case& c : cases) {
    const std::string error = refusal(c.edit);
    EXPECT_EQ(error.rfind(c.key, 0), 0u) << c.what << ": " << error;
  }
  EXPECT_EQ(refusal([](json&, json&, json&) {}), "accepted");  // the unedited manifest reads
}

TEST(ManifestAlltoall, ValidateSaysGeneratedAtRunTime) {
  std::string t = (fs::temp_directory_path() / "tilefw-a2a-XXXXXX").string();
  const fs::path dir = mkdtemp(t.data());
  const fs::path path = dir / "manifest.json";
  std::string error;
  ASSERT_TRUE(write_manifest(path.string(), two_alltoalls(), error)) << error;
  testing::internal::CaptureStdout();
  const int rc = validate_manifest_streams(path.string());
  std::fflush(stdout);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, "OK " + path.string() + "[combine.4]: generated at run time (combine of layer 3, micro-batch 1, chips 0..3)\n" +
                     "OK " + path.string() + "[dispatch.5]: generated at run time (dispatch of layer 3, micro-batch 1, chips 2..3)\n");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
