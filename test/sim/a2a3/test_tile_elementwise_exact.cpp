// Elementwise tile instructions on the simulated AI Core, bit for bit against a scalar
// reference written here (tile_test_sim.hpp): TADD TSUB TMUL TDIV TMAX TMIN, TADDS TMULS TMAXS
// TMINS, TABS TEXP TLOG TSQRT TRSQRT TRECIP TRELU, TEXPANDS and TCVT, over every path of the
// elementwise scheduler (plan.hpp): contiguous normal / masked / counter mode, rows split at
// 255, row-repeat with head and tail chunks, per-row fallbacks, operands with different Cols,
// dynamic valid regions. Every case fills all of UB with random bytes first and then compares
// all of UB: the valid region of dst must hold the reference, every other byte (the rest of
// dst's capacity included: the plan header's streams mask every issue to the valid lanes) must
// be unchanged. Also pins the reference plans (PTO's a2a3 streams, docs/a2a3-tile-model.md
// section 8.1) through the tile API.
#include <gtest/gtest.h>

#include "tile_test_sim.hpp"

using namespace tile_test;

namespace {

enum class Op { TADD, TSUB, TMUL, TDIV, TMAX, TMIN, TADDS, TMULS, TMAXS, TMINS,
                TABS, TEXP, TLOG, TSQRT, TRSQRT, TRECIP, TRELU };
constexpr Op kAllOps[] = {Op::TADD, Op::TSUB, Op::TMUL, Op::TDIV, Op::TMAX, Op::TMIN, Op::TADDS, Op::TMULS,
                          Op::TMAXS, Op::TMINS, Op::TABS, Op::TEXP, Op::TLOG, Op::TSQRT, Op::TRSQRT,
                          Op::TRECIP, Op::TRELU};
constexpr const char* kOpNames[] = {"TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TADDS", "TMULS", "TMAXS",
                                    "TMINS", "TABS", "TEXP", "TLOG", "TSQRT", "TRSQRT", "TRECIP", "TRELU"};
const char* name(Op op) { return kOpNames[static_cast<int>(op)]; }
bool is_binary(Op op) { return op <= Op::TMIN; }
bool is_scalar(Op op) { return op >= Op::TADDS && op <= Op::TMINS; }
int arith(Op op) {  // 0 add 1 sub 2 mul 3 div 4 max 5 min for binary and scalar ops
  static constexpr int kScalar[] = {0, 2, 4, 5};
  return is_binary(op) ? static_cast<int>(op) : kScalar[static_cast<int>(op) - static_cast<int>(Op::TADDS)];
}

// Which (op, dtype) pairs a2a3 has (docs/a2a3-vector-semantics.md section 6.1).
bool supported(Op op, DType dt) {
  const bool f = dt == DType::f16 || dt == DType::f32;
  if (op == Op::TDIV) return f;
  if (is_binary(op) || is_scalar(op)) return true;
  if (op == Op::TRELU) return f || dt == DType::i32;
  return f;
}

// ---- the reference -------------------------------------------------------------------------
long double unary_ld(Op op, long double x) {
  switch (op) {
    case Op::TABS: return std::fabs(x);
    case Op::TEXP: return std::exp(x);
    case Op::TLOG: return std::log(x);
    case Op::TSQRT: return std::sqrt(x);
    case Op::TRSQRT: return 1.0L / std::sqrt(x);
    case Op::TRECIP: return 1.0L / x;
    default: return x != x ? x : (x > 0 ? x : 0.0L);  // TRELU
  }
}

template <class F>
F arith_f(int k, F a, F b) {
  switch (k) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return ref_max(a, b);
    default: return ref_min(a, b);
  }
}

