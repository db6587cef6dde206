// The host port's machine: device memory regions backed by lazily zeroed host memory at their
// device addresses, register windows, write hooks that let simulated engines react to
// doorbells, and a simulated clock. Host-only (uses the standard library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tilefw/base/result.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::port::host {

/// Which chip profiles' memories and registers a Machine provides. Both can coexist: their
/// device address maps do not overlap.
enum ProfileBits : uint32_t {
  kProfileA2a3 = 1u << 0,
  kProfileSg2260 = 1u << 1,
  /// A5 (Ascend 950): a2a3's address map and register windows with A5's memory sizes (UB and
  /// L0C 256 KB, BiasTable 4 KB). Excludes kProfileA2a3 (same addresses): with both, a2a3's.
  kProfileA5 = 1u << 2,
};

/// The PTO profile a machine maps when none is named: the build's (an A5 build, TILEFW_CHIP_A5,
/// simulates A5 cores by default).
#if defined(TILEFW_CHIP_A5)
inline constexpr uint32_t kProfileDefault = kProfileA5;
#else
inline constexpr uint32_t kProfileDefault = kProfileA2a3;
#endif

/// A register-access fault recorded by the host port (the facade's register calls cannot
/// return a Status, like real MMIO); tests and the simulator read it back.
struct PortFault {
  Status status = Status::ok;
  uint64_t address = 0;
};

class Machine {
 public:
  using WriteHook = std::function<void(uint64_t address, uint64_t value)>;
  using PollHook = std::function<void()>;

  /// A machine with the memory regions of the given profiles (ProfileBits). sg2260 regions:
  /// L2 and the LMEM/SMEM of all 8 cores; DDR regions come from add_region.
  explicit Machine(uint32_t profiles = kProfileDefault);
  ~Machine();
  /// The ProfileBits the machine was built with.
  uint32_t profiles() const noexcept { return profiles_; }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  /// Adds a region backed by zero-filled host memory, allocated lazily by the OS (untouched
  /// pages cost nothing). invalid_argument if it overlaps an existing region or is empty.
  [[nodiscard]] Status add_region(const chip::MemoryRegion& region);
  /// Adds a register window (all registers read 0 until written).
  [[nodiscard]] Status add_register_window(const chip::RegisterWindow& window);

  /// Host pointer for [device_address, +bytes): unmapped_address if no region holds the start,
  /// region_overrun if the range runs past the region's end.
  Result<uint8_t*> translate(uint64_t device_address, uint64_t bytes) const noexcept;
  /// The region holding device_address, or nullptr.
  const chip::MemoryRegion* region_at(uint64_t device_address) const noexcept;

  // The hot paths (a word of the flat register space, tens per simulated issue) are inline:
  // a subtraction, a bounds test and a flag test; anything else (a window outside the space,
  // a fault, a hooked word) goes out of line.
  uint32_t read32(uint64_t address) noexcept {
    const uint64_t offset = address - chip::kRegisterSpaceBase;  // wraps above the space when below it
    if (offset < chip::kRegisterSpaceBytes && offset % 4 == 0 && (space_flags_[offset / 4] & kWordMapped) != 0) {
      return space_words_[offset / 4];
    }
    return read32_outside(address);
  }
  void write32(uint64_t address, uint32_t value) noexcept {
    const uint64_t offset = address - chip::kRegisterSpaceBase;
    if (offset < chip::kRegisterSpaceBytes && offset % 4 == 0 && space_flags_[offset / 4] == kWordMapped) {
      space_words_[offset / 4] = value;
      return;
    }
    write32_outside(address, value);
  }
  uint64_t read64(uint64_t address) noexcept {
    const uint32_t lo = read32(address);
    const uint32_t hi = read32(address + 4);
    return (uint64_t{hi} << 32) | lo;
  }
  void write64(uint64_t address, uint64_t value) noexcept;

