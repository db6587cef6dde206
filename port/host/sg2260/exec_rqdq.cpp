// SG2260 execution, TIU RQ&DQ / sRQ&sDQ (requantise, dequantise). The operand roles, the
// per-channel parameter tensor's layout, the constants' packing and the round-mode fields are
// documented facts (docs/sg2260-commands.md section 15, "RQ&DQ"); the order of the steps and
// the rounding of the float intermediates are tilefw decisions stated there. DQ0 with a
// parameter tensor is refused by name (no source gives the order of its two values).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "sg2260/exec_common.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

namespace {

constexpr uint32_t kRq0 = 0, kRq1 = 1, kDq0 = 3, kDq1 = 4;
constexpr uint32_t kPrecF32 = 2, kPrecI32 = 4;

struct RqParams {
  const char* cls;
  uint32_t eu;
  uint64_t n, c, h, w;
  uint64_t res_addr, a_addr;
  uint32_t opd1, opd2;  // the parameter tensor's address, or the constants' bits
  uint32_t a_prec, r_prec;
  bool a_sign, r_sign, b_const, sym;
  uint32_t round;  // opd2_n_str
};

// One channel's parameters.
struct Channel {
  double scale_f = 0, zp_f = 0;        // RQ0, DQ0
  int64_t scale = 0, shift = 0, zp = 0;  // RQ1, DQ1
};

// q = round(v / 2^n) by a round mode, exactly on 64-bit integers (0 <= n): the floor q, and
// where the dropped fraction lies against one half (below, at, above).
int64_t shift_right_round(int64_t v, int64_t n, uint32_t mode) {
  if (n == 0) return v;
  int64_t q = 0;
  bool nonzero = false;
  int cmp = 0;  // the fraction against 1/2: -1 below, 0 at, 1 above
  if (n <= 62) {
    q = v >> n;  // floor (arithmetic shift)
    const int64_t r = v - q * (int64_t{1} << n);
    const int64_t half = int64_t{1} << (n - 1);
    nonzero = r != 0;
    cmp = r < half ? -1 : r == half ? 0 : 1;
  } else {
    // v / 2^n lies in [-1, 1): floor 0 or -1; the fraction v / 2^n (v >= 0) or 1 + v / 2^n
    q = v < 0 ? -1 : 0;
    nonzero = v != 0;
    const int64_t quarter = int64_t{1} << 62;  // half of 2^63
    if (n > 63) cmp = v < 0 ? 1 : -1;
    else if (v >= 0) cmp = v < quarter ? -1 : v == quarter ? 0 : 1;
    else cmp = v > -quarter ? 1 : v == -quarter ? 0 : -1;
  }
  return round_shifted(q, v < 0, cmp, nonzero, mode);
}

// v * 2^s (s > 0) saturated to the int64 range; any result past it saturates later anyway.
int64_t shift_left_sat(int64_t v, int64_t s) {
  if (v == 0) return 0;
  if (s >= 63) return v > 0 ? INT64_MAX : INT64_MIN;
  const int64_t lim = INT64_MAX >> s;
  if (v > lim) return INT64_MAX;
  if (v < -lim) return INT64_MIN;
  return v * (int64_t{1} << s);
}

// The result's integer range; sym_range makes a signed range symmetric (-max .. max).
void int_range(uint32_t esize, bool sign, bool sym, int64_t& lo, int64_t& hi) {
  const uint32_t bits = esize * 8;
  hi = sign ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  lo = sign ? (sym ? -hi : -hi - 1) : 0;
}

Status rq_check(const RqParams& a, std::string& msg) {
  const std::string cls = a.cls + std::string(" eu ") + std::to_string(a.eu);
  if (a.eu != kRq0 && a.eu != kRq1 && a.eu != kDq0 && a.eu != kDq1) return unsupported(msg, cls + ": not an RQ&DQ operation");
  if (prec_is_float(a.a_prec) || tiu_esize(a.a_prec) == 0) {
    return unsupported(msg, cls + ": opd0 precision " + prec_name(a.a_prec) + " (integer inputs only)");
  }
  if ((a.eu == kDq0 || a.eu == kDq1) && a.a_prec == kPrecI32) return unsupported(msg, cls + ": INT32 opd0 (dequantise takes int8 / int16)");
  if (a.eu == kDq0) {
    if (a.r_prec != kPrecF32) return unsupported(msg, cls + " (dq0): res0 precision " + std::string(prec_name(a.r_prec)) + " (FP32 only)");
    if (!a.b_const) return unsupported(msg, cls + " (dq0) with a parameter tensor: no source gives the order of zp and scale in it");
    if (a.round > kRoundUp) return unsupported(msg, cls + " (dq0): round mode " + std::to_string(a.round));
  } else if (prec_is_float(a.r_prec) || tiu_esize(a.r_prec) == 0) {
    return unsupported(msg, cls + ": res0 precision " + std::string(prec_name(a.r_prec)) + " (integer results only)");
  }
  if (a.eu == kRq0 && ((a.round & 7) > kRoundUp || (a.round >> 3) > kRoundUp)) {
    return unsupported(msg, cls + " (rq0): round modes " + std::to_string(a.round) + " (i2f bits 0..2, f2i bits 3..5, each 0..4)");
  }
  if ((a.eu == kRq1 || a.eu == kDq1) && a.round > kRoundHalfDown) {
    return unsupported(msg, cls + ": shift round mode " + std::to_string(a.round));
  }
  return Status::ok;
}

// The channel's parameters: from the constants, or from the (1, c, 1, 2 or 3) tensor B.
Status channel_params(const RqParams& a, const TiuOperand& b, uint64_t c, Channel& k, std::string& msg) {
  if (a.b_const) {
    float f;
    std::memcpy(&f, &a.opd1, 4);
    if (a.eu == kRq0) {
      float z;
      std::memcpy(&z, &a.opd2, 4);
      k.scale_f = f;
      k.zp_f = z;
    } else if (a.eu == kDq0) {
      k.scale_f = f;
      k.zp = a.a_sign ? int64_t{static_cast<int16_t>(a.opd2 & 0xFFFF)} : int64_t{a.opd2 & 0xFFFF};
    } else {
      k.scale = static_cast<int32_t>(a.opd1);
      k.shift = static_cast<int8_t>(a.opd2 & 0xFF);
      const uint32_t z = a.opd2 >> 16;
      const bool zsign = a.eu == kRq1 ? a.r_sign : a.a_sign;  // zp lives in res0's (rq) / opd0's (dq) domain
      k.zp = zsign ? int64_t{static_cast<int16_t>(z)} : int64_t{z};
    }
    return Status::ok;
  }
  int32_t v[3] = {0, 0, 0};
  const uint32_t count = a.eu == kRq0 ? 2 : 3;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* p = element(b.side, 0, c, 0, i, b.ns, b.cs, b.hs, b.ws, 4);
    if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, std::string(a.cls) + ": opd1 (parameters) outside LMEM");
    note_read(b.side, p, 4);
    std::memcpy(&v[i], p, 4);
  }
  if (a.eu == kRq0) {
    float s, z;
    std::memcpy(&s, &v[0], 4);
    std::memcpy(&z, &v[1], 4);
    k.scale_f = s;
    k.zp_f = z;
  } else if (a.eu == kRq1) {
    k.scale = v[0]; k.shift = v[1]; k.zp = v[2];
  } else {  // dq1
    k.zp = v[0]; k.scale = v[1]; k.shift = v[2];
  }
  return Status::ok;
}

