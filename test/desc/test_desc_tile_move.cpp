// MoveDesc (the tile-move DMAs of MTE2 / MTE1 / MTE3 / FIX): every rule of validate() in its
// order, each with a positive and a negative case naming the exact Status and field, plus
// constexpr proofs. Runs on host and on QEMU.
#include <initializer_list>

#include "tftest.hpp"
#include "tilefw/desc/validate_tile_move.hpp"

using namespace tilefw;
using namespace tilefw::desc;
using chip::MemSpace;
using chip::a2a3::Pipe;

namespace {

constexpr OperandLayout kNone{};
constexpr OperandLayout kColMajor{true, BoxOrder::none, 1, 1};

constexpr MoveOperand opnd(MemSpace s, uint64_t off, DType dt, uint32_t rows, uint32_t cols, OperandLayout l = kNone,
                           uint32_t stride = 0) {
  MoveOperand o{};
  o.space = s;
  o.offset = off;
  o.dtype = dt;
  o.layout = l;
  o.rows = rows;
  o.cols = cols;
  o.stride = stride != 0 ? stride : (l.col_major ? rows : cols);
  return o;
}
constexpr MoveOperand gm(uint64_t off, DType dt, uint32_t rows, uint32_t cols, uint32_t stride = 0) {
  return opnd(MemSpace::GM, off, dt, rows, cols, kNone, stride);
}
constexpr MoveOperand ub(uint64_t off, DType dt, uint32_t rows, uint32_t cols, OperandLayout l = kNone) {
  return opnd(MemSpace::UB, off, dt, rows, cols, l);
}
constexpr MoveOperand l1(uint64_t off, DType dt, uint32_t rows, uint32_t cols, OperandLayout l = kNone) {
  return opnd(MemSpace::L1, off, dt, rows, cols, l);
}
constexpr MoveOperand l0a(uint64_t off, DType dt, uint32_t rows, uint32_t cols) {
  return opnd(MemSpace::L0A, off, dt, rows, cols, zz_layout(dtype_size(dt)));
}
constexpr MoveOperand l0b(uint64_t off, DType dt, uint32_t rows, uint32_t cols) {
  return opnd(MemSpace::L0B, off, dt, rows, cols, zn_layout(dtype_size(dt)));
}
constexpr MoveOperand l0c(uint64_t off, DType dt, uint32_t rows, uint32_t cols) {
  return opnd(MemSpace::L0C, off, dt, rows, cols, nz_acc_layout());
}
constexpr MoveOperand bias(uint64_t off, DType dt, uint32_t cols) {
  return opnd(MemSpace::BiasTable, off, dt, 1, cols);
}
constexpr MoveDesc mv(Pipe p, MoveOperand src, MoveOperand dst, uint32_t rows, uint32_t cols) {
  return MoveDesc{p, src, dst, rows, cols};
}

// Nz box of f16 (16 x 16, row-major inside, col-major box order) in L1.
constexpr OperandLayout kNz16{true, BoxOrder::row_major, 16, 16};

// A valid move per pipe and destination.
constexpr MoveDesc kLoadUb = mv(Pipe::MTE2, gm(0, DType::f32, 16, 64), ub(0, DType::f32, 16, 64), 16, 64);
constexpr MoveDesc kLoadL1 = mv(Pipe::MTE2, gm(3, DType::f16, 32, 48), l1(0, DType::f16, 32, 48, kNz16), 32, 48);
constexpr MoveDesc kToL0A = mv(Pipe::MTE1, l1(0, DType::f16, 32, 48, kNz16), l0a(0, DType::f16, 32, 48), 19, 37);
constexpr MoveDesc kToL0B = mv(Pipe::MTE1, l1(0, DType::i8, 64, 32), l0b(512, DType::i8, 64, 32), 64, 32);
constexpr MoveDesc kToBias = mv(Pipe::MTE1, l1(0, DType::f32, 1, 64), bias(64, DType::f32, 64), 1, 64);
constexpr MoveDesc kStore = mv(Pipe::MTE3, ub(32, DType::f16, 8, 16), gm(1, DType::f16, 8, 16, 20), 8, 16);
constexpr MoveDesc kFixUb = mv(Pipe::FIX, l0c(64, DType::f32, 32, 32), ub(0, DType::f16, 32, 32), 27, 30);
constexpr MoveDesc kFixGm = mv(Pipe::FIX, l0c(0, DType::i32, 16, 16), gm(0, DType::i32, 16, 16), 16, 16);

static_assert(validate(kLoadUb).ok() && validate(kLoadL1).ok() && validate(kToL0A).ok() && validate(kToL0B).ok());
static_assert(validate(kToBias).ok() && validate(kStore).ok() && validate(kFixUb).ok() && validate(kFixGm).ok());
static_assert(validate(kLoadUb).repeats == 1u);

template <class F>
constexpr MoveDesc with(MoveDesc d, F f) {
  f(d);
  return d;
}

#define EXPECT_RULE(d, st, f)             \
  do {                                    \
    const DescReport r_ = validate(d);    \
    EXPECT_EQ(r_.status, st);             \
    EXPECT_STREQ(r_.field, f);            \
  } while (0)

}  // namespace

