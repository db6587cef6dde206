// Minimal sg2260 firmware image for the footprint measurement (bench/RESULTS.md): the real
// 8-core MatMul of test/data/sg2260-mm0, every stream validated whole and submitted through
// rt with one CDMA port stream (a send of the result to chip 1: the multi-chip path's
// validation and port registers are linked in), then waited for. Linked with --gc-sections, it holds exactly the tilefw code such a
// firmware pays for; scripts/firmware_size.py reports it. Built, not run: the QEMU boards have
// no TPU behind the register window.
#include <cstdint>

#include "board_print.h"
#include "cmd/mm0_data.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/rt/runtime.hpp"

namespace {
// Device addresses of the streams: DDR, one 4 KB slot per (core, engine).
constexpr uint64_t kStreamBase = 0x1'0000'0000ull;
constexpr uint64_t stream_addr(uint32_t core, uint32_t engine) { return kStreamBase + (core * 3u + engine) * 4096u; }

tilefw::rt::Runtime g_runtime;  // caller-owned state: static storage, no heap

// CDMA: send 64 FP32 from DDR tag 2 to chip 1, then chain_end (with intr_en) and padding.
alignas(16) constexpr uint8_t kCdmaStream[64] = {
    0x02, 0x20, 0x00, 0x02, 0x40, 0, 0, 0, 0x40, 0, 0, 0, 0x40, 0, 0, 0,  // send: fmt FP32, tag 2
    0x01, 0, 0x01, 0, 0x01, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0,           // n, c, h = 1; w = 64
    0x71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                    // chain_end
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
}  // namespace

int main() {
  using namespace tilefw;
  rt::CoreSubmission cores[8]{};
  for (uint32_t c = 0; c < 8; ++c) {
    cores[c].core = c;
    cores[c].tiu = {stream_addr(c, 0), ConstByteSpan(mm0::kBd[c], mm0::kBdBytes)};
    cores[c].gdma = {stream_addr(c, 1), ConstByteSpan(mm0::kGdma[c], mm0::kGdmaBytes)};
    cores[c].sdma = {stream_addr(c, 2), ConstByteSpan(mm0::kSdma[c], mm0::kSdmaBytes)};
  }
  rt::CdmaSubmission port{};
  port.peer = 1;
  port.stream = {kStreamBase + 0x100000, ConstByteSpan(kCdmaStream, sizeof kCdmaStream)};
  Status s = g_runtime.submit(Span<const rt::CoreSubmission>(cores, 8), Span<const rt::CdmaSubmission>(&port, 1));
  if (s == Status::ok) s = g_runtime.wait();
  board_print(status_name(s));
  board_print("\n");
  return s == Status::ok ? 0 : 1;
}
