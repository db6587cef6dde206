// SG2260 execution, TIU element-wise classes with one source: CW&BC (cw_ts, lane_bc) and SFU
// (rsqrt, taylor). Semantics: sg2260/sim.hpp (execute_command).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "sg2260/exec_convert.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace {

Status unary_operands(const Ctx& x, const UnaryParams& a, TiuOperand (&o)[2], std::string& msg) {
  static const char* const kNames[] = {"res0", "opd0"};
  for (int i = 0; i < 2; ++i) {
    const Status s = tiu_operand(x, a.addr[i], a.prec[i], false, false, a.mode[i], a.shape[i][1],
                                 a.shape[i][2], a.shape[i][3], a.str[i][0], a.str[i][1], a.str[i][2],
                                 a.str[i][3], a.cls, kNames[i], o[i], msg);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

// static_bc's source: the contiguous (n, h, w) array at `addr` (its low 16 bits) of the core's
// static memory, whatever bit 26 says (tpu-mlir gives the static-memory offset alone).
Status static_source(const Ctx& x, uint64_t addr, uint32_t prec, const uint64_t* shape, TiuOperand& o,
                     std::string& msg) {
  o.prec = prec;
  o.esize = tiu_esize(prec);
  const Status s = resolve_local(x, (addr & 0xFFFF) | (uint64_t{1} << sg::kSmemSelectBit), o.side, msg);
  o.ns = shape[2] * shape[3];
  o.cs = 0;
  o.hs = shape[3];
  o.ws = 1;
  return s;
}

}  // namespace

// CW&BC: cw_ts (eu 0) res0(n, c, h, w) = opd0(n, w, h, c); lane_copy (eu 2) res0(n, c, h, w) =
// opd0(n, c, h, w); lane_bc (eu 3) res0(n, c, h, w) = opd0(n, 0, h, w); static_bc (eu 4)
// res0(n, c, h, w) = S(n, h, w), S the contiguous (n, h, w) array at byte offset opd0_addr of
// the core's static memory (SMEM; see load_static_tables). A data move: no conversion, so both
// precisions must agree. The source is read completely before the first write (an
// overlapping result cannot feed itself).
Status run_cw(const Ctx& x, const UnaryParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  if (a.eu != 0 && a.eu != 2 && a.eu != 3 && a.eu != 4) {
    static const char* const kNames[] = {"cw_ts", "wc_ts", "lane_copy", "lane_bc", "static_bc", "static_distribute"};
    return unsupported(msg, cls + " (" + (a.eu < 6 ? kNames[a.eu] : "?") +
                                "): the spec names the operation without its semantics");
  }
  const uint64_t* r = a.shape[0];
  const uint64_t* s0 = a.shape[1];
  // static_bc does not read opd0_c (the real YOLOv5s commands give it res0_c); lane_bc needs
  // opd0_c = 1, lane_copy opd0's shape = res0's
  const bool shaped = s0[0] == r[0] && s0[2] == r[2] &&
                      (a.eu == 0   ? (s0[1] == r[3] && s0[3] == r[1])
                       : a.eu == 2 ? (s0[1] == r[1] && s0[3] == r[3])
                       : a.eu == 3 ? (s0[1] == 1 && s0[3] == r[3])
                                   : s0[3] == r[3]);
  if (!shaped) return fail(msg, Status::cmd_bad_field, cls + ": opd0 is not shaped for the operation");
  if (tiu_esize(a.prec[0]) != tiu_esize(a.prec[1])) {
    return unsupported(msg, cls + ": result and source precisions differ (no conversion defined)");
  }
  TiuOperand o[2];
  Status st = Status::ok;
  if (a.eu == 4) {
    st = tiu_operand(x, a.addr[0], a.prec[0], false, false, a.mode[0], r[1], r[2], r[3], a.str[0][0], a.str[0][1],
                     a.str[0][2], a.str[0][3], a.cls, "res0", o[0], msg);
    if (st == Status::ok) st = static_source(x, a.addr[1], a.prec[1], r, o[1], msg);
  } else {
    st = unary_operands(x, a, o, msg);
  }
  if (st != Status::ok) return st;
  const uint32_t es = o[0].esize;
  std::vector<uint8_t> values(r[0] * r[1] * r[2] * r[3] * es);
  size_t k = 0;
  for (int pass = 0; pass < 2; ++pass) {
    k = 0;
    for (uint64_t n = 0; n < r[0]; ++n) {
      for (uint64_t c = 0; c < r[1]; ++c) {
        for (uint64_t h = 0; h < r[2]; ++h) {
          for (uint64_t w = 0; w < r[3]; ++w, k += es) {
            if (pass == 0) {
              const uint64_t sc = a.eu == 0 ? w : a.eu == 2 ? c : 0, sw = a.eu == 0 ? c : w;
              const uint8_t* p = element(o[1].side, n, sc, h, sw, o[1].ns, o[1].cs, o[1].hs, o[1].ws, es);
              if (p == nullptr) {
                return fail(msg, Status::cmd_footprint_out_of_range,
                            cls + (a.eu == 4 ? ": opd0 outside static memory" : ": opd0 outside LMEM"));
              }
              note_read(o[1].side, p, es);
              std::memcpy(values.data() + k, p, es);
            } else {
              uint8_t* d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, es);
              if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
              note_write(o[0].side, d, es);
              std::memcpy(d, values.data() + k, es);
            }
          }
        }
      }
    }
  }
  return Status::ok;
}