/// Expected result bits of one lane: `a` the src0 element, `b` the src1 element or the scalar.
uint32_t ref_lane(Op op, DType dt, uint32_t a, uint32_t b) {
  if (dt == DType::f32) {
    const float x = f32_of(a);
    if (is_binary(op) || is_scalar(op)) return f32_bits(arith_f(arith(op), x, f32_of(b)));
    if (op == Op::TABS || op == Op::TRELU || op == Op::TSQRT || op == Op::TRECIP) {
      // Exact or correctly rounded in float itself.
      switch (op) {
        case Op::TABS: return f32_bits(std::fabs(x));
        case Op::TSQRT: return f32_bits(std::sqrt(x));
        case Op::TRECIP: return f32_bits(1.0f / x);
        default: return f32_bits(x != x ? x : (x > 0 ? x : 0.0f));
      }
    }
    // Transcendentals: correctly rounded (Rule: correctly rounded transcendentals): compute in
    // long double and round once.
    return f32_bits(static_cast<float>(unary_ld(op, static_cast<long double>(x))));
  }
  if (dt == DType::f16) {
    const long double x = h2ld(static_cast<uint16_t>(a));
    if (is_binary(op) || is_scalar(op)) return ld2h(arith_f(arith(op), x, h2ld(static_cast<uint16_t>(b))));
    return ld2h(unary_ld(op, x));
  }
  // Integers: two's-complement wrap (Rule: integer wrap).
  const bool b16 = dt == DType::i16;
  const int64_t x = b16 ? static_cast<int16_t>(a) : static_cast<int32_t>(a);
  const int64_t y = b16 ? static_cast<int16_t>(b) : static_cast<int32_t>(b);
  int64_t r = 0;
  if (op == Op::TRELU) {
    r = x > 0 ? x : 0;
  } else {
    switch (arith(op)) {
      case 0: r = x + y; break;
      case 1: r = x - y; break;
      case 2: r = x * y; break;
      case 4: r = x > y ? x : y; break;
      default: r = x < y ? x : y; break;
    }
  }
  return b16 ? static_cast<uint16_t>(r) : static_cast<uint32_t>(r);
}

template <class T>
uint32_t gen(Rng& r) {
  if constexpr (std::is_same_v<T, float>) return gen_f32(r);
  else if constexpr (std::is_same_v<T, half>) return gen_f16(r);
  else if constexpr (std::is_same_v<T, int16_t>) return r.next() % 4 == 0 ? r.next() % 200 - 100 + 0x10000u : r.next() & 0xFFFFu;
  else return r.next() % 4 == 0 ? static_cast<uint32_t>(static_cast<int32_t>(r.next() % 2001) - 1000) : r.next() << 16 ^ r.next();
}

template <class T>
T from_bits(uint32_t b) {
  if constexpr (std::is_same_v<T, half>) return half{static_cast<uint16_t>(b)};
  else if constexpr (std::is_same_v<T, bf16>) return bf16{static_cast<uint16_t>(b)};
  else if constexpr (std::is_same_v<T, float>) return f32_of(b);
  else return static_cast<T>(b);
}

// ---- one case ------------------------------------------------------------------------------
template <class D, class A, class B, class T>
Result<tile::Event> call(Sim& s, Op op, const D& d, const A& a, const B& b, T scalar) {
  tile::Core& c = s.core;
  switch (op) {
    case Op::TADD: return tile::TADD(c, d, a, b);
    case Op::TSUB: return tile::TSUB(c, d, a, b);
    case Op::TMUL: return tile::TMUL(c, d, a, b);
    case Op::TDIV: return tile::TDIV(c, d, a, b);
    case Op::TMAX: return tile::TMAX(c, d, a, b);
    case Op::TMIN: return tile::TMIN(c, d, a, b);
    case Op::TADDS: return tile::TADDS(c, d, a, scalar);
    case Op::TMULS: return tile::TMULS(c, d, a, scalar);
    case Op::TMAXS: return tile::TMAXS(c, d, a, scalar);
    case Op::TMINS: return tile::TMINS(c, d, a, scalar);
    case Op::TABS: return tile::TABS(c, d, a);
    case Op::TEXP: return tile::TEXP(c, d, a);
    case Op::TLOG: return tile::TLOG(c, d, a);
    case Op::TSQRT: return tile::TSQRT(c, d, a);
    case Op::TRSQRT: return tile::TRSQRT(c, d, a);
    case Op::TRECIP: return tile::TRECIP(c, d, a);
    case Op::TRELU: return tile::TRELU(c, d, a);
  }
  return Status::invalid_argument;
}

struct Placement {
  uint32_t dst = 0, a = 0, b = 0;
};

