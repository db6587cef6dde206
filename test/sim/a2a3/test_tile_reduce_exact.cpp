// Reductions and broadcasts on the simulated AI Core, bit for bit against scalar references
// written here: TROWSUM / TROWMAX / TROWMIN (docs/a2a3-vector-semantics.md section 8 step by step,
// and the four
// f32 fast paths of 4.3), TCOLSUM / TCOLMAX / TCOLMIN (rows combined in order, plan.hpp),
// TCOLEXPAND, TROWEXPAND and TROWEXPANDADD / SUB / MUL / DIV.
// Each case fills all of UB with random bytes and compares all of UB afterwards. Bytes that
// may change outside dst's valid region, as plan.hpp documents them, are exempt and named at
// each checker: tmp tiles (scratch, except where the header promises "tmp untouched"), the
// block tail of copied rows, and the broadcast slots of the row-expand family.
#include <gtest/gtest.h>

#include "tile_test_sim.hpp"

using namespace tile_test;

namespace {

enum class Red { sum, max, min };
const char* red_name(Red k) { return k == Red::sum ? "sum" : k == Red::max ? "max" : "min"; }

// One lane-wise combination in the dtype: f16 every result rounded to half (nearest even),
// f32 in float, i32 wrapping; NaN results canonical.
uint32_t comb(Red k, DType dt, uint32_t a, uint32_t b) {
  if (dt == DType::f16) {
    const long double x = h2ld(static_cast<uint16_t>(a)), y = h2ld(static_cast<uint16_t>(b));
    return ld2h(k == Red::sum ? x + y : k == Red::max ? ref_max(x, y) : ref_min(x, y));
  }
  if (dt == DType::f32) {
    const float x = f32_of(a), y = f32_of(b);
    return f32_bits(k == Red::sum ? x + y : k == Red::max ? ref_max(x, y) : ref_min(x, y));
  }
  const auto x = static_cast<int32_t>(a), y = static_cast<int32_t>(b);
  if (k == Red::sum) return a + b;
  return static_cast<uint32_t>(k == Red::max ? (x > y ? x : y) : (x < y ? x : y));
}

/// The vcadd tree over `lanes` (adjacent pairs, level by level; masked lanes already +0), or,
/// for max/min, vcmax/vcmin over the first `active` lanes (value only).
uint32_t repeat_reduce(Red k, DType dt, std::vector<uint32_t> lanes, uint32_t active) {
  if (k != Red::sum) {
    uint32_t best = lanes[0];
    for (uint32_t i = 1; i < active; ++i) best = comb(k, dt, best, lanes[i]);
    return comb(k, dt, best, best);  // canonical NaN also for a single lane (max(x, x) = x)
  }
  for (uint32_t i = active; i < lanes.size(); ++i) lanes[i] = 0;  // masked lanes count as +0
  for (size_t n = lanes.size(); n > 1; n /= 2) {
    for (size_t i = 0; i < n / 2; ++i) lanes[i] = comb(k, dt, lanes[2 * i], lanes[2 * i + 1]);
  }
  return lanes[0];
}

/// TROWSUM / TROWMAX / TROWMIN of one row, docs/a2a3-vector-semantics.md section 8 step by step.
uint32_t row_ref(Red k, DType dt, const std::vector<uint32_t>& x) {
  const uint32_t epr = dt == DType::f16 ? 128 : 64;
  const auto vc = static_cast<uint32_t>(x.size());
  auto chunk = [&](uint32_t i) { return std::vector<uint32_t>(x.begin() + i * epr, x.begin() + (i + 1) * epr); };
  if (vc <= epr) {  // A: one vcadd over the first vc lanes
    std::vector<uint32_t> lanes(epr, 0);
    std::copy(x.begin(), x.end(), lanes.begin());
    return repeat_reduce(k, dt, lanes, vc);
  }
  const uint32_t P = vc / epr, rem = vc % epr;
  std::vector<std::vector<uint32_t>> t(P / 2 > 1 ? P / 2 : 1, std::vector<uint32_t>(epr, 0));
  auto fold = [&](std::vector<uint32_t>& d, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                  uint32_t lanes) {
    for (uint32_t l = 0; l < lanes; ++l) d[l] = comb(k, dt, a[l], b[l]);
  };
  if (P == 1) t[0] = chunk(0);                                                 // 1: copy chunk 0
  for (uint32_t i = 0; i < P / 2; ++i) fold(t[i], chunk(2 * i), chunk(2 * i + 1), epr);  // 2: FillTmp
  if (P % 2 == 1 && P != 1) fold(t[0], t[0], chunk(P - 1), epr);              // 3: odd P
  if (rem > 0) {                                                               // 4: masked tail
    std::vector<uint32_t> tail(epr, 0);
    std::copy(x.begin() + P * epr, x.end(), tail.begin());
    fold(t[0], t[0], tail, rem);
  }
  for (uint32_t len = P / 2; len > 1; len /= 2) {  // 5: TmpProc
    for (uint32_t i = 0; i < len / 2; ++i) fold(t[i], t[2 * i], t[2 * i + 1], epr);
    if (len % 2 == 1) fold(t[len / 2 - 1], t[len / 2 - 1], t[len - 1], epr);  // leftover into len/2-1
  }
  return repeat_reduce(k, dt, t[0], epr);  // 6: vcadd over tmp_0
}

/// TROWSUM f32 fast paths (docs/a2a3-vector-semantics.md section 8): vcgadd trees of 8, vadd of
/// partial k and
/// k + 8, vcgadd again (16 x 512: vcgadd three times).
uint32_t fast_ref(const std::vector<uint32_t>& x) {
  auto add = [](uint32_t a, uint32_t b) { return comb(Red::sum, DType::f32, a, b); };
  auto tree8 = [&](const std::vector<uint32_t>& v, size_t at) {
    std::vector<uint32_t> l(v.begin() + static_cast<ptrdiff_t>(at), v.begin() + static_cast<ptrdiff_t>(at) + 8);
    return repeat_reduce(Red::sum, DType::f32, l, 8);
  };
  auto groups = [&](const std::vector<uint32_t>& v) {  // one vcgadd: a tree per 8 values
    std::vector<uint32_t> out(v.size() / 8);
    for (size_t i = 0; i < out.size(); ++i) out[i] = tree8(v, 8 * i);
    return out;
  };
  auto halves = [&](const std::vector<uint32_t>& v) {  // one vadd pass: block 2j + block 2j+1
    std::vector<uint32_t> out(v.size() / 2);
    for (size_t j = 0; j < out.size() / 8; ++j) {
      for (size_t l = 0; l < 8; ++l) out[8 * j + l] = add(v[16 * j + l], v[16 * j + 8 + l]);
    }
    return out;
  };
  std::vector<uint32_t> p = groups(x);
  switch (x.size()) {
    case 128: p = halves(p); break;          // 16 -> 8
    case 256: p = halves(halves(p)); break;  // 32 -> 16 -> 8
    case 512: p = groups(p); break;          // 64 -> 8
    default: p = halves(groups(p)); break;   // 1024: 128 -> 16 -> 8
  }
  return tree8(p, 0);
}

// Reduction inputs: full-precision mantissas over a moderate exponent range, so that nearly
// every addition rounds and a different association gives different bits (an inf or NaN would
// make every order agree). g_specials mixes in +-0, +-inf, NaN and subnormals for the cases
// that check those.
bool g_specials = false;

uint32_t gen_elem(DType dt, Rng& r) {
  if (g_specials && r.next() % 8 == 0) return dt == DType::f16 ? gen_f16(r) : gen_f32(r);
  if (dt == DType::f16) return (r.next() & 0x8000u) | ((9 + r.next() % 12) << 10) | (r.next() & 0x3FFu);
  if (dt == DType::f32) return (r.next() & 0x80000000u) | ((117 + r.next() % 20) << 23) | (r.next() & 0x7FFFFFu);
  return r.next() << 16 ^ r.next();
}

// ---- row reductions ------------------------------------------------------------------------
template <class D, class S, class T>
Result<tile::Event> row_call(Sim& s, Red k, const D& d, const S& src, const T& tmp) {
  switch (k) {
    case Red::sum: return tile::TROWSUM(s.core, d, src, tmp);
    case Red::max: return tile::TROWMAX(s.core, d, src, tmp);
    default: return tile::TROWMIN(s.core, d, src, tmp);
  }
}

struct RowResult {
  uint32_t issues = 0;
  bool fast_differs = false;  // some row's generic result differs from the fast-path one
};

/// src SR x SC (valid vr x vc), dst DR x DC in layout DL (valid vr x 1), tmp TR x TC; placed
/// dst, src, tmp in that order from UB 0. Checks all of UB; tmp is exempt unless the plan
/// header promises it untouched (vc <= EPR).
template <class T, int SR, int SC, int DR, int DC, BLayout DL, int TR, int TC>
RowResult check_row(Red k, uint32_t vr, uint32_t vc, uint64_t seed, bool expect_fast = false) {
  constexpr uint32_t e = sizeof(T);
  const DType dt = dtype_of<T>;
  const uint32_t epr = 256 / e;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, DR, DC, DL> d(vr, 1);
  VTile<T, SR, SC> src(vr, vc);
  VTile<T, TR, TC> tmp(TR, TC);
  const uint32_t src_off = align32(uint64_t{DR} * DC * e);
  const uint32_t tmp_off = src_off + align32(uint64_t{SR} * SC * e);
  EXPECT_EQ(tile::TASSIGN(d, 0), Status::ok);
  EXPECT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  EXPECT_EQ(tile::TASSIGN(tmp, tmp_off), Status::ok);
  std::vector<std::vector<uint32_t>> rows(vr, std::vector<uint32_t>(vc));
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      rows[r][c] = gen_elem(dt, rng);
      store_bits(s.ub(), src_off + (uint64_t{r} * SC + c) * e, e, rows[r][c]);
    }
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  RowResult out;
  auto res = row_call(s, k, d, src, tmp);
  EXPECT_TRUE(res.ok()) << red_name(k) << " " << dtype_name(dt) << " " << vr << "x" << vc << ": " << s.last_failure();
  if (!res.ok()) return out;
  out.issues = s.vector_issues();
  std::vector<uint8_t> want = before;
  for (uint32_t r = 0; r < vr; ++r) {
    const uint32_t generic = row_ref(k, dt, rows[r]);
    uint32_t v = generic;
    if (expect_fast) {
      v = fast_ref(rows[r]);
      out.fast_differs = out.fast_differs || v != generic;
    }
    const uint64_t at = DL == BLayout::ColMajor ? uint64_t{r} * e : uint64_t{r} * DC * e;
    store_bits(want.data(), at, e, v);
  }
  const bool tmp_untouched = vc <= epr && !expect_fast;
  const uint64_t tmp_end = tmp_off + uint64_t{TR} * TC * e;
  const std::string diff = first_difference(s.snapshot(chip::MemSpace::UB), want, [&](size_t i) {
    return tmp_untouched || i < tmp_off || i >= tmp_end;
  });
  EXPECT_EQ(diff, "") << "TROW" << red_name(k) << " " << dtype_name(dt) << " src " << SR << "x" << SC << " valid " << vr
                      << "x" << vc << " dst " << DR << "x" << DC << (DL == BLayout::ColMajor ? " DN" : " ND");
  EXPECT_EQ(s.hazard_count(), 0u);
  return out;
}

