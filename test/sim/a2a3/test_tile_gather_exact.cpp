// Bit-exact TGATHER (index form) on the simulated a2a3 AI Core against a scalar reference
// written here, the vgather issue itself (masks, counter mode, its register checks, the
// data checks of the gathered addresses: a fault writes nothing), and the refusals of bad
// descriptors with their Status and field.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tile_test_sim.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"

using namespace tile_test;

namespace {

// ---- TGATHER -----------------------------------------------------------------------------------
/// dst DR x DC (valid vr x DC), src0 SR x SC, indices vr x IC (valid vr x DC), tmp vr x DC.
/// Indices are random in [0, SR * SC) (every src0 element, repeats allowed). Every UB byte but
/// tmp's must equal the reference after the call.
template <class T, class I, int DR, int DC, int SR, int SC, int IC>
void check_gather(uint32_t vr, uint64_t seed) {
  constexpr uint32_t e = sizeof(T);
  Sim s;
  Rng rng = s.fill_ub(seed);
  VTile<T, DR, DC> dst(vr, DC);
  VTile<T, SR, SC> src(SR, SC);
  VTile<I, DR, IC> idx(vr, DC);
  VTile<I, DR, DC> tmp(DR, DC);
  const uint32_t src_off = align32(uint64_t{DR} * DC * e);
  const uint32_t idx_off = src_off + align32(uint64_t{SR} * SC * e);
  const uint32_t tmp_off = idx_off + align32(uint64_t{DR} * IC * 4);
  ASSERT_EQ(tile::TASSIGN(dst, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(src, src_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(idx, idx_off), Status::ok);
  ASSERT_EQ(tile::TASSIGN(tmp, tmp_off), Status::ok);
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < DC; ++j) {
      store_bits(s.ub(), idx_off + (uint64_t{i} * IC + j) * 4, 4, rng.next() % (SR * SC));
    }
  }
  const std::vector<uint8_t> before = s.snapshot(chip::MemSpace::UB);
  const Result<tile::Event> res = tile::TGATHER(s.core, dst, src, idx, tmp);
  ASSERT_TRUE(res.ok()) << s.last_failure();
  std::vector<uint8_t> want = before;
  for (uint32_t i = 0; i < vr; ++i) {
    for (uint32_t j = 0; j < DC; ++j) {
      const uint32_t k = load_bits(before.data(), idx_off + (uint64_t{i} * IC + j) * 4, 4);
      store_bits(want.data(), (uint64_t{i} * DC + j) * e, e, load_bits(before.data(), src_off + uint64_t{k} * e, e));
    }
  }
  const uint64_t tmp_end = tmp_off + uint64_t{DR} * DC * 4;
  EXPECT_EQ(first_difference(s.snapshot(chip::MemSpace::UB), want,
                             [&](size_t b) { return b < tmp_off || b >= tmp_end; }),
            "")
      << "TGATHER " << dtype_name(dtype_of<T>) << " " << vr << "x" << DC;
  // tmp holds the byte offsets (index * sizeof(T)).
  for (uint32_t i = 0; i < vr * DC; ++i) {
    const uint32_t k = load_bits(before.data(), idx_off + (uint64_t{i / DC} * IC + i % DC) * 4, 4);
    ASSERT_EQ(load_bits(s.ub(), tmp_off + uint64_t{i} * 4, 4), k * e) << i;
  }
}

}  // namespace

TEST(TileExactGather, F32I32U32F16Bf16I16) {
  check_gather<float, int32_t, 16, 16, 16, 16, 16>(16, 1);
  check_gather<int32_t, uint32_t, 7, 64, 32, 40, 64>(7, 2);      // more than one repeat, 7 rows
  check_gather<uint32_t, int32_t, 3, 8, 2, 8, 16>(3, 3);         // indices' rows longer than dst's
  check_gather<half, int32_t, 16, 32, 8, 48, 32>(16, 4);         // 512 elements: 4 b16 repeats
  check_gather<bf16, uint32_t, 3, 48, 16, 16, 48>(3, 5);          // 144 elements: a partial b16 repeat
  check_gather<int16_t, int32_t, 40, 16, 4, 16, 16>(40, 6);
  check_gather<float, int32_t, 64, 64, 64, 64, 64>(64, 7);       // 4096 elements, one count-mode issue
}

