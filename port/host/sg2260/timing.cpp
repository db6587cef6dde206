// SG2260 timing models v1 and v2 (docs/sg2260-commands.md section 12): the cost of one
// command in cycles and its trace figures. Constants: the sg2260 chip profile (timing_v1,
// timing_v2). v2 differs in MM2 and in how DMA bytes share DDR and L2 (the scheduler does
// the sharing with the DmaDemand given here).
#include <algorithm>
#include <cstdint>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;
namespace tv = chip::sg2260::timing_v1;
namespace t2 = chip::sg2260::timing_v2;
using cmd::CmdClass;
using exec::dma_bytes;
using exec::is_ddr_tag;
using exec::tiu_esize;

namespace {

uint32_t bank_conflicts(uint64_t res, uint64_t opd0, bool use0, uint64_t opd1, bool use1) {
  uint32_t n = 0;
  if (use0 && sg::local_bank(opd0) == sg::local_bank(res)) n += tv::kBankConflictCycles;
  if (use1 && sg::local_bank(opd1) == sg::local_bank(res)) n += tv::kBankConflictCycles;
  return n;
}

// v2: the memory sides of a transfer (a fill's source is none), its startup and engine cap.
DmaDemand dma_demand(uint64_t bytes, uint64_t src, uint64_t dst, bool fill) {
  DmaDemand d;
  d.bytes = bytes;
  const uint32_t ts = sg::dma_tag(src), td = sg::dma_tag(dst);
  d.ddr = static_cast<uint8_t>((!fill && is_ddr_tag(ts) ? 1 : 0) + (is_ddr_tag(td) ? 1 : 0));
  d.l2 = static_cast<uint8_t>((!fill && ts == sg::kTagL2 ? 1 : 0) + (td == sg::kTagL2 ? 1 : 0));
  d.startup = d.ddr != 0 ? t2::kDmaStartupDdr : t2::kDmaStartupOther;
  d.cap = d.ddr != 0 ? t2::kEngineBytesPerCycleDdr : t2::kEngineBytesPerCycleOther;
  return d;
}

// DMA: startup + bytes / bandwidth; false for the classes whose body is not costed.
bool dma_cost(const uint8_t* data, uint64_t& cycles, uint64_t& bytes, TimingModel model, DmaDemand* demand) {
  const uint32_t type = data[4] & 0x1F;
  const uint32_t sp = data[4] >> 5;
  const CmdClass c = cmd::dma_class(type, sp);
  if (c == CmdClass::dma_sys || c == CmdClass::none) return true;
  uint64_t elements = 0;
  uint64_t src = 0, dst = 0;
  uint32_t fmt = 0;
  bool fill = false;
  if (c == CmdClass::dma_gather || c == CmdClass::dma_scatter) {
    const cmd::DmaGatherScatterView v(data);
    // the walked side (gather dst, scatter src), whatever the index values (sg2260/sim.hpp)
    elements = c == CmdClass::dma_scatter ? uint64_t{v.src_csize()} * v.src_hsize() * v.src_wsize()
                                          : uint64_t{v.dst_csize()} * v.dst_hsize() * v.dst_wsize();
    src = v.src_start_addr();
    dst = v.dst_start_addr();
    fmt = v.src_data_format();
  } else if (c == CmdClass::dma_compress || c == CmdClass::dma_decompress ||
             c == CmdClass::dma_lossy_compress || c == CmdClass::dma_lossy_decompress) {
    cycles = tv::kDmaStartupDdr;  // opaque body: startup only
    if (demand != nullptr) *demand = DmaDemand{0, t2::kDmaStartupDdr, t2::kEngineBytesPerCycleDdr, 0, 0};
    return false;
  } else {
    const cmd::DmaCommonView v(data);
    src = v.src_start_addr();
    dst = v.dst_start_addr();
    fmt = v.src_data_format();
    if (c == CmdClass::dma_general) {
      elements = v.src_cstride();
      fill = v.fill_constant_en() != 0;
    } else if (c == CmdClass::dma_matrix) {
      const bool s2l = sg::dma_tag(dst) == sg::kTagLmem;
      elements = s2l ? uint64_t{v.src_hsize()} * v.src_wsize() : uint64_t{v.dst_hsize()} * v.dst_wsize();
    } else if (c == CmdClass::dma_tensor && sp == 3) {  // broadcast: every dst element is written
      elements = uint64_t{v.src_nsize()} * v.dst_csize() * v.src_hsize() * v.src_wsize();
      fill = v.fill_constant_en() != 0;
    } else if (v.fill_constant_en() != 0) {
      elements = uint64_t{v.dst_nsize()} * v.dst_csize() * v.dst_hsize() * v.dst_wsize();
      fill = true;
    } else {
      elements = uint64_t{v.src_nsize()} * v.src_csize() * v.src_hsize() * v.src_wsize();
    }
  }
  bytes = dma_bytes(elements, fmt);
  if (model == TimingModel::v1) {
    const bool ddr = is_ddr_tag(sg::dma_tag(dst)) || (is_ddr_tag(sg::dma_tag(src)));
    cycles = tv::dma_cycles(bytes, ddr);
    if (demand != nullptr) *demand = DmaDemand{};
    return true;
  }
  const DmaDemand d = dma_demand(bytes, src, dst, fill);
  cycles = d.startup + tv::ceil_div(bytes, d.cap);  // alone on the chip
  if (demand != nullptr) *demand = d;
  return true;
}

void mm2_cost(CmdClass c, uint32_t eu, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops,
              TimingModel model) {
  uint64_t M, N, K, r, o0, o1;
  uint32_t p0, pr;
  bool c0, c1;
  if (c == CmdClass::sMM2) {
    const cmd::SMm2View v(data);
    M = v.res0_c(); N = v.res0_w(); K = eu == 4 ? v.opd1_c() : v.opd1_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
    c0 = v.opt_opd0_const() != 0; c1 = v.opt_opd1_const() != 0;
  } else {
    const cmd::TiuLongView v(data);
    M = v.res0_c(); N = v.res0_w(); K = eu == 4 ? v.opd1_c() : v.opd1_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
    c0 = v.opt_opd0_const() != 0; c1 = v.opt_opd1_const() != 0;
  }
  cycles = (model == TimingModel::v1 ? tv::mm2_cycles(M, N, K, tv::eu_for_prec(p0), eu == 6)
                                     : t2::mm2_cycles(M, N, K, p0, eu == 6)) +
           bank_conflicts(r, o0, !c0, o1, !c1);
  ops = M * N * K;
  bytes = M * N * tiu_esize(pr);
}

// The element-wise classes' fields the cost reads.
struct EwFields {
  uint64_t n = 0, c = 0, h = 0, w = 0, r = 0, o0 = 0, o1 = 0, table = 0;
  uint32_t p0 = 0, pr = 0;
  bool u0 = false, u1 = false;
};

EwFields ew_fields(CmdClass c, uint32_t eu, const uint8_t* data) {
  EwFields f;
  if (c == CmdClass::sAR) {
    const cmd::SArView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), v.opd1_addr(), 0,
         v.opt_opd0_prec(), v.opt_res0_prec(), v.opt_opd0_const() == 0, v.tsk_opd_num() >= 2 && v.opt_opd1_const() == 0};
  } else if (c == CmdClass::sCMP) {
    const cmd::SCmpView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), v.opd1_addr(), 0,
         v.opt_opd0_prec(), v.opt_opd0_prec(), v.opt_opd0_const() == 0, v.opt_opd1_const() == 0};
  } else if (c == CmdClass::sSFU) {
    const cmd::SSfuView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), 0, v.opd1_n(),
         v.opt_opd0_prec(), v.opt_res0_prec(), true, false};
  } else if (c == CmdClass::sRQ_sDQ) {
    const cmd::SRqDqView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), v.opd1_addr(), 0,
         v.opt_opd0_prec(), v.opt_res0_prec(), true, v.opt_opd1_const() == 0};
  } else if (c == CmdClass::sSGL) {
    // line gather / scatter: the rows walked are the indices' (res0's for gather, opd0's for scatter)
    const cmd::SSglView v(data);
    f = {v.res0_n(), v.res0_c(), eu == 17 ? v.res0_h() : v.opd0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
         v.opd1_addr(), 0, v.opt_res0_prec(), v.opt_res0_prec(), true, true};
  } else if (c == CmdClass::SGL) {
    const cmd::TiuLongView v(data);
    f = {v.res0_n(), v.res0_c(), eu == 17 ? v.res0_h() : v.opd0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
         v.opd1_addr(), 0, v.opt_res0_prec(), v.opt_res0_prec(), true, true};
  } else if (c == CmdClass::sLIN) {
    const cmd::SLinView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), v.opd1_addr(), 0,
         v.opt_res0_prec(), v.opt_res0_prec(), true, v.opt_opd1_const() == 0};
  } else {
    const cmd::TiuLongView v(data);
    f = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd1_n(),
         v.opt_opd0_prec(), v.opt_res0_prec(), v.opt_opd0_const() == 0, v.tsk_opd_num() >= 2 && v.opt_opd1_const() == 0};
  }
  if ((c == CmdClass::sSFU || c == CmdClass::SFU) && (eu == 12 || eu == 13)) {
    // taylor reads its coefficient table (opd1) from LMEM: a bank operand like any other
    f.o1 = c == CmdClass::sSFU ? cmd::SSfuView(data).opd1_addr() : cmd::TiuLongView(data).opd1_addr();
    f.u1 = true;
  }
  return f;
}