template <class T>
void row_cases(Red k, uint64_t seed) {
  constexpr int E = 256 / sizeof(T);  // lanes per repeat
  constexpr BLayout DN = BLayout::ColMajor;
  constexpr BLayout ND = BLayout::RowMajor;
  constexpr int NdCols = 32 / sizeof(T);  // a row-major dst of one block per row
  // A: vc < EPR (one masked vcadd, tmp untouched), vc == EPR (one counter-mode vcadd).
  check_row<T, 16, E, 16, 1, DN, 16, E>(k, 16, E / 2 + 5, seed);
  check_row<T, 16, E, 16, 1, DN, 16, E>(k, 16, 1, seed + 1);
  check_row<T, 32, E, 32, 1, DN, 16, E>(k, 32, E, seed + 2);
  check_row<T, 32, E, 32, NdCols, ND, 16, E>(k, 29, E, seed + 3);  // row-major dst: every NdCols-th element
  // B: P = 1 with a tail (chunk 0 copied into tmp), P = 2..6 with and without a tail.
  check_row<T, 16, 2 * E, 16, 1, DN, 16, E>(k, 16, E + E / 2 + 3, seed + 4);
  check_row<T, 16, 2 * E, 16, 1, DN, 16, E>(k, 16, E + 1, seed + 5);
  check_row<T, 16, 2 * E, 16, 1, DN, 16, E>(k, 16, 2 * E, seed + 6);
  check_row<T, 16, 3 * E, 16, 1, DN, 16, E>(k, 16, 2 * E + 7, seed + 7);
  check_row<T, 16, 3 * E, 16, 1, DN, 16, E>(k, 16, 3 * E, seed + 8);
  check_row<T, 16, 4 * E, 16, 1, DN, 16, 2 * E>(k, 16, 3 * E + 8, seed + 9);
  check_row<T, 16, 4 * E, 16, 1, DN, 16, 2 * E>(k, 16, 4 * E, seed + 10);
  check_row<T, 16, 5 * E, 16, 1, DN, 16, 2 * E>(k, 16, 4 * E + 9, seed + 11);
  check_row<T, 16, 5 * E, 16, 1, DN, 16, 2 * E>(k, 16, 5 * E, seed + 12);
  check_row<T, 16, 6 * E, 16, NdCols, ND, 16, 3 * E>(k, 15, 5 * E + 1, seed + 13);
  check_row<T, 16, 6 * E, 16, 1, DN, 16, 3 * E>(k, 16, 6 * E, seed + 14);
  check_row<T, 8, 7 * E, 16, 1, DN, 8, 3 * E>(k, 8, 7 * E - 8, seed + 15);  // P = 6 + tail, dst rows > valid
  check_row<T, 4, 12 * E, 16, 1, DN, 4, 6 * E>(k, 4, 11 * E + 5, seed + 16);  // P = 11: TmpProc len 5 -> 2 -> 1
  // Non-contiguous src (vc < Cols) in case B, and a larger tmp than needed.
  check_row<T, 8, 4 * E, 16, 1, DN, 8, 4 * E>(k, 5, 2 * E + 3, seed + 17);
}

}  // namespace

