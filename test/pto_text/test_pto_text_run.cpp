// `.pto` kernels on the simulator: the text twin of examples/pto_row_softmax.cpp gives the C++
// PTO kernel's bits in every form; the TROWSUM page's example as text (Auto and Manual
// placement) against a scalar reference; placement and input errors name what failed.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <pto/host.hpp>

#include "tilefw/base/float16.hpp"

#include "pto_text/pto_exec.hpp"
#include "pto_text/pto_ir.hpp"

namespace {

namespace pt = tilefw::tools::pto_text;

constexpr int kRows = 8;
constexpr int kCols = 200;
constexpr int kLanes = 64;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- the C++ PTO kernel of examples/pto_row_softmax.cpp (Auto sync and placement) -------------
namespace ptok {
using namespace pto;
using RowTile = Tile<TileType::Vec, float, kRows, kCols>;
using ColTile = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;
using TmpTile = Tile<TileType::Vec, float, kRows, kLanes>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;

void row_softmax(float* x, float* z) {
  RowGm gx(x), gz(z);
  RowTile xt, y, zt;
  ColTile m, s;
  TmpTile tmp;
  TLOAD(xt, gx);
  TROWMAX(m, xt, tmp);
  TROWEXPANDSUB(y, xt, m);
  TEXP(y, y);
  TROWSUM(s, y, tmp);
  TROWEXPANDDIV(zt, y, s);
  TSTORE(gz, zt);
}
}  // namespace ptok

float input(int i, int j) {
  return static_cast<float>((i * 111 + j * 76) % 229) / 43.0f - 0.75f * static_cast<float>(i);
}

std::vector<uint8_t> softmax_input() {
  std::vector<uint8_t> bytes(kRows * kCols * 4);
  for (int i = 0; i < kRows * kCols; ++i) {
    const uint32_t b = std::bit_cast<uint32_t>(input(i / kCols, i % kCols));
    std::memcpy(&bytes[static_cast<size_t>(i) * 4], &b, 4);
  }
  return bytes;
}

std::vector<uint8_t> cpp_softmax(tilefw::chip::Chip chip = tilefw::chip::Chip::a2a3) {
  pto::host::Core core(chip);
  float* x = pto::host::gm<float>(kRows * kCols);
  float* z = pto::host::gm<float>(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) x[i] = input(i / kCols, i % kCols);
  ptok::row_softmax(x, z);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(z);
  return std::vector<uint8_t>(p, p + kRows * kCols * 4);
}

pt::RunOutcome run_text(const std::string& text, const std::vector<std::pair<std::string, std::vector<uint8_t>>>& in,
                        tilefw::chip::Chip chip = tilefw::chip::Chip::a2a3) {
  pt::RunRequest req;
  req.inputs = in;
  req.chip = chip;
  return pt::run_module(pt::parse(text), req);
}

TEST(PtoTextRun, RowSoftmaxTwinMatchesTheCppKernelBitForBit) {
  const std::string text = read_text(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_row_softmax.pto");
  ASSERT_FALSE(text.empty());
  const pt::RunOutcome r = run_text(text, {{"x", softmax_input()}});
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].first, "z");
  const std::vector<uint8_t> want = cpp_softmax();
  ASSERT_EQ(r.outputs[0].second.size(), want.size());
  EXPECT_TRUE(r.outputs[0].second == want);
  EXPECT_EQ(r.hazards, 0u);  // Auto sync waited for every writer on another pipe
  // A softmax row sums to about 1 (a sanity check that the bits are not both zero).
  float sum = 0;
  for (int j = 0; j < kCols; ++j) {
    float v;
    std::memcpy(&v, &want[static_cast<size_t>(j) * 4], 4);
    sum += v;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-5f);
}

