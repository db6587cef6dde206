// The run input of a manifest, and the weights drawn for a model that ships none (run_input.hpp).
#include "run/run_input.hpp"

#include <filesystem>

#include "tilefw/base/float16.hpp"

namespace tilefw::tools {

uint64_t RunInput::ddr_bytes() const noexcept {
  uint64_t n = 0;
  for (const RunRegion& r : regions) n += r.bytes;  // at most 30 x 2^40: no overflow
  return n;
}

void RunInput::release_bytes() noexcept {
  for (RunRegion& r : regions) r.init.bytes = {};
  for (RunCore& c : cores) {
    for (RunStream& s : c.stream) s.bytes = {};
  }
  std::vector<uint8_t>().swap(held);
}

void run_input_from_manifest(Manifest&& m, const std::string& path, RunInput& out) {
  out.source = path;
  out.from_bmodel = false;
  for (const ManifestRegion& r : m.regions) {
    RunRegion g = run_region(r.tag, r.device_addr, r.bytes);
    if (!r.init_file.empty()) {
      g.init.kind = ByteSource::Kind::file;
      g.init.file = r.init_file;
    }
    out.regions.push_back(std::move(g));
  }
  for (ManifestTensor& t : m.inputs) {
    RunTensor x = run_tensor(std::move(t.name), t.device_addr, t.bytes, std::move(t.shape));
    x.init.kind = ByteSource::Kind::file;  // a timing-only reading may leave the name empty
    x.init.file = std::move(t.file);
    x.init.file_offset = t.file_offset;
    out.inputs.push_back(std::move(x));
  }
  for (ManifestTensor& t : m.outputs) {
    out.outputs.push_back(run_tensor(std::move(t.name), t.device_addr, t.bytes, std::move(t.shape)));
  }
  for (const ManifestCore& c : m.cores) {
    RunCore rc;
    rc.core = c.core;
    for (int e = 0; e < kManifestEngines; ++e) {
      RunStream& s = rc.stream[e];
      s.given = !c.file[e].empty();
      s.file = s.shown = c.file[e];
    }
    out.cores.push_back(std::move(rc));
  }
  out.report = std::move(m.report);
  out.moe_phases = std::move(m.moe_phases);
  out.moe_config = std::move(m.moe_config);
  // Generated layers keep their op labels next to the manifest (tilefw gen writes ops.json).
  std::error_code ec;
  const std::filesystem::path ops = std::filesystem::path(path).parent_path() / "ops.json";
  if (std::filesystem::is_regular_file(ops, ec)) out.ops_file = ops.string();
}

void draw_f16_weights(std::mt19937_64& rng, uint8_t* dst, uint64_t n) {
  // Through a table of the 65536 conversions, so hundreds of MB fill fast also in sanitizer builds.
  static const std::vector<uint16_t> kHalves = [] {
    std::vector<uint16_t> t(65536);
    for (uint32_t k = 0; k < t.size(); ++k) t[k] = to_half((static_cast<float>(k) + 0.5f) / 65536.0f - 0.5f).bits;
    return t;
  }();
  for (uint64_t i = 0; i + 7 < n; i += 8) {
    const uint64_t r = rng();
    for (int k = 0; k < 4; ++k) {
      const uint16_t h = kHalves[(r >> (16 * k)) & 0xFFFF];
      dst[i + 2 * k] = static_cast<uint8_t>(h);
      dst[i + 2 * k + 1] = static_cast<uint8_t>(h >> 8);
    }
  }
}

}  // namespace tilefw::tools
