// Whole-buffer validation (see validate.hpp for the exact list of checks and classes).

#include "tilefw/cmd/validate.hpp"

#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {
namespace sg = chip::sg2260;

struct Fail {
  Status status;
  const char* field;
  const char* message;
};
constexpr Fail kPass{Status::ok, "", ""};
constexpr uint64_t kLmemSpan = uint64_t{1} << 24;  // 64 lanes x 256 KiB, lane-major
constexpr uint32_t kBadFormat = 0xFFFFFFFFu;

// Element size of a TIU precision code (spec 1.7); 0 = no footprint check (INT4).
uint32_t tiu_esize(uint32_t prec) noexcept {
  constexpr uint8_t k[8] = {1, 2, 4, 2, 4, 2, 0, 1};
  return k[prec & 7];
}
// Element size of a DMA data format (spec 2.3); 0 = no check (INT4, FP20); kBadFormat > 9.
uint32_t dma_esize(uint32_t format) noexcept {
  constexpr uint8_t k[10] = {1, 2, 4, 2, 4, 2, 0, 1, 0, 4};
  return format < 10 ? k[format] : kBadFormat;
}

// What one operand touches. Global (DDR/L2) side: `global_bytes` from the start address.
// Local (LMEM) side, for start lane L0 and in-lane offset O: the last byte is below
//   O + (base + ((L0 + lanes - 1) / 64) * cs + n_part) * esize
// where n_part = (n - 1) * ns, and ns = ceil((L0 + lanes) / 64) * cs in alignEU mode.
struct Footprint {
  bool known = false;
  uint64_t global_bytes = 0;
  uint64_t base = 0;  // elements inside one lane row, + h/w extents, + 1
  uint64_t lanes = 1;
  uint64_t cs = 0;
  uint64_t n_minus_1 = 0;
  uint64_t ns = 0;
  bool align_eu_ns = false;
  bool linear_local = false;  // general: [addr, addr + bytes) inside the lane-major LMEM
  uint32_t esize = 0;
};

uint64_t ceil_div(uint64_t a, uint64_t b) noexcept { return (a + b - 1) / b; }