TEST(TileExactRowReduce, F32SumMaxMinEveryCase) {
  row_cases<float>(Red::sum, 1);
  row_cases<float>(Red::max, 101);
  row_cases<float>(Red::min, 201);
}

TEST(TileExactRowReduce, F16SumMaxMinEveryCase) {
  row_cases<half>(Red::sum, 301);
  row_cases<half>(Red::max, 401);
  row_cases<half>(Red::min, 501);
}

// Inf, NaN (canonical in the result), signed zeros and subnormals through every step.
TEST(TileExactRowReduce, SpecialValues) {
  g_specials = true;
  for (Red k : {Red::sum, Red::max, Red::min}) {
    check_row<float, 8, 64, 8, 1, BLayout::ColMajor, 8, 64>(k, 8, 40, 900 + static_cast<int>(k));
    check_row<float, 8, 256, 8, 1, BLayout::ColMajor, 8, 128>(k, 8, 200, 910 + static_cast<int>(k));
    check_row<half, 16, 128, 16, 1, BLayout::ColMajor, 16, 128>(k, 16, 100, 920 + static_cast<int>(k));
    check_row<half, 16, 512, 16, 1, BLayout::ColMajor, 16, 256>(k, 16, 300, 930 + static_cast<int>(k));
  }
  g_specials = false;
}

