// The a2a3 vector unit's data-movement issues: UB copy, duplicate, conversion (vconv) and
// block broadcast (vbrcb): decode, re-validate, record accesses, execute.
#include "a2a3/vector_unit.hpp"

#include "a2a3/vector_access.hpp"
#include "a2a3/vector_kernels.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_copy_desc.hpp"
#include "tilefw/desc/data/vector_convert_desc.hpp"

namespace tilefw::port::host {

namespace vreg = chip::a2a3::vreg;
using namespace vector_model;

// ---- copy, duplicate, conversion ------------------------------------------------------------
namespace {

// Lanes of one repeat in effect (mask applied; count mode: full repeats, then the remainder).
inline Mask128 repeat_lanes(bool counter, uint32_t count, Mask128 mask, uint32_t epr, uint64_t r,
                            uint64_t repeats, uint32_t elem) noexcept {
  if (!counter) return applicable(mask, elem);
  const uint32_t rem = count % epr;
  return Mask128::continuous(r + 1 == repeats && rem != 0 ? rem : epr);
}

// f32 -> f16 under a vconv RoundMode. Directed and odd modes pick one of the two halves
// around the value, found from the nearest-even result.
uint16_t f32_to_f16(float x, desc::RoundMode mode) noexcept {
  const uint32_t xb = std::bit_cast<uint32_t>(x);
  if (x != x) return kHalfQNaN;
  if (mode == desc::RoundMode::round) return float_bits_to_half_bits(xb, tilefw::RoundMode::half_away_from_zero);
  const uint16_t rne = float_bits_to_half_bits(xb, tilefw::RoundMode::nearest_even);
  if (mode == desc::RoundMode::rint || std::isinf(x)) return rne;
  const double v = x;
  const double got = h2d(rne);
  if (got == v) return rne;
  // Neighbours along the real line: for positive halves the next bit pattern is larger.
  auto step = [](uint16_t h, bool up) -> uint16_t {
    const bool neg = (h & 0x8000u) != 0;
    if ((h & 0x7FFFu) == 0) return up ? uint16_t{0x0001} : uint16_t{0x8001};
    return static_cast<uint16_t>(up != neg ? h + 1 : h - 1);
  };
  const uint16_t lo = got < v ? rne : step(rne, false);
  const uint16_t hi = got < v ? step(rne, true) : rne;
  switch (mode) {
    case desc::RoundMode::floor: return lo;
    case desc::RoundMode::ceil: return hi;
    case desc::RoundMode::trunc: return v > 0 ? lo : hi;
    default: return (lo & 1u) != 0 ? lo : hi;  // odd
  }
}

int32_t to_i32(double v, desc::RoundMode mode) noexcept {
  if (v != v) return 0;
  double r = v;
  switch (mode) {
    case desc::RoundMode::round: r = std::round(v); break;
    case desc::RoundMode::floor: r = std::floor(v); break;
    case desc::RoundMode::ceil: r = std::ceil(v); break;
    case desc::RoundMode::trunc: r = std::trunc(v); break;
    default: r = std::nearbyint(v); break;  // rint: nearest even (default FP environment)
  }
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(r);
}

}  // namespace

namespace {

inline uint32_t blk(uint32_t w) noexcept { return w & 0xFFFFu; }
inline uint32_t rep(uint32_t w) noexcept { return w >> 16; }

desc::DescReport unsupported_dtype(uint32_t code) noexcept {
  desc::DescReport r{};
  r.status = Status::desc_unsupported_dtype;
  r.field = "dtype";
  r.value = code;
  return r;
}

// The MASK state of a move issue, for the lanes each repeat takes.
struct LaneState {
  bool counter = false;
  uint32_t count = 0;
  Mask128 mask{};
};

// The registers the unit's move-class checks read, as one decoded issue: repeat, dtype (an
// unknown code decodes as f16 and is refused by its dt_known flag), dst and its stride word;
// the lane state (MASK, count mode) only for the classes that run under it (vector_dup, vconv;
// vbrcb ignores MASK and CTRL), the source only for those that have one (vbrcb, vconv).
vector_check::ArithIssue checked_issue(uint32_t repeat, uint32_t dt_code, uint32_t dst_off, uint32_t dst_stride,
                                       const LaneState* lanes, const uint32_t* src_off = nullptr,
                                       uint32_t src_stride = 0) noexcept {
  vector_check::ArithIssue a{};
  if (lanes != nullptr) {
    a.counter = lanes->counter;
    a.count = lanes->count;
    a.mask = lanes->mask;
  }
  a.repeat = repeat;
  a.dt_code = dt_code;
  a.dt_known = dt_code <= static_cast<uint32_t>(DType::u32);
  a.dt = static_cast<DType>(a.dt_known ? dt_code : 0);
  a.dst_off = dst_off;
  a.ds = dst_stride;
  if (src_off != nullptr) a.s0_off = *src_off;
  a.s0s = src_stride;
  return a;
}

void run_copy(uint8_t* ub, PipeTracker* pipes, const desc::CopyDesc& d) noexcept {
  const uint32_t dst_off = d.dst.offset;
  const uint32_t src_off = d.src.offset;
  const uint64_t len = uint64_t{d.burst_len} * 32;
  if (pipes != nullptr) {
    vector_access::runs(*pipes, false, src_off, len + uint64_t{d.src_gap} * 32, len, d.nburst);
    vector_access::runs(*pipes, true, dst_off, len + uint64_t{d.dst_gap} * 32, len, d.nburst);
  }
  for (uint32_t b = 0; b < d.nburst; ++b) {  // disjoint by validation: order does not matter
    std::memcpy(ub + dst_off + b * (len + uint64_t{d.dst_gap} * 32), ub + src_off + b * (len + uint64_t{d.src_gap} * 32),
                len);
  }
}

// Reads and writes are disjoint (validated): repeat r broadcasts src[8r + k] into dst block k.
void run_brcb(uint8_t* ub, PipeTracker* pipes, const desc::BrcbDesc& d, DType dt) noexcept {
  const uint32_t elem = dtype_size(dt);
  if (pipes != nullptr) {
    vector_access::runs(*pipes, false, d.src.offset, 8 * elem, 8 * elem, d.repeat);
    vector_access::blocks(*pipes, true, d.dst.offset, uint64_t{d.dst_block_stride} * 32,
                          uint64_t{d.dst_repeat_stride} * 32, d.repeat, 0xFF, 0xFF);
  }
  const uint32_t per_block = 32 / elem;
  for (uint64_t i = 0; i < d.repeat; ++i) {
    for (uint32_t k = 0; k < 8; ++k) {
      const uint8_t* from = ub + d.src.offset + (8 * i + k) * elem;
      uint8_t* block = ub + d.dst.offset + (i * d.dst_repeat_stride + uint64_t{k} * d.dst_block_stride) * 32;
      for (uint32_t e = 0; e < per_block; ++e) std::memcpy(block + e * elem, from, elem);
    }
  }
}

void run_dup(uint8_t* ub, PipeTracker* pipes, const desc::DupDesc& d, DType dt, const LaneState& ls,
             uint64_t repeats) noexcept {
  const uint32_t elem = dtype_size(dt);
  const uint32_t epr = chip::a2a3::lanes_per_repeat(elem);
  const uint32_t per_block = 32 / elem;
  if (pipes != nullptr) {
    const uint8_t body =
        vector_access::block_bits(repeat_lanes(ls.counter, ls.count, ls.mask, epr, 0, 2, elem), epr, per_block);
    const uint8_t last = vector_access::block_bits(
        repeat_lanes(ls.counter, ls.count, ls.mask, epr, repeats - 1, repeats, elem), epr, per_block);
    vector_access::blocks(*pipes, true, d.dst.offset, uint64_t{d.dst_block_stride} * 32,
                          uint64_t{d.dst_repeat_stride} * 32, repeats, body, last);
  }
  for (uint64_t i = 0; i < repeats; ++i) {
    const Mask128 lanes = repeat_lanes(ls.counter, ls.count, ls.mask, epr, i, repeats, elem);
    for (uint32_t k = 0; k < epr; ++k) {
      if (!lanes.lane(k)) continue;
      uint8_t* at = ub + d.dst.offset + i * uint64_t{d.dst_repeat_stride} * 32 +
                    (k / per_block) * uint64_t{d.dst_block_stride} * 32 + (k % per_block) * elem;
      if (elem == 2) st<uint16_t>(at, static_cast<uint16_t>(d.scalar_bits));
      else st<uint32_t>(at, d.scalar_bits);
    }
  }
}

// One lane of a vconv: the source element at `at`, converted as d says (result in the low bits).
uint32_t convert_lane(const desc::CvtDesc& d, const uint8_t* at, bool sat) noexcept {
  switch (d.src_type) {
    case DType::f16: {
      const uint16_t h = ld<uint16_t>(at);
      if (d.dst_type == DType::f32) return std::bit_cast<uint32_t>(canon(static_cast<float>(h2d(h))));
      return static_cast<uint32_t>(to_i32(h2d(h), d.round));
    }
    case DType::bf16:
      return std::bit_cast<uint32_t>(canon(std::bit_cast<float>(bf16_bits_to_float_bits(ld<uint16_t>(at)))));
    case DType::i32:
      return std::bit_cast<uint32_t>(static_cast<float>(ld<int32_t>(at)));
    default: {  // f32
      const float x = ld<float>(at);
      if (d.dst_type == DType::f16) return sat_h(f32_to_f16(x, d.round), sat);
      if (d.dst_type == DType::bf16) return x != x ? 0x7FC0u : float_bits_to_bf16_bits(std::bit_cast<uint32_t>(x));
      return static_cast<uint32_t>(to_i32(x, d.round));
    }
  }
}

void run_cvt(uint8_t* ub, PipeTracker* pipes, const desc::CvtDesc& d, bool sat, const LaneState& ls,
             uint64_t repeats) noexcept {
  const uint32_t ds = dtype_size(d.dst_type);
  const uint32_t ss = dtype_size(d.src_type);
  constexpr uint32_t kLanes = 64;  // every supported pair has a 32-bit side
  if (pipes != nullptr) {
    namespace va = vector_access;
    const Mask128 body = repeat_lanes(ls.counter, ls.count, ls.mask, kLanes, 0, 2, 4);
    const Mask128 last = repeat_lanes(ls.counter, ls.count, ls.mask, kLanes, repeats - 1, repeats, 4);
    va::blocks(*pipes, false, d.src.offset, uint64_t{d.src_block_stride} * 32, uint64_t{d.src_repeat_stride} * 32,
               repeats, va::block_bits(body, kLanes, 32 / ss), va::block_bits(last, kLanes, 32 / ss));
    va::blocks(*pipes, true, d.dst.offset, uint64_t{d.dst_block_stride} * 32, uint64_t{d.dst_repeat_stride} * 32,
               repeats, va::block_bits(body, kLanes, 32 / ds), va::block_bits(last, kLanes, 32 / ds));
  }
  uint32_t out[kLanes];
  for (uint64_t i = 0; i < repeats; ++i) {
    const Mask128 lanes = repeat_lanes(ls.counter, ls.count, ls.mask, kLanes, i, repeats, 4);
    const uint8_t* sb = ub + d.src.offset + i * uint64_t{d.src_repeat_stride} * 32;
    uint8_t* db = ub + d.dst.offset + i * uint64_t{d.dst_repeat_stride} * 32;
    auto src_at = [&](uint32_t k) { return sb + (k / (32 / ss)) * uint64_t{d.src_block_stride} * 32 + (k % (32 / ss)) * ss; };
    auto dst_at = [&](uint32_t k) { return db + (k / (32 / ds)) * uint64_t{d.dst_block_stride} * 32 + (k % (32 / ds)) * ds; };
    for (uint32_t k = 0; k < kLanes; ++k) {  // every read of the repeat before its writes
      if (lanes.lane(k)) out[k] = convert_lane(d, src_at(k), sat);
    }
    for (uint32_t k = 0; k < kLanes; ++k) {
      if (!lanes.lane(k)) continue;
      if (ds == 2) st<uint16_t>(dst_at(k), static_cast<uint16_t>(out[k]));
      else st<uint32_t>(dst_at(k), out[k]);
    }
  }
}

}  // namespace

// Decode each class's registers into its descriptor, check it (a fault writes nothing), run it.
void A2a3VectorUnit::on_move_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, uint64_t ctrl, Mask128 mask,
                                   uint32_t repeat, uint32_t dst_off, uint32_t src_off, uint32_t dst_stride,
                                   uint32_t src_stride) noexcept {
  Machine& m = machine_;
  const bool counter = (ctrl & vreg::kCtrlCounterMode) != 0;
  const LaneState ls{counter, counter ? static_cast<uint32_t>(mask.lo) : 0u, mask};
  const desc::MaskMode mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
  const bool dt_known = dt_code <= static_cast<uint32_t>(DType::u32);
  const DType dt = static_cast<DType>(dt_known ? dt_code : 0);
  if (cls == vreg::kOpClassCopy) {
    const uint32_t bw = m.read32(base_ + vreg::kCopyBurst);
    const uint32_t gw = m.read32(base_ + vreg::kCopyGap);
    desc::CopyDesc d{};
    d.nburst = bw & 0xFFFu;
    d.burst_len = bw >> 16;
    d.src_gap = gw & 0xFFFFu;
    d.dst_gap = gw >> 16;
    d.dst.offset = dst_off;
    d.src.offset = src_off;
    if (take(checker_.check_copy(bw, gw, dst_off, src_off))) run_copy(ub_, pipes_, d);
    return;
  }
  if (cls == vreg::kOpClassBrcb) {
    desc::BrcbDesc d{};
    d.repeat = repeat;
    d.dst_block_stride = blk(dst_stride);
    d.dst_repeat_stride = rep(dst_stride);
    d.dst.offset = dst_off;
    d.src.offset = src_off;
    const vector_check::ArithIssue a = checked_issue(repeat, dt_code, dst_off, dst_stride, nullptr, &src_off);
    if (take(checker_.check_brcb(a))) run_brcb(ub_, pipes_, d, dt);
    return;
  }
  if (cls == vreg::kOpClassDup) {
    desc::DupDesc d{};
    d.scalar_bits = m.read32(base_ + vreg::kScalar);
    d.repeat = repeat;
    d.dst_block_stride = blk(dst_stride);
    d.dst_repeat_stride = rep(dst_stride);
    d.mask_mode = mode;
    d.vector_count = ls.count;
    d.dst.offset = dst_off;
    const desc::DescReport r = checker_.check_dup(checked_issue(repeat, dt_code, dst_off, dst_stride, &ls));
    if (take(r)) run_dup(ub_, pipes_, d, dt, ls, r.repeats);
    return;
  }
  // vconv
  const uint32_t src_code = m.read32(base_ + vreg::kCvtSrc) & 0xFFu;
  desc::CvtDesc d{};
  d.dst_type = dt;
  d.src_type = static_cast<DType>(src_code <= static_cast<uint32_t>(DType::u32) ? src_code : 0);
  d.round = static_cast<desc::RoundMode>(idx);
  d.repeat = repeat;
  d.dst_block_stride = blk(dst_stride);
  d.src_block_stride = blk(src_stride);
  d.dst_repeat_stride = rep(dst_stride);
  d.src_repeat_stride = rep(src_stride);
  d.mask_mode = mode;
  d.vector_count = ls.count;
  d.dst.offset = dst_off;
  d.src.offset = src_off;
  const bool types_known = dt_known && src_code <= static_cast<uint32_t>(DType::u32);
  const vector_check::ArithIssue a = checked_issue(repeat, dt_code, dst_off, dst_stride, &ls, &src_off, src_stride);
  const desc::DescReport r = types_known ? checker_.check_cvt(a, d.src_type, idx)
                                         : unsupported_dtype(dt_known ? src_code : dt_code);
  if (take(r)) run_cvt(ub_, pipes_, d, (ctrl & vreg::kCtrlInfNan) == 0, ls, r.repeats);
}

}  // namespace tilefw::port::host
