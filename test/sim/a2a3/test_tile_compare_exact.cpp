// TCMP, TCMPS and TSEL on the simulated AI Core, bit for bit against references written here:
// UB is filled with random bytes, the sources with values chosen to hit every compare outcome
// (equal pairs, +-0, +-inf, NaNs with payloads, denormals), the instruction runs, and the
// whole UB is compared with the expected image. The reference decodes the element types
// itself (no tilefw float helper) and writes the predicate as tilefw's rule lays it out: row i
// of the u8 predicate tile, bit j % 8 of byte j / 8 (LSB first), bits past the valid columns
// 0; NaN compares false except NE; +0 == -0; a2a3 compares i32 with EQ whatever the mode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core_sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tile_test;
using desc::CmpMode;

namespace {

using Sim = CoreSim;  // a2a3 unless a profile is named

// ---- the reference's own view of element bits ---------------------------------------------
// binary16 by hand: sign, 5-bit exponent (bias 15), 10-bit fraction.
double f16_value(uint16_t h) {
  const int sign = (h >> 15) != 0 ? -1 : 1;
  const int ex = (h >> 10) & 0x1F;
  const int fr = h & 0x3FF;
  if (ex == 0x1F) return fr != 0 ? std::nan("") : sign * HUGE_VAL;
  if (ex == 0) return sign * std::ldexp(fr, -24);
  return sign * std::ldexp(1024 + fr, ex - 25);
}

template <class T>
double value(const uint8_t* p) {
  if constexpr (std::is_same_v<T, half>) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return f16_value(h);
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<double>(v);
  }
}

bool ref_cmp(double a, double b, CmpMode m) {
  const bool nan = std::isnan(a) || std::isnan(b);
  switch (m) {
    case CmpMode::eq: return !nan && a == b;
    case CmpMode::ne: return nan || a != b;
    case CmpMode::lt: return !nan && a < b;
    case CmpMode::gt: return !nan && a > b;
    case CmpMode::ge: return !nan && a >= b;
    case CmpMode::le: return !nan && a <= b;
  }
  return false;
}

// Bits of interesting values of T, picked at random (raw random bits otherwise).
template <class T>
uint32_t pick(Rng& rng) {
  const uint32_t k = rng.next() % 12;
  if constexpr (std::is_same_v<T, float>) {
    const uint32_t v[] = {0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u,
                          0x7FC00000u, 0x7F800001u, 0xFFC12345u, 0x00000001u, 0x40000000u};
    return k < 11 ? v[k] : rng.next();
  } else if constexpr (std::is_same_v<T, half>) {
    const uint32_t v[] = {0x0000u, 0x8000u, 0x3C00u, 0xBC00u, 0x7C00u, 0xFC00u,
                          0x7E00u, 0x7C01u, 0xFE55u, 0x0001u, 0x4000u};
    return k < 11 ? v[k] : (rng.next() & 0xFFFFu);
  } else {
    const uint32_t v[] = {0u, 1u, 2u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x8000u, 0x7FFFu, 0xFFFFu, 3u, 1u};
    const uint32_t b = k < 11 ? v[k] : rng.next();
    return sizeof(T) == 2 ? (b & 0xFFFFu) : b;
  }
}

template <class T>
void put(uint8_t* p, uint32_t bits) {
  std::memcpy(p, &bits, sizeof(T));  // little-endian host
}

// Fills rows [0, vr) x [0, vc) of a row-major tile with picked values; where `other` is given,
// about one element in three copies the same position of `other` (equal pairs).
template <class T>
void fill_tile(uint8_t* ub, uint64_t off, uint32_t cols, uint32_t vr, uint32_t vc, Rng& rng,
               const uint8_t* other = nullptr, uint64_t other_off = 0) {
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      const uint64_t at = (uint64_t{r} * cols + c) * sizeof(T);
      if (other != nullptr && rng.next() % 3 == 0) {
        std::memcpy(ub + off + at, other + other_off + at, sizeof(T));
      } else {
        put<T>(ub + off + at, pick<T>(rng));
      }
    }
  }
}

// The expected predicate of rows [0, vr), columns [0, vc) into `want` (mask row `mrow` bytes).
template <class T, class F>
void expect_predicate(std::vector<uint8_t>& want, uint64_t m_off, uint32_t mrow, uint32_t vr, uint32_t vc, F bit) {
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t b = 0; b < (vc + 7) / 8; ++b) want[m_off + uint64_t{r} * mrow + b] = 0;
    for (uint32_t c = 0; c < vc; ++c) {
      if (bit(r, c)) want[m_off + uint64_t{r} * mrow + c / 8] |= static_cast<uint8_t>(1u << (c % 8));
    }
  }
}

