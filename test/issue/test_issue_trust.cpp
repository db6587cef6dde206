// Validate once, then trust, on whichever port the build uses: only validation makes a
// desc::Validated<> (and only a sealed plan a TrustedStep); emit writes exactly what issue_once
// writes, puts back the MASK it was validated against; a plan that was not validated whole
// (hand-built, or changed after sealing) is replayed through issue_once, which still rejects a
// bad descriptor before any register write.
#include <cstdint>
#include <type_traits>

#include "tilefw/port/port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/run.hpp"

namespace port = tilefw::port;
namespace vreg = tilefw::chip::a2a3::vreg;
namespace issue = tilefw::issue;
namespace desc = tilefw::desc;
namespace plan = tilefw::plan;
using tilefw::DType;
using tilefw::Status;

namespace {
using VBin = desc::Validated<desc::BinIntrinsicDesc>;
// A Validated<> cannot be forged: no public constructor from a descriptor (with or without the
// dtype and MASK), no default one; only copies of one validation produced.
static_assert(!std::is_constructible_v<VBin, const desc::BinIntrinsicDesc&, DType, desc::Mask128>);
static_assert(!std::is_constructible_v<VBin, const desc::BinIntrinsicDesc&>);
static_assert(!std::is_default_constructible_v<VBin>);
static_assert(std::is_copy_constructible_v<VBin>);
// A TrustedStep is only filled by the cursor of a sealed plan.
static_assert(!std::is_constructible_v<plan::TrustedStep, const plan::Step&>);

constexpr uint32_t kSentinel = 0xDEAD'BEEFu;
constexpr uint32_t kRegs[] = {vreg::kCtrl,    vreg::kCtrl + 4,  vreg::kMaskLo,    vreg::kMaskLo + 4, vreg::kMaskHi,
                              vreg::kMaskHi + 4, vreg::kOp,     vreg::kRepeat,    vreg::kDstAddr,    vreg::kSrc0Addr,
                              vreg::kSrc1Addr, vreg::kDstStride, vreg::kSrc0Stride, vreg::kSrc1Stride};
void fill_sentinel() {
  for (uint32_t off : kRegs) port::reg_write32(vreg::address(off), kSentinel);
  port::reg_write32(vreg::address(vreg::kDoorbell), 0);
  port::reg_write32(vreg::address(vreg::kStatus), 0);
}
uint32_t r32(uint32_t off) { return port::reg_read32(vreg::address(off)); }
uint64_t r64(uint32_t off) { return port::reg_read64(vreg::address(off)); }

desc::BinIntrinsicDesc vadd(uint32_t repeat, uint32_t dst, uint32_t src0, uint32_t src1) {
  desc::BinIntrinsicDesc d{};
  d.repeat = repeat;
  d.dst.offset = dst;
  d.src0.offset = src0;
  d.src1.offset = src1;
  return d;
}

// Plans are a few KB: static, not on a Cortex-M test stack.
plan::Plan g_plan;
plan::Plan g_bad;

// dst = src0 shifted by one block over two repeats: illegal_overlap (docs/a2a3-vector-semantics.md
// section 5).
plan::Plan& hand_built_bad_plan() {
  plan::Segment g{};
  g.step.kind = plan::StepKind::binary;
  g.step.dtype = DType::f32;
  g.step.binary = vadd(2, 32, 0, 4096);
  g_bad.clear();
  if (g_bad.append(g) != Status::ok) g_bad.clear();
  return g_bad;
}
}  // namespace

TEST(Trust, EmitWritesWhatIssueOnceWrites) {
  issue::VectorUnit a{};
  fill_sentinel();
  ASSERT_EQ(issue::issue_once(a, vadd(64, 32768, 0, 16384), DType::f32), Status::ok);
  uint32_t once[sizeof(kRegs) / sizeof(kRegs[0])];
  for (uint32_t i = 0; i < sizeof(kRegs) / sizeof(kRegs[0]); ++i) once[i] = r32(kRegs[i]);

  issue::VectorUnit b{};
  desc::DescReport report{};
  const tilefw::Result<VBin> v = desc::Validator::check(vadd(64, 32768, 0, 16384), DType::f32, b.mask, &report);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(report.status, Status::ok);
  fill_sentinel();
  ASSERT_EQ(issue::emit(b, *v), Status::ok);
  for (uint32_t i = 0; i < sizeof(kRegs) / sizeof(kRegs[0]); ++i) EXPECT_EQ(r32(kRegs[i]), once[i]);
  EXPECT_EQ(r32(vreg::kDoorbell), 1u);
}

