// row_softmax: z[i, :] = softmax(x[i, :]) over an 8 x 200 f32 tile, written with PTO tile
// instructions the way a user kernel is (docs/a2a3-tile-model.md section 9): TLOAD x (MTE2) ->
// TROWMAX ->
// TROWEXPANDSUB -> TEXP -> TROWSUM -> TROWEXPANDDIV (V) -> TSTORE z (MTE3), each pipe waiting
// for the event of the pipe that produced its input.
//
// On the host the kernel runs on the simulated AI Core (port/host/a2a3/core.hpp), whose hazard
// checker must report nothing, and every output is compared bit for bit with a scalar reference
// written from the specs. On Cortex-M (QEMU boards: no NPU, no GM window) the same kernel only
// emits its registers; the example checks every status and the register image of the store.
#include <cstdint>

#include "example_print.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/instr.hpp"

#if !defined(TILEFW_EXAMPLE_TARGET)
#include <bit>
#include <cmath>

#include "a2a3/core.hpp"
#include "machine.hpp"
#endif

namespace {

using tilefw::Status;
namespace a2a3 = tilefw::chip::a2a3;
using namespace tilefw::tile;

// 200 columns = three full 64-lane f32 chunks and an 8-lane tail: TROWMAX and TROWSUM take the
// tmp path (docs/a2a3-vector-semantics.md section 8 with P = 3, rem = 8) and every elementwise op
// a masked tail.
constexpr int kRows = 8;
constexpr int kCols = 200;
constexpr int kLanes = 64;  // f32 lanes per repeat (EPR)

using RowTile = Tile<TileType::Vec, float, kRows, kCols>;
// One value per row, the DN layout PTO recommends for row statistics (8 floats = one 32 B block).
using ColTile = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;
// The reductions' scratch: max(1, P / 2) chunks of 64 lanes per row.
using TmpTile = Tile<TileType::Vec, float, kRows, kLanes>;
using Tensor = GlobalTensor<float, kRows, kCols>;

constexpr uint64_t kGmX = 0x0;
constexpr uint64_t kGmZ = 0x10000;

/// The kernel. Every vector instruction stays on pipe V, so only the pipe changes need events:
/// V waits for the load, MTE3 for the last vector instruction.
Status row_softmax(Core& core, uint64_t gm_x, uint64_t gm_z) {
  Tensor gx, gz;
  TILEFW_TRY(TASSIGN(gx, gm_x));
  TILEFW_TRY(TASSIGN(gz, gm_z));
  RowTile x, y, z;
  ColTile m, s;
  TmpTile tmp;
  TASSIGN<0x0000>(x);
  TASSIGN<0x2000>(y);
  TASSIGN<0x4000>(z);
  TASSIGN<0x6000>(tmp);
  TASSIGN<0x7000>(m);
  TASSIGN<0x7100>(s);

  TILEFW_TRY_ASSIGN(const Event loaded, TLOAD(core, x, gx));
  TILEFW_TRY(TROWMAX(core, m, x, tmp, loaded).status());  // m = max_j x
  TILEFW_TRY(TROWEXPANDSUB(core, y, x, m).status());      // y = x - m (every exponent <= 0)
  TILEFW_TRY(TEXP(core, y, y).status());                  // y = exp(y)
  TILEFW_TRY(TROWSUM(core, s, y, tmp).status());          // s = sum_j y
  TILEFW_TRY_ASSIGN(const Event divided, TROWEXPANDDIV(core, z, y, s));  // z = y / s
  return TSTORE(core, gz, z, divided).status();
}

void print_status(const char* what, Status s) {
  example::print(what);
  example::print(tilefw::status_name(s));
  example::print("\n");
}

#if !defined(TILEFW_EXAMPLE_TARGET)
// Picked so that the check sees TROWSUM's order: with these values, s0 + (s1 + s2) instead of
// (s0 + s1) + s2 changes 6 of the 8 row sums, adding the tail before s2 changes 2, and folding the
// 64 lanes as t[k] + t[k + width] instead of adjacent pairs changes 4.
float input(int i, int j) {
  return static_cast<float>((i * 111 + j * 76) % 229) / 43.0f - 0.75f * static_cast<float>(i);
}

// ---- the reference, from the specs -----------------------------------------------------------
// max: exact. Subtraction and division: one RNE f32 operation each. exp: correctly rounded
// (docs/a2a3-vector-semantics.md section 6.2, Rule: correctly rounded transcendentals),
// computed in long double and rounded once.
// The row sum follows TROWSUM's stream (docs/a2a3-vector-semantics.md section 8, P = 3, rem = 8):
//   t = (s0 + s1) + s2 elementwise over 64 lanes, then t[0..7] += tail[0..7],
//   then vcadd's tree over adjacent pairs of t's 64 lanes (32, 16, 8, 4, 2, 1).
float row_sum_reference(const float* e) {
  static_assert(kCols == 3 * kLanes + 8, "the reference below is written for P = 3, rem = 8");
  float t[kLanes];
  for (int l = 0; l < kLanes; ++l) t[l] = (e[l] + e[kLanes + l]) + e[2 * kLanes + l];
  for (int l = 0; l < 8; ++l) t[l] = t[l] + e[3 * kLanes + l];
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int k = 0; k < width; ++k) t[k] = t[2 * k] + t[2 * k + 1];
  }
  return t[0];
}

