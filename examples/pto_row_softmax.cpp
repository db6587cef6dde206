// pto_row_softmax: the row softmax of row_softmax.cpp written the way a PTO author writes it
// (#include <pto/pto-inst.hpp>, namespace pto, no core argument, tiles placed by Auto mode, the
// pipe changes synchronised by Event<Src, Dst> values), run on the simulated AI Core with
// manual sync (so the hazard checker and the context's sync check see exactly the author's
// events) and compared bit for bit with the same kernel written against tilefw's tile API. Host
// only (pto/host.hpp).
#include <bit>
#include <cstdint>
#include <cstdio>

#include <pto/host.hpp>

#include "tilefw/tile/instr.hpp"

namespace {

constexpr int kRows = 8;
constexpr int kCols = 200;  // three 64-lane f32 chunks and an 8-lane tail
constexpr int kLanes = 64;

// ---- the PTO kernel ---------------------------------------------------------------------------
namespace ptok {
using namespace pto;
using RowTile = Tile<TileType::Vec, float, kRows, kCols>;
using ColTile = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;
using TmpTile = Tile<TileType::Vec, float, kRows, kLanes>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;

AICORE void row_softmax(__gm__ float* x, __gm__ float* z) {
  RowGm gx(x), gz(z);
  RowTile xt, y, zt;
  ColTile m, s;
  TmpTile tmp;
  Event<Op::TLOAD, Op::TROWMAX> loaded = TLOAD(xt, gx);
  TROWMAX(m, xt, tmp, loaded);  // m = max_j x
  TROWEXPANDSUB(y, xt, m);      // y = x - m
  TEXP(y, y);                   // y = exp(y)
  TROWSUM(s, y, tmp);           // s = sum_j y
  Event<Op::TROWEXPANDDIV, Op::TSTORE_VEC> divided = TROWEXPANDDIV(zt, y, s);
  TSTORE(gz, zt, divided);
}
}  // namespace ptok

// ---- the same kernel on tilefw's tile API (as in row_softmax.cpp) -------------------------------
namespace tilek {
using namespace tilefw::tile;
using RowTile = Tile<TileType::Vec, float, kRows, kCols>;
using ColTile = Tile<TileType::Vec, float, kRows, 1, BLayout::ColMajor>;
using TmpTile = Tile<TileType::Vec, float, kRows, kLanes>;
using Tensor = GlobalTensor<float, kRows, kCols>;

tilefw::Status row_softmax(Core& core, uint64_t gm_x, uint64_t gm_z) {
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
  TILEFW_TRY(TROWMAX(core, m, x, tmp, loaded).status());
  TILEFW_TRY(TROWEXPANDSUB(core, y, x, m).status());
  TILEFW_TRY(TEXP(core, y, y).status());
  TILEFW_TRY(TROWSUM(core, s, y, tmp).status());
  TILEFW_TRY_ASSIGN(const Event divided, TROWEXPANDDIV(core, z, y, s));
  return TSTORE(core, gz, z, divided).status();
}
}  // namespace tilek

float input(int i, int j) {
  return static_cast<float>((i * 111 + j * 76) % 229) / 43.0f - 0.75f * static_cast<float>(i);
}

static float g_pto_out[kRows * kCols];
static float g_tile_out[kRows * kCols];

int run_pto() {
  pto::host::Core core;
  core.set_sync(pto::SyncMode::Manual);
  float* x = pto::host::gm<float>(kRows * kCols);
  float* z = pto::host::gm<float>(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) x[i] = input(i / kCols, i % kCols);
  ptok::row_softmax(x, z);  // a failed check would have printed and exited
  if (core.hazard_count() != 0 || core.sync_violations() != 0) {
    std::printf("pto kernel: %llu hazards, %llu missing waits\n", static_cast<unsigned long long>(core.hazard_count()),
                static_cast<unsigned long long>(core.sync_violations()));
    return 1;
  }
  for (int i = 0; i < kRows * kCols; ++i) g_pto_out[i] = z[i];
  return 0;
}

int run_tile_api() {
  pto::host::Core core;  // the simulated AI Core; its context's tile core runs the tile API
  float* x = pto::host::gm<float>(kRows * kCols);
  float* z = pto::host::gm<float>(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) x[i] = input(i / kCols, i % kCols);
  const uintptr_t base = core.context().gm_base;
  const tilefw::Status st = tilek::row_softmax(core.context().tile, reinterpret_cast<uintptr_t>(x) - base,
                                               reinterpret_cast<uintptr_t>(z) - base);
  if (st != tilefw::Status::ok) {
    std::printf("tile-API kernel: %s\n", tilefw::status_name(st));
    return 1;
  }
  for (int i = 0; i < kRows * kCols; ++i) g_tile_out[i] = z[i];
  return 0;
}

}  // namespace

int main() {
  if (run_pto() != 0 || run_tile_api() != 0) return 1;
  int differ = 0;
  for (int i = 0; i < kRows * kCols; ++i) {
    if (std::bit_cast<uint32_t>(g_pto_out[i]) != std::bit_cast<uint32_t>(g_tile_out[i])) {
      if (differ++ < 5) std::printf("element %d: pto %a, tile API %a\n", i, g_pto_out[i], g_tile_out[i]);
    }
  }
  std::printf("pto_row_softmax 8x200 f32: %d of %d elements differ from the tile-API kernel\n", differ,
              kRows * kCols);
  return differ == 0 ? 0 : 1;
}
