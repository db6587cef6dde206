// Whole-buffer validation: the real mm0 sets validate with and without the manifest's memory
// map; every malformed-buffer class reports its Status together with command id and offset.
#include <cstring>

#include "cmd/mm0_data.hpp"
#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
// manifest.json memory.ddr_regions
constexpr DdrRegion kMap[2] = {{1, 0x10000000000ull, 4096}, {2, 0x20000000000ull, 12288}};

ValidateOptions with_map() {
  ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const DdrRegion>(kMap, 2);
  return o;
}

struct Copy {
  uint8_t tiu[384];
  uint8_t gdma[896];
  uint8_t sdma[256];
  explicit Copy(int core) {
    std::memcpy(tiu, mm0::kBd[core], sizeof tiu);
    std::memcpy(gdma, mm0::kGdma[core], sizeof gdma);
    std::memcpy(sdma, mm0::kSdma[core], sizeof sdma);
  }
  CoreStreams streams() const {
    return {ConstByteSpan(tiu, sizeof tiu), ConstByteSpan(gdma, sizeof gdma),
            ConstByteSpan(sdma, sizeof sdma)};
  }
};
}  // namespace

TEST(CmdValidate, RealSetsAreValid) {
  for (int core = 0; core < 8; ++core) {
    const Copy c(core);
    const ValidationReport a = validate_core(c.streams());
    EXPECT_EQ(a.status, Status::ok);
    const ValidationReport b = validate_core(c.streams(), with_map());
    EXPECT_EQ(b.status, Status::ok);
    const ValidationReport t = validate_stream(Engine::tiu, ConstByteSpan(c.tiu, 384), with_map());
    EXPECT_EQ(t.status, Status::ok);
    EXPECT_EQ(t.commands, 17u);
    const ValidationReport g = validate_stream(Engine::gdma, ConstByteSpan(c.gdma, 896), with_map());
    EXPECT_EQ(g.status, Status::ok);
    EXPECT_EQ(g.commands, 20u);
  }
}

TEST(CmdValidate, Truncated) {
  const ValidationReport r = validate_stream(Engine::tiu, ConstByteSpan(mm0::kBd[0], 72));
  EXPECT_EQ(r.status, Status::cmd_truncated);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  EXPECT_EQ(r.engine, Engine::tiu);
}

TEST(CmdValidate, UnknownClass) {
  Copy c(0);
  write_field(c.gdma + 288, 37, 3, 5);  // tensor sp_func 5 (BM1688 only)
  const ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_unknown_class);
  EXPECT_EQ(r.engine, Engine::gdma);
  EXPECT_EQ(r.command_id, 9u);
  EXPECT_EQ(r.offset, size_t{288});
}

TEST(CmdValidate, MissingEnd) {
  const ValidationReport r = validate_stream(Engine::gdma, ConstByteSpan(mm0::kGdma[0], 864));
  EXPECT_EQ(r.status, Status::cmd_missing_end);
  EXPECT_EQ(r.command_id, 20u);
  EXPECT_EQ(r.offset, size_t{864});
}

TEST(CmdValidate, DataAfterEnd) {
  Copy c(2);
  c.gdma[890] = 0x5a;
  const ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_data_after_end);
  EXPECT_EQ(r.engine, Engine::gdma);
  EXPECT_EQ(r.command_id, 21u);
  EXPECT_EQ(r.offset, size_t{890});
}

TEST(CmdValidate, DependencyBeyondTheOtherStream) {
  Copy c(0);
  write_field(c.tiu + 32, 17, 23, CommandBuilder::dep_on(21));  // GDMA has 20 commands
  const ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_unsatisfiable_dependency);
  EXPECT_EQ(r.engine, Engine::tiu);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  EXPECT_STREQ(r.field, "cmd_id_dep");
  // Alone, the stream cannot know the GDMA count; with it given, the same error.
  EXPECT_EQ(validate_stream(Engine::tiu, ConstByteSpan(c.tiu, 384)).status, Status::ok);
  ValidateOptions o;
  o.peer_commands = 20;
  EXPECT_EQ(validate_stream(Engine::tiu, ConstByteSpan(c.tiu, 384), o).status,
            Status::cmd_unsatisfiable_dependency);
  // A disabled dependency (bit 20 clear) is never checked.
  write_field(c.tiu + 32, 17, 23, 21);
  EXPECT_EQ(validate_core(c.streams()).status, Status::ok);
}

TEST(CmdValidate, CircularDependency) {
  Copy c(0);
  // GDMA #3 (the load TIU #3 waits for) now waits for TIU #3: neither can start.
  write_field(c.gdma + 32, 64, 21, CommandBuilder::dep_on(3));
  const ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_unsatisfiable_dependency);
  EXPECT_EQ(r.engine, Engine::tiu);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
}

TEST(CmdValidate, BadAddressTag) {
  Copy c(0);
  write_field(c.gdma + 32, 544, 13, 0);  // GDMA #3 src tag 2 -> tag 0
  ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_bad_address_tag);
  EXPECT_EQ(r.engine, Engine::gdma);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  EXPECT_STREQ(r.field, "src_start_addr");
  // Tag 5 is accepted without a memory map, rejected with one.
  write_field(c.gdma + 32, 544, 13, 0x500);
  EXPECT_EQ(validate_core(c.streams()).status, Status::ok);
  r = validate_core(c.streams(), with_map());
  EXPECT_EQ(r.status, Status::cmd_bad_address_tag);
  EXPECT_EQ(r.command_id, 3u);
  // L2 address below the L2 base (GDMA #4 dst).
  Copy d(0);
  write_field(d.gdma + 128, 576, 32, 0x1000);
  r = validate_core(d.streams());
  EXPECT_EQ(r.status, Status::cmd_bad_address_tag);
  EXPECT_EQ(r.command_id, 4u);
  EXPECT_EQ(r.offset, size_t{128});
  EXPECT_STREQ(r.field, "dst_start_addr");
}

