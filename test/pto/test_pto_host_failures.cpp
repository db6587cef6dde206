// The host harness's GM hand-out refusing a count whose bytes would wrap, and the failure record
// (and the default handler's message) of a TASSIGN past the end of its space.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <pto/host.hpp>

namespace {

using namespace pto;
using tilefw::Status;
using tilefw::chip::MemSpace;

TEST(PtoHostFailures, GmRefusesACountWhoseBytesWrap) {
  pto::host::Core core;
  EXPECT_EQ(core.gm<float>(static_cast<size_t>(-1)), nullptr);
  EXPECT_EQ(core.gm<float>(SIZE_MAX / sizeof(float) + 1), nullptr);  // n * 4 == 2^64: 0 bytes if wrapped
  EXPECT_EQ(core.gm<double>(SIZE_MAX / 8 + 2), nullptr);
  const uint64_t window = core.context().gm_bytes;
  EXPECT_EQ(core.gm<float>(window / sizeof(float) + 1), nullptr);
  // Refusals hand out nothing: the whole window is still there.
  float* all = core.gm<float>(window / sizeof(float));
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(core.gm<float>(1), nullptr);
}

void huge_gm() {
  pto::host::Core core;
  (void)pto::host::gm<float>(static_cast<size_t>(-1));
  std::exit(0);  // not reached
}

TEST(PtoHostFailuresDeathTest, GmOfAHugeCountExits) {
  EXPECT_EXIT(huge_gm(), testing::ExitedWithCode(1), "pto: gm<T>\\(18446744073709551615\\): the GM window has fewer left");
}

using VecT = Tile<TileType::Vec, float, 16, 32>;  // 2048 bytes

TEST(PtoHostFailures, TassignPastTheSpaceNamesBytesOffsetAndWhatIsLeft) {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  core.set_checked(true);
  VecT t;
  TASSIGN(t, 192 * 1024 - 1024);
  const Failure f = pto::last_failure();
  EXPECT_EQ(f.status, Status::tile_out_of_bounds);
  EXPECT_STREQ(f.instr, "TASSIGN");
  EXPECT_STREQ(f.report.field, "tile");
  EXPECT_EQ(f.space, MemSpace::UB);
  EXPECT_EQ(f.report.value, 2048u);
  EXPECT_EQ(f.report.byte_offset, 195584u);
  EXPECT_EQ(f.report.limit, 1024u);
  EXPECT_FALSE(t.assigned());
}

void tassign_past_ub() {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  VecT t;
  TASSIGN(t, 192 * 1024 - 1024);
  std::exit(0);  // not reached
}

TEST(PtoHostFailuresDeathTest, TassignPastTheSpacePrintsTheTilesBytes) {
  EXPECT_EXIT(tassign_past_ub(), testing::ExitedWithCode(1),
              "pto: TASSIGN failed: tile_out_of_bounds \\(tile: 2048 bytes at offset 195584, 1024 bytes left in UB\\)");
}

}  // namespace
