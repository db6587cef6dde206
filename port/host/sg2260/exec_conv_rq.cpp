// SG2260 execution, the requantising CONV (opt_rq): parameters and result step. Documented
// facts (the vendor compiler's weight layout and debugger): the kernel zero point is an
// int16 per output channel at the address in TGCR 5 (or TGCR 5 itself with opt_opd4_const);
// the parameters sit at the address in TGCR 6, per output channel on its lane, integer
// operands two int32 (the multiplier; then the shift in the low byte, negative for a right
// shift, and the output zero point in the high 16 bits), FP8 operands one FP32 scale. The
// order of the steps follows the compiler's reference model: sum, bias, relu, then the
// scale (floats) or multiplier, shift and zero point (integers), then saturation.
// docs/sg2260-commands.md section 15, "requantising CONV".
#include "sg2260/exec_conv_rq.hpp"

#include <algorithm>
#include <cstring>

namespace tilefw::port::host::sg2260::exec {

namespace {

// 128-bit integers hold a sum times a multiplier exactly (a GCC / Clang extension).
__extension__ typedef __int128 Int128;

constexpr uint32_t kPrecInt8 = 0, kPrecInt16 = 3, kPrecInt32 = 4, kPrecFp8 = 7;

// round(v / 2^n) by a round mode (the seven of RQ&DQ's shift), exactly on 128-bit integers.
// |v| < 2^95 here, so every n >= 100 gives the result of n = 100.
Int128 shift_right_round(Int128 v, int n, uint32_t mode) {
  if (n <= 0) return v;
  n = std::min(n, 100);
  const Int128 one = 1;
  const Int128 q = v >> n;  // floor (arithmetic shift)
  const Int128 r = v - q * (one << n);
  const Int128 half = one << (n - 1);
  const int cmp = r < half ? -1 : r == half ? 0 : 1;  // the dropped fraction against 1/2
  const bool nonzero = r != 0;
  return round_shifted(q, v < 0, cmp, nonzero, mode);
}

}  // namespace

Status conv_rq_check(const ConvRqFields& q, bool fl, uint32_t res_prec, uint32_t in_prec, uint32_t k_prec,
                     bool res_add, const std::string& cls, std::string& msg) {
  const std::string what = cls + " with opt_rq";
  if (q.param_const) {
    return unsupported(msg, what + " and opt_opd5_const (constant parameters): where TGCR 32 / 33 hold the shift "
                                   "and zero point is not established");
  }
  if (res_add) return unsupported(msg, what + " and opt_res_add: no source gives the order of the two");
  if (fl) {
    if (in_prec != kPrecFp8 || k_prec != kPrecFp8) {
      return unsupported(msg, what + " on " + prec_name(in_prec) + " operands (the float form is defined for FP8 only)");
    }
    if (q.round != kRoundNearestEven) {
      return unsupported(msg, what + " (FP8): round mode " + std::to_string(q.round) + " (only 0, nearest even)");
    }
    return Status::ok;
  }
  if (in_prec != kPrecInt8 || k_prec != kPrecInt8) {
    return unsupported(msg, what + ": integer operands other than INT8 (opd0 " + prec_name(in_prec) + ", kernel " +
                                prec_name(k_prec) + ")");
  }
  if (res_prec != kPrecInt8 && res_prec != kPrecInt16 && res_prec != kPrecInt32) {
    return unsupported(msg, what + ": res0 precision " + prec_name(res_prec));
  }
  if (q.round > kRoundHalfDown) return unsupported(msg, what + ": shift round mode " + std::to_string(q.round));
  return Status::ok;
}

Status conv_rq_channel(const Ctx& x, const ConvRqFields& q, bool fl, uint64_t ch, ConvRqChannel& k,
                       const std::string& cls, std::string& msg) {
  const uint8_t* p = nullptr;
  const uint32_t params = tgcr_read(x, kTgcrRqParams);
  Status st = lane_vector(x, params, ch, fl ? 1 : 2, fl ? 1 : 2, 4, cls + ": requant parameters (TGCR 6)", p, msg);
  if (st != Status::ok) return st;
  if (fl) {
    std::memcpy(&k.scale, p, 4);
    return Status::ok;
  }
  int32_t mult = 0;
  uint32_t packed = 0;
  std::memcpy(&mult, p, 4);
  std::memcpy(&packed, p + 4, 4);
  k.multiplier = mult;
  k.shift = static_cast<int8_t>(packed & 0xFF);
  k.zp = static_cast<int16_t>(packed >> 16);
  const uint32_t kzp = tgcr_read(x, kTgcrKernelZp);
  if (q.kzp_const) {
    k.kzp = static_cast<int16_t>(kzp & 0xFFFF);
    return Status::ok;
  }
  st = lane_vector(x, kzp, ch, 1, 1, 2, cls + ": kernel zero point (TGCR 5)", p, msg);
  if (st != Status::ok) return st;
  int16_t z = 0;
  std::memcpy(&z, p, 2);
  k.kzp = z;
  return Status::ok;
}

void conv_rq_store_float(uint8_t* d, uint32_t prec, bool sign, float v, const ConvRqChannel& k) {
  double r = static_cast<double>(v * k.scale);  // one FP32 multiply, rounded to nearest even
  if (prec == kPrecFp8) {
    const double top = max_finite(prec, sign);
    if (!std::isnan(r)) r = std::clamp(r, -top, top);  // saturating, infinities included
  }
  write_value(d, prec, r, RoundMode::nearest_even, sign);
}

void conv_rq_store_int(uint8_t* d, uint32_t esize, bool sign, const ConvRqFields& q, bool relu, int64_t acc,
                       const ConvRqChannel& k) {
  const Int128 prod = static_cast<Int128>(acc) * k.multiplier;  // |acc| < 2^63, |mult| <= 2^31
  Int128 v = prod;
  if (k.shift > 0) {
    // a left shift saturates: past 2^100 every result is the range's end anyway
    const Int128 lim = static_cast<Int128>(1) << 100;
    for (int i = 0; i < k.shift && v > -lim && v < lim; ++i) v *= 2;
  } else {
    v = shift_right_round(v, -k.shift, q.round);
  }
  if (relu && v < 0) v = 0;
  const uint32_t bits = esize * 8;
  const int64_t hi = sign ? (int64_t{1} << (bits - 1)) - 1 : static_cast<int64_t>((uint64_t{1} << bits) - 1);
  const int64_t lo = sign ? (q.sym ? -hi : -hi - 1) : 0;
  v += k.zp;
  const int64_t r = v < lo ? lo : v > hi ? hi : static_cast<int64_t>(v);
  std::memcpy(d, &r, esize);  // little-endian low bytes
}

}  // namespace tilefw::port::host::sg2260::exec
