// Host-only cmd tests: the dependency pairs of the real buffers against tpu-mlir's
// tensor_location.json, and the 2^20 - 1 stream limit on a full-size stream.
//
// Correspondence (worked out from README.md and the JSON): for each op and core,
// `tiu_dma_id(before)` = [t0, d0] and `tiu_dma_id(after)` = [t1, d1] count the TIU and DMA
// (GDMA) commands issued before and after the op, so the op's own commands are TIU ids
// t0+1..t1 and GDMA ids d0+1..d1 (core 0 Cast: TIU #3, GDMA #3..#4). Then:
//  1. every command with an enabled dependency belongs to some op's range (barrier SYS
//     commands carry their dep with bit 20 clear and lie between ops);
//  2. a dependency inside an op waits for a command of the other engine in [before, after]
//     of the same op: never a later op's command, at most the barrier right before the op
//     (GDMA #9 of the MatMul waits for TIU #7, the last barrier wait);
//  3. every op has at least one dependency into its own range of the other engine (the data
//     flow inside the op: load -> compute -> store), e.g. TIU #3 -> GDMA #3, GDMA #4 -> TIU #3.
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cmd/mm0_data.hpp"
#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
struct Dep {
  uint32_t id;
  uint32_t on;
};
std::vector<Dep> enabled_deps(Engine e, const uint8_t* p, size_t n) {
  std::vector<Dep> out;
  Walker w(e, ConstByteSpan(p, n));
  Command c;
  while (w.next(c)) {
    if (c.dep_enabled()) out.push_back({c.id, c.dep_id()});
  }
  return out;
}
}  // namespace

TEST(CmdHost, DependenciesMatchTensorLocation) {
  std::ifstream f(std::string(mm0::kDataDir) + "/tensor_location.json");
  ASSERT_TRUE(f.good());
  const nlohmann::json ops = nlohmann::json::parse(f);
  ASSERT_EQ(ops.size(), size_t{24});
  for (uint32_t core = 0; core < 8; ++core) {
    const std::vector<Dep> tiu = enabled_deps(Engine::tiu, mm0::kBd[core], mm0::kBdBytes);
    const std::vector<Dep> gdma = enabled_deps(Engine::gdma, mm0::kGdma[core], mm0::kGdmaBytes);
    EXPECT_EQ(tiu.size(), size_t{3});
    EXPECT_EQ(gdma.size(), size_t{7});
    size_t tiu_covered = 0, gdma_covered = 0;
    int ops_of_core = 0;
    for (const auto& op : ops) {
      if (op.at("core_id").get<uint32_t>() != core) continue;
      ++ops_of_core;
      const uint32_t t0 = op.at("tiu_dma_id(before)")[0], d0 = op.at("tiu_dma_id(before)")[1];
      const uint32_t t1 = op.at("tiu_dma_id(after)")[0], d1 = op.at("tiu_dma_id(after)")[1];
      int internal = 0;
      for (const Dep& d : tiu) {
        if (d.id <= t0 || d.id > t1) continue;
        ++tiu_covered;
        EXPECT_GE(d.on, d0);
        EXPECT_LE(d.on, d1);
        if (d.on > d0) ++internal;
      }
      for (const Dep& d : gdma) {
        if (d.id <= d0 || d.id > d1) continue;
        ++gdma_covered;
        EXPECT_GE(d.on, t0);
        EXPECT_LE(d.on, t1);
        if (d.on > t0) ++internal;
      }
      EXPECT_GE(internal, 2);
    }
    EXPECT_EQ(ops_of_core, 3);
    EXPECT_EQ(tiu_covered, tiu.size());
    EXPECT_EQ(gdma_covered, gdma.size());
  }
}

TEST(CmdHost, StreamLimitAtFullSize) {
  // 2^20 - 1 commands are accepted; one more is cmd_stream_too_long at id 2^20.
  const uint32_t limit = chip::sg2260::kMaxCommandsPerStream;
  std::vector<uint8_t> buf(size_t{limit + 1} * 16);
  CommandBuilder b(Engine::tiu, ByteSpan(buf.data(), buf.size()));
  for (uint32_t i = 0; i + 1 < limit; ++i) ASSERT_TRUE(b.append(CmdClass::SYS, 30).ok());
  ASSERT_EQ(b.end(), Status::ok);
  EXPECT_EQ(b.end(), Status::cmd_stream_too_long);  // the builder refuses too
  ValidationReport r = validate_stream(Engine::tiu, ConstByteSpan(buf.data(), size_t{limit} * 16));
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.commands, limit);
  // Make the last command a nop and append an end by hand.
  write_field(buf.data() + size_t{limit - 1} * 16, 45, 5, 30);
  write_field(buf.data() + size_t{limit} * 16, 41, 4, 15);
  write_field(buf.data() + size_t{limit} * 16, 45, 5, 31);
  r = validate_stream(Engine::tiu, ConstByteSpan(buf.data(), buf.size()));
  EXPECT_EQ(r.status, Status::cmd_stream_too_long);
  EXPECT_EQ(r.command_id, limit + 1);
  EXPECT_EQ(r.offset, size_t{limit} * 16);
}
