// #include <pto/host.hpp>: the host harness of PTO kernels on tilefw's simulator. Host-only (uses
// the standard library and the simulator, port/host).
//
//   pto::host::Core core;                 // a simulated a2a3 AI Core, current on this thread
//   float* x = pto::host::gm<float>(256); // 256 zeroed floats of its GM, read/written directly
//   my_kernel(x, ...);                    // the kernel takes them as __gm__ float*
//
// A failed check prints the failure to stderr and exits non-zero, unless the core is in checked
// mode (set_checked(true): the failure is only recorded, pto::status() returns it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "pto/pto-inst.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"

namespace pto::host {

/// Prints a failure the way a PTO check reports one: the instruction, the Status and what the
/// report names.
inline void print_failure(std::FILE* out, const Failure& f) noexcept {
  std::fprintf(out, "pto: %s failed: %s", f.instr, tilefw::status_name(f.status));
  if (f.report.field != nullptr && f.report.field[0] != '\0') std::fprintf(out, " (%s", f.report.field);
  if (f.status == tilefw::Status::tile_out_of_bounds && f.space != tilefw::chip::MemSpace::none) {
    std::fprintf(out, ": %u bytes at offset %llu, %u bytes left in %s", f.report.value,
                 static_cast<unsigned long long>(f.report.byte_offset), f.report.limit,
                 tilefw::chip::mem_space_name(f.space));
  } else if (f.report.value != 0 || f.report.limit != 0) {
    std::fprintf(out, " = %u, limit %u", f.report.value, f.report.limit);
  }
  if (f.report.field != nullptr && f.report.field[0] != '\0') std::fprintf(out, ")");
  std::fprintf(out, ": %s\n", tilefw::status_description(f.status));
}

/// The default handler: print and exit(1), as a failed check ends a PTO kernel.
inline void exit_on_failure(const Failure& f) noexcept {
  print_failure(stderr, f);
  std::exit(1);
}

class Core;
namespace detail {
inline thread_local Core* g_core = nullptr;
}

/// A simulated a2a3 AI Core (vector unit, cube, the move pipes, the sync unit and the hazard
/// checker) on its own machine, current on this thread while it lives.
class Core {
 public:
  /// An a2a3 core, or an A5 one (A5's memory sizes and rules where the profiles differ); the
  /// build's profile by default (a2a3 unless TILEFW_CHIP_A5).
  explicit Core(tilefw::chip::Chip chip = tilefw::chip::kBuildChip)
      : machine_(chip == tilefw::chip::Chip::a5 ? tilefw::port::host::kProfileA5 : tilefw::port::host::kProfileA2a3),
        scope_(machine_), npu_(machine_), current_(context_), previous_(detail::g_core) {
    context_.tile.chip = chip;
    context_.tile.vu.chip = chip;  // issues the harness makes directly (TBIN_INTRIN) too
    const tilefw::chip::MemoryRegion& gm = tilefw::chip::a2a3::kGm;
    const tilefw::Result<uint8_t*> base = machine_.translate(gm.device_base, gm.size);
    gm_base_ = base.ok() ? base.value() : nullptr;
    context_.gm_base = reinterpret_cast<uintptr_t>(gm_base_);
    context_.gm_bytes = gm_base_ != nullptr ? gm.size : 0;
    context_.on_error = exit_on_failure;
    detail::g_core = this;
  }
  ~Core() { detail::g_core = previous_; }
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  Context& context() noexcept { return context_; }
  tilefw::port::host::Machine& machine() noexcept { return machine_; }
  tilefw::port::host::A2a3Core& npu() noexcept { return npu_; }
  /// Hazards the simulator saw (a read of bytes whose writer on another pipe was not waited for).
  uint64_t hazard_count() const noexcept { return npu_.pipes().hazard_count(); }
  /// Manual sync: instructions whose operands needed a wait the author did not write (reads
  /// and overwrites alike); context().first_violation names the first.
  uint64_t sync_violations() const noexcept { return context_.sync_violations; }

  /// Checked mode: failures are only recorded (pto::status()), nothing exits.
  void set_checked(bool on) noexcept { context_.checked = on; }
  void set_sync(SyncMode m) noexcept { context_.sync = m; }

  /// Host pointer to byte `offset` of an on-chip space (UB, L1, ...), for tests that look at
  /// where a kernel's tiles lie; nullptr outside the space.
  uint8_t* space(tilefw::chip::MemSpace s, uint64_t offset = 0) noexcept {
    for (const tilefw::chip::MemoryRegion& r :
         context_.tile.chip == tilefw::chip::Chip::a5 ? tilefw::chip::a5::kRegions : tilefw::chip::a2a3::kRegions) {
      if (r.space != s || offset >= r.size) continue;
      const tilefw::Result<uint8_t*> p = machine_.translate(r.device_base + offset, r.size - offset);
      return p.ok() ? p.value() : nullptr;
    }
    return nullptr;
  }

  /// `n` zeroed T of GM (64-byte aligned, never reused); nullptr when the GM window has fewer
  /// than n T left (any n: the count is compared before it is turned into bytes, so a huge n
  /// cannot wrap into a small allocation).
  template <class T>
  T* gm(size_t n) noexcept {
    if (gm_base_ == nullptr) return nullptr;
    const uint64_t left = context_.gm_bytes - gm_next_;
    if (uint64_t{n} > left / sizeof(T)) return nullptr;
    const uint64_t bytes = (uint64_t{n} * sizeof(T) + 63) / 64 * 64;  // n * sizeof(T) <= left: no wrap
    if (bytes > left) return nullptr;
    T* p = reinterpret_cast<T*>(gm_base_ + gm_next_);
    gm_next_ += bytes;
    return p;
  }

 private:
  tilefw::port::host::Machine machine_;
  tilefw::port::host::ScopedMachine scope_;
  tilefw::port::host::A2a3Core npu_;
  Context context_{};
  ScopedContext current_;
  Core* previous_;
  uint8_t* gm_base_ = nullptr;
  uint64_t gm_next_ = 0;
};

/// `n` zeroed T of the current host core's GM; with no core alive or fewer than n T left in
/// its GM window (however large n is), a message and exit(1).
template <class T>
T* gm(size_t n) {
  Core* c = detail::g_core;
  T* p = c != nullptr ? c->gm<T>(n) : nullptr;
  if (p == nullptr) {
    std::fprintf(stderr, "pto: gm<T>(%zu): %s\n", n,
                 c == nullptr ? "no pto::host::Core is alive on this thread" : "the GM window has fewer left");
    std::exit(1);
  }
  return p;
}

}  // namespace pto::host
