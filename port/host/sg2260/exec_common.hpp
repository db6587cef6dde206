// Shared by the SG2260 execution files (sg2260/exec_*.cpp): element formats, memory sides
// (a DMA or TIU operand resolved to host memory), element addressing, and TIU value reads
// and writes. Layout rules are those of test/data/sg2260-mm0/README.md (they reproduce the real
// reference output): strides in elements, LMEM c spread over lanes from the start lane,
// alignEU and "matrix2" TIU operands. Internal to the host port.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "machine.hpp"
#include "sg2260/hazard.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260::exec {

namespace sg = chip::sg2260;

/// Where one command runs: the machine and the issuing core (LMEM/SMEM are the core's), and
/// where its accesses are logged for the hazard checker (nullptr: not logged).
struct Ctx {
  Machine& m;
  uint32_t core;
  AccessLog* log = nullptr;
};

// ---- element formats ---------------------------------------------------------------------
/// DMA src_data_format (docs/sg2260-commands.md section 6.3): 0 i8, 1 f16, 2 f32, 3 i16, 4 i32, 5
/// bf16, 6 fp20,
/// 7 fp8 E4M3, 8 fp8 E5M2. 0 for fp20 (not byte-addressable elements) and undefined codes.
uint32_t dma_esize(uint32_t fmt);
/// Bytes for `elements` of a DMA format (timing): fp20 2.5 bytes.
uint64_t dma_bytes(uint64_t elements, uint32_t fmt);
/// TIU precision: 0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16, 6 INT4, 7 FP8 (0: none).
inline uint32_t tiu_esize(uint32_t prec) {
  switch (prec) {
    case 0: case 7: return 1;
    case 1: case 3: case 5: return 2;
    case 2: case 4: return 4;
    default: return 0;
  }
}
/// FP8 (7) counts as a float; its operand's sign bit selects the format (1 E4M3, 0 E5M2).
inline bool prec_is_float(uint32_t prec) { return prec == 1 || prec == 2 || prec == 5 || prec == 7; }
const char* prec_name(uint32_t prec);
inline bool is_ddr_tag(uint32_t tag) { return tag <= sg::kMaxDdrTag; }
/// 2^k exactly, for the integer ranges' bounds (0 <= k <= 63; per element, where std::ldexp
/// costs a library call).
inline double pow2(uint32_t k) {
  return k < 64 ? static_cast<double>(uint64_t{1} << k) : std::ldexp(1.0, static_cast<int>(k));
}

inline Status unsupported(std::string& message, const std::string& what) {
  message = what;
  return Status::sim_unsupported_op;
}
inline Status fail(std::string& message, Status s, const std::string& what) {
  message = what;
  return s;
}

// ---- memory sides ------------------------------------------------------------------------
/// A DMA operand: LMEM of the issuing core (lane rule) or a linear space (SMEM, L2, DDR).
struct Side {
  bool lmem = false;
  bool ddr = false;
  uint8_t* base = nullptr;  // LMEM: the core's 16 MiB lane-major block; linear: the region
  uint64_t limit = 0;       // linear: region bytes
  uint64_t start = 0;       // linear: byte offset; LMEM: offset inside the lane
  uint32_t lane0 = 0;
  uint64_t device_base = 0;  // device address of `base` (for the access log)
  AccessLog* log = nullptr;
};

/// Logs the bytes [p, p + n) of side `s` as read / written by the command (hazard checker).
inline void note_read(const Side& s, const uint8_t* p, uint64_t n) {
  if (s.log != nullptr) s.log->read(s.device_base + static_cast<uint64_t>(p - s.base), n);
}
inline void note_write(const Side& s, const uint8_t* p, uint64_t n) {
  if (s.log != nullptr) s.log->write(s.device_base + static_cast<uint64_t>(p - s.base), n);
}

/// The same for `count` elements of `n` bytes, `stride` bytes apart from p (a strided row).
inline void note_read_strided(const Side& s, const uint8_t* p, uint64_t n, uint64_t stride, uint64_t count) {
  if (s.log != nullptr) s.log->read_strided(s.device_base + static_cast<uint64_t>(p - s.base), n, stride, count);
}
inline void note_write_strided(const Side& s, const uint8_t* p, uint64_t n, uint64_t stride, uint64_t count) {
  if (s.log != nullptr) s.log->write_strided(s.device_base + static_cast<uint64_t>(p - s.base), n, stride, count);
}