// One element: the value of A in, the bits of res0 out.
void rq_element(const RqParams& a, const Channel& k, double x, uint8_t* d, uint32_t resize) {
  int64_t lo = 0, hi = 0;
  if (a.eu != kDq0) int_range(resize, a.r_sign, a.sym, lo, hi);
  if (a.eu == kDq0) {
    // (A - zp) is exact in FP32 for int8 / int16 inputs; times scale rounded once (RNE)
    const float r = static_cast<float>((x - static_cast<double>(k.zp)) * k.scale_f);
    std::memcpy(d, &r, 4);
    return;
  }
  int64_t r = 0;
  if (a.eu == kRq0) {
    uint8_t fb[4];
    write_rounded(fb, kPrecF32, x, a.round & 7, true);  // int -> FP32 by the i2f mode
    float f;
    std::memcpy(&f, fb, 4);
    const float p = static_cast<float>(static_cast<double>(f) * k.scale_f);  // exact product, one RNE
    const float y = static_cast<float>(static_cast<double>(p) + k.zp_f);     // one RNE (double is wide enough)
    double q = round_integer(static_cast<double>(y), a.round >> 3);
    if (std::isnan(q)) q = 0;
    q = std::clamp(q, static_cast<double>(lo), static_cast<double>(hi));
    r = static_cast<int64_t>(q);
  } else {
    const int64_t base = static_cast<int64_t>(x) - (a.eu == kDq1 ? k.zp : 0);
    int64_t v = base * k.scale;  // |base| < 2^32, |scale| <= 2^31: exact
    v = k.shift >= 0 ? shift_left_sat(v, k.shift) : shift_right_round(v, -k.shift, a.round);
    if (a.eu == kRq1) {
      // |zp| < 2^32: clamping first to a range 2^32 wider than res0's cannot change the result
      v = std::clamp(v, lo - (int64_t{1} << 32), hi + (int64_t{1} << 32)) + k.zp;
    }
    r = std::clamp(v, lo, hi);
  }
  std::memcpy(d, &r, resize);  // little-endian low bytes
}

