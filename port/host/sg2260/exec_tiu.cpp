// SG2260 execution, TIU: AR / sAR, MM2 / sMM2, and the dispatch of every TIU class (CW&BC
// and SFU: sg2260/exec_unary.cpp). Semantics: sg2260/sim.hpp (execute_command).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_ar_rows.hpp"
#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

// only); the simulator refuses them rather than guess. nullptr: simulated.
const char* ar_unsupported_reason(uint32_t eu) {
  switch (eu) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 7: case 8: case 9: case 10: case 11:
    case 12: case 13: case 14: case 15: case 16: case 19: case 20: case 26: case 27: return nullptr;
    case 6: return "logic_shift: the spec gives neither the shift direction nor the operand holding the amount";
    case 21: return "arith_shift: the spec gives neither the shift direction nor the operand holding the amount";
    case 22: return "rotate_shift: the spec gives neither the rotate direction nor the operand holding the amount";
    case 18: return "mac: the spec does not say which operand accumulates";
    case 23: return "mulDHR: the spec does not define its rounding and shift";
    case 28: return "copy_mb: the spec does not define it";
    default: return "not an AR operation";
  }
}
bool ar_unary(uint32_t eu) { return eu == 1 || eu == 14 || eu == 19 || eu == 26; }

struct ArParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;
  uint32_t opd_num;
  uint32_t round;
  uint64_t addr[3];  // res0, opd0, opd1
  uint32_t prec[3];
  bool sign[3];
  bool is_const[3];
  uint32_t mode[3];
  uint64_t str[3][4];
  // saturating ops with tsk_opd_num 3: the shift (opd2, a constant: its low byte, signed)
  bool shift_const = false;
  int32_t shift = 0;
};

// Checks the operation and its operands, then resolves them (opd1 only for binary eu).
Status ar_operands(const Ctx& x, const ArParams& a, const std::string& cls, TiuOperand (&o)[3], std::string& msg) {
  const char* why = ar_unsupported_reason(a.eu);
  if (why != nullptr) return unsupported(msg, cls + ": " + why);
  if (ar_saturating(a.eu) && a.opd_num == 3 && !a.shift_const) {
    return unsupported(msg, cls + ": a shift tensor (opd2 not constant) on a saturating op");
  }
  if (ar_saturating(a.eu) && a.opd_num == 3 && prec_is_float(a.prec[0])) {
    return unsupported(msg, cls + ": a shift (tsk_opd_num 3) on a float result");
  }
  if (a.round > kRoundUp) return unsupported(msg, cls + ": round mode " + std::to_string(a.round));
  static const char* const kNames[] = {"res0", "opd0", "opd1"};
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && ar_unary(a.eu)) break;
    const Status s = tiu_operand(x, a.addr[i], a.prec[i], a.sign[i], i > 0 && a.is_const[i], a.mode[i], a.c,
                                 a.h, a.w, a.str[i][0], a.str[i][1], a.str[i][2], a.str[i][3], a.cls,
                                 kNames[i], o[i], msg);
    if (s != Status::ok) return s;
  }
  const bool bitwise = a.eu == 1 || a.eu == 7 || a.eu == 8 || a.eu == 9;
  if (bitwise && (prec_is_float(a.prec[0]) || prec_is_float(a.prec[1]))) {
    return unsupported(msg, cls + " on floating-point operands");
  }
  return Status::ok;
}

// One element: the inputs' values (a constant's, or read at p[i]), the operation, the store.
void ar_element(const ArRow& a, const uint8_t* const (&p)[2], uint8_t* d) {
  const double v0 = p[0] != nullptr ? read_value(p[0], a.prec[1], a.sign[1]) : a.k[0];
  const double v1 = p[1] != nullptr ? read_value(p[1], a.prec[2], a.sign[2]) : a.k[1];
  store_ar(d, a, ar_apply(a.eu, v0, v1));
}