/// A TIU local address (or the local part of a tag-31 DMA address): LMEM or SMEM.
Status resolve_local(const Ctx& x, uint64_t local, Side& s, std::string& msg);
/// A DMA address by its tag: LMEM, L2 or a DDR region of the memory map.
Status resolve_dma(const Ctx& x, uint64_t addr, Side& s, std::string& msg);

/// Pointer to element (n, c, h, w) of a 4-D operand (strides in elements), or nullptr.
inline uint8_t* element(const Side& s, uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t ns,
                        uint64_t cs, uint64_t hs, uint64_t ws, uint32_t esize) {
  if (s.lmem) {
    const uint64_t lane_abs = s.lane0 + c;
    const uint64_t off = s.start + (n * ns + (lane_abs / sg::kLanes) * cs + h * hs + w * ws) * esize;
    if (off + esize > sg::kLaneBytes) return nullptr;
    return s.base + (lane_abs % sg::kLanes) * sg::kLaneBytes + off;
  }
  const uint64_t off = s.start + (n * ns + c * cs + h * hs + w * ws) * esize;
  if (off + esize > s.limit) return nullptr;
  return s.base + off;
}

// ---- TIU values --------------------------------------------------------------------------
/// FP8 bytes <-> values (e4m3: OCP E4M3FN; else E5M2); conversion to FP8 rounds once by
/// `mode`, a magnitude above the largest finite value gives E5M2 infinity / E4M3 NaN.
double fp8_to_double(uint8_t b, bool e4m3);
uint8_t double_to_fp8(double v, bool e4m3, RoundMode mode);
/// Largest finite value of a float precision (FP8: `sign` selects E4M3); 0 for integers.
double max_finite(uint32_t prec, bool sign);
/// TIU round modes (opd2_n_str; a tilefw decision, sg2260/sim.hpp): 0 half to even, 1 half
/// away from zero, 2 toward zero, 3 down, 4 up.
inline constexpr uint32_t kRoundNearestEven = 0, kRoundHalfAway = 1, kRoundTowardZero = 2, kRoundDown = 3,
                          kRoundUp = 4;
/// std::round without the library call (per element in the integer stores): the magnitude's
/// integer part (exact below 2^52, where the fraction is exact too) plus one from a fraction
/// of one half up; larger magnitudes, infinities and NaN are their own rounding. The sign is
/// kept (-0.3 gives -0), as std::round keeps it.
inline double round_half_away(double v) {
  const double a = std::fabs(v);
  if (!(a < 0x1p52)) return v;
  double t = static_cast<double>(static_cast<int64_t>(a));
  if (a - t >= 0.5) t += 1;
  return std::copysign(t, v);
}
/// `v` rounded to an integer by a round mode.
inline double round_integer(double v, uint32_t round) {
  switch (round) {
    case kRoundHalfAway: return round_half_away(v);
    case kRoundTowardZero: return std::trunc(v);
    case kRoundDown: return std::floor(v);
    case kRoundUp: return std::ceil(v);
    default: return std::nearbyint(v);
  }
}
/// The integer shifts' two extra round modes (the ISA's list after the five above).
inline constexpr uint32_t kRoundHalfUp = 5, kRoundHalfDown = 6;
/// round(v / 2^n) from its floor `q` by one of the seven shift round modes: `cmp` places the
/// dropped fraction against one half (-1 below, 0 at, 1 above), `nonzero` says whether any was
/// dropped, `negative` whether v < 0. Shared by every right shift that rounds (RQ&DQ, the
/// requantising CONV), whatever the width of its integers.
template <typename I>
inline I round_shifted(I q, bool negative, int cmp, bool nonzero, uint32_t mode) {
  switch (mode) {
    case kRoundNearestEven: return cmp > 0 || (cmp == 0 && (q & 1) != 0) ? q + 1 : q;
    case kRoundHalfAway: return cmp > 0 || (cmp == 0 && !negative) ? q + 1 : q;
    case kRoundTowardZero: return nonzero && negative ? q + 1 : q;
    case kRoundDown: return q;
    case kRoundUp: return nonzero ? q + 1 : q;
    case kRoundHalfUp: return cmp >= 0 ? q + 1 : q;
    default: return cmp > 0 ? q + 1 : q;  // half down
  }
}
/// write_value by a round mode: floats rounded once in that direction (one ulp from the
/// nearest-even result where that lies on the wrong side), integers rounded then saturated.
void write_rounded(uint8_t* p, uint32_t prec, double v, uint32_t round, bool sign);
/// The float element at p becomes the next representable value toward +inf (up) or -inf.
void step_ulp(uint8_t* p, uint32_t prec, bool up);
double const_value(uint32_t bits, uint32_t prec, bool sign);

