// The .bmodel reader (tools/bmodel.cpp) and the cmd layer on the two real BM1690 models of
// test/data/sg2260-tdb (YOLOv5s and ResNet-50, 8 cores, compiled by tpu-mlir):
// - every TIU/GDMA/SDMA stream decodes exactly as tpu-mlir's own decoder lists it in
//   NAME.ops.csv (count, order, offsets, lengths, op names, cmd_id_dep);
// - every stream validates (no false rejection), cores as TIU/GDMA sets;
// - the HAU streams decode as message sync commands pairing with the TIU's send/wait;
// - corrupt models are refused naming the field, never read out of bounds (ASan build).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bmodel.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/op_names.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::tools;

namespace {

const char* const kModels[] = {"yolov5s_bm1690_f16_core8", "resnet50_v2_bm1690_f16_core8"};

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

struct Row {
  uint32_t core = 0;
  std::string engine;
  uint32_t index = 0;
  size_t offset = 0, bytes = 0;
  std::string op;
  uint32_t dep = 0;
};

std::vector<Row> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::vector<Row> rows;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string c[7];
    for (auto& x : c) std::getline(ss, x, ',');
    rows.push_back({static_cast<uint32_t>(std::stoul(c[0])), c[1], static_cast<uint32_t>(std::stoul(c[2])),
                    std::stoul(c[3]), std::stoul(c[4]), c[5], static_cast<uint32_t>(std::stoul(c[6]))});
  }
  return rows;
}

struct Model {
  std::vector<uint8_t> file;
  Bmodel m;
  std::vector<Row> rows;
};

Model load(const char* name) {
  Model x;
  const std::string base = std::string(TILEFW_TDB_DIR) + "/" + name;
  x.file = slurp(base + ".bmodel");
  std::string err;
  EXPECT_TRUE(parse_bmodel(ConstByteSpan(x.file.data(), x.file.size()), x.m, err)) << err;
  x.rows = read_csv(base + ".ops.csv");
  return x;
}

ConstByteSpan stream_of(const BmodelCore& c, const std::string& engine) {
  if (engine == "tiu") return c.tiu.bytes;
  if (engine == "gdma") return c.gdma.bytes;
  return c.sdma.bytes;
}