constexpr CmpMode kModes[] = {CmpMode::eq, CmpMode::ne, CmpMode::lt, CmpMode::gt, CmpMode::ge, CmpMode::le};

// ---- TCMP -----------------------------------------------------------------------------------
template <class T, int R, int C>
void check_tcmp(uint32_t vr, uint32_t vc, CmpMode mode, uint64_t seed) {
  using Src = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using Mask = Tile<TileType::Vec, uint8_t, R, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  constexpr uint32_t e = sizeof(T);
  Sim s;
  Rng rng = s.fill_ub(seed);
  Src a(vr, vc), b(vr, vc);
  Mask m(vr, (vc + 7) / 8);
  const uint64_t a_off = 0x1000, b_off = 0x1000 + R * C * e, m_off = 0x1000 + 2 * R * C * e;
  ASSERT_EQ(tile::TASSIGN(a, a_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, b_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, m_off), Status::ok);
  fill_tile<T>(s.ub(), a_off, C, vr, vc, rng);
  fill_tile<T>(s.ub(), b_off, C, vr, vc, rng, s.ub(), a_off);
  std::vector<uint8_t> want = s.image();
  const std::vector<uint8_t> in = want;
  // a2a3 compares i32 with EQ whatever the mode asked for.
  const CmpMode eff = std::is_same_v<T, int32_t> ? CmpMode::eq : mode;
  expect_predicate<T>(want, m_off, 32, vr, vc, [&](uint32_t r, uint32_t c) {
    const uint64_t at = (uint64_t{r} * C + c) * e;
    return ref_cmp(value<T>(&in[a_off + at]), value<T>(&in[b_off + at]), eff);
  });
  const Result<tile::Event> ev = tile::TCMP(s.core, m, a, b, mode);
  ASSERT_TRUE(ev.ok()) << status_name(ev.status()) << " field=" << s.core.last_report.field;
  EXPECT_EQ(ev.value().pipe, tile::Pipe::V);
  EXPECT_EQ(first_difference(s.image(), want), "") << "vr=" << vr << " vc=" << vc << " mode=" << desc::cmp_mode_name(mode);
}

TEST(TileCmp, FloatTypesEveryModeNaNAndZeros) {
  uint64_t seed = 11;
  for (CmpMode mode : kModes) {
    check_tcmp<float, 16, 16>(16, 16, mode, ++seed);
    check_tcmp<float, 8, 128>(5, 100, mode, ++seed);   // a full 64-lane chunk and a partial one
    check_tcmp<half, 16, 16>(16, 16, mode, ++seed);
    check_tcmp<half, 4, 256>(3, 201, mode, ++seed);    // a full 128-lane chunk and a partial one
    check_tcmp<half, 300, 16>(300, 9, mode, ++seed);   // rows split at 255 repeats
  }
}

TEST(TileCmp, Int32ComparesEqualWhateverTheMode) {
  uint64_t seed = 101;
  for (CmpMode mode : kModes) check_tcmp<int32_t, 8, 64>(7, 50, mode, ++seed);
}

