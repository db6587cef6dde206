// The tile engines' own decode checks (port/host/a2a3/tile_check.hpp), host only: over random
// move and matmul descriptors (legal, near the limits, and broken one rule at a time) the
// engines' checks and the core's validator (desc::validate, an independent implementation)
// agree on every status, field, value, limit and fault offset; and bad registers written
// straight into the engines fault with those checks' status, changing nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "a2a3/core.hpp"
#include "a2a3/tile_check.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/desc/validate_tile_move.hpp"

using namespace tilefw;
namespace a2a3 = chip::a2a3;
using chip::MemSpace;
using chip::a2a3::Pipe;
namespace tile_check = port::host::tile_check;

namespace {

void expect_same(const desc::DescReport& engine, const desc::DescReport& core, const std::string& what) {
  EXPECT_EQ(engine.status, core.status) << what << ": engine " << status_name(engine.status) << " (" << engine.field
                                        << "), core " << status_name(core.status) << " (" << core.field << ")";
  EXPECT_STREQ(engine.field, core.field) << what;
  EXPECT_EQ(engine.value, core.value) << what;
  EXPECT_EQ(engine.limit, core.limit) << what;
  EXPECT_EQ(engine.byte_offset, core.byte_offset) << what;
  EXPECT_EQ(engine.repeats, core.repeats) << what;
}

// ---- random moves ---------------------------------------------------------------------------

struct Route {
  Pipe pipe;
  MemSpace from, to;
};
constexpr Route kLegalRoutes[] = {
    {Pipe::MTE2, MemSpace::GM, MemSpace::UB},  {Pipe::MTE2, MemSpace::GM, MemSpace::L1},
    {Pipe::MTE1, MemSpace::L1, MemSpace::L0A}, {Pipe::MTE1, MemSpace::L1, MemSpace::L0B},
    {Pipe::MTE1, MemSpace::L1, MemSpace::BiasTable}, {Pipe::MTE3, MemSpace::UB, MemSpace::GM},
    {Pipe::FIX, MemSpace::L0C, MemSpace::UB},  {Pipe::FIX, MemSpace::L0C, MemSpace::GM},
};
constexpr MemSpace kSpaces[] = {MemSpace::GM, MemSpace::UB, MemSpace::L1, MemSpace::L0A,
                                MemSpace::L0B, MemSpace::L0C, MemSpace::BiasTable, MemSpace::Fixpipe};
constexpr Pipe kPipes[] = {Pipe::MTE2, Pipe::MTE1, Pipe::MTE3, Pipe::FIX, Pipe::V, Pipe::M};

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  /// The profile whose Left layout L0A operands get: a2a3's row order of boxes, or A5's column
  /// order (spelt here, not taken from the code under test).
  chip::Chip left_on = chip::Chip::a2a3;
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool chance(uint32_t percent) { return below(100) < percent; }
  // Mostly small, sometimes at or past a limit.
  uint32_t dim(uint32_t typical) {
    switch (below(20)) {
      case 0: return 0;
      case 1: return 0xFFFF;
      case 2: return 0x10000 + below(4);
      default: return 1 + below(typical);
    }
  }
  template <class T, size_t N>
  T pick(const T (&a)[N]) {
    return a[below(N)];
  }

  desc::OperandLayout layout_for(MemSpace s, DType dt) {
    const uint32_t elem = dtype_size(dt);
    switch (s) {
      case MemSpace::L0A: return desc::OperandLayout{left_on == chip::Chip::a5, desc::BoxOrder::row_major, 16, 32 / elem};
      case MemSpace::L0B: return desc::zn_layout(elem);
      case MemSpace::L0C: return desc::nz_acc_layout();
      case MemSpace::UB:
      case MemSpace::L1:
        if (chance(40)) {  // a 512 / 1024 B box in either order
          const uint32_t rows = chance(50) ? 16 : 32 / elem;
          const uint32_t bytes = chance(50) ? 512 : 1024;
          return desc::OperandLayout{chance(50), chance(50) ? desc::BoxOrder::row_major : desc::BoxOrder::col_major,
                                     rows, bytes / elem / rows};
        }
        return desc::OperandLayout{chance(30), desc::BoxOrder::none, 1, 1};
      default: return desc::OperandLayout{};
    }
  }
  // Breaks one layout field now and then.
  void disturb(desc::OperandLayout& l) {
    switch (below(12)) {
      case 0: l.col_major = !l.col_major; break;
      case 1: l.box = static_cast<desc::BoxOrder>(below(3)); break;
      case 2: l.box_rows = below(40); break;
      case 3: l.box_cols = below(40); break;
      default: break;
    }
  }

