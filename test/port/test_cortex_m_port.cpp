// Cortex-M backend specifics (target only): windows come from linker symbols, absent windows
// report unmapped_address, SysTick time advances, PRIMASK is what critical sections save.
#include <cstdint>

#include "tilefw/port/port.hpp"
#include "tftest.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace port = tilefw::port;
namespace a2a3 = tilefw::chip::a2a3;
namespace sg2260 = tilefw::chip::sg2260;
using tilefw::Status;

namespace {

// The window whose device range starts at `device_base`, or nullptr.
const port::cortex_m::Window* window_at(uint64_t device_base) {
  size_t count = 0;
  const port::cortex_m::Window* w = port::cortex_m::windows(&count);
  for (size_t i = 0; i < count; ++i) {
    if (w[i].device_base == device_base && w[i].size != 0) return &w[i];
  }
  return nullptr;
}

// A window of `bytes` at `device_base` is mapped at its linker-symbol CPU address: the first
// and last byte translate, one byte more overruns, data written through the port is read
// back through the pointer.
void expect_window(uint64_t device_base, uint32_t bytes) {
  const port::cortex_m::Window* w = window_at(device_base);
  ASSERT_TRUE(w != nullptr);
  EXPECT_EQ(w->size, bytes);
  const auto first = port::map_memory(device_base, bytes);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value(), w->cpu_base);
  const auto last = port::map_memory(device_base + bytes - 4, 4);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last.value(), w->cpu_base + bytes - 4);
  EXPECT_EQ(port::map_memory(device_base + bytes - 4, 8).status(), Status::region_overrun);
  EXPECT_EQ(port::map_memory(device_base + bytes, 4).status(), Status::unmapped_address);
  const uint32_t pattern = 0xC0DE0000u ^ static_cast<uint32_t>(device_base >> 32);
  ASSERT_EQ(port::copy_to_device(device_base + bytes - 4, &pattern, 4), Status::ok);
  uint32_t back = 0;
  for (int i = 0; i < 4; ++i) back |= uint32_t{w->cpu_base[bytes - 4 + i]} << (8 * i);
  EXPECT_EQ(back, pattern);
}

}  // namespace

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

// The QEMU board scripts place stand-in BiasTable, Fixpipe and SMEM windows beside UB
// (linker/mps2-an386.ld, mps3-an547.ld); tilefw_device.ld leaves them absent elsewhere.
TEST(CortexMPort, BiasTableAndFixpipeWindows) {
  expect_window(a2a3::kBiasTable.device_base, a2a3::kBiasTableBytes);
  expect_window(a2a3::kFixpipe.device_base, a2a3::kFixpipeBytes);
  const port::cortex_m::Window* bias = window_at(a2a3::kBiasTable.device_base);
  const port::cortex_m::Window* fix = window_at(a2a3::kFixpipe.device_base);
  ASSERT_TRUE(bias != nullptr && fix != nullptr);
  EXPECT_TRUE(bias->cpu_base + bias->size <= fix->cpu_base || fix->cpu_base + fix->size <= bias->cpu_base);
}

TEST(CortexMPort, SmemWindowHoldsEveryCore) {
  expect_window(sg2260::kSmemWindowBase, sg2260::kCores * sg2260::kSmemBytes);
  const port::cortex_m::Window* smem = window_at(sg2260::kSmemWindowBase);
  ASSERT_TRUE(smem != nullptr);
  for (uint32_t core = 0; core < sg2260::kCores; ++core) {
    const auto region = sg2260::smem_region(core);
    const auto p = port::map_memory(region.device_base, region.size);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p.value(), smem->cpu_base + core * sg2260::kSmemBytes);
  }
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