TEST(Trust, ValidatorRefusesABadDescriptorAndIssueOnceStillChecks) {
  issue::VectorUnit vu{};
  desc::DescReport report{};
  const tilefw::Result<VBin> v = desc::Validator::check(vadd(2, 32, 0, 4096), DType::f32, vu.mask, &report);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status(), Status::illegal_overlap);
  EXPECT_EQ(report.status, Status::illegal_overlap);
  fill_sentinel();
  EXPECT_EQ(issue::issue_once(vu, vadd(2, 32, 0, 4096), DType::f32), Status::illegal_overlap);
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);
  EXPECT_EQ(r32(vreg::kOp), kSentinel);
}

TEST(Trust, EmitPutsBackTheMaskItWasValidatedAgainst) {
  issue::VectorUnit vu{};
  const desc::Mask128 eight{0, 0xFF};
  issue::set_mask(vu, eight.hi, eight.lo);
  const tilefw::Result<VBin> v = desc::Validator::check(vadd(1, 512, 0, 256), DType::f32, vu.mask);
  ASSERT_TRUE(v.ok());
  issue::set_mask(vu, ~uint64_t{0}, ~uint64_t{0});  // changed after validation
  fill_sentinel();
  ASSERT_EQ(issue::emit(vu, *v), Status::ok);
  EXPECT_EQ(r64(vreg::kMaskLo), 0xFFu);
  EXPECT_EQ(r64(vreg::kMaskHi), 0u);
  EXPECT_TRUE(vu.mask == eight);
}

TEST(Trust, OnlyAPlanValidatedWholeIsTrusted) {
  plan::Plan& p = g_plan;
  const plan::Request req = plan::Request::binary(plan::TileOp::TADD, plan::ub_tile(32768, DType::f32, 64, 64),
                                                  plan::ub_tile(0, DType::f32, 64, 64),
                                                  plan::ub_tile(16384, DType::f32, 64, 64));
  ASSERT_EQ(plan::plan_tile(req, p), Status::ok);
  EXPECT_TRUE(p.trusted());
  EXPECT_TRUE(p.planned_for(req));
  plan::Request other = req;
  other.dst.offset = 49152;
  EXPECT_FALSE(p.planned_for(other));
  const plan::Segment extra = p.segment(0);
  ASSERT_EQ(p.append(extra), Status::ok);  // changed after sealing
  EXPECT_FALSE(p.trusted());
  EXPECT_FALSE(p.planned_for(req));
  plan::TrustedStep t;
  plan::Plan::Cursor c = p.begin();
  EXPECT_FALSE(c.next(t));  // an untrusted plan yields no trusted step

  plan::Plan& bad = hand_built_bad_plan();
  desc::DescReport report{};
  EXPECT_EQ(plan::plan_seal(bad, &report), Status::illegal_overlap);
  EXPECT_FALSE(bad.trusted());
}

TEST(Trust, AnUnvalidatedPlanRunsThroughIssueOnce) {
  issue::VectorUnit vu{};
  const plan::Plan& bad = hand_built_bad_plan();
  ASSERT_FALSE(bad.trusted());
  fill_sentinel();
  tilefw::tile::RunReport rep{};
  EXPECT_EQ(tilefw::tile::run_plan(vu, bad, &rep), Status::illegal_overlap);
  EXPECT_EQ(rep.desc.status, Status::illegal_overlap);
  EXPECT_EQ(r32(vreg::kDoorbell), 0u);
  EXPECT_EQ(r32(vreg::kOp), kSentinel);
}
