// The host machine behind the host port: region placement for both profiles, lazy backing,
// register faults, write hooks (how simulated engines see doorbells), poll hooks and time.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace host = tilefw::port::host;
namespace chip = tilefw::chip;
using tilefw::Status;

TEST(HostMachine, EveryA2a3RegionIsBackedAtItsDeviceAddress) {
  host::Machine m(host::kProfileA2a3);
  for (const chip::MemoryRegion& r : chip::a2a3::kRegions) {
    auto p = m.translate(r.device_base, r.size);
    ASSERT_TRUE(p.ok()) << r.name;
    EXPECT_EQ((*p)[r.size - 1], 0) << r.name;  // zero-initialised
    const chip::MemoryRegion* found = m.region_at(r.device_base + r.size - 1);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->space, r.space);
  }
}

TEST(HostMachine, Sg2260RegionsAreLazyAndPerCore) {
  host::Machine m(host::kProfileSg2260);
  // 128 MiB of L2 plus 8 x 16 MiB of LMEM exist without being touched.
  auto l2 = m.translate(chip::sg2260::kL2Base, chip::sg2260::kL2Bytes);
  ASSERT_TRUE(l2.ok());
  auto core7 = m.translate(chip::sg2260::lmem_region(7).device_base, chip::sg2260::kLmemBytesPerCore);
  ASSERT_TRUE(core7.ok());
  auto core6 = m.translate(chip::sg2260::lmem_region(6).device_base, 1);
  ASSERT_TRUE(core6.ok());
  (*core6)[0] = 9;
  EXPECT_EQ((*core7)[0], 0);  // distinct backing per core
  EXPECT_EQ(m.translate(chip::sg2260::kL2Base + chip::sg2260::kL2Bytes, 1).status(),
            Status::unmapped_address);
  // DDR regions come from the caller's memory map.
  ASSERT_EQ(m.add_region(chip::sg2260::ddr_region(1, 0, 4096)), Status::ok);
  EXPECT_TRUE(m.translate(chip::sg2260::ddr_region(1, 100, 1).device_base, 16).ok());
  EXPECT_EQ(m.add_region(chip::sg2260::ddr_region(1, 2048, 4096)), Status::invalid_argument);  // overlap
}

TEST(HostMachine, BothProfilesCoexist) {
  host::Machine m(host::kProfileA2a3 | host::kProfileSg2260);
  EXPECT_TRUE(m.translate(chip::a2a3::kGm.device_base, chip::a2a3::kGmWindowBytes).ok());
  EXPECT_TRUE(m.translate(chip::sg2260::kL2Base, 64).ok());
}

TEST(HostMachine, RegisterFaultsAreRecorded) {
  host::Machine m;
  EXPECT_EQ(m.read32(0x10), 0u);
  EXPECT_EQ(m.first_fault().status, Status::unmapped_register);
  EXPECT_EQ(m.first_fault().address, 0x10u);
  m.clear_fault();
  m.write32(chip::a2a3::kVectorUnitRegisters.base + 2, 1);
  EXPECT_EQ(m.first_fault().status, Status::region_misaligned);
}

TEST(HostMachine, WriteHooksSeeDoorbellsAndPollHooksRunEngines) {
  host::Machine m;
  host::ScopedMachine scope(m);
  const uint64_t doorbell = chip::a2a3::kVectorUnitRegisters.base + 0x100;
  const uint64_t done = chip::a2a3::kVectorUnitRegisters.base + 0x104;
  std::vector<uint64_t> rung;
  uint32_t pending = 0;
  m.on_write(doorbell, [&](uint64_t, uint64_t v) {
    rung.push_back(v);
    pending = static_cast<uint32_t>(v);
  });
  // A fake engine that completes one unit of work per poll, taking 10 ticks each.
  m.set_poll_hook([&] {
    if (pending > 0) {
      --pending;
      m.advance(10);
      m.write32(done, m.read32(done) + 1);
    }
  });
  tilefw::port::ring_doorbell(doorbell, 3);
  ASSERT_EQ(rung.size(), 1u);
  EXPECT_EQ(tilefw::port::poll_register(done, 0xFFFFFFFFu, 3, 1000), Status::ok);
  EXPECT_EQ(m.now(), 30u);
  EXPECT_EQ(tilefw::port::poll_register(done, 0xFFFFFFFFu, 4, 50), Status::port_timeout);
}

TEST(HostMachine, ScopedMachineRestoresThePrevious) {
  host::Machine a;
  host::Machine b;
  {
    host::ScopedMachine sa(a);
    EXPECT_EQ(&host::current_machine(), &a);
    {
      host::ScopedMachine sb(b);
      EXPECT_EQ(&host::current_machine(), &b);
    }
    EXPECT_EQ(&host::current_machine(), &a);
  }
  EXPECT_NE(&host::current_machine(), &a);
}