  desc::MoveOperand operand(MemSpace s, DType dt, uint32_t rows, uint32_t cols) {
    desc::MoveOperand o{};
    o.space = s;
    o.dtype = dt;
    o.layout = layout_for(s, dt);
    disturb(o.layout);
    const desc::OperandLayout& l = o.layout;
    // Capacity: the extent, rounded up to whole boxes when boxed, sometimes off by a bit.
    uint32_t cap_rows = rows, cap_cols = cols;
    if (l.box != desc::BoxOrder::none && l.box_rows != 0 && l.box_cols != 0) {
      cap_rows = (rows + l.box_rows - 1) / l.box_rows * l.box_rows;
      cap_cols = (cols + l.box_cols - 1) / l.box_cols * l.box_cols;
    }
    if (chance(10)) cap_rows = cap_rows + below(3) - 1;
    if (chance(10)) cap_cols = cap_cols + below(3) - 1;
    if (chance(3)) cap_rows = 0x10000 + below(3);
    o.rows = s == MemSpace::BiasTable && chance(80) ? 1 : cap_rows;
    o.cols = cap_cols;
    const uint32_t line = l.col_major ? o.rows : o.cols;
    o.stride = chance(85) ? line + (chance(50) ? 0 : below(64)) : below(line + 2);
    // Offset: aligned, near the start or the end of the space, sometimes misaligned or past it.
    const uint64_t size = a2a3::region_size(s);
    const uint32_t align = a2a3::region_alignment(s);
    uint64_t off = chance(50) ? uint64_t{below(64)} * align : (size > 4096 ? size - uint64_t{below(4096)} : below(64));
    off = off / align * align;
    if (chance(8)) off += 1 + below(31);
    if (chance(3)) off = size + below(1024);
    o.offset = off;
    return o;
  }

  desc::MoveDesc move() {
    desc::MoveDesc d{};
    Route r = pick(kLegalRoutes);
    if (chance(5)) r.pipe = pick(kPipes);
    if (chance(5)) r.from = pick(kSpaces);
    if (chance(5)) r.to = pick(kSpaces);
    d.pipe = r.pipe;
    DType from = chance(90) ? (r.pipe == Pipe::FIX ? (chance(80) ? DType::f32 : DType::i32) : pick(kAllDTypes))
                            : pick(kAllDTypes);
    DType to = from;
    if (r.pipe == Pipe::FIX && from == DType::f32 && chance(60)) to = chance(50) ? DType::f16 : DType::bf16;
    if (chance(5)) to = pick(kAllDTypes);
    d.rows = dim(chance(50) ? 64 : 600);
    d.cols = dim(chance(50) ? 64 : 600);
    const uint32_t rows = d.rows == 0 || d.rows > 0xFFFF ? 1 : d.rows;
    const uint32_t cols = d.cols == 0 || d.cols > 0xFFFF ? 1 : d.cols;
    d.src = operand(r.from, from, rows, cols);
    d.dst = operand(r.to, to, rows, cols);
    return d;
  }

