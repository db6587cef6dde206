// TCMP, TCMPS and TSEL as text: examples/pto_compare_select.pto runs on the simulator (and
// rewritten into each form) and gives the bits of a scalar reference written here (the
// predicate bit j % 8 of byte j / 8, NaN compares false); a5 refuses the compares, naming the
// chip; a destination that is not a u8 predicate is refused by the parser.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pto_text/pto_exec.hpp"
#include "pto_text/pto_ir.hpp"

namespace {

namespace pt = tilefw::tools::pto_text;

std::string kernel_text() {
  std::ifstream in(std::string(TILEFW_SOURCE_DIR) + "/examples/pto_compare_select.pto", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<float> values(int salt) {
  std::vector<float> v(8 * 64);
  for (int i = 0; i < 8 * 64; ++i) v[i] = static_cast<float>((i * 37 + salt) % 23) - 11.0f;
  v[5 + salt] = std::bit_cast<float>(0x7FC00123u);  // a NaN in each input
  v[70] = -0.0f;
  return v;
}

std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

void expect_runs(const pt::Module& m) {
  pt::RunRequest req;
  req.chip = tilefw::chip::Chip::a2a3;
  const std::vector<float> x = values(1), w = values(2);
  req.inputs = {{"x", bytes_of(x)}, {"w", bytes_of(w)}};
  const pt::RunOutcome r = pt::run_module(m, req);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(r.hazards, 0u);
  ASSERT_EQ(r.outputs.size(), 3u);
  std::vector<float> y(512), z(512);
  for (int i = 0; i < 512; ++i) {
    const bool gt = x[i] > w[i];  // false with a NaN
    y[i] = gt ? x[i] : w[i];
    z[i] = x[i] < 0.0f ? w[i] : x[i];
  }
  const std::vector<uint8_t>& mask = r.outputs[0].second;
  ASSERT_GE(mask.size(), 8u * 32u);
  for (int row = 0; row < 8; ++row) {
    for (int byte = 0; byte < 8; ++byte) {
      uint8_t want = 0;
      for (int k = 0; k < 8; ++k) {
        const int i = row * 64 + byte * 8 + k;
        if (x[i] > w[i]) want |= static_cast<uint8_t>(1u << k);
      }
      EXPECT_EQ(mask[row * 32 + byte], want) << "row " << row << " byte " << byte;
    }
  }
  EXPECT_TRUE(r.outputs[1].second == bytes_of(y));
  EXPECT_TRUE(r.outputs[2].second == bytes_of(z));
}

TEST(PtoTextCompare, KernelRunsBitExactInEveryForm) {
  const pt::Module m = pt::parse(kernel_text());
  expect_runs(m);
  for (pt::Form f : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
    const std::string text = pt::print(pt::with_form(m, f));
    SCOPED_TRACE(text);
    const pt::Module again = pt::parse(text);
    EXPECT_EQ(pt::print(again), text);
    expect_runs(again);
  }
}

TEST(PtoTextCompare, A5RefusesTheCompareNamingTheChip) {
  pt::RunRequest req;
  req.chip = tilefw::chip::Chip::a5;
  req.inputs = {{"x", bytes_of(values(1))}, {"w", bytes_of(values(2))}};
  const pt::RunOutcome r = pt::run_module(pt::parse(kernel_text()), req);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.message.find("TCMP"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("chip"), std::string::npos) << r.message;
}

TEST(PtoTextCompare, ParserRefusesAFloatPredicateAndAnUnknownMode) {
  std::string text = kernel_text();
  const std::string bad_mode = std::string(text).replace(text.find("#pto<cmp GT>"), 12, "#pto<cmp XX>");
  EXPECT_THROW(pt::parse(bad_mode), pt::TextError);
  try {
    pt::parse(bad_mode);
  } catch (const pt::TextError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown compare mode"), std::string::npos) << e.what();
  }
  // tcmp into the f32 tile %s: the destination must be a u8 predicate.
  const size_t at = text.find("outs(%p");
  std::string bad_dst = text;
  bad_dst.replace(at, text.find(')', at) - at + 1, "outs(%s : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64>)");
  try {
    pt::parse(bad_dst);
    ADD_FAILURE() << "parsed";
  } catch (const pt::TextError& e) {
    EXPECT_NE(std::string(e.what()).find("u8 predicate"), std::string::npos) << e.what();
  }
}

}  // namespace