/// Runs `op` on dst (DR x DC), a (AR x AC), b (BR x BC) with valid region vr x vc, placed at
/// `at`, and checks all of UB. Returns the number of vector issues the instruction took.
template <class T, int DR, int DC, int AR = DR, int AC = DC, int BR = DR, int BC = DC>
uint32_t check_case(Op op, uint32_t vr, uint32_t vc, Placement at, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  const DType dt = dtype_of<T>;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, DR, DC> d(vr, vc);
  VTile<T, AR, AC> a(vr, vc);
  VTile<T, BR, BC> b(vr, vc);
  EXPECT_EQ(tile::TASSIGN(d, at.dst), Status::ok);
  EXPECT_EQ(tile::TASSIGN(a, at.a), Status::ok);
  EXPECT_EQ(tile::TASSIGN(b, at.b), Status::ok);
  uint8_t* ub = s.ub();
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      store_bits(ub, at.a + (uint64_t{r} * AC + c) * e, e, gen<T>(rng));
      if (is_binary(op)) store_bits(ub, at.b + (uint64_t{r} * BC + c) * e, e, gen<T>(rng));
    }
  }
  const uint32_t scalar = gen<T>(rng);
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  auto res = call(s, op, d, a, b, from_bits<T>(scalar));
  EXPECT_TRUE(res.ok()) << name(op) << " " << dtype_name(dt) << " " << vr << "x" << vc << ": " << s.last_failure();
  if (!res.ok()) return 0;
  EXPECT_EQ(res.value().pipe, tile::Pipe::V);
  EXPECT_EQ(res.value().seq, s.vector_issues());
  std::vector<uint8_t> want = before;
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      const uint32_t x = load_bits(before.data(), at.a + (uint64_t{r} * AC + c) * e, e);
      const uint32_t y = is_binary(op) ? load_bits(before.data(), at.b + (uint64_t{r} * BC + c) * e, e) : scalar;
      store_bits(want.data(), at.dst + (uint64_t{r} * DC + c) * e, e, ref_lane(op, dt, x, y));
    }
  }
  const std::string diff = first_difference(s.snapshot(chip::MemSpace::UB), want, [](size_t) { return true; });
  EXPECT_EQ(diff, "") << name(op) << " " << dtype_name(dt) << " dst " << DR << "x" << DC << " valid " << vr << "x"
                      << vc << " (dst at " << at.dst << ")";
  EXPECT_EQ(s.hazard_count(), 0u);
  return s.vector_issues();
}

/// Every supported op of T on one shape (a and b beside dst; the unary and scalar ops also
/// in place, dst == a).
template <class T, int DR, int DC, int AR = DR, int AC = DC, int BR = DR, int BC = DC>
void all_ops(uint32_t vr, uint32_t vc, uint64_t seed) {
  const uint32_t a_off = (DR * DC * sizeof(T) + 31) / 32 * 32;
  const uint32_t b_off = a_off + (AR * AC * sizeof(T) + 31) / 32 * 32;
  for (Op op : kAllOps) {
    if (!supported(op, dtype_of<T>)) continue;
    check_case<T, DR, DC, AR, AC, BR, BC>(op, vr, vc, Placement{0, a_off, b_off}, seed++);
    if (!is_binary(op) && DR == AR && DC == AC) check_case<T, DR, DC, AR, AC, BR, BC>(op, vr, vc, Placement{0, 0, b_off}, seed++);
  }
}

// Shapes per element size (EPR = 64 for 32-bit types, 128 for 16-bit), one per scheduler path.
template <class T>
void all_paths32(uint64_t seed) {
  all_ops<T, 64, 64>(64, 64, seed);         // contiguous: 64 full repeats, normal mode
  all_ops<T, 64, 64>(37, 64, seed + 100);   // contiguous prefix of rows (dynamic valid rows)
  all_ops<T, 128, 128>(128, 128, seed + 200);  // contiguous, 256 repeats: counter mode 16384
  all_ops<T, 300, 8>(300, 8, seed + 300);   // Cols < EPR: MASK continuous(8), rows 255 + 45
  all_ops<T, 7, 104>(7, 104, seed + 400);   // vc > EPR, not a multiple: counter mode
  all_ops<T, 16, 128>(13, 100, seed + 500);  // row-repeat: full chunk, then tail of 36 lanes
  all_ops<T, 16, 128>(16, 40, seed + 600);   // row-repeat: tail only
  all_ops<T, 2, 192>(2, 130, seed + 700);   // Rows < Cols/EPR + 1, partial chunk: per-row count
  all_ops<T, 2, 192>(2, 128, seed + 800);   // ... whole chunks: per-row full repeats
  all_ops<T, 1, 128>(1, 40, seed + 900);    // one row: contiguous, one masked repeat
  all_ops<T, 260, 32>(260, 20, seed + 1000);  // row-repeat tail over 260 rows: 255 + 5
  // Operands with different Cols: row-repeat; dst rows of 2048 f32 (256 blocks) exceed the
  // binary repeat-stride field (255): one issue per row for the binary ops.
  all_ops<T, 4, 2048, 4, 64, 4, 64>(4, 64, seed + 1100);
  all_ops<T, 4, 2048, 4, 64, 4, 64>(3, 50, seed + 1200);
  // ... and the other way round: sources with long rows, a full chunk and a tail.
  all_ops<T, 4, 128, 4, 2048, 4, 128>(4, 100, seed + 1300);
  all_ops<T, 4, 128, 4, 128, 4, 2048>(2, 64, seed + 1400);
}

