// DMA addresses by tag and the memory each footprint must stay inside (see footprint.hpp).

#include "footprint.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;
}  // namespace

Fail check_dma_addr(uint64_t addr, const Footprint& f, const char* field,
                    const ValidateOptions& o) noexcept {
  const uint32_t tag = sg::dma_tag(addr);
  const uint64_t off = sg::dma_offset(addr);
  if (tag == sg::kTagLmem) return check_local(off, f, field);
  const uint64_t bytes = f.known ? f.linear_bytes : 0;
  if (tag == sg::kTagL2) {
    if (off < sg::kL2Base || off >= sg::kL2Base + sg::kL2Bytes) {
      return {Status::cmd_bad_address_tag, field, TILEFW_REASON("L2 address outside L2 SRAM")};
    }
    if (off - sg::kL2Base + bytes > sg::kL2Bytes) {
      return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past the end of L2")};
    }
    return kPass;
  }
  if (tag == 0) return {Status::cmd_bad_address_tag, field, TILEFW_REASON("DDR tag 0 names no region")};
  if (!o.use_memory_map) {
    if (off + bytes > (uint64_t{1} << sg::kTagShift)) {
      return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past the DDR tag's space")};
    }
    return kPass;
  }
  for (const DdrRegion& r : o.ddr_regions) {
    if (addr >= r.device_addr && addr - r.device_addr < r.bytes) {
      if (bytes > r.bytes - (addr - r.device_addr)) {
        return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past its DDR region")};
      }
      return kPass;
    }
  }
  return {Status::cmd_bad_address_tag, field, TILEFW_REASON("DDR address outside the memory map")};
}

}  // namespace tilefw::cmd::detail

namespace tilefw::cmd {

bool dma_linear_operand_ok(uint64_t addr, uint64_t bytes, const ValidateOptions& o) noexcept {
  if (chip::sg2260::dma_tag(addr) == chip::sg2260::kTagLmem) return false;
  detail::Footprint f;
  f.known = true;
  f.linear_bytes = bytes;
  return detail::check_dma_addr(addr, f, "", o).ok();
}

}  // namespace tilefw::cmd
