// SG2260 execution, shared parts: formats, memory sides, TIU values, and execute_command's
// dispatch by engine (the engines' files: sg2260/exec_dma.cpp, exec_gather.cpp, exec_tiu.cpp,
// exec_unary.cpp, exec_mm.cpp, exec_conv.cpp).
#include "sg2260/exec_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {
namespace exec {

// DMA src_data_format (docs/sg2260-commands.md section 6.3, the SG2260 backend's GDMA_FORMAT): 0
// INT8, 1 FP16, 2 FP32,
// 3 INT16, 4 INT32, 5 BF16, 6 FP20, 7 FP8 E4M3, 8 FP8 E5M2. The DMA never converts.
uint32_t dma_esize(uint32_t fmt) {
  switch (fmt) {
    case 0: case 7: case 8: return 1;
    case 1: case 3: case 5: return 2;
    case 2: case 4: return 4;
    default: return 0;  // fp20 (not byte-addressable elements) and undefined codes
  }
}
// Bytes for `elements` of a DMA format (timing): fp20 2.5 bytes.
uint64_t dma_bytes(uint64_t elements, uint32_t fmt) {
  if (fmt == 6) return (elements * 5 + 1) / 2;
  return elements * dma_esize(fmt);
}
const char* prec_name(uint32_t prec) {
  static const char* const kNames[] = {"INT8", "FP16", "FP32", "INT16", "INT32", "BF16", "INT4", "FP8"};
  return prec < 8 ? kNames[prec] : "?";
}

Status resolve_local(const Ctx& x, uint64_t local, Side& s, std::string& msg) {
  // Checked first: bits above 26 would otherwise alias LMEM lane 0 (validation rejects them).
  if ((local >> 27) != 0) {
    return fail(msg, Status::cmd_lmem_out_of_range, "local address bits above 26 set: no memory there");
  }
  if (sg::local_is_smem(local)) {
    const chip::MemoryRegion r = sg::smem_region(x.core);
    Result<uint8_t*> p = x.m.translate(r.device_base, r.size);
    if (!p.ok()) return fail(msg, p.status(), "SMEM not mapped");
    s.base = p.value();
    s.device_base = r.device_base;
    s.log = x.log;
    s.limit = r.size;
    s.start = local & ((1u << sg::kSmemSelectBit) - 1);
    if (s.start >= r.size) return fail(msg, Status::cmd_lmem_out_of_range, "SMEM offset beyond 64 KiB");
    return Status::ok;
  }
  if ((local >> 24) & 3) return fail(msg, Status::cmd_lmem_out_of_range, "local address bits 25:24 set: lane beyond 63");
  const chip::MemoryRegion r = sg::lmem_region(x.core);
  Result<uint8_t*> p = x.m.translate(r.device_base, r.size);
  if (!p.ok()) return fail(msg, p.status(), "LMEM not mapped");
  s.lmem = true;
  s.base = p.value();
  s.device_base = r.device_base;
  s.log = x.log;
  s.lane0 = sg::local_lane(local);
  s.start = sg::local_offset(local);
  return Status::ok;
}

Status resolve_dma(const Ctx& x, uint64_t addr, Side& s, std::string& msg) {
  const uint32_t tag = sg::dma_tag(addr);
  if (tag == sg::kTagLmem) return resolve_local(x, sg::dma_offset(addr), s, msg);
  if (tag == sg::kTagL2) {
    const uint64_t off = sg::dma_offset(addr);
    if (off < sg::kL2Base || off - sg::kL2Base >= sg::kL2Bytes) {
      return fail(msg, Status::cmd_bad_address_tag, "L2 address outside L2");
    }
    Result<uint8_t*> p = x.m.translate(sg::kL2Base, sg::kL2Bytes);
    if (!p.ok()) return fail(msg, p.status(), "L2 not mapped");
    s.base = p.value();
    s.device_base = sg::kL2Base;
    s.log = x.log;
    s.limit = sg::kL2Bytes;
    s.start = off - sg::kL2Base;
    return Status::ok;
  }
  const uint64_t dev = sg::kDdrWindowBase + addr;
  const chip::MemoryRegion* r = x.m.region_at(dev);
  if (r == nullptr) return fail(msg, Status::unmapped_address, "DDR address in no region of the memory map");
  Result<uint8_t*> p = x.m.translate(r->device_base, r->size);
  if (!p.ok()) return fail(msg, p.status(), "DDR region not mapped");
  s.ddr = true;
  s.base = p.value();
  s.device_base = r->device_base;
  s.log = x.log;
  s.limit = r->size;
  s.start = dev - r->device_base;
  return Status::ok;
}

// FP8 (a tilefw decision, sg2260/sim.hpp): E4M3 is OCP E4M3FN (bias 7, no infinities, NaN
// S.1111.111, largest finite 448), E5M2 is IEEE-like (bias 15, infinities, NaN exponent 31).
namespace {
struct Fp8Format {
  int mant_bits;
  int bias;
  double max_finite;
  bool has_inf;
};
constexpr Fp8Format kE4M3{3, 7, 448.0, false};
constexpr Fp8Format kE5M2{2, 15, 57344.0, true};
}  // namespace

double fp8_to_double(uint8_t b, bool e4m3) {
  const Fp8Format& f = e4m3 ? kE4M3 : kE5M2;
  const int exp_bits = 7 - f.mant_bits;
  const int e = (b >> f.mant_bits) & ((1 << exp_bits) - 1);
  const int m = b & ((1 << f.mant_bits) - 1);
  const double s = (b & 0x80) != 0 ? -1.0 : 1.0;
  const int emax_field = (1 << exp_bits) - 1;
  if (e4m3 && e == emax_field && m == (1 << f.mant_bits) - 1) return std::nan("");
  if (!e4m3 && e == emax_field) return m == 0 ? s * INFINITY : std::nan("");
  if (e == 0) return s * std::ldexp(m, 1 - f.bias - f.mant_bits);
  return s * std::ldexp(m + (1 << f.mant_bits), e - f.bias - f.mant_bits);
}

uint8_t double_to_fp8(double v, bool e4m3, RoundMode mode) {
  const Fp8Format& f = e4m3 ? kE4M3 : kE5M2;
  const uint8_t nan = e4m3 ? 0x7F : 0x7E;
  if (std::isnan(v)) return nan;
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double a = std::fabs(v);
  if (std::isinf(a)) return f.has_inf ? static_cast<uint8_t>(sign | 0x7C) : static_cast<uint8_t>(sign | nan);
  const int emin = 1 - f.bias;
  int e = 0;
  std::frexp(a, &e);  // a = fr * 2^e, fr in [0.5, 1): exponent of the leading bit is e - 1
  const int lead = a == 0 ? emin : std::max(e - 1, emin);
  const double quantum = std::ldexp(1.0, lead - f.mant_bits);
  const double q = a / quantum;  // exact: a power-of-two scaling
  const double rq = mode == RoundMode::nearest_even ? std::nearbyint(q) : std::round(q);
  const double r = rq * quantum;
  if (r > f.max_finite) return f.has_inf ? static_cast<uint8_t>(sign | 0x7C) : static_cast<uint8_t>(sign | nan);
  if (r < std::ldexp(1.0, emin)) return static_cast<uint8_t>(sign | static_cast<uint8_t>(r / std::ldexp(1.0, emin - f.mant_bits)));
  std::frexp(r, &e);
  const int field = e - 1 + f.bias;
  const int mant = static_cast<int>(r / std::ldexp(1.0, e - 1 - f.mant_bits)) - (1 << f.mant_bits);
  return static_cast<uint8_t>(sign | (field << f.mant_bits) | mant);
}

double max_finite(uint32_t prec, bool sign) {
  switch (prec) {
    case 1: return 65504.0;
    case 2: return static_cast<double>(std::numeric_limits<float>::max());
    case 5: return static_cast<double>(std::bit_cast<float>(0x7F7F0000u));
    case 7: return sign ? kE4M3.max_finite : kE5M2.max_finite;
  }
  return 0;
}

double const_value(uint32_t bits, uint32_t prec, bool sign) {
  uint8_t b[4];
  std::memcpy(b, &bits, 4);
  return read_value(b, prec, sign);
}

// The next representable value of a float element toward +inf (up) or -inf: sign-magnitude
// encodings step their magnitude (from +0 down, the smallest negative subnormal).
void step_ulp(uint8_t* p, uint32_t prec, bool up) {
  const uint32_t es = tiu_esize(prec);
  uint32_t u = 0;
  std::memcpy(&u, p, es);
  const uint32_t sign_bit = 1u << (es * 8 - 1);
  const bool neg = (u & sign_bit) != 0;
  const uint32_t mag = u & (sign_bit - 1);
  if (mag == 0) u = (up ? 0 : sign_bit) | 1u;
  else u = (neg == up) ? u - 1 : u + 1;
  std::memcpy(p, &u, es);
}

void write_rounded(uint8_t* p, uint32_t prec, double v, uint32_t round, bool sign) {
  if (round <= kRoundHalfAway) {
    write_value(p, prec, v, round == kRoundHalfAway ? RoundMode::half_away_from_zero : RoundMode::nearest_even, sign);
    return;
  }
  if (!prec_is_float(prec)) {
    write_value(p, prec, std::isnan(v) ? v : round_integer(v, round), RoundMode::nearest_even, sign);
    return;
  }
  write_value(p, prec, v, RoundMode::nearest_even, sign);
  if (std::isnan(v)) return;
  const bool want_down = round == kRoundDown || (round == kRoundTowardZero && v > 0);
  const bool want_up = round == kRoundUp || (round == kRoundTowardZero && v < 0);
  const double got = read_value(p, prec, sign);
  if (std::isnan(got)) {  // E4M3 overflow: a directed mode toward the range keeps its top
    if ((v > 0 && want_down) || (v < 0 && want_up)) write_value(p, prec, v > 0 ? max_finite(prec, sign) : -max_finite(prec, sign), RoundMode::nearest_even, sign);
    return;
  }
  if (want_down && got > v) step_ulp(p, prec, false);
  if (want_up && got < v) step_ulp(p, prec, true);
}

Status tiu_operand(const Ctx& x, uint64_t addr, uint32_t prec, bool sign, bool is_const,
                   uint32_t mode, uint64_t c, uint64_t h, uint64_t w, uint64_t ns, uint64_t cs,
                   uint64_t hs, uint64_t ws, const char* cls, const char* name, TiuOperand& o,
                   std::string& msg) {
  o.prec = prec;
  o.esize = tiu_esize(prec);
  o.sign = sign;
  o.is_const = is_const;
  if (o.esize == 0) return unsupported(msg, std::string(cls) + ": " + name + " precision " + prec_name(prec));
  if (is_const) {
    o.const_bits = static_cast<uint32_t>(addr);
    return Status::ok;
  }
  const Status s = resolve_local(x, addr, o.side, msg);
  if (s != Status::ok) return s;
  if (!o.side.lmem) return unsupported(msg, std::string(cls) + ": " + name + " in SMEM");
  if (mode == 0) {
    const uint64_t eu = 64 / o.esize;
    o.cs = (h * w + eu - 1) / eu * eu;
    o.hs = w;
    o.ws = 1;
    o.ns = (o.side.lane0 + c + sg::kLanes - 1) / sg::kLanes * o.cs;
  } else if (mode == 3) {
    o.ns = ns; o.cs = cs; o.hs = hs; o.ws = ws;
  } else {
    return unsupported(msg, std::string(cls) + ": " + name + " stride mode " + std::to_string(mode));
  }
  return Status::ok;
}

// AR eu values the spec names without giving their semantics (docs/sg2260-commands.md section 2
// lists names

}  // namespace exec

