// SG2260 execution, TIU SGL / sSGL (gather_line eu 17, scatter_line eu 18): rows of a table in
// each lane picked by per-row indices. The operand shapes, the row layout, the limit sentinel
// and the fill are documented facts (docs/sg2260-commands.md section 15, "SGL"); what an index
// past the table does and the order of colliding scatters are tilefw decisions stated there.
// The other SG operations are refused by name.
#include <cstring>
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

constexpr uint32_t kGatherLine = 17, kScatterLine = 18;

struct SglParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;  // res0
  uint64_t a_h;         // opd0_h: the table's rows
  uint64_t addr[3];     // res0, opd0 (table A), opd1 (indices B)
  uint32_t r_prec, b_prec;
  uint32_t a_mode;      // short_opd0_str: 3 one table per channel, 4 one table for all (c stride 0)
  bool fill;            // opt_opd2_const: gather writes fill_bits where limited
  uint32_t fill_bits;   // opd2_addr
  bool limit;           // opt_opd3_const: an all-ones index is "no row"
};

// The row layout of A and R: w contiguous, each row padded to the EU count, h rows per
// channel (A with mode 4: c stride 0), channels on lanes.
void row_strides(TiuOperand& o, uint64_t h, uint64_t w, bool c_zero) {
  const uint64_t eu = 64 / o.esize;
  o.ws = 1;
  o.hs = (w + eu - 1) / eu * eu;
  o.cs = c_zero ? 0 : h * o.hs;
  o.ns = 0;
}

Status sgl_operands(const Ctx& x, const SglParams& a, TiuOperand (&o)[3], std::string& msg) {
  const std::string cls = a.cls;
  if (a.eu != kGatherLine && a.eu != kScatterLine) {
    return unsupported(msg, cls + " eu " + std::to_string(a.eu) + ": not a line gather / scatter");
  }
  if (a.a_mode != 3 && a.a_mode != 4) return unsupported(msg, cls + ": opd0 stride mode " + std::to_string(a.a_mode) + " (3 or 4)");
  if (a.b_prec != 0 && a.b_prec != 3) {
    return unsupported(msg, cls + ": opd1 (indices) precision " + std::string(prec_name(a.b_prec)) + " (INT8 or INT16)");
  }
  if (a.eu == kScatterLine && a.fill) return unsupported(msg, cls + " (scatter_line) with a fill constant (opt_opd2_const)");
  const bool gather = a.eu == kGatherLine;
  const uint64_t idx_h = gather ? a.h : a.a_h;  // indices: one per result row (gather) / table row (scatter)
  Status s = tiu_operand(x, a.addr[0], a.r_prec, false, false, 0, a.c, a.h, a.w, 0, 0, 0, 0, a.cls, "res0", o[0], msg);
  if (s != Status::ok) return s;
  s = tiu_operand(x, a.addr[1], a.r_prec, false, false, 0, a.c, a.a_h, a.w, 0, 0, 0, 0, a.cls, "opd0", o[1], msg);
  if (s != Status::ok) return s;
  s = tiu_operand(x, a.addr[2], a.b_prec, false, false, 0, a.c, idx_h, 1, 0, 0, 0, 0, a.cls, "opd1", o[2], msg);
  if (s != Status::ok) return s;
  row_strides(o[0], a.h, a.w, false);
  o[0].ns = (o[0].side.lane0 + a.c + sg::kLanes - 1) / sg::kLanes * o[0].cs;
  row_strides(o[1], a.a_h, a.w, a.a_mode == 4);
  return Status::ok;
}

// The index at (n, c, h) of B, read and logged; false outside LMEM.
bool read_index(const TiuOperand& b, uint64_t n, uint64_t c, uint64_t h, uint32_t& v) {
  const uint8_t* p = element(b.side, n, c, h, 0, b.ns, b.cs, b.hs, b.ws, b.esize);
  if (p == nullptr) return false;
  note_read(b.side, p, b.esize);
  v = 0;
  std::memcpy(&v, p, b.esize);
  return true;
}