TEST(TileExactRowReduce, RowsAbove255) {
  for (Red k : {Red::sum, Red::max, Red::min}) {
    const uint64_t s = 1000 + static_cast<int>(k) * 10;
    check_row<float, 300, 40, 304, 1, BLayout::ColMajor, 8, 8>(k, 300, 37, s);       // masked vcadd: 255 + 45 rows
    check_row<float, 300, 64, 304, 1, BLayout::ColMajor, 8, 8>(k, 300, 64, s + 1);   // counter mode over 300 rows
    check_row<float, 260, 104, 264, 1, BLayout::ColMajor, 260, 64>(k, 260, 100, s + 2);  // P = 1, tail split 255 + 5
    check_row<half, 300, 144, 304, 1, BLayout::ColMajor, 300, 128>(k, 300, 144, s + 3);   // P = 1 + 16-lane tail
  }
}

// A src row of 2048 f32 (256 blocks) exceeds the binary repeat-stride field: the FillTmp and
// tail vadds fall back to one repeat-1 issue per row; results are unchanged in value.
TEST(TileExactRowReduce, SrcRowStrideAboveTheBinaryField) {
  for (Red k : {Red::sum, Red::max, Red::min}) {
    check_row<float, 4, 2048, 8, 1, BLayout::ColMajor, 4, 128>(k, 4, 300, 2000 + static_cast<int>(k));
    check_row<float, 4, 2048, 8, 1, BLayout::ColMajor, 4, 1024>(k, 3, 2048, 2010 + static_cast<int>(k));
  }
}

TEST(TileExactRowReduce, DynamicValidSizesOnOneTileType) {
  Rng r(77);
  for (int i = 0; i < 40; ++i) {
    const uint32_t vr = r.in(1, 16), vc = r.in(1, 512);
    check_row<float, 16, 512, 16, 1, BLayout::ColMajor, 16, 256>(Red::sum, vr, vc, 3000 + i);
    check_row<half, 16, 512, 16, 1, BLayout::ColMajor, 16, 256>(Red::max, vr, vc, 3100 + i);
  }
}

// The four f32 shapes with an Nx1 col-major dst take PTO's fast path (a different
// association); the same shapes with a row-major dst, and TROWMAX, take the generic one.
TEST(TileExactRowReduce, F32FastPathShapes) {
  constexpr BLayout DN = BLayout::ColMajor;
  RowResult r = check_row<float, 64, 128, 64, 1, DN, 64, 16>(Red::sum, 64, 128, 4000, true);
  EXPECT_EQ(r.issues, 3u);  // vcgadd, vadd, vcgadd
  EXPECT_TRUE(r.fast_differs);
  r = check_row<float, 32, 256, 32, 1, DN, 32, 32>(Red::sum, 32, 256, 4001, true);
  EXPECT_EQ(r.issues, 4u);  // vcgadd, vadd, vadd, vcgadd
  EXPECT_TRUE(r.fast_differs);
  r = check_row<float, 16, 512, 16, 1, DN, 16, 64>(Red::sum, 16, 512, 4002, true);
  EXPECT_EQ(r.issues, 3u);  // vcgadd x 3
  EXPECT_TRUE(r.fast_differs);
  r = check_row<float, 8, 1024, 8, 1, DN, 8, 128>(Red::sum, 8, 1024, 4003, true);
  EXPECT_EQ(r.issues, 4u);  // vcgadd, vcgadd, vadd, vcgadd
  EXPECT_TRUE(r.fast_differs);
  // Not the fast path: row-major dst, a partial valid region, TROWMAX.
  check_row<float, 64, 128, 64, 8, BLayout::RowMajor, 64, 64>(Red::sum, 64, 128, 4004);
  check_row<float, 64, 128, 64, 1, DN, 64, 64>(Red::sum, 63, 128, 4005);
  check_row<float, 64, 128, 64, 1, DN, 64, 64>(Red::max, 64, 128, 4006);
}

