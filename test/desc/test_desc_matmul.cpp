// MatmulDesc (the cube, pipe M): every rule of validate() in its order — kind, type triple,
// m / k / n range, operand shapes against m / k / n, box shapes, alignment, bounds, and the
// bias operand — each with a positive and a negative case naming the exact Status and field.
// Runs on host and on QEMU.
#include <initializer_list>

#include "tftest.hpp"
#include "tilefw/desc/validate_matmul.hpp"

using namespace tilefw;
using namespace tilefw::desc;

namespace {

// (f32, f16, f16): A 32 x 64 (16 x 16 boxes), B 64 x 32, C 32 x 32 (16 x 16), m 19 k 37 n 23.
constexpr MatmulDesc mm(MatmulKind kind = MatmulKind::matmul, DType c = DType::f32, DType ab = DType::f16) {
  MatmulDesc d{};
  d.kind = kind;
  d.a_type = ab;
  d.b_type = ab;
  d.c_type = c;
  d.a_offset = 512;
  d.b_offset = 1024;
  d.c_offset = 64;
  d.bias_offset = 128;
  d.a_rows = 32;
  d.a_cols = 64;
  d.b_rows = 64;
  d.b_cols = 32;
  d.c_rows = 32;
  d.c_cols = 32;
  d.m = 19;
  d.k = 37;
  d.n = 23;
  return d;
}

static_assert(validate(mm()).ok());
static_assert(validate(mm(MatmulKind::bias)).ok());
static_assert(validate(mm(MatmulKind::accumulate, DType::i32, DType::i8)).ok());
static_assert(validate(mm()).repeats == 1u);
static_assert(matmul_types_ok(DType::f32, DType::bf16, DType::bf16) && !matmul_types_ok(DType::f16, DType::f16, DType::f16));

template <class F>
constexpr MatmulDesc with(MatmulDesc d, F f) {
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

TEST(DescMatmul, RuleKind) {
  for (MatmulKind k : {MatmulKind::matmul, MatmulKind::accumulate, MatmulKind::bias}) EXPECT_TRUE(validate(mm(k)).ok());
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.kind = static_cast<MatmulKind>(3); }), Status::desc_unknown_op, "kind");
}

TEST(DescMatmul, RuleTypeTriples) {
  // (i32, i8, i8), (f32, f16, f16), (f32, f32, f32), (f32, bf16, bf16). f32 A is 16 x 8 boxes,
  // B 8 x 16; i8 A 16 x 32, B 32 x 16: the shapes of mm() fit all four.
  EXPECT_TRUE(validate(mm(MatmulKind::matmul, DType::i32, DType::i8)).ok());
  EXPECT_TRUE(validate(mm(MatmulKind::matmul, DType::f32, DType::f16)).ok());
  EXPECT_TRUE(validate(mm(MatmulKind::matmul, DType::f32, DType::f32)).ok());
  EXPECT_TRUE(validate(mm(MatmulKind::matmul, DType::f32, DType::bf16)).ok());
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_type = DType::bf16; }), Status::desc_matmul_types_unsupported, "b_type");
  EXPECT_RULE(mm(MatmulKind::matmul, DType::f16, DType::f16), Status::desc_matmul_types_unsupported, "c_type");
  EXPECT_RULE(mm(MatmulKind::matmul, DType::i32, DType::f16), Status::desc_matmul_types_unsupported, "c_type");
  EXPECT_RULE(mm(MatmulKind::matmul, DType::f32, DType::i8), Status::desc_matmul_types_unsupported, "c_type");
  EXPECT_RULE(mm(MatmulKind::matmul, DType::i32, DType::i16), Status::desc_matmul_types_unsupported, "c_type");
}

TEST(DescMatmul, RuleMknRange) {
  // 1 .. 4095 each (docs/a2a3-tile-model.md section 7.2).
  MatmulDesc big = mm();
  big.a_rows = 4096;
  big.a_cols = 16;
  big.b_rows = 16;
  big.b_cols = 16;
  big.c_rows = 16;
  big.c_cols = 16;
  big.a_offset = 0;
  big.b_offset = 0;
  big.c_offset = 0;
  big.m = 4095;
  big.k = 16;
  big.n = 16;
  big.c_rows = 4096;
  // m = 4095 is in range; the operands then fail only for their size (L0A holds 64 KB).
  EXPECT_RULE(big, Status::out_of_bounds, "a");
  EXPECT_RULE(with(big, [](MatmulDesc& d) { d.m = 4096; }), Status::desc_shape_out_of_range, "m");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.m = 0; }), Status::desc_shape_out_of_range, "m");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.k = 0; }), Status::desc_shape_out_of_range, "k");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.k = 4096; }), Status::desc_shape_out_of_range, "k");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.n = 0; }), Status::desc_shape_out_of_range, "n");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.n = 5000; }), Status::desc_shape_out_of_range, "n");
  EXPECT_TRUE(validate(with(mm(), [](MatmulDesc& d) { d.m = 1; d.k = 1; d.n = 1; })).ok());
}

TEST(DescMatmul, RuleShapesAgainstMkn) {
  EXPECT_TRUE(validate(with(mm(), [](MatmulDesc& d) { d.m = 32; d.k = 64; d.n = 32; })).ok());  // whole tiles
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.m = 33; }), Status::desc_shape_out_of_range, "a_rows");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.k = 65; }), Status::desc_shape_out_of_range, "a_cols");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_rows = 32; d.k = 48; d.a_cols = 64; }), Status::desc_shape_out_of_range, "b_rows");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.n = 33; }), Status::desc_shape_out_of_range, "b_cols");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_rows = 16; }), Status::desc_shape_out_of_range, "c_rows");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_cols = 16; }), Status::desc_shape_out_of_range, "c_cols");
  const DescReport r = validate(with(mm(), [](MatmulDesc& d) { d.c_cols = 16; }));
  EXPECT_EQ(r.value, 16u);
  EXPECT_EQ(r.limit, 23u);
}

