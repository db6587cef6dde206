// Host machine: lazily backed memory regions (mmap'd anonymous pages read as zero and cost
// nothing until touched, so a 128 MiB L2 is free), register windows and write hooks.
#include "machine.hpp"

#include <sys/mman.h>

#include <cstring>
#include <utility>

#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/a2a3_engines.hpp"
#include "tilefw/chip/a5.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw_port_backend.hpp"

namespace tilefw::port::host {

struct Machine::Backing {
  chip::MemoryRegion region;
  uint8_t* base = nullptr;
  size_t mapped = 0;

  explicit Backing(const chip::MemoryRegion& r) : region(r) {
    mapped = static_cast<size_t>(r.size);
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    base = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }
  ~Backing() {
    if (base != nullptr) munmap(base, mapped);
  }
  Backing(const Backing&) = delete;
  Backing& operator=(const Backing&) = delete;
};

Machine::Machine(uint32_t profiles)
    : space_words_(chip::kRegisterSpaceBytes / 4, 0),
      space_flags_(chip::kRegisterSpaceBytes / 4, 0),
      profiles_(profiles) {
  if ((profiles & kProfileA2a3) != 0) {
    for (const chip::MemoryRegion& r : chip::a2a3::kRegions) {
      const Status s = add_region(r);
      (void)s;  // the built-in map cannot overlap itself (a test checks every region maps)
    }
    for (const chip::RegisterWindow& w : chip::a2a3::kRegisterWindows) (void)add_register_window(w);
  } else if ((profiles & kProfileA5) != 0) {
    // The A5 AI Core: the same engines and register windows, A5's memory sizes.
    for (const chip::MemoryRegion& r : chip::a5::kRegions) (void)add_region(r);
    for (const chip::RegisterWindow& w : chip::a2a3::kRegisterWindows) (void)add_register_window(w);
  }
  if ((profiles & kProfileSg2260) != 0) {
    (void)add_region(chip::sg2260::kL2);
    (void)add_register_window(chip::sg2260::kEngineRegisters);
    for (uint32_t core = 0; core < chip::sg2260::kCores; ++core) {
      (void)add_region(chip::sg2260::lmem_region(core));
      (void)add_region(chip::sg2260::smem_region(core));
    }
  }
}

Machine::~Machine() = default;

Status Machine::add_region(const chip::MemoryRegion& region) {
  if (region.size == 0 || region.device_base + region.size < region.device_base) {
    return Status::invalid_argument;
  }
  for (const auto& b : regions_) {
    const chip::MemoryRegion& r = b->region;
    if (region.device_base < r.end() && r.device_base < region.end()) return Status::invalid_argument;
  }
  auto backing = std::make_unique<Backing>(region);
  if (backing->base == nullptr) return Status::capacity_exceeded;
  regions_.push_back(std::move(backing));
  return Status::ok;
}

Status Machine::add_register_window(const chip::RegisterWindow& window) {
  if (window.size == 0 || window.size % 4 != 0 || window.base % 4 != 0) return Status::invalid_argument;
  for (const Window& w : windows_) {
    if (window.base < w.window.base + w.window.size && w.window.base < window.base + window.size) {
      return Status::invalid_argument;
    }
  }
  const bool inside = window.base >= chip::kRegisterSpaceBase &&
                      window.base - chip::kRegisterSpaceBase + window.size <= chip::kRegisterSpaceBytes;
  if (inside) {
    const uint64_t first = (window.base - chip::kRegisterSpaceBase) / 4;
    for (uint64_t i = 0; i < window.size / 4; ++i) space_flags_[first + i] = kWordMapped;
    windows_.push_back(Window{window, {}, {}});
  } else {
    windows_.push_back(Window{window, std::vector<uint32_t>(window.size / 4, 0),
                              std::vector<uint8_t>(window.size / 4, kWordMapped)});
  }
  for (const Hook& h : hooks_) mark_hooked(h.address);
  return Status::ok;
}

const chip::MemoryRegion* Machine::region_at(uint64_t device_address) const noexcept {
  for (const auto& b : regions_) {
    if (b->region.contains(device_address)) return &b->region;
  }
  return nullptr;
}

Result<uint8_t*> Machine::translate(uint64_t device_address, uint64_t bytes) const noexcept {
  for (const auto& b : regions_) {
    const chip::MemoryRegion& r = b->region;
    if (!r.contains(device_address)) continue;
    if (!r.contains(device_address, bytes)) return Status::region_overrun;
    return b->base + (device_address - r.device_base);
  }
  return Status::unmapped_address;
}

// Every register access goes through here (tens per simulated issue).
inline uint32_t* Machine::register_word(uint64_t address, uint8_t*& flags) noexcept {
  const uint64_t offset = address - chip::kRegisterSpaceBase;  // wraps above the space when below it
  if (offset < chip::kRegisterSpaceBytes && offset % 4 == 0) {
    uint8_t* f = &space_flags_[offset / 4];
    if ((*f & kWordMapped) != 0) {
      flags = f;
      return &space_words_[offset / 4];
    }
  }
  return register_word_outside(address, flags);
}

[[gnu::noinline]] uint32_t* Machine::register_word_outside(uint64_t address, uint8_t*& flags) noexcept {
  if (address % 4 != 0) {
    record(Status::region_misaligned, address);
    return nullptr;
  }
  for (Window& w : windows_) {
    if (!w.words.empty() && w.window.contains(address, 4)) {
      const uint64_t i = (address - w.window.base) / 4;
      flags = &w.flags[i];
      return &w.words[i];
    }
  }
  record(Status::unmapped_register, address);
  return nullptr;
}

void Machine::record(Status status, uint64_t address) noexcept {
  if (fault_.status == Status::ok) fault_ = PortFault{status, address};
}

// Out of line so that the hot write path saves no registers for the hook calls.
[[gnu::noinline]] void Machine::fire(uint64_t address, uint64_t value) {
  for (size_t k = 0; k < hook_addresses_.size(); ++k) {
    if (hook_addresses_[k] == address) hooks_[k].hook(address, value);
  }
}

void Machine::mark_hooked(uint64_t address) noexcept {
  uint8_t* flags = nullptr;
  const PortFault before = fault_;
  if (register_word(address, flags) != nullptr) *flags |= kWordHooked;
  fault_ = before;  // a hook on an unmapped address simply never fires
}

// The out-of-line halves of read32/write32 (machine.hpp): a window outside the space, a
// fault, or a word some hook watches.
[[gnu::noinline]] uint32_t Machine::read32_outside(uint64_t address) noexcept {
  uint8_t* flags = nullptr;
  const uint32_t* w = register_word(address, flags);
  return w == nullptr ? 0 : *w;
}

[[gnu::noinline]] void Machine::write32_outside(uint64_t address, uint32_t value) noexcept {
  uint8_t* flags = nullptr;
  uint32_t* w = register_word(address, flags);
  if (w == nullptr) return;
  *w = value;
  if ((*flags & kWordHooked) != 0) fire(address, value);
}

const uint32_t* Machine::register_block(uint64_t address, uint64_t bytes) const noexcept {
  const uint64_t offset = address - chip::kRegisterSpaceBase;
  if (offset % 4 != 0 || offset >= chip::kRegisterSpaceBytes || bytes > chip::kRegisterSpaceBytes - offset) {
    return nullptr;
  }
  for (uint64_t i = offset / 4; i < (offset + bytes + 3) / 4; ++i) {
    if ((space_flags_[i] & kWordMapped) == 0) return nullptr;
  }
  return &space_words_[offset / 4];
}

// A 64-bit register is written low word then high word; hooks on the low address see the
// whole value, after both halves are stored.
void Machine::write64(uint64_t address, uint64_t value) noexcept {
  uint8_t* lo_flags = nullptr;
  uint8_t* hi_flags = nullptr;
  uint32_t* lo = register_word(address, lo_flags);
  uint32_t* hi = register_word(address + 4, hi_flags);
  if (lo == nullptr || hi == nullptr) return;
  *lo = static_cast<uint32_t>(value);
  *hi = static_cast<uint32_t>(value >> 32);
  if ((*lo_flags & kWordHooked) != 0) fire(address, value);
}

void Machine::on_write(uint64_t address, WriteHook hook) {
  hooks_.push_back(Hook{address, std::move(hook)});
  hook_addresses_.push_back(address);
  mark_hooked(address);
}

namespace detail {
Machine* g_installed_machine = nullptr;

Machine& default_machine() noexcept {
  static Machine machine(kProfileA2a3);
  return machine;
}
}  // namespace detail

ScopedMachine::ScopedMachine(Machine& machine) noexcept : previous_(detail::g_installed_machine) {
  detail::g_installed_machine = &machine;
}
ScopedMachine::~ScopedMachine() { detail::g_installed_machine = previous_; }

}  // namespace tilefw::port::host

namespace tilefw::port {

Status poll_register(uint64_t address, uint32_t mask, uint32_t expected,
                     uint64_t timeout_ticks) noexcept {
  host::Machine& m = host::current_machine();
  const uint64_t start = m.now();
  for (;;) {
    if ((m.read32(address) & mask) == expected) return Status::ok;
    if (m.now() - start >= timeout_ticks) return Status::port_timeout;
    const uint64_t before = m.now();
    m.run_poll_hook();
    if (m.now() == before) m.advance(1);  // no engine moved the clock: time still passes
  }
}

}  // namespace tilefw::port
