// splitmix64: a small, fixed, portable generator. Where tilefw draws data (gen's weights and
// inputs) or routings (run's routing models) from a seed, the seed names the same sequence on
// every machine, so the draws are part of what the seed means.
#pragma once

#include <cstdint>

namespace tilefw::tools {

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// 0..n-1 (n small: the modulo bias is below 2^-40).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

}  // namespace tilefw::tools
