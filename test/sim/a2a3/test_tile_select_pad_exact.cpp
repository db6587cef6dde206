// TSELS and TFILLPAD on the simulated AI Core (a2a3 and A5 profiles), bit for bit against
// references written here: UB is filled with random bytes (NaN payloads, -0 and infinities
// among them), the instruction runs, and the whole UB is compared with the expected image.
// Pad values are written out from PTO's rule (floating types +-inf, integers their limits),
// not taken from the planner.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "core_sim.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tile_test;
using tile::PadValue;
using tile::SLayout;

namespace {

using Sim = CoreSim;  // a2a3 unless a profile is named

// PTO's pad rule, written out per type: Zero 0; Max +inf (floating) or the largest value;
// Min -inf or the smallest value.
template <class T>
uint32_t pad_bits(PadValue p) {
  if (p == PadValue::Zero) return 0;
  const bool max = p == PadValue::Max;
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(max ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  } else if constexpr (std::is_same_v<T, half>) {
    return max ? 0x7C00u : 0xFC00u;  // binary16: sign, 5 exponent ones, zero mantissa
  } else if constexpr (std::is_same_v<T, bf16>) {
    return max ? 0x7F80u : 0xFF80u;  // the upper half of f32's infinity
  } else {
    const T v = max ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    uint32_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  }
}

// ---- TFILLPAD -------------------------------------------------------------------------------
template <class T, int R, int C, PadValue P>
void check_fillpad(uint32_t profile, uint32_t vr, uint32_t vc, bool in_place, uint64_t seed) {
  using Src = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  using Dst = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, P>;
  constexpr uint32_t e = sizeof(T);
  Sim s(profile);
  s.fill_ub(seed);
  Src src(vr, vc);
  Dst dst(R, C);
  const uint64_t src_off = 0x1000, dst_off = in_place ? src_off : 0x1000 + ((R * C * e + 4095) / 4096) * 4096;
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(dst, dst_off), Status::ok);
  std::vector<uint8_t> want = s.image();
  const std::vector<uint8_t> before = want;
  const uint32_t pad = pad_bits<T>(P);
  for (uint32_t r = 0; r < R; ++r) {
    for (uint32_t c = 0; c < C; ++c) {
      const uint64_t at = dst_off + (uint64_t{r} * C + c) * e;
      if (r < vr && c < vc) {
        std::memcpy(&want[at], &before[src_off + (uint64_t{r} * C + c) * e], e);
      } else {
        std::memcpy(&want[at], &pad, e);
      }
    }
  }
  const Result<tile::Event> ev = tile::TFILLPAD(s.core, dst, src);
  ASSERT_TRUE(ev.ok()) << status_name(ev.status()) << " field=" << s.core.last_report.field;
  EXPECT_EQ(ev.value().pipe, tile::Pipe::V);
  EXPECT_EQ(first_difference(s.image(), want), "") << "vr=" << vr << " vc=" << vc << " in_place=" << in_place;
}

template <class T, int R, int C>
void fillpad_all_pads(uint32_t profile, uint32_t vr, uint32_t vc, uint64_t seed) {
  for (const bool in_place : {false, true}) {
    check_fillpad<T, R, C, PadValue::Zero>(profile, vr, vc, in_place, seed);
    check_fillpad<T, R, C, PadValue::Max>(profile, vr, vc, in_place, seed + 1);
    check_fillpad<T, R, C, PadValue::Min>(profile, vr, vc, in_place, seed + 2);
  }
}

TEST(TileFillPad, FloatTypesEveryPadKind) {
  for (const uint32_t prof : kProfiles) {
    fillpad_all_pads<float, 16, 16>(prof, 5, 11, 1);
    fillpad_all_pads<float, 16, 16>(prof, 16, 16, 2);  // nothing to pad
    fillpad_all_pads<float, 16, 16>(prof, 0, 0, 3);    // everything padded
    fillpad_all_pads<float, 8, 200>(prof, 7, 73, 4);   // several 64-lane chunks a row
    fillpad_all_pads<float, 300, 8>(prof, 290, 3, 5);  // rows split at 255
    fillpad_all_pads<half, 16, 32>(prof, 9, 17, 6);
    fillpad_all_pads<half, 4, 272>(prof, 3, 130, 7);   // 128-lane chunks, partial last one
    fillpad_all_pads<bf16, 8, 32>(prof, 3, 1, 8);
  }
}

