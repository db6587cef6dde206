// The simulator's refusal, at its one command entry, of work no real buffer can ask for
// (hostile input: unbounded work and memory): a command whose element count the memory of its
// result could never
// hold (zero strides over a huge shape: one element's footprint, 2^64 iterations), before any
// executor loops or allocates. Shapes are read by field name from the class's layout table, so
// a class added later is covered by the same rule; the count is also the command's work for
// the run-wide budget of Simulator (SimOptions::max_work).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260 {

namespace {
namespace sg = chip::sg2260;
using cmd::CmdClass;
using cmd::FieldDesc;

// The shape fields of one class, looked up once by name (nullptr: the class has none).
struct ShapeFields {
  const FieldDesc* res0[4] = {};  // res0_n, _c, _h, _w
  const FieldDesc* src[4] = {};   // DMA src_nsize, _csize, _hsize, _wsize
  const FieldDesc* dst[4] = {};   // DMA dst_*size
  const FieldDesc* opd1_c = nullptr;
  const FieldDesc* opd1_w = nullptr;
  const FieldDesc* opd0_c = nullptr;  // windows: input channels, kernel, operand precisions
  const FieldDesc* opd1_h = nullptr;
  const FieldDesc* prec0 = nullptr;
  const FieldDesc* prec1 = nullptr;
  const FieldDesc* opd1_n = nullptr;  // SFU taylor: the coefficient table's length
  const FieldDesc* count = nullptr;  // DMA general: src_cstride is the element count
};

const FieldDesc* find(Span<const FieldDesc> layout, const char* name) {
  for (const FieldDesc& f : layout) {
    if (std::strcmp(f.name, name) == 0) return &f;
  }
  return nullptr;
}

const ShapeFields& shape_fields(CmdClass c) {
  static std::vector<ShapeFields> table;
  static std::vector<bool> built;
  const size_t i = static_cast<size_t>(c);
  if (table.empty()) {
    table.resize(static_cast<size_t>(CmdClass::none) + 1);
    built.assign(table.size(), false);
  }
  if (!built[i]) {
    const Span<const FieldDesc> l = cmd::fields_of(c);
    ShapeFields& s = table[i];
    static const char* const kRes0[] = {"res0_n", "res0_c", "res0_h", "res0_w"};
    static const char* const kSrc[] = {"src_nsize", "src_csize", "src_hsize", "src_wsize"};
    static const char* const kDst[] = {"dst_nsize", "dst_csize", "dst_hsize", "dst_wsize"};
    for (int d = 0; d < 4; ++d) {
      s.res0[d] = find(l, kRes0[d]);
      s.src[d] = find(l, kSrc[d]);
      s.dst[d] = find(l, kDst[d]);
    }
    s.opd1_c = find(l, "opd1_c");
    s.opd1_w = find(l, "opd1_w");
    s.opd0_c = find(l, "opd0_c");
    s.opd1_h = find(l, "opd1_h");
    s.prec0 = find(l, "opt_opd0_prec");
    s.prec1 = find(l, "opt_opd1_prec");
    s.opd1_n = find(l, "opd1_n");
    if (c == CmdClass::dma_general) s.count = find(l, "src_cstride");
    built[i] = true;
  }
  return table[i];
}

uint64_t value(const uint8_t* data, const FieldDesc* f) { return f == nullptr ? 1 : cmd::read_field(data, *f); }

// Elements of a shape (absent dimensions count 1; 0 when the class has no such shape).
uint64_t elements(const uint8_t* data, const FieldDesc* const (&dims)[4], std::string& text) {
  if (dims[0] == nullptr && dims[1] == nullptr && dims[2] == nullptr && dims[3] == nullptr) return 0;
  uint64_t n = 1;
  text.clear();
  for (int d = 0; d < 4; ++d) {
    const uint64_t v = value(data, dims[d]);
    n *= v;  // four 16-bit fields: below 2^64
    text += (d ? " x " : "") + std::to_string(v);
  }
  return n;
}

// The bytes of the memory a DMA address names (0: not mapped; the executor faults there).
uint64_t memory_bytes(const Machine& m, uint64_t addr, std::string& name) {
  const uint32_t tag = sg::dma_tag(addr);
  if (tag == sg::kTagLmem) {
    const bool smem = sg::local_is_smem(sg::dma_offset(addr));
    name = smem ? "SMEM" : "LMEM";
    return smem ? sg::kSmemBytes : sg::kLmemBytesPerCore;
  }
  if (tag == sg::kTagL2) {
    name = "L2";
    return sg::kL2Bytes;
  }
  const chip::MemoryRegion* r = m.region_at(sg::kDdrWindowBase + addr);
  name = "the DDR region of tag " + std::to_string(tag);
  return r == nullptr ? 0 : r->size;
}

Status refuse(std::string& msg, const std::string& what, uint64_t n, const std::string& dims, const std::string& mem,
              uint64_t bytes) {
  msg = what + ": " + std::to_string(n) + " elements (" + dims + ") but " + mem + " holds " + std::to_string(bytes) +
        " bytes: no real buffer is that large (zero strides over a huge shape?); refused before running";
  return Status::cmd_footprint_out_of_range;
}

// The window sums of CONV and PorD: res0 elements x taps each (input channels x kernel for
// CONV, the kernel for PorD), counted in element operations at their measured cost so that
// no legal window costs more per unit of work than the slowest element loops (about 33 ns,
// hazard-checked strided rows): a tap of float operands whose products are exact in FP32
// (FP16, FP8: the vectorised sums; ~8 ns per unit measured on rows one output wide) counts
// 1/64, any other (FP32 and BF16 through a fused multiply-add, ~15 ns; integers in double) 1/8.
// Without it a window's cost was unbounded by its work (177 us per counted element measured).
uint64_t window_work(CmdClass c, const ShapeFields& f, const uint8_t* data, uint64_t res) {
  const bool conv = c == CmdClass::CONV || c == CmdClass::sCONV;
  const uint64_t kernel = value(data, f.opd1_h) * value(data, f.opd1_w);  // two 16-bit fields
  constexpr uint64_t kMax = UINT64_MAX / 2;  // saturates (the budget refuses it anyway)
  uint64_t taps = 0;
  if (__builtin_mul_overflow(res, kernel, &taps) || __builtin_mul_overflow(taps, conv ? value(data, f.opd0_c) : 1, &taps)) {
    taps = kMax;
  }
  const auto exact = [](uint64_t p) { return p == 1 || p == 7; };  // FP16, FP8
  const uint64_t p0 = value(data, f.prec0);
  const bool fast = exact(p0) && (!conv || exact(value(data, f.prec1)));
  const uint64_t w = std::min(kMax, fast ? taps / 64 : taps / 8);
  return res + w;  // res <= 2^24: no overflow
}

Status tiu_extent(CmdClass c, uint32_t eu, const uint8_t* data, uint64_t& work, std::string& msg) {
  const ShapeFields& f = shape_fields(c);
  std::string dims;
  const uint64_t res = elements(data, f.res0, dims);
  const std::string what = std::string(cmd::class_name(c)) + " eu " + std::to_string(eu);
  if (res > sg::kLmemBytesPerCore) return refuse(msg, what + " res0", res, dims, "LMEM", sg::kLmemBytesPerCore);
  work = res;
  if (c == CmdClass::CONV || c == CmdClass::sCONV || c == CmdClass::PorD || c == CmdClass::sPorD) {
    work = window_work(c, f, data, res);
  }
  if ((c == CmdClass::SFU || c == CmdClass::sSFU) && (eu == 12 || eu == 13)) {
    // taylor: one multiply-add per coefficient (at most 32; longer tables fault) per element,
    // each about 1/8 of an element-wise element
    work = res + res * std::min<uint64_t>(value(data, f.opd1_n), 32) / 8;
  }
  if (c == CmdClass::VC || c == CmdClass::sVC) {
    // R is (A_len, res0_c, 1, res0_w) with A_len = (opd0_c - 1) x opd0_w + opd1_w: one
    // operation per R element (sg2260/exec_vc.cpp), however small res0_c x res0_w is
    const bool s = c == CmdClass::sVC;
    const uint64_t ac = s ? cmd::SVcView(data).opd0_c() : cmd::TiuLongView(data).opd0_c();
    const uint64_t aw = s ? cmd::SVcView(data).opd0_w() : cmd::TiuLongView(data).opd0_w();
    const uint64_t al = s ? cmd::SVcView(data).opd1_w() : cmd::TiuLongView(data).opd1_w();
    const uint64_t a_len = (ac == 0 ? 0 : (ac - 1) * aw) + al;  // 16-bit fields: < 2^33
    uint64_t rn = 0;
    if (__builtin_mul_overflow(a_len, res, &rn)) rn = UINT64_MAX;
    if (rn > sg::kLmemBytesPerCore) {
      return refuse(msg, what + " res0", rn, std::to_string(a_len) + " x " + dims, "LMEM", sg::kLmemBytesPerCore);
    }
    work = rn;
  }
  if (c == CmdClass::MM2 || c == CmdClass::sMM2) {
    // M x K and K x N operands (read whole into host matrices); the M x N x K multiply-adds
    // of the inner loop cost about 1/64 of an element-wise element each.
    const uint64_t M = value(data, f.res0[1]), N = value(data, f.res0[3]);
    const uint64_t K = eu == 4 ? value(data, f.opd1_c) : value(data, f.opd1_w);
    if (M * K > sg::kLmemBytesPerCore) {
      return refuse(msg, what + " opd0", M * K, std::to_string(M) + " x " + std::to_string(K), "LMEM", sg::kLmemBytesPerCore);
    }
    if (K * N > sg::kLmemBytesPerCore) {
      return refuse(msg, what + " opd1", K * N, std::to_string(K) + " x " + std::to_string(N), "LMEM", sg::kLmemBytesPerCore);
    }
    work = M * N * K / 64 + M * K + K * N + M * N;
  }
  return Status::ok;
}

Status dma_extent(const Machine& m, uint32_t engine, CmdClass c, const uint8_t* data, uint64_t& work,
                  std::string& msg) {
  const ShapeFields& f = shape_fields(c);
  const cmd::DmaCommonView v(data);
  std::string dims;
  uint64_t n = 0;
  bool write_side_dst = true;  // the memory that holds the walked elements
  if (c == CmdClass::dma_general) {
    n = value(data, f.count);
    dims = std::to_string(n);
  } else if (c == CmdClass::dma_matrix) {
    const bool s2l = sg::dma_tag(v.dst_start_addr()) == sg::kTagLmem;
    n = s2l ? uint64_t{v.src_hsize()} * v.src_wsize() : uint64_t{v.dst_hsize()} * v.dst_wsize();
    dims = s2l ? std::to_string(v.src_hsize()) + " x " + std::to_string(v.src_wsize())
               : std::to_string(v.dst_hsize()) + " x " + std::to_string(v.dst_wsize());
  } else if (c == CmdClass::dma_scatter) {
    n = elements(data, f.src, dims);
    write_side_dst = false;  // the walked side is the source
  } else if (c == CmdClass::dma_gather) {
    n = elements(data, f.dst, dims);
  } else {
    // tensor and the others: the larger of the two shapes (a fill walks the dst shape)
    std::string sdims, ddims;
    const uint64_t s = elements(data, f.src, sdims), d = elements(data, f.dst, ddims);
    n = s >= d ? s : d;
    dims = s >= d ? sdims : ddims;
  }
  work = n;
  std::string mem;
  const uint64_t addr = write_side_dst ? v.dst_start_addr() : v.src_start_addr();
  const uint64_t bytes = memory_bytes(m, addr, mem);
  if (bytes != 0 && n > bytes) {
    const std::string what = std::string(engine == kGdma ? "GDMA " : "SDMA ") + cmd::class_name(c);
    return refuse(msg, what + (write_side_dst ? " dst" : " src"), n, dims, mem, bytes);
  }
  return Status::ok;
}

}  // namespace

Status command_extent(const Machine& machine, uint32_t engine, const uint8_t* data, uint64_t& work,
                      std::string& message) {
  work = 0;
  if (engine != kTiu) {
    const CmdClass c = cmd::dma_class(data[4] & 0x1F, data[4] >> 5);
    if (c == CmdClass::dma_sys || c == CmdClass::none) return Status::ok;
    return dma_extent(machine, engine, c, data, work, message);
  }
  // The TIU header, as the walker decodes it (tsk_typ 7, 12, 15 have no short form bit).
  const uint32_t tsk = (data[5] >> 1) & 0xF;
  const bool short_form = (data[0] & 1) != 0 && tsk != 7 && tsk != 12 && tsk != 15;
  const uint32_t eu = static_cast<uint32_t>(((data[5] >> 5) | (data[6] << 3)) & 0x1F);
  const CmdClass c = cmd::tiu_class(tsk, tsk == 12 ? (eu & 7) : eu, short_form);
  if (c == CmdClass::none || c == CmdClass::SYS || c == CmdClass::SYS_TR_ACC || c == CmdClass::LAR) return Status::ok;
  return tiu_extent(c, eu, data, work, message);
}

}  // namespace tilefw::port::host::sg2260