TEST(TileExactPinned, F32_64x64_TrowsumIsOneCounterModeVcaddAndLeavesTmpUntouched) {
  Sim s;
  Tile<TileType::Vec, float, 64, 64> src, tmp;
  Tile<TileType::Vec, float, 64, 1, BLayout::ColMajor> dst;
  tile::TASSIGN<0x0>(src);
  tile::TASSIGN<0x4000>(tmp);
  tile::TASSIGN<0x8000>(dst);
  for (uint32_t i = 0; i < 64 * 64; ++i) {
    store_bits(s.ub(), 4 * i, 4, bits_of(static_cast<float>(i % 97) * 0.25f));
    store_bits(s.ub(), 0x4000 + 4 * i, 4, 0xA5A50000u | i);  // pattern
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  auto r = tile::TROWSUM(s.core, dst, src, tmp);
  ASSERT_TRUE(r.ok()) << s.last_failure();
  EXPECT_EQ(r.value().seq, 1u);
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_EQ(s.issues[0].op & 0xFFu, a2a3::vreg::kOpClassReduce | 0u);  // vcadd
  EXPECT_TRUE(s.issues[0].counter());
  EXPECT_EQ(s.issues[0].mask_lo, 64u * 64u);
  const std::vector<uint8_t> after = s.snapshot(chip::MemSpace::UB);
  EXPECT_TRUE(std::equal(after.begin() + 0x4000, after.begin() + 0x8000, before.begin() + 0x4000));
  for (uint32_t row = 0; row < 64; ++row) {
    std::vector<uint32_t> lanes(64);
    for (uint32_t c = 0; c < 64; ++c) lanes[c] = load_bits(before.data(), (row * 64 + c) * 4, 4);
    EXPECT_EQ(load_bits(after.data(), 0x8000 + row * 4, 4), repeat_reduce(Red::sum, DType::f32, lanes, 64)) << row;
  }
}

// ---- column reductions and TCOLEXPAND -------------------------------------------------------
namespace {

/// src SR x SC (valid vr x vc) -> dst 1 x DC (valid 1 x vc). TCOLSUM also gets a tmp, which
/// must stay untouched ("accepted and not used"). Exempt: dst row 0 bytes from vc to the end
/// of its 32 B block (row 0 is copied in whole blocks: unspecified bytes, plan.hpp).
template <class T, int SR, int SC, int DC>
void check_col(Red k, uint32_t vr, uint32_t vc, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  const DType dt = dtype_of<T>;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, 1, DC> d(1, vc);
  VTile<T, SR, SC> src(vr, vc);
  VTile<T, 8, 64> tmp(8, 64);
  const uint32_t src_off = align32(uint64_t{DC} * e);
  const uint32_t tmp_off = src_off + align32(uint64_t{SR} * SC * e);
  ASSERT_EQ(tile::TASSIGN(d, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(tmp, tmp_off), Status::ok);
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) store_bits(s.ub(), src_off + (uint64_t{r} * SC + c) * e, e, gen_elem(dt, rng));
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  Result<tile::Event> res = k == Red::sum ? tile::TCOLSUM(s.core, d, src, tmp)
                            : k == Red::max ? tile::TCOLMAX(s.core, d, src)
                                            : tile::TCOLMIN(s.core, d, src);
  ASSERT_TRUE(res.ok()) << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t c = 0; c < vc; ++c) {
    uint32_t acc = load_bits(before.data(), src_off + c * e, e);
    for (uint32_t r = 1; r < vr; ++r) acc = comb(k, dt, acc, load_bits(before.data(), src_off + (uint64_t{r} * SC + c) * e, e));
    store_bits(want.data(), c * e, e, acc);
  }
  const uint32_t tail_end = align32(uint64_t{vc} * e);
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want,
                             [&](size_t i) { return i < vc * e || i >= tail_end; }),
            "")
      << "TCOL" << red_name(k) << " " << dtype_name(dt) << " " << vr << "x" << vc;
}