  desc::MatmulDesc matmul() {
    desc::MatmulDesc d{};
    d.kind = static_cast<desc::MatmulKind>(chance(97) ? below(3) : 3);
    static constexpr DType kAb[] = {DType::f16, DType::bf16, DType::f32, DType::i8};
    d.a_type = chance(95) ? pick(kAb) : pick(kAllDTypes);
    d.b_type = chance(97) ? d.a_type : pick(kAllDTypes);
    d.c_type = d.a_type == DType::i8 ? DType::i32 : DType::f32;
    if (chance(4)) d.c_type = pick(kAllDTypes);
    auto mkn = [&]() -> uint32_t {
      switch (below(25)) {
        case 0: return 0;
        case 1: return 4095 + below(3);
        default: return 1 + below(chance(70) ? 64 : 300);
      }
    };
    d.m = mkn();
    d.k = mkn();
    d.n = mkn();
    const uint32_t ea = dtype_size(d.a_type);
    auto cap = [&](uint32_t need, uint32_t box) -> uint32_t {
      if (box == 0) box = 1;
      uint32_t v = (need + box - 1) / box * box;
      if (chance(8)) v = v + below(5) - 2;
      if (chance(3)) v = need == 0 ? 0 : need - 1;
      return v;
    };
    d.a_rows = cap(d.m, 16);
    d.a_cols = cap(d.k, 32 / ea);
    d.b_rows = cap(d.k, 32 / ea);
    d.b_cols = cap(d.n, 16);
    d.c_rows = cap(d.m, 16);
    d.c_cols = cap(d.n, 16);
    auto offset = [&](MemSpace s) -> uint32_t {
      const uint32_t size = static_cast<uint32_t>(a2a3::region_size(s));
      const uint32_t align = a2a3::region_alignment(s);
      uint32_t off = chance(60) ? below(8) * align : size - below(size / 2 + 1);
      off = off / align * align;
      if (chance(6)) off += 1 + below(align - 1);
      if (chance(2)) off = size + below(4096);
      return off;
    };
    d.a_offset = offset(MemSpace::L0A);
    d.b_offset = offset(MemSpace::L0B);
    d.c_offset = offset(MemSpace::L0C);
    d.bias_offset = offset(MemSpace::BiasTable);
    return d;
  }

 private:
  std::mt19937 rng_;
};

std::string describe(const desc::MoveDesc& d) {
  return "move pipe " + std::to_string(static_cast<int>(d.pipe)) + " " + mem_space_name(d.src.space) + " -> " +
         mem_space_name(d.dst.space) + " extent " + std::to_string(d.rows) + "x" + std::to_string(d.cols) +
         " src off " + std::to_string(d.src.offset) + " dst off " + std::to_string(d.dst.offset);
}

TEST(TileCheck, MovesAgreeWithTheCoreValidator) {
  Gen g(20261125);
  uint32_t statuses[4] = {};  // ok, layout/shape, memory, route/type
  for (int i = 0; i < 20000; ++i) {
    const desc::MoveDesc d = g.move();
    const desc::DescReport core = desc::validate(d);
    expect_same(tile_check::check_move(d), core, describe(d));
    if (::testing::Test::HasFailure()) return;
    const Status s = core.status;
    statuses[s == Status::ok                                                                ? 0
             : s == Status::misaligned || s == Status::out_of_bounds                        ? 2
             : s == Status::desc_dma_route_unsupported || s == Status::desc_conversion_unsupported ? 3
                                                                                            : 1]++;
  }
  // The generator reaches every kind of verdict (a test that cannot fail would not).
  for (uint32_t n : statuses) EXPECT_GT(n, 500u);
}

TEST(TileCheck, MatmulsAgreeWithTheCoreValidator) {
  Gen g(4242);
  uint32_t statuses[4] = {};  // ok, shape/layout, memory, kind/types
  for (int i = 0; i < 20000; ++i) {
    const desc::MatmulDesc d = g.matmul();
    const desc::DescReport core = desc::validate(d);
    expect_same(tile_check::check_matmul(d), core,
                "matmul m/k/n " + std::to_string(d.m) + "/" + std::to_string(d.k) + "/" + std::to_string(d.n));
    if (::testing::Test::HasFailure()) return;
    const Status s = core.status;
    statuses[s == Status::ok                                                         ? 0
             : s == Status::misaligned || s == Status::out_of_bounds                 ? 2
             : s == Status::desc_unknown_op || s == Status::desc_matmul_types_unsupported ? 3
                                                                                     : 1]++;
  }
  for (uint32_t n : statuses) EXPECT_GT(n, 300u);
}

