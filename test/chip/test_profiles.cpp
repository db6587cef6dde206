// Chip profiles: the numbers the specs give (each checked here against its source value) and
// the address helpers derived from them.
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace a2a3 = tilefw::chip::a2a3;
namespace sg = tilefw::chip::sg2260;
using tilefw::chip::MemSpace;

TEST(A2a3Profile, SizesAndAlignments) {
  EXPECT_EQ(a2a3::kUbBytes, 196608u);  // 192 KB, the UB size conformance cases use
  EXPECT_EQ(a2a3::kUbUsableBytes, 184u * 1024u);
  EXPECT_EQ(a2a3::kL1Bytes, 512u * 1024u);
  EXPECT_EQ(a2a3::kL0ABytes, 64u * 1024u);
  EXPECT_EQ(a2a3::kL0BBytes, 64u * 1024u);
  EXPECT_EQ(a2a3::kL0CBytes, 128u * 1024u);
  EXPECT_EQ(a2a3::kBiasTableBytes, 1024u);
  EXPECT_EQ(a2a3::kFixpipeBytes, 2048u);
  EXPECT_EQ(a2a3::region_of(MemSpace::UB)->alignment, 32u);
  EXPECT_EQ(a2a3::region_of(MemSpace::L1)->alignment, 32u);
  EXPECT_EQ(a2a3::region_of(MemSpace::L0A)->alignment, 512u);
  EXPECT_EQ(a2a3::region_of(MemSpace::L0B)->alignment, 512u);
  EXPECT_EQ(a2a3::region_of(MemSpace::L0C)->alignment, 64u);
  EXPECT_EQ(a2a3::region_of(MemSpace::BiasTable)->alignment, 64u);
  EXPECT_EQ(a2a3::region_of(MemSpace::Fixpipe)->alignment, 64u);
  EXPECT_EQ(a2a3::region_of(MemSpace::GM)->alignment, 1u);
  EXPECT_TRUE(a2a3::region_of(MemSpace::LMEM) == nullptr);
  EXPECT_EQ(a2a3::kRepeatBytes, 256u);
  EXPECT_EQ(a2a3::kBlockBytes, 32u);
  EXPECT_EQ(a2a3::kMaxRepeat, 255u);
  EXPECT_EQ(a2a3::lanes_per_repeat(2), 128u);
  EXPECT_EQ(a2a3::lanes_per_repeat(4), 64u);
}

TEST(A2a3Profile, RegionsDoNotOverlap) {
  for (const auto& a : a2a3::kRegions) {
    for (const auto& b : a2a3::kRegions) {
      if (&a == &b) continue;
      EXPECT_FALSE(a.device_base < b.end() && b.device_base < a.end());
    }
  }
  // contains() never wraps around.
  EXPECT_TRUE(a2a3::kUb.contains(a2a3::kUb.device_base + a2a3::kUbBytes - 1, 1));
  EXPECT_FALSE(a2a3::kUb.contains(a2a3::kUb.device_base + a2a3::kUbBytes - 1, 2));
  EXPECT_FALSE(a2a3::kUb.contains(a2a3::kUb.device_base + 8, ~uint64_t{0}));
}

TEST(Sg2260Profile, ChipParameters) {
  EXPECT_EQ(sg::kCores, 8u);
  EXPECT_EQ(sg::kLanes, 64u);
  EXPECT_EQ(sg::kLaneBytes, 256u * 1024u);
  EXPECT_EQ(sg::kLmemBytesPerCore, 16ull * 1024 * 1024);
  EXPECT_EQ(sg::kBanksPerLane, 16u);  // LMEM in 16 banks per lane (docs/sg2260-commands.md section 8)
  EXPECT_EQ(sg::kBankBytes, 16u * 1024u);
  EXPECT_EQ(sg::kBanksPerLane * sg::kBankBytes, sg::kLaneBytes);
  EXPECT_EQ(sg::kSmemBytes, 64u * 1024u);
  EXPECT_EQ(sg::kL2Base, 0x6980000000ull);
  EXPECT_EQ(sg::kL2Bytes, 128ull * 1024 * 1024);
  EXPECT_EQ(sg::kClockHz, 1000000000ull);
  EXPECT_EQ(sg::kMaxCommandsPerStream, 1048575u);
}

TEST(Sg2260Profile, AddressDecoding) {
  // DMA tags: coeff (1 << 40), neuron (2 << 40), L2 30, LMEM 31 (docs/sg2260-commands.md section
  // 6.3).
  EXPECT_EQ(sg::dma_tag(0x0100'0000'1000ull), 1u);
  EXPECT_EQ(sg::dma_tag(sg::make_dma_address(sg::kTagL2, 0x69'8000'0000ull)), 30u);
  EXPECT_EQ(sg::dma_offset(sg::make_dma_address(31, 0x40)), 0x40u);
  // Local addresses: lane = bits 23:18, offset = bits 17:0, bank = 17:14, SMEM = bit 26.
  const uint64_t local = (uint64_t{5} << 18) | 0x1'C0C0u;
  EXPECT_EQ(sg::local_lane(local), 5u);
  EXPECT_EQ(sg::local_offset(local), 0x1C0C0u);
  EXPECT_EQ(sg::local_bank(local), 7u);
  EXPECT_FALSE(sg::local_is_smem(local));
  EXPECT_TRUE(sg::local_is_smem(uint64_t{1} << 26));
  // Host placement keeps L2 clear of every DDR tag window.
  EXPECT_GT(sg::ddr_region(0, 0, 1).device_base, sg::kL2Base + sg::kL2Bytes);
}