// One row (n, c, h) element by element, each address checked and logged on its own: the rows
// whose ends fall outside LMEM take this path, so the failure names the first element's
// operand exactly as the hardware order of reads gives it.
Status ar_row_checked(const ArRow& row, const TiuOperand (&o)[3], uint64_t n, uint64_t c, uint64_t h, uint64_t count,
                      const std::string& cls, std::string& msg) {
  const TiuOperand& r = o[0];
  for (uint64_t w = 0; w < count; ++w) {
    const uint8_t* p[2] = {nullptr, nullptr};
    for (int i = 0; i < row.inputs; ++i) {
      const TiuOperand& op = o[i + 1];
      if (op.is_const) continue;
      p[i] = element(op.side, n, c, h, w, op.ns, op.cs, op.hs, op.ws, op.esize);
      if (p[i] == nullptr) {
        return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd" + std::to_string(i) + " outside LMEM");
      }
      note_read(op.side, p[i], op.esize);
    }
    uint8_t* d = element(r.side, n, c, h, w, r.ns, r.cs, r.hs, r.ws, r.esize);
    if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
    note_write(r.side, d, r.esize);
    ar_element(row, p, d);
  }
  return Status::ok;
}

// One row whose first and last elements are inside LMEM for every operand (so is every
// element between: addresses grow with w): pointers step by the w stride, a contiguous row is
// logged as one range (the same bytes the element-wise log merges into), and the elements go
// through the typed row loops (sg2260/exec_ar_rows.hpp). A whole plane taken as one row is
// declined where its result meets an input out of place (row by row the typed loops keep
// their pace; as one row it would go element by element).
bool ar_row_fast(const ArRow& row, const TiuOperand (&o)[3], uint64_t n, uint64_t c, uint64_t h, uint64_t count,
                 bool whole_plane = false) {
  const uint8_t* p[2] = {nullptr, nullptr};
  uint64_t step[3] = {0, 0, 0};
  for (int i = 0; i < row.inputs; ++i) {
    const TiuOperand& op = o[i + 1];
    if (op.is_const) continue;
    p[i] = element(op.side, n, c, h, 0, op.ns, op.cs, op.hs, op.ws, op.esize);
    if (p[i] == nullptr || element(op.side, n, c, h, count - 1, op.ns, op.cs, op.hs, op.ws, op.esize) == nullptr) {
      return false;
    }
    step[i + 1] = op.ws * op.esize;
  }
  const TiuOperand& r = o[0];
  uint8_t* d = element(r.side, n, c, h, 0, r.ns, r.cs, r.hs, r.ws, r.esize);
  if (d == nullptr || element(r.side, n, c, h, count - 1, r.ns, r.cs, r.hs, r.ws, r.esize) == nullptr) return false;
  step[0] = r.ws * r.esize;
  if (whole_plane && ar_row_overlaps(row, p[0], p[1], d, count, step)) return false;
  for (int i = 0; i < row.inputs; ++i) {
    const TiuOperand& op = o[i + 1];
    if (op.is_const) continue;
    if (op.ws == 1) note_read(op.side, p[i], count * op.esize);
    else note_read_strided(op.side, p[i], op.esize, step[i + 1], count);
  }
  if (r.ws == 1) note_write(r.side, d, count * r.esize);
  else note_write_strided(r.side, d, r.esize, step[0], count);
  ar_row_typed(row, p[0], p[1], d, count, step);
  return true;
}

Status run_ar(const Ctx& x, const ArParams& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  TiuOperand o[3];
  const Status st = ar_operands(x, a, cls, o, msg);
  if (st != Status::ok) return st;
  if (a.eu == 12 && !prec_is_float(a.prec[0]) && a.n * a.c * a.h * a.w != 0) {
    return unsupported(msg, cls + " (integer div)");
  }
  ArRow row;
  row.eu = a.eu;
  row.round = a.round;
  row.inputs = ar_unary(a.eu) ? 1 : 2;
  for (int i = 0; i < 3; ++i) {
    row.prec[i] = a.prec[i];
    row.sign[i] = a.sign[i];
  }
  row.shift = ar_saturating(a.eu) && a.opd_num == 3;
  row.shift_amount = a.shift;
  for (int i = 0; i < row.inputs; ++i) {  // constant operands' values
    row.is_const[i + 1] = o[i + 1].is_const;
    if (o[i + 1].is_const) row.k[i] = const_value(o[i + 1].const_bits, o[i + 1].prec, o[i + 1].sign);
  }
  // Rows that follow each other in every operand (h stride = w x w stride) are one row of
  // h x w elements: the same elements in the same order, one row's set-up and log range.
  bool planes = a.w != 0 && a.h > 1;
  for (int i = 0; i < 3 && planes; ++i) {
    planes = (i > 0 && (i > row.inputs || o[i].is_const)) || o[i].hs == a.w * o[i].ws;
  }
  for (uint64_t n = 0; n < a.n; ++n) {
    for (uint64_t c = 0; c < a.c; ++c) {
      if (planes && ar_row_fast(row, o, n, c, 0, a.h * a.w, true)) continue;
      for (uint64_t h = 0; h < a.h; ++h) {
        if (a.w == 0 || ar_row_fast(row, o, n, c, h, a.w)) continue;
        const Status s = ar_row_checked(row, o, n, c, h, a.w, cls, msg);
        if (s != Status::ok) return s;
      }
    }
  }
  return Status::ok;
}