// On A5 the text twin and the C++ kernel agree bit for bit too; rows of 200 floats are summed
// as A5 sums them (each 64-lane repeat's tree, added in order), which is not a2a3's rounding.
TEST(PtoTextRun, RowSoftmaxTwinMatchesTheCppKernelOnA5) {
  const std::string text = read_text(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_row_softmax.pto");
  const pt::RunOutcome r = run_text(text, {{"x", softmax_input()}}, tilefw::chip::Chip::a5);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  const std::vector<uint8_t> want = cpp_softmax(tilefw::chip::Chip::a5);
  EXPECT_TRUE(r.outputs[0].second == want);
  EXPECT_EQ(r.hazards, 0u);
  EXPECT_FALSE(want == cpp_softmax());  // A5's sums round otherwise
}

TEST(PtoTextRun, RowSoftmaxInCanonicalTextRunsTheSame) {
  const std::string text = read_text(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_row_softmax.pto");
  const pt::RunOutcome a = run_text(text, {{"x", softmax_input()}});
  const pt::RunOutcome b = run_text(pt::print(pt::parse(text)), {{"x", softmax_input()}});
  ASSERT_EQ(b.exit_code, 0) << b.message;
  EXPECT_TRUE(a.outputs == b.outputs);
}

TEST(PtoTextRun, RowSoftmaxRewrittenIntoEachFormGivesTheSameBits) {
  const pt::Module m = pt::parse(read_text(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_row_softmax.pto"));
  const std::vector<uint8_t> want = cpp_softmax();
  for (pt::Form f : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
    const std::string text = pt::print(pt::with_form(m, f));
    SCOPED_TRACE(text);
    const pt::RunOutcome r = run_text(text, {{"x", softmax_input()}});
    ASSERT_EQ(r.exit_code, 0) << r.message;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(r.outputs[0].second == want);
  }
  // The assembly rewrite writes the reductions without their tmp.
  EXPECT_NE(pt::print(pt::with_form(m, pt::Form::assembly)).find(" = trowsum %y_2 : "), std::string::npos);
}

// The TROWSUM page's example (16 x 16 f32 rows summed into a 16 x 1 col-major tile) as text.
const std::string kSrc =
    "loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const std::string kDst =
    "loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>";

std::string trowsum_module(const std::string& placement, const std::string& statement) {
  return "module {\n  func.func @trowsum(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {\n"
         "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
         "    %c16 = arith.constant 16 : index\n"
         "    %tx = pto.make_tensor_view %x, shape = [%c16, %c16] strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>\n"
         "    %ty = pto.make_tensor_view %y, shape = [%c16, %c1] strides = [%c1, %c1] : !pto.tensor_view<16x1xf32>\n"
         "    %gx = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> "
         "!pto.partition_tensor_view<16x16xf32>\n"
         "    %gy = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<16x1xf32> -> "
         "!pto.partition_tensor_view<16x1xf32>\n"
         "    %src = pto.alloc_tile : !pto.tile_buf<" + kSrc + "\n    %tmp = pto.alloc_tile : !pto.tile_buf<" + kSrc +
         "\n" + placement + "    pto.tload ins(%gx : !pto.partition_tensor_view<16x16xf32>) outs(%src : !pto.tile_buf<" +
         kSrc + ")\n" + statement + "    pto.tstore ins(%dst : !pto.tile_buf<" + kDst +
         ") outs(%gy : !pto.partition_tensor_view<16x1xf32>)\n    return\n  }\n}\n";
}

void expect_row_sums(const std::string& text) {
  SCOPED_TRACE(text);
  // Integers: every summation order gives the same exact sums.
  std::vector<uint8_t> x(16 * 16 * 4);
  float want[16] = {};
  for (int i = 0; i < 256; ++i) {
    const float v = static_cast<float>((i * 37) % 101) - 50.0f;
    std::memcpy(&x[static_cast<size_t>(i) * 4], &v, 4);
    want[i / 16] += v;
  }
  const pt::RunOutcome r = run_text(text, {{"x", x}});
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_EQ(r.outputs[0].second.size(), 64u);
  for (int i = 0; i < 16; ++i) {
    float got;
    std::memcpy(&got, &r.outputs[0].second[static_cast<size_t>(i) * 4], 4);
    EXPECT_EQ(got, want[i]) << "row " << i;
  }
}

TEST(PtoTextRun, TrowsumPageExampleInEveryFormAutoAndManual) {
  const std::string dst_alloc = "    %dst = pto.alloc_tile : !pto.tile_buf<" + kDst + "\n";
  const std::string manual = "    pto.tassign %src, @tile(0x1000)\n    pto.tassign %tmp, @tile(0x2000)\n";
  const std::string dps = "    pto.trowsum ins(%src, %tmp : !pto.tile_buf<" + kSrc + ", !pto.tile_buf<" + kSrc +
                          ") outs(%dst : !pto.tile_buf<" + kDst + ")\n";
  const std::string ssa = "    %dst = pto.trowsum %src, %tmp : (!pto.tile<" + kSrc + ", !pto.tile<" + kSrc +
                          ") -> !pto.tile<" + kDst + "\n";
  const std::string assembly = "    %dst = trowsum %src : !pto.tile<" + kSrc + " -> !pto.tile<" + kDst + "\n";
  for (const std::string& placement : {std::string(), manual}) {
    expect_row_sums(trowsum_module(placement + dst_alloc, dps));
    expect_row_sums(trowsum_module(placement, ssa));
    expect_row_sums(trowsum_module(placement, assembly));
  }
  // The manual form with the destination placed too, and by alloc_tile addr.
  expect_row_sums(trowsum_module(manual + dst_alloc + "    pto.tassign %dst, @tile(0x3000)\n", dps));
}

TEST(PtoTextRun, ATileOutsideItsMemoryIsNamed) {
  const std::string dst_alloc = "    %dst = pto.alloc_tile : !pto.tile_buf<" + kDst + "\n";
  const std::string dps = "    pto.trowsum ins(%src, %tmp : !pto.tile_buf<" + kSrc + ", !pto.tile_buf<" + kSrc +
                          ") outs(%dst : !pto.tile_buf<" + kDst + ")\n";
  const std::string text = trowsum_module("    pto.tassign %src, @tile(0x30000)\n" + dst_alloc, dps);
  const pt::RunOutcome r = run_text(text, {{"x", std::vector<uint8_t>(1024)}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.positional);
  EXPECT_EQ(r.message, "12:5: tile %src (1024 bytes at 0x30000) does not lie inside UB (196608 bytes, a2a3): tile_out_of_bounds");
  const pt::RunOutcome m = run_text(trowsum_module("    pto.tassign %src, @tile(0x1001)\n" + dst_alloc, dps),
                                    {{"x", std::vector<uint8_t>(1024)}});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.message, "12:5: tile %src (1024 bytes at 0x1001) does not lie inside UB (196608 bytes, a2a3): tile_misaligned");
}

TEST(PtoTextRun, InputsMustMatchTheirViews) {
  const std::string text = trowsum_module("", "    %dst = trowsum %src : !pto.tile<" + kSrc + " -> !pto.tile<" + kDst + "\n");
  pt::RunOutcome r = run_text(text, {{"x", std::vector<uint8_t>(1000)}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.positional);
  EXPECT_EQ(r.message, "--in x: 1000 bytes, the tensor view of %x takes 1024");
  r = run_text(text, {{"w", std::vector<uint8_t>(4)}});
  EXPECT_EQ(r.message, "--in w: the kernel has no pointer argument %w");
}

TEST(PtoTextRun, ASimulatorFailureNamesTheStatement) {
  // TEXP from a 16 x 16 tile into a 16 x 1 one: the valid regions differ, which the tile
  // layer refuses when the kernel runs (exit 1, the PTO failure line after the position).
  const std::string text = trowsum_module(
      "    %dst = pto.alloc_tile : !pto.tile_buf<" + kDst + "\n",
      "    pto.texp ins(%src : !pto.tile_buf<" + kSrc + ") outs(%dst : !pto.tile_buf<" + kDst + ")\n");
  const pt::RunOutcome r = run_text(text, {{"x", std::vector<uint8_t>(1024)}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.message.rfind("14:5: pto: TEXP failed: ", 0), 0u) << r.message;
  EXPECT_TRUE(r.outputs.empty());
}

// The cube path of the C++ API test (TLOAD to Mat, TMOV to Left / Right, TMATMUL, TSTORE of
// the Acc tile) as text, DPS, then tmatmul.acc in the SSA form: c = 2 a b, small integers
// (exact in every order). `la` is the Left tile's type: its box order is the profile's.
std::string cube_text(const std::string& la) {
  const std::string ma = "!pto.tile_buf<loc=mat, dtype=f16, rows=16, cols=32, blayout=col_major, slayout=row_major>";
  const std::string mb = "!pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=16, blayout=row_major, slayout=col_major>";
  const std::string rb = "!pto.tile_buf<loc=right, dtype=f16, rows=32, cols=16, slayout=col_major>";
  const std::string acc = "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, blayout=col_major, slayout=row_major, fractal=1024>";
  return
      "module {\n  func.func @mm(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>) {\n"
      "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
      "    %c16 = arith.constant 16 : index\n    %c32 = arith.constant 32 : index\n"
      "    %ta = pto.make_tensor_view %a, shape = [%c16, %c32] strides = [%c32, %c1] : !pto.tensor_view<16x32xf16>\n"
      "    %tb = pto.make_tensor_view %b, shape = [%c32, %c16] strides = [%c16, %c1] : !pto.tensor_view<32x16xf16>\n"
      "    %tc = pto.make_tensor_view %c, shape = [%c16, %c16] strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>\n"
      "    %ga = pto.partition_view %ta, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<16x32xf16> -> !pto.partition_tensor_view<16x32xf16>\n"
      "    %gb = pto.partition_view %tb, offsets = [%c0, %c0], sizes = [%c32, %c16] : !pto.tensor_view<32x16xf16> -> !pto.partition_tensor_view<32x16xf16>\n"
      "    %gc = pto.partition_view %tc, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>\n"
      "    %ma = pto.alloc_tile : " + ma + "\n    %mb = pto.alloc_tile : " + mb + "\n"
      "    %la = pto.alloc_tile : " + la + "\n    %rb = pto.alloc_tile : " + rb + "\n"
      "    %acc = pto.alloc_tile : " + acc + "\n"
      "    pto.tload ins(%ga : !pto.partition_tensor_view<16x32xf16>) outs(%ma : " + ma + ")\n"
      "    pto.tload ins(%gb : !pto.partition_tensor_view<32x16xf16>) outs(%mb : " + mb + ")\n"
      "    pto.tmov ins(%ma : " + ma + ") outs(%la : " + la + ")\n"
      "    pto.tmov ins(%mb : " + mb + ") outs(%rb : " + rb + ")\n"
      "    pto.tmatmul ins(%la, %rb : " + la + ", " + rb + ") outs(%acc : " + acc + ")\n"
      "    %acc2 = pto.tmatmul.acc %acc, %la, %rb : (" + acc + ", " + la + ", " + rb + ") -> " + acc + "\n"
      "    pto.tstore ins(%acc2 : " + acc + ") outs(%gc : !pto.partition_tensor_view<16x16xf32>)\n"
      "    return\n  }\n}\n";
}

// The cube kernel's operands (a 16 x 32, b 32 x 16 halves) and its exact result 2 a b.
struct CubeCase {
  std::vector<uint8_t> a = std::vector<uint8_t>(16 * 32 * 2), b = std::vector<uint8_t>(32 * 16 * 2);
  float fa[16 * 32], fb[32 * 16];
  CubeCase() {
    for (int i = 0; i < 16 * 32; ++i) {
      fa[i] = static_cast<float>(i % 7) - 3.0f;
      const uint16_t h = tilefw::to_half(fa[i]).bits;
      std::memcpy(&a[static_cast<size_t>(i) * 2], &h, 2);
    }
    for (int i = 0; i < 32 * 16; ++i) {
      fb[i] = static_cast<float>(i % 5) - 2.0f;
      const uint16_t h = tilefw::to_half(fb[i]).bits;
      std::memcpy(&b[static_cast<size_t>(i) * 2], &h, 2);
    }
  }
  void expect_result(const pt::RunOutcome& r) const {
    ASSERT_EQ(r.exit_code, 0) << r.message;
    EXPECT_EQ(r.hazards, 0u);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].first, "c");
    ASSERT_EQ(r.outputs[0].second.size(), 16u * 16 * 4);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        float want = 0.0f;
        for (int k = 0; k < 32; ++k) want += fa[i * 32 + k] * fb[k * 16 + j];
        float got;
        std::memcpy(&got, &r.outputs[0].second[static_cast<size_t>(i * 16 + j) * 4], 4);
        ASSERT_EQ(got, 2.0f * want) << i << "," << j;
      }
    }
  }
};

const std::string kLeftZz = "!pto.tile_buf<loc=left, dtype=f16, rows=16, cols=32, slayout=row_major>";
const std::string kLeftNz = "!pto.tile_buf<loc=left, dtype=f16, rows=16, cols=32, blayout=col_major, slayout=row_major>";

TEST(PtoTextRun, CubeMatmulThroughL1AndL0ThenAccumulate) {
  const CubeCase k;
  k.expect_result(run_text(cube_text(kLeftZz), {{"a", k.a}, {"b", k.b}}));
}

TEST(PtoTextRun, CubeMatmulOnA5TakesItsColumnOrderedLeftTile) {
  // A5's Left tile is written col_major outside (its boxes in column order): the same kernel
  // with that spelling gives a2a3's bits on A5; each profile refuses the other's Left tile.
  const CubeCase k;
  k.expect_result(run_text(cube_text(kLeftNz), {{"a", k.a}, {"b", k.b}}, tilefw::chip::Chip::a5));
  pt::RunOutcome r = run_text(cube_text(kLeftZz), {{"a", k.a}, {"b", k.b}}, tilefw::chip::Chip::a5);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.message.find("TMOV failed: desc_layout_unsupported"), std::string::npos) << r.message;
  r = run_text(cube_text(kLeftNz), {{"a", k.a}, {"b", k.b}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.message.find("TMOV failed: desc_layout_unsupported"), std::string::npos) << r.message;
}

TEST(PtoTextRun, PlacementRulesAreErrorsNamingTheTile) {
  const std::string dst_alloc = "    %dst = pto.alloc_tile : !pto.tile_buf<" + kDst + "\n";
  const std::string dps = "    pto.trowsum ins(%src, %tmp : !pto.tile_buf<" + kSrc + ", !pto.tile_buf<" + kSrc +
                          ") outs(%dst : !pto.tile_buf<" + kDst + ")\n";
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> x = {{"x", std::vector<uint8_t>(1024)}};
  // A tassign after the tile's first use (the tload at line 13).
  pt::RunOutcome r = run_text(trowsum_module(dst_alloc, "    pto.tassign %src, @tile(0x4000)\n" + dps), x);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.message, "14:5: tile %src is placed after its first use");
  // A manual tile over an Auto tile's bytes: %src is Auto-placed at 0 by the tload, then %tmp
  // is assigned there.
  r = run_text(trowsum_module(dst_alloc, "    pto.tassign %tmp, @tile(0x0)\n" + dps), x);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.message, "14:5: tile %tmp overlaps an Auto-placed tile: illegal_overlap");
  // Auto placement past the end of UB: a tile of all of UB's 192 KiB after the 1 KiB source.
  const std::string big =
      "loc=vec, dtype=f32, rows=192, cols=256, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
  r = run_text(trowsum_module(dst_alloc + "    %big = pto.alloc_tile : !pto.tile_buf<" + big + "\n",
                              "    pto.texp ins(%src : !pto.tile_buf<" + kSrc + ") outs(%big : !pto.tile_buf<" + big + ")\n"),
               x);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.message.rfind("15:5: tile %big does not fit: pto: TEXP failed: tile_out_of_bounds (%big: 196608 bytes at offset 1024, ", 0), 0u)
      << r.message;
}

}  // namespace
