// libFuzzer targets for the readers of `tilefw run`, `validate --manifest` and `conform`
// (hostile input, the fuzzing class). TILEFW_FUZZ_TARGET_MANIFEST selects one:
//   1 (manifest): the input is a manifest.json text; parse_manifest must return (never throw,
//                 never crash) with a message naming a key on failure, and on success every
//                 rule it promises must hold: 1..8 distinct cores in 0..7, regions in 0..29
//                 whose tag matches their address and that end inside their tag's space
//                 without overlapping, every input and output inside one region, output
//                 names plain and distinct, file names non-empty.
//   0 (conform):  the input is a case file (written to a per-process temporary file) run by
//                 conform::run_case_file: it must return an outcome (never throw or crash),
//                 and a failing one must say why.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "conform/conform_case.hpp"
#include "formats/sg2260_manifest.hpp"

using namespace tilefw::tools;

namespace {
void require(bool c) {
  if (!c) std::abort();
}

[[maybe_unused]] bool inside(const Manifest& m, uint32_t chip, uint64_t addr, uint64_t bytes) {
  for (const ManifestRegion& r : m.regions) {
    if (r.chip == chip && addr >= r.device_addr && addr - r.device_addr <= r.bytes && bytes <= r.bytes - (addr - r.device_addr)) return true;
  }
  return false;
}

[[maybe_unused]] void check_manifest(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  for (const bool timing_only : {false, true}) {
    Manifest m;
    std::string error;
    if (!parse_manifest(j, "dir", timing_only, m, error)) {
      require(!error.empty());
      continue;
    }
    // One chip unless a system says more; a chip with no cores only when CDMA streams or a
    // whole model's steps exist.
    const uint32_t chips = m.system.chips;
    require(chips >= 1 && chips <= 64 && (m.system.given || chips == 1));
    require((!m.cores.empty() || !m.cdma.empty() || !m.steps.empty()) && m.cores.size() <= 8u * chips);
    const auto check_cores = [&](const std::vector<ManifestCore>& cores) {
      for (size_t i = 0; i < cores.size(); ++i) {
        const ManifestCore& c = cores[i];
        require(c.core < 8 && c.chip < chips);
        for (size_t k = 0; k < i; ++k) require(cores[k].chip != c.chip || cores[k].core != c.core);
        require(!c.file[0].empty() && !c.file[1].empty());
      }
    };
    const auto check_cdma = [&](const std::vector<ManifestCdma>& list) {
      for (size_t i = 0; i < list.size(); ++i) {
        const ManifestCdma& c = list[i];
        require(c.chip < chips && c.peer < chips && c.chip != c.peer && !c.file.empty());
        for (size_t k = 0; k < i; ++k) require(list[k].chip != c.chip || list[k].peer != c.peer);
      }
    };
    check_cores(m.cores);
    check_cdma(m.cdma);
    // A whole model's steps: slots never go down; a transfer step has CDMA streams or, generated
    // at run time, an all-to-all over a group of 2 or more of the system's chips (one entry a
    // chip, a format it moves) and no cores; any other its cores only.
    for (size_t i = 0; i < m.steps.size(); ++i) {
      const ManifestStep& st = m.steps[i];
      require(i == 0 || st.slot >= m.steps[i - 1].slot);
      if (st.alltoall) {
        const ManifestAlltoall& a = *st.alltoall;
        require(st.kind == "xfer" && st.cdma.empty() && st.cores.empty());
        require(a.direction == "combine" || a.direction == "dispatch");
        require(a.chips >= 2 && a.first_chip < chips && a.chips <= chips - a.first_chip && a.per_chip.size() == a.chips);
        for (const ManifestAlltoallChip& c : a.per_chip) require(*alltoall_format_name(c.format) != '\0');
        continue;
      }
      require(st.kind == "xfer" ? (!st.cdma.empty() && st.cores.empty()) : (!st.cores.empty() && st.cdma.empty()));
      check_cores(st.cores);
      check_cdma(st.cdma);
    }
    require(m.steps.empty() || m.model.is_object());
    for (size_t i = 0; i < m.regions.size(); ++i) {
      const ManifestRegion& r = m.regions[i];
      require(r.chip < chips);
      require(r.tag <= 29 && (r.device_addr >> 40) == r.tag && r.bytes >= 1);
      require(r.bytes <= (uint64_t{1} << 40) - (r.device_addr & ((uint64_t{1} << 40) - 1)));
      for (size_t k = 0; k < i; ++k) {
        const ManifestRegion& o = m.regions[k];
        require(o.chip != r.chip || r.device_addr >= o.device_addr + o.bytes || o.device_addr >= r.device_addr + r.bytes);
      }
    }
    // A tensor lies inside one region of its chip, or its parts cover it in order, each inside
    // a region of its own chip.
    const auto placed = [&](const ManifestTensor& t) {
      if (t.parts.empty()) return inside(m, t.chip, t.device_addr, t.bytes);
      uint64_t at = 0;
      for (const ManifestPart& p : t.parts) {
        if (p.offset != at || p.chip >= chips || !inside(m, p.chip, p.device_addr, p.bytes)) return false;
        at += p.bytes;
      }
      return at == t.bytes;
    };
    for (const ManifestTensor& t : m.inputs) require(placed(t) && (timing_only || !t.file.empty()));
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      const std::string& n = m.outputs[i].name;
      require(placed(m.outputs[i]));
      require(!n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos);
      for (size_t k = 0; k < i; ++k) require(m.outputs[k].name != n);
    }
  }
}

[[maybe_unused]] void check_case(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tilefw_fuzz_case_" + std::to_string(::getpid()) + ".json";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  const conform::Outcome o = conform::run_case_file(path);
  require(o.kind == conform::Outcome::pass || !o.reason.empty());
  std::remove(path.c_str());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#if TILEFW_FUZZ_TARGET_MANIFEST
  check_manifest(data, size);
#else
  check_case(data, size);
#endif
  return 0;
}
