// The port facade as the core sees it, on whichever backend the build chose: device memory
// mapping and copies, registers, doorbells, polling with timeouts, time, critical sections.
#include <cstdint>
#include <cstring>

#include "tilefw/port/port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace port = tilefw::port;
namespace a2a3 = tilefw::chip::a2a3;
using tilefw::Status;

TEST(PortFacade, UbIsMappedAtItsDeviceAddress) {
  auto whole = port::map_memory(a2a3::kUb.device_base, a2a3::kUbBytes);
  ASSERT_TRUE(whole.ok());
  auto last = port::map_memory(a2a3::kUb.device_base + a2a3::kUbBytes - 32, 32);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, *whole + (a2a3::kUbBytes - 32));
}

TEST(PortFacade, RangesPastARegionAreRejected) {
  EXPECT_EQ(port::map_memory(a2a3::kUb.device_base + a2a3::kUbBytes - 32, 33).status(),
            Status::region_overrun);
  EXPECT_EQ(port::map_memory(a2a3::kUb.device_base + a2a3::kUbBytes, 1).status(),
            Status::unmapped_address);
  EXPECT_EQ(port::map_memory(0x7FFF'0000'0000ull, 4).status(), Status::unmapped_address);
}

TEST(PortFacade, CopiesRoundTripThroughDeviceMemory) {
  uint8_t out[64];
  uint8_t back[64];
  for (uint32_t i = 0; i < 64; ++i) out[i] = static_cast<uint8_t>(i * 7 + 3);
  const uint64_t at = a2a3::kUb.device_base + 4096;
  ASSERT_EQ(port::copy_to_device(at, out, sizeof out), Status::ok);
  std::memset(back, 0, sizeof back);
  ASSERT_EQ(port::copy_from_device(back, at, sizeof back), Status::ok);
  EXPECT_EQ(std::memcmp(out, back, sizeof out), 0);
  // A copy that would run past UB changes nothing.
  const uint64_t edge = a2a3::kUb.device_base + a2a3::kUbBytes - 16;
  uint8_t before[16];
  ASSERT_EQ(port::copy_from_device(before, edge, 16), Status::ok);
  EXPECT_EQ(port::copy_to_device(edge, out, 32), Status::region_overrun);
  uint8_t after[16];
  ASSERT_EQ(port::copy_from_device(after, edge, 16), Status::ok);
  EXPECT_EQ(std::memcmp(before, after, 16), 0);
  EXPECT_EQ(port::copy_to_device(at, nullptr, 4), Status::invalid_argument);
}

TEST(PortFacade, RegistersHoldWhatIsWritten) {
  const uint64_t reg = a2a3::kVectorUnitRegisters.base + 0xF00;  // a scratch slot
  port::reg_write32(reg, 0xA5A5'0001u);
  EXPECT_EQ(port::reg_read32(reg), 0xA5A5'0001u);
  port::reg_write64(reg + 8, 0x0123'4567'89AB'CDEFull);
  EXPECT_EQ(port::reg_read64(reg + 8), 0x0123'4567'89AB'CDEFull);
  EXPECT_EQ(port::reg_read32(reg + 8), 0x89AB'CDEFu);  // low word first
  port::ring_doorbell(reg + 16, 7u);
  EXPECT_EQ(port::reg_read32(reg + 16), 7u);
}

TEST(PortFacade, PollSucceedsOrTimesOut) {
  const uint64_t reg = a2a3::kVectorUnitRegisters.base + 0xF40;
  port::reg_write32(reg, 0x30u);
  EXPECT_EQ(port::poll_register(reg, 0xF0u, 0x30u, 1000), Status::ok);
  const uint64_t t0 = port::now_ticks();
  EXPECT_EQ(port::poll_register(reg, 0xF0u, 0x40u, 2000), Status::port_timeout);
  EXPECT_GE(port::now_ticks() - t0, 2000u);  // the timeout really elapsed
  EXPECT_GT(port::ticks_per_second(), 0u);
}

TEST(PortFacade, CriticalSectionsNest) {
  {
    port::CriticalSection outer;
    {
      port::CriticalSection inner;
      const uint64_t reg = a2a3::kVectorUnitRegisters.base + 0xF80;
      port::reg_write32(reg, 1u);
      EXPECT_EQ(port::reg_read32(reg), 1u);
    }
  }
  // After both scopes the state is restored: entering again returns the outermost state.
  const uint32_t s1 = port::critical_enter();
  const uint32_t s2 = port::critical_enter();
  port::critical_exit(s2);
  port::critical_exit(s1);
  EXPECT_NE(s1, s2);
}

TEST(PortFacade, CacheMaintenanceIsSafeOnAnyRange) {
  auto ub = port::map_memory(a2a3::kUb.device_base, 256);
  ASSERT_TRUE(ub.ok());
  (*ub)[5] = 0x5A;
  port::clean_dcache(*ub, 256);
  port::invalidate_dcache(*ub, 256);
  EXPECT_EQ((*ub)[5], 0x5A);  // no D-cache, or a coherent one: the byte is still there
  port::clean_dcache(*ub, 0);
}