void ew_cost(CmdClass c, uint32_t eu, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops) {
  const EwFields f = ew_fields(c, eu, data);
  const uint32_t eun = std::min(tv::eu_for_prec(f.p0), tv::eu_for_prec(f.pr));  // the wider dtype
  const uint64_t body = tv::ar_body(f.n, f.c, f.h, f.w, eun);
  if (c == CmdClass::sAR || c == CmdClass::AR || c == CmdClass::sRQ_sDQ || c == CmdClass::RQ_DQ ||
      c == CmdClass::sSGL || c == CmdClass::SGL) {
    // RQ&DQ, SGL: no public formula; costed as the element-wise AR pass they resemble
    cycles = body + tv::kArOverhead;
  } else if (c == CmdClass::sCMP || c == CmdClass::CMP) {
    cycles = 2 * body + tv::kCmpOverhead;
  } else if (c == CmdClass::sLIN || c == CmdClass::LIN) {
    cycles = 2 * f.n * tv::ceil_div(f.c, sg::kLanes) * f.h * tv::ceil_div(f.w, eun) + tv::kLinOverhead;
  } else {
    const uint64_t factor = (eu == 12 || eu == 13) ? (f.table == 0 ? 1 : 2 * f.table - 1) : tv::kSfuOtherFactor;
    cycles = body * factor + tv::kSfuOverhead;
  }
  cycles += bank_conflicts(f.r, f.o0, f.u0, f.o1, f.u1);
  ops = f.n * f.c * f.h * f.w;
  bytes = ops * tiu_esize(f.pr);
}

