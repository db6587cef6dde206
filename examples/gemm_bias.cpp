// gemm_bias: C = bias + A x B with A 30 x 56 and B 56 x 40 in f16, C and bias in f32, written
// as a PTO cube kernel (docs/a2a3-tile-model.md section 9): TLOAD (GM -> L1, boxed Mat tiles) on
// MTE2 -> TMOV to
// L0A / L0B / the bias table on MTE1 -> TMATMUL_BIAS over the first 32 of K, TMATMUL_ACC over the
// other 24 (how kernels loop over K) on the cube -> TSTORE the accumulator to GM on FIX, with
// the events of each producing pipe passed to its consumer.
//
// None of M, K or N fills its tile: the valid regions (30, 32 + 24, 40) are smaller than the
// capacities (32, 32, 48), which the box layouts round up to multiples of 16.
//
// On the host the kernel runs on the simulated AI Core (no hazard allowed) and C is compared bit
// for bit with the cube's documented order (port/host/a2a3/tile_engines.hpp). On Cortex-M (no
// NPU, no GM or L1 window) it only emits registers; every status and the store's registers are
// checked.
#include <cstdint>

#include "example_print.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/instr.hpp"

#if !defined(TILEFW_EXAMPLE_TARGET)
#include <bit>
#include <cstdio>

#include "a2a3/core.hpp"
#include "machine.hpp"
#endif

