// The .bmodel reader (tools/formats/bmodel.cpp) and the cmd layer on the two real BM1690 models of
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

#include "formats/bmodel.hpp"
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

// A minimal FlatBuffer writer for synthetic models: tables are laid out front to back (vtable,
// then table), children after their parents, so every uoffset points forward as required.
struct FbWriter {
  std::vector<uint8_t> b;
  void align4() {
    while (b.size() % 4 != 0) b.push_back(0);
  }
  template <typename T>
  void put_at(size_t pos, T v) { std::memcpy(b.data() + pos, &v, sizeof v); }
  /// A table whose field i takes sizes[i] bytes (0 = absent); returns the field positions.
  std::vector<size_t> table(const std::vector<uint16_t>& sizes, size_t* table_pos = nullptr) {
    align4();
    const size_t vt = b.size();
    b.resize(vt + 4 + 2 * sizes.size());
    align4();
    const size_t t = b.size();
    b.resize(t + 4);
    put_at<int32_t>(t, static_cast<int32_t>(t - vt));
    std::vector<size_t> at(sizes.size(), 0);
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 0) continue;
      at[i] = b.size();
      put_at<uint16_t>(vt + 4 + 2 * i, static_cast<uint16_t>(b.size() - t));
      b.resize(b.size() + sizes[i]);
    }
    put_at<uint16_t>(vt, static_cast<uint16_t>(4 + 2 * sizes.size()));
    put_at<uint16_t>(vt + 2, static_cast<uint16_t>(b.size() - t));
    if (table_pos != nullptr) *table_pos = t;
    return at;
  }
  /// Points the uoffset at `field` to where the next object will be written.
  void link(size_t field) {
    align4();
    put_at<uint32_t>(field, static_cast<uint32_t>(b.size() - field));
  }
  void link_to(size_t field, size_t target) { put_at<uint32_t>(field, static_cast<uint32_t>(target - field)); }
  void string(size_t field, const std::string& v) {
    link(field);
    const uint32_t n = static_cast<uint32_t>(v.size());
    b.resize(b.size() + 4);
    put_at(b.size() - 4, n);
    b.insert(b.end(), v.begin(), v.end());
    b.push_back(0);
  }
  /// A vector of `n` table offsets; returns the positions of its entries.
  std::vector<size_t> offsets(size_t field, uint32_t n) {
    link(field);
    b.resize(b.size() + 4);
    put_at(b.size() - 4, n);
    std::vector<size_t> e;
    for (uint32_t i = 0; i < n; ++i) {
      e.push_back(b.size());
      b.resize(b.size() + 4);
    }
    return e;
  }
};

// An older single-core layout: NetParameter without core_num, its first subnet with cmd_group
// (a TIU stream, a GDMA Binary of size 0 starting at the blob's end), a second subnet listed
// but not read. Then the same model with a dynamic first subnet is refused.
std::vector<uint8_t> single_core_model(const std::vector<uint8_t>& tiu, bool dynamic) {
  FbWriter w;
  w.b.resize(4);  // root uoffset
  size_t model_t = 0;
  const auto model = w.table({0, 0, 0, 4, 4}, &model_t);
  w.link_to(0, model_t);
  w.string(model[3], "SG2260");
  const auto nets = w.offsets(model[4], 1);
  size_t net_t = 0;
  const auto net = w.table({4, 0, 0, 4}, &net_t);
  w.link_to(nets[0], net_t);
  w.string(net[0], "tiny");
  const auto params = w.offsets(net[3], 1);
  size_t param_t = 0;
  std::vector<uint16_t> psizes(13, 0);
  psizes[2] = 8;
  psizes[3] = 8;
  psizes[12] = 4;
  const auto param = w.table(psizes, &param_t);
  w.link_to(params[0], param_t);
  w.put_at<uint64_t>(param[2], uint64_t{2} << 40);
  w.put_at<uint64_t>(param[3], 4096);
  const auto subnets = w.offsets(param[12], 2);
  for (int k = 0; k < 2; ++k) {
    size_t sn_t = 0;
    const auto sn = w.table({0, 4, 0, 0, 0, 1}, &sn_t);
    w.link_to(subnets[k], sn_t);
    w.b[sn[5]] = dynamic && k == 0 ? 1 : 0;
    const auto groups = w.offsets(sn[1], 1);
    size_t g_t = 0;
    const auto g = w.table({4, 4, 16, 16}, &g_t);
    w.link_to(groups[0], g_t);
    w.put_at<uint32_t>(g[0], 17);
    w.put_at<uint64_t>(g[2], 0);  // binary_bdc {0, tiu bytes}
    w.put_at<uint64_t>(g[2] + 8, tiu.size());
    w.put_at<uint64_t>(g[3], tiu.size());  // binary_gdma {blob size, 0}: no stream
    w.put_at<uint64_t>(g[3] + 8, 0);
  }
  w.align4();
  // Sized up front and filled by copies (GCC 12 at -O2 misreads the bounds of growing inserts).
  std::vector<uint8_t> file(64 + w.b.size() + tiu.size(), 0);
  const uint32_t h[4] = {0xFF55AAEEu, 64, static_cast<uint32_t>(w.b.size()), static_cast<uint32_t>(tiu.size())};
  std::memcpy(file.data(), h, sizeof h);
  std::copy(w.b.begin(), w.b.end(), file.begin() + 64);
  std::copy(tiu.begin(), tiu.end(), file.begin() + 64 + static_cast<std::ptrdiff_t>(w.b.size()));
  return file;
}

