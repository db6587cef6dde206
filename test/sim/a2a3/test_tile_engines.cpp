// Tile instructions end to end on the simulated AI Core (host only): TLOAD / TSTORE / TMOV
// through the move pipes, TMATMUL* on the cube, events between pipes and the hazard checker.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "a2a3/core.hpp"
#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/tile/instr.hpp"

using namespace tilefw;
using namespace tilefw::tile;
namespace a2a3 = chip::a2a3;

namespace {

struct Sim {
  port::host::Machine m;
  port::host::ScopedMachine scope{m};
  port::host::A2a3Core core_model{m};
  Core core{};

  uint8_t* space(chip::MemSpace s) {
    const chip::MemoryRegion* r = a2a3::region_of(s);
    return *m.translate(r->device_base, r->size);
  }
  template <class T>
  void put(chip::MemSpace s, uint64_t off, const std::vector<T>& v) {
    std::memcpy(space(s) + off, v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> get(chip::MemSpace s, uint64_t off, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), space(s) + off, n * sizeof(T));
    return v;
  }
  const std::vector<port::host::Hazard>& hazards() { return core_model.pipes().hazards(); }
};

float f32(uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace

TEST(TileEngines, LoadAddStoreWithEventsIsExactAndRaceFree) {
  Sim s;
  constexpr int R = 16, C = 64;
  std::vector<float> a(R * C), b(R * C);
  for (int i = 0; i < R * C; ++i) {
    a[i] = 0.25f * static_cast<float>(i) - 7.0f;
    b[i] = 1.0f / static_cast<float>(i + 3);
  }
  s.put(chip::MemSpace::GM, 0x0, a);
  s.put(chip::MemSpace::GM, 0x10000, b);
  GlobalTensor<float, R, C> ga, gb, gc;
  ASSERT_EQ(TASSIGN(ga, 0x0), Status::ok);
  ASSERT_EQ(TASSIGN(gb, 0x10000), Status::ok);
  ASSERT_EQ(TASSIGN(gc, 0x20000), Status::ok);
  Tile<TileType::Vec, float, R, C> ta, tb, tc;
  TASSIGN<0x0>(ta);
  TASSIGN<0x1000>(tb);
  TASSIGN<0x2000>(tc);

  auto la = TLOAD(s.core, ta, ga);
  auto lb = TLOAD(s.core, tb, gb);
  ASSERT_TRUE(la.ok() && lb.ok());
  EXPECT_EQ(la.value().pipe, Pipe::MTE2);
  EXPECT_EQ(la.value().seq, 1u);
  EXPECT_EQ(lb.value().seq, 2u);
  auto add = TADD(s.core, tc, ta, tb, la.value(), lb.value());
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add.value().pipe, Pipe::V);
  EXPECT_EQ(add.value().seq, 1u);  // f32 16x64 contiguous: one vadd
  auto st = TSTORE(s.core, gc, tc, add.value());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value().pipe, Pipe::MTE3);
  const auto out = s.get<float>(chip::MemSpace::GM, 0x20000, R * C);
  for (int i = 0; i < R * C; ++i) ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(a[i] + b[i])) << i;
  EXPECT_TRUE(s.hazards().empty());
  EXPECT_EQ(s.core_model.pipes().hazard_count(), 0u);
}

TEST(TileEngines, MissingWaitIsReportedAsAHazard) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(TASSIGN(g, 0x100), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y;
  TASSIGN<0x0>(x);
  TASSIGN<0x4000>(y);
  auto load = TLOAD(s.core, x, g);
  ASSERT_TRUE(load.ok());
  // TABS reads x without waiting for the MTE2 load: hardware could read stale UB.
  auto abs = TABS(s.core, y, x);
  ASSERT_TRUE(abs.ok());
  ASSERT_EQ(s.hazards().size(), 1u);
  const port::host::Hazard& h = s.hazards()[0];
  EXPECT_EQ(h.reader, Pipe::V);
  EXPECT_EQ(h.writer, Pipe::MTE2);
  EXPECT_EQ(h.writer_seq, 1u);
  EXPECT_EQ(h.space, chip::MemSpace::UB);
  EXPECT_EQ(h.offset, 0u);
  EXPECT_EQ(port::reg_read32(a2a3::kSyncRegisters.base + a2a3::sreg::kHazards), 1u);
  // Storing y without waiting for V is the second hazard (MTE3 reads what V wrote).
  GlobalTensor<float, 8, 64> out;
  ASSERT_EQ(TASSIGN(out, 0x8000), Status::ok);
  ASSERT_TRUE(TSTORE(s.core, out, y).ok());
  ASSERT_EQ(s.hazards().size(), 2u);
  EXPECT_EQ(s.hazards()[1].reader, Pipe::MTE3);
  EXPECT_EQ(s.hazards()[1].writer, Pipe::V);
  EXPECT_EQ(s.hazards()[1].offset, 0x4000u);
  // Waiting (even transitively: MTE3 waits for V, which waited for MTE2) clears it.
  s.core_model.pipes().clear_hazards();
  auto load2 = TLOAD(s.core, x, g);
  auto abs2 = TABS(s.core, y, x, load2.value());
  ASSERT_TRUE(TSTORE(s.core, out, y, abs2.value()).ok());
  EXPECT_TRUE(s.hazards().empty());
}