// One row of w elements from `src` (or the fill constant when src is null) to `dst`.
Status copy_row(const TiuOperand& dst, uint64_t dn, uint64_t dh, const TiuOperand* src, uint64_t sh, uint64_t c,
                uint64_t w, uint32_t fill_bits, const std::string& cls, std::string& msg) {
  for (uint64_t i = 0; i < w; ++i) {
    uint8_t* d = element(dst.side, dn, c, dh, i, dst.ns, dst.cs, dst.hs, dst.ws, dst.esize);
    if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
    if (src == nullptr) {
      note_write(dst.side, d, dst.esize);
      std::memcpy(d, &fill_bits, dst.esize);  // the constant's low bytes
      continue;
    }
    const uint8_t* p = element(src->side, 0, c, sh, i, src->ns, src->cs, src->hs, src->ws, src->esize);
    if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
    note_read(src->side, p, src->esize);
    note_write(dst.side, d, dst.esize);
    std::memmove(d, p, dst.esize);
  }
  return Status::ok;
}

Status run_sgl(const Ctx& x, const SglParams& a, std::string& msg) {
  TiuOperand o[3];
  Status s = sgl_operands(x, a, o, msg);
  if (s != Status::ok) return s;
  const std::string cls = std::string(a.cls) + (a.eu == kGatherLine ? " (gather_line)" : " (scatter_line)");
  const uint32_t sentinel = o[2].esize == 1 ? 0xFFu : 0xFFFFu;
  const bool gather = a.eu == kGatherLine;
  const uint64_t rows = gather ? a.h : a.a_h;
  const uint64_t limit_rows = gather ? a.a_h : a.h;  // the rows an index may name
  for (uint64_t n = 0; n < a.n; ++n) {
    for (uint64_t c = 0; c < a.c; ++c) {
      for (uint64_t h = 0; h < rows; ++h) {
        uint32_t idx = 0;
        if (!read_index(o[2], n, c, h, idx)) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd1 outside LMEM");
        if (a.limit && idx == sentinel) {
          if (gather && a.fill) s = copy_row(o[0], n, h, nullptr, 0, c, a.w, a.fill_bits, cls, msg);
          if (s != Status::ok) return s;
          continue;  // no row: the result keeps its old value
        }
        if (idx >= limit_rows) {
          return fail(msg, Status::cmd_footprint_out_of_range,
                      cls + ": index " + std::to_string(idx) + " at (" + std::to_string(n) + ", " + std::to_string(c) +
                          ", " + std::to_string(h) + ") is past the " + std::to_string(limit_rows) + " rows");
        }
        s = gather ? copy_row(o[0], n, h, &o[1], idx, c, a.w, 0, cls, msg) : copy_row(o[0], n, idx, &o[1], h, c, a.w, 0, cls, msg);
        if (s != Status::ok) return s;
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_sgl(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sSGL) {
    const cmd::SSglView v(data);
    const SglParams a{"sSGL", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.opd0_h(),
                      {v.res0_addr(), v.opd0_addr(), v.opd1_addr()}, v.opt_res0_prec(), v.opt_opd1_prec(),
                      v.short_opd0_str(), v.opt_opd2_const() != 0, v.opd2_addr(), v.opt_opd3_const() != 0};
    return run_sgl(x, a, msg);
  }
  if (c == CmdClass::SGL) {
    const cmd::TiuLongView v(data);
    const SglParams a{"SGL", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.opd0_h(),
                      {v.res0_addr(), v.opd0_addr(), v.opd1_addr()}, v.opt_res0_prec(), v.opt_opd1_prec(),
                      v.short_opd0_str(), v.opt_opd2_const() != 0, v.opd2_addr(), v.opt_opd3_const() != 0};
    return run_sgl(x, a, msg);
  }
  return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                              " (no public source gives the semantics of the non-line scatter-gather operations)");
}

}  // namespace tilefw::port::host::sg2260::exec