namespace {

using tilefw::half;
using tilefw::Status;
namespace a2a3 = tilefw::chip::a2a3;
using namespace tilefw::tile;

constexpr int kM = 30;
constexpr int kK0 = 32;  // the K block of TMATMUL_BIAS
constexpr int kK1 = 24;  // the K block of TMATMUL_ACC
constexpr int kK = kK0 + kK1;
constexpr int kN = 40;
// Capacities: f16 boxes are 16 x 16, accumulator boxes 16 x 16.
constexpr int kMCap = 32;
constexpr int kKCap = 32;
constexpr int kNCap = 48;

// L1 staging tiles as the nd2nz load leaves them: A col-major boxes of row-major 16 x 16 (Nz),
// B row-major boxes of col-major 16 x 16 (Zn); the bias one unboxed row.
template <int KValid>
using MatA = Tile<TileType::Mat, half, kMCap, kKCap, BLayout::ColMajor, kM, KValid, SLayout::RowMajor>;
template <int KValid>
using MatB = Tile<TileType::Mat, half, kKCap, kNCap, BLayout::RowMajor, KValid, kN, SLayout::ColMajor>;
using MatBias = Tile<TileType::Mat, float, 1, kNCap, BLayout::RowMajor, 1, kN>;
using BiasTile = Tile<TileType::Bias, float, 1, kNCap, BLayout::RowMajor, 1, kN>;
using AccTile = TileAcc<float, kMCap, kNCap, kM, kN>;

// GM: A row-major M x K (a K block is a column range: rows stay K apart), B row-major K x N,
// bias 1 x N, C row-major M x N.
constexpr uint64_t kGmA = 0x0;
constexpr uint64_t kGmB = 0x1000;
constexpr uint64_t kGmBias = 0x3000;
constexpr uint64_t kGmC = 0x4000;

Status gemm_bias(Core& core) {
  GlobalTensor<half, kM, kK0, kK> ga0;
  GlobalTensor<half, kM, kK1, kK> ga1;
  GlobalTensor<half, kK0, kN> gb0;
  GlobalTensor<half, kK1, kN> gb1;
  GlobalTensor<float, 1, kN> gbias;
  GlobalTensor<float, kM, kN> gc;
  TILEFW_TRY(TASSIGN(ga0, kGmA));
  TILEFW_TRY(TASSIGN(ga1, kGmA + kK0 * sizeof(half)));
  TILEFW_TRY(TASSIGN(gb0, kGmB));
  TILEFW_TRY(TASSIGN(gb1, kGmB + kK0 * kN * sizeof(half)));
  TILEFW_TRY(TASSIGN(gbias, kGmBias));
  TILEFW_TRY(TASSIGN(gc, kGmC));

  MatA<kK0> ma0;
  MatA<kK1> ma1;
  MatB<kK0> mb0;
  MatB<kK1> mb1;
  MatBias mbias;
  TASSIGN<0x0000>(ma0);
  TASSIGN<0x0800>(ma1);
  TASSIGN<0x1000>(mb0);
  TASSIGN<0x2000>(mb1);
  TASSIGN<0x3000>(mbias);
  TileLeft<half, kMCap, kKCap, kM, kK0> a0;
  TileLeft<half, kMCap, kKCap, kM, kK1> a1;
  TileRight<half, kKCap, kNCap, kK0, kN> b0;
  TileRight<half, kKCap, kNCap, kK1, kN> b1;
  BiasTile bias;
  AccTile acc;
  TASSIGN<0x0000>(a0);
  TASSIGN<0x0800>(a1);
  TASSIGN<0x0000>(b0);
  TASSIGN<0x1000>(b1);
  TASSIGN<0x0>(bias);
  TASSIGN<0x0>(acc);

  // MTE2: everything into L1.
  TILEFW_TRY_ASSIGN(const Event la0, TLOAD(core, ma0, ga0));
  TILEFW_TRY_ASSIGN(const Event lb0, TLOAD(core, mb0, gb0));
  TILEFW_TRY_ASSIGN(const Event lbias, TLOAD(core, mbias, gbias));
  TILEFW_TRY_ASSIGN(const Event la1, TLOAD(core, ma1, ga1));
  TILEFW_TRY_ASSIGN(const Event lb1, TLOAD(core, mb1, gb1));
  // MTE1: each move waits for the load of its source.
  TILEFW_TRY_ASSIGN(const Event ma0_ready, TMOV(core, a0, ma0, la0));
  TILEFW_TRY_ASSIGN(const Event mb0_ready, TMOV(core, b0, mb0, lb0));
  TILEFW_TRY_ASSIGN(const Event bias_ready, TMOV(core, bias, mbias, lbias));
  TILEFW_TRY_ASSIGN(const Event ma1_ready, TMOV(core, a1, ma1, la1));
  TILEFW_TRY_ASSIGN(const Event mb1_ready, TMOV(core, b1, mb1, lb1));
  // M: C = bias + A[:, 0:32] B[0:32, :], then C += A[:, 32:56] B[32:56, :].
  TILEFW_TRY_ASSIGN(const Event first, TMATMUL_BIAS(core, acc, a0, b0, bias, ma0_ready, mb0_ready, bias_ready));
  TILEFW_TRY_ASSIGN(const Event second, TMATMUL_ACC(core, acc, a1, b1, first, ma1_ready, mb1_ready));
  // FIX: the accumulator (Nz boxes) to row-major GM, f32 -> f32.
  return TSTORE(core, gc, acc, second).status();
}

void print_status(const char* what, Status s) {
  example::print(what);
  example::print(tilefw::status_name(s));
  example::print("\n");
}

#if !defined(TILEFW_EXAMPLE_TARGET)
// Inputs with full 11-bit mantissas, so the f32 sums really round and the order matters.
float a_value(int i, int k) { return static_cast<float>((i * 131 + k * 29) % 257) / 97.0f - 1.3f; }
float b_value(int k, int j) { return static_cast<float>((k * 53 + j * 17) % 211) / 61.0f - 1.7f; }
float bias_value(int j) { return static_cast<float>((j * 17) % 23) / 7.0f - 1.5f; }

int run_host() {
  tilefw::port::host::Machine machine(tilefw::port::host::kProfileA2a3);
  tilefw::port::host::ScopedMachine scope(machine);
  tilefw::port::host::A2a3Core npu(machine);
  Core core{};
  core.chip = npu.chip();  // the machine's profile (a2a3), whatever the build's default

  static half a[kM][kK];
  static half b[kK][kN];
  static float bias[kN];
  for (int i = 0; i < kM; ++i) {
    for (int k = 0; k < kK; ++k) a[i][k] = tilefw::to_half(a_value(i, k));
  }
  for (int k = 0; k < kK; ++k) {
    for (int j = 0; j < kN; ++j) b[k][j] = tilefw::to_half(b_value(k, j));
  }
  for (int j = 0; j < kN; ++j) bias[j] = bias_value(j);
  const uint64_t gm = a2a3::kGm.device_base;
  if (tilefw::port::copy_to_device(gm + kGmA, a, sizeof a) != Status::ok ||
      tilefw::port::copy_to_device(gm + kGmB, b, sizeof b) != Status::ok ||
      tilefw::port::copy_to_device(gm + kGmBias, bias, sizeof bias) != Status::ok) {
    return 1;
  }

  const Status st = gemm_bias(core);
  print_status("gemm_bias 30x56x40 f16 -> f32 (K = 32 + 24): ", st);
  if (st != Status::ok) {
    std::printf("rejected field: %s\n", core.last_report.field != nullptr ? core.last_report.field : "?");
    return 1;
  }
  static float c[kM][kN];
  if (tilefw::port::copy_from_device(c, gm + kGmC, sizeof c) != Status::ok) return 1;

  const tilefw::port::host::PipeTracker& pipes = npu.pipes();
  std::printf("instructions: MTE2 %u, MTE1 %u, M %u, FIX %u; hazards: %llu\n", pipes.count(Pipe::MTE2),
              pipes.count(Pipe::MTE1), pipes.count(Pipe::M), pipes.count(Pipe::FIX),
              static_cast<unsigned long long>(pipes.hazard_count()));
  std::printf("C[0][0..3] = %.9g %.9g %.9g %.9g, C[29][39] = %.9g\n", c[0][0], c[0][1], c[0][2], c[0][3],
              c[kM - 1][kN - 1]);

  // The reference: the cube's order, C = bias[j], then for k = 0 .. K-1 in order
  // C = fl32(C + a * b); a product of two halves is exact in f32. The K split changes nothing:
  // TMATMUL_ACC continues the same sequential sum.
  int mismatches = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      float want = bias[j];
      for (int k = 0; k < kK; ++k) want = want + tilefw::to_float(a[i][k]) * tilefw::to_float(b[k][j]);
      if (std::bit_cast<uint32_t>(c[i][j]) != std::bit_cast<uint32_t>(want) && ++mismatches <= 5) {
        std::printf("MISMATCH C[%d][%d]: simulator %08x, reference %08x\n", i, j, std::bit_cast<uint32_t>(c[i][j]),
                    std::bit_cast<uint32_t>(want));
      }
    }
  }
  if (pipes.hazard_count() != 0) {
    std::printf("FAIL: %llu unsynchronised reads\n", static_cast<unsigned long long>(pipes.hazard_count()));
    return 1;
  }
  if (mismatches != 0) {
    std::printf("FAIL: %d of %d values differ\n", mismatches, kM * kN);
    return 1;
  }
  std::printf("gemm: bit-exact (%d values)\n", kM * kN);
  return 0;
}
#else
int run_target() {
  Core core{};
  const Status st = gemm_bias(core);
  print_status("gemm_bias 30x56x40 f16 -> f32 (register emission, no NPU): ", st);
  if (st != Status::ok) return 1;
  // The last issues: TMATMUL_ACC (m, k, n = 30, 24, 40) and the TSTORE of L0C on FIX.
  namespace creg = a2a3::creg;
  namespace dreg = a2a3::dreg;
  const uint64_t c = a2a3::kCubeRegisters.base;
  const uint64_t f = a2a3::kFixRegisters.base;
  const bool ok = tilefw::port::reg_read32(c + creg::kM) == kM && tilefw::port::reg_read32(c + creg::kK) == kK1 &&
                  tilefw::port::reg_read32(c + creg::kN) == kN &&
                  tilefw::port::reg_read64(f + dreg::kDstAddr) == kGmC &&
                  tilefw::port::reg_read32(f + dreg::kExtent) == dreg::pair_word(kM, kN);
  example::print(ok ? "register image of the matmul and the store: as expected\n"
                    : "register image of the matmul and the store: WRONG\n");
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
