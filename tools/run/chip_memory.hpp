// One chip's memory from a manifest, as `tilefw run` places it on a system of chips
// (run_system.cpp) and for a whole model's steps (run_steps.cpp): the chip's DDR regions and
// their first bytes, its inputs or its parts of inputs spread over chips, and a free tag for
// its command streams.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/sg2260_manifest.hpp"
#include "machine.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::tools {

/// A tensor's bytes [offset, offset + bytes) on `chip`: the whole tensor when it lies there, or
/// each of its parts that does.
template <typename Fn>
inline void for_parts_on(const ManifestTensor& t, uint32_t chip, Fn fn) {
  if (t.parts.empty()) {
    if (t.chip == chip) fn(t.device_addr, uint64_t{0}, t.bytes);
    return;
  }
  for (const ManifestPart& p : t.parts) {
    if (p.chip == chip) fn(p.device_addr, p.offset, p.bytes);
  }
}

/// Chip k's part of the manifest's memory in `machine`: its DDR regions (their first bytes from
/// `init_file` unless `timing_only`), then its inputs' bytes (unless `timing_only`). The regions
/// are listed in `ddr` and their tags marked in `used`. false with `error`, the message of an
/// exit 2 (a region that cannot be placed, an input outside the chip's regions, a file that
/// cannot be read).
bool load_chip_memory(const Manifest& m, uint32_t k, bool timing_only, port::host::Machine& machine,
                      std::vector<cmd::DdrRegion>& ddr, bool (&used)[32], std::string& error);

/// The highest DDR tag not in `used`, for a chip's command streams; 0 when none is left.
uint32_t free_ddr_tag(const bool (&used)[32]);

}  // namespace tilefw::tools