namespace {
struct GatherFixture {
  Sim s;
  VTile<float, 4, 8> dst{4, 8};
  VTile<float, 4, 8> src{4, 8};
  VTile<int32_t, 4, 8> idx{4, 8};
  VTile<int32_t, 4, 8> tmp{4, 8};
  GatherFixture() {
    EXPECT_EQ(tile::TASSIGN(dst, 0), Status::ok);
    EXPECT_EQ(tile::TASSIGN(src, 0x400), Status::ok);
    EXPECT_EQ(tile::TASSIGN(idx, 0x800), Status::ok);
    EXPECT_EQ(tile::TASSIGN(tmp, 0xC00), Status::ok);
    for (uint32_t k = 0; k < 32; ++k) {
      store_bits(s.ub(), 0x800 + k * 4, 4, (k * 7) % 32);
      store_bits(s.ub(), 0x400 + k * 4, 4, bits_of(static_cast<float>(k) + 0.5f));
      store_bits(s.ub(), k * 4, 4, 0xDEADBEEFu);
    }
  }
};
}  // namespace

// Out-of-range indices (tilefw's rule): an element that would leave UB (a negative index, one
// past UB's end) faults the vgather and dst keeps its bytes; an index inside UB but past src0's
// bytes reads those UB bytes.
TEST(TileExactGather, OutOfRangeIndices) {
  for (const uint32_t bad : {0xFFFFFFFFu, 0x3FFFFFFFu, static_cast<uint32_t>((a2a3::kUbBytes - 0x400) / 4)}) {
    GatherFixture f;
    store_bits(f.s.ub(), 0x800 + 13 * 4, 4, bad);
    const std::vector<uint8_t> before = f.s.snapshot(chip::MemSpace::UB);
    const uint32_t n0 = f.s.vector_issues();
    const Result<tile::Event> r = tile::TGATHER(f.s.core, f.dst, f.src, f.idx, f.tmp);
    EXPECT_EQ(r.status(), Status::out_of_bounds) << bad;
    EXPECT_EQ(f.s.vector_issues() - n0, 2u);  // the vmuls ran, the vgather faulted
    EXPECT_EQ(f.s.core_model.vector_unit().last_report().field, std::string("offsets"));
    EXPECT_EQ(f.s.core_model.vector_unit().last_report().block_index, 13u);  // the lane
    const std::vector<uint8_t> after = f.s.snapshot(chip::MemSpace::UB);
    EXPECT_TRUE(std::equal(after.begin(), after.begin() + 128, before.begin()));  // dst untouched
  }
  GatherFixture f;
  store_bits(f.s.ub(), 0x800 + 5 * 4, 4, 0x1000 / 4);  // byte 0x1400: inside UB, past src0
  store_bits(f.s.ub(), 0x1400, 4, 0x12345678u);
  ASSERT_TRUE(tile::TGATHER(f.s.core, f.dst, f.src, f.idx, f.tmp).ok()) << f.s.last_failure();
  EXPECT_EQ(load_bits(f.s.ub(), 5 * 4, 4), 0x12345678u);
  EXPECT_EQ(load_bits(f.s.ub(), 6 * 4, 4), bits_of(static_cast<float>((6 * 7) % 32) + 0.5f));
  // The byte offset is index * sizeof(T) modulo 2^32 (the unit's int32 multiply wraps): index
  // 2^30 + 3 of an f32 tile reads element 3.
  store_bits(f.s.ub(), 0x800 + 7 * 4, 4, 0x40000003u);
  ASSERT_TRUE(tile::TGATHER(f.s.core, f.dst, f.src, f.idx, f.tmp).ok()) << f.s.last_failure();
  EXPECT_EQ(load_bits(f.s.ub(), 7 * 4, 4), bits_of(3.5f));
}

namespace {
plan::Request gather_req(plan::TileDesc d, plan::TileDesc s, plan::TileDesc i, plan::TileDesc t) {
  plan::Request r = plan::Request::binary(plan::TileOp::TGATHER, d, s, i);
  r.tmp = t;
  return r;
}
}  // namespace

