// The A5 profile's memory sizes at every layer that bounds an operand: the core's validators,
// the planner, issue_once, and the simulated vector unit and move engines (each its own
// oracle). A5's UB is 256 KB where a2a3's is 192 KB; its L0C 256 KB (a2a3 128 KB), its bias
// table 4 KB (a2a3 1 KB). The refusals name the limit of the profile that refused.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/issue/engine_issue.hpp"
#include "tilefw/issue/vector_issue.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/run.hpp"

using namespace tilefw;
using chip::Chip;
using chip::MemSpace;

namespace {

constexpr uint32_t kA2a3Ub = 192 * 1024;
constexpr uint32_t kA5Ub = 256 * 1024;

struct Sim {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3Core npu{m};
  explicit Sim(Chip c) : m(c == Chip::a5 ? port::host::kProfileA5 : port::host::kProfileA2a3) {}
  uint8_t* at(MemSpace s, uint64_t off) {
    const chip::MemoryRegion* r = chip::region_of(npu.chip(), s);
    return *m.translate(r->device_base + off, 1);
  }
  float* ub_f32(uint64_t off) { return reinterpret_cast<float*>(at(MemSpace::UB, off)); }
};

desc::BinIntrinsicDesc vadd_f32(uint32_t dst, uint32_t s0, uint32_t s1) {
  desc::BinIntrinsicDesc d{};
  d.op = desc::BinaryOp::vadd;
  d.repeat = 1;
  d.dst = desc::Operand{MemSpace::UB, dst};
  d.src0 = desc::Operand{MemSpace::UB, s0};
  d.src1 = desc::Operand{MemSpace::UB, s1};
  d.dst_block_stride = d.src0_block_stride = d.src1_block_stride = 1;
  d.dst_repeat_stride = d.src0_repeat_stride = d.src1_repeat_stride = 8;
  return d;
}

TEST(A5Sizes, VectorValidatorBoundsByTheProfilesUb) {
  // 200 KB: above a2a3's UB, inside A5's.
  const desc::BinIntrinsicDesc d = vadd_f32(0x32000, 0x33000, 0x34000);
  EXPECT_TRUE(desc::validate(d, DType::f32, desc::Mask128::all(), Chip::a5).ok());
  EXPECT_TRUE(desc::quick_valid(d, DType::f32, desc::Mask128::all(), Chip::a5));
  const desc::DescReport r = desc::validate(d, DType::f32, desc::Mask128::all(), Chip::a2a3);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "dst");
  EXPECT_EQ(r.limit, kA2a3Ub);
  // The last block of A5's UB is inside, the next one not, and the limit named is A5's.
  EXPECT_TRUE(desc::validate(vadd_f32(kA5Ub - 256, 0, 256), DType::f32, desc::Mask128::all(), Chip::a5).ok());
  const desc::DescReport past = desc::validate(vadd_f32(kA5Ub, 0, 256), DType::f32, desc::Mask128::all(), Chip::a5);
  EXPECT_EQ(past.status, Status::out_of_bounds);
  EXPECT_EQ(past.limit, kA5Ub);
  // A5 reserves no top of UB (a2a3's last 8 KB draw the diagnostic).
  EXPECT_FALSE(desc::validate(vadd_f32(kA5Ub - 256, 0, 256), DType::f32, desc::Mask128::all(), Chip::a5)
                   .touches_reserved_ub);
  EXPECT_TRUE(desc::validate(vadd_f32(kA2a3Ub - 256, 0, 256), DType::f32, desc::Mask128::all(), Chip::a2a3)
                  .touches_reserved_ub);
  // The other vector classes follow the same bound.
  desc::CopyDesc c{};
  c.nburst = 1;
  c.burst_len = 8;
  c.dst = desc::Operand{MemSpace::UB, 0x3F000};
  c.src = desc::Operand{MemSpace::UB, 0x0};
  EXPECT_TRUE(desc::validate(c, Chip::a5).ok());
  EXPECT_EQ(desc::validate(c, Chip::a2a3).limit, kA2a3Ub);
}