// ---- TCMPS ----------------------------------------------------------------------------------
template <class T, int R, int C>
void check_tcmps(uint32_t vr, uint32_t vc, CmpMode mode, bool tile_form, uint64_t seed) {
  using Src = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using Mask = Tile<TileType::Vec, uint8_t, R, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using One = Tile<TileType::Vec, T, 1, 32 / sizeof(T)>;
  constexpr uint32_t e = sizeof(T);
  Sim s;
  Rng rng = s.fill_ub(seed);
  Src a(vr, vc);
  Mask m(vr, (vc + 7) / 8);
  One one;
  const uint64_t a_off = 0x1000, o_off = 0x1000 + R * C * e, m_off = o_off + 32;
  ASSERT_EQ(tile::TASSIGN(a, a_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(one, o_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, m_off), Status::ok);
  fill_tile<T>(s.ub(), a_off, C, vr, vc, rng);
  // The scalar: a value the tile holds about a third of the time.
  const uint32_t sbits = rng.next() % 2 == 0 ? pick<T>(rng) : [&] {
    uint32_t b = 0;
    std::memcpy(&b, s.ub() + a_off, e);
    return b;
  }();
  put<T>(s.ub() + o_off, sbits);
  std::vector<uint8_t> want = s.image();
  const std::vector<uint8_t> in = want;
  T scalar;
  std::memcpy(static_cast<void*>(&scalar), &sbits, e);
  const CmpMode eff = std::is_same_v<T, int32_t> ? CmpMode::eq : mode;
  expect_predicate<T>(want, m_off, 32, vr, vc, [&](uint32_t r, uint32_t c) {
    return ref_cmp(value<T>(&in[a_off + (uint64_t{r} * C + c) * e]), value<T>(&in[o_off]), eff);
  });
  const Result<tile::Event> ev =
      tile_form ? tile::TCMPS(s.core, m, a, one, mode) : tile::TCMPS(s.core, m, a, scalar, mode);
  ASSERT_TRUE(ev.ok()) << status_name(ev.status()) << " field=" << s.core.last_report.field;
  EXPECT_EQ(first_difference(s.image(), want), "")
      << "vr=" << vr << " vc=" << vc << " mode=" << desc::cmp_mode_name(mode) << " tile_form=" << tile_form;
}

TEST(TileCmps, EveryListedTypeEveryModeBothForms) {
  uint64_t seed = 201;
  for (CmpMode mode : kModes) {
    for (bool tf : {false, true}) {
      for (int k = 0; k < 3; ++k) {  // several scalars a mode (NaN, +-0, values in the tile)
        check_tcmps<float, 8, 128>(6, 70, mode, tf, ++seed);
        check_tcmps<half, 4, 256>(4, 130, mode, tf, ++seed);
        check_tcmps<int16_t, 4, 64>(4, 40, mode, tf, ++seed);
        check_tcmps<uint16_t, 4, 64>(3, 64, mode, tf, ++seed);
        check_tcmps<int32_t, 4, 64>(4, 33, mode, tf, ++seed);
      }
    }
  }
}

TEST(TileCmps, NaNScalarOnlyNotEqualHolds) {
  using Src = Tile<TileType::Vec, float, 2, 16>;
  using Mask = Tile<TileType::Vec, uint8_t, 2, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  for (CmpMode mode : kModes) {
    Sim s;
    Src a;
    Mask m(2, 2);
    ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
    ASSERT_EQ(tile::TASSIGN(m, 256), Status::ok);
    for (int i = 0; i < 32; ++i) put<float>(s.ub() + 4 * i, 0x3F800000u);  // 1.0f
    std::memset(s.ub() + 256, 0xA5, 64);
    const float nan = std::bit_cast<float>(0x7FC00000u);
    ASSERT_TRUE(tile::TCMPS(s.core, m, a, nan, mode).ok());
    const uint8_t b = mode == CmpMode::ne ? 0xFF : 0x00;
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(s.ub()[256 + 32 * r], b) << desc::cmp_mode_name(mode);
      EXPECT_EQ(s.ub()[256 + 32 * r + 1], b) << desc::cmp_mode_name(mode);
      EXPECT_EQ(s.ub()[256 + 32 * r + 2], 0xA5) << "past the valid bytes: untouched";
    }
  }
}

// ---- TSEL -----------------------------------------------------------------------------------
template <class T, int R, int C>
void check_tsel(uint32_t profile, uint32_t vr, uint32_t vc, uint64_t seed) {
  using Src = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using Mask = Tile<TileType::Vec, uint8_t, R, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  constexpr uint32_t e = sizeof(T);
  Sim s(profile);
  s.fill_ub(seed);
  Src a(vr, vc), b(vr, vc), d(vr, vc);
  Mask m(vr, (vc + 7) / 8);
  const uint64_t t = R * C * e;
  const uint64_t a_off = 0x1000, b_off = a_off + t, d_off = b_off + t, m_off = d_off + t;
  ASSERT_EQ(tile::TASSIGN(a, a_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, b_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, d_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, m_off), Status::ok);
  std::vector<uint8_t> want = s.image();
  const std::vector<uint8_t> in = want;
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      const bool one = ((in[m_off + uint64_t{r} * 32 + c / 8] >> (c % 8)) & 1u) != 0;
      const uint64_t at = (uint64_t{r} * C + c) * e;
      std::memcpy(&want[d_off + at], &in[(one ? a_off : b_off) + at], e);
    }
  }
  const Result<tile::Event> ev = tile::TSEL(s.core, d, m, a, b);
  ASSERT_TRUE(ev.ok()) << status_name(ev.status()) << " field=" << s.core.last_report.field;
  EXPECT_EQ(first_difference(s.image(), want), "") << "vr=" << vr << " vc=" << vc;
}