TEST(DescTileMove, RulePipe) {
  EXPECT_TRUE(validate(kLoadUb).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.pipe = Pipe::V; }), Status::desc_dma_route_unsupported, "pipe");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.pipe = Pipe::M; }), Status::desc_dma_route_unsupported, "pipe");
}

TEST(DescTileMove, RuleRoutePerPipe) {
  // MTE2: GM -> UB / L1.
  EXPECT_TRUE(validate(kLoadUb).ok());
  EXPECT_TRUE(validate(kLoadL1).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst = l0a(0, DType::f32, 16, 64); }), Status::desc_dma_route_unsupported,
              "dst.space");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src = ub(0, DType::f32, 16, 64); d.dst = l1(0, DType::f32, 16, 64); }),
              Status::desc_dma_route_unsupported, "src.space");
  // MTE1: L1 -> L0A / L0B / BiasTable.
  EXPECT_TRUE(validate(kToL0A).ok());
  EXPECT_TRUE(validate(kToL0B).ok());
  EXPECT_TRUE(validate(kToBias).ok());
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.dst = ub(0, DType::f16, 32, 48); }), Status::desc_dma_route_unsupported,
              "dst.space");
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.src = gm(0, DType::f16, 32, 48); }), Status::desc_dma_route_unsupported,
              "src.space");
  // MTE3: UB -> GM.
  EXPECT_TRUE(validate(kStore).ok());
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.dst = l1(0, DType::f16, 8, 16); }), Status::desc_dma_route_unsupported,
              "dst.space");
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.src = l0c(0, DType::f16, 16, 16); }), Status::desc_dma_route_unsupported,
              "src.space");
  // FIX: L0C -> UB / GM.
  EXPECT_TRUE(validate(kFixUb).ok());
  EXPECT_TRUE(validate(kFixGm).ok());
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.dst = l1(0, DType::f16, 32, 32); }), Status::desc_dma_route_unsupported,
              "dst.space");
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.src = ub(0, DType::f32, 32, 32); }), Status::desc_dma_route_unsupported,
              "src.space");
}

TEST(DescTileMove, RuleConversions) {
  // Copy pipes keep the type.
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.dtype = DType::f16; }), Status::desc_conversion_unsupported, "dst.dtype");
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.dst = l0a(0, DType::bf16, 32, 48); }), Status::desc_conversion_unsupported,
              "dst.dtype");
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.dst.dtype = DType::i16; }), Status::desc_conversion_unsupported, "dst.dtype");
  // FIX: f32 -> f32 / f16 / bf16, i32 -> i32.
  for (DType to : {DType::f32, DType::f16, DType::bf16}) {
    EXPECT_TRUE(validate(with(kFixUb, [to](MoveDesc& d) { d.dst.dtype = to; })).ok());
  }
  EXPECT_TRUE(validate(kFixGm).ok());
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.dst.dtype = DType::i32; }), Status::desc_conversion_unsupported, "dst.dtype");
  EXPECT_RULE(with(kFixGm, [](MoveDesc& d) { d.dst.dtype = DType::f32; }), Status::desc_conversion_unsupported, "dst.dtype");
  EXPECT_RULE(with(kFixGm, [](MoveDesc& d) { d.src.dtype = DType::f16; d.dst.dtype = DType::f16; }),
              Status::desc_conversion_unsupported, "dst.dtype");
}

