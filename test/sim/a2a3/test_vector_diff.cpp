// Differential test (host only): random single issues (every op and dtype, strides 0..16,
// random masks and counts, legal and illegal placements) through issue_once on the simulator,
// against a scalar reference model written straight from docs/a2a3-vector-semantics.md with nested
// loops. The reference shares nothing with the simulator or desc::validate except the
// half/bf16 conversions. Results and statuses must match bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "a2a3/vector_unit.hpp"
#include "cr_reference.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"

using namespace tilefw;

namespace ref {
constexpr uint32_t kUb = 196608;
enum Kind { BIN, UN, SC, RED };
struct Issue {
  Kind kind;
  int op;            // index in the desc enum
  DType dt;
  bool count_mode;
  uint32_t count;
  uint32_t repeat;
  uint64_t hi, lo;   // MASK
  bool saturate;
  uint32_t off[3];   // dst, src0, src1
  uint32_t blk[3];
  uint32_t rep[3];
  uint32_t scalar;
  int order;
};

// half helpers: float arithmetic then one conversion is exact-rounding for + - * / sqrt
// (24 >= 2*11+2); exp, ln and rsqrt come correctly rounded from cr_reference.hpp.
float hf(uint16_t h) { return to_float(half{h}); }
uint16_t fh(float f) { return to_half(f).bits; }
uint16_t sat(uint16_t h, bool s) {
  if (!s) return h;
  if ((h & 0x7FFF) == 0x7C00) return static_cast<uint16_t>((h & 0x8000) | 0x7BFF);
  if ((h & 0x7FFF) > 0x7C00) return 0;
  return h;
}
float qnan() { return std::bit_cast<float>(0x7FC00000u); }
template <class F> F mx(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<F>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class F> F mn(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<F>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
float fop(int op, float a, float b) {  // binary op index
  float r = 0;
  switch (op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    case 3: r = a / b; break;
    case 4: r = mx(a, b); break;
    default: r = mn(a, b); break;
  }
  return std::isnan(r) ? qnan() : r;
}
double uop(int op, double x) {
  switch (op) {
    case 0: return std::fabs(x);
    case 3: return std::sqrt(x);
    case 5: return 1.0 / x;
    default: return std::isnan(x) ? x : (x > 0 ? x : 0.0);  // vrelu (exp, ln, rsqrt: cr_uop)
  }
}
// exp, ln, rsqrt correctly rounded to the format (test/sim/a2a3/cr_reference.hpp).
double cr_uop(int op, double x, const cr::Format& f) {
  switch (op) {
    case 1: return cr::exp_rn(x, f);
    case 2: return cr::log_rn(x, f);
    default: return cr::rsqrt_rn(x, f);
  }
}
// One lane of an elementwise op on raw bits.
uint32_t lane(const Issue& is, uint32_t a, uint32_t b) {
  int op = is.op;
  static const int kScalarOp[4] = {0, 2, 4, 5};
  if (is.kind == SC) { op = kScalarOp[is.op]; b = is.scalar; }
  if (is.dt == DType::f32) {
    const float x = std::bit_cast<float>(a), y = std::bit_cast<float>(b);
    float r;
    if (is.kind == UN) {
      if (op == 3) r = std::sqrt(x);
      else if (op == 5) r = 1.0f / x;
      else if (op == 0) r = std::fabs(x);
      else if (op == 6) r = std::isnan(x) ? x : (x > 0 ? x : 0.0f);
      // Correctly rounded (Rule: correctly rounded transcendentals).
      else r = static_cast<float>(cr_uop(op, x, cr::kF32));
    } else {
      r = fop(op, x, y);
    }
    if (std::isnan(r)) r = qnan();
    return std::bit_cast<uint32_t>(r);
  }
  if (is.dt == DType::f16) {
    const float x = hf(static_cast<uint16_t>(a)), y = hf(static_cast<uint16_t>(b));
    uint16_t r;
    if (is.kind == UN) {
      if (op == 1 || op == 2 || op == 4) r = fh(static_cast<float>(cr_uop(op, x, cr::kF16)));  // exact: a half
      else if (op == 3) r = fh(std::sqrt(x));
      else if (op == 5) r = fh(1.0f / x);
      else r = fh(static_cast<float>(uop(op, x)));
    } else {
      r = fh(fop(op, x, y));
    }
    if ((r & 0x7FFF) > 0x7C00) r = 0x7E00;
    return sat(r, is.saturate);
  }
  if (is.dt == DType::i16) {
    const int16_t x = static_cast<int16_t>(a), y = static_cast<int16_t>(b);
    int32_t r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : op == 4 ? std::max(x, y) : std::min(x, y);
    return static_cast<uint16_t>(r);
  }
  const int32_t x = static_cast<int32_t>(a), y = static_cast<int32_t>(b);
  if (is.kind == UN) return static_cast<uint32_t>(x > 0 ? x : 0);
  const int64_t r = op == 0 ? int64_t{x} + y : op == 1 ? int64_t{x} - y : op == 2 ? int64_t{x} * y
                  : op == 4 ? std::max(x, y) : std::min(x, y);
  return static_cast<uint32_t>(r);
}

struct Range { int64_t lo, hi; int64_t rep; };
// Result: status class name, and the memory after (in place).
const char* run(const Issue& is, uint8_t* ub) {
  const uint32_t E = dtype_size(is.dt), epr = 256 / E, pb = 32 / E;
  uint64_t repeats = is.repeat;
  auto part = [&](uint64_t r, uint32_t k) -> bool {
    if (is.count_mode) return r * epr + k < is.count;
    if (k < 64) return (is.lo >> k) & 1;
    return E == 2 && ((is.hi >> (k - 64)) & 1);
  };
  if (is.count_mode) repeats = (uint64_t{is.count} + epr - 1) / epr;
  bool any = false;
  for (uint32_t k = 0; k < epr && repeats > 0; ++k) any = any || part(0, k);
  if (!any) return "ok";  // NOP
  const int nsrc = is.kind == BIN ? 2 : 1;
  // Footprints.
  std::vector<Range> dr, sr[2];
  for (uint64_t r = 0; r < repeats; ++r) {
    for (uint32_t b = 0; b < 8; ++b) {
      bool on = false;
      for (uint32_t e = 0; e < pb; ++e) on = on || part(r, b * pb + e);
      if (!on) continue;
      for (int s = 0; s < nsrc; ++s) {
        const int64_t a = is.off[1 + s] + (int64_t(r) * is.rep[1 + s] + int64_t(b) * is.blk[1 + s]) * 32;
        sr[s].push_back({a, a + 32, int64_t(r)});
      }
      if (is.kind != RED) {
        const int64_t a = is.off[0] + (int64_t(r) * is.rep[0] + int64_t(b) * is.blk[0]) * 32;
        dr.push_back({a, a + 32, int64_t(r)});
      }
    }
  }
  uint32_t dunit = E, dalign = 32;
  // A reduction's written bytes in one repeat form maximal runs; the overlap rule compares
  // those runs with the source blocks (a whole 32 B run may be identical to a block).
  auto push_run = [&](int64_t lo, int64_t hi, int64_t r) {
    if (!dr.empty() && dr.back().rep == r && dr.back().hi == lo) dr.back().hi = hi;
    else dr.push_back({lo, hi, r});
  };
  if (is.kind == RED) {
    const int op = is.op;
    dunit = op == 0 ? E : op == 1 ? 8 * E : op == 2 ? 128 : (is.order == 3 ? 4 : is.order == 2 ? E : 2 * E);
    dalign = op == 1 || op == 2 ? 32 : (op >= 3 && is.order == 3 ? 4 : E);
    for (uint64_t r = 0; r < repeats; ++r) {
      const int64_t base = is.off[0] + int64_t(r) * is.rep[0] * dunit;
      if (op == 0 || op >= 3) { dr.push_back({base, base + dunit, int64_t(r)}); continue; }
      if (op == 1) {
        for (uint32_t b = 0; b < 8; ++b) {
          bool on = false;
          for (uint32_t e = 0; e < pb; ++e) on = on || part(r, b * pb + e);
          if (on) push_run(base + b * E, base + (b + 1) * E, int64_t(r));
        }
      } else {
        for (uint32_t j = 0; j < epr / 2; ++j)
          if (part(r, 2 * j) || part(r, 2 * j + 1)) push_run(base + j * E, base + (j + 1) * E, int64_t(r));
      }
    }
  }
  if (is.off[0] % dalign != 0 || is.off[1] % 32 != 0 || (nsrc == 2 && is.off[2] % 32 != 0)) return "misaligned";
  for (const Range& x : dr) if (x.hi > kUb) return "out_of_bounds";
  for (int s = 0; s < nsrc; ++s) for (const Range& x : sr[s]) if (x.hi > kUb) return "out_of_bounds";
  const bool acc_ok = is.kind == BIN && (is.op == 0 || is.op == 1 || is.op == 2 || is.op == 4 || is.op == 5) &&
                      (is.dt == DType::f16 || is.dt == DType::f32 || is.dt == DType::i32) && (is.rep[2] == 0 || is.rep[0] == 0);
  for (int s = 0; s < nsrc; ++s) {
    for (const Range& d : dr) {
      for (const Range& x : sr[s]) {
        const bool meet = d.lo < x.hi && x.lo < d.hi;
        if (!meet) continue;
        if (x.rep == d.rep && !(d.lo == x.lo && d.hi == x.hi)) return "illegal_overlap";
        if (x.rep > d.rep && !(s == 1 && acc_ok)) return "illegal_overlap";
      }
    }
  }
  // Execute: repeat by repeat, all reads then writes.
  auto ld = [&](int64_t a) { uint32_t v = 0; std::memcpy(&v, ub + a, E); return v; };
  auto st = [&](int64_t a, uint32_t v) { std::memcpy(ub + a, &v, E); };
  for (uint64_t r = 0; r < repeats; ++r) {
    uint32_t va[128], vb[128];
    bool on[128];
    for (uint32_t k = 0; k < epr; ++k) {
      on[k] = part(r, k);
      const uint32_t b = k / pb, e = k % pb;
      va[k] = on[k] ? ld(is.off[1] + (int64_t(r) * is.rep[1] + b * is.blk[1]) * 32 + e * E) : 0;
      vb[k] = on[k] && nsrc == 2 ? ld(is.off[2] + (int64_t(r) * is.rep[2] + b * is.blk[2]) * 32 + e * E) : 0;
    }
    if (is.kind != RED) {
      uint32_t out[128];
      for (uint32_t k = 0; k < epr; ++k) if (on[k]) out[k] = lane(is, va[k], vb[k]);
      for (uint32_t k = 0; k < epr; ++k)
        if (on[k]) st(is.off[0] + (int64_t(r) * is.rep[0] + (k / pb) * is.blk[0]) * 32 + (k % pb) * E, out[k]);
      continue;
    }
    auto add = [&](uint32_t a, uint32_t b) -> uint32_t {
      if (is.dt == DType::f32) {
        float x = std::bit_cast<float>(a) + std::bit_cast<float>(b);
        return std::bit_cast<uint32_t>(std::isnan(x) ? qnan() : x);
      }
      uint16_t h = fh(hf(static_cast<uint16_t>(a)) + hf(static_cast<uint16_t>(b)));
      if ((h & 0x7FFF) > 0x7C00) h = 0x7E00;
      return sat(h, is.saturate);
    };
    auto treesum = [&](uint32_t* v, uint32_t n) {
      for (; n > 1; n /= 2) for (uint32_t i = 0; i < n / 2; ++i) v[i] = add(v[2 * i], v[2 * i + 1]);
      return v[0];
    };
    const int64_t base = is.off[0] + int64_t(r) * is.rep[0] * dunit;
    if (is.op == 0) { st(base, treesum(va, epr)); continue; }
    if (is.op == 1) {
      uint32_t out[8];
      bool w[8];
      for (uint32_t b = 0; b < 8; ++b) {
        w[b] = false;
        for (uint32_t e = 0; e < pb; ++e) w[b] = w[b] || on[b * pb + e];
        uint32_t tmp[16];
        for (uint32_t e = 0; e < pb; ++e) tmp[e] = va[b * pb + e];
        out[b] = treesum(tmp, pb);
      }
      for (uint32_t b = 0; b < 8; ++b) if (w[b]) st(base + b * E, out[b]);
      continue;
    }
    if (is.op == 2) {
      uint32_t out[64];
      for (uint32_t j = 0; j < epr / 2; ++j) out[j] = add(va[2 * j], va[2 * j + 1]);
      for (uint32_t j = 0; j < epr / 2; ++j) if (on[2 * j] || on[2 * j + 1]) st(base + j * E, out[j]);
      continue;
    }
    // vcmax (3) / vcmin (4): the first NaN, else the best value with the smallest index.
    auto val = [&](uint32_t k) { return is.dt == DType::f32 ? double(std::bit_cast<float>(va[k])) : double(hf(uint16_t(va[k]))); };
    int best = -1;
    for (uint32_t k = 0; k < epr; ++k) {
      if (!on[k]) continue;
      if (std::isnan(val(k))) { best = int(k); break; }
      if (best < 0) { best = int(k); continue; }
      const double x = val(k), y = val(uint32_t(best));
      const bool better = is.op == 3 ? (x > y || (x == y && !std::signbit(x) && std::signbit(y)))
                                     : (x < y || (x == y && std::signbit(x) && !std::signbit(y)));
      if (better) best = int(k);
    }
    uint32_t v = va[best];
    if (std::isnan(val(uint32_t(best)))) v = is.dt == DType::f32 ? 0x7FC00000u : 0x7E00u;
    const uint32_t idx = uint32_t(best);
    switch (is.order) {
      case 0: st(base, v); st(base + E, idx); break;
      case 1: st(base, idx); st(base + E, v); break;
      case 2: st(base, v); break;
      default: std::memcpy(ub + base, &idx, 4); break;
    }
  }
  return "ok";
}
}  // namespace ref

namespace {
uint32_t rnd_bits(std::mt19937_64& g, DType dt) {
  const uint32_t E = dtype_size(dt);
  const int kind = static_cast<int>(g() % 8);
  if (dt == DType::f16) {
    static const uint16_t special[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0xFBFF, 0x0001, 0x3C00, 0x0400};
    if (kind == 0) return special[g() % 10];
    if (kind < 4) return g() & 0xFFFF;
    return ref::fh(static_cast<float>(static_cast<int>(g() % 4001) - 2000) / 16.0f);
  }
  if (dt == DType::f32) {
    // ... including NaNs with payloads and a signalling NaN, which results must canonicalise.
    static const uint32_t special[] = {0,           0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                       0x7F7FFFFFu, 1,           0x3F800000u, 0xFFC12345u, 0x7F800001u};
    if (kind == 0) return special[g() % 10];
    if (kind < 3) return static_cast<uint32_t>(g());
    return std::bit_cast<uint32_t>(static_cast<float>(static_cast<int>(g() % 2001) - 1000) / 8.0f);
  }
  if (kind == 0) return E == 2 ? 0x7FFF : 0x7FFFFFFFu;
  return static_cast<uint32_t>(g()) & (E == 2 ? 0xFFFFu : 0xFFFFFFFFu);
}
}  // namespace

TEST(VectorDiff, RandomIssuesMatchTheReferenceModel) {
  port::host::Machine m;
  port::host::ScopedMachine scope(m);
  port::host::A2a3VectorUnit sim(m);
  uint8_t* ub = *m.translate(chip::a2a3::kUb.device_base, chip::a2a3::kUbBytes);
  std::vector<uint8_t> mirror(ref::kUb);
  std::mt19937_64 g(20240611);
  // A quarter of the cases where the build skips the exhaustive sweeps (the sanitizer build, where
  // each case costs ~10x): every status still occurs hundreds of times (the checks below).
  const int kCases = TILEFW_EXHAUSTIVE ? 100000 : 25000;
  int mismatches = 0, by_status[5] = {};
  const DType kTypes[] = {DType::f16, DType::f32, DType::i16, DType::i32};
  // Working window: operands live in the first 16 KB (or near the top of UB for bounds cases),
  // so only a small region needs re-randomising per case.
  constexpr uint32_t kWin = 16384;
  for (int c = 0; c < kCases && mismatches < 10; ++c) {
    ref::Issue is{};
    is.kind = static_cast<ref::Kind>(g() % 4);
    is.dt = kTypes[g() % 4];
    const bool fl = is.dt == DType::f16 || is.dt == DType::f32;
    if (is.kind == ref::BIN) is.op = static_cast<int>(g() % 6);
    if (is.kind == ref::SC) is.op = static_cast<int>(g() % 4);
    if (is.kind == ref::UN) is.op = static_cast<int>(g() % 7);
    if (is.kind == ref::RED) is.op = static_cast<int>(g() % 5);
    // Keep op/dtype pairs legal (descriptor rules are covered by the desc tests).
    if (!fl && (is.kind == ref::RED || (is.kind == ref::UN && !(is.op == 6 && is.dt == DType::i32)) ||
                (is.kind == ref::BIN && is.op == 3))) {
      is.dt = g() % 2 ? DType::f16 : DType::f32;
    }
    const uint32_t E = dtype_size(is.dt), epr = 256 / E;
    is.count_mode = g() % 4 == 0;
    is.repeat = is.count_mode ? 0 : 1 + static_cast<uint32_t>(g() % 6);
    is.count = is.count_mode ? 1 + static_cast<uint32_t>(g() % (5 * epr)) : 0;
    const int mk = static_cast<int>(g() % 4);
    is.hi = mk == 0 ? ~0ull : g() & g();
    is.lo = mk == 0 ? ~0ull : mk == 1 ? 0 : g() & (mk == 2 ? g() : ~0ull);
    is.saturate = g() % 4 == 0;
    const bool top = g() % 16 == 0;
    for (int o = 0; o < 3; ++o) {
      uint32_t off = static_cast<uint32_t>(g() % (kWin / 32)) * 32;
      if (g() % 32 == 0) off += static_cast<uint32_t>(g() % 8) * 4;  // misaligned (or sub-block)
      if (top) off = ref::kUb - kWin + off;
      is.off[o] = off;
      is.blk[o] = static_cast<uint32_t>(g() % 17);
      is.rep[o] = static_cast<uint32_t>(g() % 17);
    }
    if (is.blk[0] == 0) is.blk[0] = 1;
    if (g() % 4 == 0) is.off[0] = is.off[1 + g() % 2];  // overlap attempts
    if (is.kind == ref::RED) is.off[0] &= ~uint32_t{E - 1};
    is.order = static_cast<int>(g() % 4);
    is.scalar = rnd_bits(g, is.dt);
    // Randomise the window.
    const uint32_t base = top ? ref::kUb - kWin : 0;
    for (uint32_t i = 0; i < kWin; i += E) {
      const uint32_t v = rnd_bits(g, is.dt);
      std::memcpy(ub + base + i, &v, E);
    }
    std::memcpy(mirror.data() + base, ub + base, kWin);
    // The same issue through the core and the simulator.
    issue::VectorUnit vu{};
    issue::reset(vu, is.saturate ? issue::OverflowMode::saturate : issue::OverflowMode::infnan);
    Status st = Status::ok;
    if (is.count_mode) {
      ASSERT_EQ(issue::set_mask_count(vu, is.count), Status::ok);
    } else {
      issue::set_mask(vu, is.hi, is.lo);
    }
    const desc::MaskMode mode = is.count_mode ? desc::MaskMode::count : desc::MaskMode::normal;
    auto o = [&](int k) { desc::Operand x{}; x.offset = is.off[k]; return x; };
    switch (is.kind) {
      case ref::BIN: {
        desc::BinIntrinsicDesc d{};
        d.op = static_cast<desc::BinaryOp>(is.op);
        d.repeat = is.repeat, d.mask_mode = mode, d.vector_count = is.count;
        d.dst_block_stride = is.blk[0], d.src0_block_stride = is.blk[1], d.src1_block_stride = is.blk[2];
        d.dst_repeat_stride = is.rep[0], d.src0_repeat_stride = is.rep[1], d.src1_repeat_stride = is.rep[2];
        d.dst = o(0), d.src0 = o(1), d.src1 = o(2);
        st = issue::issue_once(vu, d, is.dt);
        break;
      }
      case ref::UN: {
        desc::UnaryDesc d{};
        d.op = static_cast<desc::UnaryOp>(is.op);
        d.repeat = is.repeat, d.mask_mode = mode, d.vector_count = is.count;
        d.dst_block_stride = is.blk[0], d.src_block_stride = is.blk[1];
        d.dst_repeat_stride = is.rep[0], d.src_repeat_stride = is.rep[1];
        d.dst = o(0), d.src = o(1);
        st = issue::issue_once(vu, d, is.dt);
        break;
      }
      case ref::SC: {
        desc::ScalarDesc d{};
        d.op = static_cast<desc::ScalarOp>(is.op);
        d.scalar_bits = is.scalar;
        d.repeat = is.repeat, d.mask_mode = mode, d.vector_count = is.count;
        d.dst_block_stride = is.blk[0], d.src_block_stride = is.blk[1];
        d.dst_repeat_stride = is.rep[0], d.src_repeat_stride = is.rep[1];
        d.dst = o(0), d.src = o(1);
        st = issue::issue_once(vu, d, is.dt);
        break;
      }
      case ref::RED: {
        desc::ReduceDesc d{};
        d.op = static_cast<desc::ReduceOp>(is.op);
        d.order = static_cast<desc::ReduceOrder>(is.order);
        d.repeat = is.repeat, d.mask_mode = mode, d.vector_count = is.count;
        d.src_block_stride = is.blk[1], d.dst_repeat_stride = is.rep[0], d.src_repeat_stride = is.rep[1];
        d.dst = o(0), d.src = o(1);
        st = issue::issue_once(vu, d, is.dt);
        break;
      }
    }
    const char* want = ref::run(is, mirror.data());
    const char* got = status_class_name(status_class(st));
    const int si = std::string(got) == "ok" ? 0 : std::string(got) == "misaligned" ? 1 : std::string(got) == "out_of_bounds" ? 2 : std::string(got) == "illegal_overlap" ? 3 : 4;
    ++by_status[si];
    const bool same = std::string(want) == got && std::memcmp(mirror.data() + base, ub + base, kWin) == 0;
    if (!same) {
      ++mismatches;
      uint32_t at = 0;
      while (at < kWin && mirror[base + at] == ub[base + at]) ++at;
      ADD_FAILURE() << "case " << c << " kind " << is.kind << " op " << is.op << " dt " << dtype_name(is.dt)
                    << " count_mode " << is.count_mode << " repeat " << is.repeat << " count " << is.count
                    << " mask " << std::hex << is.hi << ":" << is.lo << std::dec << " off " << is.off[0] << ","
                    << is.off[1] << "," << is.off[2] << " blk " << is.blk[0] << "," << is.blk[1] << "," << is.blk[2]
                    << " rep " << is.rep[0] << "," << is.rep[1] << "," << is.rep[2] << " order " << is.order
                    << ": status ref " << want << " sim " << got << ", first differing byte " << at;
    }
  }
  EXPECT_EQ(mismatches, 0);
  // The random placements must exercise every status.
  EXPECT_GT(by_status[0], 1000);
  EXPECT_GT(by_status[1], 100);
  EXPECT_GT(by_status[2], 100);
  EXPECT_GT(by_status[3], 100);
  RecordProperty("ok", by_status[0]);
  std::printf("statuses: ok %d misaligned %d out_of_bounds %d illegal_overlap %d other %d\n", by_status[0], by_status[1],
              by_status[2], by_status[3], by_status[4]);
}
