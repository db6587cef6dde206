// `tilefw run`'s in-memory run input (tools/run/run_input.hpp) and the manifest writer
// (tools/formats/sg2260_manifest.hpp), on the real inputs: the two BM1690 models of
// test/data/sg2260-tdb become run inputs without a file written (regions sized by the DMA
// footprint rule, every stream validating against them), and the sg2260-mm0 manifest reads
// back whole after a write.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/bmodel.hpp"
#include "commands.hpp"
#include "run/run_bmodel.hpp"
#include "run/run_input.hpp"
#include "formats/sg2260_manifest.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::tools;
namespace fs = std::filesystem;
namespace sg = chip::sg2260;

namespace {

std::string tdb(const std::string& name) { return std::string(TILEFW_TDB_DIR) + "/" + name + ".bmodel"; }

// A fresh, empty directory as TMPDIR: a run input built meanwhile must leave it empty.
struct EmptyTmpdir {
  fs::path dir;
  EmptyTmpdir() {
    std::string t = (fs::temp_directory_path() / "tilefw-run-input-XXXXXX").string();
    dir = mkdtemp(t.data());
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~EmptyTmpdir() {
    unsetenv("TMPDIR");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  bool empty() const { return fs::is_empty(dir); }
};

struct Region {
  uint32_t tag;
  uint64_t bytes;
  ByteSource::Kind kind;
};

void expect_regions(const RunInput& in, const std::vector<Region>& want) {
  ASSERT_EQ(in.regions.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(in.regions[i].tag, want[i].tag);
    EXPECT_EQ(in.regions[i].device_addr, sg::make_dma_address(want[i].tag, 0));
    EXPECT_EQ(in.regions[i].bytes, want[i].bytes) << "tag " << want[i].tag;
    EXPECT_EQ(in.regions[i].init.kind, want[i].kind) << "tag " << want[i].tag;
  }
}

// Every core's streams validate against the input's regions (the memory map run uses), and
// the op labels name every TIU/GDMA/SDMA command.
void expect_streams_run(const RunInput& in) {
  std::vector<cmd::DdrRegion> ddr;
  for (const RunRegion& r : in.regions) ddr.push_back(cmd::DdrRegion{r.tag, r.device_addr, r.bytes});
  cmd::ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const cmd::DdrRegion>(ddr.data(), ddr.size());
  for (const RunCore& c : in.cores) {
    const cmd::CoreStreams s{c.stream[0].bytes, c.stream[1].bytes, c.stream[2].bytes, c.stream[3].bytes};
    cmd::CoreCommandCounts counts;
    const cmd::ValidationReport r = cmd::validate_core(s, o, counts);
    EXPECT_TRUE(r.ok()) << "core " << c.core << " engine " << static_cast<int>(r.engine) << " command "
                        << r.command_id << ": " << r.message << " (" << r.field << ")";
    for (uint32_t e = 0; e < 3; ++e) {
      EXPECT_GT(counts.by_engine[e], 0u);
      EXPECT_EQ(in.ops.label(c.core, e, counts.by_engine[e]).empty(), false) << "core " << c.core << " engine " << e;
    }
    for (int e = 0; e < kManifestEngines; ++e) {
      const ConstByteSpan b = c.stream[e].bytes;
      EXPECT_TRUE(c.stream[e].file.empty());  // in memory: spans of the file's bytes
      if (!b.empty()) {
        EXPECT_GE(b.data(), in.held.data());
        EXPECT_LE(b.data() + b.size(), in.held.data() + in.held.size());
      }
    }
  }
}

}  // namespace

// The regions are those the temporary manifest of earlier tilefw runs declared (the same tags
// and sizes: the core footprint rule agrees with the tool's former table on these models).
TEST(RunInputBmodel, Resnet50InMemory) {
  EmptyTmpdir tmp;
  BmodelRunOptions o;
  o.bmodel = tdb("resnet50_v2_bm1690_f16_core8");
  RunInput in;
  ASSERT_EQ(bmodel_run_input(o, /*with_ops=*/true, in), 0);
  EXPECT_TRUE(tmp.empty());
  EXPECT_TRUE(in.from_bmodel);
  expect_regions(in, {{1, 51474432, ByteSource::Kind::drawn_f16}, {2, 606208, ByteSource::Kind::none}});
  ASSERT_EQ(in.outputs.size(), 1u);
  EXPECT_EQ(in.outputs[0].name, "resnetv24_dense0_fwd_Gemm_f32");
  EXPECT_EQ(in.outputs[0].device_addr, 0x20000093000u);
  EXPECT_EQ(in.outputs[0].bytes, 4000u);
  EXPECT_EQ(in.outputs[0].shape, (std::vector<uint64_t>{1, 1000}));  // 1000 f32 classes
  EXPECT_TRUE(in.inputs.empty());  // none given: the context region starts zeroed
  ASSERT_EQ(in.cores.size(), 8u);
  expect_streams_run(in);
}

TEST(RunInputBmodel, Yolov5sInMemory) {
  EmptyTmpdir tmp;
  BmodelRunOptions o;
  o.bmodel = tdb("yolov5s_bm1690_f16_core8");
  RunInput in;
  ASSERT_EQ(bmodel_run_input(o, /*with_ops=*/true, in), 0);
  EXPECT_TRUE(tmp.empty());
  expect_regions(in, {{1, 14749696, ByteSource::Kind::drawn_f16}, {2, 13488128, ByteSource::Kind::none}});
  const std::vector<std::pair<std::string, uint64_t>> outputs = {
      {"350_Transpose_f32", 6528000}, {"498_Transpose_f32", 1632000}, {"646_Transpose_f32", 408000}};
  ASSERT_EQ(in.outputs.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(in.outputs[i].name, outputs[i].first);
    EXPECT_EQ(in.outputs[i].bytes, outputs[i].second);
  }
  expect_streams_run(in);
}

TEST(RunInputBmodel, TimingOnlyPlacesNoBytesAndLabelsOnlyWhenAsked) {
  BmodelRunOptions o;
  o.bmodel = tdb("yolov5s_bm1690_f16_core8");
  o.timing_only = true;
  RunInput in;
  ASSERT_EQ(bmodel_run_input(o, /*with_ops=*/false, in), 0);
  for (const RunRegion& r : in.regions) EXPECT_EQ(r.init.kind, ByteSource::Kind::none);
  EXPECT_TRUE(in.ops.empty());
  expect_regions(in, {{1, 14749696, ByteSource::Kind::none}, {2, 13488128, ByteSource::Kind::none}});
}

TEST(RunInputBmodel, DdrLimitAndInputsAreCheckedBeforeAnythingIsPlaced) {
  BmodelRunOptions o;
  o.bmodel = tdb("yolov5s_bm1690_f16_core8");
  o.max_ddr_bytes = uint64_t{1} << 20;
  RunInput in;
  EXPECT_EQ(bmodel_run_input(o, false, in), 2);
  o.max_ddr_bytes = 0;
  o.inputs = {"nosuch=/dev/null"};
  EXPECT_EQ(bmodel_run_input(o, false, in), 2);
}

TEST(RunInputBmodel, AGivenInputIsReadFromItsFileAtLoad) {
  const std::string path = tdb("resnet50_v2_bm1690_f16_core8");
  std::vector<uint8_t> file;
  std::string why;
  ASSERT_TRUE(read_input(path, file, why)) << why;
  Bmodel m;
  ASSERT_TRUE(parse_bmodel(ConstByteSpan(file.data(), file.size()), m, why)) << why;
  ASSERT_FALSE(m.inputs.empty());
  EmptyTmpdir tmp;
  const fs::path data = tmp.dir / "input.bin";
  std::ofstream(data, std::ios::binary) << std::string(m.inputs[0].size, '\x01');
  BmodelRunOptions o;
  o.bmodel = path;
  o.inputs = {m.inputs[0].name + "=" + data.string()};
  RunInput in;
  ASSERT_EQ(bmodel_run_input(o, false, in), 0);
  ASSERT_EQ(in.inputs.size(), 1u);
  EXPECT_EQ(in.inputs[0].name, m.inputs[0].name);
  EXPECT_EQ(in.inputs[0].device_addr, m.inputs[0].device_addr);
  EXPECT_EQ(in.inputs[0].bytes, m.inputs[0].size);
  EXPECT_EQ(in.inputs[0].init.kind, ByteSource::Kind::file);
  EXPECT_EQ(in.inputs[0].init.file, data.string());
  // One byte short: refused before anything is placed.
  std::ofstream(data, std::ios::binary) << std::string(m.inputs[0].size - 1, '\x01');
  EXPECT_EQ(bmodel_run_input(o, false, in), 2);
}

TEST(RunInputBmodel, DrawnWeightsAreTheSeedsDraws) {
  // Four f16 weights per 64-bit draw, low half first: the first draw of seed 0.
  std::mt19937_64 a(0), b(0);
  uint8_t w[16] = {};
  draw_f16_weights(a, w, 12);  // 12 bytes: one whole draw, the partial second left as it is
  const uint64_t r = b();
  for (int k = 0; k < 4; ++k) {
    const uint32_t index = static_cast<uint32_t>((r >> (16 * k)) & 0xFFFF);
    const float want = (static_cast<float>(index) + 0.5f) / 65536.0f - 0.5f;
    const uint16_t h = static_cast<uint16_t>(w[2 * k] | (w[2 * k + 1] << 8));
    EXPECT_EQ(h, to_half(want).bits);
  }
  for (int i = 8; i < 16; ++i) EXPECT_EQ(w[i], 0);
}

// ---- the manifest writer ---------------------------------------------------------------------

namespace {
std::string relative(const std::string& path, const fs::path& dir) {
  return path.empty() ? path : fs::path(path).lexically_relative(dir).string();
}
// The reader's file names are resolved against the manifest's directory; a writer writes them
// relative to it.
Manifest relative_to(Manifest m, const fs::path& dir) {
  for (ManifestRegion& r : m.regions) r.init_file = relative(r.init_file, dir);
  for (auto* list : {&m.weights, &m.inputs}) {
    for (ManifestTensor& t : *list) t.file = relative(t.file, dir);
  }
  for (ManifestCore& c : m.cores) {
    for (std::string& f : c.file) f = relative(f, dir);
  }
  return m;
}
void expect_same(const Manifest& a, const Manifest& b) {
  EXPECT_EQ(manifest_json(a), manifest_json(b));
  ASSERT_EQ(a.regions.size(), b.regions.size());
  ASSERT_EQ(a.cores.size(), b.cores.size());
  for (size_t i = 0; i < a.cores.size(); ++i) {
    for (int e = 0; e < kManifestEngines; ++e) EXPECT_EQ(a.cores[i].file[e], b.cores[i].file[e]);
  }
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.outputs[i].name, b.outputs[i].name);
    EXPECT_EQ(a.outputs[i].device_addr, b.outputs[i].device_addr);
    EXPECT_EQ(a.outputs[i].bytes, b.outputs[i].bytes);
  }
}
}  // namespace