TEST(TileExactGather, BadDescriptorsRefusedNamingTheField) {
  const plan::TileDesc d = plan::ub_tile(0, DType::f32, 4, 16);
  const plan::TileDesc s = plan::ub_tile(0x400, DType::f32, 8, 16);
  const plan::TileDesc i = plan::ub_tile(0x800, DType::i32, 4, 16);
  const plan::TileDesc t = plan::ub_tile(0xC00, DType::i32, 4, 16);
  plan::Plan ok;
  ASSERT_EQ(plan::plan_tile(gather_req(d, s, i, t), ok), Status::ok);
  EXPECT_EQ(ok.issue_count(), 2u);  // one vmuls, one vgather
  plan::TileDesc x = s;
  x.dtype = DType::i32;
  expect_refused(gather_req(d, x, i, t), Status::plan_unsupported_dtype, "src0.dtype");
  x = i;
  x.dtype = DType::f32;
  expect_refused(gather_req(d, s, x, t), Status::plan_unsupported_dtype, "src1.dtype");
  x = t;
  x.dtype = DType::u32;
  expect_refused(gather_req(d, s, i, x), Status::plan_unsupported_dtype, "tmp.dtype");
  x = plan::ub_tile(0, DType::i8, 4, 32);
  plan::TileDesc s8 = plan::ub_tile(0x400, DType::i8, 8, 32);
  expect_refused(gather_req(x, s8, i, t), Status::plan_unsupported_dtype, "dst.dtype");
  x = d;
  x.valid_cols = 8;
  expect_refused(gather_req(x, s, i, t), Status::plan_valid_shape_mismatch, "dst.valid_cols");
  x = i;
  x.valid_rows = 3;
  expect_refused(gather_req(d, s, x, t), Status::plan_valid_shape_mismatch, "src1.valid_rows");
  x = plan::ub_tile(0xC00, DType::i32, 8, 16);
  expect_refused(gather_req(d, s, i, x), Status::plan_valid_shape_mismatch, "tmp.rows");
  x = plan::ub_tile(0xC00, DType::i32, 4, 24);
  x.valid_cols = 16;
  expect_refused(gather_req(d, s, i, x), Status::plan_valid_shape_mismatch, "tmp.cols");
  x = plan::ub_tile(0x880, DType::i32, 4, 16);  // meets the indices
  expect_refused(gather_req(d, s, i, x), Status::plan_operands_overlap, "tmp");
  x = plan::ub_tile(0x480, DType::f32, 4, 16);  // dst inside src0
  expect_refused(gather_req(x, s, i, t), Status::plan_operands_overlap, "dst");
  x = s;
  x.layout = plan::Layout::col_major;
  x.rows = 16;
  x.cols = 8;
  x.valid_rows = 16;
  x.valid_cols = 8;
  expect_refused(gather_req(d, x, i, t), Status::plan_layout_unsupported, "src0");
}

// ---- the vgather issue ----------------------------------------------------------------------------
namespace {
struct Unit {
  Sim s;
  issue::VectorUnit vu{};
  Unit() { issue::reset(vu); }
};
}  // namespace

TEST(VectorGather, NormalMaskCounterModeAndRepeatStride) {
  Unit u;
  uint8_t* ub = u.s.ub();
  for (uint32_t k = 0; k < 256; ++k) store_bits(ub, 0x2000 + k * 4, 4, 0xA0000000u + k);  // the source
  for (uint32_t k = 0; k < 128; ++k) store_bits(ub, 0x1000 + k * 4, 4, ((k * 5) % 256) * 4);  // offsets
  std::memset(ub, 0x11, 0x800);
  desc::GatherDesc d{};
  d.repeat = 2;
  d.dst_repeat_stride = 16;  // repeat 1 at 512 B
  d.base = 0x2000;
  d.dst = desc::Operand{chip::MemSpace::UB, 0};
  d.offsets = desc::Operand{chip::MemSpace::UB, 0x1000};
  issue::set_mask(u.vu, 0, 0x00000000FFFF0001ull);  // lane 0 and lanes 16..31
  ASSERT_EQ(issue::issue_once(u.vu, d, DType::u32), Status::ok);
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t k = 0; k < 64; ++k) {
      const bool on = k == 0 || (k >= 16 && k < 32);
      const uint32_t want = on ? 0xA0000000u + ((r * 64 + k) * 5) % 256 : 0x11111111u;
      EXPECT_EQ(load_bits(ub, r * 512 + k * 4, 4), want) << r << " " << k;
    }
  }
  EXPECT_EQ(load_bits(ub, 256, 4), 0x11111111u);  // between the repeats: not written
  // Counter mode, b16: 130 elements, two repeats (128 + 2).
  issue::set_mask(u.vu, ~0ull, ~0ull);
  std::memset(ub, 0x22, 0x800);
  for (uint32_t k = 0; k < 256; ++k) store_bits(ub, 0x1000 + k * 4, 4, ((k * 3) % 256) * 2);
  desc::GatherDesc c{};
  c.mask_mode = desc::MaskMode::count;
  c.repeat = 0;
  c.vector_count = 130;
  c.base = 0x2000;
  c.dst = desc::Operand{chip::MemSpace::UB, 0};
  c.offsets = desc::Operand{chip::MemSpace::UB, 0x1000};
  ASSERT_EQ(issue::issue_once(u.vu, c, DType::f16), Status::ok);
  for (uint32_t k = 0; k < 136; ++k) {
    const uint32_t want = k < 130 ? load_bits(ub, 0x2000 + ((k * 3) % 256) * 2, 2) : 0x2222u;
    EXPECT_EQ(load_bits(ub, k * 2, 2), want) << k;
  }
}