// SFU rsqrt (eu 17): res0 = 1 / sqrt(x), computed in double and rounded to nearest even (the
// hardware's approximation error is not public: this is the correctly rounded function); NaN
// results are the positive quiet NaN of the format.
// SFU taylor (eu 13, a tilefw decision: the spec gives no coefficient order or evaluation
// order): res0 = sum_{j<L} coef[j] * x^j, coef[j] the L values of opd0's precision at
// local_offset(opd1_addr) of the lane holding x (each lane reads its own copy, as a 64-lane
// SIMD unit reads a table without crossing lanes), evaluated by Horner from coef[L-1] down in
// double and rounded once to res0's precision (nearest even).
namespace {

// SFU taylor: the longest coefficient table (a tilefw decision: longer tables are faults).
constexpr uint64_t kMaxTaylorTerms = 32;

void write_sfu_result(uint8_t* d, uint32_t prec, double y) {
  if (std::isnan(y) && prec != 7) {
    const uint32_t f32 = 0x7FC00000u;
    const uint16_t f16 = 0x7E00u, b16 = 0x7FC0u;
    if (prec == 2) std::memcpy(d, &f32, 4);
    else std::memcpy(d, prec == 1 ? &f16 : &b16, 2);
  } else {
    write_value(d, prec, y, RoundMode::nearest_even);
  }
}

// A contiguous row of rsqrt or taylor in chunks: the values read, the function and the results
// written each in a loop of its own, FP16 converted eight at a time (the same conversions and the
// same double operations per element as value by value; the Horner steps run across the
// chunk). Only for rows whose source and result do not overlap, or are the same bytes.
void sfu_row(const uint8_t* p, uint8_t* d, uint64_t n, uint32_t in_prec, uint32_t out_prec, const double* k,
             uint64_t terms, bool taylor) {
  constexpr uint64_t kChunk = 256;
  double v[kChunk], y[kChunk];
  const uint32_t ies = tiu_esize(in_prec), oes = tiu_esize(out_prec);
  for (uint64_t i0 = 0; i0 < n; i0 += kChunk, p += kChunk * ies, d += kChunk * oes) {
    const uint64_t m = std::min(kChunk, n - i0);
    if (in_prec == 1) {
      halves_to_doubles(p, v, m);
    } else {
      for (uint64_t i = 0; i < m; ++i) v[i] = read_value(p + i * ies, in_prec, true);
    }
    if (!taylor) {
      for (uint64_t i = 0; i < m; ++i) y[i] = 1.0 / std::sqrt(v[i]);
    } else {
      for (uint64_t i = 0; i < m; ++i) y[i] = k[terms - 1];
      for (uint64_t j = terms - 1; j-- > 0;) {
        for (uint64_t i = 0; i < m; ++i) y[i] = y[i] * v[i] + k[j];
      }
    }
    if (out_prec == 1) {
      doubles_to_halves(y, d, 2, m);
      for (uint64_t i = 0; i < m; ++i) {
        if (std::isnan(y[i])) write_sfu_result(d + 2 * i, 1, y[i]);
      }
    } else {
      for (uint64_t i = 0; i < m; ++i) write_sfu_result(d + i * oes, out_prec, y[i]);
    }
  }
}

// The taylor table: checks L and resolves opd1_addr to its in-lane offset (lane bits ignored).
Status taylor_table(const Ctx& x, const UnaryParams& a, const std::string& cls, Side& t,
                    std::string& msg) {
  if (a.table_len == 0 || a.table_len > kMaxTaylorTerms) {
    return fail(msg, Status::cmd_bad_field, cls + " (taylor): opd1_n (table length) " + std::to_string(a.table_len) +
                                                " is not in 1.." + std::to_string(kMaxTaylorTerms));
  }
  const Status s = resolve_local(x, a.table_addr, t, msg);
  if (s != Status::ok) return s;
  if (!t.lmem) return unsupported(msg, cls + " (taylor): coefficient table in SMEM (it is read per lane)");
  if (t.start + a.table_len * tiu_esize(a.prec[1]) > sg::kLaneBytes) {
    return fail(msg, Status::cmd_footprint_out_of_range, cls + " (taylor): opd1 table runs past the end of the lane");
  }
  return Status::ok;
}

}  // namespace