// The A5 profile: the engines and the core bound operands by A5's sizes (L0C 256 KB, bias 4 KB,
// UB 256 KB) and still agree verdict for verdict; and some verdicts differ from a2a3's.
TEST(TileCheck, MovesAndMatmulsAgreeWithTheCoreValidatorOnA5) {
  Gen g(20261129);
  g.left_on = chip::Chip::a5;
  uint32_t differ = 0;
  uint32_t left_ok = 0;  // moves into an A5 Left tile both accept, which a2a3 refuses by its layout
  for (int i = 0; i < 20000; ++i) {
    const desc::MoveDesc d = g.move();
    const desc::DescReport core = desc::validate(d, chip::Chip::a5);
    expect_same(tile_check::check_move(d, chip::Chip::a5), core, describe(d));
    if (::testing::Test::HasFailure()) return;
    const desc::DescReport on_a2a3 = desc::validate(d, chip::Chip::a2a3);
    differ += core.status != on_a2a3.status;
    if (d.dst.space == MemSpace::L0A && core.ok()) {
      ++left_ok;
      EXPECT_EQ(on_a2a3.status, Status::desc_layout_unsupported) << describe(d);
      EXPECT_STREQ(on_a2a3.field, "dst.layout");
      EXPECT_EQ(tile_check::check_move(d, chip::Chip::a2a3).status, Status::desc_layout_unsupported);
    }
  }
  EXPECT_GT(left_ok, 100u);
  for (int i = 0; i < 20000; ++i) {
    const desc::MatmulDesc d = g.matmul();
    const desc::DescReport core = desc::validate(d, chip::Chip::a5);
    expect_same(tile_check::check_matmul(d, chip::Chip::a5), core, "matmul on a5");
    if (::testing::Test::HasFailure()) return;
    differ += core.status != desc::validate(d, chip::Chip::a2a3).status;
  }
  EXPECT_GT(differ, 0u);  // the profile reached the verdicts
}

// ---- raw registers --------------------------------------------------------------------------

struct Sim {
  port::host::Machine m{port::host::kProfileA2a3};
  port::host::ScopedMachine scope{m};
  port::host::A2a3Core npu{m};
};

uint32_t layout_word(const desc::MoveOperand& o) {
  const desc::OperandLayout& l = o.layout;
  return (l.col_major ? 1u : 0u) | (static_cast<uint32_t>(l.box) << 1) | (static_cast<uint32_t>(o.dtype) << 8) |
         ((l.box_rows & 0xFFu) << 16) | ((l.box_cols & 0xFFu) << 24);
}

// Writes the move's registers as they are (no validation) and rings the pipe's doorbell.
Status ring_move(const desc::MoveDesc& d) {
  const uint64_t b = a2a3::move_window(d.pipe)->base;
  port::reg_write64(b + a2a3::dreg::kSrcAddr, d.src.offset);
  port::reg_write64(b + a2a3::dreg::kDstAddr, d.dst.offset);
  port::reg_write32(b + a2a3::dreg::kSpaces, a2a3::dreg::spaces_word(d.src.space, d.dst.space));
  port::reg_write32(b + a2a3::dreg::kSrcLayout, layout_word(d.src));
  port::reg_write32(b + a2a3::dreg::kDstLayout, layout_word(d.dst));
  port::reg_write32(b + a2a3::dreg::kSrcShape, a2a3::dreg::pair_word(d.src.rows, d.src.cols));
  port::reg_write32(b + a2a3::dreg::kDstShape, a2a3::dreg::pair_word(d.dst.rows, d.dst.cols));
  port::reg_write32(b + a2a3::dreg::kSrcStride, d.src.stride);
  port::reg_write32(b + a2a3::dreg::kDstStride, d.dst.stride);
  port::reg_write32(b + a2a3::dreg::kExtent, a2a3::dreg::pair_word(d.rows, d.cols));
  port::ring_doorbell(b + a2a3::dreg::kDoorbell, 1);
  return static_cast<Status>(port::reg_read32(b + a2a3::dreg::kStatus) & 0xFFFFu);
}