TEST(DescTileMove, RuleExtent) {
  // 1 .. 65535 rows and cols: a one-row i8 move of 65535 bytes fits UB.
  constexpr MoveDesc kWide = mv(Pipe::MTE2, gm(0, DType::i8, 1, 65535), ub(0, DType::i8, 1, 65535), 1, 65535);
  static_assert(validate(kWide).ok());
  EXPECT_TRUE(validate(kWide).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.rows = 0; }), Status::desc_shape_out_of_range, "rows");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.rows = 65536; }), Status::desc_shape_out_of_range, "rows");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.cols = 0; }), Status::desc_shape_out_of_range, "cols");
  EXPECT_RULE(with(kWide, [](MoveDesc& d) { d.cols = 65536; }), Status::desc_shape_out_of_range, "cols");
}

TEST(DescTileMove, RuleLayoutPerSpace) {
  // L0A Zz, L0B Zn, L0C Nz 16 x 16, GM unboxed row-major, BiasTable one unboxed row; UB / L1
  // unboxed or 512 / 1024 B boxes.
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.dst.layout = zn_layout(2); }), Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kToL0B, [](MoveDesc& d) { d.dst.layout = zz_layout(1); }), Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.src.layout = zz_layout(4); }), Status::desc_layout_unsupported, "src.layout");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.layout = kColMajor; d.src.stride = 16; }),
              Status::desc_layout_unsupported, "src.layout");
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.dst.layout = kNz16; }), Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kToBias, [](MoveDesc& d) { d.dst.rows = 2; }), Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kToBias, [](MoveDesc& d) { d.dst.layout = kColMajor; }), Status::desc_layout_unsupported, "dst.layout");
  // UB / L1: boxes of 512 B (f16 16 x 16) and 1024 B (f32 16 x 16) are accepted, 256 B not;
  // an unboxed operand has 1 x 1 "boxes".
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.dst.layout = OperandLayout{true, BoxOrder::row_major, 16, 16}; })).ok());
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.dst = ub(0, DType::f32, 16, 64, kColMajor); })).ok());
  EXPECT_RULE(with(kLoadL1, [](MoveDesc& d) { d.dst.layout = OperandLayout{true, BoxOrder::row_major, 16, 8}; }),
              Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.layout = OperandLayout{false, BoxOrder::none, 2, 1}; }),
              Status::desc_layout_unsupported, "dst.layout");
}

TEST(DescTileMove, RuleCapacityAndExtentInsideIt) {
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.cols = 65536; d.src.stride = 65536; }), Status::desc_shape_out_of_range,
              "src.rows");  // the capacity field names the operand's shape
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.rows = 15; }), Status::desc_shape_out_of_range, "src.rows");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.cols = 63; }), Status::desc_shape_out_of_range, "src.cols");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.rows = 8; }), Status::desc_shape_out_of_range, "dst.rows");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.cols = 32; }), Status::desc_shape_out_of_range, "dst.cols");
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.rows = 3; d.cols = 5; })).ok());  // a partial region
}

TEST(DescTileMove, RuleBoxDivisibility) {
  EXPECT_TRUE(validate(kLoadL1).ok());
  EXPECT_RULE(with(kLoadL1, [](MoveDesc& d) { d.dst.rows = 40; }), Status::desc_layout_unsupported, "dst.layout");
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.src.cols = 40; d.rows = 16; d.cols = 16; }), Status::desc_layout_unsupported,
              "src.layout");
  EXPECT_RULE(with(kToL0B, [](MoveDesc& d) { d.dst.rows = 48; d.rows = 16; }), Status::desc_layout_unsupported, "dst.layout");
}

TEST(DescTileMove, RuleStride) {
  // A GM tensor's rows may be further apart than its cols, never closer.
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.src.stride = 1000; })).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.stride = 63; }), Status::desc_layout_unsupported, "src.stride");
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.src.stride = 8; }), Status::desc_layout_unsupported, "src.stride");
  // Col-major: the stride separates columns and must hold a column (rows).
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst = ub(0, DType::f32, 16, 64, kColMajor); d.dst.stride = 15; }),
              Status::desc_layout_unsupported, "dst.stride");
}