Status run_sfu(const Ctx& x, const UnaryParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  // taylor_4x (eu 12) computes the same polynomial as taylor (tilefw decision: "4x" is its
  // throughput, not a different function; the real YOLOv5s commands pair it with a 7-entry
  // table written by a static_bc like taylor's)
  const bool taylor = a.eu == 13 || a.eu == 12;
  if (a.eu != 17 && !taylor) {
    const char* name = a.eu == 15 ? "normalize" : "?";
    return unsupported(msg, cls + " (" + name + "): the spec gives no coefficient order, evaluation order or definition");
  }
  if (!prec_is_float(a.prec[0]) || !prec_is_float(a.prec[1])) {
    return unsupported(msg, cls + (taylor ? " (taylor)" : " (rsqrt)") + " on integer operands");
  }
  Side table;
  if (taylor) {
    const Status st = taylor_table(x, a, cls, table, msg);
    if (st != Status::ok) return st;
  }
  TiuOperand o[2];
  const Status st = unary_operands(x, a, o, msg);
  if (st != Status::ok) return st;
  const uint64_t* r = a.shape[0];
  const uint32_t tes = o[1].esize;
  double k[kMaxTaylorTerms] = {};  // this lane's coefficients, read once per channel
  const auto value_of = [&](const uint8_t* p) {
    const double x = read_value(p, a.prec[1], true);
    if (!taylor) return 1.0 / std::sqrt(x);
    double y = k[a.table_len - 1];
    for (uint64_t j = a.table_len - 1; j-- > 0;) y = y * x + k[j];
    return y;
  };
  for (uint64_t n = 0; n < r[0]; ++n) {
    for (uint64_t c = 0; c < r[1]; ++c) {
      // The lane of opd0's element (n, c, ...): its copy of the table.
      const uint8_t* coef =
          taylor ? table.base + ((o[1].side.lane0 + c) % sg::kLanes) * sg::kLaneBytes + table.start : nullptr;
      if (taylor) {
        note_read(table, coef, a.table_len * tes);
        for (uint64_t j = 0; j < a.table_len; ++j) k[j] = read_value(coef + j * tes, a.prec[1], true);
      }
      for (uint64_t h = 0; h < r[2]; ++h) {
        // a row contiguous on both sides and inside LMEM: addressed and logged once
        const uint8_t* p = element(o[1].side, n, c, h, 0, o[1].ns, o[1].cs, o[1].hs, o[1].ws, o[1].esize);
        uint8_t* d = element(o[0].side, n, c, h, 0, o[0].ns, o[0].cs, o[0].hs, o[0].ws, o[0].esize);
        if (r[3] > 0 && o[1].ws == 1 && o[0].ws == 1 && p != nullptr && d != nullptr &&
            element(o[1].side, n, c, h, r[3] - 1, o[1].ns, o[1].cs, o[1].hs, 1, o[1].esize) != nullptr &&
            element(o[0].side, n, c, h, r[3] - 1, o[0].ns, o[0].cs, o[0].hs, 1, o[0].esize) != nullptr) {
          note_read(o[1].side, p, r[3] * o[1].esize);
          note_write(o[0].side, d, r[3] * o[0].esize);
          const bool apart = d + r[3] * o[0].esize <= p || p + r[3] * o[1].esize <= d;
          if (apart || (d == p && o[0].esize == o[1].esize)) {
            sfu_row(p, d, r[3], a.prec[1], a.prec[0], k, a.table_len, taylor);
            continue;
          }
          for (uint64_t w = 0; w < r[3]; ++w, p += o[1].esize, d += o[0].esize) {
            write_sfu_result(d, a.prec[0], value_of(p));
          }
          continue;
        }
        for (uint64_t w = 0; w < r[3]; ++w) {
          p = element(o[1].side, n, c, h, w, o[1].ns, o[1].cs, o[1].hs, o[1].ws, o[1].esize);
          if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
          d = element(o[0].side, n, c, h, w, o[0].ns, o[0].cs, o[0].hs, o[0].ws, o[0].esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
          note_read(o[1].side, p, o[1].esize);
          note_write(o[0].side, d, o[0].esize);
          write_sfu_result(d, a.prec[0], value_of(p));
        }
      }
    }
  }
  return Status::ok;
}

}  // namespace tilefw::port::host::sg2260::exec
