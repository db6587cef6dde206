// SG2260 execution, TIU sliding-window classes: CONV / sCONV (conv.normal) and PorD / sPorD
// (depthwise, avg / max / min pooling). Semantics and layouts: sg2260/sim.hpp (execute_command,
// "CONV" and "PorD"). Channels live on lanes (the LMEM lane rule of sg2260/exec_common.hpp):
// the cube reads every input channel's lane and writes output channel oc to lane
// (res0 lane + oc) % 64.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sg2260/exec_common.hpp"
#include "sg2260/exec_convert.hpp"
#include "sg2260/exec_conv_rq.hpp"
#include "sg2260/exec_conv_sums.hpp"
#include "sg2260/exec_conv_window.hpp"
#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/views.hpp"

namespace tilefw::port::host::sg2260::exec {

using cmd::CmdClass;

// A per-channel vector operand (kernel, bias, requant parameters): sg2260/exec_conv_rq.hpp.
Status lane_vector(const Ctx& x, uint64_t addr, uint64_t ch, uint64_t count, uint64_t slab, uint32_t esize,
                   const std::string& what, const uint8_t*& p, std::string& msg) {
  Side s;
  const Status st = resolve_local(x, addr, s, msg);
  if (st != Status::ok) return st;
  if (!s.lmem) return unsupported(msg, what + " in SMEM");
  const uint64_t lane = s.lane0 + ch;
  const uint64_t off = s.start + (lane / sg::kLanes) * slab * esize;
  if (off + count * esize > sg::kLaneBytes) return fail(msg, Status::cmd_footprint_out_of_range, what + " outside LMEM");
  p = s.base + (lane % sg::kLanes) * sg::kLaneBytes + off;
  note_read(s, p, count * esize);
  return Status::ok;
}

namespace {


// One output row's geometry check: res0 must fit the (inserted, padded, dilated) input.
uint64_t out_size(uint64_t in, uint32_t ins, uint32_t pad_a, uint32_t pad_b, uint64_t k, uint32_t dil, uint32_t stride) {
  const uint64_t virt = in == 0 ? 0 : (in - 1) * (ins + 1) + 1 + pad_a + pad_b;
  const uint64_t span = (k - 1) * dil + 1;
  return virt < span ? 0 : (virt - span) / stride + 1;
}


Status check_window(const WinParams& a, const std::string& cls, std::string& msg) {
  if (a.pad_mode != 0) return unsupported(msg, cls + ": pad_mode " + std::to_string(a.pad_mode) + " (only 0, constant)");
  if (a.rq && !a.conv) return unsupported(msg, cls + " with opt_rq (requantising pooling: no source gives its parameters)");
  if (a.stride_h == 0 || a.stride_w == 0) return fail(msg, Status::cmd_bad_field, cls + ": res_op_x_str / res_op_y_str is 0");
  if (a.n * a.oc * a.oh * a.ow == 0) return Status::ok;
  if (a.kh == 0 || a.kw == 0 || a.ih == 0 || a.iw == 0) {
    return fail(msg, Status::cmd_bad_field, cls + ": opd0_h/w or opd1_h/w (kernel) is 0");
  }
  if (a.oh > out_size(a.ih, a.ins_h, a.pad_up, a.pad_dn, a.kh, a.dil_h, a.stride_h)) {
    return fail(msg, Status::cmd_bad_field, cls + ": res0_h exceeds the windows opd0_h, pads, kernel and stride give");
  }
  if (a.ow > out_size(a.iw, a.ins_w, a.pad_lf, a.pad_rt, a.kw, a.dil_w, a.stride_w)) {
    return fail(msg, Status::cmd_bad_field, cls + ": res0_w exceeds the windows opd0_w, pads, kernel and stride give");
  }
  if (!a.is_const[4]) return unsupported(msg, cls + ": a pad-value tensor (opt_opd3_const = 0)");
  return Status::ok;
}

// Writes one result element: float results round once (RNE), integers saturate to res0's range.
void store(uint8_t* d, const WinParams& a, uint32_t esize, double r) {
  if (prec_is_float(a.prec[0])) {
    write_value(d, a.prec[0], r, RoundMode::nearest_even, a.sign[0]);
    return;
  }
  const double lo = a.sign[0] ? -pow2(esize * 8 - 1) : 0.0;
  const double hi = a.sign[0] ? pow2(esize * 8 - 1) - 1 : pow2(esize * 8) - 1;
  const int64_t v = static_cast<int64_t>(std::clamp(r, lo, hi));
  std::memcpy(d, &v, esize);
}

// The per-output-channel bias (opd2): constant or one value per channel on lanes.
Status bias_of(const Ctx& x, const WinParams& a, uint64_t ch, uint32_t prec, bool sign, double& b, std::string& msg) {
  if (a.is_const[3]) {
    b = const_value(static_cast<uint32_t>(a.addr[3]), prec, sign);
    return Status::ok;
  }
  const uint8_t* p = nullptr;
  const Status st = lane_vector(x, a.addr[3], ch, 1, 1, tiu_esize(prec), std::string(a.cls) + ": opd2 (bias)", p, msg);
  if (st != Status::ok) return st;
  b = read_value(p, prec, sign);
  return Status::ok;
}

// Finishes one accumulated value: bias, res_add, relu, store.
Status finish(const WinParams& a, const TiuOperand& r, uint64_t n, uint64_t c, uint64_t y, uint64_t xx, double acc,
              double bias, const std::string& cls, std::string& msg) {
  uint8_t* d = element(r.side, n, c, y, xx, r.ns, r.cs, r.hs, r.ws, r.esize);
  if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
  const bool fl = prec_is_float(a.prec[0]);
  double v = fl ? static_cast<double>(static_cast<float>(acc) + static_cast<float>(bias)) : acc + bias;
  if (a.res_add) {
    note_read(r.side, d, r.esize);
    const double old = read_value(d, a.prec[0], a.sign[0]);
    v = fl ? static_cast<double>(static_cast<float>(v) + static_cast<float>(old)) : v + old;
  }
  if (a.relu && v < 0) v = 0;
  note_write(r.side, d, r.esize);
  store(d, a, r.esize, v);
  return Status::ok;
}

// Finishes one accumulated value of a requantising CONV (sg2260/exec_conv_rq.hpp): floats
// add the bias in FP32 and apply relu before the scale, integers go through the exact sum.
Status finish_rq(const WinParams& a, const TiuOperand& r, uint64_t n, uint64_t c, uint64_t y, uint64_t xx,
                 double acc, double bias, const ConvRqChannel& k, const std::string& cls, std::string& msg) {
  uint8_t* d = element(r.side, n, c, y, xx, r.ns, r.cs, r.hs, r.ws, r.esize);
  if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, cls + ": res0 outside LMEM");
  note_write(r.side, d, r.esize);
  if (prec_is_float(a.prec[0])) {
    float v = static_cast<float>(acc) + static_cast<float>(bias);
    if (a.relu && v < 0) v = 0;
    conv_rq_store_float(d, a.prec[0], a.sign[0], v, k);
  } else {
    conv_rq_store_int(d, r.esize, a.sign[0], a.q, a.relu, static_cast<int64_t>(acc + bias), k);
  }
  return Status::ok;
}

// A float result row whose ends lie inside LMEM, contiguous (w stride 1): the same bias,
// res_add, relu and single rounding as `finish`, with the row addressed and logged once. False
// when the row does not qualify (then `finish` runs element by element).
bool finish_float_row(const WinParams& a, const TiuOperand& r, uint64_t n, uint64_t c, uint64_t y, float* facc,
                      double bias) {
  if (!prec_is_float(a.prec[0]) || r.ws != 1 || a.ow == 0) return false;
  uint8_t* d = element(r.side, n, c, y, 0, r.ns, r.cs, r.hs, r.ws, r.esize);
  if (d == nullptr || element(r.side, n, c, y, a.ow - 1, r.ns, r.cs, r.hs, r.ws, r.esize) == nullptr) return false;
  if (a.res_add) note_read(r.side, d, a.ow * r.esize);
  note_write(r.side, d, a.ow * r.esize);
  const float fb = static_cast<float>(bias);
  if (a.prec[0] == 1 && !a.res_add) {  // FP16 results: the row's values, then one conversion pass
    for (uint64_t ox = 0; ox < a.ow; ++ox) {
      const float v = facc[ox] + fb;
      facc[ox] = a.relu && v < 0 ? 0.0f : v;
    }
    floats_to_halves(facc, d, a.ow);
    return true;
  }
  for (uint64_t ox = 0; ox < a.ow; ++ox, d += r.esize) {
    float v = facc[ox] + fb;
    if (a.res_add) v = v + static_cast<float>(read_value(d, a.prec[0], a.sign[0]));
    if (a.relu && v < 0) v = 0;
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    if (a.prec[0] == 1 || a.prec[0] == 5) {  // a float value: rounding it once from double or from float agrees
      const uint16_t h = a.prec[0] == 1 ? float_bits_to_half_bits(bits, RoundMode::nearest_even)
                                        : float_bits_to_bf16_bits(bits, RoundMode::nearest_even);
      std::memcpy(d, &h, 2);
    } else if (a.prec[0] == 2) {
      std::memcpy(d, &v, 4);
    } else {
      store(d, a, r.esize, static_cast<double>(v));
    }
  }
  return true;
}

// The shared state of one command's execution.
struct Window {
  const Ctx& x;
  const WinParams& a;
  std::string cls;
  TiuOperand o[2];  // res0, opd0
  bool fl;          // float operands
  bool exact;       // float operands whose products are exact in FP32 (FP16, FP8: not FP32, not BF16)
  uint64_t ph, pw;  // padded plane rows / columns the windows reach
  uint64_t P;       // conv kernel channel group
  uint64_t per_ch;  // kernel elements per output channel
  uint32_t kprec, kes;
};

// Columns of one phase plane (sg2260/exec_conv_sums.hpp: phase_planes).
uint64_t phase_width(const Window& w) { return (w.pw + w.a.stride_w - 1) / w.a.stride_w; }

// Rows narrower than a vector (ow < 8) but many of them, at row stride 1: the sums run down
// the columns instead, over the planes transposed (channel ci, column x, row y at
// (ci * pw + x) * ph + y), so one output column of every row is one contiguous run.
bool column_sums_apply(const Window& w) { return w.exact && w.a.ow < 8 && w.a.oh >= 8 && w.a.stride_h == 1; }

// Every output of one channel by columns: sums[ox * oh + oy], each in (ic, ky, kx) tap order.
void column_sums(const Window& w, const float* fplt, const double* kern, uint64_t chans, std::vector<uint64_t>& tap_base,
                 std::vector<float>& tap_k, std::vector<float>& sums) {
  const WinParams& a = w.a;
  tap_base.clear();
  tap_k.clear();
  for (uint64_t ci = 0; ci < chans; ++ci) {
    for (uint64_t ky = 0; ky < a.kh; ++ky) {
      for (uint64_t kx = 0; kx < a.kw; ++kx) {
        tap_base.push_back((ci * w.pw + kx * a.dil_w) * w.ph + ky * a.dil_h);
        tap_k.push_back(static_cast<float>(kern[(ci * a.kh + ky) * a.kw + kx]));
      }
    }
  }
  sums.resize(a.ow * a.oh);
  for (uint64_t ox = 0; ox < a.ow; ++ox) {
    exact_row_sums(fplt + ox * a.stride_w * w.ph, tap_base.data(), tap_k.data(), tap_base.size(), a.oh, 1,
                   sums.data() + ox * a.oh);
  }
}

// Row width of the planes the exact sums read: the padded plane's, or a phase plane's.
uint64_t plane_width(const Window& w) { return w.a.stride_w > 1 ? phase_width(w) : w.pw; }

// The taps of one output channel for the exact sums, relative to output (0, 0), in (ic, ky,
// kx) order. A column stride s > 1 reads the planes split by column phase (phase_planes): the
// column kx * dil of a tap lies in phase (kx * dil) % s at (kx * dil) / s, contiguous.
void exact_taps(const Window& w, const double* kern, uint64_t chans, std::vector<uint64_t>& tap_base,
                std::vector<float>& tap_k) {
  const WinParams& a = w.a;
  const uint64_t s = a.stride_w, cols = plane_width(w), phase = chans * w.ph * cols, taps = chans * a.kh * a.kw;
  if (tap_base.size() != taps) {  // the offsets depend on the geometry only: once per image
    tap_base.clear();
    for (uint64_t ci = 0; ci < chans; ++ci) {
      for (uint64_t ky = 0; ky < a.kh; ++ky) {
        const uint64_t row = ci * w.ph * cols + ky * a.dil_h * cols;
        for (uint64_t kx = 0; kx < a.kw; ++kx) {
          const uint64_t col = kx * a.dil_w;
          tap_base.push_back(s > 1 ? (col % s) * phase + row + col / s : row + col);
        }
      }
    }
  }
  tap_k.resize(taps);
  for (uint64_t t = 0; t < taps; ++t) tap_k[t] = static_cast<float>(kern[t]);  // kern is in tap order
}

// Rows narrower than a vector and too few for column_sums, at row stride 1: the outputs of
// all rows as one run over the planes' rows laid end to end, output (oy, ox) at
// sums[oy * cols + ox] (the positions between, ox >= ow, are summed too and never used; every
// read stays inside the planes: the last output's taps reach their last row and column).
bool flat_sums_apply(const Window& w) {
  return w.exact && !column_sums_apply(w) && w.a.ow < 8 && w.a.oh > 1 && w.a.stride_h == 1;
}

void flat_sums(const Window& w, const float* fpl, const double* kern, uint64_t chans, std::vector<uint64_t>& tap_base,
               std::vector<float>& tap_k, std::vector<float>& sums) {
  const WinParams& a = w.a;
  exact_taps(w, kern, chans, tap_base, tap_k);
  const uint64_t outputs = (a.oh - 1) * plane_width(w) + a.ow;
  sums.resize(outputs);
  exact_row_sums(fpl, tap_base.data(), tap_k.data(), tap_base.size(), outputs, 1, sums.data());
}

// Every output of one channel whose float products are exact (the common case: f16 / fp8
// operands; sg2260/exec_conv_sums.hpp), at sums[oy * ow + ox]: all rows at once, so short rows
// run side by side.
void plane_sums(const Window& w, const float* fpl, const double* kern, uint64_t chans, std::vector<uint64_t>& tap_base,
                std::vector<float>& tap_k, std::vector<float>& sums) {
  const WinParams& a = w.a;
  exact_taps(w, kern, chans, tap_base, tap_k);
  sums.resize(a.oh * a.ow);
  exact_rows_sums(fpl, tap_base.data(), tap_k.data(), tap_base.size(), a.oh, a.ow, a.stride_h * plane_width(w),
                  sums.data());
}

// The window sums of output row oy over `chans` planes and kernels, each output in (ic, ky,
// kx) order, for operands whose products are not exact in FP32: floats fmaf in FP32 (an
// exact FP32 product makes it one rounded add), integers exact in double. Outputs are
// independent, so the innermost loop runs along the row.
void row_sums(const Window& w, const float* fpl, const double* dpl, const double* kern, uint64_t chans, uint64_t oy,
              float* facc, double* iacc) {
  const WinParams& a = w.a;
  for (uint64_t ox = 0; ox < a.ow; ++ox) facc[ox] = 0, iacc[ox] = 0;
  for (uint64_t ci = 0; ci < chans; ++ci) {
    for (uint64_t ky = 0; ky < a.kh; ++ky) {
      const uint64_t row = ci * w.ph * w.pw + (oy * a.stride_h + ky * a.dil_h) * w.pw;
      for (uint64_t kx = 0; kx < a.kw; ++kx) {
        const double kv = kern[(ci * a.kh + ky) * a.kw + kx];
        const uint64_t base = row + kx * a.dil_w, step = a.stride_w;
        if (w.fl) {
          const float kf = static_cast<float>(kv);
          for (uint64_t ox = 0; ox < a.ow; ++ox) facc[ox] = std::fmaf(fpl[base + ox * step], kf, facc[ox]);
        } else {
          for (uint64_t ox = 0; ox < a.ow; ++ox) iacc[ox] += dpl[base + ox * step] * kv;
        }
      }
    }
  }
}

// Max / min / avg of output (oy, ox) over one plane.
double pool_value(const Window& w, const double* pl, uint64_t oy, uint64_t ox, double scale) {
  const WinParams& a = w.a;
  float sum = 0;
  double best = 0;
  bool nan = false;
  for (uint64_t ky = 0; ky < a.kh; ++ky) {
    for (uint64_t kx = 0; kx < a.kw; ++kx) {
      const double v = pl[(oy * a.stride_h + ky * a.dil_h) * w.pw + ox * a.stride_w + kx * a.dil_w];
      sum = sum + static_cast<float>(v);
      nan = nan || std::isnan(v);
      if ((ky == 0 && kx == 0) || (a.eu == 4 ? v > best : v < best)) best = v;
    }
  }
  if (a.eu == 1) return static_cast<double>(sum * static_cast<float>(scale));
  return nan ? NAN : best;
}

// The kernel of output channel c as (ic, ky, kx) values (rotated when asked); `raw` holds the
// channel's values as stored (kept by the caller from channel to channel).
Status load_kernel(const Window& w, uint64_t c, std::vector<double>& raw, std::vector<double>& kern, std::string& msg) {
  const WinParams& a = w.a;
  if (a.is_const[2]) {
    raw.assign(w.per_ch, const_value(static_cast<uint32_t>(a.addr[2]), w.kprec, a.sign[2]));
  } else {
    raw.resize(w.per_ch);
    const uint8_t* kp = nullptr;
    const Status st = lane_vector(w.x, a.addr[2], c, w.per_ch, w.per_ch, w.kes, w.cls + ": opd1 (kernel)", kp, msg);
    if (st != Status::ok) return st;
    if (w.kprec == 1 && w.kes == 2) {
      halves_to_doubles(kp, raw.data(), w.per_ch);  // FP16 eight at a time: read_value's values
    } else {
      for (uint64_t i = 0; i < w.per_ch; ++i) raw[i] = read_value(kp + i * w.kes, w.kprec, a.sign[2]);
    }
  }
  // Stored as groups of P channels, each group tap by tap with its P channels side by side
  // (PorD: one channel, P 1): read in that order, written in (ic, ky, kx) order.
  const uint64_t chans = a.conv ? a.ic : 1, P = a.conv ? w.P : 1, taps = a.kh * a.kw;
  kern.resize(chans * taps);
  for (uint64_t g = 0; g * P < chans; ++g) {
    const uint64_t in_group = std::min(P, chans - g * P);
    for (uint64_t k = 0; k < taps; ++k) {
      const uint64_t ry = k / a.kw, rx = k % a.kw;
      const uint64_t ky = a.rotate ? a.kh - 1 - ry : ry, kx = a.rotate ? a.kw - 1 - rx : rx;
      const double* src = raw.data() + (g * taps + k) * P;
      double* dst = kern.data() + g * P * taps + ky * a.kw + kx;
      for (uint64_t p = 0; p < in_group; ++p) dst[p * taps] = src[p];
    }
  }
  return Status::ok;
}

// Every output of image n: conv reads all input planes, PorD channel c's own.
Status run_image(Window& w, uint64_t n, double pad, double scale, std::string& msg) {
  const WinParams& a = w.a;
  const bool pool = !a.conv && a.eu != 0;
  const uint32_t bprec = a.conv || !w.fl ? a.prec[3] : 2;  // float depthwise: FP32 bias
  const uint64_t plane = w.ph * w.pw;
  std::vector<double> planes((a.conv ? a.ic : 1) * plane), kern, raw_kern;
  std::vector<float> fpl(w.fl ? planes.size() : 0), facc(a.ow);  // float values are exact in FP32
  std::vector<double> iacc(a.ow);
  std::vector<uint64_t> tap_base;
  std::vector<float> tap_k;
  for (uint64_t ci = 0; a.conv && ci < a.ic; ++ci) {
    const Status st = load_plane(a, w.o[1], n, ci, pad, w.ph, w.pw, planes.data() + ci * plane, w.cls, msg);
    if (st != Status::ok) return st;
  }
  // exact sums by columns (column_sums) or, at a column stride > 1, by column phase: the
  // planes rearranged for them
  std::vector<float> phased, sums;
  const bool by_column = column_sums_apply(w), flat = flat_sums_apply(w), by_plane = w.exact && !by_column && !flat;
  const bool split = w.exact && !by_column && a.stride_w > 1;
  const auto to_float = [&] {
    for (size_t i = 0; i < fpl.size(); ++i) fpl[i] = static_cast<float>(planes[i]);
    if (by_column) transpose_planes(fpl.data(), a.conv ? a.ic : 1, w.ph, w.pw, phased);
    if (split) phase_planes(fpl.data(), (a.conv ? a.ic : 1) * w.ph, w.pw, a.stride_w, phased);
  };
  if (a.conv) to_float();
  for (uint64_t c = 0; c < a.oc; ++c) {
    Status st = a.conv ? Status::ok : load_plane(a, w.o[1], n, c, pad, w.ph, w.pw, planes.data(), w.cls, msg);
    if (!a.conv && !pool) to_float();
    double bias = 0;
    if (st == Status::ok && !pool) st = load_kernel(w, c, raw_kern, kern, msg);
    if (st == Status::ok && !pool) st = bias_of(w.x, a, c, bprec, a.sign[3], bias, msg);
    ConvRqChannel rq;
    if (st == Status::ok && a.q.on) st = conv_rq_channel(w.x, a.q, w.fl, c, rq, w.cls, msg);
    if (st != Status::ok) return st;
    if (a.q.on && !w.fl) {
      for (double& kv : kern) kv -= static_cast<double>(rq.kzp);  // exact: int8 minus int16
    }
    if (by_column && !pool) column_sums(w, phased.data(), kern.data(), a.conv ? a.ic : 1, tap_base, tap_k, sums);
    if (flat && !pool) flat_sums(w, split ? phased.data() : fpl.data(), kern.data(), a.conv ? a.ic : 1, tap_base, tap_k, sums);
    if (by_plane && !pool) plane_sums(w, split ? phased.data() : fpl.data(), kern.data(), a.conv ? a.ic : 1, tap_base, tap_k, sums);
    for (uint64_t oy = 0; oy < a.oh; ++oy) {
      if (by_column && !pool) {
        for (uint64_t ox = 0; ox < a.ow; ++ox) facc[ox] = sums[ox * a.oh + oy];
      } else if (flat && !pool) {
        for (uint64_t ox = 0; ox < a.ow; ++ox) facc[ox] = sums[oy * plane_width(w) + ox];
      } else if (by_plane && !pool) {
        for (uint64_t ox = 0; ox < a.ow; ++ox) facc[ox] = sums[oy * a.ow + ox];
      } else if (!pool) {
        row_sums(w, fpl.data(), planes.data(), kern.data(), a.conv ? a.ic : 1, oy, facc.data(), iacc.data());
      }
      if (!pool && w.fl && !a.q.on && finish_float_row(a, w.o[0], n, c, oy, facc.data(), bias)) continue;
      for (uint64_t ox = 0; ox < a.ow; ++ox) {
        if (pool) {
          const TiuOperand& r = w.o[0];
          uint8_t* d = element(r.side, n, c, oy, ox, r.ns, r.cs, r.hs, r.ws, r.esize);
          if (d == nullptr) return fail(msg, Status::cmd_footprint_out_of_range, w.cls + ": res0 outside LMEM");
          note_write(r.side, d, r.esize);
          store(d, a, r.esize, pool_value(w, planes.data(), oy, ox, scale));
          continue;
        }
        const double acc = w.fl ? facc[ox] : iacc[ox];
        st = a.q.on ? finish_rq(a, w.o[0], n, c, oy, ox, acc, bias, rq, w.cls, msg)
                    : finish(a, w.o[0], n, c, oy, ox, acc, bias, w.cls, msg);
        if (st != Status::ok) return st;
      }
    }
  }
  return Status::ok;
}

Status run_window(const Ctx& x, const WinParams& a, std::string& msg) {
  Window w{x, a, std::string(a.cls) + " eu " + std::to_string(a.eu), {}, prec_is_float(a.prec[1]), false, 0, 0, 1, 0, 0, 0};
  Status st = check_window(a, w.cls, msg);
  if (st != Status::ok || a.n * a.oc * a.oh * a.ow == 0) return st;
  if (w.fl != prec_is_float(a.prec[0]) || (a.conv && !a.is_const[2] && w.fl != prec_is_float(a.prec[2]))) {
    return unsupported(msg, w.cls + ": float and integer operands mixed");
  }
  static const char* const kNames[] = {"res0", "opd0"};
  const uint64_t shp[2][3] = {{a.oc, a.oh, a.ow}, {a.ic, a.ih, a.iw}};
  for (int i = 0; i < 2; ++i) {
    st = tiu_operand(x, a.addr[i], a.prec[i], a.sign[i], false, a.mode[i], shp[i][0], shp[i][1], shp[i][2], a.str[i][0],
                     a.str[i][1], a.str[i][2], a.str[i][3], a.cls, kNames[i], w.o[i], msg);
    if (st != Status::ok) return st;
  }
  w.kprec = a.conv ? a.prec[2] : a.prec[1];  // PorD: the kernel has opd0's precision
  w.kes = tiu_esize(w.kprec);
  // products exact in FP32, so unfused sums equal the rule's fmaf: FP16 and FP8 operands (at
  // most 11-bit significands, products >= 2^-48); not FP32, and not BF16, whose products can
  // fall below FP32's normal range and round there (e.g. 2^-75 x 2^-75)
  w.exact = w.fl && a.prec[1] != 2 && w.kprec != 2 && a.prec[1] != 5 && w.kprec != 5;
  if (!w.fl && (tiu_esize(a.prec[1]) > 2 || w.kes > 2)) {
    return unsupported(msg, w.cls + ": INT32 input or kernel (integer windows take int8 / int16 operands)");
  }
  if (w.kes == 0) return unsupported(msg, w.cls + ": opd1 precision " + prec_name(w.kprec));
  if (a.q.on) {
    st = conv_rq_check(a.q, w.fl, a.prec[0], a.prec[1], w.kprec, a.res_add, w.cls, msg);
    if (st != Status::ok) return st;
  }
  // conv kernel: per output channel, ic in groups of P = 64 bytes / element size, each
  // group's kh x kw taps holding P channels contiguously
  w.P = 64 / w.kes;
  w.per_ch = a.conv ? (a.ic + w.P - 1) / w.P * a.kh * a.kw * w.P : a.kh * a.kw;
  w.ph = (a.oh - 1) * a.stride_h + (a.kh - 1) * a.dil_h + 1;
  w.pw = (a.ow - 1) * a.stride_w + (a.kw - 1) * a.dil_w + 1;
  double scale = 1;  // avgpool: the multiplier, an FP32 constant
  if (a.eu == 1 && !a.conv) {
    if (!a.is_const[2]) return unsupported(msg, w.cls + " (avgpool): a multiplier tensor (opt_opd1_const = 0)");
    if (!w.fl) return unsupported(msg, w.cls + " (avgpool) on integer operands (the requantising form is not defined)");
    scale = const_value(static_cast<uint32_t>(a.addr[2]), 2, true);
  }
  const double pad = const_value(static_cast<uint32_t>(a.addr[4]), a.prec[1], a.sign[1]);
  for (uint64_t n = 0; n < a.n; ++n) {
    st = run_image(w, n, pad, scale, msg);
    if (st != Status::ok) return st;
  }
  return Status::ok;
}

}  // namespace