/// double -> float rounded to odd: exact when it fits, else the truncation with the last bit
/// set, so a second rounding to a 16-bit format is correctly rounded (float has > 2 more bits).
inline uint32_t to_float_bits_odd(double d) {
  const float f = static_cast<float>(d);
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return bits;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) bits -= 1;  // toward zero
  return bits | 1u;
}
/// double -> float by `mode`: RNE, or half away from zero (a tie between the two nearest
/// floats goes to the larger magnitude; ties of the values written here are exact in double).
inline float to_float(double d, RoundMode mode) {
  const float f = static_cast<float>(d);
  if (mode == RoundMode::nearest_even || std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  const float g = std::nextafter(f, static_cast<float>(static_cast<double>(f) < d ? INFINITY : -INFINITY));
  if (std::isinf(g) || std::fabs(d - static_cast<double>(f)) != std::fabs(static_cast<double>(g) - d)) return f;
  return std::fabs(g) > std::fabs(f) ? g : f;
}
/// read_value and write_value of one float precision P (1 FP16, 2 FP32, 5 BF16), for loops
/// that choose the precision once per row: the same conversions.
/// FP16 bits -> float, the value of half_bits_to_float_bits without its branches (zeros and
/// non-zeros mix in real data): the magnitude's bits shifted into a float's and scaled by
/// 2^112 (exact for normals and subnormals alike), infinities and NaNs (quieted, payload kept)
/// selected apart.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t mag = static_cast<uint32_t>(h & 0x7FFFu) << 13;
  const float scaled = std::bit_cast<float>(mag) * 0x1p112f;
  const uint32_t special = 0x7F800000u | (mag & 0x7FE000u ? 0x400000u | (mag & 0x7FE000u) : 0u);
  const uint32_t bits = (h & 0x7C00u) == 0x7C00u ? special : std::bit_cast<uint32_t>(scaled);
  return std::bit_cast<float>(sign | bits);
}

template <uint32_t P>
inline double read_float(const uint8_t* p) {
  if constexpr (P == 2) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  } else if constexpr (P == 1) {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return half_to_float(b);
  } else {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return std::bit_cast<float>(P == 1 ? half_bits_to_float_bits(b) : bf16_bits_to_float_bits(b));
  }
}
template <uint32_t P>
inline void write_float(uint8_t* p, double v, RoundMode mode) {
  if constexpr (P == 2) {
    const float f = to_float(v, mode);
    std::memcpy(p, &f, 4);
  } else {
    const uint32_t odd = to_float_bits_odd(v);
    const uint16_t b = P == 1 ? float_bits_to_half_bits(odd, mode) : float_bits_to_bf16_bits(odd, mode);
    std::memcpy(p, &b, 2);
  }
}

/// The value of an element; `sign`: integers signed, FP8 E4M3 (else E5M2). Inline, so a loop
/// over one precision can be unswitched by the compiler.
inline double read_value(const uint8_t* p, uint32_t prec, bool sign) {
  switch (prec) {
    case 0: return sign ? static_cast<double>(static_cast<int8_t>(*p)) : static_cast<double>(*p);
    case 1: return read_float<1>(p);
    case 2: return read_float<2>(p);
    case 3: { uint16_t b; std::memcpy(&b, p, 2); return sign ? static_cast<double>(static_cast<int16_t>(b)) : b; }
    case 4: { uint32_t b; std::memcpy(&b, p, 4); return sign ? static_cast<double>(static_cast<int32_t>(b)) : b; }
    case 5: return read_float<5>(p);
    case 7: return fp8_to_double(*p, sign);
  }
  return 0;
}
/// Rounds `v` once to the format (floats: correctly rounded from double; integers: by
/// `mode`, saturated to the signed range). `sign`: FP8 E4M3 (else E5M2); unused otherwise.
inline void write_value(uint8_t* p, uint32_t prec, double v, RoundMode mode, bool sign = true) {
  switch (prec) {
    case 7: *p = double_to_fp8(v, sign, mode); return;
    case 1: write_float<1>(p, v, mode); return;
    case 5: write_float<5>(p, v, mode); return;
    case 2: write_float<2>(p, v, mode); return;
    default: break;
  }
  // integers: round by mode, saturate to the range (sign by the format's use: signed types
  // are the common case for the documented ops)
  double r = mode == RoundMode::nearest_even ? std::nearbyint(v) : std::round(v);
  if (std::isnan(r)) r = 0;
  const uint32_t size = tiu_esize(prec);
  const double lo = -pow2(size * 8 - 1);
  const double hi = pow2(size * 8 - 1) - 1;
  const int64_t x = static_cast<int64_t>(std::clamp(r, lo, hi));
  std::memcpy(p, &x, size);  // little-endian low bytes
}