TEST(VectorGather, RegisterAndDataFaults) {
  Unit u;
  uint8_t* ub = u.s.ub();
  for (uint32_t k = 0; k < 64; ++k) store_bits(ub, 0x1000 + k * 4, 4, k * 4);
  desc::GatherDesc d{};
  d.base = 0x2000;
  d.dst = desc::Operand{chip::MemSpace::UB, 0};
  d.offsets = desc::Operand{chip::MemSpace::UB, 0x1000};
  desc::DescReport rep{};
  desc::GatherDesc x = d;
  x.base = 0x2002;
  EXPECT_EQ(issue::issue_once(u.vu, x, DType::f32, &rep), Status::misaligned);
  EXPECT_STREQ(rep.field, "base");
  x = d;
  x.offsets.offset = 0x40;  // the offsets meet dst's 256 B
  EXPECT_EQ(issue::issue_once(u.vu, x, DType::f32, &rep), Status::illegal_overlap);
  x = d;
  x.dst_repeat_stride = 4096;
  EXPECT_EQ(issue::issue_once(u.vu, x, DType::f32, &rep), Status::desc_stride_out_of_range);
  EXPECT_EQ(issue::issue_once(u.vu, d, DType::i8, &rep), Status::desc_unsupported_dtype);
  // Data: a misaligned offset faults the issue at that lane; nothing is written.
  std::memset(ub, 0x33, 256);
  store_bits(ub, 0x1000 + 9 * 4, 4, 38);
  EXPECT_EQ(issue::issue_once(u.vu, d, DType::f32), Status::misaligned);
  EXPECT_EQ(u.s.core_model.vector_unit().last_report().block_index, 9u);
  EXPECT_EQ(u.s.core_model.vector_unit().last_report().byte_offset, 0x2000u + 38u);
  for (uint32_t b = 0; b < 256; ++b) ASSERT_EQ(ub[b], 0x33) << b;
}

// TGATHER and TCOLPROD on the A5 profile: the same streams and bits as on a2a3 (the a2a3
// subset of A5's types), checked against the references here.
TEST(TileExactGather, A5ProfileSameBits) {
  for (const uint32_t prof : kProfiles) {
    Sim s(prof);
    tile::Core& core = s.core;
    uint8_t* ub = s.ub();
    s.fill_ub(91);
    VTile<float, 8, 16> dst(8, 16);
    VTile<float, 16, 16> src(16, 16);
    VTile<uint32_t, 8, 16> idx(8, 16);
    VTile<uint32_t, 8, 16> tmp(8, 16);
    VTile<float, 1, 16> prod(1, 16);
    ASSERT_EQ(tile::TASSIGN(dst, 0), Status::ok);
    ASSERT_EQ(tile::TASSIGN(src, 0x400), Status::ok);
    ASSERT_EQ(tile::TASSIGN(idx, 0x800), Status::ok);
    ASSERT_EQ(tile::TASSIGN(tmp, 0xC00), Status::ok);
    ASSERT_EQ(tile::TASSIGN(prod, 0x1000), Status::ok);
    for (uint32_t k = 0; k < 256; ++k) store_bits(ub, 0x400 + k * 4, 4, bits_of(1.0f + static_cast<float>(k % 13) / 64.0f));
    for (uint32_t k = 0; k < 128; ++k) store_bits(ub, 0x800 + k * 4, 4, (k * 37 + 11) % 256);
    const std::vector<uint8_t> before(ub, ub + 0x1000);
    ASSERT_TRUE(tile::TGATHER(core, dst, src, idx, tmp).ok()) << status_name(core.last_report.status);
    for (uint32_t k = 0; k < 128; ++k) {
      EXPECT_EQ(load_bits(ub, k * 4, 4), load_bits(before.data(), 0x400 + ((k * 37 + 11) % 256) * 4, 4)) << k;
    }
    ASSERT_TRUE(tile::TCOLPROD(core, prod, src).ok()) << status_name(core.last_report.status);
    for (uint32_t j = 0; j < 16; ++j) {
      float acc = f32_of(load_bits(before.data(), 0x400 + j * 4, 4));
      for (uint32_t i = 1; i < 16; ++i) acc = acc * f32_of(load_bits(before.data(), 0x400 + (i * 16 + j) * 4, 4));
      EXPECT_EQ(load_bits(ub, 0x1000 + j * 4, 4), bits_of(acc)) << j;
    }
  }
}