TEST(TileEngines, TransitiveWaitsAndBarrier) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y;
  TASSIGN<0x0>(x);
  TASSIGN<0x8000>(y);
  auto load = TLOAD(s.core, x, g);
  // V waits for the load; MTE3 then waits for V's instruction and may read x (the load's output).
  auto abs = TABS(s.core, y, x, load.value());
  GlobalTensor<float, 8, 64> out;
  ASSERT_EQ(TASSIGN(out, 0x4000), Status::ok);
  ASSERT_TRUE(TSTORE(s.core, out, x, abs.value()).ok());
  EXPECT_TRUE(s.hazards().empty());
  // A barrier orders everything issued so far.
  auto load3 = TLOAD(s.core, x, g);
  ASSERT_TRUE(load3.ok());
  pipe_barrier(s.core);
  ASSERT_TRUE(TABS(s.core, y, x).ok());
  EXPECT_TRUE(s.hazards().empty());
  // A wait for an instruction that was never issued is refused.
  EXPECT_EQ(TABS(s.core, y, x, Event{Pipe::MTE2, 99}).status(), Status::sim_wait_never_signalled);
}

TEST(TileEngines, GemmWithBiasBitExact) {
  Sim s;
  constexpr int M = 32, K = 48, N = 32;
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<float> bias(N);
  for (int i = 0; i < M * K; ++i) a[i] = to_half(static_cast<float>((i * 7) % 13) * 0.125f - 0.5f).bits;
  for (int i = 0; i < K * N; ++i) b[i] = to_half(static_cast<float>((i * 5) % 11) * 0.25f - 1.0f).bits;
  for (int j = 0; j < N; ++j) bias[j] = 0.5f * static_cast<float>(j) - 3.0f;
  s.put(chip::MemSpace::GM, 0x0, a);
  s.put(chip::MemSpace::GM, 0x4000, b);
  s.put(chip::MemSpace::GM, 0x8000, bias);
  GlobalTensor<half, M, K> ga;
  GlobalTensor<half, K, N> gb;
  GlobalTensor<float, 1, N> gbias;
  GlobalTensor<float, M, N> gc;
  ASSERT_EQ(TASSIGN(ga, 0x0), Status::ok);
  ASSERT_EQ(TASSIGN(gb, 0x4000), Status::ok);
  ASSERT_EQ(TASSIGN(gbias, 0x8000), Status::ok);
  ASSERT_EQ(TASSIGN(gc, 0x10000), Status::ok);
  // A and B land in L1 as boxed Mat tiles (the nd2nz load), then MTE1 re-lays them out.
  Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor> ma;
  Tile<TileType::Mat, half, K, N, BLayout::RowMajor, K, N, SLayout::ColMajor> mb;
  Tile<TileType::Mat, float, 1, N> mbias;
  TASSIGN<0x0>(ma);
  TASSIGN<0x4000>(mb);
  TASSIGN<0x8000>(mbias);
  TileLeft<half, M, K> left;
  TileRight<half, K, N> right;
  TileAcc<float, M, N> acc;
  Tile<TileType::Bias, float, 1, N> tbias;
  TASSIGN<0x0>(left);
  TASSIGN<0x0>(right);
  TASSIGN<0x0>(acc);
  TASSIGN<0x0>(tbias);

  auto e1 = TLOAD(s.core, ma, ga);
  auto e2 = TLOAD(s.core, mb, gb);
  auto e3 = TLOAD(s.core, mbias, gbias);
  ASSERT_TRUE(e1.ok() && e2.ok() && e3.ok()) << status_name(s.core.last_report.status) << " " << s.core.last_report.field;
  auto m1 = TMOV(s.core, left, ma, e1.value());
  auto m2 = TMOV(s.core, right, mb, e2.value());
  auto m3 = TMOV(s.core, tbias, mbias, e3.value());
  ASSERT_TRUE(m1.ok() && m2.ok() && m3.ok()) << status_name(s.core.last_report.status) << " " << s.core.last_report.field;
  auto mm = TMATMUL_BIAS(s.core, acc, left, right, tbias, m1.value(), m2.value(), m3.value());
  ASSERT_TRUE(mm.ok()) << status_name(s.core.last_report.status) << " " << s.core.last_report.field;
  EXPECT_EQ(mm.value().pipe, Pipe::M);
  auto st = TSTORE(s.core, gc, acc, mm.value());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value().pipe, Pipe::FIX);
  EXPECT_TRUE(s.hazards().empty());

  const auto out = s.get<float>(chip::MemSpace::GM, 0x10000, M * N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = bias[j];
      for (int k = 0; k < K; ++k) {
        want = want + to_float(half{a[i * K + k]}) * to_float(half{b[k * N + j]});
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i * N + j]), std::bit_cast<uint32_t>(want)) << i << "," << j;
    }
  }
  // TMATMUL_ACC adds a second product on top: C = (bias + AB) + AB, sequential in k.
  auto acc2 = TMATMUL_ACC(s.core, acc, left, right, mm.value());
  ASSERT_TRUE(acc2.ok());
  Tile<TileType::Vec, half, M, N> vec;
  TASSIGN<0x0>(vec);
  auto mv = TMOV(s.core, vec, acc, acc2.value());  // FIX: f32 -> f16, nearest even
  ASSERT_TRUE(mv.ok());
  const auto halves = s.get<uint16_t>(chip::MemSpace::UB, 0x0, M * N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float c = out[i * N + j];
      for (int k = 0; k < K; ++k) c = c + to_float(half{a[i * K + k]}) * to_float(half{b[k * N + j]});
      ASSERT_EQ(halves[i * N + j], to_half(c).bits) << i << "," << j;
    }
  }
  EXPECT_TRUE(s.hazards().empty());
}

