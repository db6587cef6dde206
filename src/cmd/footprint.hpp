// Internal to the cmd layer: what one operand of a command touches (its footprint) and the
// checks that put it inside LMEM, SMEM, L2 or a DDR region (used by validate_tiu/validate_dma).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "tilefw/base/status.hpp"
#include "tilefw/cmd/bits.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::cmd::detail {

// Size builds (-Os: the firmware) keep one called copy of the small helpers below; speed
// builds let the compiler inline them where it finds it worth it.
#if defined(__OPTIMIZE_SIZE__)
#define TILEFW_CMD_OUTLINE [[gnu::noinline]]
#else
#define TILEFW_CMD_OUTLINE
#endif

// Never defined: a table that names a field its layout lacks does not compile (a call to a
// non-constexpr function while the constexpr tables are evaluated is an error).
void field_missing_from_layout();

/// A field of one layout as bit offset (bits 9:0) and width (15:10); 0 = the layout has no
/// such field (reads as 0: width 0 masks everything). The TIU checks read their operands
/// through tables of these, so one copy of a check serves the long and the short forms.
struct Fld {
  uint16_t v = 0;
  constexpr bool present() const noexcept { return v != 0; }
};
constexpr bool same_name(const char* a, const char* b) noexcept {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
/// The field `name` of `layout`; `required` false: absent reads as 0 (a short form without it).
template <size_t N>
constexpr Fld fld(const FieldDesc (&layout)[N], const char* name, bool required = true) {
  if (name == nullptr) return Fld{};
  for (const FieldDesc& d : layout) {
    if (same_name(d.name, name)) {
      // No 16-bit form, or wider than get() reads (every field the tables name is 32 bits or less).
      if (d.bit >= 1024 || d.width == 0 || d.width > 32) field_missing_from_layout();
      return Fld{static_cast<uint16_t>(d.bit | (d.width << 10))};
    }
  }
  if (required) field_missing_from_layout();
  return Fld{};
}
// Out of line: one copy for every table read. A field inside one 32-bit word (all but a few)
// is a 32-bit load and shift, which a 32-bit control core does in a few instructions. Every
// field is at most 32 bits wide (fld), so the value is returned in one register.
TILEFW_CMD_OUTLINE inline uint32_t get(const uint8_t* p, Fld f) noexcept {
  const unsigned bit = f.v & 1023u, width = f.v >> 10;
  if (std::endian::native == std::endian::little && (bit & 31u) + width <= 32) {
    uint32_t w;
    __builtin_memcpy(&w, p + (bit >> 5) * 4, sizeof w);
    return static_cast<uint32_t>(w >> (bit & 31u)) & static_cast<uint32_t>(detail::field_mask(width));
  }
  return static_cast<uint32_t>(read_field(p, bit, width));
}

/// A failed check: the Status, the field at fault (its spec name) and a short reason.
struct Fail {
  Status status;
  const char* field;
  const char* message;
  constexpr bool ok() const noexcept { return status == Status::ok; }
};
inline constexpr Fail kPass{Status::ok, "", ""};

/// Element size of a TIU precision code (spec 1.7); 0 = not byte-addressable (INT4: no footprint).
constexpr uint32_t tiu_esize(uint32_t prec) noexcept {
  constexpr uint8_t k[8] = {1, 2, 4, 2, 4, 2, 0, 1};
  return k[prec & 7];
}
// The DMA element size by data format and the strided extent: dma_footprint.hpp, the rule
// shared with the tools that size DDR regions.

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) noexcept { return (a + b - 1) / b; }
/// `elements` rounded up to whole 64-byte lane rows of `esize`-byte elements (esize 1, 2 or
/// 4: a power of two, so no division on the validation path).
constexpr uint64_t align_eu(uint64_t elements, uint32_t esize) noexcept {
  const uint64_t eu = uint64_t{64} >> (esize >> 1);
  return (elements + eu - 1) & ~(eu - 1);
}
static_assert(align_eu(1, 1) == 64 && align_eu(33, 2) == 64 && align_eu(16, 4) == 16 && align_eu(17, 4) == 32);

// What one operand touches. Linear side (DDR, L2, SMEM): `linear_bytes` from the start address.
// LMEM side, for start lane L0 and in-lane offset O (the lane rule of vectors/sg2260-mm0):
// the last byte is below
//   O + (base + ((L0 + lanes - 1) / 64) * cs + n_minus_1 * ns) * esize
// where ns = ceil((L0 + lanes) / 64) * cs in alignEU mode (`align_eu_ns`).
struct Footprint {
  bool known = false;
  uint64_t linear_bytes = 0;
  uint64_t base = 0;  // elements inside one lane row: h/w extents + 1
  uint64_t lanes = 1;
  uint64_t cs = 0;
  uint64_t n_minus_1 = 0;
  uint64_t ns = 0;
  bool align_eu_ns = false;
  bool flat_lmem = false;  // DMA general: [addr, addr + bytes) of the lane-major 16 MiB LMEM
  uint32_t esize = 0;
};