// CONV / PorD (sliding windows) and MM normal: chip profile timing_v2 (docs/sg2260-commands.md
// section 12 bodies).
void window_cost(CmdClass c, uint32_t eu, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops) {
  uint64_t n, oc, oh, ow, ic, kh, kw, r, o0, o1;
  uint32_t p0, pr;
  bool c1;
  if (c == CmdClass::sCONV) {
    const cmd::SConvView v(data);
    n = v.res0_n(); oc = v.res0_c(); oh = v.res0_h(); ow = v.res0_w(); ic = v.opd0_c(); kh = v.opd1_h(); kw = v.opd1_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
    c1 = v.opt_opd1_const() != 0;
  } else if (c == CmdClass::sPorD) {
    const cmd::SPorDView v(data);
    n = v.res0_n(); oc = v.res0_c(); oh = v.res0_h(); ow = v.res0_w(); ic = oc; kh = v.opd1_h(); kw = v.opd1_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
    c1 = v.opt_opd1_const() != 0 || eu != 0;
  } else {
    const cmd::TiuLongView v(data);
    n = v.res0_n(); oc = v.res0_c(); oh = v.res0_h(); ow = v.res0_w(); kh = v.opd1_h(); kw = v.opd1_w();
    ic = c == CmdClass::CONV ? v.opd0_c() : oc;
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
    c1 = v.opt_opd1_const() != 0 || (c == CmdClass::PorD && eu != 0);
  }
  const bool conv = c == CmdClass::sCONV || c == CmdClass::CONV;
  cycles = (conv ? t2::conv_cycles(n, oc, oh, ow, kh, kw, ic, p0) : t2::pord_cycles(n, oc, oh, ow, kh, kw, p0)) +
           bank_conflicts(r, o0, true, o1, !c1);
  ops = n * oc * oh * ow * kh * kw * (conv ? ic : 1);
  bytes = n * oc * oh * ow * tiu_esize(pr);
}