// The unit's own vgather checks agree with the core's validator (desc::validate) on random
// registers written raw (no validation on the way); the offsets hold 0, so every gathered
// address is BASE and the data checks pass whenever BASE is in UB.
TEST(VectorGather, AgreesWithTheCoreValidatorOnRandomRegisters) {
  Sim s;
  uint32_t seed = 2026;
  auto pick = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  const DType types[] = {DType::f16, DType::f32, DType::i8, DType::u16, DType::i32};
  std::memset(s.ub(), 0, a2a3::kUbBytes);
  int faults = 0;
  for (int n = 0; n < 4000; ++n) {
    auto place = [&]() { return pick(4) == 0 ? 196608 - 32 * pick(40) + (pick(8) == 0 ? 4 : 0) : 32 * pick(120); };
    const bool counter = pick(4) == 0;
    desc::GatherDesc d{};
    d.mask_mode = counter ? desc::MaskMode::count : desc::MaskMode::normal;
    d.repeat = counter ? (pick(6) == 0 ? 1 : 0) : pick(6);
    d.vector_count = counter ? pick(400) : 0;
    d.dst_repeat_stride = pick(10) == 0 ? 4096 : pick(20);
    d.base = pick(6) == 0 ? 2 : 32 * pick(200);
    d.dst.offset = place();
    d.offsets.offset = place();
    const desc::Mask128 mask = pick(5) == 0 ? desc::Mask128{0, 0} : desc::Mask128{pick(3) == 0 ? 0 : ~0ull, 1ull << pick(64)};
    const DType dt = types[pick(5)];
    const desc::DescReport want = desc::validate(d, dt, mask, chip::Chip::a2a3);
    const uint64_t b = a2a3::kVectorUnitRegisters.base;
    s.m.write64(b + a2a3::vreg::kCtrl, a2a3::vreg::kCtrlReset | (counter ? a2a3::vreg::kCtrlCounterMode : 0));
    s.m.write64(b + a2a3::vreg::kMaskLo, counter ? d.vector_count : mask.lo);
    s.m.write64(b + a2a3::vreg::kMaskHi, counter ? 0 : mask.hi);
    s.m.write32(b + a2a3::vreg::kOp, a2a3::vreg::op_word(a2a3::vreg::kOpClassGather, static_cast<uint32_t>(dt)));
    s.m.write32(b + a2a3::vreg::kRepeat, d.repeat);
    s.m.write32(b + a2a3::vreg::kDstStride, a2a3::vreg::stride_word(1, d.dst_repeat_stride));
    s.m.write32(b + a2a3::vreg::kDstAddr, d.dst.offset);
    s.m.write32(b + a2a3::vreg::kSrc0Addr, d.offsets.offset);
    s.m.write32(b + a2a3::vreg::kSrc1Addr, d.base);
    s.m.write32(b + a2a3::vreg::kDoorbell, 1);
    const auto got = static_cast<Status>(s.m.read32(b + a2a3::vreg::kStatus) & 0xFFFFu);
    ASSERT_EQ(got, want.status) << "case " << n << " field " << want.field << "/"
                                << s.core_model.vector_unit().last_report().field;
    faults += got != Status::ok;
    std::memset(s.ub(), 0, a2a3::kUbBytes);  // a gather that ran wrote dst: keep the offsets 0
  }
  EXPECT_GT(faults, 500);
}