Status ring_matmul(const desc::MatmulDesc& d) {
  const uint64_t c = a2a3::kCubeRegisters.base;
  port::reg_write32(c + a2a3::creg::kOp, a2a3::creg::op_word(static_cast<uint32_t>(d.kind),
                                                             static_cast<uint32_t>(d.a_type),
                                                             static_cast<uint32_t>(d.c_type)));
  port::reg_write32(c + a2a3::creg::kAAddr, d.a_offset);
  port::reg_write32(c + a2a3::creg::kBAddr, d.b_offset);
  port::reg_write32(c + a2a3::creg::kCAddr, d.c_offset);
  port::reg_write32(c + a2a3::creg::kBiasAddr, d.bias_offset);
  port::reg_write32(c + a2a3::creg::kAShape, a2a3::dreg::pair_word(d.a_rows, d.a_cols));
  port::reg_write32(c + a2a3::creg::kBShape, a2a3::dreg::pair_word(d.b_rows, d.b_cols));
  port::reg_write32(c + a2a3::creg::kCShape, a2a3::dreg::pair_word(d.c_rows, d.c_cols));
  port::reg_write32(c + a2a3::creg::kM, d.m);
  port::reg_write32(c + a2a3::creg::kK, d.k);
  port::reg_write32(c + a2a3::creg::kN, d.n);
  port::ring_doorbell(c + a2a3::creg::kDoorbell, 1);
  return static_cast<Status>(port::reg_read32(c + a2a3::creg::kStatus) & 0xFFFFu);
}

// A legal TLOAD of 16 x 64 f32 from GM row 0 into UB 0x1000.
desc::MoveDesc tload() {
  desc::MoveDesc d{};
  d.pipe = Pipe::MTE2;
  d.rows = 16;
  d.cols = 64;
  d.src = desc::MoveOperand{MemSpace::GM, 0, DType::f32, {}, 16, 64, 64};
  d.dst = desc::MoveOperand{MemSpace::UB, 0x1000, DType::f32, {}, 16, 64, 64};
  return d;
}

// A legal f16 16 x 32 x 16 TMATMUL_BIAS.
desc::MatmulDesc gemm() {
  desc::MatmulDesc d{};
  d.kind = desc::MatmulKind::bias;
  d.a_type = d.b_type = DType::f16;
  d.c_type = DType::f32;
  d.a_rows = 16, d.a_cols = 32, d.b_rows = 32, d.b_cols = 16, d.c_rows = 16, d.c_cols = 16;
  d.m = 16, d.k = 32, d.n = 16;
  return d;
}

