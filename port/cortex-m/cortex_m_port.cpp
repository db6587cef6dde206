// Cortex-M port: device memory windows from linker symbols, SysTick time, poll loops and
// D-cache maintenance (only when the core has a D-cache and it is enabled).
#include <cstdint>

#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/sg2260.hpp"

// Linker symbols: base address of each window and its size (as an absolute symbol).
extern "C" {
extern uint8_t __tilefw_a2a3_gm_base[], __tilefw_a2a3_gm_size[];
extern uint8_t __tilefw_a2a3_ub_base[], __tilefw_a2a3_ub_size[];
extern uint8_t __tilefw_a2a3_l1_base[], __tilefw_a2a3_l1_size[];
extern uint8_t __tilefw_a2a3_l0a_base[], __tilefw_a2a3_l0a_size[];
extern uint8_t __tilefw_a2a3_l0b_base[], __tilefw_a2a3_l0b_size[];
extern uint8_t __tilefw_a2a3_l0c_base[], __tilefw_a2a3_l0c_size[];
extern uint8_t __tilefw_a2a3_biastable_base[], __tilefw_a2a3_biastable_size[];
extern uint8_t __tilefw_a2a3_fixpipe_base[], __tilefw_a2a3_fixpipe_size[];
extern uint8_t __tilefw_sg2260_l2_base[], __tilefw_sg2260_l2_size[];
extern uint8_t __tilefw_sg2260_lmem_base[], __tilefw_sg2260_lmem_size[];
extern uint8_t __tilefw_sg2260_smem_base[], __tilefw_sg2260_smem_size[];
extern uint8_t __tilefw_sg2260_ddr_base[], __tilefw_sg2260_ddr_size[];
}