// R x C "matrix2" operand element: row r on lane (L0 + r) % 64, columns contiguous, alignEU.
uint8_t* matrix2(const Side& s, uint64_t r, uint64_t col, uint64_t cols, uint32_t esize) {
  const uint64_t eu = 64 / esize;
  const uint64_t cs = (cols + eu - 1) / eu * eu;
  return element(s, 0, r, 0, col, 0, cs, 0, 1, esize);
}

// Logs the `rows` x `cols` matrix2 operand row by row (one range per lane row).
void note_rows(const Side& s, uint64_t rows, uint64_t cols, uint32_t esize, bool write) {
  if (s.log == nullptr || cols == 0) return;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint8_t* p = matrix2(s, r, 0, cols, esize);
    if (write) note_write(s, p, cols * esize);
    else note_read(s, p, cols * esize);
  }
}

struct Mm2Params {
  const char* cls;
  uint32_t eu;
  uint64_t M, N, K;
  uint64_t addr[4];  // res0, opd0, opd1, opd2
  uint32_t prec[4];
  bool sign[4];
  bool is_const[4];
  bool res_add, relu, rq;
};

Status run_mm2(const Ctx& x, const Mm2Params& a, std::string& msg) {
  const std::string cls = std::string(a.cls) + " eu " + std::to_string(a.eu);
  if (a.rq) return unsupported(msg, cls + " with opt_rq (requantisation)");
  if (!a.is_const[3]) return unsupported(msg, cls + " with a bias tensor (opt_opd2_const = 0)");
  if (a.is_const[1] || a.is_const[2]) return unsupported(msg, cls + " with a constant matrix operand");
  // floats throughout, or integers throughout (int8 / int16 operands: their sums are exact in
  // double; the result saturates to res0's range)
  const bool fl = prec_is_float(a.prec[1]);
  for (int i = 0; i < 3; ++i) {
    if (prec_is_float(a.prec[i]) != fl || tiu_esize(a.prec[i]) == 0 || (i > 0 && !fl && tiu_esize(a.prec[i]) > 2)) {
      return unsupported(msg, cls + " on " + prec_name(a.prec[i]) + " " + (i == 0 ? "res0" : i == 1 ? "opd0" : "opd1") +
                                  (fl ? " with float operands" : " (integer MM2: int8 / int16 operands)"));
    }
  }
  Side s[3];
  for (int i = 0; i < 3; ++i) {
    const Status st = resolve_local(x, a.addr[i], s[i], msg);
    if (st != Status::ok) return st;
    if (!s[i].lmem) return unsupported(msg, cls + ": operand in SMEM");
  }
  const uint32_t es[3] = {tiu_esize(a.prec[0]), tiu_esize(a.prec[1]), tiu_esize(a.prec[2])};
  const double bias = const_value(static_cast<uint32_t>(a.addr[3]), a.prec[3], a.sign[3]);
  const bool lt = a.eu == 6;   // tt: left stored K x M
  const bool rt = a.eu != 4;   // nt, tt: right stored N x K
  // Operands are read once into M x K and K x N double matrices (products of 16/32-bit
  // floats are exact in double), then multiplied.
  std::vector<double> L(a.M * a.K), R(a.K * a.N);
  for (uint64_t i = 0; i < a.M; ++i) {
    for (uint64_t k = 0; k < a.K; ++k) {
      const uint8_t* l = lt ? matrix2(s[1], k, i, a.M, es[1]) : matrix2(s[1], i, k, a.K, es[1]);
      if (l == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd0 outside LMEM");
      L[i * a.K + k] = read_value(l, a.prec[1], a.sign[1]);
    }
  }
  for (uint64_t k = 0; k < a.K; ++k) {
    for (uint64_t j = 0; j < a.N; ++j) {
      const uint8_t* r = rt ? matrix2(s[2], j, k, a.K, es[2]) : matrix2(s[2], k, j, a.N, es[2]);
      if (r == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": opd1 outside LMEM");
      R[k * a.N + j] = read_value(r, a.prec[2], a.sign[2]);
    }
  }
  for (uint64_t i = 0; i < a.M; ++i) {
    for (uint64_t j = 0; j < a.N; ++j) {
      double acc = 0;
      for (uint64_t k = 0; k < a.K; ++k) acc += L[i * a.K + k] * R[k * a.N + j];
      uint8_t* d = matrix2(s[0], i, j, a.N, es[0]);
      if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
      acc += bias;
      if (a.res_add) acc += read_value(d, a.prec[0], a.sign[0]);
      if (a.relu && acc < 0) acc = 0;
      if (fl) {
        write_value(d, a.prec[0], acc, RoundMode::nearest_even, a.sign[0]);
      } else {
        const int64_t iv = static_cast<int64_t>(std::clamp(acc, int_min(es[0], a.sign[0]), int_max(es[0], a.sign[0])));
        std::memcpy(d, &iv, es[0]);
      }
    }
  }
  // Accesses by stored row (all in bounds: every element was reached above).
  note_rows(s[1], lt ? a.K : a.M, lt ? a.M : a.K, es[1], false);
  note_rows(s[2], rt ? a.N : a.K, rt ? a.K : a.N, es[2], false);
  if (a.res_add) note_rows(s[0], a.M, a.N, es[0], false);
  note_rows(s[0], a.M, a.N, es[0], true);
  return Status::ok;
}

// Per-class field decoding: each builds the parameters of its operation from the view.
Status exec_ar(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sAR) {
    const cmd::SArView v(data);
    ArParams a{"sAR", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.tsk_opd_num(),
               v.opd2_n_str(),
               {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
               {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec()},
               {v.opt_opd0_sign() != 0 || v.opt_opd1_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
               {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0},
               {v.short_res0_str(), v.short_opd0_str(), v.short_opd1_str()},
               {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
                {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
                {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}}};
    a.shift_const = v.opt_opd2_const() != 0;
    a.shift = static_cast<int8_t>(v.opd2_addr() & 0xFF);
    return run_ar(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  ArParams a{"AR", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.tsk_opd_num(),
             static_cast<uint32_t>(v.opd2_n_str() & 7),
             {v.res0_addr(), v.opd0_addr(), v.opd1_addr()},
             {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec()},
             {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0},
             {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0},
             {v.short_res0_str(), v.short_opd0_str(), v.short_opd1_str()},
             {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
              {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()},
              {v.opd1_n_str(), v.opd1_c_str(), v.opd1_h_str(), v.opd1_w_str()}}};
  a.shift_const = v.opt_opd2_const() != 0;
  a.shift = static_cast<int8_t>(v.opd2_addr() & 0xFF);
  return run_ar(x, a, msg);
}

Status exec_mm2(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sMM2) {
    const cmd::SMm2View v(data);
    const uint64_t K = eu == 4 ? v.opd1_c() : v.opd1_w();
    Mm2Params a{"sMM2", eu, v.res0_c(), v.res0_w(), K,
                {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
                {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
                {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
                {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0},
                v.opt_res_add() != 0, v.opt_relu() != 0, v.opt_rq() != 0};
    if (eu == 7) return unsupported(msg, "sMM2 eu 7 (tf32)");
    return run_mm2(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const uint64_t K = eu == 4 ? v.opd1_c() : v.opd1_w();
  Mm2Params a{"MM2", eu, v.res0_c(), v.res0_w(), K,
              {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr()},
              {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
              {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
              {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0},
              v.opt_res_add() != 0, v.opt_relu() != 0, v.opt_rq() != 0};
  if (eu == 7) return unsupported(msg, "MM2 eu 7 (tf32)");
  return run_mm2(x, a, msg);
}

Status exec_unary(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sCW_sBC) {
    const cmd::SCwBcView v(data);
    const uint32_t p = v.opt_res0_prec();
    UnaryParams a{"sCW&sBC", eu,
                  {{v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()}, {v.res0_n(), v.opd0_c(), v.res0_h(), v.opd0_w()}},
                  {v.res0_addr(), v.opd0_addr()}, {p, p}, {0, 0}, {}};
    return run_cw(x, a, msg);
  }
  if (c == CmdClass::sSFU) {
    const cmd::SSfuView v(data);
    const uint64_t sh[4] = {v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()};
    UnaryParams a{"sSFU", eu, {{sh[0], sh[1], sh[2], sh[3]}, {sh[0], sh[1], sh[2], sh[3]}},
                  {v.res0_addr(), v.opd0_addr()}, {v.opt_res0_prec(), v.opt_opd0_prec()}, {0, 0}, {},
                  v.opd1_addr(), v.opd1_n()};
    return run_sfu(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const bool sfu = c == CmdClass::SFU;
  // SFU is element-wise: opd0 has res0's shape.
  UnaryParams a{sfu ? "SFU" : "CW&BC", eu,
                {{v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w()},
                 {sfu ? v.res0_n() : v.opd0_n(), sfu ? v.res0_c() : v.opd0_c(), sfu ? v.res0_h() : v.opd0_h(),
                  sfu ? v.res0_w() : v.opd0_w()}},
                {v.res0_addr(), v.opd0_addr()},
                {v.opt_res0_prec(), v.opt_opd0_prec()},
                {v.short_res0_str(), v.short_opd0_str()},
                {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
                 {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()}},
                v.opd1_addr(), v.opd1_n()};
  if (v.opt_opd0_const() != 0) {
    return unsupported(msg, std::string(a.cls) + " eu " + std::to_string(eu) + " on a constant source");
  }
  if (!sfu) return run_cw(x, a, msg);
  return run_sfu(x, a, msg);
}

}  // namespace

Status exec_tiu(const Ctx& x, const uint8_t* data, std::string& msg) {
  const uint32_t tsk = (data[5] >> 1) & 0xF;
  const bool short_form = (data[0] & 1) != 0 && tsk != 7 && tsk != 12 && tsk != 15;
  const uint32_t eu = static_cast<uint32_t>(((data[5] >> 5) | (data[6] << 3)) & 0x1F);
  const CmdClass c = cmd::tiu_class(tsk, tsk == 12 ? (eu & 7) : eu, short_form);
  switch (c) {
    case CmdClass::SYS:
      if (eu == 0 || eu == 5 || eu == 30 || eu == 8 || eu == 9 || eu == 31) return Status::ok;
      return unsupported(msg, "SYS eu " + std::to_string(eu));
    case CmdClass::SYS_TR_ACC:
      return exec_sys_tr_acc(x, eu & 7, data, msg);  // TGCR writes: the requantising CONV reads them
    case CmdClass::sAR: case CmdClass::AR:
      return exec_ar(x, c, eu, data, msg);
    case CmdClass::sMM2: case CmdClass::MM2:
      return exec_mm2(x, c, eu, data, msg);
    case CmdClass::sCONV: case CmdClass::CONV:
      return exec_conv(x, c, eu, data, msg);
    case CmdClass::sPorD: case CmdClass::PorD:
      return exec_pord(x, c, eu, data, msg);
    case CmdClass::sMM: case CmdClass::MM:
      return exec_mm(x, c, eu, data, msg);
    case CmdClass::sCW_sBC: case CmdClass::CW_BC: case CmdClass::SFU: case CmdClass::sSFU:
      return exec_unary(x, c, eu, data, msg);
    case CmdClass::CMP: case CmdClass::sCMP:
      return exec_cmp(x, c, eu, data, msg);
    case CmdClass::RQ_DQ: case CmdClass::sRQ_sDQ:
      return exec_rqdq(x, c, eu, data, msg);
    case CmdClass::SG: case CmdClass::sSG: case CmdClass::SGL: case CmdClass::sSGL:
      return exec_sgl(x, c, eu, data, msg);
    case CmdClass::LIN: case CmdClass::sLIN:
      return exec_lin(x, c, eu, data, msg);
    case CmdClass::VC: case CmdClass::sVC:
      return exec_vc(x, c, eu, data, msg);
    default:
      return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                                  " (class not simulated functionally: the spec gives its layout, not its semantics)");
  }
}

}  // namespace tilefw::port::host::sg2260::exec
