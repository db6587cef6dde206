// GDMA/SDMA operand checks for every cmd_type (what is checked per type: validate.hpp), and the
// operand ranges the same footprints give (dma_footprint.hpp).
// Element sizes come from src_data_format (the DMA never converts types); strides are in
// elements; an LMEM side follows the lane rule, DDR/L2/SMEM sides are linear.

#include "footprint.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;

struct Sides {
  Footprint src, dst;
};

// tensor (every sp_func), cw_transpose, reverse, randmask, transfer, masked_select and nonzero
// sources: each side with its own sizes and strides; nchw_copy = 1 gives dst the src sizes.
// NC-transpose (tensor sp_func 1) writes dst(c, n, h, w) = src(n, c, h, w).
template <typename V>
Sides tensor_sides(const V& v, uint32_t esize, bool nc_transpose) noexcept {
  Sides s;
  const uint32_t n = v.src_nsize(), c = v.src_csize(), h = v.src_hsize(), w = v.src_wsize();
  s.src = tensor_footprint(n, c, h, w, v.src_nstride(), v.src_cstride(), v.src_hstride(), v.src_wstride(),
                           esize);
  uint32_t dn = v.dst_nsize(), dc = v.dst_csize(), dh = v.dst_hsize(), dw = v.dst_wsize();
  if (nc_transpose) {
    dn = c;
    dc = n;
    dh = h;
    dw = w;
  } else if (v.nchw_copy() != 0) {
    dn = n;
    dc = c;
    dh = h;
    dw = w;
  }
  s.dst = tensor_footprint(dn, dc, dh, dw, v.dst_nstride(), v.dst_cstride(), v.dst_hstride(), v.dst_wstride(),
                           esize);
  return s;
}

// matrix sp_func 0 with exactly one LMEM side (vectors/sg2260-mm0 README): the global side is
// H rows x W columns with row stride hstride; the LMEM side splits each row into sections of
// `sec` columns, one per lane, row r at r * nstride, the c-stride once c passes lane 63.
template <typename V>
Fail matrix_sides(const V& v, uint32_t esize, Sides& s) noexcept {
  const bool src_local = sg::dma_tag(v.src_start_addr()) == sg::kTagLmem;
  const bool dst_local = sg::dma_tag(v.dst_start_addr()) == sg::kTagLmem;
  if (src_local == dst_local || esize == 0) return kPass;  // start checks only
  const uint32_t H = src_local ? v.dst_hsize() : v.src_hsize();
  const uint32_t W = src_local ? v.dst_wsize() : v.src_wsize();
  const uint32_t hs = src_local ? v.dst_hstride() : v.src_hstride();
  const uint32_t sec = src_local ? v.src_wsize() : v.dst_wsize();
  if (H == 0 || W == 0) return kPass;
  if (sec == 0) {
    return {Status::cmd_bad_field, src_local ? "src_wsize" : "dst_wsize",
        TILEFW_REASON("matrix LMEM section width is 0")};
  }
  Footprint g;
  g.known = true;
  g.esize = esize;
  g.linear_bytes = (uint64_t{H - 1} * hs + W) * esize;
  Footprint l;
  l.known = true;
  l.esize = esize;
  l.base = sec < W ? sec : W;
  // W and sec are 16-bit fields: a 32-bit divide (one instruction on Cortex-M; a 64-bit one
  // links libgcc's 64-bit division, about 800 bytes, into every firmware image).
  l.lanes = (W - 1) / sec + 1;
  l.cs = src_local ? v.src_cstride() : v.dst_cstride();
  l.n_minus_1 = H - 1;
  l.ns = src_local ? v.src_nstride() : v.dst_nstride();
  s.src = src_local ? l : g;
  s.dst = src_local ? g : l;
  return kPass;
}

// The footprints of a move's source and destination (what validation checks and
// dma_operands reports); a Fail when a field leaves them undefined.
template <typename V>
Fail move_sides(const Command& c, const V& v, uint32_t esize, Sides& s) noexcept {
  switch (c.cls) {
    case CmdClass::dma_tensor:
      // A plain copy moves every element once: both sides hold the same number.
      if (c.eu == 0 && v.fill_constant_en() == 0 && v.nchw_copy() == 0 &&
          uint64_t{v.src_nsize()} * v.src_csize() * v.src_hsize() * v.src_wsize() !=
              uint64_t{v.dst_nsize()} * v.dst_csize() * v.dst_hsize() * v.dst_wsize()) {
        return {Status::cmd_bad_field, "dst_nsize", TILEFW_REASON("tensor copy: src and dst element counts differ")};
      }
      s = tensor_sides(v, esize, c.eu == 1);
      return kPass;
    case CmdClass::dma_matrix:
      // transpose (sp_func 1): the command set gives no side layout; start checks
      return c.eu == 0 ? matrix_sides(v, esize, s) : kPass;
    case CmdClass::dma_general: {
      // 1-D move of src_cstride elements; LMEM is addressed flat (lane-major). Broadcast
      // (sp_func 1) reads the source; where its copies go the command set does not say.
      const uint64_t len = v.src_cstride();
      if (len != 0 && esize != 0) {
        Footprint f;
        f.known = true;
        f.esize = esize;
        f.linear_bytes = len * esize;
        f.flat_lmem = true;
        s.src = f;
        if (c.eu == 0) s.dst = f;
      }
      return kPass;
    }
    case CmdClass::dma_masked_select:
    case CmdClass::dma_nonzero:
      // The destination holds as many elements as the data selects: start check.
      s = tensor_sides(v, esize, false);
      s.dst = Footprint{};
      return kPass;
    default: s = tensor_sides(v, esize, false); return kPass;  // cw_transpose, reverse, randmask, transfer
  }
}