/// A TIU tensor operand of res0's shape (stride mode 0 alignEU or 3 explicit).
struct TiuOperand {
  Side side;
  uint32_t prec = 0;
  uint32_t esize = 0;
  bool sign = false;
  bool is_const = false;
  uint32_t const_bits = 0;
  uint64_t ns = 0, cs = 0, hs = 0, ws = 0;
};

Status tiu_operand(const Ctx& x, uint64_t addr, uint32_t prec, bool sign, bool is_const, uint32_t mode,
                   uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs, uint64_t hs, uint64_t ws,
                   const char* cls, const char* name, TiuOperand& o, std::string& msg);

// ---- per engine (sg2260/exec_dma.cpp, sg2260/exec_tiu.cpp) --------------------------------
Status exec_dma(const Ctx& x, uint32_t engine, const uint8_t* data, std::string& msg);
Status exec_tiu(const Ctx& x, const uint8_t* data, std::string& msg);
/// TIU sliding-window classes (sg2260/exec_conv.cpp) and MM normal (sg2260/exec_mm.cpp);
/// `c` the decoded class (long or short form), `eu` its tsk_eu_typ.
Status exec_conv(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
Status exec_pord(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
Status exec_mm(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
/// DMA gather (cmd_type 7) and scatter (cmd_type 8), sg2260/exec_gather.cpp.
Status dma_gather_scatter(const Ctx& x, const uint8_t* data, std::string& msg);

/// Two-operand element-wise classes (CW&BC, SFU): res0 and opd0, each with its own shape,
/// precision and layout (short forms: alignEU; long forms: their stride-mode fields).
struct UnaryParams {
  const char* cls;
  uint32_t eu;
  uint64_t shape[2][4];  // res0, opd0: n, c, h, w
  uint64_t addr[2];
  uint32_t prec[2];
  uint32_t mode[2];
  uint64_t str[2][4];
  uint64_t table_addr = 0;  // SFU taylor: opd1_addr (coefficient table)
  uint64_t table_len = 0;   // SFU taylor: opd1_n
};
/// sg2260/exec_unary.cpp
Status run_cw(const Ctx& x, const UnaryParams& a, std::string& msg);
Status run_sfu(const Ctx& x, const UnaryParams& a, std::string& msg);

/// CMP / sCMP (fused compare), sg2260/exec_cmp.cpp.
Status exec_cmp(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
/// RQ&DQ / sRQ&sDQ (requantise, dequantise), sg2260/exec_rqdq.cpp.
Status exec_rqdq(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
/// SG / SGL and their short forms (line gather / scatter; the rest refused), sg2260/exec_sgl.cpp.
Status exec_sgl(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);

/// A per-channel vector operand on lanes (sg2260/exec_conv.cpp; bias, requant parameters,
/// LIN's B and C): channel ch's `count` values of `esize` bytes start at lane (L + ch) % 64,
/// in-lane offset + ((L + ch) / 64) * slab elements. Logs the read; SMEM is refused.
Status lane_vector(const Ctx& x, uint64_t addr, uint64_t ch, uint64_t count, uint64_t slab, uint32_t esize,
                   const std::string& what, const uint8_t*& p, std::string& msg);
/// LIN / sLIN (fused linear: mac, add_sqr, sub_sqr), sg2260/exec_lin.cpp.
Status exec_lin(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);
/// VC / sVC (vector correlation: R(i, c, 0, w) = A[i] op B(c, w)), sg2260/exec_vc.cpp.
Status exec_vc(const Ctx& x, cmd::CmdClass c, uint32_t eu, const uint8_t* data, std::string& msg);

/// TIU global config registers of the command's core (sg2260/exec_tgcr.cpp): 256 32-bit
/// words, 0 until written; SYS_TR_ACC (`eu` its 3-bit tsk_eu_typ) writes them.
uint32_t tgcr_read(const Ctx& x, uint32_t idx);
void tgcr_write(const Ctx& x, uint32_t idx, uint32_t value);
Status exec_sys_tr_acc(const Ctx& x, uint32_t eu, const uint8_t* data, std::string& msg);

}  // namespace tilefw::port::host::sg2260::exec