// Commands marked as checked copies skip their operand checks (the generator vouches for
// them), and only those: structure and dependencies are still checked, and an unmarked
// command with the same fault is refused.
TEST(CmdValidate, CheckedCopiesSkipOnlyTheirOperandChecks) {
  Copy c(0);
  write_field(c.gdma + 32, 544, 13, 0);  // GDMA #3 src tag 2 -> tag 0
  const uint8_t third = 1u << 2, fourth = 1u << 3;
  CoreStreams marked = c.streams();
  marked.gdma_checked = Span<const uint8_t>(&third, 1);
  EXPECT_EQ(validate_core(marked).status, Status::ok);
  marked.gdma_checked = Span<const uint8_t>(&fourth, 1);  // another command marked
  EXPECT_EQ(validate_core(marked).status, Status::cmd_bad_address_tag);
  marked.tiu_checked = Span<const uint8_t>(&third, 1);  // the TIU stream's mark is its own
  EXPECT_EQ(validate_core(marked).status, Status::cmd_bad_address_tag);
  // A marked command's dependency is still checked.
  Copy d(0);
  write_field(d.gdma + 32, 64, 21, CommandBuilder::dep_on(3));  // GDMA #3 waits for TIU #3: a cycle
  CoreStreams dep = d.streams();
  dep.gdma_checked = Span<const uint8_t>(&third, 1);
  EXPECT_EQ(validate_core(dep).status, Status::cmd_unsatisfiable_dependency);
}

// The rule a generator checks moved operands with is validation's own.
TEST(CmdValidate, LinearOperandRuleIsValidations) {
  const ValidateOptions m = with_map();
  for (const DdrRegion& r : Span<const DdrRegion>(kMap, 2)) {
    EXPECT_TRUE(dma_linear_operand_ok(r.device_addr, r.bytes, m));
    EXPECT_FALSE(dma_linear_operand_ok(r.device_addr, r.bytes + 1, m));
    EXPECT_FALSE(dma_linear_operand_ok(r.device_addr + r.bytes, 1, m));
  }
  EXPECT_FALSE(dma_linear_operand_ok(uint64_t{31} << 40, 4, ValidateOptions{}));  // LMEM: lanes, not linear
  EXPECT_FALSE(dma_linear_operand_ok(0, 4, ValidateOptions{}));                   // tag 0
  EXPECT_TRUE(dma_linear_operand_ok(uint64_t{5} << 40, 4, ValidateOptions{}));    // any tag without a map
}

TEST(CmdValidate, LmemOutOfRange) {
  Copy c(0);
  write_field(c.gdma + 32, 576, 32, 1u << 24);  // GDMA #3 dst: lane 64
  ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_lmem_out_of_range);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  Copy d(0);
  write_field(d.tiu + 32, 160, 32, 0x02000000);  // sAR res0_addr bit 25
  r = validate_core(d.streams());
  EXPECT_EQ(r.status, Status::cmd_lmem_out_of_range);
  EXPECT_EQ(r.engine, Engine::tiu);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  EXPECT_STREQ(r.field, "res0_addr");
}

TEST(CmdValidate, FootprintOutOfRange) {
  // GDMA #3 reads 272 B of y at the end of the 12288 B neuron region: fine without a map.
  Copy c(0);
  write_field(c.gdma + 32, 512, 32, 12288 - 100);
  EXPECT_EQ(validate_core(c.streams()).status, Status::ok);
  ValidationReport r = validate_core(c.streams(), with_map());
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_EQ(r.offset, size_t{32});
  EXPECT_STREQ(r.field, "src_start_addr");
  // sAR cast result 34 lanes x 2 f16 at the very end of a lane.
  Copy d(0);
  write_field(d.tiu + 32, 160, 32, 0x3FFFE);
  r = validate_core(d.streams());
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_STREQ(r.field, "res0_addr");
  // sMM2 right operand (16 rows x 34 f16) near the end of its lane.
  Copy e(0);
  write_field(e.tiu + 176, 192, 32, 0x3FFC0);
  r = validate_core(e.streams());
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_EQ(r.command_id, 9u);
  EXPECT_EQ(r.offset, size_t{176});
  EXPECT_STREQ(r.field, "opd1_addr");
  // GDMA #10 tensor from L2: 16 x 34 f16 ending past L2.
  Copy f(0);
  write_field(f.gdma + 384, 512, 32, 0x80000000u + 0x7FFFFF0u);
  r = validate_core(f.streams());
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_EQ(r.command_id, 10u);
  EXPECT_EQ(r.offset, size_t{384});
}

TEST(CmdValidate, BadField) {
  Copy c(0);
  write_field(c.tiu + 32, 78, 3, 1);  // sAR short_res0_str 1: unsupported stride mode
  const ValidationReport r = validate_core(c.streams());
  EXPECT_EQ(r.status, Status::cmd_bad_field);
  EXPECT_EQ(r.command_id, 3u);
  EXPECT_STREQ(r.field, "short_res0_str");
}

TEST(CmdValidate, StreamTooLong) {
  ValidateOptions o;
  o.max_commands = 10;
  const ValidationReport r = validate_stream(Engine::tiu, ConstByteSpan(mm0::kBd[0], 384), o);
  EXPECT_EQ(r.status, Status::cmd_stream_too_long);
  EXPECT_EQ(r.command_id, 11u);
  EXPECT_EQ(r.offset, size_t{224});
}