TEST(TileFillPad, IntegerTypesEveryPadKind) {
  for (const uint32_t prof : kProfiles) {
    fillpad_all_pads<int16_t, 16, 48>(prof, 15, 47, 11);
    fillpad_all_pads<uint16_t, 8, 16>(prof, 2, 16, 12);
    fillpad_all_pads<int32_t, 16, 24>(prof, 9, 8, 13);  // vc on a block boundary
    fillpad_all_pads<uint32_t, 32, 8>(prof, 31, 7, 14);
  }
}

// ---- TSELS ---------------------------------------------------------------------------------
template <class T, int R, int C>
void check_sels(uint32_t profile, uint32_t vr, uint32_t vc, uint8_t mode, bool dst_is_src, uint64_t seed) {
  using Tt = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  constexpr uint32_t e = sizeof(T);
  constexpr uint64_t bytes = (uint64_t{R} * C * e + 31) / 32 * 32;
  Sim s(profile);
  s.fill_ub(seed);
  Tt a(vr, vc), b(vr, vc), d(vr, vc);
  const uint64_t a_off = 0, b_off = bytes, d_off = dst_is_src ? (mode == 1 ? a_off : b_off) : 2 * bytes;
  ASSERT_EQ(tile::TASSIGN(a, a_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, b_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, d_off), Status::ok);
  const std::vector<uint8_t> before = s.image();
  std::vector<uint8_t> want = before;
  const uint64_t from = mode == 1 ? a_off : b_off;
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      const uint64_t at = (uint64_t{r} * C + c) * e;
      std::memcpy(&want[d_off + at], &before[from + at], e);
    }
  }
  const Result<tile::Event> ev = tile::TSELS(s.core, d, a, b, mode);
  ASSERT_TRUE(ev.ok()) << status_name(ev.status()) << " field=" << s.core.last_report.field;
  // Bytes of dst past vc up to the end of their 32 B block are outside the valid region and
  // unspecified (tilefw moves whole blocks); every other byte is exact.
  std::vector<uint8_t> got = s.image();
  const uint64_t tail_end = (uint64_t{vc} * e + 31) / 32 * 32;
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint64_t k = uint64_t{vc} * e; k < tail_end; ++k) got[d_off + uint64_t{r} * C * e + k] = want[d_off + uint64_t{r} * C * e + k];
  }
  EXPECT_EQ(first_difference(got, want), "") << "mode=" << int{mode} << " vr=" << vr << " vc=" << vc;
}

TEST(TileSels, ModeOneTakesSrc0AnyOtherSrc1) {
  for (const uint32_t prof : kProfiles) {
    for (const uint8_t mode : {uint8_t{1}, uint8_t{0}, uint8_t{2}, uint8_t{255}}) {
      check_sels<float, 16, 16>(prof, 16, 16, mode, false, 21 + mode);
      check_sels<float, 16, 16>(prof, 5, 9, mode, false, 22 + mode);
      check_sels<half, 8, 48>(prof, 7, 33, mode, false, 23 + mode);
      check_sels<float, 2000, 8>(prof, 1999, 8, mode, false, 24 + mode);  // whole rows: one burst
      check_sels<half, 2000, 16>(prof, 1777, 5, mode, false, 25 + mode);
      check_sels<float, 8, 16>(prof, 8, 9, mode, true, 26 + mode);       // dst is the chosen source
    }
  }
}

TEST(TileSels, A5TakesIntegerTypes) {
  check_sels<int32_t, 8, 16>(port::host::kProfileA5, 8, 13, 1, false, 31);
  check_sels<int16_t, 8, 16>(port::host::kProfileA5, 3, 16, 0, false, 32);
  Sim s(port::host::kProfileA2a3);
  using Ti = Tile<TileType::Vec, int32_t, 8, 16>;
  Ti a, b, d;
  ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 512), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, 1024), Status::ok);
  const Result<tile::Event> ev = tile::TSELS(s.core, d, a, b, 1);
  EXPECT_EQ(ev.status(), Status::plan_unsupported_dtype);  // a2a3's TSELS: half and float
  EXPECT_STREQ(s.core.last_report.field, "dst.dtype");
}