Status run_rq(const Ctx& x, const RqParams& a, std::string& msg) {
  Status s = rq_check(a, msg);
  if (s != Status::ok) return s;
  TiuOperand A, R, B;
  s = tiu_operand(x, a.a_addr, a.a_prec, a.a_sign, false, 0, a.c, a.h, a.w, 0, 0, 0, 0, a.cls, "opd0", A, msg);
  if (s != Status::ok) return s;
  s = tiu_operand(x, a.res_addr, a.r_prec, a.r_sign, false, 0, a.c, a.h, a.w, 0, 0, 0, 0, a.cls, "res0", R, msg);
  if (s != Status::ok) return s;
  if (!a.b_const) {
    s = tiu_operand(x, a.opd1, kPrecI32, true, false, 0, a.c, 1, a.eu == kRq0 ? 2 : 3, 0, 0, 0, 0, a.cls, "opd1", B, msg);
    if (s != Status::ok) return s;
  }
  for (uint64_t c = 0; c < a.c; ++c) {
    Channel k;
    s = channel_params(a, B, c, k, msg);
    if (s != Status::ok) return s;
    for (uint64_t n = 0; n < a.n; ++n) {
      for (uint64_t h = 0; h < a.h; ++h) {
        for (uint64_t w = 0; w < a.w; ++w) {
          const uint8_t* p = element(A.side, n, c, h, w, A.ns, A.cs, A.hs, A.ws, A.esize);
          if (p == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, std::string(a.cls) + ": opd0 outside LMEM");
          uint8_t* d = element(R.side, n, c, h, w, R.ns, R.cs, R.hs, R.ws, R.esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, std::string(a.cls) + ": res0 outside LMEM");
          note_read(A.side, p, A.esize);
          note_write(R.side, d, R.esize);
          rq_element(a, k, read_value(p, a.a_prec, a.a_sign), d, R.esize);
        }
      }
    }
  }
  return Status::ok;
}

}  // namespace

Status exec_rqdq(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (c == CmdClass::sRQ_sDQ) {
    const cmd::SRqDqView v(data);
    const RqParams a{"sRQ&sDQ", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
                     v.opd1_addr(), v.opd2_addr(), v.opt_opd0_prec(), v.opt_res0_prec(), v.opt_opd0_sign() != 0,
                     v.opt_opd2_sign() != 0, v.opt_opd1_const() != 0, v.sym_range() != 0, v.opd2_n_str()};
    return run_rq(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const RqParams a{"RQ&DQ", eu, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_addr(), v.opd0_addr(),
                   v.opd1_addr(), v.opd2_addr(), v.opt_opd0_prec(), v.opt_res0_prec(), v.opt_opd0_sign() != 0,
                   v.opt_opd2_sign() != 0, v.opt_opd1_const() != 0, v.sym_range() != 0, v.opd2_n_str()};
  return run_rq(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