namespace detail_fp {
constexpr uint64_t kLmemSpan = uint64_t{1} << 24;  // 64 lanes x 256 KiB, lane-major
constexpr uint64_t kSmemBit = uint64_t{1} << chip::sg2260::kSmemSelectBit;
}  // namespace detail_fp

// The hot checks have forced-inline forms (`*_inline`): a Footprint returned through memory
// and copied again cost a store-forwarding stall per operand (bench_cmd). The TIU operand
// check, which every TIU command runs, names them through TILEFW_CMD_HOT: the inline forms in
// speed builds, the one called copy in size builds (the firmware: the inline copies cost about
// 600 bytes of image text for about 60 control-core instructions a command, bench/RESULTS.md).
// The other callers call one copy (in a size build).
#if defined(__OPTIMIZE_SIZE__)
#define TILEFW_CMD_HOT(fn) fn
#else
#define TILEFW_CMD_HOT(fn) fn##_inline
#endif

/// A 4-D tensor with explicit strides (elements): linear and LMEM views of the same shape.
/// Unknown (start address only) when a dimension or the element size is 0.
[[gnu::always_inline]] inline Footprint tensor_footprint_inline(uint64_t n, uint64_t c, uint64_t h, uint64_t w,
                                                               uint64_t ns, uint64_t cs, uint64_t hs, uint64_t ws,
                                                               uint32_t esize) noexcept {
  Footprint f;
  if (n == 0 || c == 0 || h == 0 || w == 0 || esize == 0) return f;
  f.known = true;
  f.esize = esize;
  f.linear_bytes = strided_span(n, c, h, w, ns, cs, hs, ws) * esize;
  f.base = (h - 1) * hs + (w - 1) * ws + 1;
  f.lanes = c;
  f.cs = cs;
  f.n_minus_1 = n - 1;
  f.ns = ns;
  return f;
}
/// The same tensor in the alignEU layout (docs/sg2260-commands.md section 5, Rule: stride modes,
/// mode 0): cs = h*w rounded up to 64 B of elements, hs = w, ws = 1, ns = ceil((L0 + c) / 64) * cs.
[[gnu::always_inline]] inline Footprint align_eu_footprint_inline(uint64_t n, uint64_t c, uint64_t h, uint64_t w,
                                                                 uint32_t esize) noexcept {
  if (esize == 0) return Footprint{};
  Footprint f = tensor_footprint_inline(n, c, h, w, 0, align_eu(h * w, esize), w, 1, esize);
  f.align_eu_ns = true;
  return f;
}

// The same, called. Every caller passes field values (32 bits or less; the products are formed
// in 64 bits inside), so the arguments travel in registers and 32-bit stack slots.
// (cs is 64-bit: the alignEU form's is h * w rounded up, which need not fit 32 bits.)
TILEFW_CMD_OUTLINE inline Footprint tensor_footprint(uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t ns,
                                                    uint64_t cs, uint32_t hs, uint32_t ws, uint32_t esize) noexcept {
  return tensor_footprint_inline(n, c, h, w, ns, cs, hs, ws, esize);
}
TILEFW_CMD_OUTLINE inline Footprint align_eu_footprint(uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                                                      uint32_t esize) noexcept {
  if (esize == 0) return Footprint{};
  Footprint f = tensor_footprint(n, c, h, w, 0, align_eu(uint64_t{h} * w, esize), w, 1, esize);
  f.align_eu_ns = true;
  return f;
}

