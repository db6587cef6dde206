// The sg2260-mm0 command buffers (test/data/sg2260-mm0), embedded by test/cmd/embed_vectors.py
// at build time so the tests need no file access (QEMU has none).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mm0 {
inline constexpr size_t kBdBytes = 384;
inline constexpr size_t kGdmaBytes = 896;
inline constexpr size_t kSdmaBytes = 256;
/// Per core c = 0..7.
extern const uint8_t* const kBd[8];
extern const uint8_t* const kGdma[8];
extern const uint8_t* const kSdma[8];
/// Absolute path of test/data/sg2260-mm0 (host-only tests read files there).
extern const char* const kDataDir;
}  // namespace mm0