void load_static_tables(Machine& machine, uint32_t core) {
  const chip::MemoryRegion r = chip::sg2260::smem_region(core);
  Result<uint8_t*> p = machine.translate(r.device_base, r.size);
  if (!p.ok()) return;  // no SMEM mapped: nothing to fill
  struct Table {
    uint32_t offset, count, prec, esize;
  };
  // TIU precision codes: 2 FP32, 1 FP16, 5 BF16
  const Table tables[] = {{kStaticExpF32Offset, 32, 2, 4}, {kStaticExpF16Offset, 64, 1, 2}, {kStaticExpBf16Offset, 64, 5, 2}};
  for (const Table& t : tables) {
    double inverse_factorial = 1.0;
    for (uint32_t k = 0; k < t.count; ++k) {
      if (k > 0) inverse_factorial /= static_cast<double>(k);
      exec::write_rounded(p.value() + t.offset + k * t.esize, t.prec, inverse_factorial, exec::kRoundNearestEven, true);
    }
  }
}

Status execute_command(Machine& machine, uint32_t core, uint32_t engine, const uint8_t* data,
                       std::string& message, AccessLog* log) {
  const exec::Ctx x{machine, core, log};
  uint64_t work = 0;
  const Status s = command_extent(machine, engine, data, work, message);
  if (s != Status::ok) return s;
  if (engine == kTiu) return exec::exec_tiu(x, data, message);
  return exec::exec_dma(x, engine, data, message);
}

}  // namespace tilefw::port::host::sg2260