namespace tilefw::port {

namespace {

struct WindowSymbols {
  uint64_t device_base;
  uint8_t* cpu_base;
  uint8_t* size_symbol;  // the symbol's address is the size
};

// Address constants only: constant-initialised, no constructor runs.
constexpr uint64_t kSg2260DdrDevice = chip::sg2260::kDdrWindowBase;
const WindowSymbols kWindowSymbols[] = {
    {chip::a2a3::kGm.device_base, __tilefw_a2a3_gm_base, __tilefw_a2a3_gm_size},
    {chip::a2a3::kUb.device_base, __tilefw_a2a3_ub_base, __tilefw_a2a3_ub_size},
    {chip::a2a3::kL1.device_base, __tilefw_a2a3_l1_base, __tilefw_a2a3_l1_size},
    {chip::a2a3::kL0A.device_base, __tilefw_a2a3_l0a_base, __tilefw_a2a3_l0a_size},
    {chip::a2a3::kL0B.device_base, __tilefw_a2a3_l0b_base, __tilefw_a2a3_l0b_size},
    {chip::a2a3::kL0C.device_base, __tilefw_a2a3_l0c_base, __tilefw_a2a3_l0c_size},
    {chip::a2a3::kBiasTable.device_base, __tilefw_a2a3_biastable_base, __tilefw_a2a3_biastable_size},
    {chip::a2a3::kFixpipe.device_base, __tilefw_a2a3_fixpipe_base, __tilefw_a2a3_fixpipe_size},
    {chip::sg2260::kL2Base, __tilefw_sg2260_l2_base, __tilefw_sg2260_l2_size},
    {chip::sg2260::kLmemWindowBase, __tilefw_sg2260_lmem_base, __tilefw_sg2260_lmem_size},
    // All cores' SMEM, core c at + c * kSmemBytes (as chip::sg2260::smem_region(c) places it).
    {chip::sg2260::kSmemWindowBase, __tilefw_sg2260_smem_base, __tilefw_sg2260_smem_size},
    {kSg2260DdrDevice, __tilefw_sg2260_ddr_base, __tilefw_sg2260_ddr_size},
};
constexpr size_t kWindowCount = sizeof(kWindowSymbols) / sizeof(kWindowSymbols[0]);

cortex_m::Window g_windows[kWindowCount];  // zero-initialised .bss, filled on first use
bool g_windows_ready = false;

const cortex_m::Window* load_windows() noexcept {
  if (!g_windows_ready) {
    for (size_t i = 0; i < kWindowCount; ++i) {
      g_windows[i] = cortex_m::Window{kWindowSymbols[i].device_base, kWindowSymbols[i].cpu_base,
                                      static_cast<uint32_t>(
                                          reinterpret_cast<uintptr_t>(kWindowSymbols[i].size_symbol))};
    }
    g_windows_ready = true;
  }
  return g_windows;
}

// ---- SysTick (ARMv7-M / ARMv8-M system timer), extended to 64 bits in software ---------
volatile uint32_t* const kSystCsr = reinterpret_cast<volatile uint32_t*>(0xE000E010u);
volatile uint32_t* const kSystRvr = reinterpret_cast<volatile uint32_t*>(0xE000E014u);
volatile uint32_t* const kSystCvr = reinterpret_cast<volatile uint32_t*>(0xE000E018u);
constexpr uint32_t kSysTickMask = 0x00FFFFFFu;
bool g_systick_started = false;
uint32_t g_last_count = 0;
uint64_t g_ticks = 0;

// ---- cache maintenance registers (ARMv7-M / ARMv8-M SCB) ---------------------------------
volatile uint32_t* const kScbCcr = reinterpret_cast<volatile uint32_t*>(0xE000ED14u);
volatile uint32_t* const kDcimvac = reinterpret_cast<volatile uint32_t*>(0xE000EF5Cu);
volatile uint32_t* const kDccmvac = reinterpret_cast<volatile uint32_t*>(0xE000EF68u);
constexpr uint32_t kCcrDcacheEnable = 1u << 16;
constexpr uintptr_t kCacheLine = 32;

void dcache_by_line(volatile uint32_t* op, const void* address, size_t bytes) noexcept {
  __asm__ volatile("dsb" ::: "memory");
  if ((*kScbCcr & kCcrDcacheEnable) == 0 || bytes == 0) return;  // M4: no D-cache
  uintptr_t line = reinterpret_cast<uintptr_t>(address) & ~(kCacheLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(address) + bytes;
  for (; line < end; line += kCacheLine) *op = static_cast<uint32_t>(line);
  __asm__ volatile("dsb\n\tisb" ::: "memory");
}

}  // namespace

namespace cortex_m {
const Window* windows(size_t* count) noexcept {
  if (count != nullptr) *count = kWindowCount;
  return load_windows();
}
}  // namespace cortex_m

Result<uint8_t*> map_memory(uint64_t device_address, uint64_t bytes) noexcept {
  const cortex_m::Window* w = load_windows();
  for (size_t i = 0; i < kWindowCount; ++i) {
    if (w[i].size == 0) continue;
    if (device_address < w[i].device_base || device_address - w[i].device_base >= w[i].size) continue;
    const uint64_t offset = device_address - w[i].device_base;
    if (bytes > w[i].size - offset) return Status::region_overrun;
    return w[i].cpu_base + static_cast<uintptr_t>(offset);
  }
  return Status::unmapped_address;
}

uint64_t now_ticks() noexcept {
  const uint32_t state = critical_enter();
  if (!g_systick_started) {
    *kSystRvr = kSysTickMask;
    *kSystCvr = 0;
    *kSystCsr = (1u << 2) | 1u;  // processor clock, enabled, no interrupt
    g_last_count = *kSystCvr & kSysTickMask;
    g_systick_started = true;
  }
  // SysTick counts down and wraps at 24 bits: callers must read at least once per wrap
  // (0.67 s at 25 MHz), which every poll loop does.
  const uint32_t count = *kSystCvr & kSysTickMask;
  g_ticks += (g_last_count - count) & kSysTickMask;
  g_last_count = count;
  const uint64_t now = g_ticks;
  critical_exit(state);
  return now;
}

uint64_t ticks_per_second() noexcept { return TILEFW_CPU_HZ; }

Status poll_register(uint64_t address, uint32_t mask, uint32_t expected,
                     uint64_t timeout_ticks) noexcept {
  const uint64_t start = now_ticks();
  for (;;) {
    if ((reg_read32(address) & mask) == expected) return Status::ok;
    if (now_ticks() - start >= timeout_ticks) return Status::port_timeout;
  }
}

void clean_dcache(const void* address, size_t bytes) noexcept { dcache_by_line(kDccmvac, address, bytes); }
void invalidate_dcache(const void* address, size_t bytes) noexcept {
  dcache_by_line(kDcimvac, address, bytes);
}

}  // namespace tilefw::port