template <class T>
void col_cases(Red k, uint64_t seed) {
  constexpr int E = 256 / sizeof(T);
  check_col<T, 16, E, E>(k, 16, E, seed);                   // one full chunk
  check_col<T, 16, 2 * E, 2 * E>(k, 13, E + E / 2 + 1, seed + 1);  // full chunk + masked tail
  check_col<T, 8, 3 * E, 3 * E>(k, 1, 3 * E - 5, seed + 2);  // one row: only the copy
  check_col<T, 300, 32 / sizeof(T) * 2, 32 / sizeof(T) * 2>(k, 300, 5, seed + 3);  // 299 rows: 255 + 44
  check_col<T, 4, 8192 / sizeof(T), 8192 / sizeof(T)>(k, 4, 100, seed + 4);  // src row 256 blocks: per row
}

}  // namespace

TEST(TileExactColReduce, SumMaxMinF32F16I32) {
  for (Red k : {Red::sum, Red::max, Red::min}) {
    col_cases<float>(k, 10 + static_cast<int>(k) * 10);
    col_cases<half>(k, 40 + static_cast<int>(k) * 10);
    col_cases<int32_t>(k, 70 + static_cast<int>(k) * 10);
  }
  g_specials = true;  // inf, NaN, signed zeros, subnormals
  for (Red k : {Red::sum, Red::max, Red::min}) {
    col_cases<float>(k, 110 + static_cast<int>(k) * 10);
    col_cases<half>(k, 140 + static_cast<int>(k) * 10);
  }
  g_specials = false;
}

namespace {
/// dst DR x DC (valid vr x vc) = row 0 of src (valid 1.. x vc). Exempt: bytes of valid rows
/// from vc to the end of their 32 B block (whole-block copies).
template <class T, int DR, int DC>
void check_colexpand(uint32_t vr, uint32_t vc, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  Sim s;
  s.fill_ub(seed);
  VTile<T, DR, DC> d(vr, vc);
  VTile<T, 2, DC> src(2, vc);
  const uint32_t src_off = align32(uint64_t{DR} * DC * e);
  ASSERT_EQ(tile::TASSIGN(d, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  ASSERT_TRUE(tile::TCOLEXPAND(s.core, d, src).ok()) << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t r = 0; r < vr; ++r) {
    std::memcpy(want.data() + uint64_t{r} * DC * e, before.data() + src_off, uint64_t{vc} * e);
  }
  const uint32_t tail_end = align32(uint64_t{vc} * e);
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want,
                             [&](size_t i) {
                               const uint64_t row = i / (DC * e), col = i % (DC * e);
                               return row >= vr || col < vc * e || col >= tail_end;
                             }),
            "")
      << "TCOLEXPAND " << dtype_name(dtype_of<T>) << " " << vr << "x" << vc;
}
}  // namespace

TEST(TileExactColExpand, Every16And32BitType) {
  check_colexpand<float, 64, 64>(64, 64, 1);
  check_colexpand<float, 37, 128>(37, 100, 2);  // 37 rows: doubling copies 1, 2, 4, 8, 16, 5
  check_colexpand<int32_t, 300, 8>(300, 3, 3);
  check_colexpand<half, 16, 256>(9, 200, 4);
  check_colexpand<int16_t, 5, 16>(5, 16, 5);
  check_colexpand<uint16_t, 3, 32>(1, 17, 6);
  check_colexpand<bf16, 8, 16>(8, 1, 7);
  check_colexpand<uint32_t, 2, 8>(2, 8, 8);
}

