// tools/formats/safetensors: round trips F32/F16/BF16 -> f32/f16/bf16 (round to nearest even), header
// validation on a list of bad files (each message names the tensor or the problem), read-time
// refusals, and random corruption of a valid file (never a crash or an exception).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "formats/safetensors.hpp"
#include "safetensors_writer.hpp"
#include "tilefw/base/float16.hpp"

namespace tilefw::tools {
namespace {

using test::StTensor;
using test::bytes_of;
using test::raw_image;
using test::safetensors_image;
using test::write_temp;

std::vector<uint16_t> u16_of(const std::vector<uint8_t>& b) {
  std::vector<uint16_t> out(b.size() / 2);
  std::memcpy(out.data(), b.data(), out.size() * 2);
  return out;
}

// Values chosen for their rounding: 1 + 2^-8 is a bf16 tie that goes down to even (1.0),
// 1 + 3*2^-8 a tie that goes up to even (1 + 2^-6); 65520 is the f16 tie that overflows to
// infinity; 2^-25 is the f16 tie between 0 and the smallest subnormal (to even: 0).
const std::vector<float> kValues = {1.0f, -2.5f, 1.00390625f, 1.01171875f, 65520.0f, 0x1p-25f,
                                    std::numeric_limits<float>::infinity(), 0.0f};

TEST(Safetensors, RoundTripsAndConverts) {
  std::vector<uint16_t> as_f16, as_bf16;
  for (float v : kValues) {
    as_f16.push_back(float_bits_to_half_bits(std::bit_cast<uint32_t>(v)));
    as_bf16.push_back(float_bits_to_bf16_bits(std::bit_cast<uint32_t>(v)));
  }
  // Hand-checked expectations of the ties above.
  EXPECT_EQ(as_bf16[2], 0x3F80);  // 1.0
  EXPECT_EQ(as_bf16[3], 0x3F82);  // 1 + 2^-6
  EXPECT_EQ(as_f16[4], 0x7C00);   // +inf
  EXPECT_EQ(as_f16[5], 0x0000);
  const std::string path = write_temp(
      "roundtrip.safetensors",
      safetensors_image({{"w32", "F32", {2, 4}, bytes_of(kValues)},
                         {"w16", "F16", {8}, bytes_of(as_f16)},
                         {"wb16", "BF16", {4, 2}, bytes_of(as_bf16)}},
                        R"({"format":"pt","n":1})"));
  SafetensorsFile f;
  std::string e;
  ASSERT_TRUE(f.open(path, e)) << e;
  EXPECT_EQ(f.entries().size(), 3u);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.metadata().count("n"), 0u);  // non-string metadata is skipped
  std::vector<uint8_t> out;
  ASSERT_TRUE(f.read("w32", {2, 4}, DType::f32, out, e)) << e;
  EXPECT_EQ(out, bytes_of(kValues));
  ASSERT_TRUE(f.read("w32", {2, 4}, DType::bf16, out, e)) << e;
  EXPECT_EQ(u16_of(out), as_bf16);
  ASSERT_TRUE(f.read("w32", {2, 4}, DType::f16, out, e)) << e;
  EXPECT_EQ(u16_of(out), as_f16);
  ASSERT_TRUE(f.read("w16", {8}, DType::f16, out, e)) << e;
  EXPECT_EQ(u16_of(out), as_f16);
  ASSERT_TRUE(f.read("wb16", {4, 2}, DType::bf16, out, e)) << e;
  EXPECT_EQ(u16_of(out), as_bf16);
  // F16 -> bf16 and BF16 -> f16 go through the exact float value.
  ASSERT_TRUE(f.read("w16", {8}, DType::bf16, out, e)) << e;
  for (size_t i = 0; i < as_f16.size(); ++i) {
    EXPECT_EQ(u16_of(out)[i], float_bits_to_bf16_bits(half_bits_to_float_bits(as_f16[i]))) << i;
  }
  ASSERT_TRUE(f.read("wb16", {4, 2}, DType::f16, out, e)) << e;
  for (size_t i = 0; i < as_bf16.size(); ++i) {
    EXPECT_EQ(u16_of(out)[i], float_bits_to_half_bits(bf16_bits_to_float_bits(as_bf16[i]))) << i;
  }
  ASSERT_TRUE(f.read("wb16", {4, 2}, DType::f32, out, e)) << e;
  EXPECT_EQ(out.size(), 32u);
}

TEST(Safetensors, LargeTensorCrossesReadChunks) {
  std::vector<uint16_t> v(300001);  // > the reader's 2^18-element chunk
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(0x3C00 + (i % 1000));
  const std::string path =
      write_temp("large.safetensors", safetensors_image({{"pad", "U8", {3}, {1, 2, 3}}, {"big", "F16", {v.size()}, bytes_of(v)}}));
  SafetensorsFile f;
  std::string e;
  ASSERT_TRUE(f.open(path, e)) << e;
  std::vector<uint8_t> out;
  ASSERT_TRUE(f.read("big", {v.size()}, DType::f32, out, e)) << e;
  ASSERT_EQ(out.size(), v.size() * 4);
  for (size_t i = 0; i < v.size(); i += 997) {
    uint32_t bits = 0;
    std::memcpy(&bits, out.data() + 4 * i, 4);
    EXPECT_EQ(bits, half_bits_to_float_bits(v[i])) << i;
  }
}

TEST(Safetensors, ReadRefusals) {
  const std::string path = write_temp(
      "refusals.safetensors",
      safetensors_image({{"w", "F32", {2, 3}, std::vector<uint8_t>(24)}, {"q", "I8", {4}, std::vector<uint8_t>(4)}}));
  SafetensorsFile f;
  std::string e;
  ASSERT_TRUE(f.open(path, e)) << e;
  std::vector<uint8_t> out;
  EXPECT_FALSE(f.read("w", {3, 2}, DType::bf16, out, e));
  EXPECT_NE(e.find("tensor w: shape [3, 2] expected, found [2, 3]"), std::string::npos) << e;
  EXPECT_FALSE(f.read("q", {4}, DType::bf16, out, e));
  EXPECT_NE(e.find("tensor q: dtype I8 not supported"), std::string::npos) << e;
  EXPECT_FALSE(f.read("model.layers.0.mlp.up_proj.weight", {4}, DType::bf16, out, e));
  EXPECT_NE(e.find("tensor model.layers.0.mlp.up_proj.weight: not in the file"), std::string::npos) << e;
  EXPECT_FALSE(f.read("w", {2, 3}, DType::i8, out, e));
  EXPECT_NE(e.find("target dtype i8"), std::string::npos) << e;
  EXPECT_EQ(f.find("nope"), nullptr);
  ASSERT_NE(f.find("w"), nullptr);
  EXPECT_EQ(f.find("w")->end - f.find("w")->begin, 24u);
}

TEST(Safetensors, EdgeCasesThatAreValid) {
  SafetensorsFile f;
  std::string e;
  EXPECT_TRUE(f.open(write_temp("empty.safetensors", raw_image("{}", "")), e)) << e;
  EXPECT_TRUE(f.entries().empty());
  const std::string path = write_temp(
      "edge.safetensors", safetensors_image({{"scalar", "F32", {}, bytes_of(std::vector<float>{2.0f})},
                                             {"empty", "BF16", {0, 5}, {}},
                                             {"nibbles", "F4", {3, 2}, {0, 0, 0}}}));
  ASSERT_TRUE(f.open(path, e)) << e;
  std::vector<uint8_t> out;
  ASSERT_TRUE(f.read("scalar", {}, DType::bf16, out, e)) << e;
  EXPECT_EQ(u16_of(out), std::vector<uint16_t>{0x4000});
  ASSERT_TRUE(f.read("empty", {0, 5}, DType::f16, out, e)) << e;
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(f.read("nibbles", {3, 2}, DType::f16, out, e));
  EXPECT_NE(e.find("dtype F4 not supported"), std::string::npos) << e;
}

struct BadFile {
  const char* what;
  std::string bytes;
  const char* message;  // expected in the error
};

std::string entry(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return "{\"w\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}}";
}

TEST(Safetensors, BadFilesAreRefusedWithTheProblemNamed) {
  const std::string data(16, '\0');
  const std::string good = entry("F32", "[2,2]", "[0,16]");
  const BadFile cases[] = {
      {"empty file", "", "shorter than the 8-byte header length"},
      {"short length", std::string(5, '\x01'), "shorter than the 8-byte header length"},
      {"truncated header", raw_image(good, "").substr(0, 8 + good.size() / 2), "exceeds"},
      {"length beyond file", raw_image(good, data, good.size() + 100), "exceeds"},
      {"length huge", raw_image(good, data, uint64_t{1} << 62), "absurd"},
      {"length 100MB+1", raw_image(good, data, 100000001), "absurd"},
      {"not json", raw_image("{abc", data), "not valid JSON at byte"},
      {"non-object", raw_image("[1,2,3]", data), "header is a JSON array, not an object"},
      {"string header", raw_image("\"x\"", data), "not an object"},
      {"end beyond data", raw_image(entry("F32", "[2,2]", "[0,20]"), data), "tensor w: data_offsets end 20 beyond"},
      {"descending", raw_image(entry("F32", "[2,2]", "[16,0]"), data), "tensor w: data_offsets not ascending"},
      {"three offsets", raw_image(entry("F32", "[2,2]", "[0,8,16]"), data), "tensor w: data_offsets must hold 2"},
      {"negative offset", raw_image(entry("F32", "[2,2]", "[-1,15]"), data), "tensor w: data_offsets[0]"},
      {"float offset", raw_image(entry("F32", "[2,2]", "[0,16.0]"), data), "tensor w: data_offsets[1]"},
      {"offsets object", raw_image(entry("F32", "[2,2]", "{}"), data), "tensor w: data_offsets missing or not an array"},
      {"byte count", raw_image(entry("F32", "[2,3]", "[0,16]"), data), "tensor w: 16 bytes in data_offsets, shape [2, 3] of F32 needs 24"},
      {"dtype size", raw_image(entry("F16", "[2,2]", "[0,16]"), data), "needs 8"},
      {"overflow", raw_image(entry("F32", "[4294967296,4294967296,4294967296]", "[0,16]"), data), "tensor w: shape element count overflows"},
      {"overflow by size", raw_image(entry("F32", "[4294967296,1073741824]", "[0,16]"), data), "overflows"},
      {"negative dim", raw_image(entry("F32", "[-2,-2]", "[0,16]"), data), "tensor w: shape entry"},
      {"string dim", raw_image(entry("F32", "[\"2\",2]", "[0,16]"), data), "tensor w: shape entry"},
      {"unknown dtype", raw_image(entry("Q7", "[2,2]", "[0,16]"), data), "tensor w: unknown dtype 'Q7'"},
      {"dtype number", raw_image("{\"w\":{\"dtype\":32,\"shape\":[2,2],\"data_offsets\":[0,16]}}", data), "tensor w: dtype missing"},
      {"no dtype", raw_image("{\"w\":{\"shape\":[2,2],\"data_offsets\":[0,16]}}", data), "tensor w: dtype missing"},
      {"no shape", raw_image("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,16]}}", data), "tensor w: shape missing"},
      {"no offsets", raw_image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2]}}", data), "tensor w: data_offsets missing"},
      {"entry not object", raw_image("{\"w\":[1]}", data), "tensor w: entry is not an object"},
      {"duplicate", raw_image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                              "\"w\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}", data),
       "tensor w: name appears twice"},
      {"metadata not object", raw_image("{\"__metadata__\":[1]}", data), "__metadata__ is not an object"},
      {"deep nesting", raw_image(std::string(200000, '['), data), "not valid JSON"},
      {"NUL in header", raw_image(std::string("{\0}", 3), data), "not valid JSON"},
  };
  for (const BadFile& c : cases) {
    SafetensorsFile f;
    std::string e;
    const std::string path = write_temp("bad.safetensors", c.bytes);
    EXPECT_FALSE(f.open(path, e)) << c.what;
    EXPECT_NE(e.find(c.message), std::string::npos) << c.what << ": got \"" << e << "\"";
    EXPECT_TRUE(f.entries().empty()) << c.what;
  }
  SafetensorsFile f;
  std::string e;
  EXPECT_FALSE(f.open("/nonexistent/x.safetensors", e));
  EXPECT_NE(e.find("cannot open"), std::string::npos) << e;
}