TEST(TileSel, EveryListedTypeBothProfiles) {
  uint64_t seed = 301;
  for (uint32_t p : {port::host::kProfileA2a3, port::host::kProfileA5}) {
    check_tsel<float, 8, 128>(p, 7, 100, ++seed);
    check_tsel<half, 4, 256>(p, 4, 201, ++seed);
    check_tsel<bf16, 4, 64>(p, 3, 64, ++seed);
    check_tsel<int16_t, 4, 64>(p, 4, 17, ++seed);
    check_tsel<uint16_t, 300, 16>(p, 300, 16, ++seed);
    check_tsel<int32_t, 4, 64>(p, 2, 64, ++seed);
    check_tsel<uint32_t, 4, 64>(p, 4, 5, ++seed);
  }
}

// TCMP then TSEL: the predicate TCMP writes is the one TSEL reads (max of two tiles, NaN from
// src1 where the compare is false).
TEST(TileSel, ReadsWhatTcmpWrites) {
  using T16 = Tile<TileType::Vec, float, 4, 16>;
  using Mask = Tile<TileType::Vec, uint8_t, 4, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Sim s;
  T16 a, b, d;
  Mask m(4, 2);
  ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 256), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, 512), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, 768), Status::ok);
  float* fa = reinterpret_cast<float*>(s.ub());
  float* fb = reinterpret_cast<float*>(s.ub() + 256);
  for (int i = 0; i < 64; ++i) {
    fa[i] = static_cast<float>(i % 7) - 3.0f;
    fb[i] = static_cast<float>(i % 5) - 2.0f;
  }
  fb[9] = std::bit_cast<float>(0x7FC00001u);
  ASSERT_TRUE(tile::TCMP(s.core, m, a, b, CmpMode::gt).ok());
  ASSERT_TRUE(tile::TSEL(s.core, d, m, a, b).ok());
  const float* fd = reinterpret_cast<const float*>(s.ub() + 512);
  for (int i = 0; i < 64; ++i) {
    const float want = fa[i] > fb[i] ? fa[i] : fb[i];
    EXPECT_EQ(std::bit_cast<uint32_t>(fd[i]), std::bit_cast<uint32_t>(want)) << i;
  }
}