// ---- row broadcast: TROWEXPAND, TROWEXPANDADD / SUB / MUL / DIV -----------------------------
namespace {

enum class RowX { expand, add, sub, mul, div };
const char* rowx_name(RowX op) {
  static constexpr const char* kNames[] = {"TROWEXPAND", "TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL",
                                           "TROWEXPANDDIV"};
  return kNames[static_cast<int>(op)];
}

uint32_t rowx_ref(RowX op, DType dt, uint32_t a, uint32_t v) {
  if (op == RowX::expand) return v;
  if (dt == DType::f16) {
    const long double x = h2ld(static_cast<uint16_t>(a)), y = h2ld(static_cast<uint16_t>(v));
    return ld2h(op == RowX::add ? x + y : op == RowX::sub ? x - y : op == RowX::mul ? x * y : x / y);
  }
  const float x = f32_of(a), y = f32_of(v);
  return f32_bits(op == RowX::add ? x + y : op == RowX::sub ? x - y : op == RowX::mul ? x * y : x / y);
}

template <class D, class A, class V, class T>
Result<tile::Event> rowx_call(Sim& s, RowX op, bool with_tmp, const D& d, const A& a, const V& v, const T& t) {
  tile::Core& c = s.core;
  if (with_tmp) {
    switch (op) {
      case RowX::expand: return tile::TROWEXPAND_TMP(c, d, v, t);
      case RowX::add: return tile::TROWEXPANDADD_TMP(c, d, a, v, t);
      case RowX::sub: return tile::TROWEXPANDSUB_TMP(c, d, a, v, t);
      case RowX::mul: return tile::TROWEXPANDMUL_TMP(c, d, a, v, t);
      default: return tile::TROWEXPANDDIV_TMP(c, d, a, v, t);
    }
  }
  switch (op) {
    case RowX::expand: return tile::TROWEXPAND(c, d, v);
    case RowX::add: return tile::TROWEXPANDADD(c, d, a, v);
    case RowX::sub: return tile::TROWEXPANDSUB(c, d, a, v);
    case RowX::mul: return tile::TROWEXPANDMUL(c, d, a, v);
    default: return tile::TROWEXPANDDIV(c, d, a, v);
  }
}

enum class Slots { dst, tmp };

/// dst DR x DC (valid vr x vc) = a op v (a: DR x DC beside dst, or dst itself when in_place);
/// v: VR x VC in layout VL (valid vr x 1); tmp TR x TC when with_tmp. `slots` says where the
/// plan keeps the broadcast blocks (plan.hpp) and so what may change outside the valid region:
/// slots in dst: block 0 of rows vr .. round8(vr) - 1 (v col-major), and of valid rows the
/// bytes from vc to the end of the first block (v col-major) or of the first 8 blocks
/// (v row-major: vbrcb writes a whole repeat per row); TROWEXPAND's doubling copies also fill
/// up to the end of the block holding column vc - 1. Slots in tmp: only that block tail.
template <class T, int DR, int DC, int VR, int VC, BLayout VL, int TR = 8, int TC = 64>
void check_rowx(RowX op, uint32_t vr, uint32_t vc, bool in_place, bool with_tmp, Slots slots, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  const DType dt = dtype_of<T>;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, DR, DC> d(vr, vc);
  VTile<T, DR, DC> a(vr, vc);
  VTile<T, VR, VC, VL> v(vr, 1);
  VTile<T, TR, TC> tmp(TR, TC);
  const uint32_t a_off = in_place ? 0 : align32(uint64_t{DR} * DC * e);
  const uint32_t v_off = align32(uint64_t{DR} * DC * e) * (in_place ? 1 : 2);
  const uint32_t tmp_off = v_off + align32(uint64_t{VR} * VC * e);
  EXPECT_EQ(tile::TASSIGN(d, 0), Status::ok);
  EXPECT_EQ(tile::TASSIGN(a, a_off), Status::ok);
  EXPECT_EQ(tile::TASSIGN(v, v_off), Status::ok);
  EXPECT_EQ(tile::TASSIGN(tmp, tmp_off), Status::ok);
  auto v_at = [&](uint32_t r) { return v_off + (VL == BLayout::ColMajor ? uint64_t{r} * e : uint64_t{r} * VC * e); };
  for (uint32_t r = 0; r < vr; ++r) {
    store_bits(s.ub(), v_at(r), e, gen_elem(dt, rng));
    for (uint32_t c = 0; c < vc; ++c) store_bits(s.ub(), a_off + (uint64_t{r} * DC + c) * e, e, gen_elem(dt, rng));
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  auto res = rowx_call(s, op, with_tmp, d, a, v, tmp);
  ASSERT_TRUE(res.ok()) << rowx_name(op) << " " << dtype_name(dt) << " " << vr << "x" << vc << ": " << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t r = 0; r < vr; ++r) {
    const uint32_t y = load_bits(before.data(), v_at(r), e);
    for (uint32_t c = 0; c < vc; ++c) {
      const uint32_t x = load_bits(before.data(), a_off + (uint64_t{r} * DC + c) * e, e);
      store_bits(want.data(), (uint64_t{r} * DC + c) * e, e, rowx_ref(op, dt, x, y));
    }
  }
  const uint64_t row_bytes = uint64_t{DC} * e;
  const uint64_t vend = uint64_t{vc} * e;
  uint64_t tail_end = align32(vend);
  uint32_t extra_rows = 0;
  if (slots == Slots::dst) {
    tail_end = std::max<uint64_t>(tail_end, VL == BLayout::ColMajor ? 32 : 256);
    if (VL == BLayout::ColMajor) extra_rows = (vr + 7) / 8 * 8 - vr;
  }
  const uint64_t dst_end = uint64_t{DR} * row_bytes;
  const std::string diff = first_difference(s.snapshot(chip::MemSpace::UB), want, [&](size_t i) {
    if (with_tmp && i >= tmp_off && i < tmp_off + uint64_t{TR} * TC * e) return false;  // scratch
    if (i >= dst_end) return true;
    const uint64_t row = i / row_bytes, col = i % row_bytes;
    if (row < vr) return col < vend || col >= tail_end;
    return !(row < vr + extra_rows && col < 32);
  });
  EXPECT_EQ(diff, "") << rowx_name(op) << " " << dtype_name(dt) << " dst " << DR << "x" << DC << " valid " << vr << "x"
                      << vc << (VL == BLayout::ColMajor ? " v DN" : " v ND") << (in_place ? " in place" : "")
                      << (with_tmp ? " tmp" : "");
  EXPECT_EQ(s.hazard_count(), 0u);
}

template <class T>
void rowx_cases(RowX op, uint64_t seed) {
  constexpr int E = 256 / sizeof(T);
  constexpr int B = 32 / sizeof(T);  // elements per block
  constexpr BLayout DN = BLayout::ColMajor, ND = BLayout::RowMajor;
  // Slots in dst: a col-major v, dst rows a multiple of 8; a row-major v, dst rows of 8 blocks.
  check_rowx<T, 64, E, 64, 1, DN>(op, 64, E, false, false, Slots::dst, seed);
  check_rowx<T, 16, 2 * E, 16, 1, DN>(op, 11, E + 3, false, false, Slots::dst, seed + 1);  // tail + full chunk
  check_rowx<T, 16, E, 16, B, ND>(op, 16, E / 2 + 1, false, false, Slots::dst, seed + 2);
  check_rowx<T, 304, E, 304, 1, DN>(op, 300, 7, false, false, Slots::dst, seed + 3);  // rows split at 255
  // Slots in tmp: in place (dst == a), dst rows not a multiple of 8, short dst rows for a
  // row-major v.
  if (op != RowX::expand) check_rowx<T, 16, 2 * E, 16, 1, DN>(op, 16, 2 * E - 1, true, true, Slots::tmp, seed + 4);
  check_rowx<T, 12, E, 16, 1, DN>(op, 12, E, false, true, Slots::tmp, seed + 5);
  check_rowx<T, 16, 2 * B, 16, B, ND, 16, E>(op, 13, 2 * B - 1, false, true, Slots::tmp, seed + 6);
}

}  // namespace