// fill_constant_en replaces the source only where the simulator fills: tensor and general.
// Every other class reads its source whatever the bit says, so it is checked (a matrix DMA
// with the bit set would otherwise pass here and fault at run time).
template <typename V>
bool source_filled(const Command& c, const V& v) noexcept {
  return v.fill_constant_en() != 0 && (c.cls == CmdClass::dma_tensor || c.cls == CmdClass::dma_general);
}

template <typename V>
Fail check_move(const Command& c, const V& v, const ValidateOptions& o) noexcept {
  const uint32_t esize = dma_element_bytes(v.src_data_format());
  if (esize == kBadDmaFormat) return {Status::cmd_bad_field, "src_data_format", TILEFW_REASON("data format > 9")};
  Sides s;
  const Fail sized = move_sides(c, v, esize, s);
  if (!sized.ok()) return sized;
  if (!source_filled(c, v)) {
    const Fail r = check_dma_addr(v.src_start_addr(), s.src, "src_start_addr", o);
    if (!r.ok()) return r;
  }
  return check_dma_addr(v.dst_start_addr(), s.dst, "dst_start_addr", o);
}
// gather / scatter (tilefw decision, sg2260/sim.hpp): src (csize, hsize, wsize) and dst
// (csize, hsize, wsize) with their c/h strides and w contiguous; the index tensor is
// (index_csize, index_hsize) uint32 with c-stride index_cstride and h contiguous. Every row of
// each side is in the footprint (which rows an index names is data). Shapes: src and dst
// agree on c and w, index_hsize is the walked side's h (gather dst, scatter src), index_csize
// is 1 or that c.
struct GatherSides {
  Footprint src, dst, index;
};
Fail gather_scatter_sides(const Command& c, const DmaGatherScatterView& v, GatherSides& s) noexcept {
  const uint32_t esize = dma_element_bytes(v.src_data_format());
  if (esize == kBadDmaFormat) return {Status::cmd_bad_field, "src_data_format", TILEFW_REASON("data format > 9")};
  const bool scatter = c.cls == CmdClass::dma_scatter;
  if (v.src_csize() != v.dst_csize()) {
    return {Status::cmd_bad_field, "dst_csize", TILEFW_REASON("gather/scatter: src and dst c sizes differ")};
  }
  if (v.src_wsize() != v.dst_wsize()) {
    return {Status::cmd_bad_field, "dst_wsize", TILEFW_REASON("gather/scatter: src and dst w sizes differ")};
  }
  if (v.index_hsize() != (scatter ? v.src_hsize() : v.dst_hsize())) {
    return {Status::cmd_bad_field, "index_hsize",
        TILEFW_REASON("gather/scatter: index h size differs from the walked side's")};
  }
  if (v.index_csize() != 1 && v.index_csize() != v.dst_csize()) {
    return {Status::cmd_bad_field, "index_csize",
        TILEFW_REASON("gather/scatter: index c size is neither 1 nor the c size")};
  }
  s.src = tensor_footprint(1, v.src_csize(), v.src_hsize(), v.src_wsize(), 0, v.src_cstride(), v.src_hstride(), 1,
                           esize);
  s.dst = tensor_footprint(1, v.dst_csize(), v.dst_hsize(), v.dst_wsize(), 0, v.dst_cstride(), v.dst_hstride(), 1,
                           esize);
  s.index = tensor_footprint(1, v.index_csize(), v.index_hsize(), 1, 0, v.index_cstride(), 1, 1, 4);
  return kPass;
}

Fail check_gather_scatter(const Command& c, const DmaGatherScatterView& v, const ValidateOptions& o) noexcept {
  GatherSides s;
  Fail r = gather_scatter_sides(c, v, s);
  if (r.ok()) r = check_dma_addr(v.src_start_addr(), s.src, "src_start_addr", o);
  if (r.ok()) r = check_dma_addr(v.dst_start_addr(), s.dst, "dst_start_addr", o);
  if (r.ok()) r = check_dma_addr(v.index_start_addr(), s.index, "index_start_addr", o);
  return r;
}

DmaOperand operand(uint64_t addr, const Footprint& f) noexcept {
  return DmaOperand{true, addr, f.known ? f.linear_bytes : 0};
}