// ---- refusals -------------------------------------------------------------------------------
TEST(TileCompareRefusals, NamedFields) {
  using F = Tile<TileType::Vec, float, 4, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using I16 = Tile<TileType::Vec, int16_t, 4, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using Mask = Tile<TileType::Vec, uint8_t, 4, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Sim s;
  F a(4, 16), b(4, 15), d(4, 16);
  I16 ia(4, 16), ib(4, 16);
  Mask m(4, 2), wrong(4, 3), short_rows(3, 2);
  ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 256), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, 512), Status::ok);
  ASSERT_EQ(tile::TASSIGN(ia, 1024), Status::ok);
  ASSERT_EQ(tile::TASSIGN(ib, 1152), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, 2048), Status::ok);
  ASSERT_EQ(tile::TASSIGN(wrong, 2048 + 128), Status::ok);
  ASSERT_EQ(tile::TASSIGN(short_rows, 2048 + 256), Status::ok);
  auto field = [&] { return std::string(s.core.last_report.field); };
  EXPECT_EQ(tile::TCMP(s.core, m, a, b, CmpMode::eq).status(), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(field(), "src1.valid_cols");
  EXPECT_EQ(s.core.last_report.value, 15u);
  EXPECT_EQ(s.core.last_report.limit, 16u);
  EXPECT_EQ(tile::TCMP(s.core, wrong, a, d, CmpMode::eq).status(), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(field(), "dst.valid_cols");
  EXPECT_EQ(s.core.last_report.value, 3u);
  EXPECT_EQ(s.core.last_report.limit, 2u);
  EXPECT_EQ(tile::TCMP(s.core, short_rows, a, d, CmpMode::eq).status(), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(field(), "dst.valid_rows");
  EXPECT_EQ(tile::TCMP(s.core, m, ia, ib, CmpMode::eq).status(), Status::plan_unsupported_dtype);  // TCMPS only
  EXPECT_EQ(field(), "src0.dtype");
  EXPECT_EQ(tile::TCMP(s.core, m, a, d, static_cast<CmpMode>(6)).status(), Status::invalid_argument);
  EXPECT_EQ(field(), "cmpMode");
  EXPECT_EQ(tile::TSEL(s.core, d, wrong, a, a).status(), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(field(), "mask.valid_cols");
  EXPECT_EQ(tile::TSEL(s.core, d, m, a, b).status(), Status::plan_valid_shape_mismatch);
  EXPECT_EQ(field(), "src1.valid_cols");
  // dst over the predicate: the desc layer's overlap rule names dst and the mask.
  F over(4, 16);
  ASSERT_EQ(tile::TASSIGN(over, 2048), Status::ok);
  EXPECT_EQ(tile::TSEL(s.core, over, m, a, d).status(), Status::illegal_overlap);
  EXPECT_EQ(field(), "dst");
  EXPECT_STREQ(s.core.last_report.other, "mask");
}

TEST(TileCompareRefusals, A5RefusesTheCompares) {
  using F = Tile<TileType::Vec, float, 4, 16>;
  using Mask = Tile<TileType::Vec, uint8_t, 4, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Sim s(port::host::kProfileA5);
  F a, b;
  Mask m(4, 2);
  ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 256), Status::ok);
  ASSERT_EQ(tile::TASSIGN(m, 512), Status::ok);
  EXPECT_EQ(tile::TCMP(s.core, m, a, b, CmpMode::eq).status(), Status::unsupported);
  EXPECT_STREQ(s.core.last_report.field, "chip");
  EXPECT_EQ(tile::TCMPS(s.core, m, a, 1.0f, CmpMode::eq).status(), Status::unsupported);
}

TEST(CmpDescValidate, RulesNameTheField) {
  desc::CmpDesc d{};
  d.repeat = 2;
  d.lanes = 64;
  d.dst.offset = 4096;
  d.src0.offset = 0;
  d.src1.offset = 512;
  EXPECT_TRUE(desc::validate(d, DType::f32, chip::Chip::a2a3).ok());
  desc::CmpDesc e = d;
  e.lanes = 65;
  desc::DescReport r = desc::validate(e, DType::f32, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::desc_tail_out_of_range);
  EXPECT_STREQ(r.field, "lanes");
  EXPECT_EQ(r.limit, 64u);
  e = d;
  e.src1.offset = 16;
  r = desc::validate(e, DType::f32, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::misaligned);
  EXPECT_STREQ(r.field, "src1.offset");
  e = d;
  e.dst.offset = 300;  // inside src0's second repeat
  r = desc::validate(e, DType::f32, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::illegal_overlap);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_STREQ(r.other, "src0");
  e = d;
  e.src0.offset = 192 * 1024 - 256;
  r = desc::validate(e, DType::f32, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "src0");
  EXPECT_TRUE(desc::validate(e, DType::f32, chip::Chip::a5).ok());  // A5's UB is 256 KB
  r = desc::validate(d, DType::u8, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::desc_unsupported_dtype);
  e = d;
  e.mode = static_cast<CmpMode>(9);
  r = desc::validate(e, DType::f32, chip::Chip::a2a3);
  EXPECT_EQ(r.status, Status::desc_unknown_op);
  EXPECT_STREQ(r.field, "mode");
}

// The simulator re-validates the raw registers: a compare written straight to the registers
// with 0 lanes faults with the field named, and writes nothing.
TEST(CmpRawRegisters, UnitRefusesWhatTheIssueLayerWouldNot) {
  Sim s;
  namespace vreg = chip::a2a3::vreg;
  std::memset(s.ub() + 4096, 0x5A, 64);
  const uint64_t b = chip::a2a3::kVectorUnitRegisters.base;
  port::reg_write32(b + vreg::kOp, vreg::op_word(vreg::kOpClassCmp | 0u, static_cast<uint32_t>(DType::f32)));
  port::reg_write32(b + vreg::kRepeat, 1);
  port::reg_write32(b + vreg::kCmpLanes, vreg::cmp_lanes_word(0, 0));
  port::reg_write32(b + vreg::kDstAddr, 4096);
  port::reg_write32(b + vreg::kSrc0Addr, 0);
  port::reg_write32(b + vreg::kSrc1Addr, 256);
  port::ring_doorbell(b + vreg::kDoorbell, 1u);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(b + vreg::kStatus)), Status::desc_tail_out_of_range);
  EXPECT_EQ(s.ub()[4096], 0x5A);
  port::reg_write32(b + vreg::kCmpLanes, vreg::cmp_lanes_word(8, 0));
  port::ring_doorbell(b + vreg::kDoorbell, 1u);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(b + vreg::kStatus)), Status::ok);
  EXPECT_EQ(s.ub()[4097], 0x5A) << "8 lanes write one predicate byte";
}

}  // namespace