TEST(A5Sizes, IssueOnceAndTheSimulatedUnitFollowTheProfile) {
  // An A5 core runs an add at 200 KB with exact results.
  Sim a5(Chip::a5);
  issue::VectorUnit vu{};
  vu.chip = Chip::a5;
  for (int i = 0; i < 64; ++i) {
    a5.ub_f32(0x33000)[i] = static_cast<float>(i) + 0.25f;
    a5.ub_f32(0x34000)[i] = static_cast<float>(3 * i) - 1.0f;
  }
  desc::DescReport r{};
  ASSERT_EQ(issue::issue_once(vu, vadd_f32(0x32000, 0x33000, 0x34000), DType::f32, &r), Status::ok);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(a5.ub_f32(0x32000)[i], static_cast<float>(4 * i) - 0.75f) << i;
  // The a2a3 unit is its own oracle: an issue the core let through (validated for A5) faults
  // there with a2a3's limit, and nothing is written.
  Sim a2(Chip::a2a3);
  EXPECT_EQ(issue::issue_once(vu, vadd_f32(0x31000, 0x32000, 0x33000), DType::f32), Status::out_of_bounds);
  EXPECT_EQ(a2.npu.vector_unit().last_report().limit, kA2a3Ub);
  // The same issue validated for a2a3 is refused by the core before any register write.
  vu.chip = Chip::a2a3;
  EXPECT_EQ(issue::issue_once(vu, vadd_f32(0x31000, 0x32000, 0x33000), DType::f32, &r), Status::out_of_bounds);
  EXPECT_EQ(r.limit, kA2a3Ub);
  EXPECT_EQ(a2.npu.vector_unit().issues(), 1u);
}

desc::MoveDesc load_f32(uint64_t gm, MemSpace to, uint64_t off, uint32_t rows, uint32_t cols) {
  desc::MoveDesc d{};
  d.pipe = chip::a2a3::Pipe::MTE2;
  d.rows = rows;
  d.cols = cols;
  d.src = desc::MoveOperand{MemSpace::GM, gm, DType::f32, {}, rows, cols, cols};
  d.dst = desc::MoveOperand{to, off, DType::f32, {}, rows, cols, cols};
  return d;
}

TEST(A5Sizes, MoveEnginesBoundByTheProfile) {
  // 8 x 64 floats (2 KB) into UB at 240 KB: A5 only.
  const desc::MoveDesc d = load_f32(0x1000, MemSpace::UB, 0x3C000, 8, 64);
  desc::DescReport r{};
  {
    Sim a5(Chip::a5);
    float* gm = reinterpret_cast<float*>(a5.at(MemSpace::GM, 0x1000));
    for (int i = 0; i < 512; ++i) gm[i] = static_cast<float>(i) * 0.5f;
    ASSERT_EQ(issue::issue_once(d, nullptr, Chip::a5), Status::ok);
    EXPECT_EQ(std::memcmp(a5.ub_f32(0x3C000), gm, 2048), 0);
    EXPECT_EQ(issue::issue_once(d, &r, Chip::a2a3), Status::out_of_bounds);
    EXPECT_STREQ(r.field, "dst");
    EXPECT_EQ(r.limit, kA2a3Ub);
    // L1 is 512 KB on both profiles: its last 2 KB load on A5, 1 KB further is refused
    // naming 524288.
    EXPECT_EQ(issue::issue_once(load_f32(0x1000, MemSpace::L1, 512 * 1024 - 2048, 8, 64), nullptr, Chip::a5),
              Status::ok);
    EXPECT_EQ(issue::issue_once(load_f32(0x1000, MemSpace::L1, 512 * 1024 - 1024, 8, 64), &r, Chip::a5),
              Status::out_of_bounds);
    EXPECT_EQ(r.limit, 512u * 1024u);
  }
  // The a2a3 engine is its own oracle: the move validated for A5 but issued on an a2a3 core
  // faults there, naming a2a3's UB.
  Sim a2(Chip::a2a3);
  EXPECT_EQ(issue::issue_once(d, nullptr, Chip::a5), Status::out_of_bounds);
  EXPECT_EQ(a2.npu.mte2().last_report().limit, kA2a3Ub);
}