Status exec_conv(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (eu != 0) {
    return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                                " (conv.tf32 / conv.bw: the spec gives the layout, not the operation)");
  }
  if (c == CmdClass::sCONV) {
    const cmd::SConvView v(data);
    WinParams a{"sCONV", eu, true, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.opd0_c(), v.opd0_h(), v.opd0_w(),
                v.opd1_h(), v.opd1_w(), v.opd0_up_pad(), v.opd0_dn_pad(), v.opd0_lf_pad(), v.opd0_rt_pad(),
                v.res_op_y_str(), v.res_op_x_str(), v.opd0_y_ins0(), v.opd0_x_ins0(), v.opd1_y_ins0() + 1u,
                v.opd1_x_ins0() + 1u, v.pad_mode(), v.opt_kernel_rotate() != 0, v.opt_res_add() != 0,
                v.opt_relu() != 0, v.opt_rq() != 0,
                {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
                {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
                {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
                {false, false, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
                {0, v.short_opd0_str()},
                {{0, 0, 0, 0}, {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()}},
                {v.opt_rq() != 0, v.sym_range() != 0, static_cast<uint32_t>(v.opd2_n_str()), v.opt_opd4_const() != 0,
                 v.opt_opd5_const() != 0}};
    return run_window(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  WinParams a{"CONV", eu, true, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.opd0_c(), v.opd0_h(), v.opd0_w(),
              v.opd1_h(), v.opd1_w(), v.opd0_up_pad(), v.opd0_dn_pad(), v.opd0_lf_pad(), v.opd0_rt_pad(),
              v.res_op_y_str(), v.res_op_x_str(), v.opd0_y_ins0(), v.opd0_x_ins0(), v.opd1_y_ins0() + 1u,
              v.opd1_x_ins0() + 1u, v.pad_mode(), v.opt_kernel_rotate() != 0, v.opt_res_add() != 0, v.opt_relu() != 0,
              v.opt_rq() != 0,
              {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
              {v.opt_res0_prec(), v.opt_opd0_prec(), v.opt_opd1_prec(), v.opt_opd2_prec()},
              {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
              {false, v.opt_opd0_const() != 0, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
              {v.short_res0_str(), v.short_opd0_str()},
              {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
               {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()}},
              {v.opt_rq() != 0, v.sym_range() != 0, static_cast<uint32_t>(v.opd2_n_str() & 7), v.opt_opd4_const() != 0,
               v.opt_opd5_const() != 0}};
  if (a.is_const[1]) return unsupported(msg, "CONV eu 0 with a constant input (opt_opd0_const)");
  return run_window(x, a, msg);
}

Status exec_pord(const Ctx& x, CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg) {
  if (eu != 0 && eu != 1 && eu != 3 && eu != 4) {
    return unsupported(msg, std::string(cmd::class_name(c)) + " eu " + std::to_string(eu) +
                                " (roi_*: the spec gives the layout, not the operation)");
  }
  if (c == CmdClass::sPorD) {
    const cmd::SPorDView v(data);
    const uint32_t p0 = v.opt_opd0_prec();
    WinParams a{"sPorD", eu, false, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_c(), v.opd0_h(), v.opd0_w(),
                v.opd1_h(), v.opd1_w(), v.opd0_up_pad(), v.opd0_dn_pad(), v.opd0_lf_pad(), v.opd0_rt_pad(),
                v.res_op_y_str(), v.res_op_x_str(), v.opd0_y_ins0(), v.opd0_x_ins0(), v.opd1_y_ins0() + 1u,
                v.opd1_x_ins0() + 1u, v.pad_mode(), v.opt_kernel_rotate() != 0, false, false, false,
                {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
                {v.opt_res0_prec(), p0, p0, v.opt_opd2_prec()},
                {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
                {false, false, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
                {0, 0},
                {},
                {}};
    return run_window(x, a, msg);
  }
  const cmd::TiuLongView v(data);
  const uint32_t p0 = v.opt_opd0_prec();
  WinParams a{"PorD", eu, false, v.res0_n(), v.res0_c(), v.res0_h(), v.res0_w(), v.res0_c(), v.opd0_h(), v.opd0_w(),
              v.opd1_h(), v.opd1_w(), v.opd0_up_pad(), v.opd0_dn_pad(), v.opd0_lf_pad(), v.opd0_rt_pad(),
              v.res_op_y_str(), v.res_op_x_str(), v.opd0_y_ins0(), v.opd0_x_ins0(), v.opd1_y_ins0() + 1u,
              v.opd1_x_ins0() + 1u, v.pad_mode(), v.opt_kernel_rotate() != 0, false, v.opt_relu() != 0,
              v.opt_rq() != 0,
              {v.res0_addr(), v.opd0_addr(), v.opd1_addr(), v.opd2_addr(), v.opd3_addr()},
              {v.opt_res0_prec(), p0, p0, v.opt_opd2_prec()},
              {v.opt_res0_sign() != 0, v.opt_opd0_sign() != 0, v.opt_opd1_sign() != 0, v.opt_opd2_sign() != 0},
              {false, false, v.opt_opd1_const() != 0, v.opt_opd2_const() != 0, v.opt_opd3_const() != 0},
              {v.short_res0_str(), v.short_opd0_str()},
              {{v.res0_n_str(), v.res0_c_str(), v.res0_h_str(), v.res0_w_str()},
               {v.opd0_n_str(), v.opd0_c_str(), v.opd0_h_str(), v.opd0_w_str()}},
              {}};
  return run_window(x, a, msg);
}

}  // namespace tilefw::port::host::sg2260::exec