TEST(TileEngines, UnassignedOperandsEmitNothing) {
  // Every instruction kind refuses a tile or tensor TASSIGN never placed, naming the operand,
  // before any pipe is touched.
  Sim s;
  GlobalTensor<float, 8, 64> g, g_unplaced;
  ASSERT_EQ(TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 8, 64> x, y, unplaced;
  TASSIGN<0x0>(x);
  TASSIGN<0x800>(y);
  EXPECT_EQ(TLOAD(s.core, unplaced, g).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "dst");
  EXPECT_EQ(TLOAD(s.core, x, g_unplaced).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "src");
  EXPECT_EQ(TSTORE(s.core, g_unplaced, x).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "dst");
  EXPECT_EQ(TADD(s.core, y, x, unplaced).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "src1");
  EXPECT_EQ(TEXP(s.core, unplaced, x).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "dst");
  TileLeft<half, 16, 16> left;
  TileRight<half, 16, 16> right;
  TileAcc<float, 16, 16> acc;
  TASSIGN<0x0>(left);
  TASSIGN<0x0>(acc);
  EXPECT_EQ(TMATMUL(s.core, acc, left, right).status(), Status::tile_unassigned);
  EXPECT_STREQ(s.core.last_report.field, "b");
  EXPECT_EQ(s.core_model.pipes().count(Pipe::MTE2), 0u);
  EXPECT_EQ(s.core_model.pipes().count(Pipe::MTE3), 0u);
  EXPECT_EQ(s.core_model.pipes().count(Pipe::V), 0u);
  EXPECT_EQ(s.core_model.pipes().count(Pipe::M), 0u);
}

TEST(TileEngines, RejectedInstructionsEmitNothing) {
  Sim s;
  GlobalTensor<float, 8, 64> g;
  ASSERT_EQ(TASSIGN(g, 0x0), Status::ok);
  Tile<TileType::Vec, float, 16, 64> x;  // valid 16 rows, tensor has 8
  TASSIGN<0x0>(x);
  EXPECT_EQ(TLOAD(s.core, x, g).status(), Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(s.core.last_report.field, "src.rows");
  EXPECT_EQ(s.core_model.pipes().count(Pipe::MTE2), 0u);
  // A GM tensor running past the 16 MiB window: out_of_bounds, nothing moved.
  GlobalTensor<float, 16, 64> far;
  EXPECT_EQ(TASSIGN(far, a2a3::kGmWindowBytes - 64), Status::tile_out_of_bounds);
  // Raw registers bypassing validation: the engine re-validates (L0A -> UB is no MTE2 route).
  const uint64_t b = a2a3::kMte2Registers.base;
  port::reg_write32(b + a2a3::dreg::kSpaces, a2a3::dreg::spaces_word(chip::MemSpace::L0A, chip::MemSpace::UB));
  port::reg_write32(b + a2a3::dreg::kExtent, a2a3::dreg::pair_word(1, 1));
  port::ring_doorbell(b + a2a3::dreg::kDoorbell, 1);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(b + a2a3::dreg::kStatus)), Status::desc_dma_route_unsupported);
  EXPECT_EQ(s.core_model.mte2().last_report().field, std::string("src.space"));
  // Cube with k = 0 through raw registers: desc_shape_out_of_range.
  const uint64_t c = a2a3::kCubeRegisters.base;
  port::reg_write32(c + a2a3::creg::kOp, a2a3::creg::op_word(0, static_cast<uint32_t>(DType::f16),
                                                             static_cast<uint32_t>(DType::f32)));
  port::reg_write32(c + a2a3::creg::kM, 16);
  port::reg_write32(c + a2a3::creg::kK, 0);
  port::reg_write32(c + a2a3::creg::kN, 16);
  port::ring_doorbell(c + a2a3::creg::kDoorbell, 1);
  EXPECT_EQ(static_cast<Status>(port::reg_read32(c + a2a3::creg::kStatus)), Status::desc_shape_out_of_range);
  (void)f32;
}