TEST(DescTileMove, RuleAlignmentPerSpace) {
  // GM 1 B, UB 32 B, L1 32 B, L0A / L0B 512 B, L0C 64 B, BiasTable 64 B.
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.src.offset = 7; d.dst.offset = 32; })).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.offset = 16; }), Status::misaligned, "dst.offset");
  EXPECT_RULE(with(kLoadL1, [](MoveDesc& d) { d.dst.offset = 48; }), Status::misaligned, "dst.offset");
  EXPECT_TRUE(validate(with(kToL0A, [](MoveDesc& d) { d.src.offset = 32; d.dst.offset = 1024; })).ok());
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.dst.offset = 256; }), Status::misaligned, "dst.offset");
  EXPECT_RULE(with(kToL0B, [](MoveDesc& d) { d.dst.offset = 544; }), Status::misaligned, "dst.offset");
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.src.offset = 32; }), Status::misaligned, "src.offset");
  EXPECT_RULE(with(kToBias, [](MoveDesc& d) { d.dst.offset = 32; }), Status::misaligned, "dst.offset");
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.src.offset = 8; }), Status::misaligned, "src.offset");
  const DescReport r = validate(with(kLoadUb, [](MoveDesc& d) { d.dst.offset = 100; }));
  EXPECT_EQ(r.value, 100u);
  EXPECT_EQ(r.limit, 32u);
  EXPECT_EQ(r.byte_offset, 100u);
}

TEST(DescTileMove, RuleBounds) {
  // The last byte of each space is reachable; one more is not.
  constexpr uint32_t kUb = chip::a2a3::kUbBytes;
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.dst.offset = kUb - 16 * 64 * 4; })).ok());
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.dst.offset = kUb - 16 * 64 * 4 + 32; }), Status::out_of_bounds, "dst");
  // Unboxed footprints end at the last element moved: a partial region near the end fits.
  EXPECT_TRUE(validate(with(kLoadUb, [](MoveDesc& d) { d.rows = 1; d.dst.offset = kUb - 64 * 4; })).ok());
  // Boxed footprints are the whole capacity.
  EXPECT_RULE(with(kToL0A, [](MoveDesc& d) { d.dst.offset = chip::a2a3::kL0ABytes - 2048; }), Status::out_of_bounds, "dst");
  EXPECT_TRUE(validate(with(kToL0A, [](MoveDesc& d) { d.dst.offset = chip::a2a3::kL0ABytes - 32 * 48 * 2 - 512; })).ok());
  // GM: the 16 MiB window.
  constexpr uint64_t kGm = chip::a2a3::kGmWindowBytes;
  EXPECT_TRUE(validate(with(kStore, [](MoveDesc& d) { d.dst.offset = kGm - (7 * 20 + 16) * 2; })).ok());
  EXPECT_RULE(with(kStore, [](MoveDesc& d) { d.dst.offset = kGm - (7 * 20 + 16) * 2 + 1; }), Status::out_of_bounds, "dst");
  EXPECT_RULE(with(kLoadUb, [](MoveDesc& d) { d.src.offset = kGm; }), Status::out_of_bounds, "src");
  EXPECT_RULE(with(kToBias, [](MoveDesc& d) { d.dst.offset = 1024 - 192; }), Status::out_of_bounds, "dst");
  EXPECT_RULE(with(kFixUb, [](MoveDesc& d) { d.src.offset = chip::a2a3::kL0CBytes - 2048; }), Status::out_of_bounds, "src");
}

TEST(DescTileMove, RuleOrder) {
  // Route before types, types before extent, src before dst, layout before memory.
  MoveDesc d = kLoadUb;
  d.pipe = Pipe::MTE3;
  d.dst.dtype = DType::f16;
  EXPECT_RULE(d, Status::desc_dma_route_unsupported, "src.space");
  d = kLoadUb;
  d.dst.dtype = DType::f16;
  d.rows = 0;
  EXPECT_RULE(d, Status::desc_conversion_unsupported, "dst.dtype");
  d = kLoadUb;
  d.src.stride = 1;
  d.dst.stride = 1;
  EXPECT_RULE(d, Status::desc_layout_unsupported, "src.stride");
  d = kLoadUb;
  d.dst.offset = 1;
  d.dst.stride = 1;
  EXPECT_RULE(d, Status::desc_layout_unsupported, "dst.stride");
}