TEST(TileExactRowExpand, F32AllOpsBothVectorLayoutsWithAndWithoutTmp) {
  for (RowX op : {RowX::expand, RowX::add, RowX::sub, RowX::mul, RowX::div}) rowx_cases<float>(op, 10 * static_cast<int>(op) + 1);
}

TEST(TileExactRowExpand, F16AllOpsBothVectorLayoutsWithAndWithoutTmp) {
  for (RowX op : {RowX::expand, RowX::add, RowX::sub, RowX::mul, RowX::div}) rowx_cases<half>(op, 10 * static_cast<int>(op) + 101);
}

// Long vectors: more than 255 (f32) / 254 (f16, split at an even repeat so the next piece's
// source stays 32 B aligned) vbrcb repeats; and dst rows of 256 blocks (beyond the binary
// repeat-stride field: one issue per row).
TEST(TileExactRowExpand, BroadcastSplitsAndStrideFallback) {
  constexpr BLayout DN = BLayout::ColMajor;
  check_rowx<float, 2048, 8, 2048, 1, DN>(RowX::add, 2048, 8, false, false, Slots::dst, 1);   // 256 repeats
  check_rowx<float, 2048, 8, 2048, 1, DN>(RowX::expand, 2045, 5, false, false, Slots::dst, 2);
  check_rowx<half, 2048, 16, 2048, 1, DN>(RowX::mul, 2040, 16, false, false, Slots::dst, 3);  // 255 repeats
  check_rowx<half, 2048, 16, 2048, 1, DN>(RowX::expand, 2048, 9, false, false, Slots::dst, 4);
  check_rowx<float, 8, 2048, 8, 1, DN>(RowX::sub, 8, 2000, false, false, Slots::dst, 5);
  check_rowx<half, 8, 4096, 16, 1, DN>(RowX::div, 7, 4000, false, false, Slots::dst, 6);
}

TEST(TileExactRowExpand, WithoutRoomForTheSlotsAndNoTmpNothingIsIssued) {
  Sim s;
  Tile<TileType::Vec, float, 12, 64> d, a;  // 12 rows: the slots need round8(12) = 16
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 12, 1> v12;
  tile::TASSIGN<0x0>(d);
  tile::TASSIGN<0x2000>(a);
  tile::TASSIGN<0x1000>(v12);
  EXPECT_EQ(tile::TROWEXPANDADD(s.core, d, a, v12).status(), Status::plan_tmp_too_small);
  EXPECT_EQ(tile::TROWEXPAND(s.core, d, v12).status(), Status::plan_tmp_too_small);
  EXPECT_EQ(s.vector_issues(), 0u);
}
