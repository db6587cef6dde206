// Operand footprints and the memory each must stay inside (see footprint.hpp).

#include "footprint.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;
constexpr uint64_t kLmemSpan = uint64_t{1} << 24;  // 64 lanes x 256 KiB, lane-major
constexpr uint64_t kSmemBit = uint64_t{1} << sg::kSmemSelectBit;
}  // namespace

Footprint tensor_footprint(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                           uint64_t hs, uint64_t ws, uint32_t esize) noexcept {
  Footprint f;
  if (n == 0 || c == 0 || h == 0 || w == 0 || esize == 0) return f;
  f.known = true;
  f.esize = esize;
  f.linear_bytes = ((n - 1) * ns + (c - 1) * cs + (h - 1) * hs + (w - 1) * ws + 1) * esize;
  f.base = (h - 1) * hs + (w - 1) * ws + 1;
  f.lanes = c;
  f.cs = cs;
  f.n_minus_1 = n - 1;
  f.ns = ns;
  return f;
}

Footprint align_eu_footprint(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint32_t esize) noexcept {
  if (esize == 0) return Footprint{};
  const uint64_t eu = 64 / esize;
  Footprint f = tensor_footprint(n, c, h, w, 0, ceil_div(h * w, eu) * eu, w, 1, esize);
  f.align_eu_ns = true;
  return f;
}

Fail check_local(uint64_t local, const Footprint& f, const char* field) noexcept {
  // Checked before anything else so that no reserved bit can alias a valid address.
  if ((local >> 27) != 0) {
    return {Status::cmd_lmem_out_of_range, field,
            "local address bits above 26 set (TIU 31:27, DMA 39:27): no memory is defined there"};
  }
  if ((local & kSmemBit) != 0) {
    const uint64_t off = local & ~kSmemBit;
    if (off >= sg::kSmemBytes) {
      return {Status::cmd_lmem_out_of_range, field, "SMEM offset beyond 64 KiB (bits 25:16 set)"};
    }
    if (f.known && f.linear_bytes != 0 && off + f.linear_bytes > sg::kSmemBytes) {
      return {Status::cmd_footprint_out_of_range, field, "footprint runs past the end of SMEM"};
    }
    return kPass;
  }
  if (local >= kLmemSpan) {
    return {Status::cmd_lmem_out_of_range, field, "local address bits 25:24 set: lane beyond 63"};
  }
  if (!f.known) return kPass;
  if (f.flat_lmem) {
    if (local + f.linear_bytes > kLmemSpan) {
      return {Status::cmd_footprint_out_of_range, field, "footprint runs past the end of LMEM"};
    }
    return kPass;
  }
  const uint64_t l0 = sg::local_lane(local);
  const uint64_t ns = f.align_eu_ns ? ceil_div(l0 + f.lanes, sg::kLanes) * f.cs : f.ns;
  const uint64_t elems = f.base + ((l0 + f.lanes - 1) / sg::kLanes) * f.cs + f.n_minus_1 * ns;
  if (sg::local_offset(local) + elems * f.esize > sg::kLaneBytes) {
    return {Status::cmd_footprint_out_of_range, field, "footprint runs past the end of its LMEM lane"};
  }
  return kPass;
}

Fail check_dma_addr(uint64_t addr, const Footprint& f, const char* field,
                    const ValidateOptions& o) noexcept {
  const uint32_t tag = sg::dma_tag(addr);
  const uint64_t off = sg::dma_offset(addr);
  if (tag == sg::kTagLmem) return check_local(off, f, field);
  const uint64_t bytes = f.known ? f.linear_bytes : 0;
  if (tag == sg::kTagL2) {
    if (off < sg::kL2Base || off >= sg::kL2Base + sg::kL2Bytes) {
      return {Status::cmd_bad_address_tag, field, "L2 address outside L2 SRAM"};
    }
    if (off - sg::kL2Base + bytes > sg::kL2Bytes) {
      return {Status::cmd_footprint_out_of_range, field, "footprint runs past the end of L2"};
    }
    return kPass;
  }
  if (tag == 0) return {Status::cmd_bad_address_tag, field, "DDR tag 0 names no region"};
  if (!o.use_memory_map) {
    if (off + bytes > (uint64_t{1} << sg::kTagShift)) {
      return {Status::cmd_footprint_out_of_range, field, "footprint runs past the DDR tag's space"};
    }
    return kPass;
  }
  for (const DdrRegion& r : o.ddr_regions) {
    if (addr >= r.device_addr && addr - r.device_addr < r.bytes) {
      if (bytes > r.bytes - (addr - r.device_addr)) {
        return {Status::cmd_footprint_out_of_range, field, "footprint runs past its DDR region"};
      }
      return kPass;
    }
  }
  return {Status::cmd_bad_address_tag, field, "DDR address outside the memory map"};
}

}  // namespace tilefw::cmd::detail
