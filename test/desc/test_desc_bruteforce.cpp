// Cross-check: the closed-form validator against a brute-force reference that walks every
// repeat, lane, block and written byte of small pseudo-random issues (deterministic xorshift).
// Both must agree on the status of every descriptor (NOP, misaligned, out_of_bounds,
// illegal_overlap, ok).
#include "desc_test_util.hpp"
#include "tftest.hpp"

using namespace desc_test;

namespace {

#if defined(TILEFW_TEST_MINITEST)
constexpr int kIterations = 400;
#else
constexpr int kIterations = 4000;
#endif

struct Rng {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  bool chance(uint32_t percent) { return below(100) < percent; }
};

// ---- the reference --------------------------------------------------------------------------
struct Span {
  int64_t start;
  int64_t len;
};

constexpr int kMaxRepeats = 8;

struct RefOperand {
  int64_t base = 0;
  int64_t blk = 0;   // blocks
  int64_t rep = 0;   // blocks (elementwise) or bytes (reduction dst, already scaled)
  int64_t align = 32;
};

struct RefIssue {
  int kind = 0;  // 0 binary, 1 unary, 2 reduction
  BinaryOp bop = BinaryOp::vadd;
  ReduceOp rop = ReduceOp::vcadd;
  ReduceOrder order = ReduceOrder::value_index;
  uint32_t elem = 4;
  DType dt = DType::f32;
  bool count_mode = false;
  uint32_t repeat = 1;   // normal mode
  uint32_t count = 0;    // count mode
  uint32_t tail = 0;     // normal mode
  Mask128 live{};
  RefOperand op[3];      // dst, src0 (src), src1
  int nops = 3;
  bool acc_exempt = false;
};

bool lane_participates(const RefIssue& is, int64_t r, int64_t repeats, uint32_t k) {
  const uint32_t epr = 256 / is.elem;
  if (k >= epr) return false;
  if (is.count_mode) {
    const uint32_t rem = is.count % epr;
    const uint32_t last = rem == 0 ? epr : rem;
    return r < repeats - 1 ? true : k < last;
  }
  if (is.tail > 0) return k < is.tail;
  if (k < 64) return ((is.live.lo >> k) & 1u) != 0;
  if (is.elem >= 4) return false;  // b32: MASK hi ignored
  return ((is.live.hi >> (k - 64)) & 1u) != 0;
}

struct RepeatSpans {
  Span dst[64];
  int nd = 0;
  Span src[2][8];
  int ns[2] = {0, 0};
};

// The reference's verdict: the status, and (for ok, non-NOP issues) whether some touched byte
// lies in the reserved top of UB (docs/a2a3-vector-semantics.md section 9 diagnostic).
bool g_ref_reserved = false;
constexpr int64_t kUbUsable = tilefw::chip::a2a3::kUbUsableBytes;

Status reference(const RefIssue& is) {
  g_ref_reserved = false;
  const uint32_t epr = 256 / is.elem;
  const uint32_t per_block = 32 / is.elem;
  const int64_t repeats = is.count_mode ? (is.count + epr - 1) / epr : is.repeat;
  // NOP: no lane participates in any repeat (only possible in normal mode).
  bool any = false;
  for (uint32_t k = 0; k < epr; ++k) any = any || lane_participates(is, 0, repeats, k);
  if (!any) return Status::ok;
  for (int o = 0; o < is.nops; ++o) {
    if (is.op[o].base % is.op[o].align != 0) return Status::misaligned;
  }
  static RepeatSpans spans[kMaxRepeats];
  for (int64_t r = 0; r < repeats; ++r) {
    RepeatSpans& s = spans[r];
    s.nd = 0;
    s.ns[0] = s.ns[1] = 0;
    bool block_on[8] = {};
    for (uint32_t b = 0; b < 8; ++b) {
      for (uint32_t e = 0; e < per_block; ++e) block_on[b] = block_on[b] || lane_participates(is, r, repeats, b * per_block + e);
    }
    // sources (and elementwise dst): participating 32 B blocks
    for (int o = 0; o < is.nops; ++o) {
      const bool is_dst = o == 0;
      if (is_dst && is.kind == 2) continue;
      for (uint32_t b = 0; b < 8; ++b) {
        if (!block_on[b]) continue;
        const Span sp{is.op[o].base + (r * is.op[o].rep + b * is.op[o].blk) * 32, 32};
        if (is_dst) {
          s.dst[s.nd++] = sp;
        } else {
          s.src[o - 1][s.ns[o - 1]++] = sp;
        }
      }
    }
    if (is.kind == 2) {
      // written bytes of this repeat, relative to its dst start, then maximal runs
      bool written[256] = {};
      const uint32_t e = is.elem;
      if (is.rop == ReduceOp::vcadd) {
        for (uint32_t i = 0; i < e; ++i) written[i] = true;
      } else if (is.rop == ReduceOp::vcmax || is.rop == ReduceOp::vcmin) {
        const uint32_t rec = is.order == ReduceOrder::only_index ? 4 : is.order == ReduceOrder::only_value ? e : 2 * e;
        for (uint32_t i = 0; i < rec; ++i) written[i] = true;
      } else if (is.rop == ReduceOp::vcgadd) {
        for (uint32_t b = 0; b < 8; ++b) {
          for (uint32_t i = 0; i < e && block_on[b]; ++i) written[b * e + i] = true;
        }
      } else {
        for (uint32_t j = 0; j < epr / 2; ++j) {
          const bool w = lane_participates(is, r, repeats, 2 * j) || lane_participates(is, r, repeats, 2 * j + 1);
          for (uint32_t i = 0; i < e && w; ++i) written[j * e + i] = true;
        }
      }
      const int64_t start = is.op[0].base + r * is.op[0].rep;
      for (int64_t i = 0; i < 256; ++i) {
        if (!written[i]) continue;
        int64_t j = i;
        while (j < 256 && written[j]) ++j;
        s.dst[s.nd++] = Span{start + i, j - i};
        i = j;
      }
    }
  }
  const int64_t ub = kUb;
  auto inside = [ub](const Span& sp) { return sp.start >= 0 && sp.start + sp.len <= ub; };
  for (int64_t r = 0; r < repeats; ++r) {
    for (int a = 0; a < spans[r].nd; ++a) {
      if (!inside(spans[r].dst[a])) return Status::out_of_bounds;
    }
    for (int o = 0; o < 2; ++o) {
      for (int b = 0; b < spans[r].ns[o]; ++b) {
        if (!inside(spans[r].src[o][b])) return Status::out_of_bounds;
      }
    }
  }
  for (int64_t r = 0; r < repeats; ++r) {
    for (int a = 0; a < spans[r].nd; ++a) {
      if (spans[r].dst[a].start + spans[r].dst[a].len > kUbUsable) g_ref_reserved = true;
    }
    for (int o = 0; o < 2; ++o) {
      for (int b = 0; b < spans[r].ns[o]; ++b) {
        if (spans[r].src[o][b].start + spans[r].src[o][b].len > kUbUsable) g_ref_reserved = true;
      }
    }
  }
  auto meet = [](const Span& x, const Span& y) { return x.start < y.start + y.len && y.start < x.start + x.len; };
  for (int o = 0; o < is.nops - 1; ++o) {
    for (int64_t i = 0; i < repeats; ++i) {
      for (int a = 0; a < spans[i].nd; ++a) {
        const Span& d = spans[i].dst[a];
        for (int b = 0; b < spans[i].ns[o]; ++b) {  // same repeat: identical or disjoint
          const Span& s = spans[i].src[o][b];
          const bool identical = d.start == s.start && d.len == s.len;
          if (meet(d, s) && !identical) return Status::illegal_overlap;
        }
        if (o == 1 && is.acc_exempt) continue;
        for (int64_t j = i + 1; j < repeats; ++j) {  // later repeats: disjoint
          for (int b = 0; b < spans[j].ns[o]; ++b) {
            if (meet(d, spans[j].src[o][b])) return Status::illegal_overlap;
          }
        }
      }
    }
  }
  return Status::ok;
}

// ---- the generator --------------------------------------------------------------------------
Mask128 random_mask(Rng& g) {
  switch (g.below(6)) {
    case 0: return Mask128::all();
    case 1: return Mask128::continuous(g.below(129));
    case 2: return Mask128{g.next() & g.next(), g.next() & g.next()};
    case 3: {
      const uint32_t k = g.below(128);
      return k < 64 ? Mask128{0, uint64_t{1} << k} : Mask128{uint64_t{1} << (k - 64), 0};
    }
    case 4: return Mask128{g.next() & g.next() & g.next(), 0};
    default: return g.chance(30) ? Mask128::none() : Mask128{g.next(), g.next()};
  }
}

uint32_t random_offset(Rng& g, uint32_t region, uint32_t unit) {
  uint32_t off = region + g.below(40) * unit;
  if (g.chance(4)) off += 2 + 2 * g.below(7);  // sometimes misaligned
  return off;
}

struct Generated {
  RefIssue ref;
  DescReport fast;
  QuickVerdict quick{};  // desc::quick_valid's answer (element-wise kinds)
};

Generated generate(Rng& g) {
  Generated out;
  RefIssue& is = out.ref;
  is.kind = static_cast<int>(g.below(3));
  const bool b16 = g.chance(50);
  is.elem = b16 ? 2 : 4;
  const bool integer = is.kind == 0 && g.chance(30);
  is.dt = integer ? (b16 ? DType::i16 : DType::i32) : (b16 ? DType::f16 : DType::f32);
  const uint32_t epr = 256 / is.elem;
  is.count_mode = g.chance(25);
  if (is.count_mode) {
    is.count = 1 + g.below(5 * epr);
  } else {
    is.repeat = 1 + g.below(6);
    if (g.chance(20)) {
      is.repeat = 1;
      is.tail = 1 + g.below(epr);
    }
    is.live = random_mask(g);
  }
  // Low UB, straddling the reserved top's lower edge, or at the very end of UB.
  const uint32_t pick = g.below(4);
  const uint32_t region = pick < 2    ? 32 * g.below(32)
                          : pick == 2 ? tilefw::chip::a2a3::kUbUsableBytes - 1024 + 32 * g.below(32)
                                      : kUb - 2048 + 32 * g.below(32);
  const uint32_t dst_blk = 1 + g.below(3);
  const uint32_t blk[2] = {g.below(4), g.below(4)};
  uint32_t rep[3] = {g.below(11), g.below(11), g.below(11)};
  if (g.chance(15)) rep[0] = 0;
  if (g.chance(15)) rep[2] = 0;
  const MaskMode mode = is.count_mode ? MaskMode::count : MaskMode::normal;
  const uint32_t dst_off = is.kind == 2 ? region + g.below(300) * is.elem : random_offset(g, region, 32);
  const uint32_t s0 = random_offset(g, region, 32);
  const uint32_t s1 = g.chance(20) ? dst_off : random_offset(g, region, 32);
  const uint32_t s0b = g.chance(20) ? dst_off : s0;
  const uint32_t r_repeat = is.count_mode ? 0 : is.repeat;

  if (is.kind == 0) {
    BinIntrinsicDesc d{};
    d.op = static_cast<BinaryOp>(g.below(6));
    if (d.op == BinaryOp::vdiv && integer) d.op = BinaryOp::vadd;
    d.repeat = r_repeat;
    d.dst_block_stride = dst_blk;
    d.src0_block_stride = blk[0];
    d.src1_block_stride = blk[1];
    d.dst_repeat_stride = rep[0];
    d.src0_repeat_stride = rep[1];
    d.src1_repeat_stride = rep[2];
    d.mask_mode = mode;
    d.vector_count = is.count;
    d.tail_elements = is.tail;
    d.dst = ub(dst_off);
    d.src0 = ub(s0b);
    d.src1 = ub(s1);
    is.bop = d.op;
    is.nops = 3;
    is.op[0] = {dst_off, dst_blk, rep[0], 32};
    is.op[1] = {s0b, blk[0], rep[1], 32};
    is.op[2] = {s1, blk[1], rep[2], 32};
    const bool acc_op = d.op != BinaryOp::vdiv;
    const bool acc_dt = is.dt == DType::f16 || is.dt == DType::f32 || is.dt == DType::i32;
    is.acc_exempt = acc_op && acc_dt && (rep[2] == 0 || rep[0] == 0);
    out.fast = validate(d, is.dt, is.live);
    out.quick = quick_valid(d, is.dt, is.live);
  } else if (is.kind == 1) {
    UnaryDesc d{};
    d.op = UnaryOp::vabs;
    d.repeat = r_repeat;
    d.dst_block_stride = dst_blk;
    d.src_block_stride = blk[0];
    d.dst_repeat_stride = rep[0];
    d.src_repeat_stride = rep[1];
    d.mask_mode = mode;
    d.vector_count = is.count;
    d.tail_elements = is.tail;
    d.dst = ub(dst_off);
    d.src = ub(s0b);
    is.nops = 2;
    is.op[0] = {dst_off, dst_blk, rep[0], 32};
    is.op[1] = {s0b, blk[0], rep[1], 32};
    out.fast = validate(d, is.dt, is.live);
    out.quick = quick_valid(d, is.dt, is.live);
  } else {
    ReduceDesc d{};
    d.op = static_cast<ReduceOp>(g.below(5));
    d.order = static_cast<ReduceOrder>(g.below(4));
    d.repeat = r_repeat;
    d.src_block_stride = blk[0];
    d.dst_repeat_stride = g.below(3);
    d.src_repeat_stride = rep[1];
    d.mask_mode = mode;
    d.vector_count = is.count;
    d.tail_elements = is.tail;
    const uint32_t src_off = g.chance(30) ? (dst_off & ~31u) : s0;
    d.dst = ub(dst_off);
    d.src = ub(src_off);
    is.rop = d.op;
    is.order = d.order;
    const uint32_t e = is.elem;
    uint32_t unit = e;
    uint32_t align = e;
    switch (d.op) {
      case ReduceOp::vcadd: break;
      case ReduceOp::vcgadd: unit = 8 * e; align = 32; break;
      case ReduceOp::vcpadd: unit = 128; align = 32; break;
      default:
        unit = d.order == ReduceOrder::only_index ? 4 : d.order == ReduceOrder::only_value ? e : 2 * e;
        align = d.order == ReduceOrder::only_index ? 4 : e;
        break;
    }
    is.nops = 2;
    is.op[0] = {dst_off, 0, int64_t{d.dst_repeat_stride} * unit, align};
    is.op[1] = {src_off, blk[0], rep[1], 32};
    out.fast = validate(d, is.dt, is.live);
  }
  return out;
}

}  // namespace

