// Shared helpers of the plan tests: collecting steps, a lane-level replay of issues (which
// element each lane of each operand touches) and a tiny deterministic RNG.
#pragma once

#include <cstdint>

#include "tilefw/plan/plan.hpp"

namespace plan_test {

using namespace tilefw;
using namespace tilefw::plan;
using desc::Mask128;
using desc::MaskMode;

inline constexpr uint32_t kMaxSteps = 96;

struct Steps {
  Step s[kMaxSteps];
  uint32_t n = 0;
  bool overflow = false;
};

inline void collect(const Plan& p, Steps& out) {
  out.n = 0;
  out.overflow = false;
  Step s{};
  for (auto c = p.begin(); c.next(s);) {
    if (out.n == kMaxSteps) {
      out.overflow = true;
      return;
    }
    out.s[out.n++] = s;
  }
}

struct Rng {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  uint32_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return static_cast<uint32_t>(x >> 11);
  }
  uint32_t in(uint32_t lo, uint32_t hi) { return lo + next() % (hi - lo + 1); }
};

// Visits every (lane, byte offset of operand slot k) an elementwise issue processes:
// f(index of the logical element in issue order, offset in slot 0, 1, 2).
// Normal mode: lanes selected by the MASK (b32: low word) over `repeat` repeats; count mode:
// the first `count` logical elements. `elem[k]` is the element size of slot k.
struct Geometry {
  uint32_t off[3];
  uint32_t blk[3];
  uint32_t rep[3];
  uint32_t elem[3];
  int n;
  uint32_t repeat;
  uint32_t epr;
};

inline bool geometry(const Step& s, Geometry& g) {
  switch (s.kind) {
    case StepKind::binary: {
      const auto& d = s.binary;
      const uint32_t e = dtype_size(s.dtype);
      g = Geometry{{d.dst.offset, d.src0.offset, d.src1.offset},
                   {d.dst_block_stride, d.src0_block_stride, d.src1_block_stride},
                   {d.dst_repeat_stride, d.src0_repeat_stride, d.src1_repeat_stride},
                   {e, e, e}, 3, d.repeat, 256 / e};
      return true;
    }
    case StepKind::unary: {
      const auto& d = s.unary;
      const uint32_t e = dtype_size(s.dtype);
      g = Geometry{{d.dst.offset, d.src.offset, 0}, {d.dst_block_stride, d.src_block_stride, 0},
                   {d.dst_repeat_stride, d.src_repeat_stride, 0}, {e, e, e}, 2, d.repeat, 256 / e};
      return true;
    }
    case StepKind::scalar: {
      const auto& d = s.scalar;
      const uint32_t e = dtype_size(s.dtype);
      g = Geometry{{d.dst.offset, d.src.offset, 0}, {d.dst_block_stride, d.src_block_stride, 0},
                   {d.dst_repeat_stride, d.src_repeat_stride, 0}, {e, e, e}, 2, d.repeat, 256 / e};
      return true;
    }
    case StepKind::dup: {
      const auto& d = s.dup;
      const uint32_t e = dtype_size(s.dtype);
      g = Geometry{{d.dst.offset, 0, 0}, {d.dst_block_stride, 0, 0}, {d.dst_repeat_stride, 0, 0},
                   {e, e, e}, 1, d.repeat, 256 / e};
      return true;
    }
    case StepKind::cvt: {
      const auto& d = s.cvt;
      const uint32_t de = dtype_size(d.dst_type);
      const uint32_t se = dtype_size(d.src_type);
      g = Geometry{{d.dst.offset, d.src.offset, 0}, {d.dst_block_stride, d.src_block_stride, 0},
                   {d.dst_repeat_stride, d.src_repeat_stride, 0}, {de, se, se}, 2, d.repeat, 64};
      return true;
    }
    default: return false;
  }
}

template <class F>
void for_each_lane(const Step& s, F&& f) {
  Geometry g{};
  if (!geometry(s, g)) return;
  const uint64_t total = s.mode == MaskMode::count ? s.count : uint64_t{g.repeat} * g.epr;
  const bool b32 = g.elem[0] >= 4 || g.epr == 64;
  for (uint64_t j = 0; j < total; ++j) {
    const uint32_t r = static_cast<uint32_t>(j / g.epr);
    const uint32_t k = static_cast<uint32_t>(j % g.epr);
    if (s.mode == MaskMode::normal) {
      const Mask128 m = b32 ? Mask128{0, s.mask.lo} : s.mask;
      if (!m.lane(k)) continue;
    }
    uint32_t off[3] = {0, 0, 0};
    for (int q = 0; q < g.n; ++q) {
      const uint32_t per_block = 32 / g.elem[q];
      off[q] = g.off[q] + (r * g.rep[q] + (k / per_block) * g.blk[q]) * 32 + (k % per_block) * g.elem[q];
    }
    f(off[0], off[1], off[2]);
  }
}

}  // namespace plan_test