// A move's operands: the footprints validation checks, or the start addresses alone when a
// field leaves them undefined.
template <typename V>
DmaOperands move_operands(const Command& c, const V& v) noexcept {
  const uint32_t esize = dma_element_bytes(v.src_data_format());
  Sides s;
  if (esize == kBadDmaFormat || !move_sides(c, v, esize, s).ok()) s = Sides{};
  DmaOperands out;
  if (!source_filled(c, v)) out.src = operand(v.src_start_addr(), s.src);
  out.dst = operand(v.dst_start_addr(), s.dst);
  return out;
}
}  // namespace

Fail check_sdma_reach(const Command& c) noexcept {
  // The SG2260 SDMA moves between DDR and L2 only: the vendor's SDMA operand checks refuse
  // local memory (LMEM, and SMEM: both tag 31) on either side of every transfer.
  static constexpr const char* kWhy = TILEFW_REASON("the SDMA cannot address local memory (LMEM or SMEM, tag 31)");
  const auto local = [](uint64_t a) { return sg::dma_tag(a) == sg::kTagLmem; };
  switch (c.cls) {
    case CmdClass::dma_gather:
    case CmdClass::dma_scatter: {
      const DmaGatherScatterView v = c.as<DmaGatherScatterView>();
      if (local(v.src_start_addr())) return {Status::cmd_bad_address_tag, "src_start_addr", kWhy};
      if (local(v.dst_start_addr())) return {Status::cmd_bad_address_tag, "dst_start_addr", kWhy};
      if (local(v.index_start_addr())) return {Status::cmd_bad_address_tag, "index_start_addr", kWhy};
      return kPass;
    }
    case CmdClass::dma_tensor:
    case CmdClass::dma_masked_select:
    case CmdClass::dma_nonzero:
    case CmdClass::dma_matrix:
    case CmdClass::dma_general:
    case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse:
    case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: {
      const DmaCommonView v = c.as<DmaCommonView>();
      const bool fills = v.fill_constant_en() != 0 && (c.cls == CmdClass::dma_tensor || c.cls == CmdClass::dma_general);
      if (!fills && local(v.src_start_addr())) return {Status::cmd_bad_address_tag, "src_start_addr", kWhy};
      if (local(v.dst_start_addr())) return {Status::cmd_bad_address_tag, "dst_start_addr", kWhy};
      if (c.cls == CmdClass::dma_masked_select && local(c.as<DmaMaskedSelectView>().mask_start_addr())) {
        return {Status::cmd_bad_address_tag, "mask_start_addr", kWhy};
      }
      return kPass;
    }
    default: return kPass;  // sys; compress/decompress/lossy_* are opaque (Rule: closed class lists)
  }
}

Fail check_dma(const Command& c, const ValidateOptions& o) noexcept {
  const Footprint none;
  switch (c.cls) {
    case CmdClass::dma_tensor: return check_move(c, c.as<DmaTensorView>(), o);
    case CmdClass::dma_masked_select: {
      const DmaMaskedSelectView v = c.as<DmaMaskedSelectView>();
      const Fail r = check_move(c, v, o);
      if (!r.ok()) return r;
      return check_dma_addr(v.mask_start_addr(), none, "mask_start_addr", o);
    }
    case CmdClass::dma_nonzero: return check_move(c, c.as<DmaNonzeroView>(), o);
    case CmdClass::dma_matrix:
    case CmdClass::dma_general:
    case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse:
    case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: return check_move(c, c.as<DmaCommonView>(), o);
    case CmdClass::dma_gather:
    case CmdClass::dma_scatter: return check_gather_scatter(c, c.as<DmaGatherScatterView>(), o);
    default: return kPass;  // sys; compress/decompress/lossy_* are opaque (Rule: closed class lists)
  }
}

}  // namespace tilefw::cmd::detail

namespace tilefw::cmd {

DmaOperands dma_operands(const Command& c) noexcept {
  using detail::move_operands;
  switch (c.cls) {
    case CmdClass::dma_tensor: return move_operands(c, c.as<DmaTensorView>());
    case CmdClass::dma_masked_select: {
      const DmaMaskedSelectView v = c.as<DmaMaskedSelectView>();
      DmaOperands out = move_operands(c, v);
      out.extra = DmaOperand{true, v.mask_start_addr(), 0};
      return out;
    }
    case CmdClass::dma_nonzero: return move_operands(c, c.as<DmaNonzeroView>());
    case CmdClass::dma_matrix:
    case CmdClass::dma_general:
    case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse:
    case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: return move_operands(c, c.as<DmaCommonView>());
    case CmdClass::dma_gather:
    case CmdClass::dma_scatter: {
      const DmaGatherScatterView v = c.as<DmaGatherScatterView>();
      detail::GatherSides s;
      if (!detail::gather_scatter_sides(c, v, s).ok()) s = detail::GatherSides{};
      DmaOperands out;
      out.src = detail::operand(v.src_start_addr(), s.src);
      out.dst = detail::operand(v.dst_start_addr(), s.dst);
      out.extra = detail::operand(v.index_start_addr(), s.index);
      return out;
    }
    default: return DmaOperands{};  // sys; compress/decompress/lossy_* are opaque
  }
}

}  // namespace tilefw::cmd