TEST(A5Sizes, CubeBoundsL0cAndBiasByTheProfile) {
  desc::MatmulDesc d{};
  d.kind = desc::MatmulKind::bias;
  d.a_type = d.b_type = DType::f16;
  d.c_type = DType::f32;
  d.m = d.a_rows = d.c_rows = 16;
  d.k = d.a_cols = d.b_rows = 16;
  d.n = d.b_cols = d.c_cols = 16;
  d.c_offset = 0x20000;  // 128 KB: past a2a3's L0C
  d.bias_offset = 0;
  EXPECT_TRUE(desc::validate(d, Chip::a5).ok());
  desc::DescReport r = desc::validate(d, Chip::a2a3);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "c");
  EXPECT_EQ(r.limit, 128u * 1024u);
  d.c_offset = 0x3FC00;  // the last 1 KB box of A5's L0C
  EXPECT_TRUE(desc::validate(d, Chip::a5).ok());
  d.c_offset = 0;
  d.bias_offset = 0x400;  // 1 KB: past a2a3's bias table
  EXPECT_TRUE(desc::validate(d, Chip::a5).ok());
  r = desc::validate(d, Chip::a2a3);
  EXPECT_EQ(r.status, Status::out_of_bounds);
  EXPECT_STREQ(r.field, "bias");
  EXPECT_EQ(r.limit, 1024u);
  d.bias_offset = 4096 - 64;  // 16 floats = 64 B: the last bytes of A5's
  EXPECT_TRUE(desc::validate(d, Chip::a5).ok());
  d.bias_offset = 4096;
  EXPECT_EQ(desc::validate(d, Chip::a5).limit, 4096u);
}

// The planner: tiles placed above a2a3's UB plan and run on A5; a2a3 refuses them, the report
// naming the operand and a2a3's UB size.
TEST(A5Sizes, PlannerPlacesIntoA5sLargerUb) {
  // x = x + x over one 224 KB tile (in place: identical operands are legal).
  constexpr uint32_t kRows = 224, kCols = 256;
  const plan::TileDesc x = plan::ub_tile(0, DType::f32, kRows, kCols);
  plan::Request q = plan::Request::binary(plan::TileOp::TADD, x, x, x);
  q.chip = Chip::a5;
  Sim a5(Chip::a5);
  std::vector<float> in(kRows * kCols);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i % 1000) - 500) * 0.125f;
  std::memcpy(a5.ub_f32(0), in.data(), in.size() * 4);
  issue::VectorUnit vu{};
  plan::Plan p;
  tile::RunReport rep{};
  ASSERT_EQ(tile::run(vu, q, p, &rep), Status::ok) << status_name(rep.desc.status) << " " << rep.desc.field;
  EXPECT_EQ(p.chip(), Chip::a5);
  for (uint32_t i = 0; i < in.size(); ++i) ASSERT_EQ(a5.ub_f32(0)[i], in[i] + in[i]) << i;
  // A small tile at 200 KB plans on A5 only.
  const plan::TileDesc hi = plan::ub_tile(0x32000, DType::f32, 16, 64);
  plan::Request small = plan::Request::binary(plan::TileOp::TMUL, hi, hi, hi);
  small.chip = Chip::a5;
  EXPECT_EQ(plan::plan_tile(small, p), Status::ok);
  // On a2a3 both are refused before anything is issued, naming dst and 196608.
  for (plan::Request a2 : {q, small}) {
    a2.chip = Chip::a2a3;
    desc::DescReport r{};
    EXPECT_EQ(plan::plan_tile(a2, p, &r), Status::tile_out_of_bounds);
    EXPECT_STREQ(r.field, "dst");
    EXPECT_EQ(r.limit, kA2a3Ub);
  }
  // A plan sealed for A5 is no longer trusted once it is said to be for a2a3.
  ASSERT_EQ(plan::plan_tile(small, p), Status::ok);
  p.set_chip(Chip::a2a3);
  EXPECT_FALSE(p.trusted());
  EXPECT_EQ(plan::plan_seal(p), Status::out_of_bounds);
}

}  // namespace