template <class T>
void all_paths16(uint64_t seed) {
  all_ops<T, 64, 128>(64, 128, seed);
  all_ops<T, 64, 128>(9, 128, seed + 100);
  all_ops<T, 16, 272>(16, 272, seed + 200);   // vc > EPR, not a multiple: counter mode
  all_ops<T, 300, 16>(300, 16, seed + 300);   // Cols < EPR: MASK continuous(16), rows 255 + 45
  all_ops<T, 16, 256>(11, 200, seed + 400);   // row-repeat: full chunk + tail of 72 lanes
  all_ops<T, 2, 384>(2, 300, seed + 500);     // per-row count
  all_ops<T, 2, 384>(2, 256, seed + 600);     // per-row full repeats
  all_ops<T, 1, 256>(1, 40, seed + 700);
  all_ops<T, 260, 32>(260, 20, seed + 800);
  all_ops<T, 4, 4096, 4, 128, 4, 128>(4, 128, seed + 900);  // dst rows of 256 blocks
  all_ops<T, 4, 4096, 4, 128, 4, 128>(2, 70, seed + 1000);
}

}  // namespace

TEST(TileExactElementwise, F32EveryOpEveryPath) { all_paths32<float>(1); }
TEST(TileExactElementwise, I32EveryOpEveryPath) { all_paths32<int32_t>(20000); }
TEST(TileExactElementwise, F16EveryOpEveryPath) { all_paths16<half>(40000); }
TEST(TileExactElementwise, I16EveryOpEveryPath) { all_paths16<int16_t>(60000); }

// A counter-mode issue past 255 repeats on 16-bit data: 300 x 128 half, in place (two tiles
// of 75 KB fit UB; three would not).
TEST(TileExactElementwise, F16CounterModeInPlace) {
  for (Op op : {Op::TADD, Op::TMUL, Op::TMAXS, Op::TEXP}) {
    const uint32_t n = check_case<half, 300, 128>(op, 300, 128, Placement{0, 0, 300 * 128 * 2}, 7 + static_cast<int>(op));
    EXPECT_EQ(n, 1u) << name(op);  // 38400 elements = 300 repeats > 255: one counter-mode issue
  }
}

// Every half input through every unary op: all 65536 bit patterns in one 256 x 256 tile, in
// place. The reference rounds the long double result once (Rule: correctly rounded
// transcendentals).
TEST(TileExactElementwise, F16UnaryOpsExhaustive) {
  for (Op op : {Op::TABS, Op::TEXP, Op::TLOG, Op::TSQRT, Op::TRSQRT, Op::TRECIP, Op::TRELU}) {
    Sim s;
    VTile<half, 256, 256> t(256, 256);
    ASSERT_EQ(tile::TASSIGN(t, 0), Status::ok);
    for (uint32_t i = 0; i < 65536; ++i) store_bits(s.ub(), i * 2, 2, i);
    auto r = call(s, op, t, t, t, half{});
    ASSERT_TRUE(r.ok()) << name(op) << " " << s.last_failure();
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 65536; ++i) {
      const uint32_t got = load_bits(s.ub(), i * 2, 2);
      const uint32_t want = ref_lane(op, DType::f16, i, 0);
      if (got != want && bad++ < 5) ADD_FAILURE() << name(op) << "(0x" << std::hex << i << ") = 0x" << got << ", want 0x" << want;
    }
    EXPECT_EQ(bad, 0u) << name(op);
  }
}