TEST(ManifestWriter, RealManifestReadsBackWhole) {
  const fs::path mm0 = fs::path(TILEFW_MM0_DIR);
  Manifest first;
  std::string error;
  ASSERT_TRUE(read_manifest((mm0 / "manifest.json").string(), false, first, error)) << error;
  EXPECT_EQ(first.name, "sg2260-mm0");
  EXPECT_EQ(first.chip, "BM1690");
  EXPECT_EQ(first.core_num, 8u);
  ASSERT_EQ(first.cores.size(), 8u);
  EXPECT_FALSE(first.cores[0].sized);  // "bytes" but no "commands": not taken as counts
  ASSERT_EQ(first.regions.size(), 2u);
  EXPECT_EQ(first.regions[0].role, "coeff (weights)");
  EXPECT_EQ(first.regions[1].init_note, "zero-fill, then copy each input .dat to its offset");
  EXPECT_FALSE(first.l2.given);  // its "l2" describes allocations, not an offset and size
  ASSERT_EQ(first.inputs.size(), 1u);
  EXPECT_EQ(first.inputs[0].name, "y.1");
  EXPECT_EQ(first.inputs[0].bytes, 2176u);
  // Written, read again: the same manifest.
  EmptyTmpdir tmp;
  const fs::path out = tmp.dir / "manifest.json";
  const Manifest written = relative_to(first, mm0);
  ASSERT_TRUE(write_manifest(out.string(), written, error)) << error;
  Manifest second;
  ASSERT_TRUE(read_manifest(out.string(), false, second, error)) << error;
  expect_same(relative_to(second, tmp.dir), written);
}