/// A local (TIU, or tag-31 DMA) address: bits 31:27 (DMA: 39:27) name no memory, bits 25:24
/// would be lanes 64..255, SMEM (bit 26) has 64 KiB; then the footprint inside its lane
/// (LMEM) or inside SMEM (linear footprints only: TIU operands in SMEM get a start check).
[[gnu::always_inline]] inline Fail check_local_inline(uint64_t local, const Footprint& f, const char* field) noexcept {
  namespace sg = chip::sg2260;
  // Checked before anything else so that no reserved bit can alias a valid address.
  if ((local >> 27) != 0) {
    return {Status::cmd_lmem_out_of_range, field,
            TILEFW_REASON("local address bits above 26 set (TIU 31:27, DMA 39:27): no memory is defined there")};
  }
  if ((local & detail_fp::kSmemBit) != 0) {
    const uint64_t off = local & ~detail_fp::kSmemBit;
    if (off >= sg::kSmemBytes) {
      return {Status::cmd_lmem_out_of_range, field, TILEFW_REASON("SMEM offset beyond 64 KiB (bits 25:16 set)")};
    }
    if (f.known && f.linear_bytes != 0 && off + f.linear_bytes > sg::kSmemBytes) {
      return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past the end of SMEM")};
    }
    return kPass;
  }
  if (local >= detail_fp::kLmemSpan) {
    return {Status::cmd_lmem_out_of_range, field, TILEFW_REASON("local address bits 25:24 set: lane beyond 63")};
  }
  if (!f.known) return kPass;
  if (f.flat_lmem) {
    if (local + f.linear_bytes > detail_fp::kLmemSpan) {
      return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past the end of LMEM")};
    }
    return kPass;
  }
  const uint64_t l0 = sg::local_lane(local);
  const uint64_t ns = f.align_eu_ns ? ceil_div(l0 + f.lanes, sg::kLanes) * f.cs : f.ns;
  const uint64_t elems = f.base + ((l0 + f.lanes - 1) / sg::kLanes) * f.cs + f.n_minus_1 * ns;
  if (sg::local_offset(local) + elems * f.esize > sg::kLaneBytes) {
    return {Status::cmd_footprint_out_of_range, field, TILEFW_REASON("footprint runs past the end of its LMEM lane")};
  }
  return kPass;
}
TILEFW_CMD_OUTLINE inline Fail check_local(uint64_t local, const Footprint& f, const char* field) noexcept {
  return check_local_inline(local, f, field);
}
/// A 45-bit DMA address by its tag: LMEM/SMEM (31), L2 (30), DDR (1..29; 0 names no region),
/// then the footprint inside LMEM, L2, or the DDR region of the memory map (or the tag's
/// 40-bit space without a map).
Fail check_dma_addr(uint64_t addr, const Footprint& f, const char* field,
                    const ValidateOptions& o) noexcept;

}  // namespace tilefw::cmd::detail

namespace tilefw::cmd {
struct Command;
}

namespace tilefw::cmd::detail {
/// Every operand check of one TIU command (validate_tiu.cpp) or DMA command (validate_dma.cpp):
/// the operands its class uses, each address, then each footprint the layout defines.
Fail check_tiu(const Command& c) noexcept;
/// The operations the simulator executes with layouts of their own (validate_tiu_exec.cpp):
/// CMP eu 22..26, RQ&DQ eu 0, 1, 3, 4 and SGL eu 17, 18, long and short forms.
Fail check_cmp(const Command& c) noexcept;
Fail check_rqdq(const Command& c) noexcept;
Fail check_sgl(const Command& c) noexcept;
/// LIN / sLIN eu 1, 20, 21 with align-EU operands (the long form's stride modes 0): the
/// footprints the simulator reads (sg2260/exec_lin.cpp); other LIN commands keep the generic
/// start checks.
bool lin_executed(const Command& c) noexcept;
/// VC / sVC eu 0, 2..5, 7..11, 13, 15, 16, 20 (sg2260/exec_vc.cpp): R (A_len, res0_c, 1,
/// res0_w), A (1, opd0_c, 1, opd0_w), B (1, res0_c, 1, res0_w), align-EU.
bool vc_executed(const Command& c) noexcept;
Fail check_vc(const Command& c) noexcept;
Fail check_lin(const Command& c) noexcept;
/// The TIU global config registers a stream has written so far (SYS_TR_ACC, in stream order;
/// 0 before): 5 the kernel zero point's address, 6 the requant parameters' address.
struct TgcrState {
  uint32_t kernel_zp = 0;
  uint32_t rq_params = 0;
  void write(uint32_t idx, uint32_t value) noexcept {
    if (idx == 5) kernel_zp = value;
    if (idx == 6) rq_params = value;
  }
};
/// The requantising CONV / sCONV (eu 0, opt_rq): the per-channel tensors at the addresses in
/// TGCR 5 and 6, with the footprints the simulator reads (sg2260/exec_conv_rq.hpp).
Fail check_conv_rq(const Command& c, const TgcrState& t) noexcept;
Fail check_dma(const Command& c, const ValidateOptions& o) noexcept;
/// Every field and address check of one CDMA command (validate_cdma.cpp).
Fail check_cdma(const Command& c, const ValidateOptions& o) noexcept;
/// SDMA streams only: no side of a transfer in local memory (checked after check_dma).
Fail check_sdma_reach(const Command& c) noexcept;
/// validate_stream for Engine::cdma (validate_cdma.cpp).
ValidationReport validate_cdma_stream(ConstByteSpan buffer, const ValidateOptions& o) noexcept;
}  // namespace tilefw::cmd::detail
