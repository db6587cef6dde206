// The set-up the a2a3 / A5 simulator tests share (host only): one simulated AI Core of either
// profile, with a tile::Core that follows the core's profile, views of its memories, a
// deterministic RNG to fill them, and a byte-image comparison. Nothing here computes an
// expected value: the references stay in the tests (and in tile_test_sim.hpp's numerics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/tile/instr.hpp"

namespace tile_test {

// The names the tile tests spell their tiles and memories with (a test says `using namespace
// tile_test;` instead of repeating them).
using tilefw::chip::Chip, tilefw::chip::MemSpace;
using tilefw::tile::BLayout, tilefw::tile::DYNAMIC, tilefw::tile::Tile, tilefw::tile::TileType;

/// Both profiles, for the tests that run the same case on each.
inline constexpr uint32_t kProfiles[] = {tilefw::port::host::kProfileA2a3, tilefw::port::host::kProfileA5};

/// xorshift64: the same stream for the same seed on every host.
struct Rng {
  uint64_t x;
  explicit Rng(uint64_t seed = 0x9E3779B97F4A7C15ull) : x(seed | 1) {}
  uint32_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return static_cast<uint32_t>(x >> 16);
  }
  uint32_t in(uint32_t lo, uint32_t hi) { return lo + next() % (hi - lo + 1); }
  void fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(next());
  }
};

/// One simulated AI Core: the host machine of `profile` (a2a3 unless named), the core model on
/// it, and the tile::Core the instructions run on, set to the core's profile.
struct CoreSim {
  tilefw::port::host::Machine m;
  tilefw::port::host::ScopedMachine scope{m};
  tilefw::port::host::A2a3Core core_model{m};
  tilefw::tile::Core core{};

  explicit CoreSim(uint32_t profile = tilefw::port::host::kProfileA2a3) : m(profile) {
    core.chip = core_model.chip();
  }
  explicit CoreSim(tilefw::chip::Chip c)
      : CoreSim(c == tilefw::chip::Chip::a5 ? tilefw::port::host::kProfileA5 : tilefw::port::host::kProfileA2a3) {}

  /// The bytes of memory space `s` of this core's profile (the whole region).
  uint8_t* space(tilefw::chip::MemSpace s) {
    const tilefw::chip::MemoryRegion* r = tilefw::chip::region_of(core.chip, s);
    return *m.translate(r->device_base, r->size);
  }
  /// The byte at offset `off` of memory space `s`.
  uint8_t* at(tilefw::chip::MemSpace s, uint64_t off) {
    const tilefw::chip::MemoryRegion* r = tilefw::chip::region_of(core.chip, s);
    return *m.translate(r->device_base + off, 1);
  }
  uint8_t* ub() { return space(tilefw::chip::MemSpace::UB); }
  size_t ub_size() const { return tilefw::chip::region_size(core.chip, tilefw::chip::MemSpace::UB); }
  /// A copy of memory space `s`.
  std::vector<uint8_t> snapshot(tilefw::chip::MemSpace s) {
    const uint8_t* p = space(s);
    return std::vector<uint8_t>(p, p + tilefw::chip::region_size(core.chip, s));
  }
  std::vector<uint8_t> image() { return snapshot(tilefw::chip::MemSpace::UB); }
  /// Fills all of UB from the RNG stream of `seed`; returns the RNG to draw on from there.
  Rng fill_ub(uint64_t seed) {
    Rng r(seed);
    r.fill(ub(), ub_size());
    return r;
  }
};

/// Compares two images of a memory space; `care(offset)` false skips a byte. Returns "" when
/// equal, else a description of the first differing byte.
template <class Care>
std::string first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, Care care) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && care(i)) {
      static constexpr char kHex[] = "0123456789abcdef";
      auto hex = [](uint8_t b) { return std::string{'0', 'x', kHex[b >> 4], kHex[b & 15]}; };
      return "byte " + std::to_string(i) + ": got " + hex(got[i]) + " want " + hex(want[i]);
    }
  }
  return "";
}
/// Every byte counts.
inline std::string first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  return first_difference(got, want, [](size_t) { return true; });
}

}  // namespace tile_test
