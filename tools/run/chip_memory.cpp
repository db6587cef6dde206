// One chip's memory from a manifest (chip_memory.hpp).
#include "run/chip_memory.hpp"

#include <algorithm>

#include "common/input_files.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace tilefw::tools {

namespace sg = chip::sg2260;

bool load_chip_memory(const Manifest& m, uint32_t k, bool timing_only, port::host::Machine& machine,
                      std::vector<cmd::DdrRegion>& ddr, bool (&used)[32], std::string& error) {
  for (const ManifestRegion& g : m.regions) {
    if (g.chip != k) continue;
    if (machine.add_region(sg::ddr_region(g.tag, sg::dma_offset(g.device_addr), g.bytes)) != Status::ok) {
      error = "chip " + std::to_string(k) + ": DDR region of tag " + std::to_string(g.tag) + " cannot be placed";
      return false;
    }
    used[g.tag] = true;
    ddr.push_back(cmd::DdrRegion{g.tag, g.device_addr, g.bytes});
    if (timing_only || g.init_file.empty()) continue;
    uint64_t size = 0;
    if (!regular_file_size(g.init_file, size, error)) return false;
    uint8_t* dst = machine.translate(sg::kDdrWindowBase + g.device_addr, g.bytes).value();
    if (!read_file_into(g.init_file, 0, std::min(size, g.bytes), dst, error)) return false;
  }
  if (timing_only) return true;
  for (const ManifestTensor& t : m.inputs) {
    bool ok = true;
    for_parts_on(t, k, [&](uint64_t addr, uint64_t offset, uint64_t bytes) {
      if (!ok || bytes == 0) return;
      const Result<uint8_t*> dst = machine.translate(sg::kDdrWindowBase + addr, bytes);
      if (!dst.ok()) {
        error = "input " + escape_line(t.name) + ": outside chip " + std::to_string(k) + "'s regions";
        ok = false;
      } else if (!read_file_into(t.file, t.file_offset + offset, bytes, dst.value(), error)) {
        error = "input " + escape_line(t.name) + ": " + error;
        ok = false;
      }
    });
    if (!ok) return false;
  }
  return true;
}

uint32_t free_ddr_tag(const bool (&used)[32]) {
  uint32_t tag = sg::kMaxDdrTag;
  while (tag > 0 && used[tag]) --tag;
  return tag;
}

}  // namespace tilefw::tools