TEST(Safetensors, RandomCorruptionNeverCrashes) {
  const std::string good = safetensors_image({{"a", "F32", {3, 4}, std::vector<uint8_t>(48, 0x3F)},
                                              {"b", "BF16", {5}, std::vector<uint8_t>(10, 0x40)},
                                              {"c", "F16", {2, 2}, std::vector<uint8_t>(8, 0x3C)}},
                                             R"({"format":"pt"})");
  std::mt19937 rng(12345);
  int opened = 0;
  for (int iter = 0; iter < 500; ++iter) {
    std::string bytes = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 3) {
        case 0: bytes[at] = static_cast<char>(rng()); break;
        case 1: bytes.resize(at); break;
        default: bytes.insert(at, 1, static_cast<char>("{}[],:\"0123456789-"[rng() % 18])); break;
      }
      if (bytes.empty()) bytes.assign(1, 'x');  // not = "x": GCC 12 -O3 -Werror=restrict false positive
    }
    SafetensorsFile f;
    std::string e;
    const std::string path = write_temp("fuzz.safetensors", bytes);
    if (!f.open(path, e)) {
      EXPECT_FALSE(e.empty());
      continue;
    }
    ++opened;
    for (const auto& [name, entry] : f.entries()) {
      std::vector<uint8_t> out;
      f.read(name, entry.shape, DType::bf16, out, e);
    }
  }
  EXPECT_GT(opened, 0);  // some corruptions only touch data bytes
}

}  // namespace
}  // namespace tilefw::tools