// f32 unary and binary ops on larger random samples (random bit patterns included).
TEST(TileExactElementwise, F32RandomSamples) {
  for (Op op : kAllOps) {
    for (uint64_t round = 0; round < 3; ++round) {
      check_case<float, 64, 256>(op, 64, 256, Placement{0, 64 * 1024, 128 * 1024}, 500 + round * 37 + static_cast<int>(op));
    }
  }
}

// ---- reference plans (docs/a2a3-tile-model.md section 8.1) through the tile API ---------------
TEST(TileExactPinned, F32_64x64_TaddIsOneIssueRepeat64Strides1And8) {
  Sim s;
  Tile<TileType::Vec, float, 64, 64> d, a, b;
  tile::TASSIGN<0x0>(d);
  tile::TASSIGN<0x4000>(a);
  tile::TASSIGN<0x8000>(b);
  auto first = tile::TADD(s.core, d, a, b);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().seq, 1u);
  ASSERT_EQ(s.issues.size(), 1u);
  const VecIssue& i = s.issues[0];
  EXPECT_EQ(i.op & 0xFFu, a2a3::vreg::kOpClassBinary | 0u);  // vadd
  EXPECT_EQ(i.repeat, 64u);
  EXPECT_FALSE(i.counter());
  EXPECT_EQ(i.mask_lo, ~uint64_t{0});
  EXPECT_EQ(i.mask_hi, ~uint64_t{0});
  const uint32_t strides = 1u | (8u << 16);  // block stride 1, repeat stride 8
  EXPECT_EQ(i.dst_stride, strides);
  EXPECT_EQ(i.src0_stride, strides);
  EXPECT_EQ(i.src1_stride, strides);
  EXPECT_EQ(i.dst, 0x0u);
  EXPECT_EQ(i.src0, 0x4000u);
  EXPECT_EQ(i.src1, 0x8000u);
  // The next instruction's event is exactly one further: one issue per TADD.
  auto second = tile::TADD(s.core, d, a, b, first.value());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.value().seq, 2u);
  EXPECT_EQ(s.core_model.vector_unit().issues(), 2u);
}

TEST(TileExactPinned, F32_128x128_TaddIsOneCounterModeIssueOf16384) {
  Sim s;
  Tile<TileType::Vec, float, 128, 128> d, a, b;
  tile::TASSIGN<0x0>(d);
  tile::TASSIGN<0x10000>(a);
  tile::TASSIGN<0x20000>(b);
  auto r = tile::TADD(s.core, d, a, b);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().seq, 1u);
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_TRUE(s.issues[0].counter());
  EXPECT_EQ(s.issues[0].mask_lo, 16384u);
  EXPECT_EQ(s.issues[0].repeat, 0u);
  // The plan leaves normal mode with MASK all ones behind (conformance: after a tile item).
  const uint64_t b0 = a2a3::kVectorUnitRegisters.base;
  EXPECT_EQ(port::reg_read64(b0 + a2a3::vreg::kCtrl) & a2a3::vreg::kCtrlCounterMode, 0u);
  EXPECT_EQ(port::reg_read64(b0 + a2a3::vreg::kMaskLo), ~uint64_t{0});
  EXPECT_EQ(port::reg_read64(b0 + a2a3::vreg::kMaskHi), ~uint64_t{0});
}

// ---- TEXPANDS --------------------------------------------------------------------------------
namespace {
template <class T, int R, int C>
void check_expands(uint32_t vr, uint32_t vc, uint32_t off, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, R, C> d(vr, vc);
  ASSERT_EQ(tile::TASSIGN(d, off), Status::ok);
  const uint32_t bits = gen<T>(rng);
  std::vector<uint8_t> want = s.snapshot(chip::MemSpace::UB);
  auto r = tile::TEXPANDS(s.core, d, from_bits<T>(bits));
  ASSERT_TRUE(r.ok()) << s.last_failure();
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) store_bits(want.data(), off + (uint64_t{i} * C + j) * e, e, bits);
  }
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want, [](size_t) { return true; }), "")
      << dtype_name(dtype_of<T>) << " " << vr << "x" << vc;
}
}  // namespace