TEST(Bmodel, SingleCoreCmdGroupLayout) {
  const std::vector<uint8_t> tiu = slurp(std::string(TILEFW_TDB_DIR) + "/../sg2260-mm0/mm0.BD.0");
  ASSERT_EQ(tiu.size(), 384u);
  const std::vector<uint8_t> f = single_core_model(tiu, false);
  Bmodel m;
  std::string err;
  ASSERT_TRUE(parse_bmodel(ConstByteSpan(f.data(), f.size()), m, err)) << err;
  EXPECT_EQ(m.chip, "SG2260");
  EXPECT_EQ(m.net_name, "tiny");
  ASSERT_EQ(m.cores.size(), 1u);  // no core_num: as many cores as command sets
  EXPECT_EQ(m.cores[0].bdc_num, 17u);
  ASSERT_EQ(m.cores[0].tiu.bytes.size(), 384u);
  EXPECT_EQ(std::memcmp(m.cores[0].tiu.bytes.data(), tiu.data(), 384), 0);
  EXPECT_EQ(m.cores[0].tiu.file_offset, f.size() - 384);
  EXPECT_FALSE(m.cores[0].gdma.present());  // size 0 at the blob's end: no stream
  ASSERT_EQ(m.others.size(), 1u);
  EXPECT_NE(m.others[0].find("sub_net[1]"), std::string::npos);
  EXPECT_EQ(m.ctx_addr, uint64_t{2} << 40);
  const std::vector<uint8_t> d = single_core_model(tiu, true);
  EXPECT_NE(parse_error(d).find("is_dynamic"), std::string::npos) << parse_error(d);
}

// List entries that all point at one shared object: `entries` input tensors sharing one tensor
// table whose name is `name_bytes` long, and `nets` nets sharing one net. Without bounds the
// reader copied the shared name once per entry (a 4 MB file cost gigabytes, or 30 s).
std::vector<uint8_t> shared_entries_model(uint32_t entries, size_t name_bytes, uint32_t nets) {
  FbWriter w;
  w.b.resize(4);
  size_t model_t = 0;
  const auto model = w.table({0, 0, 0, 4, 4}, &model_t);
  w.link_to(0, model_t);
  w.string(model[3], "SG2260");
  const auto net_list = w.offsets(model[4], nets);
  size_t net_t = 0;
  const auto net = w.table({4, 0, 0, 4}, &net_t);
  for (size_t e : net_list) w.link_to(e, net_t);
  w.string(net[0], "shared");
  const auto params = w.offsets(net[3], 1);
  size_t param_t = 0;
  std::vector<uint16_t> psizes(13, 0);
  psizes[0] = 4;
  const auto param = w.table(psizes, &param_t);
  w.link_to(params[0], param_t);
  const auto tensors = w.offsets(param[0], entries);
  size_t tensor_t = 0;
  const auto tensor = w.table({4}, &tensor_t);
  for (size_t e : tensors) w.link_to(e, tensor_t);
  w.string(tensor[0], std::string(name_bytes, 'n'));
  w.align4();
  std::vector<uint8_t> file(64 + w.b.size(), 0);
  const uint32_t h[4] = {0xFF55AAEEu, 64, static_cast<uint32_t>(w.b.size()), 0};
  std::memcpy(file.data(), h, sizeof h);
  std::copy(w.b.begin(), w.b.end(), file.begin() + 64);
  return file;
}

TEST(Bmodel, SharedListEntriesCannotAmplifyTheWork) {
  // 1M tensor entries sharing one 1 MB name (5 MB of file): refused at the list's length.
  std::string e = parse_error(shared_entries_model(1u << 20, 1u << 20, 1));
  EXPECT_NE(e.find("input_tensor: 1048576 tensors (at most 4096)"), std::string::npos) << e;
  // A few entries, but a name too long to copy once per entry.
  e = parse_error(shared_entries_model(16, 1u << 20, 1));
  EXPECT_NE(e.find("string of 1048576 bytes (at most 4096)"), std::string::npos) << e;
  // 1M nets sharing one net.
  e = parse_error(shared_entries_model(1, 8, 1u << 20));
  EXPECT_NE(e.find("model.net: 1048576 nets (at most 4096)"), std::string::npos) << e;
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