TEST(TileCheck, BadMoveRegistersFaultAndMoveNothing) {
  Sim s;
  uint8_t* ub = *s.m.translate(a2a3::kUb.device_base, a2a3::kUbBytes);
  uint8_t* gm = *s.m.translate(a2a3::kGm.device_base, 16 * 64 * 4);
  for (uint32_t i = 0; i < 16 * 64 * 4; ++i) gm[i] = static_cast<uint8_t>(i * 7 + 1);
  ASSERT_EQ(ring_move(tload()), Status::ok);
  EXPECT_EQ(std::memcmp(ub + 0x1000, gm, 16 * 64 * 4), 0);
  std::memset(ub + 0x1000, 0, 16 * 64 * 4);

  struct Case {
    const char* what;
    void (*bend)(desc::MoveDesc&);
    Status status;
    const char* field;
    uint64_t byte_offset;
  };
  const Case cases[] = {
      {"UB source on MTE2", [](desc::MoveDesc& d) { d.src.space = MemSpace::UB; }, Status::desc_dma_route_unsupported,
       "src.space", 0},
      {"L0A destination on MTE2", [](desc::MoveDesc& d) { d.dst.space = MemSpace::L0A; },
       Status::desc_dma_route_unsupported, "dst.space", 0},
      {"f32 -> f16 on a DMA", [](desc::MoveDesc& d) { d.dst.dtype = DType::f16; }, Status::desc_conversion_unsupported,
       "dst.dtype", 0},
      {"extent rows 0", [](desc::MoveDesc& d) { d.rows = 0; }, Status::desc_shape_out_of_range, "rows", 0},
      {"extent past the tile", [](desc::MoveDesc& d) { d.dst.cols = 32, d.dst.stride = 32; },
       Status::desc_shape_out_of_range, "dst.cols", 0},
      {"stride shorter than a row", [](desc::MoveDesc& d) { d.src.stride = 63; }, Status::desc_layout_unsupported,
       "src.stride", 0},
      {"a 256 B box in UB", [](desc::MoveDesc& d) { d.dst.layout = {false, desc::BoxOrder::row_major, 8, 8}; },
       Status::desc_layout_unsupported, "dst.layout", 0},
      {"UB offset not 32 B aligned", [](desc::MoveDesc& d) { d.dst.offset = 0x1010; }, Status::misaligned,
       "dst.offset", 0x1010},
      {"UB tile past the end", [](desc::MoveDesc& d) { d.dst.offset = a2a3::kUbBytes - 0x800; },
       Status::out_of_bounds, "dst", a2a3::kUbBytes},
  };
  for (const Case& c : cases) {
    desc::MoveDesc d = tload();
    c.bend(d);
    EXPECT_EQ(ring_move(d), c.status) << c.what;
    EXPECT_STREQ(s.npu.mte2().last_report().field, c.field) << c.what;
    EXPECT_EQ(s.npu.mte2().last_report().byte_offset, c.byte_offset) << c.what;
    // The same verdict as the core's validator, and nothing moved.
    expect_same(s.npu.mte2().last_report(), desc::validate(d), c.what);
    for (uint32_t i = 0; i < 16 * 64 * 4; ++i) ASSERT_EQ(ub[0x1000 + i], 0) << c.what;
  }
}

TEST(TileCheck, BadCubeRegistersFaultAndWriteNothing) {
  Sim s;
  uint8_t* l0c = *s.m.translate(a2a3::kL0C.device_base, a2a3::kL0CBytes);
  ASSERT_EQ(ring_matmul(gemm()), Status::ok);
  std::memset(l0c, 0xA5, 16 * 16 * 4);
  struct Case {
    const char* what;
    void (*bend)(desc::MatmulDesc&);
    Status status;
    const char* field;
  };
  const Case cases[] = {
      {"kind 3", [](desc::MatmulDesc& d) { d.kind = static_cast<desc::MatmulKind>(3); }, Status::desc_unknown_op,
       "kind"},
      {"i8 x i8 into f32", [](desc::MatmulDesc& d) { d.a_type = d.b_type = DType::i8; },
       Status::desc_matmul_types_unsupported, "c_type"},
      {"n 4096", [](desc::MatmulDesc& d) { d.n = 4096; }, Status::desc_shape_out_of_range, "n"},
      {"A narrower than k", [](desc::MatmulDesc& d) { d.a_cols = 16; }, Status::desc_shape_out_of_range, "a_cols"},
      {"B rows not whole boxes", [](desc::MatmulDesc& d) { d.b_rows = 40, d.k = 40, d.a_cols = 48; },
       Status::desc_layout_unsupported, "b"},
      {"L0A offset not 512 B aligned", [](desc::MatmulDesc& d) { d.a_offset = 256; }, Status::misaligned,
       "a_offset"},
      {"C past L0C", [](desc::MatmulDesc& d) { d.c_offset = a2a3::kL0CBytes - 512; }, Status::out_of_bounds, "c"},
      {"bias row past the table", [](desc::MatmulDesc& d) { d.bias_offset = a2a3::kBiasTableBytes; },
       Status::out_of_bounds, "bias"},
  };
  for (const Case& c : cases) {
    desc::MatmulDesc d = gemm();
    c.bend(d);
    EXPECT_EQ(ring_matmul(d), c.status) << c.what;
    EXPECT_STREQ(s.npu.cube().last_report().field, c.field) << c.what;
    expect_same(s.npu.cube().last_report(), desc::validate(d), c.what);
    for (uint32_t i = 0; i < 16 * 16 * 4; ++i) ASSERT_EQ(l0c[i], 0xA5) << c.what;
  }
}

}  // namespace
