// Cortex-M backend specifics (target only): windows come from linker symbols, absent windows
// report unmapped_address, SysTick time advances, PRIMASK is what critical sections save.
#include <cstdint>

#include "port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"

namespace port = tilefw::port;

TEST(CortexMPort, UbWindowComesFromTheLinkerScript) {
  size_t count = 0;
  const port::cortex_m::Window* w = port::cortex_m::windows(&count);
  bool found_ub = false;
  for (size_t i = 0; i < count; ++i) {
    if (w[i].device_base == tilefw::chip::a2a3::kUb.device_base) {
      found_ub = true;
      EXPECT_EQ(w[i].size, tilefw::chip::a2a3::kUbBytes);
      EXPECT_NE(w[i].cpu_base, nullptr);
    }
  }
  EXPECT_TRUE(found_ub);
  // The QEMU boards provide no L1: it is absent, not aliased to address 0.
  EXPECT_EQ(port::map_memory(tilefw::chip::a2a3::kL1.device_base, 4).status(),
            tilefw::Status::unmapped_address);
}

TEST(CortexMPort, TimeAdvances) {
  // QEMU's SysTick follows host time, so how much a fixed loop takes varies: spin until the
  // counter moves (bounded), then check it is monotonic.
  const uint64_t a = port::now_ticks();
  uint64_t b = a;
  for (uint32_t i = 0; i < 5000000 && b == a; ++i) b = port::now_ticks();
  EXPECT_GT(b, a);
  EXPECT_GE(port::now_ticks(), b);
}

TEST(CortexMPort, CriticalSectionMasksInterrupts) {
  uint32_t primask_inside = 0;
  {
    port::CriticalSection cs;
    __asm__ volatile("mrs %0, primask" : "=r"(primask_inside));
  }
  uint32_t primask_after = 1;
  __asm__ volatile("mrs %0, primask" : "=r"(primask_after));
  EXPECT_EQ(primask_inside, 1u);
  EXPECT_EQ(primask_after, 0u);
}