void mm_cost(CmdClass c, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops) {
  uint64_t m, k, rc, rw, r, o0, o1;
  uint32_t p0, pr;
  if (c == CmdClass::sMM) {
    const cmd::SMmView v(data);
    m = v.opd0_n(); k = uint64_t{v.opd0_c()} * v.opd0_w(); rc = v.res0_c(); rw = v.res0_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
  } else {
    const cmd::TiuLongView v(data);
    m = v.opd0_n(); k = uint64_t{v.opd0_c()} * v.opd0_w(); rc = v.res0_c(); rw = v.res0_w();
    r = v.res0_addr(); o0 = v.opd0_addr(); o1 = v.opd1_addr(); p0 = v.opt_opd0_prec(); pr = v.opt_res0_prec();
  }
  cycles = t2::mm_cycles(m, k, rc, rw, p0) + bank_conflicts(r, o0, true, o1, true);
  ops = m * k * rc * rw;
  bytes = m * rc * rw * tiu_esize(pr);
}

// CW&BC: a data move costed as AR's body by res0's precision.
void cw_cost(CmdClass c, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops) {
  uint64_t n, ch, h, w, r, o0;
  uint32_t pr;
  if (c == CmdClass::sCW_sBC) {
    const cmd::SCwBcView v(data);
    n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w(); r = v.res0_addr(); o0 = v.opd0_addr();
    pr = v.opt_res0_prec();
  } else {
    const cmd::TiuLongView v(data);
    n = v.res0_n(); ch = v.res0_c(); h = v.res0_h(); w = v.res0_w(); r = v.res0_addr(); o0 = v.opd0_addr();
    pr = v.opt_res0_prec();
  }
  cycles = tv::ar_body(n, ch, h, w, tv::eu_for_prec(pr)) + t2::kCwOverhead + bank_conflicts(r, o0, true, 0, false);
  ops = n * ch * h * w;
  bytes = ops * tiu_esize(pr);
}

}  // namespace

bool command_cost(uint32_t engine, const uint8_t* data, uint64_t& cycles, uint64_t& bytes, uint64_t& ops,
                  TimingModel model, DmaDemand* dma) {
  cycles = tv::kSysCycles;
  bytes = 0;
  ops = 0;
  if (dma != nullptr) *dma = DmaDemand{};
  if (engine != kTiu) return dma_cost(data, cycles, bytes, model, dma);
  const uint32_t tsk = (data[5] >> 1) & 0xF;
  const bool short_form = (data[0] & 1) != 0 && tsk != 7 && tsk != 12 && tsk != 15;
  const uint32_t eu = static_cast<uint32_t>(((data[5] >> 5) | (data[6] << 3)) & 0x1F);
  const CmdClass c = cmd::tiu_class(tsk, tsk == 12 ? (eu & 7) : eu, short_form);
  switch (c) {
    case CmdClass::sMM2: case CmdClass::MM2:
      mm2_cost(c, eu, data, cycles, bytes, ops, model);
      return true;
    case CmdClass::sAR: case CmdClass::AR: case CmdClass::sCMP: case CmdClass::CMP:
    case CmdClass::sSFU: case CmdClass::SFU: case CmdClass::sLIN: case CmdClass::LIN:
    case CmdClass::sRQ_sDQ: case CmdClass::RQ_DQ: case CmdClass::sSGL: case CmdClass::SGL:
      ew_cost(c, eu, data, cycles, bytes, ops);
      return true;
    case CmdClass::sCONV: case CmdClass::CONV: case CmdClass::sPorD: case CmdClass::PorD:
      window_cost(c, eu, data, cycles, bytes, ops);
      return true;
    case CmdClass::sMM: case CmdClass::MM:
      mm_cost(c, data, cycles, bytes, ops);
      return true;
    case CmdClass::sCW_sBC: case CmdClass::CW_BC:
      cw_cost(c, data, cycles, bytes, ops);
      return true;
    case CmdClass::SYS: case CmdClass::SYS_TR_ACC: case CmdClass::LAR:
      return true;  // 1 cycle by the model (plus waiting time for wait_msg)
    default:
      return false;  // no v1/v2 formula: 1 cycle, and the caller lists the class as uncosted
  }
}

}  // namespace tilefw::port::host::sg2260