TEST(TileExactExpands, EveryDupTypeAndPath) {
  check_expands<float, 64, 64>(64, 64, 0, 1);
  check_expands<float, 128, 128>(128, 128, 0, 2);   // counter mode
  check_expands<float, 16, 128>(13, 100, 4096, 3);  // row-repeat with tail
  check_expands<float, 300, 8>(300, 8, 0, 4);
  check_expands<int32_t, 2, 192>(2, 130, 64, 5);
  check_expands<uint32_t, 16, 64>(5, 33, 0, 6);
  check_expands<half, 16, 256>(11, 200, 0, 7);
  check_expands<half, 260, 32>(260, 20, 0, 8);
  check_expands<int16_t, 64, 128>(64, 128, 0, 9);
  check_expands<uint16_t, 8, 16>(3, 7, 32, 10);
  check_expands<bf16, 16, 32>(16, 32, 0, 11);
}

// ---- TCVT ------------------------------------------------------------------------------------
namespace {

enum class Cvt { f16_f32, bf16_f32, f32_f16, f32_bf16, i32_f32, f32_i32, f16_i32 };

Rnd rnd_of(desc::RoundMode m) {
  switch (m) {
    case desc::RoundMode::round: return Rnd::away;
    case desc::RoundMode::floor: return Rnd::floor;
    case desc::RoundMode::ceil: return Rnd::ceil;
    case desc::RoundMode::trunc: return Rnd::trunc;
    case desc::RoundMode::odd: return Rnd::odd;
    default: return Rnd::even;
  }
}

uint32_t to_i32_ref(long double x, desc::RoundMode m) {
  if (x != x) return 0;
  long double r;
  switch (m) {
    case desc::RoundMode::round: r = std::round(x); break;
    case desc::RoundMode::floor: r = std::floor(x); break;
    case desc::RoundMode::ceil: r = std::ceil(x); break;
    case desc::RoundMode::trunc: r = std::trunc(x); break;
    default: r = std::nearbyint(x); break;
  }
  if (r > 2147483647.0L) return 0x7FFFFFFFu;
  if (r < -2147483648.0L) return 0x80000000u;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}

uint32_t cvt_ref(Cvt c, desc::RoundMode m, uint32_t x) {
  switch (c) {
    case Cvt::f16_f32: return f32_bits(static_cast<float>(h2ld(static_cast<uint16_t>(x))));
    case Cvt::bf16_f32: return f32_bits(f32_of(x << 16));
    case Cvt::f32_f16: return ld2h(f32_of(x), rnd_of(m));
    case Cvt::f32_bf16: return f32_to_bf16(x);
    case Cvt::i32_f32: return bits_of(static_cast<float>(static_cast<long double>(static_cast<int32_t>(x))));
    case Cvt::f32_i32: return to_i32_ref(f32_of(x), m);
    case Cvt::f16_i32: return to_i32_ref(h2ld(static_cast<uint16_t>(x)), m);
  }
  return 0;
}

template <class T>
uint32_t gen_cvt_src(Rng& r) {
  if constexpr (std::is_same_v<T, bf16>) return gen_f32(r) >> 16;
  else if constexpr (std::is_same_v<T, int32_t>) return r.next() % 2 ? r.next() << 16 ^ r.next() : r.next() % 100000;
  else if constexpr (std::is_same_v<T, float>) {
    // Also values near the half and int32 ranges' ends and exact ties.
    switch (r.next() % 8) {
      case 0: return bits_of(65504.0f + static_cast<float>(r.next() % 64));
      case 1: return bits_of(static_cast<float>(static_cast<int32_t>(r.next() % 64) - 32) + 0.5f);
      case 2: return bits_of(2147483648.0f * (r.next() % 2 ? 1.0f : -1.0f) + static_cast<float>(r.next() % 3) * 128.0f);
      case 3: return bits_of(std::ldexp(1.0f + static_cast<float>(r.next() % 1024) / 1024.0f, -14 - static_cast<int>(r.next() % 12)));
      default: return gen_f32(r);
    }
  } else {
    return gen_f16(r);
  }
}

template <class D, class S, int R, int C>
void check_cvt(Cvt c, desc::RoundMode m, uint32_t vr, uint32_t vc, uint64_t seed) {
  constexpr uint32_t es = sizeof(S), ed = sizeof(D);
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<D, R, C> d(vr, vc);
  VTile<S, R, C> src(vr, vc);
  const uint32_t src_off = (R * C * 4 + 31) / 32 * 32;
  ASSERT_EQ(tile::TASSIGN(d, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) store_bits(s.ub(), src_off + (uint64_t{i} * C + j) * es, es, gen_cvt_src<S>(rng));
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  auto r = tile::TCVT(s.core, d, src, m);
  ASSERT_TRUE(r.ok()) << static_cast<int>(c) << " " << desc::round_name(m) << ": " << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) {
      const uint32_t x = load_bits(before.data(), src_off + (uint64_t{i} * C + j) * es, es);
      store_bits(want.data(), (uint64_t{i} * C + j) * ed, ed, cvt_ref(c, m, x));
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want, [](size_t) { return true; }), "")
      << "cvt " << static_cast<int>(c) << " " << desc::round_name(m) << " " << vr << "x" << vc;
}

