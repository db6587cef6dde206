// The vector unit's compare (vcmpv/vcmpvs, op class 0x80) and select (vsel, 0x90) issues:
// decode from the raw registers, check the decoded issue by the unit's own rules against the
// profile's UB (vector_cmp_check.hpp),
// record the accesses, execute. tilefw's rules (tilefw/desc/data/vector_cmp_desc.hpp): lanes
// [0, lanes) of each repeat, predicate bit k of a repeat = bit k % 8 of byte k / 8 (LSB first,
// the last byte's bits past `lanes` written 0), IEEE ordered compares (NaN: only NE is true,
// +0 == -0), a select copies the chosen source's bits. MASK and CTRL are not read.
#include <cstring>

#include "a2a3/vector_access.hpp"
#include "a2a3/vector_unit.hpp"
#include "tilefw/base/float16.hpp"
#include "a2a3/vector_cmp_check.hpp"

namespace tilefw::port::host {

namespace {
namespace vreg = chip::a2a3::vreg;

// The value of one element as a double (every f16, f32, i16, u16, i32 value is exact in it).
double value_of(const uint8_t* p, DType dt) noexcept {
  switch (dt) {
    case DType::f16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      const uint32_t fb = half_bits_to_float_bits(h);
      float f;
      std::memcpy(&f, &fb, 4);
      return f;
    }
    case DType::f32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::i16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::u16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    default: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
}

bool compare(double a, double b, desc::CmpMode m) noexcept {
  switch (m) {  // C++'s compares are IEEE's: false on NaN, != true on NaN
    case desc::CmpMode::eq: return a == b;
    case desc::CmpMode::ne: return a != b;
    case desc::CmpMode::lt: return a < b;
    case desc::CmpMode::gt: return a > b;
    case desc::CmpMode::ge: return a >= b;
    case desc::CmpMode::le: return a <= b;
  }
  return false;
}

void run_cmp(uint8_t* ub, PipeTracker* pipes, const desc::CmpDesc& d, DType dt) noexcept {
  const uint32_t e = dtype_size(dt);
  const uint32_t bytes = (d.lanes + 7) / 8;
  const uint64_t read = (uint64_t{d.lanes} * e + 31) / 32 * 32;
  if (pipes != nullptr) {
    vector_access::runs(*pipes, false, d.src0.offset, uint64_t{d.src0_repeat_stride} * 32, read, d.repeat);
    if (d.rhs == desc::CmpRhs::tile) {
      vector_access::runs(*pipes, false, d.src1.offset, uint64_t{d.src1_repeat_stride} * 32, read, d.repeat);
    } else if (d.rhs == desc::CmpRhs::first) {
      vector_access::runs(*pipes, false, d.src1.offset / 32 * 32, 0, 32, 1);
    }
    vector_access::runs(*pipes, true, d.dst.offset, d.dst_repeat_stride, bytes, d.repeat);
  }
  uint8_t scalar[4];
  std::memcpy(scalar, &d.scalar_bits, 4);  // little-endian host: the low bytes are T's bits
  const double first = d.rhs == desc::CmpRhs::first ? value_of(ub + d.src1.offset, dt) : 0.0;
  for (uint32_t r = 0; r < d.repeat; ++r) {
    const uint8_t* a = ub + d.src0.offset + uint64_t{r} * d.src0_repeat_stride * 32;
    const uint8_t* b = ub + d.src1.offset + uint64_t{r} * d.src1_repeat_stride * 32;
    uint8_t* out = ub + d.dst.offset + uint64_t{r} * d.dst_repeat_stride;
    std::memset(out, 0, bytes);
    for (uint32_t k = 0; k < d.lanes; ++k) {
      const double rhs = d.rhs == desc::CmpRhs::tile     ? value_of(b + uint64_t{k} * e, dt)
                         : d.rhs == desc::CmpRhs::scalar ? value_of(scalar, dt)
                                                         : first;
      if (compare(value_of(a + uint64_t{k} * e, dt), rhs, d.mode)) out[k / 8] |= static_cast<uint8_t>(1u << (k % 8));
    }
  }
}

void run_sel(uint8_t* ub, PipeTracker* pipes, const desc::SelDesc& d, DType dt) noexcept {
  const uint32_t e = dtype_size(dt);
  const uint64_t span = (uint64_t{d.lanes} * e + 31) / 32 * 32;
  if (pipes != nullptr) {
    vector_access::runs(*pipes, false, d.src0.offset, uint64_t{d.src0_repeat_stride} * 32, span, d.repeat);
    vector_access::runs(*pipes, false, d.src1.offset, uint64_t{d.src1_repeat_stride} * 32, span, d.repeat);
    vector_access::runs(*pipes, false, d.mask.offset, d.mask_repeat_stride, (d.lanes + 7) / 8, d.repeat);
    vector_access::runs(*pipes, true, d.dst.offset, uint64_t{d.dst_repeat_stride} * 32, uint64_t{d.lanes} * e,
                        d.repeat);
  }
  for (uint32_t r = 0; r < d.repeat; ++r) {
    const uint8_t* m = ub + d.mask.offset + uint64_t{r} * d.mask_repeat_stride;
    uint8_t* out = ub + d.dst.offset + uint64_t{r} * d.dst_repeat_stride * 32;
    const uint8_t* a = ub + d.src0.offset + uint64_t{r} * d.src0_repeat_stride * 32;
    const uint8_t* b = ub + d.src1.offset + uint64_t{r} * d.src1_repeat_stride * 32;
    for (uint32_t k = 0; k < d.lanes; ++k) {
      const bool take0 = ((m[k / 8] >> (k % 8)) & 1u) != 0;
      std::memmove(out + uint64_t{k} * e, (take0 ? a : b) + uint64_t{k} * e, e);  // in place: same lane
    }
  }
}

}  // namespace

void A2a3VectorUnit::on_cmp_issue(uint32_t cls, uint32_t idx, uint32_t dt_code, uint32_t repeat) noexcept {
  Machine& m = machine_;
  const uint32_t lanes_word = m.read32(base_ + vreg::kCmpLanes);
  const bool dt_known = dt_code <= static_cast<uint32_t>(DType::u32);
  const DType dt = static_cast<DType>(dt_known ? dt_code : 0);
  auto rep = [](uint32_t w) noexcept { return w >> 16; };
  desc::DescReport r{};
  if (!dt_known) {
    r.status = Status::desc_unsupported_dtype;
    r.field = "dtype";
    r.value = dt_code;
    take(r);
    return;
  }
  if (cls == vreg::kOpClassCmp) {
    desc::CmpDesc d{};
    d.mode = static_cast<desc::CmpMode>(idx);
    d.rhs = static_cast<desc::CmpRhs>((lanes_word >> 16) & 0x3u);
    d.scalar_bits = m.read32(base_ + vreg::kScalar);
    d.repeat = repeat;
    d.lanes = lanes_word & 0xFFu;
    d.dst_repeat_stride = rep(m.read32(base_ + vreg::kDstStride));
    d.src0_repeat_stride = rep(m.read32(base_ + vreg::kSrc0Stride));
    d.src1_repeat_stride = rep(m.read32(base_ + vreg::kSrc1Stride));
    d.dst.offset = m.read32(base_ + vreg::kDstAddr);
    d.src0.offset = m.read32(base_ + vreg::kSrc0Addr);
    d.src1.offset = m.read32(base_ + vreg::kSrc1Addr);
    if (take(vector_cmp_check::check(d, dt, checker_.ub_bytes()))) run_cmp(ub_, pipes_, d, dt);
    return;
  }
  desc::SelDesc d{};
  d.repeat = repeat;
  d.lanes = lanes_word & 0xFFu;
  d.dst_repeat_stride = rep(m.read32(base_ + vreg::kDstStride));
  d.src0_repeat_stride = rep(m.read32(base_ + vreg::kSrc0Stride));
  d.src1_repeat_stride = rep(m.read32(base_ + vreg::kSrc1Stride));
  d.mask_repeat_stride = m.read32(base_ + vreg::kMaskStride) & 0xFFFFu;
  d.dst.offset = m.read32(base_ + vreg::kDstAddr);
  d.src0.offset = m.read32(base_ + vreg::kSrc0Addr);
  d.src1.offset = m.read32(base_ + vreg::kSrc1Addr);
  d.mask.offset = m.read32(base_ + vreg::kMaskAddr);
  if (take(vector_cmp_check::check(d, dt, checker_.ub_bytes()))) run_sel(ub_, pipes_, d, dt);
}

}  // namespace tilefw::port::host