TEST(Bmodel, ReadsTheLayoutOfBothModels) {
  for (const char* name : kModels) {
    const Model x = load(name);
    EXPECT_EQ(x.m.chip, "BM1690");
    ASSERT_EQ(x.m.cores.size(), 8u) << name;
    EXPECT_FALSE(x.m.has_coeff) << "the test-suite models ship without weights";
    EXPECT_TRUE(x.m.others.empty());
    ASSERT_EQ(x.m.inputs.size(), 1u);
    for (const BmodelCore& c : x.m.cores) {
      EXPECT_TRUE(c.tiu.present() && c.gdma.present() && c.sdma.present() && c.hau.present());
    }
  }
  const Model r = load("resnet50_v2_bm1690_f16_core8");
  EXPECT_EQ(r.m.net_name, "resnet50_v2");
  EXPECT_EQ(r.m.inputs[0].name, "data");
  EXPECT_EQ(r.m.inputs[0].device_addr, 0x20000000000ull);
  EXPECT_EQ(r.m.inputs[0].size, 0x93000u);
  EXPECT_EQ(r.m.inputs[0].shape, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(r.m.outputs[0].name, "resnetv24_dense0_fwd_Gemm_f32");
  EXPECT_EQ(r.m.cores[0].bdc_num, 247u);
  EXPECT_EQ(r.m.cores[0].gdma_num, 287u);
  EXPECT_EQ(r.m.cores[0].hau.bytes.size(), 3200u);
}

// Count, order, offsets, lengths, op names and dep of every command of every core and engine.
TEST(Bmodel, DecodesExactlyAsTheOracle) {
  for (const char* name : kModels) {
    const Model x = load(name);
    size_t next_row = 0;
    for (uint32_t core = 0; core < x.m.cores.size(); ++core) {
      for (const char* engine : {"tiu", "gdma", "sdma"}) {
        const cmd::Engine e = std::string(engine) == "tiu" ? cmd::Engine::tiu
                              : std::string(engine) == "gdma" ? cmd::Engine::gdma : cmd::Engine::sdma;
        cmd::Walker w(e, stream_of(x.m.cores[core], engine));
        cmd::Command c;
        while (w.next(c)) {
          ASSERT_LT(next_row, x.rows.size()) << name << " core " << core << " " << engine << " #" << c.id;
          const Row& r = x.rows[next_row++];
          ASSERT_EQ(r.core, core);
          ASSERT_EQ(r.engine, engine) << name << " core " << core << " #" << c.id;
          EXPECT_EQ(r.index, c.id);
          EXPECT_EQ(r.offset, c.offset) << name << " core " << core << " " << engine << " #" << c.id;
          EXPECT_EQ(r.bytes, c.length);
          EXPECT_EQ(r.op, cmd::op_name(c.cls, c.eu)) << name << " core " << core << " " << engine << " #" << c.id;
          EXPECT_EQ(r.dep, c.dep) << name << " core " << core << " " << engine << " #" << c.id;
        }
        EXPECT_EQ(w.status(), Status::ok) << name << " core " << core << " " << engine << ": " << w.message();
      }
    }
    EXPECT_EQ(next_row, x.rows.size()) << name << ": the oracle lists more commands";
  }
}

// No false rejection: every stream of both models validates, each core as a TIU/GDMA set.
TEST(Bmodel, EveryStreamValidates) {
  for (const char* name : kModels) {
    const Model x = load(name);
    for (uint32_t core = 0; core < x.m.cores.size(); ++core) {
      const BmodelCore& c = x.m.cores[core];
      const cmd::ValidationReport r = cmd::validate_core({c.tiu.bytes, c.gdma.bytes, c.sdma.bytes});
      EXPECT_TRUE(r.ok()) << name << " core " << core << " " << cmd::engine_name(r.engine) << ": "
                          << status_name(r.status) << " at command " << r.command_id << " (" << r.field
                          << "): " << r.message;
    }
  }
}

struct Msg {
  bool send;
  uint32_t id, cnt;
  bool operator==(const Msg& o) const { return send == o.send && id == o.id && cnt == o.cnt; }
};

// The HAU stream of a core is its TIU's send_msg/wait_msg sequence; every barrier counts 32
// = 8 cores x 4 engines, so the HAU is the fourth participant.
TEST(Bmodel, HauStreamsPairWithTheTiuBarriers) {
  for (const char* name : kModels) {
    const Model x = load(name);
    for (uint32_t core = 0; core < x.m.cores.size(); ++core) {
      std::vector<Msg> tiu, hau;
      cmd::Walker w(cmd::Engine::tiu, x.m.cores[core].tiu.bytes);
      cmd::Command c;
      while (w.next(c)) {
        if (c.cls == cmd::CmdClass::SYS && (c.eu == 8 || c.eu == 9)) {
          const cmd::SysView v = c.as<cmd::SysView>();
          tiu.push_back({c.eu == 8, v.msg_id(), v.msg_cnt()});
        }
      }
      cmd::HauWalker h(x.m.cores[core].hau.bytes);
      cmd::HauCommand hc;
      uint32_t eods = 0;
      while (h.next(hc)) {
        hau.push_back({hc.is_send(), hc.msg_id, hc.msg_cnt});
        eods += hc.eod ? 1 : 0;
        EXPECT_EQ(hc.msg_cnt, 32u);
      }
      ASSERT_EQ(h.status(), Status::ok) << name << " core " << core << ": " << h.message();
      EXPECT_EQ(eods, 1u);
      EXPECT_TRUE(hau.back().send == false);
      EXPECT_EQ(h.count() * cmd::kHauCommandBytes, x.m.cores[core].hau.bytes.size());
      EXPECT_TRUE(tiu == hau) << name << " core " << core << ": " << tiu.size() << " TIU vs " << hau.size() << " HAU";
    }
  }
}

TEST(Hau, RejectsMalformedCommands) {
  uint8_t b[2 * cmd::kHauCommandBytes] = {};
  b[0] = 1;
  b[40] = 1;  // send
  b[80] = 1;
  b[83] = 1;  // eod
  b[120] = 2;  // wait
  cmd::HauWalker ok(ConstByteSpan(b, sizeof b));
  cmd::HauCommand c;
  while (ok.next(c)) {
  }
  EXPECT_EQ(ok.status(), Status::ok);
  EXPECT_EQ(ok.count(), 2u);
  uint8_t bad[sizeof b];
  std::copy(b, b + sizeof b, bad);
  bad[120] = 3;  // msg_op 3
  cmd::HauWalker w1(ConstByteSpan(bad, sizeof bad));
  while (w1.next(c)) {
  }
  EXPECT_EQ(w1.status(), Status::cmd_unknown_class);
  EXPECT_EQ(w1.error_offset(), 80u);
  std::copy(b, b + sizeof b, bad);
  bad[100] = 4;  // an undefined bit
  cmd::HauWalker w2(ConstByteSpan(bad, sizeof bad));
  while (w2.next(c)) {
  }
  EXPECT_EQ(w2.status(), Status::cmd_bad_field);
  cmd::HauWalker w3(ConstByteSpan(b, 100));  // truncated second command
  while (w3.next(c)) {
  }
  EXPECT_EQ(w3.status(), Status::cmd_truncated);
  cmd::HauWalker w4(ConstByteSpan(b, cmd::kHauCommandBytes));  // no eod
  while (w4.next(c)) {
  }
  EXPECT_EQ(w4.status(), Status::cmd_missing_end);
}

std::string parse_error(std::vector<uint8_t> f) {
  Bmodel m;
  std::string err;
  return parse_bmodel(ConstByteSpan(f.data(), f.size()), m, err) ? "" : err;
}

TEST(Bmodel, CorruptFilesNameTheField) {
  const std::vector<uint8_t> good = slurp(std::string(TILEFW_TDB_DIR) + "/resnet50_v2_bm1690_f16_core8.bmodel");
  EXPECT_EQ(parse_error(good), "");
  std::vector<uint8_t> f = good;
  f[0] ^= 1;
  EXPECT_NE(parse_error(f).find("header.magic"), std::string::npos);
  f = good;
  f[11] = 0x7F;  // flatbuffers_size past the end
  EXPECT_NE(parse_error(f).find("header.flatbuffers_size"), std::string::npos);
  f.assign(good.begin(), good.begin() + 40);
  EXPECT_NE(parse_error(f).find("header"), std::string::npos);
  // Cut inside the blob: the last core's HAU Binary no longer fits.
  f.assign(good.begin(), good.end() - 100);
  std::vector<uint8_t> g = f;
  const uint32_t bin = static_cast<uint32_t>(g.size() - 64 - 2056);
  std::memcpy(g.data() + 12, &bin, 4);
  const std::string e = parse_error(g);
  EXPECT_NE(e.find("core_commands[7].hau_commands[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the blob"), std::string::npos) << e;
}

// Every single-byte corruption of the header and FlatBuffer, and every truncation at a
// multiple of 16 bytes, is either read or refused with a message: never a crash or an
// out-of-bounds read (this test runs under ASan in CI).
TEST(Bmodel, SurvivesEveryByteFlipOfTheFlatBuffer) {
  const std::vector<uint8_t> good = slurp(std::string(TILEFW_TDB_DIR) + "/resnet50_v2_bm1690_f16_core8.bmodel");
  const size_t fb_end = 64 + 2056;
  size_t refused = 0;
  std::vector<uint8_t> f = good;  // flipped in place and restored: no copy per case
  for (size_t i = 0; i < fb_end; ++i) {
    {  // one flip per byte (alternating top bit / all bits) keeps it fast under ASan
      const uint8_t x = static_cast<uint8_t>(i % 2 == 0 ? 0x80 : 0xFF);
      f[i] ^= x;
      Bmodel m;
      std::string err;
      if (!parse_bmodel(ConstByteSpan(f.data(), f.size()), m, err)) {
        EXPECT_FALSE(err.empty());
        ++refused;
      }
      f[i] ^= x;
    }
  }
  EXPECT_GT(refused, 50u);
  for (size_t n = 0; n < fb_end; n += 16) {
    Bmodel m;
    std::string err;
    EXPECT_FALSE(parse_bmodel(ConstByteSpan(good.data(), n), m, err)) << n;
  }
}

}  // namespace
