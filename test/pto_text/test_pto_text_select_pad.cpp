// TFILLPAD and TSELS as text: examples/pto_select_pad.pto runs on the simulator (a2a3 and A5,
// and rewritten into each form) and gives the bits of a scalar reference written here; a
// destination without a pad value is refused naming it.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "pto_text/pto_exec.hpp"
#include "pto_text/pto_ir.hpp"

namespace {

namespace pt = tilefw::tools::pto_text;

std::string kernel_text() {
  std::ifstream in(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_select_pad.pto", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<uint8_t> floats(int salt) {
  std::vector<uint8_t> b(8 * 64 * 4);
  for (int i = 0; i < 8 * 64; ++i) {
    const float v = static_cast<float>((i * 37 + salt) % 211) / 7.0f - 13.0f;
    std::memcpy(&b[static_cast<size_t>(i) * 4], &v, 4);
  }
  return b;
}

// y: x's 5 x 40 corner, +inf elsewhere; z: the same (TSELS mode 0 takes its second source).
std::vector<uint8_t> expected(const std::vector<uint8_t>& x) {
  std::vector<uint8_t> y(x.size());
  const float inf = std::numeric_limits<float>::infinity();
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 64; ++c) {
      const size_t at = static_cast<size_t>(r * 64 + c) * 4;
      if (r < 5 && c < 40) {
        std::memcpy(&y[at], &x[at], 4);
      } else {
        std::memcpy(&y[at], &inf, 4);
      }
    }
  }
  return y;
}

void expect_runs(const pt::Module& m, tilefw::chip::Chip chip) {
  pt::RunRequest req;
  req.chip = chip;
  const std::vector<uint8_t> x = floats(1), w = floats(2);
  req.inputs = {{"x", x}, {"w", w}};
  const pt::RunOutcome r = pt::run_module(m, req);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(r.hazards, 0u);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].first, "y");
  EXPECT_EQ(r.outputs[1].first, "z");
  const std::vector<uint8_t> want = expected(x);
  EXPECT_TRUE(r.outputs[0].second == want);
  EXPECT_TRUE(r.outputs[1].second == want);
}

TEST(PtoTextSelectPad, KernelRunsBitExactOnBothProfilesInEveryForm) {
  const pt::Module m = pt::parse(kernel_text());
  expect_runs(m, tilefw::chip::Chip::a2a3);
  expect_runs(m, tilefw::chip::Chip::a5);
  for (pt::Form f : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
    const std::string text = pt::print(pt::with_form(m, f));
    SCOPED_TRACE(text);
    const pt::Module again = pt::parse(text);
    EXPECT_EQ(pt::print(again), text);
    expect_runs(again, tilefw::chip::Chip::a2a3);
  }
}

TEST(PtoTextSelectPad, SelectModeSpellingsAndRefusals) {
  std::string text = kernel_text();
  // A float selectMode is bad text.
  std::string bad = text;
  const size_t def = bad.find("    %tx = ");
  ASSERT_NE(def, std::string::npos);
  bad.insert(def, "    %f = arith.constant 1.0 : f32\n");
  const size_t at = bad.find("%c0 : !pto.tile_buf");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 3, "%f");
  const size_t ty = bad.find(", index) outs(%s");
  ASSERT_NE(ty, std::string::npos);
  bad.replace(ty, 7, ", f32");
  try {
    pt::parse(bad);
    ADD_FAILURE() << "parsed";
  } catch (const pt::TextError& e) {
    EXPECT_NE(std::string(e.what()).find("tsels's selectMode must be an integer scalar"), std::string::npos) << e.what();
  }
  // A destination whose pad is null: TFILLPAD refuses it when the kernel runs, naming dst.pad.
  std::string null_pad = text;
  for (size_t p = null_pad.find("pad=max"); p != std::string::npos; p = null_pad.find("pad=max")) {
    null_pad.replace(p, 7, "pad=null");
  }
  pt::RunRequest req;
  req.inputs = {{"x", floats(1)}, {"w", floats(2)}};
  const pt::RunOutcome r = pt::run_module(pt::parse(null_pad), req);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.message.find("TFILLPAD failed"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("dst.pad"), std::string::npos) << r.message;
}

}  // namespace