Fail check_local(uint64_t local, const Footprint& f, const char* field) noexcept {
  if (sg::local_is_smem(local)) {
    if ((local & ~(uint64_t{1} << sg::kSmemSelectBit)) >= sg::kSmemBytes) {
      return {Status::cmd_lmem_out_of_range, field, "SMEM offset beyond 64 KiB"};
    }
    return kPass;
  }
  if (local >= kLmemSpan) {
    return {Status::cmd_lmem_out_of_range, field, "local address beyond lane 63 / 256 KiB lanes"};
  }
  if (!f.known) return kPass;
  if (f.linear_local) {
    if (local + f.global_bytes > kLmemSpan) {
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
  const uint64_t bytes = f.known ? f.global_bytes : 0;
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

// Footprint of a 4-D tensor with explicit strides, on whichever side it lands.
Footprint tensor_fp(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                    uint64_t hs, uint64_t ws, uint32_t esize) noexcept {
  Footprint f;
  if (n == 0 || c == 0 || h == 0 || w == 0 || esize == 0) return f;
  f.known = true;
  f.esize = esize;
  f.global_bytes = ((n - 1) * ns + (c - 1) * cs + (h - 1) * hs + (w - 1) * ws + 1) * esize;
  f.base = (h - 1) * hs + (w - 1) * ws + 1;
  f.lanes = c;
  f.cs = cs;
  f.n_minus_1 = n - 1;
  f.ns = ns;
  return f;
}

template <typename V>
Fail check_dma_move(const Command& c, const V& v, const ValidateOptions& o) noexcept {
  const uint32_t esize = dma_esize(v.src_data_format());
  if (esize == kBadFormat) return {Status::cmd_bad_field, "src_data_format", "data format > 9"};
  Footprint src, dst;
  const uint32_t sp = c.eu;
  if (c.cls == CmdClass::dma_tensor && sp == 0) {
    src = tensor_fp(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.src_nstride(),
                    v.src_cstride(), v.src_hstride(), v.src_wstride(), esize);
    const bool same = v.nchw_copy() != 0;
    dst = tensor_fp(same ? v.src_nsize() : v.dst_nsize(), same ? v.src_csize() : v.dst_csize(),
                    same ? v.src_hsize() : v.dst_hsize(), same ? v.src_wsize() : v.dst_wsize(),
                    v.dst_nstride(), v.dst_cstride(), v.dst_hstride(), v.dst_wstride(), esize);
  } else if (c.cls == CmdClass::dma_matrix && sp == 0) {
    const bool src_local = sg::dma_tag(v.src_start_addr()) == sg::kTagLmem;
    const bool dst_local = sg::dma_tag(v.dst_start_addr()) == sg::kTagLmem;
    if (src_local != dst_local && esize != 0) {
      // Global side: H rows x W columns, row stride hstride. LMEM side: rows split into
      // sections of `sec` columns, one per lane, row r at r * nstride.
      const uint64_t H = src_local ? v.dst_hsize() : v.src_hsize();
      const uint64_t W = src_local ? v.dst_wsize() : v.src_wsize();
      const uint64_t hs = src_local ? v.dst_hstride() : v.src_hstride();
      const uint64_t sec = src_local ? v.src_wsize() : v.dst_wsize();
      const uint64_t lns = src_local ? v.src_nstride() : v.dst_nstride();
      const uint64_t lcs = src_local ? v.src_cstride() : v.dst_cstride();
      if (H != 0 && W != 0) {
        if (sec == 0) {
          return {Status::cmd_bad_field, src_local ? "src_wsize" : "dst_wsize",
                  "matrix LMEM section width is 0"};
        }
        Footprint g;
        g.known = true;
        g.esize = esize;
        g.global_bytes = ((H - 1) * hs + W) * esize;
        Footprint l;
        l.known = true;
        l.esize = esize;
        l.base = (sec < W ? sec : W);
        l.lanes = (W - 1) / sec + 1;
        l.cs = lcs;
        l.n_minus_1 = H - 1;
        l.ns = lns;
        src = src_local ? l : g;
        dst = src_local ? g : l;
      }
    }
  } else if (c.cls == CmdClass::dma_general && esize != 0) {
    const uint64_t len = v.src_cstride();
    if (len != 0) {
      Footprint f;
      f.known = true;
      f.esize = esize;
      f.global_bytes = len * esize;
      f.linear_local = true;
      src = f;
      if (sp == 0) dst = f;
    }
  }
  if (v.fill_constant_en() == 0) {
    const Fail r = check_dma_addr(v.src_start_addr(), src, "src_start_addr", o);
    if (r.status != Status::ok) return r;
  }
  return check_dma_addr(v.dst_start_addr(), dst, "dst_start_addr", o);
}

Fail check_dma(const Command& c, const ValidateOptions& o) noexcept {
  const Footprint none;
  switch (c.cls) {
    case CmdClass::dma_tensor: return check_dma_move(c, c.as<DmaTensorView>(), o);
    case CmdClass::dma_masked_select: {
      const DmaMaskedSelectView v = c.as<DmaMaskedSelectView>();
      const Fail r = check_dma_move(c, v, o);
      if (r.status != Status::ok) return r;
      return check_dma_addr(v.mask_start_addr(), none, "mask_start_addr", o);
    }
    case CmdClass::dma_nonzero: return check_dma_move(c, c.as<DmaNonzeroView>(), o);
    case CmdClass::dma_matrix:
    case CmdClass::dma_general:
    case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse:
    case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: return check_dma_move(c, c.as<DmaCommonView>(), o);
    case CmdClass::dma_gather:
    case CmdClass::dma_scatter: {
      const DmaGatherScatterView v = c.as<DmaGatherScatterView>();
      Fail r = check_dma_addr(v.src_start_addr(), none, "src_start_addr", o);
      if (r.status == Status::ok) r = check_dma_addr(v.dst_start_addr(), none, "dst_start_addr", o);
      if (r.status == Status::ok) r = check_dma_addr(v.index_start_addr(), none, "index_start_addr", o);
      return r;
    }
    default: return kPass;  // sys and the opaque compress classes
  }
}

// A TIU operand of res0's shape in stride mode `mode` (0 alignEU, 3 explicit strides).
Fail tiu_operand(uint64_t addr, uint32_t prec, uint32_t mode, uint64_t n, uint64_t c, uint64_t h,
                 uint64_t w, uint64_t ns, uint64_t cs, uint64_t hs, uint64_t ws, const char* field,
                 const char* mode_field) noexcept {
  const uint32_t esize = tiu_esize(prec);
  Footprint f;
  if (mode == 0) {
    if (esize != 0) {
      const uint64_t eu = 64 / esize;
      const uint64_t a_cs = ceil_div(h * w, eu) * eu;
      f = tensor_fp(n, c, h, w, 0, a_cs, w, 1, esize);
      f.align_eu_ns = true;
    }
  } else if (mode == 3) {
    f = tensor_fp(n, c, h, w, ns, cs, hs, ws, esize);
  } else {
    return {Status::cmd_bad_field, mode_field, "stride mode other than 0 (alignEU) or 3 (explicit)"};
  }
  return check_local(addr, f, field);
}

// R x C "matrix2" operand: one row per lane from the start lane, C contiguous elements, alignEU.
Fail tiu_matrix2(uint64_t addr, uint32_t prec, uint64_t rows, uint64_t cols, const char* field) noexcept {
  const uint32_t esize = tiu_esize(prec);
  Footprint f;
  if (esize != 0 && rows != 0 && cols != 0) {
    const uint64_t eu = 64 / esize;
    f.known = true;
    f.esize = esize;
    f.base = cols;
    f.lanes = rows;
    f.cs = ceil_div(cols, eu) * eu;
  }
  return check_local(addr, f, field);
}

Fail check_tiu(const Command& c) noexcept {
  if (c.cls == CmdClass::sAR) {
    const SArView v = c.as<SArView>();
    const uint64_t n = v.res0_n(), ch = v.res0_c(), h = v.res0_h(), w = v.res0_w();
    Fail r = tiu_operand(v.res0_addr(), v.opt_res0_prec(), v.short_res0_str(), n, ch, h, w,
                         v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str(),
                         "res0_addr", "short_res0_str");
    if (r.status != Status::ok) return r;
    if (v.opt_opd0_const() == 0) {
      r = tiu_operand(v.opd0_addr(), v.opt_opd0_prec(), v.short_opd0_str(), n, ch, h, w,
                      v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str(), "opd0_addr",
                      "short_opd0_str");
      if (r.status != Status::ok) return r;
    }
    if (v.tsk_opd_num() >= 2 && v.opt_opd1_const() == 0) {
      r = tiu_operand(v.opd1_addr(), v.opt_opd1_prec(), v.short_opd1_str(), n, ch, h, w,
                      v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str(), "opd1_addr",
                      "short_opd1_str");
    }
    return r;
  }
  if (c.cls == CmdClass::sMM2) {
    const SMm2View v = c.as<SMm2View>();
    const bool nn = c.eu == 4;
    const uint64_t M = v.res0_c(), N = v.res0_w(), K = v.opd1_c();
    const Footprint none;
    Fail r = nn ? tiu_matrix2(v.res0_addr(), v.opt_res0_prec(), M, N, "res0_addr")
                : check_local(v.res0_addr(), none, "res0_addr");
    if (r.status != Status::ok) return r;
    if (v.opt_opd0_const() == 0) {
      r = nn ? tiu_matrix2(v.opd0_addr(), v.opt_opd0_prec(), M, K, "opd0_addr")
             : check_local(v.opd0_addr(), none, "opd0_addr");
      if (r.status != Status::ok) return r;
    }
    if (v.opt_opd1_const() == 0) {
      r = nn ? tiu_matrix2(v.opd1_addr(), v.opt_opd1_prec(), K, N, "opd1_addr")
             : check_local(v.opd1_addr(), none, "opd1_addr");
    }
    return r;
  }
  return kPass;
}

ValidationReport fail_report(Engine e, Status s, const Command& c, const char* field,
                             const char* message, uint32_t count) noexcept {
  ValidationReport r;
  r.status = s;
  r.engine = e;
  r.command_id = c.id;
  r.offset = c.offset;
  r.field = field;
  r.message = message;
  r.commands = count;
  return r;
}
}  // namespace

ValidationReport validate_stream(Engine engine, ConstByteSpan buffer,
                                 const ValidateOptions& o) noexcept {
  Walker walker(engine, buffer);
  Command c;
  while (walker.next(c)) {
    if (c.id > o.max_commands) {
      return fail_report(engine, Status::cmd_stream_too_long, c, "",
                         "stream holds more than 2^20 - 1 commands", c.id);
    }
    if (c.dep_enabled() && o.peer_commands != kUnknownCount && c.dep_id() > o.peer_commands) {
      return fail_report(engine, Status::cmd_unsatisfiable_dependency, c, "cmd_id_dep",
                         "waits for more commands than the other engine's stream holds", c.id);
    }
    const Fail f = engine == Engine::tiu ? check_tiu(c) : check_dma(c, o);
    if (f.status != Status::ok) return fail_report(engine, f.status, c, f.field, f.message, c.id);
  }
  ValidationReport r;
  r.engine = engine;
  r.status = walker.status();
  r.commands = walker.count();
  if (r.status != Status::ok) {
    r.command_id = walker.error_id();
    r.offset = walker.error_offset();
    r.message = walker.message();
  }
  return r;
}

namespace {
// Lock-step dry run of the TIU <-> GDMA dependencies (barriers assumed to pass).
ValidationReport dry_run(ConstByteSpan tiu, ConstByteSpan gdma) noexcept {
  Walker wt(Engine::tiu, tiu), wg(Engine::gdma, gdma);
  Command ct, cg;
  bool ht = wt.next(ct), hg = wg.next(cg);
  uint32_t done_t = 0, done_g = 0;
  for (;;) {
    bool progress = false;
    while (ht && (!ct.dep_enabled() || ct.dep_id() <= done_g)) {
      ++done_t;
      ht = wt.next(ct);
      progress = true;
    }
    while (hg && (!cg.dep_enabled() || cg.dep_id() <= done_t)) {
      ++done_g;
      hg = wg.next(cg);
      progress = true;
    }
    if (!ht && !hg) return ValidationReport{};
    if (!progress) break;
  }
  const Engine e = ht ? Engine::tiu : Engine::gdma;
  const Command& c = ht ? ct : cg;
  return fail_report(e, Status::cmd_unsatisfiable_dependency, c, "cmd_id_dep",
                     "TIU and GDMA wait on each other: this dependency is never met",
                     ht ? wt.count() : wg.count());
}
}  // namespace

ValidationReport validate_core(const CoreStreams& core, const ValidateOptions& options) noexcept {
  // Each stream on its own first (structure, addresses, footprints), so a broken stream is
  // reported as such rather than as a dependency on the commands it lost.
  ValidateOptions o = options;
  o.peer_commands = kUnknownCount;
  ValidationReport t = validate_stream(Engine::tiu, core.tiu, o);
  if (!t.ok()) return t;
  ValidationReport g = validate_stream(Engine::gdma, core.gdma, o);
  if (!g.ok()) return g;
  if (!core.sdma.empty()) {
    const ValidationReport s = validate_stream(Engine::sdma, core.sdma, o);
    if (!s.ok()) return s;
  }
  o.peer_commands = g.commands;
  ValidationReport r = validate_stream(Engine::tiu, core.tiu, o);
  if (!r.ok()) return r;
  o.peer_commands = t.commands;
  r = validate_stream(Engine::gdma, core.gdma, o);
  if (!r.ok()) return r;
  return dry_run(core.tiu, core.gdma);
}

}  // namespace tilefw::cmd