struct Reference {
  float max[kRows];
  float sum[kRows];
  float z[kRows][kCols];
};

void reference(const float (&x)[kRows][kCols], Reference& r) {
  for (int i = 0; i < kRows; ++i) {
    float m = x[i][0];
    for (int j = 1; j < kCols; ++j) m = x[i][j] > m ? x[i][j] : m;
    float e[kCols];
    for (int j = 0; j < kCols; ++j) {
      const float d = x[i][j] - m;
      e[j] = static_cast<float>(std::exp(static_cast<long double>(d)));
    }
    r.max[i] = m;
    r.sum[i] = row_sum_reference(e);
    for (int j = 0; j < kCols; ++j) r.z[i][j] = e[j] / r.sum[i];
  }
}

int run_host() {
  tilefw::port::host::Machine machine(tilefw::port::host::kProfileA2a3);
  tilefw::port::host::ScopedMachine scope(machine);
  tilefw::port::host::A2a3Core npu(machine);  // vector unit, move pipes, cube, sync unit
  Core core{};
  core.chip = npu.chip();  // the machine's profile (a2a3), whatever the build's default

  static float x[kRows][kCols];
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) x[i][j] = input(i, j);
  }
  if (tilefw::port::copy_to_device(a2a3::kGm.device_base + kGmX, x, sizeof x) != Status::ok) return 1;

  const Status st = row_softmax(core, kGmX, kGmZ);
  print_status("row_softmax 8x200 f32: ", st);
  if (st != Status::ok) return 1;

  static float z[kRows][kCols];
  static Reference want;
  if (tilefw::port::copy_from_device(z, a2a3::kGm.device_base + kGmZ, sizeof z) != Status::ok) return 1;
  reference(x, want);

  const tilefw::port::host::PipeTracker& pipes = npu.pipes();
  std::printf("instructions: MTE2 %u, V %u, MTE3 %u; hazards: %llu\n", pipes.count(Pipe::MTE2),
              pipes.count(Pipe::V), pipes.count(Pipe::MTE3), static_cast<unsigned long long>(pipes.hazard_count()));
  // The simulated AI Core's clock (docs/a2a3-timing.md): the kernel's cycles and each pipe's
  // busy cycles; MTE2 loads, V computes and MTE3 stores overlap where the events allow.
  const tilefw::port::host::timing::PipeTimer& clock = npu.timer();
  std::printf("cycles: %llu (busy: MTE2 %llu, V %llu, MTE3 %llu)\n", static_cast<unsigned long long>(clock.total()),
              static_cast<unsigned long long>(clock.busy(tilefw::port::host::timing::kPipeMte2)),
              static_cast<unsigned long long>(clock.busy(tilefw::port::host::timing::kPipeV)),
              static_cast<unsigned long long>(clock.busy(tilefw::port::host::timing::kPipeMte3)));
  for (const int i : {0, 3, 7}) {
    float total = 0.0f;
    for (int j = 0; j < kCols; ++j) total += z[i][j];
    std::printf("row %d: max %.9g, sum of exp %.9g, z[0..2] = %.9g %.9g %.9g, sum of z %.7f\n", i, want.max[i],
                want.sum[i], z[i][0], z[i][1], z[i][2], total);
  }

  int mismatches = 0;
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) {
      if (std::bit_cast<uint32_t>(z[i][j]) != std::bit_cast<uint32_t>(want.z[i][j])) {
        if (++mismatches <= 5) {
          std::printf("MISMATCH z[%d][%d]: simulator %08x, reference %08x\n", i, j, std::bit_cast<uint32_t>(z[i][j]),
                      std::bit_cast<uint32_t>(want.z[i][j]));
        }
      }
    }
  }
  if (pipes.hazard_count() != 0) {
    std::printf("FAIL: %llu unsynchronised reads\n", static_cast<unsigned long long>(pipes.hazard_count()));
    return 1;
  }
  if (mismatches != 0) {
    std::printf("FAIL: %d of %d values differ\n", mismatches, kRows * kCols);
    return 1;
  }
  std::printf("softmax: bit-exact (%d rows)\n", kRows);
  return 0;
}
#else
// ---- Cortex-M: register emission only --------------------------------------------------------
int run_target() {
  Core core{};
  const Status st = row_softmax(core, kGmX, kGmZ);
  print_status("row_softmax 8x200 f32 (register emission, no NPU): ", st);
  if (st != Status::ok) return 1;
  // The last issue is the TSTORE: UB z (0x4000) -> GM z on MTE3, 8 x 200.
  const uint64_t b = a2a3::kMte3Registers.base;
  namespace dreg = a2a3::dreg;
  const bool ok = tilefw::port::reg_read64(b + dreg::kSrcAddr) == 0x4000u &&
                  tilefw::port::reg_read64(b + dreg::kDstAddr) == kGmZ &&
                  tilefw::port::reg_read32(b + dreg::kExtent) == dreg::pair_word(kRows, kCols);
  example::print(ok ? "register image of the TSTORE: as expected\n" : "register image of the TSTORE: WRONG\n");
  return ok ? 0 : 1;
}
#endif

}  // namespace

int main() {
#if !defined(TILEFW_EXAMPLE_TARGET)
  return run_host();
#else
  return run_target();
#endif
}