TEST(DescBruteForce, FastValidatorMatchesReference) {
  Rng g;
  int mismatches = 0;
  int reserved_mismatches = 0;
  int quick_accepted = 0;
  int quick_wrong = 0;
  int quick_reserved = 0;
  int desc_failures = 0;
  int seen[5] = {0, 0, 0, 0, 0};  // ok, nop, misaligned, out_of_bounds, illegal_overlap
  for (int it = 0; it < kIterations; ++it) {
    const Generated x = generate(g);
    const Status want = reference(x.ref);
    if (x.fast.status != want) ++mismatches;
    // The fast acceptance path only ever accepts valid, non-NOP issues, with the exact
    // reserved-top flag (inside the top too, for the full-body shapes it computes exactly).
    if (x.quick) {
      ++quick_accepted;
      if (x.quick.touches_reserved_ub) ++quick_reserved;
      if (want != Status::ok || x.fast.nop || x.quick.touches_reserved_ub != g_ref_reserved ||
          x.quick.repeats != x.fast.repeats) {
        ++quick_wrong;
      }
    }
    // The reserved-UB diagnostic must be exact on every path.
    if (want == Status::ok && !x.fast.nop && x.fast.touches_reserved_ub != g_ref_reserved) ++reserved_mismatches;
    switch (x.fast.status) {
      case Status::ok: ++seen[x.fast.nop ? 1 : 0]; break;
      case Status::misaligned: ++seen[2]; break;
      case Status::out_of_bounds: ++seen[3]; break;
      case Status::illegal_overlap: ++seen[4]; break;
      default: ++desc_failures; break;
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(reserved_mismatches, 0);
  EXPECT_EQ(quick_wrong, 0);
  EXPECT_GT(quick_accepted, kIterations / 40);  // the fast path is really exercised
  EXPECT_GT(quick_reserved, kIterations / 800);  // ... also for issues reaching the reserved top
  EXPECT_EQ(desc_failures, 0);
  for (int k = 0; k < 5; ++k) EXPECT_GT(seen[k], kIterations / 50);
}
