// TTRANS and TCOLPROD as PTO text: examples/pto_transpose_colprod.pto runs (the runner of
// `tilefw pto run`) and writes the transpose and the column product a scalar reference here
// computes; ttrans in its assembly (implicit tmp), SSA and DPS forms gives the same bits; the
// forms rewrite into each other and parse back.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pto_text/pto_exec.hpp"
#include "pto_text/pto_ir.hpp"

namespace {

namespace pt = tilefw::tools::pto_text;

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// x[i][j]: values near 1 (products of 16 stay finite and round at almost every step), a NaN
// with a payload and a -0 to show the transpose moves bits.
std::vector<uint8_t> input_x() {
  std::vector<uint8_t> x(16 * 24 * 4);
  for (int i = 0; i < 16 * 24; ++i) {
    uint32_t b = std::bit_cast<uint32_t>(0.75f + static_cast<float>((i * 37) % 101) / 128.0f);
    if (i == 5) b = 0x7FC01234u;
    if (i == 77) b = 0x80000000u;
    std::memcpy(&x[static_cast<size_t>(i) * 4], &b, 4);
  }
  return x;
}

uint32_t at(const std::vector<uint8_t>& v, size_t k) {
  uint32_t b;
  std::memcpy(&b, &v[k * 4], 4);
  return b;
}

pt::RunOutcome run(const std::string& text) {
  pt::RunRequest req;
  req.inputs = {{"x", input_x()}};
  return pt::run_module(pt::parse(text), req);
}

const std::vector<uint8_t>* output(const pt::RunOutcome& r, const std::string& name) {
  for (const auto& o : r.outputs) {
    if (o.first == name) return &o.second;
  }
  return nullptr;
}

void expect_transpose(const std::vector<uint8_t>& y) {
  const std::vector<uint8_t> x = input_x();
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < 24; ++i) {
    for (size_t j = 0; j < 16; ++j) EXPECT_EQ(at(y, i * 16 + j), at(x, j * 24 + i)) << i << "," << j;
  }
}

const std::string kExample = std::string(TILEFW_SOURCE_DIR) + "/examples/pto_transpose_colprod.pto";

TEST(PtoTextLayout, ExampleKernelTransposesAndMultipliesColumns) {
  const std::string text = read_file(kExample);
  ASSERT_FALSE(text.empty());
  const pt::RunOutcome r = run(text);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(r.hazards, 0u);
  const std::vector<uint8_t>* y = output(r, "y");
  const std::vector<uint8_t>* p = output(r, "p");
  ASSERT_TRUE(y != nullptr && p != nullptr);
  expect_transpose(*y);
  const std::vector<uint8_t> x = input_x();
  ASSERT_EQ(p->size(), 24u * 4u);
  for (size_t j = 0; j < 24; ++j) {
    float acc = std::bit_cast<float>(at(x, j));
    for (size_t i = 1; i < 16; ++i) acc = acc * std::bit_cast<float>(at(x, i * 24 + j));
    const uint32_t want = acc != acc ? 0x7FC00000u : std::bit_cast<uint32_t>(acc);
    EXPECT_EQ(at(*p, j), want) << "column " << j;
  }
}

// The example's ttrans statement rewritten in each form (the assembly form's tmp is implicit)
// runs to the same bytes, and every rewrite parses back to its own text.
TEST(PtoTextLayout, TtransInEveryFormSameBits) {
  const pt::Module m = pt::parse(read_file(kExample));
  for (pt::Form to : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
    const std::string text = pt::print(pt::with_form(m, to));
    SCOPED_TRACE(text);
    if (to == pt::Form::assembly) {
      EXPECT_NE(text.find(" = ttrans %xt_1 : "), std::string::npos);
    } else if (to == pt::Form::ssa) {
      EXPECT_NE(text.find(" = pto.ttrans %xt_1, %tmp : "), std::string::npos);
    }
    pt::Module again;
    ASSERT_NO_THROW(again = pt::parse(text));
    EXPECT_EQ(pt::print(again), text);
    const pt::RunOutcome r = run(text);
    ASSERT_EQ(r.exit_code, 0) << r.message;
    const std::vector<uint8_t>* y = output(r, "y");
    ASSERT_TRUE(y != nullptr);
    expect_transpose(*y);
  }
}

// The assembly form's implicit tmp of a source whose rows are not a whole block of lanes
// (3 f32 rows: the scratch needs 8 rows' worth) is made large enough.
TEST(PtoTextLayout, ImplicitTmpIsLargeEnough) {
  pt::Type src;
  src.kind = pt::TypeKind::tile;
  src.dtype = tilefw::DType::f32;
  src.tile.rows = 3;
  src.tile.cols = 8;
  src.tile.v_row = 3;
  src.tile.v_col = 5;
  const pt::Type t = pt::implicit_tmp_type("ttrans", src);
  EXPECT_EQ(t.tile.rows, 8u);
  EXPECT_GE(pt::tile_bytes(t), 1u * 8u * 32u);
  EXPECT_TRUE(pt::implicit_tmp_type("trowsum", src) == src);
}