TEST(ManifestWriter, EveryKeyRoundTripsAndTheTextIsStable) {
  Manifest m;
  m.name = "tilefw-gen llama layer 0";
  m.chip = "BM1690";
  m.chip_aliases = {"SG2260"};
  m.core_num = 2;
  m.regions = {{1, sg::make_dma_address(1, 0), 8192, "weights.bin", "coeff", ""},
               {2, sg::make_dma_address(2, 0), 4096, "", "neuron", "zero-fill"}};
  m.l2 = ManifestL2{true, 0x1000, 65536, 1024};
  m.weights = {{"w", sg::make_dma_address(1, 64), 128, "weights.bin", 64, {4, 16}, "f16"}};
  m.inputs = {{"x", sg::make_dma_address(2, 0), 64, "x.bin", 0, {2, 16}, "f16"}};
  m.outputs = {{"y", sg::make_dma_address(2, 1024), 64, "", 0, {2, 16}, "f16"}};
  for (uint32_t c = 0; c < 2; ++c) {
    ManifestCore core;
    core.core = c;
    core.sized = true;
    for (int e = 0; e < 3; ++e) {
      core.file[e] = "core" + std::to_string(c) + "." + kManifestEngineNames[e];
      core.bytes[e] = 256u * (e + 1);
      core.commands[e] = 3u + e;
    }
    m.cores.push_back(core);
  }
  m.report = {{"flops", 1.5e9}, {"phase", "prefill"}};
  m.moe_phases = {{"generator", {{"config", "config.json"}}}, {"counts", "expert_tokens"}};
  EmptyTmpdir tmp;
  const fs::path path = tmp.dir / "manifest.json";
  std::string error;
  ASSERT_TRUE(write_manifest(path.string(), m, error)) << error;
  Manifest back;
  ASSERT_TRUE(read_manifest(path.string(), false, back, error)) << error;
  const Manifest rel = relative_to(back, tmp.dir);
  expect_same(rel, m);
  EXPECT_EQ(rel.weights[0].shape, (std::vector<uint64_t>{4, 16}));
  EXPECT_EQ(rel.regions[1].init_note, "zero-fill");
  EXPECT_EQ(back.moe_config, (tmp.dir / "config.json").string());
  // Written again from what was read: byte for byte the same text.
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(manifest_json(rel).dump(1) + "\n", text);
  EXPECT_NE(text.find("\"device_addr\": \"0x10000000040\""), std::string::npos);
}