  /// The words of [address, address + bytes) when all of them are mapped words of the flat
  /// register space, else nullptr: a simulated unit decodes its registers straight from them
  /// (a read has no side effect). Valid for the machine's lifetime (the space never moves and
  /// a mapped word stays mapped).
  const uint32_t* register_block(uint64_t address, uint64_t bytes) const noexcept;

  /// Calls `hook` after every write to `address` (a doorbell, a control register).
  void on_write(uint64_t address, WriteHook hook);
  /// Called on every iteration of a poll loop, so simulated engines progress while the core
  /// waits; without one, polling only advances the clock.
  void set_poll_hook(PollHook hook) { poll_hook_ = std::move(hook); }
  void run_poll_hook() {
    if (poll_hook_) poll_hook_();
  }

  uint64_t now() const noexcept { return now_; }
  void advance(uint64_t ticks) noexcept { now_ += ticks; }

  /// The first register fault since the last clear (Status::ok when none).
  PortFault first_fault() const noexcept { return fault_; }
  void clear_fault() noexcept { fault_ = PortFault{}; }

  int critical_depth() const noexcept { return critical_depth_; }
  uint32_t enter_critical() noexcept { return static_cast<uint32_t>(critical_depth_++); }
  void exit_critical(uint32_t state) noexcept { critical_depth_ = static_cast<int>(state); }

 private:
  struct Backing;
  // Windows inside the register space (every built-in one) live in one flat array indexed
  // by the address's offset, the way a target maps that space to one CPU window: an access is
  // a subtraction, a bounds test and a flag test. Windows elsewhere (tests add some) keep their
  // own words and are scanned.
  static constexpr uint8_t kWordMapped = 1;
  static constexpr uint8_t kWordHooked = 2;  // some hook watches it: writes elsewhere skip the hook scan
  struct Window {
    chip::RegisterWindow window;
    std::vector<uint32_t> words;   // empty for windows inside the register space
    std::vector<uint8_t> flags;
  };
  struct Hook {
    uint64_t address;
    WriteHook hook;
  };
  uint32_t* register_word(uint64_t address, uint8_t*& flags) noexcept;
  uint32_t* register_word_outside(uint64_t address, uint8_t*& flags) noexcept;
  uint32_t read32_outside(uint64_t address) noexcept;
  void write32_outside(uint64_t address, uint32_t value) noexcept;
  void record(Status status, uint64_t address) noexcept;
  void fire(uint64_t address, uint64_t value);
  void mark_hooked(uint64_t address) noexcept;

  std::vector<std::unique_ptr<Backing>> regions_;
  std::vector<Window> windows_;
  std::vector<uint32_t> space_words_;
  std::vector<uint8_t> space_flags_;
  std::vector<Hook> hooks_;
  // hooks_[k].address, packed: a doorbell's fire scans these (one cache line for a whole
  // AI Core's hooks) instead of the 40-byte Hook records, which the simulated tiles had
  // evicted from L1 by the next issue.
  std::vector<uint64_t> hook_addresses_;
  PollHook poll_hook_;
  PortFault fault_;
  uint64_t now_ = 0;
  int critical_depth_ = 0;
  uint32_t profiles_ = 0;
};

namespace detail {
extern Machine* g_installed_machine;  // ScopedMachine's; nullptr: the default machine
Machine& default_machine() noexcept;
}  // namespace detail

/// The machine the facade functions act on. A default a2a3 machine exists from first use;
/// ScopedMachine installs another one for a scope (tests, the simulator, tools). Inline: every
/// register access of the core's port facade asks for it.
inline Machine& current_machine() noexcept {
  Machine* m = detail::g_installed_machine;
  return m != nullptr ? *m : detail::default_machine();
}

class ScopedMachine {
 public:
  explicit ScopedMachine(Machine& machine) noexcept;
  ~ScopedMachine();
  ScopedMachine(const ScopedMachine&) = delete;
  ScopedMachine& operator=(const ScopedMachine&) = delete;

 private:
  Machine* previous_;
};

}  // namespace tilefw::port::host