// ---- refusals ------------------------------------------------------------------------------
TEST(TileSelectPadRefusals, NamedFields) {
  Sim s(port::host::kProfileA2a3);
  using Tf = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Tf a(8, 16), b(8, 15), d(8, 16);
  ASSERT_EQ(tile::TASSIGN(a, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 512), Status::ok);
  ASSERT_EQ(tile::TASSIGN(d, 1024), Status::ok);
  std::vector<uint8_t> before = s.image();
  Result<tile::Event> ev = tile::TSELS(s.core, d, a, b, 1);  // src1's valid region differs
  EXPECT_EQ(ev.status(), Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(s.core.last_report.field, "src1.valid_cols");
  EXPECT_EQ(s.core.last_report.value, 15u);
  EXPECT_EQ(s.core.last_report.limit, 16u);
  EXPECT_EQ(s.image(), before);  // nothing issued
  Tf un(8, 16);
  ev = tile::TSELS(s.core, un, a, a, 1);
  EXPECT_EQ(ev.status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "dst");

  // The planner's own checks (the typed API refuses these at compile time).
  const plan::TileDesc f16x16 = plan::ub_tile(0, DType::f32, 16, 16);
  plan::Plan p;
  desc::DescReport r{};
  EXPECT_EQ(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(4096, DType::f32, 16, 16), f16x16, plan::FillPad::null), p, &r),
            Status::invalid_argument);
  EXPECT_STREQ(r.field, "dst.pad");
  EXPECT_EQ(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(4096, DType::f32, 8, 32), f16x16, plan::FillPad::max), p, &r),
            Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(r.field, "src.rows");
  EXPECT_EQ(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(4096, DType::f32, 16, 8), plan::ub_tile(0, DType::f32, 16, 16, 16, 8),
                                                   plan::FillPad::max), p, &r),
            Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(r.field, "src.cols");
  EXPECT_EQ(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(4096, DType::u8, 16, 32), plan::ub_tile(0, DType::u8, 16, 32),
                                                   plan::FillPad::zero), p, &r),
            Status::plan_unsupported_dtype);
  EXPECT_STREQ(r.field, "dst.dtype");
  EXPECT_EQ(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(4096, DType::f32, 16, 16), plan::ub_tile(0, DType::f16, 16, 32),
                                                   plan::FillPad::zero), p, &r),
            Status::plan_unsupported_dtype);
  EXPECT_STREQ(r.field, "src.dtype");
  // Partly overlapping dst and src (not in place): the copy's validation refuses it.
  EXPECT_NE(plan::plan_tile(plan::Request::fillpad(plan::ub_tile(64, DType::f32, 16, 16), f16x16, plan::FillPad::zero), p, &r),
            Status::ok);
  plan::Request q = plan::Request::sels(plan::ub_tile(4096, DType::f32, 16, 16), f16x16,
                                        plan::ub_tile(2048, DType::f32, 16, 16), 1);
  q.src0.layout = plan::Layout::col_major;
  EXPECT_EQ(plan::plan_tile(q, p, &r), Status::plan_layout_unsupported);
  EXPECT_STREQ(r.field, "src0");
  q = plan::Request::sels(plan::ub_tile(4096, DType::f32, 16, 16), plan::ub_tile(0, DType::f16, 16, 32),
                          plan::ub_tile(2048, DType::f32, 16, 16), 0);
  EXPECT_EQ(plan::plan_tile(q, p, &r), Status::plan_unsupported_dtype);
  EXPECT_STREQ(r.field, "src0.dtype");
  q = plan::Request::sels(plan::ub_tile(4096, DType::f32, 16, 16), f16x16, plan::ub_tile(2048, DType::f32, 16, 16, 3, 16), 0);
  EXPECT_EQ(plan::plan_tile(q, p, &r), Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(r.field, "src1.valid_rows");
}

}  // namespace