template <class D, class S>
void cvt_shapes(Cvt c, desc::RoundMode m, uint64_t seed) {
  check_cvt<D, S, 64, 64>(c, m, 64, 64, seed);       // contiguous, 64 repeats of 64 lanes
  check_cvt<D, S, 128, 128>(c, m, 128, 128, seed + 1);  // counter mode
  check_cvt<D, S, 16, 128>(c, m, 13, 100, seed + 2);  // row-repeat with a masked tail
  check_cvt<D, S, 300, 16>(c, m, 300, 16, seed + 3);  // Cols < 64 lanes, rows split at 255
  check_cvt<D, S, 2, 192>(c, m, 2, 130, seed + 4);    // per-row count
}

/// TCVT between tiles of different Cols (row-repeat with each operand's own row stride).
template <class D, class S>
void check_cvt_cols(desc::RoundMode m, Cvt c, uint64_t seed) {
  constexpr uint32_t es = sizeof(S), ed = sizeof(D);
  constexpr uint32_t R = 16, DC = 128, SC = 256, vr = 13, vc = 100;
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<D, R, DC> d(vr, vc);
  VTile<S, R, SC> src(vr, vc);
  const uint32_t src_off = 0x8000;
  ASSERT_EQ(tile::TASSIGN(d, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) store_bits(s.ub(), src_off + (uint64_t{i} * SC + j) * es, es, gen_cvt_src<S>(rng));
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  ASSERT_TRUE(tile::TCVT(s.core, d, src, m).ok()) << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < vc; ++j) {
      const uint32_t x = load_bits(before.data(), src_off + (uint64_t{i} * SC + j) * es, es);
      store_bits(want.data(), (uint64_t{i} * DC + j) * ed, ed, cvt_ref(c, m, x));
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want, [](size_t) { return true; }), "");
}

}  // namespace

TEST(TileExactCvt, EveryConversionAndRoundingMode) {
  using M = desc::RoundMode;
  cvt_shapes<float, half>(Cvt::f16_f32, M::none, 1);
  cvt_shapes<float, bf16>(Cvt::bf16_f32, M::none, 11);
  for (M m : {M::rint, M::round, M::floor, M::ceil, M::trunc, M::odd}) {
    cvt_shapes<half, float>(Cvt::f32_f16, m, 21 + 10 * static_cast<int>(m));
  }
  cvt_shapes<bf16, float>(Cvt::f32_bf16, M::rint, 101);
  cvt_shapes<float, int32_t>(Cvt::i32_f32, M::rint, 111);
  for (M m : {M::rint, M::round, M::floor, M::ceil, M::trunc}) {
    cvt_shapes<int32_t, float>(Cvt::f32_i32, m, 121 + 10 * static_cast<int>(m));
    cvt_shapes<int32_t, half>(Cvt::f16_i32, m, 221 + 10 * static_cast<int>(m));
  }
  check_cvt_cols<half, float>(M::odd, Cvt::f32_f16, 301);
  check_cvt_cols<float, half>(M::none, Cvt::f16_f32, 302);
  check_cvt_cols<int32_t, float>(M::floor, Cvt::f32_i32, 303);
}

TEST(TileExactCvt, UnsupportedPairsAndModesAreRejectedWithoutIssuing) {
  Sim s;
  Tile<TileType::Vec, half, 8, 64> h;
  Tile<TileType::Vec, float, 8, 64> f;
  tile::TASSIGN<0x0>(h);
  tile::TASSIGN<0x1000>(f);
  EXPECT_EQ(tile::TCVT(s.core, f, h, desc::RoundMode::rint).status(), Status::plan_unsupported_dtype);  // widening: none
  EXPECT_EQ(tile::TCVT(s.core, h, f, desc::RoundMode::none).status(), Status::plan_unsupported_dtype);
  EXPECT_EQ(s.vector_issues(), 0u);
}