// A wrong ttrans shape is refused when the kernel runs, naming the instruction, the Status and
// the field.
TEST(PtoTextLayout, TtransShapeMismatchRefused) {
  std::string text = read_file(kExample);
  const std::string y = "rows=24, cols=16, v_row=24, v_col=16";
  for (size_t at_ = text.find(y); at_ != std::string::npos; at_ = text.find(y, at_ + 1)) {
    text.replace(at_, y.size(), "rows=24, cols=16, v_row=24, v_col=8");
  }
  pt::RunRequest req;
  req.inputs = {{"x", input_x()}};
  const pt::RunOutcome r = pt::run_module(pt::parse(text), req);
  EXPECT_EQ(r.exit_code, 1);  // refused when it runs, as any failing instruction
  EXPECT_NE(r.message.find("TTRANS"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("plan_valid_shape_mismatch"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("dst.valid_cols"), std::string::npos) << r.message;
}

}  // namespace

namespace {

// TGATHER as text: y[i][j] = x's element ix[i][j] (x 8 x 16 f32, ix 8 x 16 i32 loaded from GM).
const std::string kF = "loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, "
                       "fractal=512, pad=0>";
const std::string kI = "loc=vec, dtype=i32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, "
                       "fractal=512, pad=0>";

std::string gather_module(const std::string& statement) {
  std::string s = "module {\n  func.func @g(%x: !pto.ptr<f32>, %ix: !pto.ptr<i32>, %y: !pto.ptr<f32>) {\n"
                  "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
                  "    %c8 = arith.constant 8 : index\n    %c16 = arith.constant 16 : index\n";
  for (const char* v : {"x", "ix", "y"}) {
    const std::string t = std::string(v) == "ix" ? "i32" : "f32";
    s += std::string("    %t") + v + " = pto.make_tensor_view %" + v + ", shape = [%c8, %c16] strides = [%c16, %c1] : " +
         "!pto.tensor_view<8x16x" + t + ">\n";
    s += std::string("    %g") + v + " = pto.partition_view %t" + v + ", offsets = [%c0, %c0], sizes = [%c8, %c16] : " +
         "!pto.tensor_view<8x16x" + t + "> -> !pto.partition_tensor_view<8x16x" + t + ">\n";
  }
  s += "    %xt = pto.alloc_tile : !pto.tile_buf<" + kF + "\n    %it = pto.alloc_tile : !pto.tile_buf<" + kI + "\n";
  s += "    pto.tload ins(%gx : !pto.partition_tensor_view<8x16xf32>) outs(%xt : !pto.tile_buf<" + kF + ")\n";
  s += "    pto.tload ins(%gix : !pto.partition_tensor_view<8x16xi32>) outs(%it : !pto.tile_buf<" + kI + ")\n";
  s += statement;
  s += "    pto.tstore ins(%yt : !pto.tile_buf<" + kF + ") outs(%gy : !pto.partition_tensor_view<8x16xf32>)\n";
  return s + "    return\n  }\n}\n";
}

void expect_gathered(const std::string& text, const std::vector<uint8_t>& x, const std::vector<uint8_t>& ix) {
  SCOPED_TRACE(text);
  pt::RunRequest req;
  req.inputs = {{"x", x}, {"ix", ix}};
  const pt::RunOutcome r = pt::run_module(pt::parse(text), req);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const std::vector<uint8_t>* y = output(r, "y");
  ASSERT_TRUE(y != nullptr);
  ASSERT_EQ(y->size(), 8u * 16u * 4u);
  for (size_t k = 0; k < 128; ++k) EXPECT_EQ(at(*y, k), at(x, at(ix, k))) << k;
}

TEST(PtoTextLayout, TgatherInEveryForm) {
  std::vector<uint8_t> x(128 * 4), ix(128 * 4);
  for (uint32_t k = 0; k < 128; ++k) {
    const uint32_t v = std::bit_cast<uint32_t>(static_cast<float>(k) * 1.25f - 7.0f);
    const uint32_t i = (k * 29 + 3) % 128;
    std::memcpy(&x[k * 4], &v, 4);
    std::memcpy(&ix[k * 4], &i, 4);
  }
  const std::string dps = "    %yt = pto.alloc_tile : !pto.tile_buf<" + kF + "\n    %tmp = pto.alloc_tile : !pto.tile_buf<" +
                          kI + "\n    pto.tgather ins(%xt, %it, %tmp : !pto.tile_buf<" + kF + ", !pto.tile_buf<" + kI +
                          ", !pto.tile_buf<" + kI + ") outs(%yt : !pto.tile_buf<" + kF + ")\n";
  const std::string ssa = "    %tmp = pto.alloc_tile : !pto.tile_buf<" + kI + "\n    %yt = pto.tgather %xt, %it, %tmp : (!pto.tile<" +
                          kF + ", !pto.tile<" + kI + ", !pto.tile<" + kI + ") -> !pto.tile<" + kF + "\n";
  const std::string assembly = "    %yt = tgather %xt, %it : (!pto.tile<" + kF + ", !pto.tile<" + kI + ") -> !pto.tile<" + kF + "\n";
  for (const std::string& st : {dps, ssa, assembly}) {
    const std::string text = gather_module(st);
    expect_gathered(text, x, ix);
    const pt::Module m = pt::parse(text);
    EXPECT_EQ(pt::print(pt::parse(pt::print(m))), pt::print(m));
    for (pt::Form to : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) expect_gathered(pt::print(pt::with_form(m, to)), x, ix);
  }
  // An index whose element would leave UB: the run fails naming TGATHER, the Status and field.
  const uint32_t bad = 0x7FFFFFFFu;
  std::memcpy(&ix[40 * 4], &bad, 4);
  pt::RunRequest req;
  req.inputs = {{"x", x}, {"ix", ix}};
  const pt::RunOutcome r = pt::run_module(pt::parse(gather_module(dps)), req);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.message.find("TGATHER"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("out_of_bounds"), std::string::npos) << r.message;
}

}  // namespace