TEST(DescMatmul, RuleBoxes) {
  // A: 16 x (32 / sizeof(A)); B: (32 / sizeof(B)) x 16; C: 16 x 16.
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.a_rows = 40; }), Status::desc_layout_unsupported, "a");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.a_cols = 72; }), Status::desc_layout_unsupported, "a");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_rows = 72; }), Status::desc_layout_unsupported, "b");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_cols = 40; }), Status::desc_layout_unsupported, "b");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_rows = 40; }), Status::desc_layout_unsupported, "c");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_cols = 40; }), Status::desc_layout_unsupported, "c");
  // The box width follows the element size: 40 columns are 5 f32 boxes of 8 but not i8 boxes of 32.
  EXPECT_TRUE(validate(with(mm(MatmulKind::matmul, DType::f32, DType::f32), [](MatmulDesc& d) { d.a_cols = 40; d.b_rows = 40; })).ok());
  EXPECT_RULE(with(mm(MatmulKind::matmul, DType::i32, DType::i8), [](MatmulDesc& d) { d.a_cols = 48; }),
              Status::desc_layout_unsupported, "a");
  EXPECT_RULE(with(mm(MatmulKind::matmul, DType::i32, DType::i8), [](MatmulDesc& d) { d.b_rows = 48; }),
              Status::desc_layout_unsupported, "b");
}

TEST(DescMatmul, RuleAlignment) {
  // L0A / L0B 512 B, L0C 64 B.
  EXPECT_TRUE(validate(with(mm(), [](MatmulDesc& d) { d.a_offset = 0; d.b_offset = 512; d.c_offset = 128; })).ok());
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.a_offset = 256; }), Status::misaligned, "a_offset");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_offset = 1056; }), Status::misaligned, "b_offset");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_offset = 32; }), Status::misaligned, "c_offset");
  const DescReport r = validate(with(mm(), [](MatmulDesc& d) { d.a_offset = 256; }));
  EXPECT_EQ(r.limit, 512u);
  EXPECT_EQ(r.byte_offset, 256u);
}

TEST(DescMatmul, RuleBounds) {
  // A 32 x 64 f16 = 4 KB, B 4 KB, C 32 x 32 f32 = 4 KB: the last byte of each space is reachable.
  constexpr uint32_t kL0A = chip::a2a3::kL0ABytes, kL0C = chip::a2a3::kL0CBytes;
  EXPECT_TRUE(validate(with(mm(), [](MatmulDesc& d) { d.a_offset = kL0A - 4096; d.b_offset = kL0A - 4096; d.c_offset = kL0C - 4096; })).ok());
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.a_offset = kL0A - 3584; }), Status::out_of_bounds, "a");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.b_offset = kL0A; }), Status::out_of_bounds, "b");
  EXPECT_RULE(with(mm(), [](MatmulDesc& d) { d.c_offset = kL0C - 4032; }), Status::out_of_bounds, "c");
}

TEST(DescMatmul, RuleBias) {
  // Only TMATMUL_BIAS reads the bias row: n elements of C's type, 64 B aligned, inside the
  // 1 KB BiasTable.
  EXPECT_TRUE(validate(with(mm(), [](MatmulDesc& d) { d.bias_offset = 3; })).ok());  // ignored
  EXPECT_TRUE(validate(with(mm(MatmulKind::bias), [](MatmulDesc& d) { d.bias_offset = 1024 - 128; })).ok());  // 23 * 4 = 92 B
  EXPECT_RULE(with(mm(MatmulKind::bias), [](MatmulDesc& d) { d.bias_offset = 96; }), Status::misaligned, "bias_offset");
  EXPECT_RULE(with(mm(MatmulKind::bias), [](MatmulDesc& d) { d.bias_offset = 1024 - 64; }), Status::out_of_bounds, "bias");
  EXPECT_RULE(with(mm(MatmulKind::bias), [](MatmulDesc& d) { d.bias_offset = 2048; }), Status::out_of_bounds, "bias");
}

TEST(DescMatmul, RuleOrder) {
  // Kind before types, types before m / k / n, shapes before boxes, boxes before alignment,
  // A before B before C before bias.
  MatmulDesc d = mm();
  d.kind = static_cast<MatmulKind>(7);
  d.c_type = DType::f16;
  EXPECT_RULE(d, Status::desc_unknown_op, "kind");
  d = mm(MatmulKind::matmul, DType::f16);
  d.m = 0;
  EXPECT_RULE(d, Status::desc_matmul_types_unsupported, "c_type");
  d = mm();
  d.a_rows = 8;  // below m and not a box multiple: the shape rule comes first
  EXPECT_RULE(d, Status::desc_shape_out_of_range, "a_rows");
  d = mm();
  d.a_rows = 40;
  d.a_offset = 1;
  EXPECT_RULE(d, Status::desc_layout_unsupported, "a");
  d = mm();
  d.b_offset = 1;
  d.c_offset = 1;
  EXPECT_RULE(d, Status::misaligned, "b_offset");
  d = mm(MatmulKind::bias);
  d.c_offset = 1;
  d.bias_offset = 1;
  EXPECT_RULE(d, Status::misaligned, "c_offset");
}
